"""reduce_max / reduce_min's gradient shares Out@GRAD evenly among the tied extrema, as Paddle
3.3.1's kernels do (its numbers for one case are in tests/fixtures/paddle/random_programs.npz,
case p3224): inputs drawn from a few integers (many ties), every reduction form, compiled
(fused and not), on the reference executor and in dygraph, against numpy."""
import numpy as np
import pytest

import fluidc as paddle

from op_harness import run_reference

RNG = np.random.default_rng(31)
FORMS = [dict(dim=[0], keep_dim=False), dict(dim=[1], keep_dim=True), dict(dim=[0, 2]),
         dict(dim=[-1]), dict(reduce_all=True)]


def expected_grad(x, kind, axes, dout_kept):
    ext = (np.max if kind == "max" else np.min)(x, axis=axes, keepdims=True)
    ties = (x == ext).astype(x.dtype)
    return ties * dout_kept / ties.sum(axis=axes, keepdims=True)


def _program(kind, form, shape, dtype):
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", list(shape), dtype)
        x.stop_gradient = False
        w = paddle.static.data("w", [-1], dtype)  # weights the reduced values differently
        out = getattr(paddle.layers, f"reduce_{kind}")(
            x, dim=None if form.get("reduce_all") else form["dim"],
            keep_dim=form.get("keep_dim", False))
        loss = paddle.sum(paddle.reshape(out, [-1]) * w)
        gx, = paddle.static.gradients([loss], [x])
    return main, out, gx


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("form", range(len(FORMS)))
@pytest.mark.parametrize("kind", ["max", "min"])
def test_tied_extrema_share_the_gradient(kind, form, dtype):
    paddle.enable_static()
    shape = (3, 4, 5)
    x = RNG.integers(-2, 3, shape).astype(dtype)
    f = FORMS[form]
    axes = tuple(range(3)) if f.get("reduce_all") else tuple(d % 3 for d in f["dim"])
    kept = tuple(1 if i in axes else d for i, d in enumerate(shape))
    w = RNG.standard_normal(int(np.prod(kept))).astype(dtype)
    want = expected_grad(x, kind, axes, w.reshape(kept))
    main, out, gx = _program(kind, f, shape, dtype)
    feed = {"x": x, "w": w}
    strategy = paddle.static.BuildStrategy()
    strategy.fuse_all = False
    for target in (main, paddle.static.CompiledProgram(main, strategy)):
        got = paddle.static.Executor(paddle.CPUPlace()).run(target, feed=feed, fetch_list=[gx])[0]
        np.testing.assert_allclose(got, want, rtol=1e-6)
    np.testing.assert_allclose(run_reference(main, feed, [gx.name])[0], want, rtol=1e-6)
    paddle.disable_static()
    t = paddle.to_tensor(x, stop_gradient=False)
    r = (paddle.max if kind == "max" else paddle.min)(
        t, axis=None if f.get("reduce_all") else f["dim"], keepdim=f.get("keep_dim", False))
    (paddle.reshape(r, [-1]) * paddle.to_tensor(w)).sum().backward()
    np.testing.assert_allclose(t.grad.numpy(), want, rtol=1e-6)
