"""Gradients where Paddle 3.3.1's kernels decide ties and bounds: elementwise_max /
elementwise_min split ties (MaxGradXFunctor: dOut * (x > y) + dOut / 2 * (x == y); NaNs get
none), clip passes dOut at its bounds (ClipGradFunctor: min <= x <= max); compiled fused and
unfused against the reference executor and those formulas in numpy. Paddle's eager numbers on
int ties and bounds are in tests/test_int_grads.py."""
import numpy as np
import pytest

import fluidc as paddle
from op_harness import fused_unfused_reference, seeded


def _split(won, tie, d):
    return np.where(won, d, np.where(tie, d / 2, 0)).astype(d.dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("kind", ["maximum", "minimum"])
def test_ties_split_the_gradient(kind, dtype):
    rng = seeded(f"ties_{kind}_{dtype}")
    x = rng.integers(-1, 2, (6, 7)).astype(dtype)
    y = rng.integers(-1, 2, (7,)).astype(dtype)
    x[0, :3] = np.nan
    d = rng.standard_normal((6, 7)).astype(dtype)
    main = paddle.static.Program()
    with paddle.static.program_guard(main, paddle.static.Program()):
        vx, vy, vd = (paddle.static.data(n, a.shape, dtype) for n, a in (("x", x), ("y", y),
                                                                          ("d", d)))
        vx.stop_gradient = vy.stop_gradient = False
        out = getattr(paddle, kind)(vx, vy)
        gx, gy = paddle.static.gradients([out], [vx, vy], [vd])
    runs = fused_unfused_reference(main, {"x": x, "y": y, "d": d}, [gx, gy])
    yb = np.broadcast_to(y, x.shape)
    first, second = (x > yb, x < yb) if kind == "maximum" else (x < yb, x > yb)
    want = [_split(first, x == yb, d), _split(second, x == yb, d).sum(axis=0)]
    assert (x == yb).sum() > 5
    for name, got in runs.items():
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6, err_msg=name)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_clip_passes_the_gradient_at_its_bounds(dtype):
    rng = seeded(f"clip_bounds_{dtype}")
    x = rng.integers(-3, 4, (5, 6)).astype(dtype)
    x[0, 0] = np.nan
    d = rng.standard_normal((5, 6)).astype(dtype)
    main = paddle.static.Program()
    with paddle.static.program_guard(main, paddle.static.Program()):
        vx, vd = paddle.static.data("x", x.shape, dtype), paddle.static.data("d", d.shape, dtype)
        vx.stop_gradient = False
        (gx,) = paddle.static.gradients([paddle.clip(vx, -2.0, 2.0)], [vx], [vd])
    want = np.where((x >= -2) & (x <= 2), d, 0).astype(dtype)
    assert (np.abs(x) == 2).sum() > 3
    for name, (got,) in fused_unfused_reference(main, {"x": x, "d": d}, [gx]).items():
        np.testing.assert_array_equal(got, want, err_msg=name)
