"""F.max_pool2d(return_mask=True): max_pool2d_with_index's Out, Mask and gradient against numpy
(a direct window loop in Paddle's kernel order) and against the reference executor, over random
kernels, strides, paddings and ceil_mode; a window wholly in the padding gives the dtype's lowest
value and Mask -1, as Paddle's kernel (checked against Paddle 3.3.1's numbers once)."""
import numpy as np
import pytest

import fluidc as paddle
from fluidc.frontend.layers.helper import ArgumentValueError
from fluidc.runtime import executor as executor_mod

F = paddle.nn.functional


def _naive(x, k, s, p, ceil):
    """Paddle's MaxPoolWithIndex: windows from j*s - p clipped to the input, first maximum above
    the lowest value, else (lowest, -1)."""
    n, c, h, w = x.shape
    size = [(d + 2 * pp - kk + (ss - 1 if ceil else 0)) // ss + 1
            for d, kk, ss, pp in zip((h, w), k, s, p)]
    lowest = np.finfo(x.dtype).min
    out = np.full((n, c, *size), lowest, x.dtype)
    mask = np.full((n, c, *size), -1, np.int32)
    for i in range(size[0]):
        for j in range(size[1]):
            h0, w0 = max(i * s[0] - p[0], 0), max(j * s[1] - p[1], 0)
            h1, w1 = min(i * s[0] - p[0] + k[0], h), min(j * s[1] - p[1] + k[1], w)
            for r in range(h0, h1):
                for q in range(w0, w1):
                    better = x[:, :, r, q] > out[:, :, i, j]
                    out[:, :, i, j] = np.where(better, x[:, :, r, q], out[:, :, i, j])
                    mask[:, :, i, j] = np.where(better, r * w + q, mask[:, :, i, j])
    return out, mask


def _grad(x, mask, d):
    dx = np.zeros_like(x)
    n, c = x.shape[:2]
    for a in range(n):
        for b in range(c):
            for m, g in zip(mask[a, b].ravel(), d[a, b].ravel()):
                if m >= 0:
                    dx[a, b].flat[m] += g
    return dx


@pytest.mark.parametrize("seed", range(6))
def test_out_mask_and_gradient_match_numpy_and_reference(monkeypatch, seed):
    rng = np.random.default_rng(seed)
    h, w = (int(v) for v in rng.integers(3, 9, size=2))
    k = [int(v) for v in rng.integers(1, 4, size=2)]
    s = [int(v) for v in rng.integers(1, 3, size=2)]
    p = [int(rng.integers(0, kk // 2 + 1)) for kk in k]
    ceil = bool(seed % 2)
    main = paddle.static.Program()
    with paddle.static.program_guard(main, paddle.static.Program()):
        x = paddle.static.data("x", [2, 3, h, w], "float64")
        x.stop_gradient = False
        out, mask = F.max_pool2d(x, k, stride=s, padding=p, ceil_mode=ceil, return_mask=True)
        wv = paddle.static.data("w", list(out.shape), "float64")
        (dx,) = paddle.static.gradients([paddle.sum(paddle.multiply(out, wv))], [x])
    xv = rng.permutation(2 * 3 * h * w).reshape(2, 3, h, w).astype("float64")  # no ties
    want_out, want_mask = _naive(xv, k, s, p, ceil)
    wd = rng.standard_normal(want_out.shape)
    want_dx = _grad(xv, want_mask, wd)
    feed = {"x": xv, "w": wd}
    got = paddle.static.Executor(paddle.CPUPlace()).run(main, feed=feed,
                                                        fetch_list=[out, mask, dx])
    monkeypatch.setattr(executor_mod, "find_compiler", lambda: None)
    monkeypatch.setattr(executor_mod, "_warned_no_compiler", True)
    ref = paddle.static.Executor(paddle.CPUPlace()).run(main, feed=feed,
                                                        fetch_list=[out, mask, dx])
    for run in (got, ref):
        np.testing.assert_array_equal(run[0], want_out)
        np.testing.assert_array_equal(run[1], want_mask)
        assert run[1].dtype == np.int32
        np.testing.assert_allclose(run[2], want_dx, rtol=1e-12)


def test_mask_refuses_nhwc_and_asymmetric_padding():
    x = paddle.static.data("x", [1, 2, 6, 6], "float32")
    with pytest.raises(ValueError, match="NCHW"):
        F.max_pool2d(x, 2, return_mask=True, data_format="NHWC")
    with pytest.raises(ArgumentValueError, match="same padding"):
        F.max_pool2d(x, 2, padding=[0, 1, 0, 0], return_mask=True)
