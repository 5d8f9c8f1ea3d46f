"""paddle.var / std / numel against numpy (ddof 1 when unbiased, as Paddle's)."""
import numpy as np
import pytest

import fluidc as paddle


def _run(feed, fetch):
    return paddle.static.Executor(paddle.CPUPlace()).run(feed=feed, fetch_list=fetch)


@pytest.mark.parametrize("batch", [-1, 4])  # n known when built, or only at run time
def test_var_std_match_numpy(batch, rng):
    paddle.enable_static()
    x = paddle.static.data("x", [batch, 5, 3], "float64")
    a = rng.random((4, 5, 3))
    cases = [(paddle.var(x), a.var(ddof=1)),
             (paddle.var(x, 0), a.var(0, ddof=1)),
             (paddle.var(x, [0, 2], unbiased=False, keepdim=True), a.var((0, 2), keepdims=True)),
             (paddle.std(x, -1), a.std(-1, ddof=1)),
             (paddle.std(x, 1, keepdim=True), a.std(1, ddof=1, keepdims=True)),
             (paddle.numel(x), np.int64(60))]
    got = _run({"x": a}, [c[0] for c in cases])
    for g, (_, want) in zip(got, cases):
        assert g.shape == np.shape(want) and g.dtype == np.asarray(want).dtype
        np.testing.assert_allclose(g, want, rtol=1e-12)


def test_unbiased_var_of_one_element_is_zero(rng):
    paddle.enable_static()
    x = paddle.static.data("x", [-1, 1], "float32")
    got, = _run({"x": rng.random((1, 1), dtype=np.float32)}, [paddle.var(x, 0)])
    assert got.tolist() == [0.0]


def test_var_gradient_is_twice_the_deviation_over_n_minus_1(rng):
    paddle.enable_static()
    x = paddle.static.data("x", [-1, 3], "float64")
    x.stop_gradient = False
    v = paddle.var(x, 0)
    grad, = paddle.static.gradients([paddle.sum(v)], [x])
    a = rng.random((6, 3))
    got, = _run({"x": a}, [grad])
    np.testing.assert_allclose(got, 2 * (a - a.mean(0)) / 5, rtol=1e-12)


def test_var_refuses_integers():
    paddle.enable_static()
    x = paddle.static.data("x", [2, 3], "int64")
    with pytest.raises(TypeError, match="var"):
        paddle.var(x)
