"""paddle.tril / triu (tril_triu), gather_nd, index_select, roll, eye, diag (diag_v2), trace
and kron: static results against
numpy and Paddle 3.3.1's numbers, the reference executor and compiled runs agreeing, grads
against finite differences, dygraph, and Paddle's errors for bad input."""
import numpy as np
import pytest

import fluidc as paddle
from fluidc.frontend.errors import IndexRangeError, ShapeError

from test_grad_check import GradCase, op, run_grad_check, u
from test_random_control_flow import assert_reference_and_compiled_give

X = np.arange(12, dtype="float32").reshape(3, 4) - 5
Y = np.array([[1, -2], [3, 0.5]], "float32")


def _static(build, feed, grad=False):
    """(program, fetch names): build(vars) -> out, plus x@GRAD of sum(out * w) when grad."""
    main = paddle.static.Program()
    with paddle.static.program_guard(main, paddle.static.Program()):
        vs = {k: paddle.static.data(k, v.shape, str(v.dtype)) for k, v in feed.items()}
        vs["x"].stop_gradient = not grad
        out = build(vs)
        names = [out.name]
        if grad:
            w = paddle.static.data("w", out.shape, "float32")
            paddle.static.append_backward(paddle.sum(out * w))
            names.append("x@GRAD")
    return main, names


def _w(shape):
    return np.arange(int(np.prod(shape)), dtype="float32").reshape(shape)


# Paddle 3.3.1's outputs and x grads (w = arange(out.size)) for X = arange(12).reshape(3, 4) - 5
PADDLE_CASES = {
    "tril-1": (lambda v: paddle.tril(v["x"], -1), {},
               [[0, 0, 0, 0], [-1, 0, 0, 0], [3, 4, 0, 0]],
               [[0, 0, 0, 0], [4, 0, 0, 0], [8, 9, 0, 0]]),
    "triu1": (lambda v: paddle.triu(v["x"], 1), {},
              [[0, -4, -3, -2], [0, 0, 1, 2], [0, 0, 0, 6]],
              [[0, 1, 2, 3], [0, 0, 6, 7], [0, 0, 0, 11]]),
    "gather_nd_neg": (lambda v: paddle.gather_nd(v["x"], v["i"]),
                      {"i": np.array([[1, 2], [0, -1], [2, 3]], "int64")}, [1, -2, 6],
                      [[0, 0, 0, 1], [0, 0, 0, 0], [0, 0, 0, 2]]),
    "gather_nd_k1": (lambda v: paddle.gather_nd(v["x"], v["i"]),
                     {"i": np.array([[2], [0], [2]], "int32")},
                     [[3, 4, 5, 6], [-5, -4, -3, -2], [3, 4, 5, 6]],
                     [[4, 5, 6, 7], [0, 0, 0, 0], [8, 10, 12, 14]]),
    "index_select": (lambda v: paddle.index_select(v["x"], v["i"], axis=-1),
                     {"i": np.array([3, 0, 3], "int64")},
                     [[-2, -5, -2], [2, -1, 2], [6, 3, 6]],
                     [[1, 0, 0, 2], [4, 0, 0, 8], [7, 0, 0, 14]]),
    "roll": (lambda v: paddle.roll(v["x"], [1, -1], [0, 1]), {},
             [[4, 5, 6, 3], [-4, -3, -2, -5], [0, 1, 2, -1]],
             [[7, 4, 5, 6], [11, 8, 9, 10], [3, 0, 1, 2]]),
    "roll_flat": (lambda v: paddle.roll(v["x"], 5), {},
                  [[2, 3, 4, 5], [6, -5, -4, -3], [-2, -1, 0, 1]],
                  [[5, 6, 7, 8], [9, 10, 11, 0], [1, 2, 3, 4]]),
    "trace_3d": (lambda v: paddle.trace(paddle.reshape(v["x"], [3, 2, 2]), -1, -1, 0), {},
                 [-4, -2], [[0, 0, 0, 1], [0, 0, 0, 0], [0, 0, 0, 0]]),
    "trace_2d": (lambda v: paddle.trace(v["x"], 1), {}, 3, np.zeros((3, 4))),
    "kron": (lambda v: paddle.kron(v["x"][:2, :3], v["y"]), {"y": Y},
             [[-5, 10, -4, 8, -3, 6], [-15, -2.5, -12, -2, -9, -1.5], [-1, 2, 0, 0, 1, -2],
              [-3, -0.5, 0, 0, 3, 0.5]],
             [[19.5, 24.5, 29.5, 0], [49.5, 54.5, 59.5, 0], [0, 0, 0, 0]]),
    "kron_ranks": (lambda v: paddle.kron(v["x"][0, :3], v["y"]), {"y": Y},
                   [[-5, 10, -4, 8, -3, 6], [-15, -2.5, -12, -2, -9, -1.5]],
                   [[19.5, 24.5, 29.5, 0], [0, 0, 0, 0], [0, 0, 0, 0]]),
    # paddle.diag's result is stop_gradient in static mode: outputs only (grads: dygraph below)
    "diag_1d": (lambda v: paddle.diag(v["x"][0], 1, 7), {},
                [[7, -5, 7, 7, 7], [7, 7, -4, 7, 7], [7, 7, 7, -3, 7], [7, 7, 7, 7, -2],
                 [7, 7, 7, 7, 7]], None),
    "diag_1d_neg": (lambda v: paddle.diag(v["x"][0], -2), {},
                    np.diag([-5, -4, -3, -2.0], -2), None),
    "diag_2d": (lambda v: paddle.diag(v["x"], 1), {}, [-4, 1, 6], None),
    "diag_2d_neg": (lambda v: paddle.diag(v["x"], -1), {}, [-1, 4], None),
    "diag_2d_far": (lambda v: paddle.diag(v["x"], 5), {}, np.zeros(0), None),
    "eye": (lambda v: paddle.eye(2, 3, "int32"), {}, [[1, 0, 0], [0, 1, 0]], None),
}


@pytest.mark.parametrize("case", list(PADDLE_CASES))
def test_paddles_outputs_and_grads(case):
    build, extra, out, dx = PADDLE_CASES[case]
    out = np.array(out, "float32")
    program, names = _static(build, {"x": X, **extra}, grad=dx is not None)
    feed = {"x": X, **extra, **({} if dx is None else {"w": _w(out.shape)})}
    want = [out] + ([] if dx is None else [np.array(dx, "float32")])
    assert_reference_and_compiled_give(program, feed, names, want)


R = np.random.default_rng(7)
NUMPY_CASES = {
    "tril_3d_f64": (lambda v: paddle.tril(v["x"], 2), R.normal(size=(2, 3, 5)), {},
                    lambda x: np.tril(x, 2)),
    "triu_int64_neg": (lambda v: paddle.triu(v["x"], -1), R.integers(-9, 9, (4, 3)), {},
                       lambda x: np.triu(x, -1)),
    "tril_bool": (lambda v: paddle.tril(v["x"]), R.normal(size=(3, 3)) > 0, {},
                  lambda x: np.tril(x)),
    "gather_nd_full": (lambda v: paddle.gather_nd(v["x"], v["i"]), R.normal(size=(2, 3, 4)),
                       {"i": np.array([[[1, 2, -4]], [[0, 0, 3]]], "int64")},
                       lambda x: x[[1, 0], [2, 0], [0, 3]].reshape(2, 1)),
    "gather_nd_k0": (lambda v: paddle.gather_nd(v["x"], v["i"]), R.normal(size=(2, 3)),
                     {"i": np.zeros((2, 0), "int32")}, lambda x: np.stack([x, x])),
    "index_select_int32": (lambda v: paddle.index_select(v["x"], v["i"], 1),
                           R.integers(0, 9, (2, 5, 3)).astype("int32"),
                           {"i": np.array([4, -5, 2, 2], "int32")},
                           lambda x: x[:, [4, 0, 2, 2]]),
    "roll_3d_neg": (lambda v: paddle.roll(v["x"], (7, -2), (-1, 0)), R.normal(size=(3, 2, 4)),
                    {}, lambda x: np.roll(x, (7, -2), (-1, 0))),
    "roll_int64": (lambda v: paddle.roll(v["x"], -13), R.integers(0, 9, (3, 4)), {},
                   lambda x: np.roll(x, -13)),
    "eye_f64": (lambda v: paddle.eye(4, 2, "float64") + v["x"], np.zeros((4, 2)), {},
                lambda x: np.eye(4, 2)),
    "diag_int64_pad": (lambda v: paddle.diag(v["x"], -1, 9), R.integers(0, 5, 3), {},
                       lambda x: np.diag(x, -1) + 9 * (1 - np.eye(4, k=-1, dtype="int64"))),
    "diag_2d_tall": (lambda v: paddle.diag(v["x"], -2), R.normal(size=(5, 3)), {},
                     lambda x: np.diagonal(x, -2)),
    "trace_4d_int64": (lambda v: paddle.trace(v["x"], 1, 3, -3), R.integers(-9, 9, (2, 3, 4, 5)),
                       {}, lambda x: np.trace(x, 1, 3, 1)),
    "kron_3d_2d_f64": (lambda v: paddle.kron(v["x"], v["y"]), R.normal(size=(2, 1, 3)),
                       {"y": R.normal(size=(3, 2))}, None),
}


@pytest.mark.parametrize("case", list(NUMPY_CASES))
def test_static_results_match_numpy(case):
    build, x, extra, want = NUMPY_CASES[case]
    program, names = _static(build, {"x": x, **extra})
    want = np.kron(x, extra["y"]) if want is None else want(x)
    assert_reference_and_compiled_give(program, {"x": x, **extra}, names, [want])
    got = paddle.static.Executor(paddle.CPUPlace()).run(program, feed={"x": x, **extra},
                                                        fetch_list=names)[0]
    assert got.dtype == want.dtype and got.shape == want.shape


def _i64(*rows):
    return np.array(rows, "int64")


GRAD_CASES = {
    "tril": GradCase(lambda v: op("tril_triu", {"diagonal": 1, "lower": True}, X=v["x"]),
                     {"x": u(2, 3, 4)}),
    "triu": GradCase(lambda v: op("tril_triu", {"diagonal": -1, "lower": False}, X=v["x"]),
                     {"x": u(4, 3)}),
    "gather_nd": GradCase(lambda v: op("gather_nd", X=v["x"], Index=v["i"]),
                          {"x": u(3, 2, 2), "i": _i64([0, 1], [2, -1], [0, 1])}),
    "index_select": GradCase(lambda v: op("index_select", {"dim": -1}, X=v["x"], Index=v["i"]),
                             {"x": u(2, 3), "i": np.array([2, 0, 2, -1], "int64")}),
    "roll": GradCase(lambda v: op("roll", {"shifts": [2, -1], "axis": [1, 0]}, X=v["x"]),
                     {"x": u(3, 4)}),
    "roll_flat": GradCase(lambda v: op("roll", {"shifts": [3], "axis": []}, X=v["x"]),
                          {"x": u(2, 3)}),
    "diag_1d": GradCase(lambda v: op("diag_v2", {"offset": -1, "padding_value": 2.0}, X=v["x"]),
                        {"x": u(3)}),
    "diag_2d": GradCase(lambda v: op("diag_v2", {"offset": 1}, X=v["x"]), {"x": u(3, 4)}),
    "trace": GradCase(lambda v: op("trace", {"offset": -1, "axis1": 2, "axis2": 0},
                                   Input=v["x"]), {"x": u(3, 2, 4)}),
    "kron": GradCase(lambda v: op("kron", X=v["x"], Y=v["y"]), {"x": u(2, 3), "y": u(2, 1, 2)},
                     wrt=("x", "y")),
}


@pytest.mark.parametrize("key", list(GRAD_CASES))
def test_grad_matches_finite_differences(key):
    run_grad_check(GRAD_CASES[key], key)


def test_dygraph_gives_the_static_results_and_grads():
    paddle.disable_static()
    try:
        x = paddle.to_tensor(X)
        x.stop_gradient = False
        i = paddle.to_tensor(np.array([[1, 2], [0, -1], [2, 3]], "int64"))
        outs = [paddle.tril(x, -1), paddle.triu(x, 1), paddle.gather_nd(x, i),
                paddle.index_select(x, paddle.to_tensor(np.array([3, 0, 3])), -1),
                paddle.roll(x, [1, -1], [0, 1])]
        for case, got in zip(["tril-1", "triu1", "gather_nd_neg", "index_select", "roll"], outs):
            np.testing.assert_array_equal(got.numpy(), np.array(PADDLE_CASES[case][2], "float32"))
        (outs[2] * paddle.to_tensor(_w([3]))).sum().backward()
        np.testing.assert_array_equal(x.grad.numpy(), PADDLE_CASES["gather_nd_neg"][3])
        # Paddle 3.3.1's dygraph diag grads (w = arange(out.size))
        for x_value, offset, want_out, want_dx in [
                (X[0], 1, PADDLE_CASES["diag_1d"][2], [1, 7, 13, 19]),
                (X, 1, PADDLE_CASES["diag_2d"][2], [[0, 0, 0, 0], [0, 0, 1, 0], [0, 0, 0, 2]])]:
            x = paddle.to_tensor(x_value)
            x.stop_gradient = False
            out = paddle.diag(x, offset, 7)
            np.testing.assert_array_equal(out.numpy(), np.array(want_out, "float32"))
            (out * paddle.to_tensor(_w(out.shape))).sum().backward()
            np.testing.assert_array_equal(x.grad.numpy(), np.array(want_dx, "float32"))
        np.testing.assert_array_equal(paddle.eye(3, dtype="int64").numpy(), np.eye(3))
        np.testing.assert_array_equal(paddle.trace(paddle.to_tensor(X), 1).numpy(), 3.0)
        np.testing.assert_array_equal(paddle.kron(paddle.to_tensor(Y), paddle.to_tensor(Y)).numpy(),
                                      np.kron(Y, Y))
    finally:
        paddle.enable_static()


@pytest.mark.parametrize("index, value", [([[3, 0]], 3), ([[-4, 0]], -4), ([[0, 4]], 4)])
def test_gather_nd_refuses_an_out_of_range_index_when_run(index, value):
    program, names = _static(lambda v: paddle.gather_nd(v["x"], v["i"]),
                             {"x": X, "i": _i64(*index)})
    with pytest.raises(IndexRangeError, match=f"value {value}"):
        paddle.static.Executor(paddle.CPUPlace()).run(
            program, feed={"x": X, "i": _i64(*index)}, fetch_list=names)


@pytest.mark.parametrize("index", [[3], [-4]])
def test_index_select_refuses_an_out_of_range_index_when_run(index):
    program, names = _static(lambda v: paddle.index_select(v["x"], v["i"]),
                             {"x": X, "i": _i64(*index)})
    with pytest.raises(IndexError):
        paddle.static.Executor(paddle.CPUPlace()).run(
            program, feed={"x": X, "i": _i64(*index)}, fetch_list=names)


def _build_error(build, feed):
    with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):
        build({k: paddle.static.data(k, v.shape, str(v.dtype)) for k, v in feed.items()})


@pytest.mark.parametrize("build, feed, error, message", [
    (lambda v: paddle.tril(v["x"]), {"x": X[0]}, ValueError, "at least 2-D"),
    (lambda v: paddle.triu(v["x"], 1.0), {"x": X}, TypeError, "python Int"),
    (lambda v: paddle.tril(v["x"]), {"x": X.astype("int8")}, TypeError, "tril"),
    (lambda v: paddle.gather_nd(v["x"], v["i"]), {"x": X, "i": np.zeros((1, 3), "int64")},
     ShapeError, "no greater than"),
    (lambda v: paddle.gather_nd(v["x"], v["i"]), {"x": X, "i": np.zeros((1, 1), "float32")},
     TypeError, "index"),
    (lambda v: paddle.index_select(v["x"], v["i"], 2), {"x": X, "i": np.zeros(1, "int64")},
     ShapeError, "out of range"),
    (lambda v: paddle.index_select(v["x"], v["i"]), {"x": X, "i": np.zeros((2, 2), "int64")},
     ShapeError, "1-D"),
    (lambda v: paddle.roll(v["x"], [1, 2], 0), {"x": X}, ShapeError, "same length"),
    (lambda v: paddle.roll(v["x"], [1, 2]), {"x": X}, ShapeError, "one value"),
    (lambda v: paddle.roll(v["x"], 1, 2), {"x": X}, ValueError, "out of range"),
    (lambda v: paddle.eye(-1), {}, TypeError, "non-negative int"),
    (lambda v: paddle.eye(2, dtype="bool"), {}, TypeError, "eye"),
    (lambda v: paddle.diag(v["x"]), {"x": X.reshape(3, 2, 2)}, ValueError, "either 1 or 2"),
    (lambda v: paddle.trace(v["x"]), {"x": X[0]}, AssertionError, "at least 2-dimensional"),
    (lambda v: paddle.trace(v["x"], 0, 1, -1), {"x": X}, AssertionError, "same axis"),
    (lambda v: paddle.trace(v["x"], 0, 2), {"x": X}, AssertionError, "out of range"),
    (lambda v: paddle.trace(v["x"]), {"x": X > 0}, TypeError, "trace"),
    (lambda v: paddle.kron(v["x"], v["y"]), {"x": X > 0, "y": X > 0}, TypeError, "kron"),
    (lambda v: paddle.kron(v["x"], v["y"]), {"x": X, "y": Y.astype("float64")}, ValueError,
     "one dtype"),
])
def test_paddles_errors_for_bad_input(build, feed, error, message):
    with pytest.raises(error, match=message):
        _build_error(build, feed)
