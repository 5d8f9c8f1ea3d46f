"""paddle.unstack / diagonal / meshgrid / broadcast_shape / broadcast_tensors / masked_fill /
nan_to_num / nansum / lerp / mv / inner / logical_xor / isclose / allclose / equal_all / cumprod /
diff: static
programs (fused and unfused) against numpy and Paddle 3.3.1's values, gradients against finite
differences, dygraph results, and errors for bad input."""
from __future__ import annotations

import numpy as np
import pytest

import fluidc as paddle

from test_api_elementwise_more import both, data, run
from test_grad_check import GradCase, run_grad_check

paddle.enable_static()

NAN, INF = np.nan, np.inf
R = np.random.default_rng(7)


# --- unstack / diagonal / meshgrid / broadcast ---------------------------------------------------
@pytest.mark.parametrize("axis", [0, 1, -1, -3])
@pytest.mark.parametrize("dtype", ["float32", "int64"])
def test_unstack_matches_numpy(axis, dtype, rng):
    x = data(rng, (2, 3, 4), dtype)
    outs = both(lambda v: paddle.unstack(v["x"], axis=axis), {"x": x})
    expect = [np.take(x, i, axis) for i in range(x.shape[axis])]
    assert len(outs) == len(expect)
    for got, want in zip(outs, expect):
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("offset,axis1,axis2", [(0, 0, 1), (1, -1, 0), (-1, 1, 2), (2, 2, 1),
                                                (-5, 0, 2), (0, -2, -1)])
@pytest.mark.parametrize("dtype", ["float64", "int32", "bool"])
def test_diagonal_matches_numpy(offset, axis1, axis2, dtype, rng):
    x = data(rng, (2, 3, 4), "float64" if dtype == "bool" else dtype)
    x = x > 0 if dtype == "bool" else x
    out, = both(lambda v: [paddle.diagonal(v["x"], offset, axis1, axis2)], {"x": x})
    want = np.diagonal(x, offset, axis1, axis2)
    assert out.dtype == want.dtype and out.shape == want.shape
    np.testing.assert_array_equal(out, want)


def test_meshgrid_matches_numpy(rng):
    a, b, c = data(rng, (3,), "float32"), data(rng, (2,), "float32"), data(rng, (4,), "float32")
    outs = both(lambda v: paddle.meshgrid(v["a"], v["b"], v["c"]), {"a": a, "b": b, "c": c})
    for got, want in zip(outs, np.meshgrid(a, b, c, indexing="ij")):
        np.testing.assert_array_equal(got, want)
    outs = run(lambda v: paddle.meshgrid([v["a"], v["b"]]), {"a": a, "b": b})
    assert [o.shape for o in outs] == [(3, 2), (3, 2)]


def test_broadcast_shape_and_tensors(rng):
    assert paddle.broadcast_shape([2, 1, 3], [1, 4, 1]) == [2, 4, 3]  # Paddle 3.3.1
    assert paddle.broadcast_shape((5,), [3, 1]) == [3, 5]
    assert paddle.broadcast_shape([], [2]) == [2]
    x, y, z = data(rng, (2, 1), "float32"), data(rng, (3,), "float32"), rng.random((1, 1, 3)) > .5
    outs = both(lambda v: paddle.broadcast_tensors([v["x"], v["y"], v["z"]]),
                {"x": x, "y": y, "z": z})
    for got, want in zip(outs, np.broadcast_arrays(x, y, z)):
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)


def test_shape_apis_paddle_values():
    x = np.arange(24.).reshape(2, 3, 4).astype("float32")
    parts = run(lambda v: paddle.unstack(v["x"], 1), {"x": x})
    d1, d2 = run(lambda v: [paddle.diagonal(v["x"], offset=1, axis1=-1, axis2=0),
                            paddle.diagonal(v["x"], offset=-1, axis1=1, axis2=2)], {"x": x})
    a, b = run(lambda v: paddle.meshgrid(v["a"], v["b"]),
               {"a": np.array([1, 2, 3]), "b": np.array([4, 5])})
    # Paddle 3.3.1's unstack(x, 1)[2], diagonal(x, 1, -1, 0), diagonal(x, -1, 1, 2), meshgrid
    assert parts[2].tolist() == [[8.0, 9.0, 10.0, 11.0], [20.0, 21.0, 22.0, 23.0]]
    assert d1.tolist() == [[12.0], [16.0], [20.0]]
    assert d2.tolist() == [[4.0, 9.0], [16.0, 21.0]]
    assert a.tolist() == [[1, 1], [2, 2], [3, 3]] and b.tolist() == [[4, 5], [4, 5], [4, 5]]


# --- masked_fill / nan_to_num / nansum / lerp ----------------------------------------------------
@pytest.mark.parametrize("dtype", ["float32", "float64", "int32"])
def test_masked_fill_matches_numpy(dtype, rng):
    x, mask = data(rng, (3, 4), dtype), rng.random((4,)) > 0.5
    out, out_t = both(lambda v: [paddle.masked_fill(v["x"], v["m"], 7),
                                 paddle.masked_fill(v["x"], v["m"], v["val"])],
                      {"x": x, "m": mask, "val": np.array(-2, dtype)})
    np.testing.assert_array_equal(out, np.where(mask, np.array(7, dtype), x))
    np.testing.assert_array_equal(out_t, np.where(mask, np.array(-2, dtype), x))
    assert out.dtype == np.dtype(dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(2, 3), (7,)])
def test_nan_to_num_matches_numpy(dtype, shape, rng):
    x = data(rng, shape, dtype)
    x.reshape(-1)[:3] = [NAN, INF, -INF]
    d, c = both(lambda v: [paddle.nan_to_num(v["x"]),
                           paddle.nan_to_num(v["x"], 1.5, 100.0, -7.0)], {"x": x})
    np.testing.assert_array_equal(d, np.nan_to_num(x))
    np.testing.assert_array_equal(c, np.nan_to_num(x, nan=1.5, posinf=100.0, neginf=-7.0))
    assert d.dtype == np.dtype(dtype)


@pytest.mark.parametrize("axis,keepdim", [(None, False), (0, False), (-1, True), ([0, 1], False)])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64"])
def test_nansum_matches_numpy(axis, keepdim, dtype, rng):
    x = data(rng, (3, 4), dtype)
    if "float" in dtype:
        x[0, 1] = x[2, 3] = NAN
    out, = both(lambda v: [paddle.nansum(v["x"], axis=axis, keepdim=keepdim)], {"x": x})
    want = np.nansum(x, axis=None if axis is None else tuple(np.atleast_1d(axis)),
                     keepdims=keepdim)
    assert out.dtype == (np.int64 if "int" in dtype else np.dtype(dtype))
    np.testing.assert_allclose(out, want, rtol=1e-6)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_lerp_matches_numpy(dtype, rng):
    x, y, w = (data(rng, s, dtype) for s in ((2, 3), (3,), (2, 1)))
    a, b = both(lambda v: [paddle.lerp(v["x"], v["y"], 0.3), paddle.lerp(v["x"], v["y"], v["w"])],
                {"x": x, "y": y, "w": w})
    np.testing.assert_allclose(a, x + np.array(0.3, dtype) * (y - x), rtol=1e-6)
    np.testing.assert_allclose(b, x + w * (y - x), rtol=1e-6)


def test_elementwise_apis_paddle_values():
    s = np.array([1.5, -INF, NAN, INF], "float32")
    m, n1, n2, n64, ns, ns_int, l1, l2 = run(lambda v: [
        paddle.masked_fill(v["f"], v["mask"], 9.5), paddle.nan_to_num(v["s"]),
        paddle.nan_to_num(v["s"], 1.0, 2.0, -3.0), paddle.nan_to_num(v["s64"]),
        paddle.nansum(v["n"], axis=0), paddle.nansum(v["i"]),
        paddle.lerp(v["lx"], v["ly"], 0.25), paddle.lerp(v["lx"], v["ly"], v["lw"])],
        {"f": np.array([[1., 2.], [3., 4.]], "float32"), "mask": np.array([True, False]),
         "s": s, "s64": np.array([INF, -INF]), "n": np.array([[1., NAN], [2.5, 3.]], "float32"),
         "i": np.array([[1, 2], [3, 4]]), "lx": np.array([1., 2.], "float32"),
         "ly": np.array([5., 10.], "float32"), "lw": np.array([0.5, 2.0], "float32")})
    # Paddle 3.3.1's masked_fill, nan_to_num (float32, custom, float64), nansum, lerp
    assert m.tolist() == [[9.5, 2.0], [9.5, 4.0]]
    assert n1.tolist() == [1.5, -3.4028234663852886e+38, 0.0, 3.4028234663852886e+38]
    assert n2.tolist() == [1.5, -3.0, 1.0, 2.0]
    assert n64.tolist() == [1.7976931348623157e+308, -1.7976931348623157e+308]
    assert ns.tolist() == [3.5, 3.0] and ns_int.dtype == np.int64 and ns_int == 10
    assert l1.tolist() == [2.0, 4.0] and l2.tolist() == [3.0, 18.0]


# --- mv / inner ----------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_mv_and_inner_match_numpy(dtype, rng):
    m, vec = data(rng, (4, 3), dtype), data(rng, (3,), dtype)
    x, y, s = data(rng, (2, 3), dtype), data(rng, (4, 2, 3), dtype), np.array(1.5, dtype)
    a, b, c, d = both(lambda v: [paddle.mv(v["m"], v["vec"]), paddle.inner(v["x"], v["y"]),
                                 paddle.inner(v["x"], v["s"]), paddle.inner(v["vec"], v["vec"])],
                      {"m": m, "vec": vec, "x": x, "y": y, "s": s}, tol=1e-6)
    tol = 1e-5 if dtype == "float32" else 1e-12
    np.testing.assert_allclose(a, m @ vec, rtol=tol)
    np.testing.assert_allclose(b, np.inner(x, y), rtol=tol)
    np.testing.assert_allclose(c, x * s, rtol=tol)
    np.testing.assert_allclose(d, np.inner(vec, vec), rtol=tol)
    assert b.shape == (2, 4, 2)


def test_mv_and_inner_paddle_values():
    a, b = run(lambda v: [paddle.mv(v["m"], v["vec"]), paddle.inner(v["x"], v["y"])],
               {"m": np.array([[1., 2.], [3., 4.], [5., 6.]]), "vec": np.array([0.5, -1.]),
                "x": np.arange(6.).reshape(2, 3), "y": np.arange(12.).reshape(2, 2, 3)})
    # Paddle 3.3.1's mv and inner
    assert a.tolist() == [-1.5, -2.5, -3.5]
    assert b.tolist() == [[[5.0, 14.0], [23.0, 32.0]], [[14.0, 50.0], [86.0, 122.0]]]


# --- logical_xor / isclose / allclose / equal_all ------------------------------------------------
@pytest.mark.parametrize("dtype", ["bool", "int32", "float32"])
def test_logical_xor_matches_numpy(dtype, rng):
    x, y = rng.integers(0, 2, (3, 4)).astype(dtype), rng.integers(0, 3, (4,)).astype(dtype)
    out, = both(lambda v: [paddle.logical_xor(v["x"], v["y"])], {"x": x, "y": y})
    assert out.dtype == np.bool_
    np.testing.assert_array_equal(out, np.logical_xor(x, y))


CLOSE_X = np.array([1.0, INF, NAN, 1.0, 1e10, 0.0, -INF, 1.0, NAN, 2.0])
CLOSE_Y = np.array([1.00001, INF, NAN, INF, 1.00001e10, 1e-9, INF, 1.1, 1.0, -INF])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("rtol,atol,equal_nan", [(1e-5, 1e-8, False), (1e-2, 0.0, True),
                                                 (0.0, 0.2, False)])
def test_isclose_matches_paddle_rule(dtype, rtol, atol, equal_nan):
    x, y = CLOSE_X.astype(dtype), CLOSE_Y.astype(dtype)
    close, allc = both(lambda v: [paddle.isclose(v["x"], v["y"], rtol, atol, equal_nan),
                                  paddle.allclose(v["x"][:2], v["y"][:2], rtol, atol,
                                                  equal_nan)], {"x": x, "y": y})
    with np.errstate(invalid="ignore"):
        want = (x == y) | (np.abs(x - y) <= atol + rtol * np.abs(y))
    want |= equal_nan & np.isnan(x) & np.isnan(y)
    np.testing.assert_array_equal(close, want)
    assert allc.shape == () and allc.dtype == np.bool_ and allc == want[:2].all()


def test_equal_all_and_allclose_ints(rng):
    x = data(rng, (3, 4), "int64")
    y = x.copy()
    y[1, 2] += 1
    same, diff, shape, ints, f = both(lambda v: [
        paddle.equal_all(v["x"], v["x"]), paddle.equal_all(v["x"], v["y"]),
        paddle.equal_all(v["x"], v["row"]), paddle.allclose(v["x"], v["y"], 0.0, 1.0),
        paddle.equal_all(v["f"], v["f"])],
        {"x": x, "y": y, "row": x[:1], "f": np.array([1.0, NAN])})
    assert same and not diff and not shape and ints and not f  # NaN != NaN
    assert same.shape == () and same.dtype == np.bool_


def test_compare_apis_paddle_values():
    xor, xor_int, c, cn, a1, a2, e1, e2, e3 = run(lambda v: [
        paddle.logical_xor(v["b1"], v["b2"]), paddle.logical_xor(v["i1"], v["i2"]),
        paddle.isclose(v["x"], v["y"]), paddle.isclose(v["x"], v["y"], equal_nan=True),
        paddle.allclose(v["p"], v["q"]), paddle.allclose(v["n"], v["n"], equal_nan=True),
        paddle.equal_all(v["i1"], v["i1"]), paddle.equal_all(v["i1"], v["i2"]),
        paddle.equal_all(v["i1"], v["row"])],
        {"b1": np.array([True, False, True]), "b2": np.array([True, True, False]),
         "i1": np.array([0, 1, 2]), "i2": np.array([0, 0, 3]), "x": CLOSE_X[:7],
         "y": CLOSE_Y[:7], "p": np.array([1., 2.]), "q": np.array([1., 2.00001]),
         "n": np.array([1., NAN]), "row": np.array([[0, 1, 2]])})
    # Paddle 3.3.1's logical_xor (bool, int64), isclose, allclose and equal_all
    assert xor.tolist() == [False, True, True] and xor_int.tolist() == [False, True, False]
    assert c.tolist() == [True, True, False, True, True, True, True]
    assert cn.tolist() == [True] * 7
    assert a1 and a2 and e1 and not e2 and not e3


# --- cumprod / diff ------------------------------------------------------------------------------
@pytest.mark.parametrize("dim", [None, 0, 1, -1, -3])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64"])
def test_cumprod_matches_numpy(dim, dtype, rng):
    x = rng.integers(-3, 4, (2, 3, 4)).astype(dtype) if "int" in dtype else \
        rng.uniform(-2, 2, (2, 3, 4)).astype(dtype)
    out, = both(lambda v: [paddle.cumprod(v["x"], dim)], {"x": x})
    want = np.cumprod(x.reshape(-1) if dim is None else x, 0 if dim is None else dim, dtype=dtype)
    assert out.dtype == np.dtype(dtype)
    np.testing.assert_allclose(out, want, rtol=1e-6)


@pytest.mark.parametrize("n,axis", [(1, -1), (2, 1), (1, 0), (3, -1)])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "bool"])
def test_diff_matches_numpy(n, axis, dtype, rng):
    x = rng.random((3, 5)) > 0.5 if dtype == "bool" else data(rng, (3, 5), dtype)
    pre, app = x[:, :2] if axis else x[:1], x[:, :1] if axis else x[:2]
    a, b = both(lambda v: [paddle.diff(v["x"], n, axis),
                           paddle.diff(v["x"], n, axis, prepend=v["p"], append=v["a"])],
                {"x": x, "p": pre, "a": app})
    np.testing.assert_array_equal(a, np.diff(x, n, axis))
    np.testing.assert_array_equal(b, np.diff(x, n, axis, prepend=pre, append=app))
    assert a.dtype == x.dtype


def test_cumprod_and_diff_paddle_values():
    x = np.array([[1., 2., 0.], [3., -1., 2.]])
    y = np.array([[1., 4., 9., 16.], [2., 3., 5., 7.]])
    c1, c2, c3, ci, d1, d2, d3, dp, db = run(lambda v: [
        paddle.cumprod(v["x"], dim=1), paddle.cumprod(v["x"], -2), paddle.cumprod(v["x"]),
        paddle.cumprod(v["i"], 1), paddle.diff(v["y"]), paddle.diff(v["y"], n=2, axis=1),
        paddle.diff(v["y"], axis=0), paddle.diff(v["s"], prepend=v["p"], append=v["a"]),
        paddle.diff(v["b"])],
        {"x": x, "y": y, "i": np.array([[1, 2, 3]]), "s": np.array([1., 3., 6.]),
         "p": np.array([0.]), "a": np.array([10., 20.]), "b": np.array([True, True, False, True])})
    # Paddle 3.3.1's cumprod and diff
    assert c1.tolist() == [[1.0, 2.0, 0.0], [3.0, -3.0, -6.0]]
    assert c2.tolist() == [[1.0, 2.0, 0.0], [3.0, -2.0, 0.0]]
    assert c3.tolist() == [1.0, 2.0, 0.0, 0.0, -0.0, -0.0] and ci.tolist() == [[1, 2, 6]]
    assert d1.tolist() == [[3.0, 5.0, 7.0], [1.0, 2.0, 2.0]]
    assert d2.tolist() == [[2.0, 2.0], [1.0, 0.0]] and d3.tolist() == [[1.0, -1.0, -4.0, -9.0]]
    assert dp.tolist() == [1.0, 2.0, 3.0, 4.0, 10.0] and db.tolist() == [False, True, True]


# --- gradients -----------------------------------------------------------------------------------
def _finite_with_specials():
    x = R.uniform(-1, 1, (2, 4))
    x[0, 1], x[1, 2], x[1, 3] = NAN, INF, -INF
    return x


GRAD_CASES = {
    "unstack": GradCase(lambda v: paddle.unstack(v["x"], -1)[1], {"x": R.uniform(-1, 1, (2, 3))}),
    "diagonal": GradCase(lambda v: paddle.diagonal(v["x"], 1, -1, 0),
                         {"x": R.uniform(-1, 1, (3, 2, 4))}),
    "meshgrid": GradCase(lambda v: paddle.multiply(*paddle.meshgrid(v["x"], v["y"])),
                         {"x": R.uniform(-1, 1, (3,)), "y": R.uniform(-1, 1, (2,))},
                         wrt=("x", "y")),
    "broadcast_tensors": GradCase(lambda v: paddle.broadcast_tensors([v["x"], v["y"]])[0],
                                  {"x": R.uniform(-1, 1, (3, 1)), "y": R.uniform(-1, 1, (4,))},
                                  wrt=("x",)),
    "masked_fill": GradCase(lambda v: paddle.masked_fill(v["x"], v["m"], v["y"]),
                            {"x": R.uniform(-1, 1, (2, 3)), "m": np.array([True, False, True]),
                             "y": R.uniform(-1, 1, ())}, wrt=("x", "y")),
    "nansum": GradCase(lambda v: paddle.nansum(v["x"], axis=1), {"x": R.uniform(-1, 1, (3, 4))}),
    "lerp": GradCase(lambda v: paddle.lerp(v["x"], v["y"], v["w"]),
                     {"x": R.uniform(-1, 1, (2, 3)), "y": R.uniform(-1, 1, (3,)),
                      "w": R.uniform(0, 1, (2, 1))}, wrt=("x", "y", "w")),
    "mv": GradCase(lambda v: paddle.mv(v["x"], v["y"]),
                   {"x": R.uniform(-1, 1, (4, 3)), "y": R.uniform(-1, 1, (3,))}, wrt=("x", "y")),
    "inner": GradCase(lambda v: paddle.inner(v["x"], v["y"]),
                      {"x": R.uniform(-1, 1, (2, 3)), "y": R.uniform(-1, 1, (4, 3))},
                      wrt=("x", "y")),
    "cumprod": GradCase(lambda v: paddle.cumprod(v["x"], -2), {"x": R.uniform(-2, 2, (3, 4, 2))}),
    "cumprod_zeros": GradCase(lambda v: paddle.cumprod(v["x"], 0),
                              {"x": np.array([2., 0., 3., 0., -1.5])}),
    "diff": GradCase(lambda v: paddle.diff(v["x"], 2, 0, prepend=v["p"]),
                     {"x": R.uniform(-1, 1, (4, 3)), "p": R.uniform(-1, 1, (1, 3))},
                     wrt=("x", "p")),
}


@pytest.mark.parametrize("key", sorted(GRAD_CASES))
def test_gradients_match_finite_differences(key):
    run_grad_check(GRAD_CASES[key], key)


def test_nan_to_num_and_nansum_gradients_skip_specials():
    main = paddle.static.Program()
    with paddle.static.program_guard(main, paddle.static.Program()):
        x = paddle.static.data("x", [2, 4], "float64")
        x.stop_gradient = False
        loss = paddle.add(paddle.sum(paddle.nan_to_num(x)), paddle.nansum(x))
        paddle.static.append_backward(loss)
    exe = paddle.static.Executor(paddle.CPUPlace())
    xv = _finite_with_specials()
    g, = exe.run(main, feed={"x": xv}, fetch_list=["x@GRAD"])
    # nan_to_num passes the gradient where x is finite, nansum where x is not NaN (Paddle 3.3.1)
    np.testing.assert_array_equal(g, np.isfinite(xv) * 1.0 + ~np.isnan(xv))


# --- dygraph -------------------------------------------------------------------------------------
def test_dygraph_results_and_grads():
    paddle.disable_static()
    try:
        t = paddle.to_tensor
        x = np.arange(24.).reshape(2, 3, 4)
        assert [p.shape for p in paddle.unstack(t(x), -1)] == [[2, 3]] * 4
        np.testing.assert_array_equal(paddle.diagonal(t(x), 0, 1, 2).numpy(),
                                      np.diagonal(x, 0, 1, 2))
        assert [g.shape for g in paddle.meshgrid(t([1, 2]), t([3, 4, 5]))] == [[2, 3], [2, 3]]
        assert [b.shape for b in paddle.broadcast_tensors([t(np.ones((2, 1))),
                                                           t(np.ones(3))])] == [[2, 3], [2, 3]]
        assert paddle.masked_fill(t([1., 2.]), t([False, True]), 0.).numpy().tolist() == [1., 0.]
        assert paddle.nansum(t([1., NAN, 2.])).numpy() == 3.0
        assert paddle.logical_xor(t([True, False]), t([True, True])).numpy().tolist() == \
            [False, True]
        assert bool(paddle.allclose(t([1., 2.]), t([1., 2.])).numpy())
        assert not bool(paddle.equal_all(t([1, 2]), t([1, 3])).numpy())
        assert paddle.inner(t([1., 2.]), t([3., 4.])).numpy() == 11.0

        # Paddle 3.3.1's gradients: diagonal's scatter, nan_to_num's and nansum's masks, lerp's
        v = t(np.array([[1., 2., 3.], [4., 5., 6.], [7., 8., 9.]]), stop_gradient=False)
        (paddle.diagonal(v, 1) * t([2., 3.])).sum().backward()
        assert v.grad.numpy().tolist() == [[0.0, 2.0, 0.0], [0.0, 0.0, 3.0], [0.0, 0.0, 0.0]]
        v = t(np.array([1., NAN, INF, -2.]), stop_gradient=False)
        paddle.nan_to_num(v).sum().backward()
        assert v.grad.numpy().tolist() == [1.0, 0.0, 0.0, 1.0]
        v = t(np.array([1., NAN, 3.]), stop_gradient=False)
        paddle.nansum(v).backward()
        assert v.grad.numpy().tolist() == [1.0, 0.0, 1.0]
        v = t(np.array([1., 2.], "float32"), stop_gradient=False)
        paddle.lerp(v, t([5., 10.]), t(np.array([0.25, 0.5], "float32"))).sum().backward()
        assert v.grad.numpy().tolist() == [0.75, 0.5]
        v = t(np.array([2., 0., 3., 4.]), stop_gradient=False)
        paddle.cumprod(v, 0).sum().backward()
        assert v.grad.numpy().tolist() == [1.0, 32.0, 0.0, 0.0]
        v = t(np.array([2., 0., 3., 0.]), stop_gradient=False)
        paddle.cumprod(v, 0).sum().backward()
        assert v.grad.numpy().tolist() == [1.0, 8.0, 0.0, 0.0]
        v = t(np.array([1., 3., 6., 10.]), stop_gradient=False)
        (paddle.diff(v, n=2) * t([1., 2.])).sum().backward()
        assert v.grad.numpy().tolist() == [1.0, 0.0, -3.0, 2.0]
    finally:
        paddle.enable_static()


# --- errors --------------------------------------------------------------------------------------
def _var(shape, dtype, name="e"):
    return paddle.static.data(name, shape, dtype)


@pytest.mark.parametrize("call,error,match", [
    (lambda: paddle.unstack(_var([2, 3], "float32"), 2), ValueError, "out of range"),
    (lambda: paddle.unstack(_var([2, 3], "float32"), 0, num=3), ValueError, "num"),
    (lambda: paddle.diagonal(_var([3], "float32")), AssertionError, "at least 2-dimensional"),
    (lambda: paddle.diagonal(_var([2, 3], "float32"), 0, 0, -2), AssertionError, "same axis"),
    (lambda: paddle.diagonal(_var([2, 3], "float32"), 0, 0, 2), AssertionError, "out of range"),
    (lambda: paddle.diagonal(_var([2, 3], "complex64")), TypeError, "diagonal"),
    (lambda: paddle.meshgrid(_var([2, 2], "float32")), ValueError, "0-D or 1-D"),
    (lambda: paddle.meshgrid(_var([2], "float32"), _var([3], "int32", "f")), TypeError,
     "one dtype"),
    (lambda: paddle.broadcast_shape([2, 3], [4, 3]), ValueError, "Broadcast dimension mismatch"),
    (lambda: paddle.broadcast_tensors([_var([2, 3], "float32"), _var([4, 3], "float32", "f")]),
     ValueError, "mismatch"),
    (lambda: paddle.masked_fill(_var([2], "float32"), _var([2], "int32", "f"), 1.0), TypeError,
     "mask"),
    (lambda: paddle.nan_to_num(_var([2], "int32")), TypeError, "nan_to_num"),
    (lambda: paddle.nansum(_var([2], "bool")), TypeError, "nansum"),
    (lambda: paddle.lerp(_var([2], "float32"), _var([2], "float32", "f"), 1), TypeError, "weight"),
    (lambda: paddle.lerp(_var([2], "int32"), _var([2], "int32", "f"), 0.5), TypeError, "lerp"),
    (lambda: paddle.mv(_var([2, 3], "float32"), _var([2], "float32", "f")), ValueError,
     "second dimension"),
    (lambda: paddle.mv(_var([3], "float32"), _var([3], "float32", "f")), ValueError,
     "2 dimensional"),
    (lambda: paddle.inner(_var([2, 3], "float32"), _var([2, 4], "float32", "f")), ValueError,
     "last dim"),
    (lambda: paddle.logical_xor(_var([2], "complex64"), _var([2], "complex64", "f")), TypeError,
     "logical"),
    (lambda: paddle.isclose(_var([2], "int64"), _var([2], "int64", "f")), TypeError, "isclose"),
    (lambda: paddle.isclose(_var([2], "float32"), _var([2], "float32", "f"), rtol=1),
     TypeError, "rtol"),
    (lambda: paddle.isclose(_var([2], "float32"), _var([2], "float64", "f")), TypeError,
     "one dtype"),
    (lambda: paddle.allclose(_var([2], "float32"), _var([2], "float32", "f"), equal_nan=1),
     TypeError, "equal_nan"),
    (lambda: paddle.equal_all(_var([2], "float32"), _var([2], "int32", "f")), TypeError,
     "one dtype"),
    (lambda: paddle.cumprod(_var([2, 3], "float32"), 2), ValueError, "range"),
    (lambda: paddle.cumprod(_var([2], "bool"), 0), TypeError, "cumprod"),
    (lambda: paddle.diff(_var([3], "float32"), 0), ValueError, "positive"),
    (lambda: paddle.diff(_var([3], "float32"), 3), ValueError, "less than"),
    (lambda: paddle.diff(_var([3], "float32"), prepend=_var([1], "float64", "f")), TypeError,
     "prepend"),
])
def test_bad_input_errors(call, error, match):
    with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):
        with pytest.raises(error, match=match):
            call()
