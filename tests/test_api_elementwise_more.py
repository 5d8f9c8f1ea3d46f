"""paddle.isnan / isinf / isfinite / ceil / reciprocal / expand_as / broadcast_to / tile / mm /
bmm: static programs (fused and unfused) against numpy and Paddle 3.3.1's values, gradients
against finite differences, dygraph results, and Paddle's errors for bad input."""
from __future__ import annotations

import numpy as np
import pytest

import fluidc as paddle
import fluidc as fluid
from fluidc.frontend.layers.helper import ArgumentTypeError

from test_grad_check import GradCase, run_grad_check

paddle.enable_static()

NAN, INF = np.nan, np.inf
SPECIAL = np.array([[1.5, -INF, NAN], [0.25, -2.5, INF]])


def _strategy(fused: bool):
    s = fluid.BuildStrategy()
    s.fuse_all = fused
    return s


def run(build, feeds: dict, fused: bool = True) -> list[np.ndarray]:
    """Build a program whose data vars are `feeds` (name -> array; a -1 dim where the key's
    shape is given as (name, shape)), run it once through the default C executor."""
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        vs = {}
        for key, value in feeds.items():
            name, shape = key if isinstance(key, tuple) else (key, value.shape)
            vs[name] = paddle.static.data(name, list(shape), value.dtype.name)
        fetches = build(vs)
    exe = fluid.Executor(fluid.CPUPlace())
    with fluid.scope_guard(fluid.Scope()):
        exe.run(startup)
        program = fluid.CompiledProgram(main, build_strategy=_strategy(fused))
        feed = {(k[0] if isinstance(k, tuple) else k): v for k, v in feeds.items()}
        return exe.run(program, feed=feed, fetch_list=fetches)


def both(build, feeds: dict, tol: float = 0.0) -> list[np.ndarray]:
    """run() fused and unfused; the two must agree bit for bit (NaNs in the same places), or
    within tol (matrix products: the kernels may sum in different orders)."""
    fused, unfused = run(build, feeds, True), run(build, feeds, False)
    for a, b in zip(fused, unfused):
        np.testing.assert_allclose(a, b, rtol=tol, atol=tol) if tol else \
            np.testing.assert_array_equal(a, b)
    return fused


def data(rng, shape, dtype):
    return (rng.uniform(-3, 3, shape) * 10).astype(dtype) if "int" in dtype else \
        rng.uniform(-3, 3, shape).astype(dtype)


# --- isnan / isinf / isfinite -------------------------------------------------------------------
TESTS = {"isnan": np.isnan, "isinf": np.isinf, "isfinite": np.isfinite}


@pytest.mark.parametrize("fn", sorted(TESTS))
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
@pytest.mark.parametrize("shape", [(2, 3), (7,), (3, 1, 5)])
def test_float_tests_match_numpy(fn, dtype, shape, rng):
    x = data(rng, shape, dtype)
    flat = x.reshape(-1)
    flat[::3], flat[1::4], flat[2::5] = NAN, INF, -INF
    out, = both(lambda v: [getattr(paddle, fn)(v["x"])], {"x": x})
    assert out.dtype == np.bool_ and out.shape == shape
    np.testing.assert_array_equal(out, TESTS[fn](x))


@pytest.mark.parametrize("dtype", ["int32", "int64"])
def test_integers_are_finite(dtype, rng):
    x = data(rng, (3, 4), dtype)
    nan, inf, fin = both(lambda v: [paddle.isnan(v["x"]), paddle.isinf(v["x"]),
                                    paddle.isfinite(v["x"])], {"x": x})
    assert not nan.any() and not inf.any() and fin.all() and fin.dtype == np.bool_


def test_float_tests_paddle_values():
    nan, inf, fin = run(lambda v: [paddle.isnan(v["x"]), paddle.isinf(v["x"]),
                                   paddle.isfinite(v["x"])], {"x": SPECIAL.astype("float32")})
    # Paddle 3.3.1's paddle.isnan / isinf / isfinite of SPECIAL
    assert nan.tolist() == [[False, False, True], [False, False, False]]
    assert inf.tolist() == [[False, True, False], [False, False, True]]
    assert fin.tolist() == [[True, False, False], [True, True, False]]


# --- ceil / reciprocal ---------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(2, 3), (4, 1, 5)])
def test_ceil_and_reciprocal_match_numpy(dtype, shape, rng):
    x = data(rng, shape, dtype)
    x.reshape(-1)[:4] = [NAN, INF, -INF, -0.5]
    c, r = both(lambda v: [paddle.ceil(v["x"]), paddle.reciprocal(v["x"])], {"x": x})
    assert c.dtype == r.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(c, np.ceil(x))
    with np.errstate(divide="ignore"):
        np.testing.assert_allclose(r, 1 / x, rtol=1e-6 if dtype == "float32" else 1e-14)


def test_ceil_and_reciprocal_paddle_values():
    c, r = run(lambda v: [paddle.ceil(v["c"]), paddle.reciprocal(v["r"])],
               {"c": np.array([1.5, -0.5, -2.5, 2.0, 0.2, -1.7]),
                "r": np.array([2.0, -4.0, 0.5, 8.0], "float32")})
    # Paddle 3.3.1's ceil (float64; -0.5 -> -0.0) and reciprocal (float32)
    np.testing.assert_array_equal(c, [2.0, -0.0, -2.0, 2.0, 1.0, -1.0])
    assert np.signbit(c[1])
    np.testing.assert_array_equal(r, [0.5, -0.25, 2.0, 0.125])


def test_integer_ceil_is_identity_and_reciprocal_is_float32():
    x = np.array([[1, -1, 2], [3, 1, -4]], "int32")
    c, r = both(lambda v: [paddle.ceil(v["x"]), paddle.reciprocal(v["x"])], {"x": x})
    np.testing.assert_array_equal(c, x)
    assert c.dtype == np.int32
    # Paddle 3.3.1 (dygraph; its static int kernel is missing) casts ints to float32
    assert r.dtype == np.float32
    np.testing.assert_array_equal(r, np.array([[1.0, -1.0, 0.5], [0.3333333432674408, 1.0, -0.25]],
                                              "float32"))


# --- expand_as / broadcast_to / tile -------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["float32", "int64", "bool"])
@pytest.mark.parametrize("xs,ys", [((1, 3), (4, 3)), ((3,), (2, 2, 3)), ((2, 1, 4), (2, 5, 4)),
                                   ((2, 3), (2, 3))])
def test_expand_as_and_broadcast_to_match_numpy(xs, ys, dtype, rng):
    x, y = data(rng, xs, dtype), data(rng, ys, "float32")
    a, b = both(lambda v: [paddle.expand_as(v["x"], v["y"]), paddle.broadcast_to(v["x"], ys)],
                {"x": x, "y": y})
    np.testing.assert_array_equal(a, np.broadcast_to(x, ys))
    np.testing.assert_array_equal(b, np.broadcast_to(x, ys))


def test_expand_as_reads_unknown_dims_of_y_when_run(rng):
    x, y = data(rng, (1, 3), "float32"), data(rng, (5, 3), "float32")
    out, = run(lambda v: [paddle.expand_as(v["x"], v["y"])], {"x": x, ("y", (-1, 3)): y})
    np.testing.assert_array_equal(out, np.broadcast_to(x, (5, 3)))


def test_expand_as_and_broadcast_to_paddle_values():
    a, b = run(lambda v: [paddle.expand_as(v["x"], v["y"]), paddle.broadcast_to(v["z"], [2, 3])],
               {"x": np.array([[1., 2., 3.]], "float32"), "y": np.zeros((2, 2, 3), "float32"),
                "z": np.array([1, 2, 3], "int64")})
    # Paddle 3.3.1's expand_as to [2, 2, 3] and broadcast_to [2, 3]
    assert a.tolist() == [[[1.0, 2.0, 3.0], [1.0, 2.0, 3.0]], [[1.0, 2.0, 3.0], [1.0, 2.0, 3.0]]]
    assert b.tolist() == [[1, 2, 3], [1, 2, 3]]


@pytest.mark.parametrize("dtype", ["float64", "int32", "bool"])
@pytest.mark.parametrize("shape,reps", [((2, 3), [2, 1]), ((2, 3), [1, 1]), ((2, 3), (3,)),
                                        ((4,), [2, 1, 3]), ((2, 1, 3), [1, 4, 2]),
                                        ((3, 2), [2, 2])])
def test_tile_matches_numpy(shape, reps, dtype, rng):
    x = data(rng, shape, dtype)
    out, = both(lambda v: [paddle.tile(v["x"], reps)], {"x": x})
    np.testing.assert_array_equal(out, np.tile(x, reps))


@pytest.mark.parametrize("reps", [[1, 2], [3, 1], [2, 2], [1, 1]])
def test_tile_with_an_unknown_batch_dim(reps, rng):
    x = data(rng, (4, 3), "float32")
    out, = run(lambda v: [paddle.tile(v["x"], reps)], {("x", (-1, 3)): x})
    np.testing.assert_array_equal(out, np.tile(x, reps))


def test_tile_refuses_two_unknown_dims_it_would_have_to_infer():
    with pytest.raises(ValueError, match="more than one dim unknown"):
        paddle.tile(_var([-1, -1], "float32"), [2, 2])


def test_tile_paddle_values():
    x = np.array([[1, 2], [3, 4]], "int32")
    a, b = run(lambda v: [paddle.tile(v["x"], [2, 1, 2]), paddle.tile(v["x"], [3])], {"x": x})
    # Paddle 3.3.1's tile
    assert a.tolist() == [[[1, 2, 1, 2], [3, 4, 3, 4]], [[1, 2, 1, 2], [3, 4, 3, 4]]]
    assert b.tolist() == [[1, 2, 1, 2, 1, 2], [3, 4, 3, 4, 3, 4]]


# --- mm / bmm ------------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype,tol", [("float32", 1e-5), ("float64", 1e-12)])
@pytest.mark.parametrize("xs,ys", [((3, 4), (4, 5)), ((1, 7), (7, 1)), ((2, 3, 4), (2, 4, 6)),
                                   ((4,), (4, 3))])
def test_mm_matches_numpy(xs, ys, dtype, tol, rng):
    x, y = data(rng, xs, dtype), data(rng, ys, dtype)
    out, = both(lambda v: [paddle.mm(v["x"], v["y"])], {"x": x, "y": y}, tol)
    np.testing.assert_allclose(out, x @ y, rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype,tol", [("float32", 1e-5), ("float64", 1e-12)])
@pytest.mark.parametrize("b,m,k,n", [(1, 1, 1, 1), (3, 2, 5, 4), (2, 16, 9, 17)])
def test_bmm_matches_numpy(b, m, k, n, dtype, tol, rng):
    x, y = data(rng, (b, m, k), dtype), data(rng, (b, k, n), dtype)
    out, = both(lambda v: [paddle.bmm(v["x"], v["y"])], {"x": x, "y": y}, tol)
    np.testing.assert_allclose(out, x @ y, rtol=tol, atol=tol)


def test_mm_and_bmm_paddle_values():
    mm, bmm = run(lambda v: [paddle.mm(v["a"], v["b"]), paddle.bmm(v["c"], v["d"])],
                  {"a": np.array([[1., 2.], [3., 4.], [5., 6.]], "float32"),
                   "b": np.array([[1., 0., -1.], [2., 1., 0.5]], "float32"),
                   "c": np.arange(12, dtype="float64").reshape(2, 2, 3),
                   "d": np.arange(12, dtype="float64").reshape(2, 3, 2) - 5})
    # Paddle 3.3.1's mm and bmm
    assert mm.tolist() == [[5.0, 2.0, 0.0], [11.0, 4.0, -1.0], [17.0, 6.0, -2.0]]
    assert bmm.tolist() == [[[-5.0, -2.0], [-32.0, -20.0]], [[67.0, 88.0], [94.0, 124.0]]]


# --- gradients (float64, central differences) ---------------------------------------------------
R = np.random.default_rng(7)


def _away0(*shape):
    return R.uniform(0.4, 2.0, shape) * R.choice([-1.0, 1.0], shape)


GRAD_CASES = {
    "reciprocal": GradCase(lambda v: paddle.reciprocal(v["x"]), {"x": _away0(2, 3)}),
    # off the integers, ceil is flat
    "ceil": GradCase(lambda v: paddle.ceil(v["x"]), {"x": R.uniform(0.1, 0.9, (2, 3)) +
                                                      R.integers(-3, 3, (2, 3))}),
    "expand_as": GradCase(lambda v: paddle.expand_as(v["x"], v["y"]),
                          {"x": R.uniform(-1, 1, (3, 1)), "y": R.uniform(-1, 1, (2, 3, 4))}),
    "broadcast_to": GradCase(lambda v: paddle.broadcast_to(v["x"], [2, 3, 4]),
                             {"x": R.uniform(-1, 1, (1, 4))}),
    "tile": GradCase(lambda v: paddle.tile(v["x"], [2, 1, 3]), {"x": R.uniform(-1, 1, (2, 3))}),
    "tile_short_reps": GradCase(lambda v: paddle.tile(v["x"], [2]),
                                {"x": R.uniform(-1, 1, (2, 3))}),
    "mm": GradCase(lambda v: paddle.mm(v["x"], v["y"]),
                   {"x": R.uniform(-1, 1, (3, 4)), "y": R.uniform(-1, 1, (4, 2))},
                   wrt=("x", "y")),
    "bmm": GradCase(lambda v: paddle.bmm(v["x"], v["y"]),
                    {"x": R.uniform(-1, 1, (2, 3, 4)), "y": R.uniform(-1, 1, (2, 4, 2))},
                    wrt=("x", "y")),
}


@pytest.mark.parametrize("key", sorted(GRAD_CASES))
def test_gradients_match_finite_differences(key):
    run_grad_check(GRAD_CASES[key], key)


# --- dygraph -------------------------------------------------------------------------------------
def test_dygraph_results_and_grads():
    paddle.disable_static()
    t = paddle.to_tensor
    x = t(SPECIAL.astype("float32"))
    np.testing.assert_array_equal(paddle.isnan(x).numpy(), np.isnan(SPECIAL))
    np.testing.assert_array_equal(paddle.isinf(x).numpy(), np.isinf(SPECIAL))
    np.testing.assert_array_equal(paddle.isfinite(x).numpy(), np.isfinite(SPECIAL))
    np.testing.assert_array_equal(paddle.ceil(x).numpy(), np.ceil(SPECIAL).astype("float32"))
    i = np.array([[1, 2], [3, 4]], "int32")
    np.testing.assert_array_equal(paddle.tile(t(i), [2, 1, 2]).numpy(), np.tile(i, [2, 1, 2]))
    assert paddle.expand_as(t(np.ones((1, 3))), t(np.zeros((2, 2, 3)))).shape == [2, 2, 3]
    np.testing.assert_array_equal(paddle.broadcast_to(t(np.array([1, 2, 3])), [2, 3]).numpy(),
                                  [[1, 2, 3], [1, 2, 3]])
    a, b = np.ones((2, 3), "float32"), np.ones((3, 4), "float32")
    np.testing.assert_array_equal(paddle.mm(t(a), t(b)).numpy(), a @ b)
    np.testing.assert_array_equal(paddle.bmm(t(a[None]), t(b[None])).numpy(), (a @ b)[None])

    # Paddle 3.3.1's gradients: reciprocal's -dOut / x^2, ceil's zeros, tile's and expand_as's sums
    v = t(np.array([0.5, -2.0, 4.0]), stop_gradient=False)
    paddle.reciprocal(v).backward(t(np.array([1.0, 2.0, 3.0])))
    assert v.grad.numpy().tolist() == [-4.0, -0.5, -0.1875]
    v = t(np.array([0.5, -2.3, 4.0]), stop_gradient=False)
    paddle.ceil(v).sum().backward()
    assert v.grad.numpy().tolist() == [0.0, 0.0, 0.0]
    v = t(np.array([[1., 2.], [3., 4.]]), stop_gradient=False)
    paddle.tile(v, [2, 3]).sum().backward()
    assert v.grad.numpy().tolist() == [[6.0, 6.0], [6.0, 6.0]]
    v = t(np.array([[1., 2., 3.]]), stop_gradient=False)
    (paddle.expand_as(v, t(np.zeros((4, 3)))) * t(np.arange(12.).reshape(4, 3))).sum().backward()
    assert v.grad.numpy().tolist() == [[18.0, 22.0, 26.0]]


# --- errors --------------------------------------------------------------------------------------
def _var(shape, dtype, name="e"):
    return paddle.static.data(name, shape, dtype)


@pytest.mark.parametrize("call", [
    lambda: paddle.isnan(_var([2], "bool")),
    lambda: paddle.isinf(_var([2], "int8")),
    lambda: paddle.isfinite(_var([2], "complex64")),
    lambda: paddle.ceil(_var([2], "bool")),
    lambda: paddle.reciprocal(_var([2], "bool")),
    lambda: paddle.mm(_var([2, 3], "int32"), _var([3, 2], "int32", "f")),
    lambda: paddle.bmm(_var([2, 2, 3], "int32"), _var([2, 3, 2], "int32", "f")),
    lambda: paddle.tile(_var([2, 3], "int8"), [2]),
    lambda: paddle.tile(_var([2, 3], "float32"), 2),
    lambda: paddle.tile(_var([2, 3], "float32"), [2.0]),
    lambda: paddle.expand_as(_var([2, 3], "int8"), _var([2, 3], "int8", "f")),
    lambda: paddle.expand_as(_var([2, 3], "float32"), np.zeros((2, 3))),
    lambda: paddle.broadcast_to(_var([2, 3], "int8"), [2, 3]),
    lambda: paddle.isnan(np.zeros(3)),
])
def test_bad_types_raise_type_error(call):
    with pytest.raises(TypeError):
        call()


def test_type_errors_name_the_layer_and_dtype():
    with pytest.raises(ArgumentTypeError, match="'x' in reciprocal .* received bool"):
        paddle.reciprocal(_var([2], "bool"))


@pytest.mark.parametrize("call,match", [
    (lambda: paddle.mm(_var([2, 3], "float32"), _var([2, 2], "float32", "f")), "width"),
    (lambda: paddle.mm(_var([2, 2, 3], "float32"), _var([3, 3, 2], "float32", "f")), "batch"),
    (lambda: paddle.bmm(_var([2, 3], "float32"), _var([3, 2], "float32", "f")), "3-D"),
    (lambda: paddle.bmm(_var([2, 2, 3], "float32"), _var([2, 2, 2], "float32", "f")), "width"),
    (lambda: paddle.bmm(_var([2, 2, 3], "float32"), _var([3, 3, 2], "float32", "f")), "batch"),
    (lambda: paddle.tile(_var([2, 3], "float32"), [2, 0]), "positive"),
    (lambda: paddle.expand_as(_var([2, 3], "float32"), _var([3], "float32", "f")), "rank"),
])
def test_bad_values_raise_value_error(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_bool_input_needs_stop_gradient():
    x = _var([2], "bool")
    x.stop_gradient = False
    with pytest.raises(ValueError, match="stop_gradient"):
        paddle.tile(x, [2])
    with pytest.raises(ValueError, match="stop_gradient"):
        paddle.expand_as(x, _var([3, 2], "float32", "f"))
