"""Paddle's `rnn` op (frontend/ops/rnn_net.py), as paddle.nn.SimpleRNN / LSTM / GRU emit it:
Paddle 3.3.1's numbers, gradients and files (fixtures from make_rnn_op_fixtures.py over
rnn_op_cases.py: every mode, sequence lengths, bidirectional, 2 layers), the same programs op
for op, finite differences, the compiled run against the numpy reference executor on random
networks, dropout between layers, and fluidc's files loaded in Paddle."""
import os
import sys

import numpy as np
import pytest

import fluidc as paddle
from fluidc.frontend.errors import OpError, ShapeError
from fluidc.frontend.ops import get_op_def
from fluidc.runtime.reference import ReferencePlan

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")
sys.path.insert(0, FIXTURES)
from dygraph_cases import check_in_real_paddle  # noqa: E402
from rnn_op_cases import CASES, build, feeds, parameter_names  # noqa: E402

MODELS = os.path.join(FIXTURES, "paddle", "rnn_op_models")


@pytest.fixture(scope="module")
def want():
    return dict(np.load(os.path.join(FIXTURES, "paddle", "rnn_op.npz")))


def _set_params(want, name, scope):
    prefix = f"{name}/param/"
    for k, v in want.items():
        if k.startswith(prefix):
            scope.find_var(k[len(prefix):]).get_tensor().set(v, paddle.CPUPlace())


@pytest.mark.parametrize("name", sorted(CASES))
def test_against_paddle(want, name):
    """Outputs, final states and the gradients of x, the initial states and every weight of
    Paddle's program, run here from Paddle's parameters; the program and its startup program
    (the weights coalesced into the flat weight) are Paddle's op for op.
    Gradients equal Paddle's where Paddle's agree with central differences of its own loss;
    where they do not (Paddle 3.3.1's rnn_grad with sequence lengths and a reverse direction:
    the reverse cells' W_hh, and for GRU everything upstream), they equal the differences."""
    paddle.enable_static()
    main, startup, feed_names, results, _ = build(paddle, name)
    assert [op.type for op in main.global_block().ops] == list(want[f"{name}/ops"])
    assert [op.type for op in startup.global_block().ops] == list(want[f"{name}/startup_ops"])
    params = parameter_names(main)
    assert sorted(params) == sorted(k.split("/")[-1] for k in want
                                    if k.startswith(f"{name}/param/"))
    exe = paddle.static.Executor(paddle.CPUPlace())
    scope = paddle.static.Scope()
    with paddle.static.scope_guard(scope):
        exe.run(startup)
        _set_params(want, name, scope)
        grads = ["x"] + [n for n in feed_names if n.startswith("s")] + params
        got = exe.run(main, feed=feeds(name), fetch_list=results + [g + "@GRAD" for g in grads])
    for i, g in enumerate(got[:len(results)]):
        np.testing.assert_allclose(g, want[f"{name}/out/{i}"], rtol=1e-5, atol=1e-6)
    paddle_wrong = []
    for g, v in zip(grads, got[len(results):]):
        analytic, numeric = want[f"{name}/grad/{g}"], want[f"{name}/numeric/{g}"]
        if np.abs(analytic - numeric).max() <= 1e-4:
            np.testing.assert_allclose(v, analytic, rtol=1e-4, atol=1e-5, err_msg=g)
        else:  # Paddle's rnn_grad disagrees with differences of Paddle's own forward
            paddle_wrong.append(g)
            np.testing.assert_allclose(v, numeric, rtol=1e-4, atol=1e-5, err_msg=g)
    # Paddle 3.3.1's kernel is wrong only with sequence lengths and a reverse direction
    assert not paddle_wrong or (CASES[name][3] is not None and
                                CASES[name][1].get("direction") == "bidirect"), paddle_wrong


@pytest.mark.parametrize("name", sorted(CASES))
def test_paddle_inference_models_load_and_run(want, name):
    """save_inference_model files Paddle 3.3.1 wrote (an rnn op with is_test, feeds with an
    unknown time dim) load here and give Paddle's results."""
    paddle.enable_static()
    exe = paddle.static.Executor(paddle.CPUPlace())
    with paddle.static.scope_guard(paddle.static.Scope()):
        prog, feed_names, fetches = paddle.static.load_inference_model(
            os.path.join(MODELS, name), exe)
        (rnn,) = [op for op in prog.global_block().ops if op.type == "rnn"]
        assert rnn.attr("is_test")
        data = feeds(name)
        got = exe.run(prog, feed={n: data[n] for n in feed_names}, fetch_list=fetches)
    for i, g in enumerate(got):
        np.testing.assert_allclose(g, want[f"{name}/out/{i}"], rtol=1e-5, atol=1e-6)


def test_files_load_in_paddle(want, tmp_path):
    """fluidc's save_inference_model of each case loads in Paddle 3.3.1 and gives fluidc's
    results (make_rnn_op_fixtures.py check; skipped without FLUIDC_PADDLE_PYTHON)."""
    paddle.enable_static()
    expected = {}
    for name in CASES:
        main, startup, feed_names, results, _ = build(paddle, name, for_test=True)
        exe = paddle.static.Executor(paddle.CPUPlace())
        scope = paddle.static.Scope()
        with paddle.static.scope_guard(scope):
            exe.run(startup)
            _set_params(want, name, scope)
            data = feeds(name)
            got = exe.run(main, feed={n: data[n] for n in feed_names}, fetch_list=results)
            paddle.static.save_inference_model(
                str(tmp_path / name), [main.global_block().var(n) for n in feed_names],
                results, exe, program=main)
        for i, g in enumerate(got):
            expected[f"{name}/out/{i}"] = g
    np.savez(tmp_path / "expected.npz", **expected)
    check_in_real_paddle("check", tmp_path, "make_rnn_op_fixtures.py")


def _random_network(rng, dtype="float32"):
    mode = ["RNN_TANH", "RNN_RELU", "LSTM", "GRU"][int(rng.integers(4))]
    layers, dirs = int(rng.integers(1, 4)), int(rng.integers(1, 3))
    steps, batch, n_in, hidden = (int(v) for v in rng.integers(1, 6, 4))
    g = {"LSTM": 4, "GRU": 3}.get(mode, 1) * hidden
    weights = []
    for kind in ("w", "b"):
        for layer in range(layers):
            for _ in range(dirs):
                width = n_in if layer == 0 else dirs * hidden
                weights += [[g, width], [g, hidden]] if kind == "w" else [[g], [g]]
    values = {f"w{i}": rng.uniform(-0.8, 0.8, s).astype(dtype) for i, s in enumerate(weights)}
    values["x"] = rng.standard_normal([steps, batch, n_in]).astype(dtype)
    for i in range(2 if mode == "LSTM" else 1):
        values[f"s{i}"] = rng.standard_normal([layers * dirs, batch, hidden]).astype(dtype)
    lengths = rng.integers(0, steps + 1, batch) if rng.integers(2) else None
    if lengths is not None:
        values["lengths"] = lengths.astype("int64")
    attrs = dict(mode=mode, num_layers=layers, is_bidirec=dirs == 2, input_size=n_in,
                 hidden_size=hidden)
    return attrs, values, len(weights)


def _rnn_program(attrs, values, n_weights):
    """A program: the rnn op over data vars named as `values`, a weighted sum of its results
    and the backward; returns it with its fetch names (results, then every input's grad)."""
    main = paddle.static.Program()
    with paddle.static.program_guard(main, paddle.static.Program()):
        block = main.global_block()
        data = {k: paddle.static.data(k, list(v.shape), str(v.dtype)) for k, v in values.items()}
        for k, v in data.items():
            v.stop_gradient = k == "lengths"
        n_states = 2 if attrs["mode"] == "LSTM" else 1
        out = block.create_var(name="out", dtype=data["x"].dtype)
        states = [block.create_var(name=f"state{i}", dtype=data["x"].dtype)
                  for i in range(n_states)]
        ins = {"Input": [data["x"]], "PreState": [data[f"s{i}"] for i in range(n_states)],
               "WeightList": [data[f"w{i}"] for i in range(n_weights)]}
        if "lengths" in data:
            ins["SequenceLength"] = [data["lengths"]]
        block.append_op("rnn", inputs=ins, outputs={
            "Out": [out], "State": states,
            "Reserve": [block.create_var(name="reserve", dtype="uint8")],
            "DropoutState": [block.create_var(name="keep", dtype="uint8")]}, attrs=attrs)
        loss = paddle.mean(out * out)
        for i, s in enumerate(states):
            loss = loss + paddle.mean(s) * float(i + 2)
        paddle.static.append_backward(loss)
    wrt = [k for k in values if k != "lengths"]
    return main, ["out"] + [s.name for s in states] + [k + "@GRAD" for k in wrt], loss


@pytest.mark.parametrize("seed", range(12))
def test_compiled_run_matches_reference_executor(seed):
    """Random networks (mode, 1-3 layers, directions, sizes from 1, lengths from 0 or none):
    the executor's run (torch kernels, autograd for the grad) equals the numpy reference
    executor's, forward and backward."""
    paddle.enable_static()
    attrs, values, n_weights = _random_network(np.random.default_rng(seed))
    main, fetches, _ = _rnn_program(attrs, values, n_weights)
    exe = paddle.static.Executor(paddle.CPUPlace())
    scope = paddle.static.Scope()
    with paddle.static.scope_guard(scope):
        got = exe.run(main, feed=values, fetch_list=fetches)
        ref = ReferencePlan(main, list(values), fetches).run(values, scope)
    for name, g, r in zip(fetches, got, ref):
        np.testing.assert_allclose(g, r, rtol=1e-5, atol=1e-6, err_msg=name)


@pytest.mark.parametrize("mode", ["RNN_TANH", "RNN_RELU", "LSTM", "GRU"])
def test_gradients_finite_differences(mode):
    """float64, 2 bidirectional layers with sequence lengths (one of them 0): every input's
    gradient from rnn_grad against central differences of the loss, entry by entry on a
    sample of entries of each input."""
    paddle.enable_static()
    rng = np.random.default_rng(sum(map(ord, mode)))
    attrs = dict(mode=mode, num_layers=2, is_bidirec=True, input_size=2, hidden_size=3)
    g = {"LSTM": 4, "GRU": 3}.get(mode, 1) * 3
    shapes = [[g, 2], [g, 3], [g, 2], [g, 3], [g, 6], [g, 3], [g, 6], [g, 3]] + [[g]] * 8
    values = {f"w{i}": rng.uniform(-0.8, 0.8, s) for i, s in enumerate(shapes)}
    values["x"] = rng.standard_normal([4, 3, 2])
    for i in range(2 if mode == "LSTM" else 1):
        values[f"s{i}"] = rng.standard_normal([4, 3, 3])
    values["lengths"] = np.array([4, 0, 2], "int64")
    if mode == "RNN_RELU":  # keep pre-activations away from relu's kink
        values["x"] += np.sign(values["x"]) * 0.1
    main, fetches, loss = _rnn_program(attrs, values, len(shapes))
    exe = paddle.static.Executor(paddle.CPUPlace())
    with paddle.static.scope_guard(paddle.static.Scope()):
        grads = dict(zip(fetches, exe.run(main, feed=values, fetch_list=fetches)))

        def f(vals):
            return float(exe.run(main, feed=vals, fetch_list=[loss])[0])
        eps = 1e-6
        for k in [k for k in values if k != "lengths"]:
            flat = values[k].reshape(-1)
            for j in sorted(set(rng.integers(0, flat.size, 3).tolist())):
                plus, minus = dict(values), dict(values)
                plus[k], minus[k] = flat.copy(), flat.copy()
                plus[k][j] += eps
                minus[k][j] -= eps
                plus[k], minus[k] = plus[k].reshape(values[k].shape), \
                    minus[k].reshape(values[k].shape)
                numeric = (f(plus) - f(minus)) / (2 * eps)
                np.testing.assert_allclose(grads[k + "@GRAD"].reshape(-1)[j], numeric,
                                           rtol=1e-5, atol=1e-8, err_msg=f"{k}[{j}]")


def test_dropout_between_layers():
    """Training with dropout_prob: the inputs of layers past the first are scaled by one keep
    mask of Out's shape (DropoutState), as Paddle's kernel; the outputs are the network's
    with that mask, and a fresh mask is drawn each run (a fixed one with `seed`)."""
    paddle.enable_static()
    rng = np.random.default_rng(5)
    attrs, values, n_weights = _random_network(rng)
    while attrs["num_layers"] < 2:
        attrs, values, n_weights = _random_network(rng)
    attrs["dropout_prob"] = 0.5
    main, fetches, _ = _rnn_program(attrs, values, n_weights)
    exe = paddle.static.Executor(paddle.CPUPlace())
    d = get_op_def("rnn")
    with paddle.static.scope_guard(paddle.static.Scope()):
        runs = [exe.run(main, feed=values, fetch_list=["out", "keep"]) for _ in range(2)]
    from fluidc.frontend.ops import rnn_net
    for out, keep in runs:
        assert keep.shape == out.shape and set(np.unique(keep)) <= {0, 1}
        n_states = 2 if attrs["mode"] == "LSTM" else 1
        want, _ = rnn_net.network(
            attrs["mode"], values["x"].astype("float64"),
            [values[f"s{i}"].astype("float64") for i in range(n_states)],
            [values[f"w{i}"].astype("float64") for i in range(n_weights)],
            rnn_net._alive(values.get("lengths"), values["x"].shape[0], np),
            d.complete_attrs(attrs), keep.astype("float64"), rnn_net._Numpy)
        np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-6)
    if runs[0][1].size > 8:
        assert not np.array_equal(runs[0][1], runs[1][1])


def test_eager_and_static_are_one_kernel():
    """An eager LSTM and its to_static program over an unknown time dim give equal bits."""
    paddle.disable_static()
    net = paddle.nn.LSTM(3, 4, num_layers=2, direction="bidirect")
    net.eval()
    x = paddle.randn([2, 7, 3])
    y, (h, c) = net(x)
    static = paddle.jit.to_static(net, [paddle.static.InputSpec([None, None, 3], "float32")])
    sy, (sh, sc) = static(x)
    for a, b in ((y, sy), (h, sh), (c, sc)):
        np.testing.assert_array_equal(a.numpy(), b.numpy())


def test_errors():
    paddle.enable_static()
    d = get_op_def("rnn")
    with pytest.raises(OpError, match="attribute 'mode' = 'LSTMX'"):
        d.infer({}, d.complete_attrs({"mode": "LSTMX"}))
    with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):
        x = paddle.static.data("x", [-1, 2, 3], "float32")
        lengths = paddle.static.data("n", [3], "int64")
        with pytest.raises(ShapeError, match=r"SequenceLength must be \[2\], got \[3\]"):
            paddle.nn.LSTM(3, 4, time_major=True)(x, sequence_length=lengths)
        with pytest.raises(OpError, match="mode GRU takes 1 PreState tensors, got 2"):
            paddle.nn.GRU(3, 4, time_major=True)(x, [paddle.zeros([1, 2, 4])] * 2)


@pytest.mark.parametrize("seed", range(8))
def test_library_kernels_match_the_step_loop(seed):
    """The run's torch recurrent kernels (sequences packed by length, one call per layer, the
    dropout mask between layers) against the step loop the reference runs, in float64:
    outputs, final states and every gradient; lengths from 1 past the time dim (clamped)."""
    import torch
    from fluidc.frontend.ops import rnn_net
    rng = np.random.default_rng(100 + seed)
    attrs, values, n_weights = _random_network(rng, "float64")
    d = get_op_def("rnn")
    a = d.complete_attrs({**attrs, "dropout_prob": 0.3, "is_test": False})
    steps, batch = values["x"].shape[:2]
    lengths = torch.tensor(rng.integers(1, steps + 2, batch)) if seed % 2 else None
    keep = torch.tensor((rng.random([steps, batch, (2 if attrs["is_bidirec"] else 1) *
                                     attrs["hidden_size"]]) > 0.3).astype("float64"))
    n_states = 2 if attrs["mode"] == "LSTM" else 1

    def run(fn):
        leaves = [torch.tensor(values[k], requires_grad=True) for k in
                  ["x"] + [f"s{i}" for i in range(n_states)] + [f"w{i}" for i in range(n_weights)]]
        out, states = fn(attrs["mode"], leaves[0], leaves[1:1 + n_states],
                         leaves[1 + n_states:], lengths, a, keep)
        loss = (out * out).sum() + sum((s * (i + 2)).sum() for i, s in enumerate(states))
        grads = torch.autograd.grad(loss, leaves, allow_unused=True)
        return [out, *states] + [torch.zeros_like(v) if g is None else g
                                 for v, g in zip(leaves, grads)]

    library = run(rnn_net.library_network)
    loop = run(rnn_net._loop_network)
    for i, (g, w) in enumerate(zip(library, loop)):
        np.testing.assert_allclose(g.detach().numpy(), w.detach().numpy(), rtol=1e-10,
                                   atol=1e-12, err_msg=str(i))


def test_coalesce_tensor():
    """The startup's coalesce_tensor: the flat weight holds the weights one after another and
    the weights keep their values (copy_data); set_constant fills both; what fluidc does not
    implement is refused by name."""
    paddle.enable_static()
    net = paddle.nn.GRU(3, 4, num_layers=2, direction="bidirect")
    exe = paddle.static.Executor(paddle.CPUPlace())
    exe.run(paddle.static.default_startup_program())
    scope = paddle.static.global_scope()
    weights = [np.array(scope.find_var(w.name).get_tensor()) for w in net._weights()]
    flat = np.array(scope.find_var(net._flat_weight[0].name).get_tensor())
    np.testing.assert_array_equal(flat, np.concatenate([w.reshape(-1) for w in weights]))
    assert all(np.abs(w).max() > 0 for w in weights)
    d = get_op_def("coalesce_tensor")
    x = [np.arange(6.0).reshape(2, 3).astype("float32"), np.ones(2, "float32")]
    got = d.reference({"Input": x}, d.complete_attrs({"set_constant": True, "constant": 2.5,
                                                      "use_align": False, "dtype": 5}))
    np.testing.assert_array_equal(got["FusedOutput"][0], np.full(8, 2.5, "float32"))
    assert [o.shape for o in got["Output"]] == [(2, 3), (2,)]
    with pytest.raises(OpError, match="use_align"):
        d.reference({"Input": x}, d.complete_attrs({"copy_data": True, "dtype": 5}))
    with pytest.raises(OpError, match="copy_data and set_constant both False"):
        d.reference({"Input": x}, d.complete_attrs({"use_align": False, "dtype": 5}))


def test_dropout_keep_rate():
    """The keep mask's statistics: a fraction 1 - p of ones (20480 draws, p = 0.3: 5 standard
    deviations is 0.016), none with is_test, the same mask every run with a seed."""
    paddle.enable_static()
    rng = np.random.default_rng(9)
    g, hidden = 3 * 32, 32
    shapes = [[g, 4], [g, hidden], [g, 2 * hidden], [g, hidden]] * 2
    shapes = shapes[:2] + shapes[:2] + shapes[2:4] + shapes[2:4] + [[g]] * 8
    values = {f"w{i}": rng.uniform(-0.3, 0.3, s).astype("float32") for i, s in enumerate(shapes)}
    values["x"] = rng.standard_normal([20, 16, 4]).astype("float32")
    values["s0"] = np.zeros([4, 16, hidden], "float32")
    attrs = dict(mode="GRU", num_layers=2, is_bidirec=True, input_size=4, hidden_size=hidden)
    exe = paddle.static.Executor(paddle.CPUPlace())
    for extra, check in (({"dropout_prob": 0.3}, "rate"), ({"dropout_prob": 0.3,
                                                            "is_test": True}, "none"),
                         ({"dropout_prob": 0.3, "seed": 7}, "seeded")):
        main, _, _ = _rnn_program({**attrs, **extra}, values, len(shapes))
        with paddle.static.scope_guard(paddle.static.Scope()):
            masks = [exe.run(main, feed=values, fetch_list=["keep"])[0] for _ in range(2)]
        if check == "rate":
            assert abs(masks[0].mean() - 0.7) < 0.016 and not np.array_equal(*masks)
        elif check == "none":
            assert masks[0].min() == 1
        else:
            np.testing.assert_array_equal(*masks)
