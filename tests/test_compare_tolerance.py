"""equal / not_equal on floats as Paddle's EqualFunctor: values closer than 1e-15 are equal,
infinities equal only themselves, NaN nothing; the ordering comparisons stay exact. Checked
fused, unfused, on the numpy reference executor and in dygraph against what Paddle 3.3.1
gives for the same arrays (paddle.equal in dygraph and on a legacy static program)."""
import os
import sys

import numpy as np
import pytest

import fluidc as paddle

sys.path.insert(0, os.path.dirname(__file__))
from op_harness import fused_unfused_reference  # noqa: E402

X = [1.2e-15, 1.0, 1.0, 0.0, np.inf, np.nan, 5e-9, 2e-8, 0.0, 0.0, -np.inf, 3e38]
Y = [1.1e-15, 1.0 + 1e-9, 1.0 + 1e-7, 9e-9, np.inf, np.nan, 0.0, 0.0, 9.9e-16, 1.01e-15,
     -np.inf, -3e38]
# Paddle 3.3.1's paddle.equal of X and Y (1.0 + 1e-9 is 1.0 in float32; 3e38 - -3e38
# overflows float32 to inf, a float64 difference is finite but far from 0)
PADDLE_EQUAL = {"float32": [1, 1, 0, 0, 1, 0, 0, 0, 1, 0, 1, 0],
                "float64": [1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 0]}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_equal_and_not_equal_static(dtype):
    x, y = np.array(X, dtype), np.array(Y, dtype)
    main = paddle.static.Program()
    with paddle.static.program_guard(main, paddle.static.Program()):
        a = paddle.static.data("a", [len(X)], dtype)
        b = paddle.static.data("b", [len(X)], dtype)
        outs = [paddle.equal(a, b), paddle.not_equal(a, b), paddle.less_than(a, b),
                paddle.greater_equal(a, b)]
        runs = fused_unfused_reference(main, {"a": x, "b": y}, outs)
    want = np.array(PADDLE_EQUAL[dtype], bool)
    with np.errstate(invalid="ignore"):
        exact = [x < y, x >= y]
    for name, (eq, ne, lt, ge) in runs.items():
        np.testing.assert_array_equal(eq, want, err_msg=name)
        np.testing.assert_array_equal(ne, ~want, err_msg=name)
        np.testing.assert_array_equal(lt, exact[0], err_msg=name)
        np.testing.assert_array_equal(ge, exact[1], err_msg=name)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_equal_dygraph(dtype):
    paddle.disable_static()
    try:
        x = paddle.to_tensor(np.array(X, dtype))
        y = paddle.to_tensor(np.array(Y, dtype))
        np.testing.assert_array_equal(paddle.equal(x, y).numpy(),
                                      np.array(PADDLE_EQUAL[dtype], bool))
        np.testing.assert_array_equal((x != y).numpy(), ~np.array(PADDLE_EQUAL[dtype], bool))
    finally:
        paddle.enable_static()


def test_ints_compare_exactly():
    x = np.array([2 ** 62, -5, 7], "int64")
    y = np.array([2 ** 62 + 1, -5, 8], "int64")
    main = paddle.static.Program()
    with paddle.static.program_guard(main, paddle.static.Program()):
        a = paddle.static.data("a", [3], "int64")
        b = paddle.static.data("b", [3], "int64")
        runs = fused_unfused_reference(main, {"a": x, "b": y}, [paddle.equal(a, b)])
    for name, (eq,) in runs.items():
        np.testing.assert_array_equal(eq, [False, True, False], err_msg=name)
