"""The mish op (F.mish, fluid.layers.mish): forward and gradient against numpy's formula with
log1p / expm1 (Paddle's kernel: softplus is x above threshold, exp(x) below -threshold), on
random inputs spread across both thresholds, fused, unfused and on the reference executor."""
import numpy as np
import pytest

import fluidc as fluid
import fluidc as paddle

from op_harness import fused_unfused_reference

paddle.enable_static()
# the reference executor evaluates both sides of each branch (exp overflowing where unused)
pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")


def np_mish(x, threshold=20.0):
    sp = np.where(x > threshold, x, np.where(x < -threshold, np.exp(x), np.log1p(np.exp(x))))
    tsp = np.tanh(sp)
    dsp = -np.expm1(-sp)
    return x * tsp, x * (1 - tsp * tsp) * dsp + tsp


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("threshold", [20.0, 5.0])
def test_mish_and_its_grad_match_numpy(dtype, threshold):
    rng = np.random.default_rng(int(threshold) + len(dtype))
    x = np.concatenate([rng.uniform(-40, 40, 200), rng.uniform(-1, 1, 50),
                        [-threshold, threshold, 0.0, -1e-30, 1e-30]]).astype(dtype)
    x = x.reshape(5, -1)
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        xv = paddle.static.data("x", list(x.shape), dtype)
        xv.stop_gradient = False
        out = (paddle.nn.functional.mish(xv) if threshold == 20.0
               else fluid.layers.mish(xv, threshold=threshold))
        w = paddle.static.data("w", list(x.shape), dtype)
        (dx,) = paddle.static.gradients([paddle.sum(out * w)], [xv])
    wv = rng.uniform(-1, 1, x.shape).astype(dtype)
    feed = {"x": x, "w": wv}
    want_out, want_slope = np_mish(x.astype(np.float64), threshold)
    runs = fused_unfused_reference(main, feed, [out, dx])
    # the slope crosses 0 near x = -1.19 (two terms cancel): an absolute floor there
    rtol, atol = (2e-6, 1e-6) if dtype == "float32" else (1e-12, 1e-14)
    for which, (got_out, got_dx) in runs.items():
        assert got_out.dtype == np.dtype(dtype) and got_dx.dtype == np.dtype(dtype)
        np.testing.assert_allclose(got_out, want_out, rtol=rtol, atol=atol, err_msg=which)
        np.testing.assert_allclose(got_dx, want_slope * wv, rtol=rtol, atol=atol, err_msg=which)


def test_mish_refuses_integers():
    with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):
        x = paddle.static.data("x", [2, 3], "int32")
        with pytest.raises(TypeError, match="mish"):
            paddle.nn.functional.mish(x)
