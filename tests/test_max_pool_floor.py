"""Max pools start each window at -FLT_MAX, as Paddle's kernels do: an empty window (wholly
past the edge under ceil_mode, as in random programs Paddle built) and a window of only -inf
give -FLT_MAX, not -inf, in float32 and float64; NaN still propagates. NCHW pools (torch's
kernels), fused, unfused and on the reference executor, against numpy over the windows."""
import numpy as np
import pytest

import fluidc as paddle

from op_harness import fused_unfused_reference

paddle.enable_static()
FLT_MAX = float(np.finfo(np.float32).max)


def np_max_pool_ceil(x, k, s):
    """Paddle's max pool, no padding, ceil_mode: windows clipped to the input, from -FLT_MAX."""
    n, c, h, w = x.shape
    oh, ow = (-(-(d - kk) // ss) + 1 for d, kk, ss in zip((h, w), k, s))
    out = np.empty((n, c, oh, ow), x.dtype)
    for i in range(oh):
        for j in range(ow):
            win = x[:, :, i * s[0]:i * s[0] + k[0], j * s[1]:j * s[1] + k[1]]
            out[:, :, i, j] = win.reshape(n, c, -1).max(-1, initial=-FLT_MAX)
    return out


@pytest.mark.parametrize("seed", range(4))
def test_empty_and_minus_inf_windows_give_minus_flt_max(seed):
    rng = np.random.default_rng(seed)
    dtype = ("float32", "float64")[seed % 2]
    k, s = [1, int(rng.integers(1, 3))], [int(rng.integers(1, 3)), 2]
    shape = [2, 3, int(rng.integers(2, 5)), 2 * int(rng.integers(1, 3))]  # even width: an
    # empty last column (stride 2, window 1)
    x = rng.standard_normal(shape).astype(dtype)
    x[0, 0] = -np.inf  # whole -inf planes
    x[1, 1, 0, 0] = np.nan
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        xv = paddle.static.data("x", shape, dtype)
        out = paddle.nn.functional.max_pool2d(xv, k, s, ceil_mode=True)
    want = np_max_pool_ceil(x, k, s)
    assert (want == -FLT_MAX).any() and np.isnan(want).any()
    runs = {which: got for which, (got,) in fused_unfused_reference(main, {"x": x}, [out]).items()}
    for which, got in runs.items():
        assert got.dtype == np.dtype(dtype) and got.shape == want.shape, which
        np.testing.assert_array_equal(got, want, err_msg=which)
