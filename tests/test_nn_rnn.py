"""paddle.nn.SimpleRNN / LSTM / GRU, their cells, RNN and BiRNN (frontend/layers/api2/rnn.py):
Paddle 3.3.1's numbers from the same weights (fixture rnn_layers.npz), torch.nn's LSTM / GRU /
RNN, finite differences, static programs against eager runs, Paddle's names and errors."""
import os
import sys

import numpy as np
import pytest
import torch

import fluidc as paddle
from fluidc.frontend.errors import ShapeError

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures"))
from dygraph_cases import check_in_real_paddle  # noqa: E402
from rnn_layer_cases import CASES, flat, run  # noqa: E402

FIXTURE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "paddle",
                       "rnn_layers.npz")


@pytest.fixture(scope="module")
def want():
    return dict(np.load(FIXTURE))


@pytest.mark.parametrize("name", sorted(CASES))
def test_against_paddle(want, name):
    paddle.disable_static()
    prefix = f"{name}/state/"
    state = {k[len(prefix):]: v for k, v in want.items() if k.startswith(prefix)}
    layer, x, results, states = run(paddle, name, state)
    assert list(layer.state_dict()) == list(state)  # Paddle's keys, in Paddle's order
    for i, r in enumerate(results):
        np.testing.assert_allclose(r.numpy(), want[f"{name}/out/{i}"], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(x.grad.numpy(), want[f"{name}/grad/x"], rtol=1e-4, atol=1e-5)
    for i, s in enumerate(states):
        np.testing.assert_allclose(s.grad.numpy(), want[f"{name}/grad/h0_{i}"], rtol=1e-4,
                                   atol=1e-5)
    for k, p in layer.state_dict().items():
        if "." not in k:
            np.testing.assert_allclose(p.grad.numpy(), want[f"{name}/grad/{k}"], rtol=1e-4,
                                       atol=1e-5, err_msg=k)


_TORCH = {"LSTM": torch.nn.LSTM, "GRU": torch.nn.GRU, "SimpleRNN": torch.nn.RNN}


@pytest.mark.parametrize("seed", range(4))
def test_against_torch(seed):
    """Random networks: torch's layer loads the flat state dict (the same names and gate
    orders) and gives the same outputs, final states and gradients."""
    paddle.disable_static()
    rng = np.random.default_rng(seed)
    cls = ["LSTM", "GRU", "SimpleRNN"][seed % 3]
    n_in, hidden, layers = (int(v) for v in rng.integers(1, 5, 3))
    bidirect, time_major = bool(rng.integers(2)), bool(rng.integers(2))
    kw = dict(num_layers=layers, direction="bidirect" if bidirect else "forward",
              time_major=time_major)
    net = getattr(paddle.nn, cls)(n_in, hidden, **kw)
    ref = _TORCH[cls](n_in, hidden, num_layers=layers, bidirectional=bidirect,
                      batch_first=not time_major)
    ref.load_state_dict({k: torch.tensor(v.numpy()) for k, v in net.state_dict().items()
                         if "." not in k})
    x_np = rng.standard_normal([int(rng.integers(1, 6)), 3, n_in]).astype("float32")
    x = paddle.to_tensor(x_np, stop_gradient=False)
    tx = torch.tensor(x_np, requires_grad=True)
    out, states = net(x)
    t_out, t_states = ref(tx)
    got = [out] + list(states if cls == "LSTM" else [states])
    exp = [t_out] + list(t_states if cls == "LSTM" else [t_states])
    for g, e in zip(got, exp):
        np.testing.assert_allclose(g.numpy(), e.detach().numpy(), rtol=1e-5, atol=1e-6)
    sum(((g * (i + 1)).sum() for i, g in enumerate(got[1:])), got[0].sum()).backward()
    sum(((e * (i + 1)).sum() for i, e in enumerate(exp[1:])), exp[0].sum()).backward()
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-4, atol=1e-5)
    for k, p in net.state_dict().items():
        if "." not in k:
            np.testing.assert_allclose(p.grad.numpy(), getattr(ref, k).grad.numpy(),
                                       rtol=1e-4, atol=1e-5, err_msg=k)


@pytest.mark.parametrize("cell", ["SimpleRNNCell", "LSTMCell", "GRUCell"])
def test_cell_gradients_finite_differences(cell):
    paddle.disable_static()
    layer = getattr(paddle.nn, cell)(2, 3, weight_ih_attr=paddle.ParamAttr(
        initializer=paddle.nn.initializer.Uniform(-1.0, 1.0)))
    x_np = np.random.default_rng(3).standard_normal([2, 2])
    x = paddle.to_tensor(x_np.astype("float32"))
    out, _ = layer(x)
    (out * out).sum().backward()
    grad = layer.weight_ih.grad.numpy()
    w = layer.weight_ih.numpy()
    eps = 1e-2
    for idx in [(0, 0), (1, 1), (w.shape[0] - 1, 0)]:
        vals = []
        for sign in (1, -1):
            w2 = w.copy()
            w2[idx] += sign * eps
            layer.weight_ih.set_value(w2)
            with paddle.no_grad():
                o, _ = layer(x)
            vals.append(float((o.numpy().astype("float64") ** 2).sum()))
        layer.weight_ih.set_value(w)
        np.testing.assert_allclose(grad[idx], (vals[0] - vals[1]) / (2 * eps), rtol=2e-2,
                                   atol=1e-3)


def test_static_program_matches_eager():
    """nn.GRU (2 layers, bidirect, sequence_length) in a static program with an SGD step:
    outputs and updated parameters equal an eager run from the same weights."""
    paddle.enable_static()
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [-1, 4, 3], "float32")
        lengths = paddle.static.data("L", [-1], "int64")
        net = paddle.nn.GRU(3, 4, num_layers=2, direction="bidirect")
        y, h = net(x, sequence_length=lengths)
        loss = paddle.mean(y) + paddle.mean(h)
        paddle.optimizer.SGD(0.5).minimize(loss)
    exe = paddle.static.Executor(paddle.CPUPlace())
    exe.run(startup)
    scope = paddle.static.global_scope()
    state = {k: np.array(scope.find_var(v.name).get_tensor())
             for k, v in net.state_dict().items()}
    xs = np.random.default_rng(0).random([3, 4, 3]).astype("float32")
    lens = np.array([4, 1, 2], "int64")
    got_y, got_h = exe.run(main, feed={"x": xs, "L": lens}, fetch_list=[y, h])
    updated = np.array(scope.find_var(net.weight_hh_l1_reverse.name).get_tensor())

    paddle.disable_static()
    eager = paddle.nn.GRU(3, 4, num_layers=2, direction="bidirect")
    eager.set_state_dict(state)
    ey, eh = eager(paddle.to_tensor(xs), sequence_length=paddle.to_tensor(lens))
    (paddle.mean(ey) + paddle.mean(eh)).backward()
    np.testing.assert_allclose(got_y, ey.numpy(), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(got_h, eh.numpy(), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(got_y[1, 1:], 0)  # past the length: zeros, as Paddle's rnn op
    np.testing.assert_allclose(
        updated, state["weight_hh_l1_reverse"] - 0.5 * eager.weight_hh_l1_reverse.grad.numpy(),
        rtol=1e-5, atol=1e-6)


def test_names_and_rnn_wrappers():
    paddle.disable_static()
    net = paddle.nn.LSTM(3, 4, direction="bidirect")
    assert [p.name.split(".")[1] for p in net.parameters()] == ["w_0", "w_1", "b_0", "b_1"] * 2
    assert list(net.state_dict())[4:8] == [f"{n}_l0_reverse" for n in
                                           ("weight_ih", "weight_hh", "bias_ih", "bias_hh")]
    assert list(net.state_dict())[8] == "0.cell_fw.weight_ih"
    assert net.weight_ih_l0.shape == [16, 3] and net.bias_hh_l0_reverse.shape == [16]
    # nn.RNN / BiRNN over the network's own cells give its numbers (no sequence_length;
    # the network is one rnn op, the wrappers the cells' ops: float32 rounding apart)
    x = paddle.randn([2, 3, 3])
    y, (h, c) = net(x)
    by, (s_fw, s_bw) = paddle.nn.BiRNN(net[0].cell_fw, net[0].cell_bw)(x)
    np.testing.assert_allclose(by.numpy(), y.numpy(), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(s_bw[1].numpy(), c.numpy()[1], rtol=1e-5, atol=1e-7)
    ry, (rh, _) = paddle.nn.RNN(net[0].cell_bw, is_reverse=True)(x)
    np.testing.assert_allclose(ry.numpy(), y.numpy()[..., 4:], rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(rh.numpy(), h.numpy()[1], rtol=1e-5, atol=1e-7)


def test_errors():
    paddle.disable_static()
    with pytest.raises(ValueError, match="direction should be forward or bidirect"):
        paddle.nn.LSTM(3, 4, direction="backward")
    with pytest.raises(ValueError, match="tanh or relu"):
        paddle.nn.SimpleRNNCell(3, 4, activation="sigmoid")
    with pytest.raises(ValueError, match="hidden_size of GRUCell must be greater than 0"):
        paddle.nn.GRUCell(3, 0)
    with pytest.raises(ValueError, match="input size of forward cell"):
        paddle.nn.BiRNN(paddle.nn.GRUCell(3, 4), paddle.nn.GRUCell(2, 4))
    with pytest.raises(ValueError, match="initial_states must be a pair"):
        paddle.nn.LSTM(3, 4)(paddle.randn([2, 3, 3]), paddle.zeros([1, 2, 4]))
    paddle.enable_static()
    with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):
        x = paddle.static.data("x", [2, -1, 3], "float32")  # an unknown time dim is fine
        paddle.nn.GRU(3, 4)(x)
        with pytest.raises(ShapeError, match=r"op 'rnn': PreState\[0\] must be \[1, 2, 4\]"):
            paddle.nn.GRU(3, 4)(x, paddle.zeros([2, 2, 4]))
        with pytest.raises(ShapeError, match="does not end in input_size 5"):
            paddle.nn.GRU(5, 4)(x)


def test_to_static_matches_eager():
    """An LSTM's forward through paddle.jit.to_static: the eager numbers and gradients."""
    paddle.disable_static()
    net = paddle.nn.LSTM(3, 4, direction="bidirect")
    eager = paddle.nn.LSTM(3, 4, direction="bidirect")
    eager.set_state_dict(net.state_dict())
    x = paddle.to_tensor(np.random.default_rng(1).standard_normal([2, 5, 3]).astype("float32"))
    y, (_, c) = paddle.jit.to_static(net)(x)
    ey, (_, ec) = eager(x)
    np.testing.assert_allclose(y.numpy(), ey.numpy(), rtol=1e-6, atol=1e-7)
    (y.sum() + c.sum()).backward()
    (ey.sum() + ec.sum()).backward()
    np.testing.assert_allclose(net.weight_hh_l0_reverse.grad.numpy(),
                               eager.weight_hh_l0_reverse.grad.numpy(), rtol=1e-5, atol=1e-6)


def test_files_load_in_paddle(tmp_path):
    """fluidc's paddle.save of each case's state dict loads in Paddle 3.3.1, whose layer gives
    fluidc's results from it (make_rnn_layer_fixtures.py check; skipped without
    FLUIDC_PADDLE_PYTHON)."""
    paddle.disable_static()
    paddle.seed(7)
    expected = {}
    for name in CASES:
        layer = getattr(paddle.nn, CASES[name][0])(**CASES[name][1])
        paddle.save(layer.state_dict(), str(tmp_path / f"{name}.pdparams"))
        state = {k: v.numpy() for k, v in layer.state_dict().items()}
        for i, r in enumerate(run(paddle, name, state)[2]):
            expected[f"{name}/out/{i}"] = r.numpy()
    np.savez(tmp_path / "expected.npz", **expected)
    check_in_real_paddle("check", tmp_path, "make_rnn_layer_fixtures.py")


# Paddle 3.3.1's paddle.summary(nn.LSTM(16, 32, 2), [(-1, 23, 16), ((2, None, 32), (2, -1, 32))])
# in a fresh process: one row for the network (its cells are not reported), widths grown
LSTM_SUMMARY = """\
-----------------------------------------------------------------------------------------------------------------
 Layer (type)                 Input Shape                            Output Shape                   Param #    
=================================================================================================================
    LSTM-1      [[1, 23, 16], [[2, 1, 32], [2, 1, 32]]] [[1, 23, 32], [[2, 1, 32], [2, 1, 32]]]     14,848     
=================================================================================================================
Total params: 14,848
Trainable params: 14,848
Non-trainable params: 0
-----------------------------------------------------------------------------------------------------------------
Input size (MB): 0.00
Forward/backward pass size (MB): 0.01
Params size (MB): 0.06
Estimated Total Size (MB): 0.07
-----------------------------------------------------------------------------------------------------------------

"""


def test_summary_prints_paddles_table(capsys):
    paddle.disable_static()
    with paddle.unique_name.guard():
        net = paddle.nn.LSTM(16, 32, 2)
    info = paddle.summary(net, [(-1, 23, 16), ((2, None, 32), (2, -1, 32))])
    assert capsys.readouterr().out == LSTM_SUMMARY
    assert info == {"total_params": 14848, "trainable_params": 14848}
    with pytest.raises(ValueError, match="greater than zero, but got 0"):
        paddle.summary(net, (1, 0, 16))


@pytest.mark.parametrize("seed", range(6))
def test_rnn_wrappers_over_an_unknown_time_dim(seed):
    """nn.RNN / BiRNN in a static program over data whose time dim is -1 (a While loop over
    tensor arrays) against the same layer eagerly (unrolled): outputs, final states and the
    gradients of x, the initial states and every parameter, with sequence lengths, reversed,
    time-major or not."""
    rng = np.random.default_rng(seed)
    cell_cls = ["SimpleRNNCell", "GRUCell", "LSTMCell"][seed % 3]
    bi, reverse, time_major = bool(rng.integers(2)), bool(rng.integers(2)), bool(seed % 2)
    steps, batch = int(rng.integers(1, 6)), 3

    def make():
        cells = [getattr(paddle.nn, cell_cls)(3, 4) for _ in range(2 if bi else 1)]
        return cells, (paddle.nn.BiRNN(*cells, time_major=time_major) if bi else
                       paddle.nn.RNN(cells[0], is_reverse=reverse, time_major=time_major))

    paddle.disable_static()
    cells, layer = make()
    x = rng.standard_normal([steps, batch, 3] if time_major else [batch, steps, 3])
    lengths = rng.integers(0, steps + 1, batch).astype("int64")
    n = 2 if cell_cls == "LSTMCell" else 1
    h0 = [[rng.standard_normal([batch, 4]) for _ in range(n)] for _ in cells]

    def as_states(values):
        per = [v[0] if n == 1 else tuple(v) for v in values]
        return per[0] if not bi else tuple(per)

    xt = paddle.to_tensor(x.astype("float32"), stop_gradient=False)
    ht = [[paddle.to_tensor(v.astype("float32"), stop_gradient=False) for v in c] for c in h0]
    y, s = layer(xt, as_states(ht), sequence_length=paddle.to_tensor(lengths))
    results = flat([y, s])
    sum(((t * (k + 1)).mean() for k, t in enumerate(results))).backward()
    want = [t.numpy() for t in results] + [xt.grad.numpy()] + \
        [t.grad.numpy() for c in ht for t in c] + [p.grad.numpy() for p in layer.parameters()]

    values = [p.numpy() for p in layer.parameters()]
    paddle.enable_static()
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        cells, layer = make()
        xd = paddle.static.data("x", [-1, batch, 3] if time_major else [batch, -1, 3],
                                "float32")
        hd = [[paddle.static.data(f"h{i}_{j}", [batch, 4], "float32") for j in range(n)]
              for i in range(len(cells))]
        for v in [xd] + [t for c in hd for t in c]:
            v.stop_gradient = False
        ld = paddle.static.data("L", [batch], "int64")
        y, s = layer(xd, as_states(hd), sequence_length=ld)
        results = flat([y, s])
        loss = sum(((t * (k + 1)).mean() for k, t in enumerate(results[1:], 1)),
                   results[0].mean())
        grads = paddle.static.append_backward(loss)
    assert "while" in [op.type for op in main.global_block().ops]
    feed = {"x": x.astype("float32"), "L": lengths}
    feed.update({f"h{i}_{j}": h0[i][j].astype("float32") for i in range(len(cells))
                 for j in range(n)})
    by_param = {p.name: g for p, g in grads}
    fetch = results + ["x@GRAD"] + [f"h{i}_{j}@GRAD" for i in range(len(cells)) for j in range(n)] \
        + [by_param[p.name] for p in layer.parameters()]
    exe = paddle.static.Executor(paddle.CPUPlace())
    exe.run(startup)
    for p, v in zip(layer.parameters(), values):
        paddle.static.global_scope().find_var(p.name).get_tensor().set(v, paddle.CPUPlace())
    got = exe.run(main, feed=feed, fetch_list=fetch)
    for i, (g, w) in enumerate(zip(got, want)):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6, err_msg=str(fetch[i]))
