"""bfloat16: casts, ops, parameters and files against Paddle 3.3.1's bits (the fixtures of
tests/fixtures/make_bfloat16_fixtures.py), the compiled plan against the numpy reference
executor, fused against unfused."""
import os
import sys

import numpy as np
import pytest

import fluidc as paddle
from fluidc.frontend.bfloat16 import from_bfloat16, to_bfloat16
from fluidc.frontend.errors import FeedError, OpError
from fluidc.runtime.reference import ReferencePlan

FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures")
sys.path.insert(0, FIXTURES)
import bfloat16_cases as cases  # noqa: E402

PADDLE = np.load(os.path.join(FIXTURES, "paddle", "bfloat16.npz"))
CKPT = os.path.join(FIXTURES, "paddle", "bfloat16_ckpt")


def same_bits(got, want, what):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, \
        (what, got.dtype, want.dtype, got.shape, want.shape)
    bad = np.flatnonzero(got.reshape(-1).view(np.uint8) != want.reshape(-1).view(np.uint8))
    at = bad[0] // got.itemsize if bad.size else 0
    assert bad.size == 0, (f"{what}: {bad.size} bytes differ, first at element {at}: "
                           f"{got.ravel()[at]} vs {want.ravel()[at]}")


@pytest.mark.parametrize("kind", ["f32", "f64", "i32", "i64"])
def test_casts_to_bfloat16_round_as_paddle(kind):
    values = getattr(cases, f"CAST_{kind.upper()}")
    want = PADDLE[f"cast_{kind}"]
    same_bits(to_bfloat16(values), want, "numpy")
    same_bits(paddle.to_tensor(values).astype("bfloat16").numpy(), want, "dygraph cast")


@pytest.mark.parametrize("dtype", cases.FROM_DTYPES)
def test_casts_from_bfloat16_as_paddle(dtype):
    got = paddle.to_tensor(cases.FROM_BITS).astype(dtype).numpy()
    want = PADDLE[f"from_{dtype}"]
    if np.dtype(dtype).kind in "iu":
        got, want = got[cases.FINITE], want[cases.FINITE]
    same_bits(got, want, dtype)


def test_uint16_arrays_are_bfloat16_and_to_tensor_rounds():
    assert paddle.to_tensor(cases.FROM_BITS).dtype == paddle.bfloat16
    t = paddle.to_tensor([1.5, 2.0, 0.1], dtype="bfloat16")
    same_bits(t.numpy(), to_bfloat16(np.array([1.5, 2.0, 0.1], np.float32)), "to_tensor")
    assert "dtype=paddle.bfloat16" in repr(t)
    np.testing.assert_array_equal(from_bfloat16(t.numpy()), [1.5, 2.0, 0.10009765625])


def _static_results(run):
    paddle.enable_static()
    main, fetch = cases.build_static(paddle)
    names = list(fetch)
    fed = {n: PADDLE[f"in_{n}"] for n in cases.inputs()}
    return dict(zip(names, run(main, fed, [fetch[n].name for n in names])))


def _compiled(main, fed, fetches):
    return paddle.static.Executor(paddle.CPUPlace()).run(main, feed=fed, fetch_list=fetches)


def _reference(main, fed, fetches):
    return ReferencePlan(main, list(fed), fetches).run(fed, paddle.static.Scope())


@pytest.mark.parametrize("run", [_compiled, _reference], ids=["compiled", "reference"])
def test_static_ops_give_paddles_bits(run, monkeypatch):
    monkeypatch.setenv("FLUIDC_TIERED", "0")  # the C kernels' values, not numpy's at tier 0
    fed = cases.feed(to_bfloat16)
    for n, v in fed.items():  # the fixture's inputs are ours
        same_bits(v, PADDLE[f"in_{n}"], n)
    got = _static_results(run)
    for name, *_ in cases.OPS:
        same_bits(got[name], PADDLE[f"op_{name}"], name)


def test_dygraph_calls_give_paddles_bits():
    got = cases.dygraph_results(paddle, to_bfloat16)
    for name in cases.DYGRAPH:
        same_bits(got[name], PADDLE[f"dy_{name}"], name)


def _chain(x, y, z):
    """bfloat16 ops a fused plan puts in a few kernels: pointwise, a row reduction, a
    broadcast back, a creation op, copies (NaN payloads kept) and a product."""
    t = paddle.exp(x * y - z) + paddle.scale(x, 0.5, -1.0)
    s = paddle.sum(t, axis=1, keepdim=True)
    u = paddle.tanh(t / (paddle.abs(s) + 1.0))
    return [t, s, u, paddle.maximum(u, paddle.full([1], 0.25, "bfloat16")),
            paddle.cast(u, "float32"), paddle.concat([x, paddle.assign(u)]),
            paddle.matmul(u, paddle.transpose(x, [1, 0]))]


@pytest.mark.parametrize("seed", range(4))
def test_fused_unfused_and_reference_agree_bitwise(seed, monkeypatch):
    monkeypatch.setenv("FLUIDC_TIERED", "0")
    rng = np.random.default_rng(seed)
    rows, cols = int(rng.integers(1, 9)), int(rng.integers(1, 70))
    fed = {n: to_bfloat16(rng.standard_normal((rows, cols)) * s)
           for n, s in (("x", 1.0), ("y", 2.0), ("z", 0.5))}
    fed["x"].ravel()[0] = 0xFFC1  # a NaN: copies keep it, arithmetic makes it 0x7FFF
    paddle.enable_static()
    main = paddle.static.Program()
    with paddle.static.program_guard(main, paddle.static.Program()):
        outs = _chain(*(paddle.static.data(n, [rows, cols], "bfloat16") for n in "xyz"))
    names = [o.name for o in outs]
    want = _reference(main, fed, names)
    for fuse in (True, False):
        strategy = paddle.static.BuildStrategy()
        strategy.fuse_all = fuse
        prog = paddle.static.CompiledProgram(main, build_strategy=strategy)
        got = paddle.static.Executor(paddle.CPUPlace()).run(prog, feed=fed, fetch_list=names)
        for n, g, w in zip(names, got, want):
            same_bits(g, w, f"{n} fuse_all={fuse}")
    # and each value is its float32 computation rounded once per op
    f = {n: from_bfloat16(v) for n, v in fed.items()}
    rounded = lambda v: from_bfloat16(to_bfloat16(v))  # noqa: E731
    x_y = rounded(f["x"] * f["y"])
    e = rounded(np.exp(rounded(x_y - f["z"])))
    sc = rounded(rounded(f["x"] * np.float32(0.5)) + np.float32(-1.0))
    same_bits(want[0], to_bfloat16(e + sc), "t by numpy")
    assert want[0].ravel()[0] == 0x7FFF and want[5].ravel()[0] == 0xFFC1


def test_casts_off_the_c_backend_run_the_numpy_cast_on_the_host():
    # the Triton backend's route: a cast touching bfloat16 is a library call by reference
    import torch
    from fluidc.frontend.ops import OpDesc, VarInfo, get_op_def
    from fluidc.passes.fuse import step_kind
    from fluidc.runtime.plan import by_reference
    x = cases.CAST_F32
    infos = {"x": VarInfo(x.shape, paddle.float32), "y": VarInfo(x.shape, paddle.bfloat16)}
    cast = OpDesc("cast", {"X": ["x"]}, {"Out": ["y"]}, {"in_dtype": 5, "out_dtype": 22})
    copy = OpDesc("assign", {"X": ["y"]}, {"Out": ["z"]}, {})
    infos["z"] = infos["y"]
    for op in (cast, copy):
        assert step_kind(op, infos) == "pointwise"
        assert step_kind(op, infos, generated_bfloat16=False) == "extern"
    out = torch.zeros(x.shape, dtype=torch.uint16)
    by_reference(get_op_def("cast"), {"X": [torch.from_numpy(x)]}, {"Out": [out]},
                 cast.attrs, None)
    same_bits(out.numpy(), PADDLE["cast_f32"], "host cast")


def test_default_dtype_makes_bfloat16_parameters_in_both_modes():
    paddle.set_default_dtype("bfloat16")
    try:
        layer = paddle.nn.Linear(10, 20)
        paddle.enable_static()
        main, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, startup):
            static_layer = paddle.nn.Linear(10, 20)
    finally:
        paddle.set_default_dtype("float32")
    assert layer.weight.dtype == paddle.bfloat16 and layer.bias.dtype == paddle.bfloat16
    w = layer.weight.numpy()
    assert w.dtype == np.uint16 and w.shape == (10, 20)
    bound = from_bfloat16(to_bfloat16(np.sqrt(6.0 / 30)))  # Xavier uniform, rounded
    assert np.all(np.abs(from_bfloat16(w)) <= bound) and np.unique(w).size > 100
    same_bits(layer.bias.numpy(), np.zeros(20, np.uint16), "bias")
    scope = paddle.static.Scope()
    with paddle.static.scope_guard(scope):
        paddle.static.Executor(paddle.CPUPlace()).run(startup)
        ws = np.array(scope.find_var(static_layer.weight.name).get_tensor())
    assert static_layer.weight.dtype == paddle.bfloat16 and ws.dtype == np.uint16
    assert np.all(np.abs(from_bfloat16(ws)) <= bound)


def test_initializers_fill_bfloat16_parameters():
    init = paddle.nn.initializer
    made = {"const": init.Constant(0.3), "normal": init.Normal(0.0, 0.02),
            "trunc": paddle.initializer.TruncatedNormal(0.0, 0.02),  # (1.x name)
            "uniform": init.Uniform(-0.5, 0.5)}
    paddle.enable_static()
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        for name, i in made.items():
            paddle.static.create_parameter([64, 64], "bfloat16", name=name,
                                           default_initializer=i)
    scope = paddle.static.Scope()
    with paddle.static.scope_guard(scope):
        paddle.static.Executor(paddle.CPUPlace()).run(startup)
        got = {n: np.array(scope.find_var(n).get_tensor()) for n in made}
    assert all(v.dtype == np.uint16 for v in got.values())
    same_bits(got["const"], np.full((64, 64), to_bfloat16(np.float32(0.3))), "constant")
    f = {n: from_bfloat16(v) for n, v in got.items()}
    assert abs(f["normal"].std() - 0.02) < 0.002 and np.unique(got["normal"]).size > 500
    assert abs(f["trunc"].std() - 0.02) < 0.002  # (bounds a, b = -2, 2 are absolute)
    assert np.abs(f["uniform"]).max() <= 0.5 and abs(f["uniform"].std() - 0.2887) < 0.02


def test_ops_without_a_paddle_bfloat16_kernel_are_refused():
    x = paddle.to_tensor(to_bfloat16(np.array([1.5, -2.0], np.float32)))
    with pytest.raises(OpError, match="op 'square' has no bfloat16 kernel"):
        paddle.square(x)
    paddle.enable_static()
    for op_type in ("softplus", "mean"):  # Paddle runs these, but with other bits
        main = paddle.static.Program()
        with paddle.static.program_guard(main, paddle.static.Program()):
            y = main.global_block().create_var(name="y", dtype="bfloat16")
            main.global_block().append_op(
                type=op_type, inputs={"X": [paddle.static.data("x", [2], "bfloat16")]},
                outputs={"Out": [y]})
        with pytest.raises(OpError, match=f"op '{op_type}' has no bfloat16 kernel"):
            paddle.static.Executor(paddle.CPUPlace()).run(main, feed={"x": x.numpy()},
                                                          fetch_list=[y])


def test_a_bfloat16_feed_must_be_uint16_bits():
    paddle.enable_static()
    main = paddle.static.Program()
    with paddle.static.program_guard(main, paddle.static.Program()):
        x = paddle.static.data("x", [2], "bfloat16")
        y = paddle.cast(x, "float32")
    exe = paddle.static.Executor(paddle.CPUPlace())
    with pytest.raises(FeedError, match="uint16"):
        exe.run(main, feed={"x": np.ones(2, np.float32)}, fetch_list=[y])
    got, = exe.run(main, feed={"x": np.array([0x3FC0, 0x7FFF], np.uint16)}, fetch_list=[y])
    assert got[0] == 1.5 and np.isnan(got[1])


def _check_read(got):
    for kind in ("vars", "combined", "static"):
        same_bits(got[kind]["w"], cases.CKPT_W, f"{kind} w")
        same_bits(got[kind]["b"], cases.CKPT_B, f"{kind} b")
    same_bits(got["linear"]["weight"], cases.CKPT_W, "linear weight")
    same_bits(got["linear"]["bias"], cases.CKPT_W[0], "linear bias")
    same_bits(got["infer"]["w"], cases.CKPT_W, "inference model's w")
    out = got["infer"]["out"]  # NaNs from the weights' NaN and inf: compared as NaN
    assert out.dtype == np.float32 and np.isnan(out).any()
    np.testing.assert_array_equal(out, PADDLE["model_out"])


def test_paddles_bfloat16_checkpoints_load():
    _check_read(cases.read_checkpoints(paddle, CKPT))


def test_bfloat16_checkpoints_are_paddles_bytes(tmp_path):
    cases.write_checkpoints(paddle, str(tmp_path))
    _check_read(cases.read_checkpoints(paddle, str(tmp_path)))
    for name in ("vars/w", "vars/b", "combined/params", "infer/model.pdiparams"):
        # LoDTensor streams: byte for byte
        assert (tmp_path / name).read_bytes() == open(os.path.join(CKPT, name), "rb").read(), name
