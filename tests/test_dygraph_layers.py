"""Dygraph Layers, optimizers and saving: training matches real Paddle 3.3.1's dygraph
(tests/fixtures/make_dygraph_fixtures.py) and the same model in fluidc's static mode; state
dicts cross to and from Paddle's files."""
import os
import pickle
import sys

import numpy as np
import pytest

import fluidc as paddle
import fluidc.nn as nn

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures"))
from dygraph_cases import (CASES, batches, check_in_real_paddle, initial_state,  # noqa: E402
                           train)
from make_dygraph_fixtures import TENSOR  # noqa: E402

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "paddle",
                        "dygraph")
TRAIN = np.load(os.path.join(FIXTURES, "train.npz"))


@pytest.mark.parametrize("case", sorted(CASES))
def test_training_matches_paddle_dygraph(case):
    model, _, losses, grads = train(paddle, case)
    np.testing.assert_allclose(losses, TRAIN[f"{case}/losses"], rtol=2e-6)
    for name, g in grads.items():
        np.testing.assert_allclose(g, TRAIN[f"{case}/grad/{name}"], rtol=1e-5, atol=1e-6,
                                   err_msg=name)
    for name, v in model.state_dict().items():  # BN's running statistics included
        np.testing.assert_allclose(v.numpy(), TRAIN[f"{case}/state/{name}"], rtol=1e-5,
                                   atol=1e-6, err_msg=name)


@pytest.mark.parametrize("case", ["mlp_adam", "cnn_momentum", "transformer_momentum"])
def test_dygraph_equals_static_mode(case):
    _, _, eager_losses, _ = train(paddle, case)
    make_model, make_opt, shape, _ = CASES[case]
    paddle.enable_static()
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        model = make_model(paddle)
        x = paddle.static.data("x", list(shape), "float32")
        y = paddle.static.data("y", [shape[0], 1], "int64")
        loss = nn.CrossEntropyLoss()(model(x), y)
        make_opt(paddle, model.parameters()).minimize(loss)
    exe = paddle.static.Executor()
    exe.run(startup)
    model.set_state_dict(initial_state(model))
    losses = [exe.run(main, feed={"x": a, "y": b}, fetch_list=[loss])[0]
              for a, b in batches(case)]
    np.testing.assert_allclose(np.array(losses, "float64"), eager_losses, rtol=1e-5)


def test_layer_api():
    net = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
    assert [n for n, _ in net.named_parameters()] == ["0.weight", "0.bias", "2.weight",
                                                      "2.bias"]
    assert [p.name for p in net.parameters()] == ["linear_0.w_0", "linear_0.b_0",
                                                  "linear_1.w_0", "linear_1.b_0"]
    assert all(not p.stop_gradient for p in net.parameters())
    bn = nn.BatchNorm2D(3)
    assert list(bn.state_dict()) == ["weight", "bias", "_mean", "_variance"]
    layers = nn.LayerList([nn.Linear(2, 2) for _ in range(3)])
    layers.append(nn.Linear(2, 1))
    assert len(layers) == 4 and len(layers.parameters()) == 8
    assert list(layers.state_dict())[-1] == "3.bias"

    class WithBuffer(nn.Layer):
        def __init__(self):
            super().__init__()
            self.fc = self.create_parameter([2])
            self.register_buffer("steps", paddle.to_tensor([0]))
            self.register_buffer("scratch", paddle.zeros([2]), persistable=False)
    layer = WithBuffer()
    assert list(layer.state_dict()) == ["fc", "steps"]
    assert [n for n, _ in layer.named_buffers()] == ["steps", "scratch"]
    missing, unexpected = net.set_state_dict({"0.weight": np.ones((3, 4), "float32"),
                                              "extra": np.ones(1)})
    assert "0.bias" in missing and unexpected == ["extra"]
    np.testing.assert_array_equal(net[0].weight.numpy(), np.ones((3, 4)))
    net.set_state_dict({"linear_1.b_0": np.full(2, 5, "float32")}, use_structured_name=False)
    np.testing.assert_array_equal(net[2].bias.numpy(), [5, 5])
    with pytest.raises(ValueError, match="shape"):
        net.set_state_dict({"0.weight": np.ones((2, 2), "float32")})


def test_dropout_train_eval_and_no_grad_inference():
    drop = nn.Dropout(0.5)
    x = paddle.ones([200])
    y = drop(x).numpy()
    assert set(np.unique(y)) <= {0.0, 2.0} and 0 < (y == 0).sum() < 200
    drop.eval()
    np.testing.assert_array_equal(drop(x).numpy(), np.ones(200))
    with paddle.no_grad():
        out = nn.Linear(200, 3)(x)
    assert out.stop_gradient


def test_optimizer_needs_parameters_and_skips_params_without_grad():
    lin = nn.Linear(2, 2)
    opt = paddle.optimizer.SGD(learning_rate=0.1)
    with pytest.raises(AttributeError, match="parameters"):
        opt.step()
    opt = paddle.optimizer.Momentum(0.1, parameters=lin.parameters())
    before = lin.bias.numpy()
    loss = paddle.sum(paddle.matmul(paddle.ones([1, 2]), lin.weight))  # bias unused
    loss.backward()
    opt.step()
    np.testing.assert_array_equal(lin.bias.numpy(), before)
    np.testing.assert_allclose(lin.weight.numpy(), lin.weight.numpy())
    assert list(opt.state_dict()) == ["linear_0.w_0_velocity_0"]


def test_optimizer_state_of_other_parameter_names_is_refused_at_step():
    """Paddle's check: loaded accumulators are found by name when step() makes them; a
    state dict holding none for a parameter (another model's names) is an error, never a
    silent fresh start."""
    def trained(lin):
        opt = paddle.optimizer.Adam(0.1, parameters=lin.parameters())
        paddle.sum(lin(paddle.ones([1, 2]))).backward()
        opt.step()
        return opt
    state = trained(nn.Linear(2, 2)).state_dict()
    other = nn.Linear(2, 2)  # linear_1: its moments are not in the state
    opt = paddle.optimizer.Adam(0.1, parameters=other.parameters())
    opt.set_state_dict(state)
    paddle.sum(other(paddle.ones([1, 2]))).backward()
    with pytest.raises(AssertionError, match="should in state dict"):
        opt.step()


def test_save_load_resume_gives_uninterrupted_numbers(tmp_path):
    _, _, full, _ = train(paddle, "mlp_sgd_step_decay")
    make_model, make_opt, _, _ = CASES["mlp_sgd_step_decay"]
    model = make_model(paddle)
    model.set_state_dict(initial_state(model))
    opt = make_opt(paddle, model.parameters())
    data = batches("mlp_sgd_step_decay")
    loss_fn = nn.CrossEntropyLoss()

    def run(m, o, steps):
        out = []
        for x, y in steps:
            loss = loss_fn(m(paddle.to_tensor(x)), paddle.to_tensor(y))
            loss.backward()
            o.step()
            o.clear_grad()
            o._learning_rate.step()
            out.append(float(loss))
        return out
    first = run(model, opt, data[:2])
    paddle.save(model.state_dict(), str(tmp_path / "m.pdparams"))
    paddle.save(opt.state_dict(), str(tmp_path / "m.pdopt"))
    model2 = make_model(paddle)
    opt2 = make_opt(paddle, model2.parameters())
    model2.set_state_dict(paddle.load(str(tmp_path / "m.pdparams")))
    opt2.set_state_dict(paddle.load(str(tmp_path / "m.pdopt")))
    assert opt2.get_lr() == opt.get_lr()
    np.testing.assert_allclose(first + run(model2, opt2, data[2:]), full, rtol=1e-6)


def test_paddle_files_load_here_and_ours_have_paddles_layout(tmp_path):
    model, opt, _, _ = train(paddle, "mlp_adam")
    params = paddle.load(os.path.join(FIXTURES, "mlp_adam.pdparams"))
    for k, v in model.state_dict().items():
        np.testing.assert_allclose(np.array(params[k]), v.numpy(), rtol=1e-5, atol=1e-7)
    opt_state = paddle.load(os.path.join(FIXTURES, "mlp_adam.pdopt"))
    ours = opt.state_dict()
    assert list(ours) == [k for k in opt_state]  # Paddle's names and order
    for k, v in ours.items():
        np.testing.assert_allclose(np.array(opt_state[k]), v.numpy(), rtol=1e-5, atol=1e-7)
    paddle.save(model.state_dict(), str(tmp_path / "ours.pdparams"))
    paddle.save(opt.state_dict(), str(tmp_path / "ours.pdopt"))
    for name in ("pdparams", "pdopt"):
        with open(tmp_path / f"ours.{name}", "rb") as f:
            mine = pickle.load(f)
        with open(os.path.join(FIXTURES, f"mlp_adam.{name}"), "rb") as f:
            theirs = pickle.load(f)
        assert list(mine) == list(theirs)
        assert mine["StructuredToParameterName@@"] == theirs["StructuredToParameterName@@"]
        assert all(k in mine["StructuredToParameterName@@"] for k in mine
                   if k != "StructuredToParameterName@@")
        assert all(type(mine[k]) is np.ndarray and mine[k].dtype == theirs[k].dtype
                   for k in mine if k != "StructuredToParameterName@@")
    paddle.disable_static()  # Paddle's dygraph load: tensors
    loaded = paddle.load(os.path.join(FIXTURES, "tensor.pdtensor"))
    assert isinstance(loaded, paddle.Tensor)
    np.testing.assert_array_equal(loaded.numpy(), TENSOR)
    assert isinstance(paddle.load(str(tmp_path / "ours.pdparams"))["0.weight"], paddle.Tensor)


def test_our_files_load_in_real_paddle(tmp_path):
    """make_dygraph_fixtures.py's check mode, with the python named by FLUIDC_PADDLE_PYTHON."""
    model, opt, _, _ = train(paddle, "mlp_adam")
    tensor = paddle.to_tensor(TENSOR)
    paddle.save(model.state_dict(), str(tmp_path / "mlp_adam.pdparams"))
    paddle.save(opt.state_dict(), str(tmp_path / "mlp_adam.pdopt"))
    paddle.save(tensor, str(tmp_path / "tensor.pdtensor"))
    with open(tmp_path / "tensor.pdtensor", "rb") as f:
        name, value = pickle.load(f)  # Paddle's (name, array) form of one tensor
    assert name == tensor.name and np.array_equal(value, TENSOR)
    expected = {f"pdparams/{k}": v.numpy() for k, v in model.state_dict().items()}
    expected.update({f"pdopt/{k}": v.numpy() for k, v in opt.state_dict().items()})
    np.savez(tmp_path / "expected.npz", tensor=TENSOR, **expected)
    check_in_real_paddle("check", tmp_path)


def test_dataloader_yields_tensors_in_dygraph_mode():
    class Data(paddle.io.Dataset):
        def __getitem__(self, i):
            return np.full([3], i, "float32"), np.array([i % 2], "int64")

        def __len__(self):
            return 8
    batches = list(paddle.io.DataLoader(Data(), batch_size=4))
    assert len(batches) == 2
    x, y = batches[1]
    assert isinstance(x, paddle.Tensor) and x.shape == [4, 3] and y.dtype == paddle.int64
    np.testing.assert_array_equal(x.numpy()[:, 0], [4, 5, 6, 7])
