"""Eager gradients of int tensors (passes/int_grads.py) give Paddle 3.3.1's eager numbers
(tests/fixtures/paddle/int_grads.npz, from make_int_grad_fixtures.py over int_grad_cases.py):
integer arithmetic through elementwise ops, reshapes, slices, gathers, sums, means, clip and
casts both ways. Ops outside the set, and static programs, still stop int gradients; an int
gradient with several contributions is Paddle's NotImplementedError. Integer means round
toward zero (static, compiled and reference, and eager)."""
import os
import sys

import numpy as np
import pytest

import fluidc as paddle
from op_harness import fused_unfused_reference

FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures")
sys.path.insert(0, FIXTURES)
from int_grad_cases import CASES, DTYPES, inputs, run  # noqa: E402

REF = np.load(os.path.join(FIXTURES, "paddle", "int_grads.npz"))


@pytest.fixture
def eager():
    paddle.disable_static()
    yield
    paddle.enable_static()


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", sorted(CASES))
def test_int_gradients_match_paddle_eager(eager, name, dtype):
    for k, got in run(paddle, name, dtype).items():
        want = REF[f"{name}/{dtype}/{k}"]
        assert (got.dtype, got.shape) == (want.dtype, want.shape), k
        if want.dtype.kind == "f":
            np.testing.assert_allclose(got, want, rtol=1e-6, err_msg=k)
        else:
            np.testing.assert_array_equal(got, want, err_msg=k)


def test_remainder_int_gradient_is_numpys_floor_rule(eager):
    x, y = inputs("remainder", "int64")
    tx, ty = (paddle.to_tensor(a, stop_gradient=False) for a in (x, y))
    v = np.arange(2 * 3 * 4 * 5, dtype="int64").reshape(2, 3, 4, 5) - 60
    dx, dy = paddle.grad(paddle.remainder(tx, ty), [tx, ty], paddle.to_tensor(v))
    np.testing.assert_array_equal(dx.numpy(), v.sum(axis=(1, 3), keepdims=True))
    np.testing.assert_array_equal(dy.numpy(), (-v * np.floor_divide(x, y)).sum(
        axis=(0, 2), keepdims=True))


def test_ops_without_int_gradients_still_stop_them(eager):
    x = paddle.to_tensor(np.array([1.0, 2.0, 3.0], "float32"), stop_gradient=False)
    i = paddle.argmax(x)  # no gradient: as in Paddle, x's comes from the product alone
    (g,) = paddle.grad((x * i.astype("float32")).sum(), x)
    np.testing.assert_array_equal(g.numpy(), [2.0, 2.0, 2.0])
    a = paddle.to_tensor(np.array([[1, 2], [3, 4]], "int64"), stop_gradient=False)
    b = paddle.to_tensor(np.array([[1, 0], [0, 1]], "int64"), stop_gradient=False)
    with pytest.raises(ValueError, match="does not appear in the backward graph"):
        paddle.grad(paddle.matmul(a, b), [a])  # Paddle: matmul_grad has no int kernel


def test_int_gradients_are_not_summed_as_in_paddle(eager):
    a = paddle.to_tensor(np.array([3, 5], "int64"), stop_gradient=False)
    with pytest.raises(NotImplementedError, match="accumulation of data type int64"):
        paddle.grad(a * a, a)  # Paddle 3.3.1: "Gradient accumulation of data type (int64_t)"
    f = paddle.to_tensor(np.array([3.0, 5.0], "float32"), stop_gradient=False)
    np.testing.assert_array_equal(paddle.grad(f * f, f)[0].numpy(), [6.0, 10.0])


def test_static_gradients_stay_float_only():
    main = paddle.static.Program()
    with paddle.static.program_guard(main, paddle.static.Program()):
        x = paddle.static.data("x", [3], "int32")
        x.stop_gradient = False
        f = paddle.static.data("f", [3], "float32")
        f.stop_gradient = False
        z = paddle.remainder(x, paddle.full([3], 2, "int32")).astype("float32") * f
        gx, gf = paddle.static.gradients([z], [x, f])
        assert gx is None and gf is not None


def test_int_mean_rounds_toward_zero_as_paddle():
    # Paddle 3.3.1: mean([[-1, -2], [-5, 8], [7, 0]], axis=1) is [-1, 1, 3], its gradient
    # dOut / 2 truncated; a scale by 1/n would make both 0
    x = np.array([[-1, -2], [-5, 8], [7, 0]], "int64")
    main = paddle.static.Program()
    with paddle.static.program_guard(main, paddle.static.Program()):
        vx = paddle.static.data("x", x.shape, "int64")
        m, total = paddle.mean(vx, axis=1), paddle.mean(vx)
    runs = fused_unfused_reference(main, {"x": x}, [m, total])
    for name, (got_m, got_total) in runs.items():
        np.testing.assert_array_equal(got_m, [-1, 1, 3], err_msg=name)
        assert got_total.dtype == np.int64 and int(got_total) == 1, name
    paddle.disable_static()
    try:
        t = paddle.to_tensor(x, stop_gradient=False)
        (g,) = paddle.grad(paddle.mean(t, axis=1), t, paddle.to_tensor(np.array([-3, 5, 7])))
        np.testing.assert_array_equal(g.numpy(), [[-1, -1], [2, 2], [3, 3]])
    finally:
        paddle.enable_static()
