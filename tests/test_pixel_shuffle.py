"""pixel_shuffle (F.pixel_shuffle) and its grad against numpy's index mapping
(out[n, c, h * r + i, w * r + j] = x[n, c * r^2 + i * r + j, h, w]), NCHW and NHWC, float32 and
float64, fused, unfused and on the reference executor; its argument errors."""
import numpy as np
import pytest

import fluidc as paddle
from fluidc.frontend.errors import FluidcError

from op_harness import fused_unfused_reference

paddle.enable_static()


def np_shuffle_nchw(x, r):
    n, cr, h, w = x.shape
    out = np.empty((n, cr // (r * r), h * r, w * r), x.dtype)
    for c in range(cr // (r * r)):
        for i in range(r):
            for j in range(r):
                out[:, c, i::r, j::r] = x[:, c * r * r + i * r + j]
    return out


@pytest.mark.parametrize("seed", range(4))
def test_pixel_shuffle_and_grad_match_numpy(seed):
    rng = np.random.default_rng(seed)
    dtype = ("float32", "float64")[seed % 2]
    fmt = ("NCHW", "NHWC")[seed // 2]
    r = int(rng.integers(1, 4))
    n, c, h, w = (int(d) for d in rng.integers(1, 4, 4))
    nchw = (n, c * r * r, h, w)
    shape = nchw if fmt == "NCHW" else (n, h, w, c * r * r)
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", list(shape), dtype)
        x.stop_gradient = False
        out = paddle.nn.functional.pixel_shuffle(x, r, data_format=fmt)
        wv = paddle.static.data("w", list(out.shape), dtype)
        (dx,) = paddle.static.gradients([paddle.sum(out * wv)], [x])
    xs = rng.standard_normal(shape).astype(dtype)
    to_nchw = (lambda a: a) if fmt == "NCHW" else (lambda a: a.transpose(0, 3, 1, 2))
    from_nchw = (lambda a: a) if fmt == "NCHW" else (lambda a: a.transpose(0, 2, 3, 1))
    want = from_nchw(np_shuffle_nchw(to_nchw(xs), r))
    weights = rng.standard_normal(want.shape).astype(dtype)
    # the grad puts each dOut cell back where its value came from: shuffle the positions
    pos = np.arange(xs.size).reshape(xs.shape)
    moved = from_nchw(np_shuffle_nchw(to_nchw(pos), r))
    want_dx = np.empty(xs.size, dtype)
    want_dx[moved.ravel()] = weights.ravel()
    feed = {"x": xs, "w": weights}
    runs = fused_unfused_reference(main, feed, [out, dx])
    for which, (got, got_dx) in runs.items():
        np.testing.assert_array_equal(got, want, err_msg=which)
        np.testing.assert_array_equal(got_dx, want_dx.reshape(shape), err_msg=which)


def test_pixel_shuffle_argument_errors():
    with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):
        x = paddle.static.data("x", [2, 8, 3, 3], "float32")
        with pytest.raises(ValueError, match="data_format"):
            paddle.nn.functional.pixel_shuffle(x, 2, data_format="NCDHW")
        with pytest.raises(TypeError, match="pixel_shuffle"):
            paddle.nn.functional.pixel_shuffle(paddle.static.data("i", [2, 4, 3, 3], "int32"), 2)
        with pytest.raises(FluidcError, match="not divisible by upscale_factor"):
            paddle.nn.functional.pixel_shuffle(x, 3)
