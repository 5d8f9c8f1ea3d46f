"""label_smooth (F.label_smooth / fluid.layers.label_smooth) and its grad against numpy, with and
without a prior distribution, float32 (factors rounded to float32 as Paddle's kernel forms them)
and float64, fused, unfused and on the reference executor; its argument errors."""
import numpy as np
import pytest

import fluidc as fluid
import fluidc as paddle

from op_harness import fused_unfused_reference

paddle.enable_static()


@pytest.mark.parametrize("seed", range(6))
def test_label_smooth_and_grad_match_numpy(seed):
    rng = np.random.default_rng(seed)
    dtype = ("float32", "float64")[seed % 2]
    with_prior = seed % 3 == 2
    shape = tuple(int(d) for d in rng.integers(1, 6, int(rng.integers(2, 4))))
    k = shape[-1]
    eps = float(rng.uniform(0, 1))
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", list(shape), dtype)
        prior = paddle.static.data("prior", [1, k], dtype) if with_prior else None
        out = (paddle.nn.functional.label_smooth(x, prior, epsilon=eps) if seed < 3
               else fluid.layers.label_smooth(x, prior, epsilon=eps))
        assert x.stop_gradient  # as Paddle marks it
        x.stop_gradient = False  # to check label_smooth_grad all the same
        w = paddle.static.data("w", list(shape), dtype)
        (dx,) = paddle.static.gradients([paddle.sum(out * w)], [x])
    feed = {"x": np.eye(k)[rng.integers(0, k, shape[:-1])].astype(dtype),
            "w": rng.uniform(-1, 1, shape).astype(dtype)}
    if with_prior:
        feed["prior"] = rng.dirichlet(np.ones(k), 1).astype(dtype)
    e32 = np.float32(eps)
    keep = np.float64(np.float32(1) - e32)
    add = np.float64(e32) * feed["prior"].astype(np.float64) if with_prior else \
        np.float64(e32 / np.float32(k))
    want = keep * feed["x"] + add
    rtol = 1e-6 if dtype == "float32" else 1e-15
    for which, (got, got_dx) in fused_unfused_reference(main, feed, [out, dx]).items():
        assert got.dtype == np.dtype(dtype) and got.shape == shape, which
        np.testing.assert_allclose(got, want, rtol=rtol, err_msg=which)
        np.testing.assert_allclose(got_dx, keep * feed["w"], rtol=rtol, err_msg=which)


def test_label_smooth_argument_errors():
    with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):
        x = paddle.static.data("x", [2, 3], "float32")
        with pytest.raises(ValueError, match="epsilon must be between 0 and 1"):
            paddle.nn.functional.label_smooth(x, epsilon=1.5)
        with pytest.raises(TypeError, match="label_smooth"):
            paddle.nn.functional.label_smooth(paddle.static.data("i", [2, 3], "int64"))
