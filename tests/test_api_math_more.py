"""paddle.floor / sign / erf / logsumexp / dot / outer / cross / unbind / chunk /
take_along_axis: static programs (fused and unfused) against numpy and Paddle 3.3.1's values,
gradients against finite differences, dygraph results, and errors for bad input."""
from __future__ import annotations

import math

import numpy as np
import pytest

import fluidc as paddle
import fluidc as fluid

from test_api_elementwise_more import both, data, run
from test_grad_check import GradCase, run_grad_check

paddle.enable_static()

NAN, INF = np.nan, np.inf
_erf = np.vectorize(math.erf)


def _var(shape, dtype, name="e"):
    return paddle.static.data(name, shape, dtype)


def _logsumexp(x, axis=None, keepdims=False):
    m = np.max(x, axis=axis, keepdims=True)
    s = np.log(np.sum(np.exp(x - m), axis=axis, keepdims=keepdims))
    return s + (m if keepdims else np.squeeze(m, axis=axis))


# --- floor / sign / erf --------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(2, 3), (7,), (3, 1, 5)])
def test_floor_sign_erf_match_numpy(dtype, shape, rng):
    x = data(rng, shape, dtype)
    x.reshape(-1)[:4] = [NAN, INF, -INF, -0.5]
    f, s = both(lambda v: [paddle.floor(v["x"]), paddle.sign(v["x"])], {"x": x})
    # erf: a loop gcc vectorizes calls libmvec's erf, which may differ from libm's by an ulp
    e, = both(lambda v: [paddle.erf(v["x"])], {"x": x}, 1e-6 if dtype == "float32" else 1e-15)
    assert f.dtype == s.dtype == e.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(f, np.floor(x))
    np.testing.assert_array_equal(s, np.sign(x))
    np.testing.assert_allclose(e, _erf(x), rtol=1e-6 if dtype == "float32" else 1e-14)


@pytest.mark.parametrize("dtype", ["int32", "int64"])
def test_integer_floor_sign_and_erf(dtype):
    x = np.array([1, -2, 0], dtype)
    f, s = both(lambda v: [paddle.floor(v["x"]), paddle.sign(v["x"])], {"x": x})
    e, = both(lambda v: [paddle.erf(v["x"])], {"x": x}, 1e-6)
    np.testing.assert_array_equal(f, x)
    assert f.dtype == s.dtype == np.dtype(dtype)
    # Paddle 3.3.1: floor / sign keep ints, erf autocasts them to float32
    assert s.tolist() == [1, -1, 0]
    assert e.dtype == np.float32
    np.testing.assert_allclose(e, [0.8427007, -0.9953223, 0.0], rtol=1e-6)


def test_floor_sign_erf_paddle_values():
    f, s, e = run(lambda v: [paddle.floor(v["f"]), paddle.sign(v["s"]), paddle.erf(v["e"])],
                  {"f": np.array([1.5, -0.5, -2.5, 2.0], "float32"),
                   "s": np.array([3.0, -0.0, 0.0, -2.0, NAN]),
                   "e": np.array([0.0, 0.5, -1.0, 2.0])})
    # Paddle 3.3.1's floor, sign and erf
    assert f.tolist() == [1.0, -1.0, -3.0, 2.0]
    np.testing.assert_array_equal(s, [1.0, 0.0, 0.0, -1.0, NAN])
    np.testing.assert_allclose(e, [0.0, 0.5204998778130465, -0.8427007929497149,
                                   0.9953222650189527], rtol=1e-15)


# --- logsumexp -----------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype,tol", [("float32", 1e-6), ("float64", 1e-13)])
@pytest.mark.parametrize("shape,axis", [((2, 3), None), ((2, 3), 1), ((2, 3), -1),
                                        ((3, 4, 5), [0, 2]), ((3, 4, 5), -2), ((4,), 0)])
@pytest.mark.parametrize("keepdim", [False, True])
def test_logsumexp_matches_numpy(shape, axis, keepdim, dtype, tol, rng):
    x = data(rng, shape, dtype) * 30  # large values: the max shift keeps them finite
    out, = both(lambda v: [paddle.logsumexp(v["x"], axis, keepdim)], {"x": x}, tol)
    want = _logsumexp(x.astype("float64"), None if axis is None else tuple(np.atleast_1d(axis)),
                      keepdim)
    assert out.shape == np.shape(want) and out.dtype == np.dtype(dtype)
    np.testing.assert_allclose(out, want, rtol=tol)


def test_logsumexp_paddle_values():
    a, b, c, d = run(lambda v: [paddle.logsumexp(v["x"], axis=1), paddle.logsumexp(v["y"]),
                                paddle.logsumexp(v["y"], axis=-1, keepdim=True),
                                paddle.logsumexp(v["i"])],
                     {"x": np.array([[-INF, -INF], [INF, 1.0], [1.0, 2.0], [NAN, 1.0]]),
                      "y": np.array([[1., 2., 3.], [4., 5., 6.]], "float32"),
                      "i": np.array([1, -2, 0], "int32")})
    # Paddle 3.3.1's logsumexp: a row with an infinite max is NaN; ints give float32
    np.testing.assert_allclose(a, [NAN, NAN, 2.31326169, NAN], rtol=1e-8)
    assert b.shape == () and abs(b - 6.4561934) < 1e-6
    np.testing.assert_allclose(c, [[3.407606], [6.407606]], rtol=1e-6)
    assert d.dtype == np.float32 and abs(d - 1.3490121) < 1e-6


# --- dot / outer / cross -------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64"])
@pytest.mark.parametrize("shape", [(5,), (3, 4), (1, 7)])
def test_dot_and_outer_match_numpy(shape, dtype, rng):
    x, y = data(rng, shape, dtype), data(rng, shape, dtype)
    tol = 1e-5 if dtype == "float32" else 0.0
    d, o = both(lambda v: [paddle.dot(v["x"], v["y"]), paddle.outer(v["x"], v["y"])],
                {"x": x, "y": y}, tol)
    assert d.dtype == o.dtype == np.dtype(dtype) and d.shape == shape[:-1]
    np.testing.assert_allclose(d, np.sum(x * y, axis=-1), rtol=1e-5)
    np.testing.assert_array_equal(o, np.outer(x, y))


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
@pytest.mark.parametrize("shape,axis", [((3,), None), ((2, 3), None), ((2, 3), 1), ((3, 3), None),
                                        ((3, 3), -1), ((4, 3, 2), -2), ((2, 5, 3), 2)])
def test_cross_matches_numpy(shape, axis, dtype, rng):
    x, y = data(rng, shape, dtype), data(rng, shape, dtype)
    out, = both(lambda v: [paddle.cross(v["x"], v["y"], axis)], {"x": x, "y": y})
    first3 = shape.index(3) if axis is None else axis
    np.testing.assert_allclose(out, np.cross(x, y, axis=first3), rtol=1e-6)
    assert out.dtype == np.dtype(dtype)


def test_dot_outer_cross_paddle_values():
    d1, d2, o, c1, c2 = run(
        lambda v: [paddle.dot(v["a"], v["b"]), paddle.dot(v["i"], v["j"]),
                   paddle.outer(v["p"], v["q"]), paddle.cross(v["x"], v["y"]),
                   paddle.cross(v["s"], v["t"])],
        {"a": np.array([1., 2, 3], "float32"), "b": np.array([4., 5, 6], "float32"),
         "i": np.array([[1, 2], [3, 4]], "int32"), "j": np.array([[5, 6], [7, 8]], "int32"),
         "p": np.array([1., 2, 3]), "q": np.array([4., 5]),
         "x": np.array([[1., 2, 3], [4, 5, 6]]), "y": np.array([[7., 8, 9], [1, 0, 2]]),
         "s": np.array([[1., 2, 3], [4, 5, 6], [1, 1, 1]]),
         "t": np.array([[7., 8, 9], [1, 0, 2], [0, 1, 0]])})
    # Paddle 3.3.1's dot (1-D: 0-d result), outer, cross (default axis: the first dim of size 3)
    assert d1.shape == () and d1 == 32.0
    assert d2.tolist() == [17, 53]
    assert o.tolist() == [[4.0, 5.0], [8.0, 10.0], [12.0, 15.0]]
    assert c1.tolist() == [[-6.0, 12.0, -6.0], [10.0, -2.0, -5.0]]
    assert c2.tolist() == [[-1.0, 5.0, -2.0], [7.0, 6.0, 9.0], [-27.0, -40.0, -48.0]]


# --- unbind / chunk ------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["float32", "int64", "bool"])
@pytest.mark.parametrize("shape,axis", [((2, 3), 0), ((2, 3), -1), ((4, 1, 3), 1),
                                        ((2, 3, 4), -2)])
def test_unbind_matches_numpy(shape, axis, dtype, rng):
    x = data(rng, shape, dtype) if dtype != "bool" else rng.random(shape) > 0.5
    outs = both(lambda v: paddle.unbind(v["x"], axis), {"x": x})
    assert len(outs) == shape[axis]
    for k, o in enumerate(outs):
        np.testing.assert_array_equal(o, np.take(x, k, axis=axis))


@pytest.mark.parametrize("shape,chunks,axis", [((6, 2), 3, 0), ((2, 6), 2, -1), ((4, 4), 4, 1),
                                               ((3, 2), 1, 0)])
def test_chunk_matches_numpy(shape, chunks, axis, rng):
    x = data(rng, shape, "float64")
    outs = both(lambda v: paddle.chunk(v["x"], chunks, axis), {"x": x})
    for o, want in zip(outs, np.split(x, chunks, axis=axis), strict=True):
        np.testing.assert_array_equal(o, want)


def test_unbind_and_chunk_paddle_values():
    x = np.arange(6).reshape(2, 3)
    u = run(lambda v: paddle.unbind(v["x"], axis=-1), {"x": x})
    c = run(lambda v: paddle.chunk(v["x"], 3, axis=1), {"x": x})
    # Paddle 3.3.1's unbind and chunk
    assert [a.tolist() for a in u] == [[0, 3], [1, 4], [2, 5]]
    assert [a.tolist() for a in c] == [[[0], [3]], [[1], [4]], [[2], [5]]]


# --- take_along_axis -----------------------------------------------------------------------------
def _numpy_take(arr, idx, axis):
    """Paddle's broadcast rules, then numpy's take_along_axis with negatives from the end."""
    shape = [max(n, m) for n, m in zip(arr.shape, idx.shape)]
    ishape, ashape = list(shape), list(shape)
    ishape[axis], ashape[axis] = idx.shape[axis], arr.shape[axis]
    idx, arr = np.broadcast_to(idx, ishape), np.broadcast_to(arr, ashape)
    return np.take_along_axis(arr, idx % arr.shape[axis], axis)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32"])
@pytest.mark.parametrize("idx_dtype", ["int32", "int64"])
@pytest.mark.parametrize("xs,js,axis", [((3, 4), (3, 2), 1), ((3, 4), (5, 4), 0),
                                        ((3, 4), (1, 6), -1), ((2, 3, 4), (2, 1, 4), 1),
                                        ((1, 4), (3, 2), 1), ((2, 3, 4), (2, 3, 4), -3)])
def test_take_along_axis_matches_numpy(xs, js, axis, dtype, idx_dtype, rng):
    x = data(rng, xs, dtype)
    n = xs[axis]
    idx = rng.integers(-n, n, js).astype(idx_dtype)
    out, = both(lambda v: [paddle.take_along_axis(v["x"], v["i"], axis)], {"x": x, "i": idx})
    np.testing.assert_array_equal(out, _numpy_take(x, idx, axis))


def test_take_along_axis_without_broadcast_takes_the_leading_part(rng):
    x = data(rng, (3, 4), "float64")
    idx = np.array([[1], [0]], "int64")
    out, = both(lambda v: [paddle.take_along_axis(v["x"], v["i"], 1, broadcast=False)],
                {"x": x, "i": idx})
    np.testing.assert_array_equal(out, np.take_along_axis(x[:2], idx, 1))


def test_take_along_axis_paddle_values():
    a = np.array([[10., 20, 30], [40, 50, 60]])
    r1, r2, r3, r4, r5 = run(
        lambda v: [paddle.take_along_axis(v["a"], v["i"], 1),
                   paddle.take_along_axis(v["a"], v["j"], 1),
                   paddle.take_along_axis(v["a"], v["k"], 0),
                   paddle.take_along_axis(v["a"], v["n"], 1),
                   paddle.take_along_axis(v["a"], v["j"], 1, broadcast=False)],
        {"a": a, "i": np.array([[2, 0, 1]]), "j": np.array([[1], [0]]),
         "k": np.array([[1, 0, 1]]), "n": np.array([[-1], [0]])})
    # Paddle 3.3.1's take_along_axis (negative indices count from the end)
    assert r1.tolist() == [[30.0, 10.0, 20.0], [60.0, 40.0, 50.0]]
    assert r2.tolist() == [[20.0], [40.0]]
    assert r3.tolist() == [[40.0, 20.0, 60.0]]
    assert r4.tolist() == [[30.0], [40.0]]
    assert r5.tolist() == [[20.0], [40.0]]


def test_take_along_axis_index_out_of_range_fails_when_run():
    with pytest.raises(Exception, match=r"Index.*holds 3.*must be in \[-3, 3\)"):
        run(lambda v: [paddle.take_along_axis(v["a"], v["i"], 1)],
            {"a": np.ones((2, 3)), "i": np.array([[3], [0]])})


# --- gradients (float64, central differences) ---------------------------------------------------
R = np.random.default_rng(11)


def _off_integers(*shape):
    return R.uniform(0.1, 0.9, shape) + R.integers(-3, 3, shape)


GRAD_CASES = {
    "erf": GradCase(lambda v: paddle.erf(v["x"]), {"x": R.uniform(-2, 2, (2, 3))}),
    "logsumexp_all": GradCase(lambda v: paddle.logsumexp(v["x"]), {"x": R.uniform(-3, 3, (2, 3))}),
    "logsumexp_axis": GradCase(lambda v: paddle.logsumexp(v["x"], axis=-1, keepdim=True),
                               {"x": R.uniform(-3, 3, (3, 4))}),
    "logsumexp_axes": GradCase(lambda v: paddle.logsumexp(v["x"], axis=[0, 2]),
                               {"x": R.uniform(-3, 3, (2, 3, 2))}),
    "dot_1d": GradCase(lambda v: paddle.dot(v["x"], v["y"]),
                       {"x": R.uniform(-1, 1, (4,)), "y": R.uniform(-1, 1, (4,))},
                       wrt=("x", "y")),
    "dot_2d": GradCase(lambda v: paddle.dot(v["x"], v["y"]),
                       {"x": R.uniform(-1, 1, (3, 4)), "y": R.uniform(-1, 1, (3, 4))},
                       wrt=("x", "y")),
    "outer": GradCase(lambda v: paddle.outer(v["x"], v["y"]),
                      {"x": R.uniform(-1, 1, (2, 2)), "y": R.uniform(-1, 1, (3,))},
                      wrt=("x", "y")),
    "cross": GradCase(lambda v: paddle.cross(v["x"], v["y"], axis=0),
                      {"x": R.uniform(-1, 1, (3, 2)), "y": R.uniform(-1, 1, (3, 2))},
                      wrt=("x", "y")),
    "unbind": GradCase(lambda v: paddle.multiply(paddle.unbind(v["x"], -1)[1],
                                                 paddle.unbind(v["x"], -1)[2]),
                       {"x": R.uniform(-1, 1, (2, 3))}),
    "chunk": GradCase(lambda v: paddle.chunk(v["x"], 2, axis=1)[1], {"x": R.uniform(-1, 1, (2, 4))}),
    "take_along_axis": GradCase(
        lambda v: paddle.take_along_axis(v["x"], v["i"], 1),
        {"x": R.uniform(-1, 1, (3, 4)), "i": np.array([[0, 0, -1], [2, 1, 2], [3, 3, 3]])}),
    "take_along_axis_broadcast": GradCase(
        lambda v: paddle.take_along_axis(v["x"], v["i"], 0),
        {"x": R.uniform(-1, 1, (3, 1)), "i": np.array([[0, 2, 0, 1]])}),
    "floor_sign": GradCase(lambda v: paddle.add(paddle.floor(v["x"]), paddle.sign(v["x"])),
                           {"x": _off_integers(2, 3)}),
}


@pytest.mark.parametrize("key", sorted(GRAD_CASES))
def test_gradients_match_finite_differences(key):
    run_grad_check(GRAD_CASES[key], key)


@pytest.mark.parametrize("loss,x0,want", [
    # d(floor(x) * x + sign(x)) = floor(x); d(ceil(x) * x) = ceil(x) + 0 * x
    (lambda x: paddle.floor(x) * x + paddle.sign(x), [1.5, -2.3, 4.0], np.floor),
    (lambda x: paddle.ceil(x) * x, [0.5, -2.3, 4.0], np.ceil),
])
def test_flat_functions_have_zero_gradients(loss, x0, want):
    """floor, sign and ceil: zero gradients (Paddle's *_grad write zeros), not none."""
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        x = paddle.static.data("x", [3], "float64")
        x.stop_gradient = False
        g, = fluid.gradients([paddle.sum(loss(x))], [x])
    x0 = np.array(x0)
    got, = fluid.Executor(fluid.CPUPlace()).run(main, feed={"x": x0}, fetch_list=[g])
    np.testing.assert_array_equal(got, want(x0))


# --- dygraph -------------------------------------------------------------------------------------
def test_dygraph_results_and_grads():
    paddle.disable_static()
    t = paddle.to_tensor
    x = np.array([[1.5, -0.5, 2.0], [-2.5, 0.0, 3.0]])
    np.testing.assert_array_equal(paddle.floor(t(x)).numpy(), np.floor(x))
    np.testing.assert_array_equal(paddle.sign(t(x)).numpy(), np.sign(x))
    np.testing.assert_allclose(paddle.erf(t(x)).numpy(), _erf(x), rtol=1e-14)
    np.testing.assert_allclose(paddle.logsumexp(t(x), axis=1).numpy(), _logsumexp(x, 1))
    np.testing.assert_allclose(paddle.dot(t(x), t(x)).numpy(), np.sum(x * x, -1))
    np.testing.assert_array_equal(paddle.outer(t(x[0]), t(x[1])).numpy(), np.outer(x[0], x[1]))
    np.testing.assert_array_equal(paddle.cross(t(x), t(x[::-1].copy())).numpy(),
                                  np.cross(x, x[::-1]))
    assert [u.numpy().tolist() for u in paddle.unbind(t(x), 0)] == x.tolist()
    assert [c.shape for c in paddle.chunk(t(x), 3, axis=1)] == [[2, 1]] * 3
    np.testing.assert_array_equal(
        paddle.take_along_axis(t(x), t(np.array([[2], [0]])), 1).numpy(), [[2.0], [-2.5]])

    # Paddle 3.3.1's gradients: take_along_axis scatter-adds, floor / sign give zeros, erf's
    # 2/sqrt(pi) exp(-x^2), logsumexp's softmax
    v = t(np.array([[1., 2, 3], [4, 5, 6]]), stop_gradient=False)
    paddle.take_along_axis(v, t(np.array([[0, 0], [2, 1]])), 1).sum().backward()
    assert v.grad.numpy().tolist() == [[2.0, 0.0, 0.0], [0.0, 1.0, 1.0]]
    v = t(np.array([1.5, -2., 0.]), stop_gradient=False)
    (paddle.floor(v) + paddle.sign(v)).sum().backward()
    assert v.grad.numpy().tolist() == [0.0, 0.0, 0.0]
    v = t(np.array([0.5, -1.]), stop_gradient=False)
    paddle.erf(v).sum().backward()
    np.testing.assert_allclose(v.grad.numpy(), [0.8787825789354448, 0.4151074974205947],
                               rtol=1e-14)
    v = t(np.array([1., 2., 3.]), stop_gradient=False)
    paddle.logsumexp(v).backward()
    np.testing.assert_allclose(v.grad.numpy(), [0.09003057317038043, 0.24472847105479759,
                                                0.6652409557748217], rtol=1e-14)


# --- errors --------------------------------------------------------------------------------------
@pytest.mark.parametrize("call", [
    lambda: paddle.floor(_var([2], "bool")),
    lambda: paddle.sign(_var([2], "bool")),
    lambda: paddle.erf(_var([2], "bool")),
    lambda: paddle.logsumexp(_var([2], "bool")),
    lambda: paddle.logsumexp(_var([2], "float32"), axis=1.0),
    lambda: paddle.dot(_var([2], "bool"), _var([2], "bool", "f")),
    lambda: paddle.dot(_var([2], "float32"), _var([2], "float64", "f")),
    lambda: paddle.outer(_var([2], "float32"), np.ones(2)),
    lambda: paddle.cross(_var([3], "bool"), _var([3], "bool", "f")),
    lambda: paddle.cross(_var([3], "float32"), _var([3], "float32", "f"), axis=0.0),
    lambda: paddle.unbind(_var([2, 3], "float32"), axis=1.0),
    lambda: paddle.chunk(_var([2, 4], "float32"), 2.0),
    lambda: paddle.take_along_axis(_var([2, 3], "float32"), _var([2, 1], "float32", "f"), 1),
    lambda: paddle.take_along_axis(_var([2, 3], "bool"), _var([2, 1], "int64", "f"), 1),
    lambda: paddle.unbind(np.zeros((2, 3))),
])
def test_bad_types_raise_type_error(call):
    with pytest.raises(TypeError):
        call()


@pytest.mark.parametrize("call,match", [
    (lambda: paddle.dot(_var([2], "float32"), _var([3], "float32", "f")), "one shape"),
    (lambda: paddle.dot(_var([2, 2, 2], "float32"), _var([2, 2, 2], "float32", "f")), "1-D or 2-D"),
    (lambda: paddle.cross(_var([2, 4], "float32"), _var([2, 4], "float32", "f")), "size 3"),
    (lambda: paddle.cross(_var([3, 2], "float32"), _var([3, 2], "float32", "f"), 1), "size 3"),
    (lambda: paddle.cross(_var([3], "float32"), _var([3], "float32", "f"), 1), "out of range"),
    (lambda: paddle.cross(_var([3], "float32"), _var([2, 3], "float32", "f")), "one shape"),
    (lambda: paddle.unbind(_var([2, 3], "float32"), 2), "out of range"),
    (lambda: paddle.unbind(_var([-1, 3], "float32"), 0), "known"),
    (lambda: paddle.chunk(_var([2, 4], "float32"), 5, 1), "at most"),
    (lambda: paddle.chunk(_var([2, 4], "float32"), 0, 1), "positive"),
    (lambda: paddle.chunk(_var([2, 4], "float32"), 3, 1), "equal"),
    (lambda: paddle.take_along_axis(_var([2, 3], "float32"), _var([2], "int64", "f"), 0),
     "number of dimensions"),
    (lambda: paddle.take_along_axis(_var([2, 3], "float32"), _var([3, 1], "int64", "f"), 1),
     "broadcast"),
    (lambda: paddle.take_along_axis(_var([2, 3], "float32"), _var([3, 1], "int64", "f"), 1,
                                    broadcast=False), "exceeds"),
    (lambda: paddle.take_along_axis(_var([2, 3], "float32"), _var([2, 1], "int64", "f"), 2),
     "out of range"),
])
def test_bad_values_raise_value_error(call, match):
    with pytest.raises(ValueError, match=match):
        call()
