"""paddle.nn's recurrent layers: the cells (SimpleRNNCell, LSTMCell, GRUCell), the wrappers
running a cell over time (RNN, BiRNN) and the stacked networks (SimpleRNN, LSTM, GRU).

A cell step is the cell's matmuls, adds and activations. nn.RNN / BiRNN run it unrolled over the
input's time dim when that is known, else (a static program over data whose time dim is -1) in
a While loop over tensor arrays, as Paddle's static nn.RNN. The networks are Paddle's `rnn` op
(frontend/ops/rnn_net.py) in every mode, as Paddle's are. Paddle's conventions: weight_ih
[gates * hidden, input], weight_hh [gates * hidden, hidden], biases [gates * hidden], all
U(-1/sqrt(hidden), 1/sqrt(hidden)); LSTM gates [input, forget, cell, output], GRU gates
[reset, update, candidate] with h = (h_prev - c) * z + c (torch's orders and formulas). The
networks expose each cell's parameters as weight_ih_l{k}[_reverse] ..., so their state dicts
hold those keys first and the sub-layers' (0.cell.weight_ih, 0.cell_fw.weight_ih, ...) after,
as Paddle's do.

sequence_length: at step t a sequence whose length is <= t keeps its states (state * mask +
new * (1 - mask)), as Paddle's RNN does; the networks (Paddle's rnn op) also zero the outputs
there, nn.RNN / BiRNN leave them as the cell gave them.
"""
from __future__ import annotations

import math

from ...dtypes import VarType
from ...framework import Variable, default_startup_program, in_dygraph_mode
from ...initializer import Constant
from ..compare import increment, less_than
from ..control_flow import While
from ..conv import fill_constant_batch_size_like
from ..helper import LayerHelper
from ..tensor import assign, shape
from ..tensor import range as _range
from ..tensor_array import array_read, array_write, create_array, tensor_array_to_tensor
from . import add, cast, concat, full, matmul, multiply, subtract, tanh, transpose
from . import functional as F
from .initializer import Uniform
from .layer import Layer, LayerList
from .manipulation import gather, split
from .shaping import stack, unsqueeze


def _first(tree):
    """The first leaf of nested lists / tuples."""
    while isinstance(tree, (list, tuple)):
        tree = tree[0]
    return tree


def _check_sizes(cls: str, input_size, hidden_size) -> None:
    for what, v in (("hidden_size", hidden_size), ("input_size", input_size)):
        if not isinstance(v, int) or isinstance(v, bool) or v <= 0:
            raise ValueError(f"{what} of {cls} must be greater than 0, but now equals to {v}")


class RNNCellBase(Layer):
    """A cell: forward(inputs, states) -> (outputs, new_states); states default to zeros."""

    gates = 1

    def __init__(self, input_size, hidden_size, weight_ih_attr=None, weight_hh_attr=None,
                 bias_ih_attr=None, bias_hh_attr=None, name=None) -> None:
        super().__init__()
        _check_sizes(type(self).__name__, input_size, hidden_size)
        self.input_size, self.hidden_size = input_size, hidden_size
        rows = self.gates * hidden_size
        self.weight_ih = self._param([rows, input_size], weight_ih_attr, False)
        self.weight_hh = self._param([rows, hidden_size], weight_hh_attr, False)
        self.bias_ih = self._param([rows], bias_ih_attr, True)
        self.bias_hh = self._param([rows], bias_hh_attr, True)

    def _param(self, shape, attr, is_bias: bool):
        """U(-1/sqrt(hidden), 1/sqrt(hidden)); attr False: a frozen parameter of ones
        (weights) or zeros (biases), as Paddle's cells make it."""
        if attr is not False:
            std = 1.0 / math.sqrt(self.hidden_size)
            return self.create_parameter(shape, attr, is_bias=is_bias,
                                         default_initializer=Uniform(-std, std))
        param = self.create_parameter(shape, None, is_bias=is_bias,
                                      default_initializer=Constant(0.0 if is_bias else 1.0))
        param.stop_gradient = True
        return param

    @property
    def state_shape(self):
        return (self.hidden_size,)

    def get_initial_states(self, batch_ref, shape=None, dtype=None, init_value=0.0,
                           batch_dim_idx=0):
        """States of state_shape filled with init_value, batch dim taken from batch_ref."""
        ref = _first(batch_ref)
        shape = self.state_shape if shape is None else shape
        dtype = dtype or ref.dtype

        def make(s):
            if isinstance(s, (list, tuple)) and s and isinstance(s[0], (list, tuple)):
                return tuple(make(x) for x in s)
            return fill_constant_batch_size_like(ref, [-1] + list(s), dtype, init_value,
                                                 input_dim_idx=batch_dim_idx)
        return make(shape)

    def _proj(self, x, weight, bias):
        return add(matmul(x, weight, transpose_y=True), bias)

    def _input_gates(self, inputs, h):
        return (self._proj(inputs, self.weight_ih, self.bias_ih),
                self._proj(h, self.weight_hh, self.bias_hh))


class SimpleRNNCell(RNNCellBase):
    """h = act(x W_ih^T + b_ih + h_prev W_hh^T + b_hh), act tanh or relu."""

    def __init__(self, input_size, hidden_size, activation="tanh", weight_ih_attr=None,
                 weight_hh_attr=None, bias_ih_attr=None, bias_hh_attr=None, name=None) -> None:
        if activation not in ("tanh", "relu"):
            raise ValueError(f"activation for SimpleRNNCell should be tanh or relu, but get "
                             f"{activation}")
        super().__init__(input_size, hidden_size, weight_ih_attr, weight_hh_attr,
                         bias_ih_attr, bias_hh_attr, name)
        self.activation = activation
        self._act = tanh if activation == "tanh" else F.relu

    def forward(self, inputs, states=None):
        h = self.get_initial_states(inputs) if states is None else states
        h = self._act(add(*self._input_gates(inputs, h)))
        return h, h


class LSTMCell(RNNCellBase):
    """Gates [i, f, g, o]: c = f * c_prev + i * g, h = o * tanh(c); states (h, c)."""

    gates = 4

    def __init__(self, input_size, hidden_size, weight_ih_attr=None, weight_hh_attr=None,
                 bias_ih_attr=None, bias_hh_attr=None, proj_size=0, name=None) -> None:
        if proj_size:
            raise NotImplementedError("LSTMCell: proj_size is not supported")
        super().__init__(input_size, hidden_size, weight_ih_attr, weight_hh_attr,
                         bias_ih_attr, bias_hh_attr, name)

    @property
    def state_shape(self):
        return ((self.hidden_size,), (self.hidden_size,))

    def forward(self, inputs, states=None):
        h, c = self.get_initial_states(inputs) if states is None else states
        i, f, g, o = split(add(*self._input_gates(inputs, h)), 4, axis=-1)
        c = add(multiply(F.sigmoid(f), c), multiply(F.sigmoid(i), tanh(g)))
        h = multiply(F.sigmoid(o), tanh(c))
        return h, (h, c)


class GRUCell(RNNCellBase):
    """Gates [r, z, c]: c = tanh(x_c + r * h_c), h = (h_prev - c) * z + c."""

    gates = 3

    def forward(self, inputs, states=None):
        h = self.get_initial_states(inputs) if states is None else states
        x_gates, h_gates = self._input_gates(inputs, h)
        x_r, x_z, x_c = split(x_gates, 3, axis=-1)
        h_r, h_z, h_c = split(h_gates, 3, axis=-1)
        r, z = F.sigmoid(add(x_r, h_r)), F.sigmoid(add(x_z, h_z))
        c = tanh(add(x_c, multiply(r, h_c)))
        h = add(multiply(subtract(h, c), z), c)
        return h, h


def _map(fn, *trees):
    """fn over the leaves of equally nested tuples/lists."""
    if isinstance(trees[0], (list, tuple)):
        return tuple(_map(fn, *parts) for parts in zip(*trees))
    return fn(*trees)


def _time_steps(inputs, time_major: bool, who: str) -> int | None:
    """The length of inputs' time dim, None when unknown until the program runs."""
    leaf = _first(inputs)
    if not isinstance(leaf, Variable):
        raise TypeError(f"{who}: inputs must be a Tensor, but received {type(leaf).__name__}")
    steps = leaf.shape[0 if time_major else 1]
    return None if steps is None or steps < 0 else steps


def _step_mask(sequence_length, t, dtype):
    """[B, 1] of 1.0 where t (an int or a 0-d int64 Variable) < length, else 0.0."""
    if not isinstance(t, Variable):
        t = full([1], t, sequence_length.dtype)
    elif sequence_length.dtype != t.dtype:
        sequence_length = cast(sequence_length, t.dtype)
    return unsqueeze(cast(less_than(t, sequence_length), dtype), [1])


def _keep(state, new, mask):
    """new where mask is 1, state where it is 0."""
    return add(multiply(new, mask), multiply(state, subtract(full([1], 1.0, mask.dtype), mask)))


def _swap_batch_time(x):
    return transpose(x, [1, 0] + list(range(2, len(x.shape))))


def _unrolled(cell, inputs, states, sequence_length, steps: int, time_major: bool,
              is_reverse: bool, kwargs):
    """The cell unrolled over a known number of steps."""
    outputs = [None] * steps
    for t in (range(steps - 1, -1, -1) if is_reverse else range(steps)):
        x_t = _map(lambda x: x[t] if time_major else x[:, t], inputs)
        out, new = cell(x_t, states, **kwargs)
        if sequence_length is not None:
            mask = _step_mask(sequence_length, t, _first(new).dtype)
            new = _map(lambda s, n: _keep(s, n, mask), states, new)
        states, outputs[t] = new, out
    return _map(lambda *xs: stack(list(xs), axis=0 if time_major else 1), *outputs), states


def _looped(cell, inputs, states, sequence_length, time_major: bool, is_reverse: bool, kwargs):
    """The cell in a While loop over a time dim known only when the program runs, as Paddle's
    static nn.RNN: the step's input read at the loop counter, the states and outputs kept in
    tensor arrays and stacked after the loop; reversed by a gather over the time dim."""
    if not time_major:
        inputs = _map(_swap_batch_time, inputs)
    steps = cast(shape(_first(inputs))[0], "int64")
    if is_reverse:
        last = subtract(steps, full([1], 1, "int64"))
        order = _range(last, -1, -1, "int64")
        inputs = _map(lambda x: gather(x, order), inputs)
    # the initial states go in at an index of their own: the loop counter changes, and the
    # backward reads the index of the first write after the loop
    first = full([], 0, "int64")
    i = full([], 0, "int64")
    cond = less_than(i, steps)
    loop = While(cond)
    out_array = create_array(_first(inputs).dtype)
    state_arrays = _map(lambda s: create_array(s.dtype), states)
    _map(lambda s, a: array_write(s, first, a), states, state_arrays)
    with loop.block():
        step_in = _map(lambda x: x[i], inputs)
        pre = _map(lambda a: array_read(a, i), state_arrays)
        out, new = cell(step_in, pre, **kwargs)
        if not isinstance(out, Variable):
            raise TypeError(f"{type(cell).__name__}: over a time dim unknown until the program "
                            f"runs, a cell's outputs must be one Tensor")
        if sequence_length is not None:
            t = subtract(last, i) if is_reverse else i
            mask = _step_mask(sequence_length, t, _first(new).dtype)
            new = _map(lambda n, p: _keep(p, n, mask), new, pre)
        array_write(out, i, out_array)
        increment(i, 1)
        _map(lambda n, a: array_write(n, i, a), new, state_arrays)
        assign(less_than(i, steps), cond)
    out = tensor_array_to_tensor(out_array, axis=0, use_stack=True)[0]
    finals = _map(lambda a: tensor_array_to_tensor(a, axis=0, use_stack=True)[0][-1],
                  state_arrays)
    if is_reverse:
        out = gather(out, order)
    return (out if time_major else _swap_batch_time(out)), finals


def run_cell(cell, inputs, initial_states, sequence_length, time_major: bool, is_reverse: bool,
             who: str, **kwargs):
    """(outputs [B, T, ...] or time-major, final states): cell over the time steps, unrolled
    when their number is known, else in a While loop."""
    steps = _time_steps(inputs, time_major, who)
    states = cell.get_initial_states(inputs, batch_dim_idx=1 if time_major else 0) \
        if initial_states is None else initial_states
    if steps is None:
        return _looped(cell, inputs, states, sequence_length, time_major, is_reverse, kwargs)
    return _unrolled(cell, inputs, states, sequence_length, steps, time_major, is_reverse,
                     kwargs)


class RNN(Layer):
    """cell run over the time steps of inputs (reversed with is_reverse)."""

    def __init__(self, cell, is_reverse=False, time_major=False) -> None:
        super().__init__()
        self.cell, self.is_reverse, self.time_major = cell, is_reverse, time_major

    def forward(self, inputs, initial_states=None, sequence_length=None, **kwargs):
        return run_cell(self.cell, inputs, initial_states, sequence_length, self.time_major,
                        self.is_reverse, "RNN", **kwargs)


class BiRNN(Layer):
    """cell_fw forward and cell_bw backward over inputs, outputs joined on the last axis."""

    def __init__(self, cell_fw, cell_bw, time_major=False) -> None:
        super().__init__()
        if cell_fw.input_size != cell_bw.input_size:
            raise ValueError(f"input size of forward cell({cell_fw.input_size}) does not "
                             f"equals that of backward cell({cell_bw.input_size})")
        self.cell_fw, self.cell_bw, self.time_major = cell_fw, cell_bw, time_major

    def forward(self, inputs, initial_states=None, sequence_length=None, **kwargs):
        if initial_states is None:
            initial_states = (None, None)
        elif not isinstance(initial_states, (list, tuple)) or len(initial_states) != 2:
            raise ValueError("BiRNN: initial_states must be a pair (forward states, "
                             "backward states)")
        fw, s_fw = run_cell(self.cell_fw, inputs, initial_states[0], sequence_length,
                            self.time_major, False, "BiRNN", **kwargs)
        bw, s_bw = run_cell(self.cell_bw, inputs, initial_states[1], sequence_length,
                            self.time_major, True, "BiRNN", **kwargs)
        return _map(lambda a, b: concat([a, b], -1), fw, bw), (s_fw, s_bw)


_DIRECTIONS = {"forward": 1, "bidirect": 2, "bidirectional": 2}


class RNNBase(LayerList):
    """num_layers of RNN / BiRNN over one cell type; states stacked [layers * dirs, B, H]."""

    def __init__(self, mode, input_size, hidden_size, num_layers=1, direction="forward",
                 time_major=False, dropout=0.0, weight_ih_attr=None, weight_hh_attr=None,
                 bias_ih_attr=None, bias_hh_attr=None, **cell_kwargs) -> None:
        super().__init__()
        if direction not in _DIRECTIONS:
            raise ValueError(f"direction should be forward or bidirect (or bidirectional), "
                             f"received direction = {direction}")
        if not isinstance(num_layers, int) or num_layers <= 0:
            raise ValueError(f"num_layers must be a positive int, but received {num_layers}")
        self.mode, self.input_size, self.hidden_size = mode, input_size, hidden_size
        self.num_layers, self.time_major, self.dropout = num_layers, time_major, dropout
        self.num_directions = _DIRECTIONS[direction]
        self.state_components = 2 if mode == "LSTM" else 1
        cell_cls = {"RNN_TANH": SimpleRNNCell, "RNN_RELU": SimpleRNNCell, "LSTM": LSTMCell,
                    "GRU": GRUCell}[mode]
        attrs = dict(weight_ih_attr=weight_ih_attr, weight_hh_attr=weight_hh_attr,
                     bias_ih_attr=bias_ih_attr, bias_hh_attr=bias_hh_attr, **cell_kwargs)
        for k in range(num_layers):
            size = input_size if k == 0 else hidden_size * self.num_directions
            cells = [cell_cls(size, hidden_size, **attrs) for _ in range(self.num_directions)]
            self.append(BiRNN(*cells, time_major) if len(cells) == 2
                        else RNN(cells[0], False, time_major))
        for k, layer in enumerate(self):
            for d, cell in enumerate([layer.cell] if isinstance(layer, RNN)
                                     else [layer.cell_fw, layer.cell_bw]):
                suffix = f"l{k}" + ("_reverse" if d else "")
                for name in ("weight_ih", "weight_hh", "bias_ih", "bias_hh"):
                    param = getattr(cell, name)
                    if param is not None:
                        setattr(self, f"{name}_{suffix}", param)
        if not in_dygraph_mode():
            self._flat_weight = [self._coalesce(self._weights())]

    def _coalesce(self, weights: list):
        """Paddle's flatten_parameters in a static program: a flat parameter <net>.w_0 (zeros)
        that a coalesce_tensor in the startup program fills with the weights one after
        another, for cuDNN (kept in a list, so the layer does not list it among its
        parameters, as Paddle's does not)."""
        flat = self.create_parameter([sum(math.prod(w.shape) for w in weights)],
                                     dtype=weights[0].dtype,
                                     default_initializer=Constant(0.0))
        default_startup_program().global_block().append_op(
            "coalesce_tensor", inputs={"Input": weights},
            outputs={"Output": weights, "FusedOutput": [flat]},
            attrs={"copy_data": True, "use_align": False, "dtype": int(weights[0].dtype)})
        return flat

    def _initial_states(self, inputs, initial_states) -> list:
        """PreState: the given states, or zeros [layers * dirs, batch, hidden] (the batch
        read from inputs when the program runs if its dim is unknown), as Paddle's layer."""
        if initial_states is None:
            batch = inputs.shape[1 if self.time_major else 0]
            if batch is None or batch < 0:
                batch = shape(inputs)[1 if self.time_major else 0]
            dims = [self.num_layers * self.num_directions, batch, self.hidden_size]
            return [full(dims, 0, inputs.dtype) for _ in range(self.state_components)]
        if self.state_components == 2:
            if not isinstance(initial_states, (list, tuple)) or len(initial_states) != 2:
                raise ValueError("LSTM: initial_states must be a pair (h, c)")
            return list(initial_states)
        return [initial_states] if isinstance(initial_states, Variable) \
            else list(initial_states)

    def _weights(self) -> list:
        """WeightList: every cell's weight_ih, weight_hh (layer by layer, forward cell
        first), then their biases in the same order."""
        cells = [c for layer in self for c in ([layer.cell] if isinstance(layer, RNN)
                                               else [layer.cell_fw, layer.cell_bw])]
        return [getattr(c, f"{kind}_{gate}") for kind in ("weight", "bias") for c in cells
                for gate in ("ih", "hh")]

    def forward(self, inputs, initial_states=None, sequence_length=None):
        """Paddle's `rnn` op over time-major inputs (a time dim unknown until the program
        runs is fine): outputs and the final states [layers * dirs, batch, hidden]."""
        if not isinstance(inputs, Variable):
            raise TypeError(f"{type(self).__name__}: inputs must be a Tensor, but received "
                            f"{type(inputs).__name__}")
        states = self._initial_states(inputs, initial_states)
        x = inputs if self.time_major else transpose(inputs, [1, 0, 2])
        helper = LayerHelper(type(self).__name__, name=self.full_name())
        out = helper.create_variable_for_type_inference(x.dtype)
        finals = [helper.create_variable_for_type_inference(x.dtype)
                  for _ in range(self.state_components)]
        reserve = helper.create_variable_for_type_inference(VarType.UINT8, stop_gradient=True)
        dropout_state = helper.create_variable(
            name=f"{self.full_name()}.dropout_state__non_persistable", dtype=VarType.UINT8,
            shape=(), stop_gradient=True)
        ins = {"Input": [x], "WeightList": self._weights(), "PreState": states}
        if sequence_length is not None:
            ins["SequenceLength"] = [sequence_length]
        helper.append_op("rnn", inputs=ins,
                         outputs={"Out": [out], "State": finals, "Reserve": [reserve],
                                  "DropoutState": [dropout_state]},
                         attrs={"dropout_prob": self.dropout,
                                "is_bidirec": self.num_directions == 2,
                                "input_size": self.input_size, "hidden_size": self.hidden_size,
                                "num_layers": self.num_layers, "mode": self.mode,
                                "is_test": not self.training})
        out = out if self.time_major else transpose(out, [1, 0, 2])
        return out, tuple(finals) if self.state_components == 2 else finals[0]


class SimpleRNN(RNNBase):
    def __init__(self, input_size, hidden_size, num_layers=1, activation="tanh",
                 direction="forward", time_major=False, dropout=0.0, weight_ih_attr=None,
                 weight_hh_attr=None, bias_ih_attr=None, bias_hh_attr=None, name=None) -> None:
        if activation not in ("tanh", "relu"):
            raise ValueError(f"Unknown activation '{activation}'")
        super().__init__("RNN_" + activation.upper(), input_size, hidden_size, num_layers,
                         direction, time_major, dropout, weight_ih_attr, weight_hh_attr,
                         bias_ih_attr, bias_hh_attr, activation=activation)


class LSTM(RNNBase):
    def __init__(self, input_size, hidden_size, num_layers=1, direction="forward",
                 time_major=False, dropout=0.0, weight_ih_attr=None, weight_hh_attr=None,
                 bias_ih_attr=None, bias_hh_attr=None, proj_size=0, name=None) -> None:
        if proj_size:
            raise NotImplementedError("LSTM: proj_size is not supported")
        super().__init__("LSTM", input_size, hidden_size, num_layers, direction, time_major,
                         dropout, weight_ih_attr, weight_hh_attr, bias_ih_attr, bias_hh_attr)


class GRU(RNNBase):
    def __init__(self, input_size, hidden_size, num_layers=1, direction="forward",
                 time_major=False, dropout=0.0, weight_ih_attr=None, weight_hh_attr=None,
                 bias_ih_attr=None, bias_hh_attr=None, name=None) -> None:
        super().__init__("GRU", input_size, hidden_size, num_layers, direction, time_major,
                         dropout, weight_ih_attr, weight_hh_attr, bias_ih_attr, bias_hh_attr)
