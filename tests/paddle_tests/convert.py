"""Port of Paddle's test/rnn/convert.py (its cell and net parts): copy a numpy reference
cell's or net's parameters into the Paddle layer's, by name (in a static program: into the
global scope's tensors)."""
import fluidc as paddle


def convert_params_for_cell(np_cell, paddle_cell):
    state = np_cell.parameters
    for k, v in paddle_cell.named_parameters():
        if k in state:
            v.set_value(state[k])


def convert_params_for_cell_static(np_cell, paddle_cell, place):
    state = np_cell.parameters
    for k, v in paddle_cell.named_parameters():
        if k in state:
            scope = paddle.static.global_scope()
            tensor = scope.find_var(v.name).get_tensor()
            tensor.set(state[k], place)


def convert_params_for_net(np_net, paddle_net):
    for np_layer, paddle_layer in zip(np_net, paddle_net):
        if hasattr(np_layer, "cell"):
            convert_params_for_cell(np_layer.cell, paddle_layer.cell)
        else:
            convert_params_for_cell(np_layer.cell_fw, paddle_layer.cell_fw)
            convert_params_for_cell(np_layer.cell_bw, paddle_layer.cell_bw)


def convert_params_for_net_static(np_net, paddle_net, place):
    for np_layer, paddle_layer in zip(np_net, paddle_net):
        if hasattr(np_layer, "cell"):
            convert_params_for_cell_static(np_layer.cell, paddle_layer.cell, place)
        else:
            convert_params_for_cell_static(np_layer.cell_fw, paddle_layer.cell_fw, place)
            convert_params_for_cell_static(np_layer.cell_bw, paddle_layer.cell_bw, place)
