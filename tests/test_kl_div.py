"""F.kl_div (the kldiv_loss op) and its grad against numpy, every reduction, log_target or not,
targets with zeros and negatives (their terms are 0), float32 / float64, fused, unfused and on
the reference executor; a reduced loss is 0-d; the reduction error."""
import numpy as np
import pytest

import fluidc as paddle

from op_harness import fused_unfused_reference

paddle.enable_static()


@pytest.mark.parametrize("seed", range(8))
def test_kl_div_and_grad_match_numpy(seed):
    rng = np.random.default_rng(seed)
    reduction = ("none", "batchmean", "mean", "sum")[seed % 4]
    log_target, dtype = seed >= 4, ("float32", "float64")[seed % 2]
    shape = [int(d) for d in rng.integers(1, 5, int(rng.integers(1, 4)))]
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", shape, dtype)
        x.stop_gradient = False
        t = paddle.static.data("t", shape, dtype)
        loss = paddle.nn.functional.kl_div(x, t, reduction=reduction, log_target=log_target)
        w = paddle.static.data("w", list(loss.shape), dtype)
        (dx,) = paddle.static.gradients([paddle.sum(loss * w)], [x])
    xs = rng.standard_normal(shape)
    ts = rng.uniform(-1, 1, shape) if log_target else \
        np.where(rng.random(shape) < 0.3, rng.choice([0.0, -0.5], shape), rng.random(shape))
    terms = np.exp(ts) * (ts - xs) if log_target else \
        np.where(ts > 0, ts * np.log(np.where(ts > 0, ts, 1)) - ts * xs, 0)
    slope = -np.exp(ts) if log_target else np.where(ts > 0, -ts, 0)
    div = {"none": 1, "sum": 1, "mean": xs.size, "batchmean": shape[0]}[reduction]
    want = terms if reduction == "none" else np.asarray(terms.sum() / div)
    ws = rng.standard_normal(want.shape)
    want_dx = slope * ws / div
    feed = {"x": xs.astype(dtype), "t": ts.astype(dtype), "w": ws.astype(dtype)}
    runs = fused_unfused_reference(main, feed, [loss, dx])
    tol = dict(rtol=1e-5, atol=1e-6) if dtype == "float32" else dict(rtol=1e-12, atol=1e-14)
    for which, (got, got_dx) in runs.items():
        assert got.shape == want.shape and got.dtype == np.dtype(dtype), which
        np.testing.assert_allclose(got, want, err_msg=which, **tol)
        np.testing.assert_allclose(got_dx, want_dx, err_msg=which, **tol)


def test_kl_div_refuses_an_unknown_reduction():
    with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):
        x = paddle.static.data("x", [2, 3], "float32")
        with pytest.raises(ValueError, match="reduction"):
            paddle.nn.functional.kl_div(x, x, reduction="avg")
