"""paddle.norm (p_norm / frobenius_norm, as Paddle's static graph appends them) against numpy,
their gradients against finite differences; paddle.split, zeros_like/ones_like/full_like and the
dtype constants."""
from __future__ import annotations

import numpy as np
import pytest

import fluidc as paddle

X = np.random.default_rng(0).normal(size=(2, 3, 4))
CASES = [  # (norm kwargs, op type, numpy reference)
    ({}, "p_norm", lambda x: np.sqrt((x ** 2).sum())),
    ({"p": 2, "axis": 1, "keepdim": True}, "p_norm",
     lambda x: np.linalg.norm(x, axis=1, keepdims=True)),
    ({"p": "fro", "axis": -1}, "p_norm", lambda x: np.linalg.norm(x, axis=-1)),
    ({"p": 1, "axis": 2}, "p_norm", lambda x: np.abs(x).sum(axis=2)),
    ({"p": 3, "axis": 0}, "p_norm", lambda x: (np.abs(x) ** 3).sum(axis=0) ** (1 / 3)),
    ({"p": float("inf"), "axis": 1}, "p_norm", lambda x: np.abs(x).max(axis=1)),
    ({"p": -float("inf"), "axis": 1}, "p_norm", lambda x: np.abs(x).min(axis=1)),
    ({"p": 0, "axis": 2}, "p_norm", lambda x: (x != 0).sum(axis=2).astype(x.dtype)),
    ({"p": "fro", "axis": [0, 2]}, "frobenius_norm", lambda x: np.sqrt((x ** 2).sum(axis=(0, 2)))),
]


def _norm_program(kwargs):
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", list(X.shape), "float64")
        x.stop_gradient = False
        out = paddle.norm(x, **kwargs)
        w = paddle.static.data("w", list(out.shape), "float64")
        loss = paddle.sum(out * w)
        (grad,) = paddle.static.gradients(loss, x)
    return main, out, loss, grad


@pytest.mark.parametrize("kwargs,op_type,reference", CASES)
def test_norm_values_and_gradient(kwargs, op_type, reference):
    main, out, loss, grad = _norm_program(kwargs)
    assert main.global_block().ops[0].type == op_type
    want = reference(X)
    assert tuple(out.shape) == want.shape
    w = np.random.default_rng(1).normal(size=want.shape)
    exe = paddle.static.Executor(paddle.CPUPlace())
    got, got_grad = exe.run(main, feed={"x": X, "w": w}, fetch_list=[out, grad])
    np.testing.assert_allclose(got, want, rtol=1e-10)
    numeric = np.zeros_like(X)
    for i in np.ndindex(X.shape):
        values = []
        for sign in (1, -1):
            x = X.copy()
            x[i] += sign * 1e-6
            values.append(float(exe.run(main, feed={"x": x, "w": w}, fetch_list=[loss])[0]))
        numeric[i] = (values[0] - values[1]) / 2e-6
    np.testing.assert_allclose(got_grad, numeric, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("p,axis,keepdim", [(2, -1, False), (float("inf"), 0, False),
                                            (1, 0, True), (3, -1, False)])
def test_a_vectors_norm_over_its_axis_is_0d(p, axis, keepdim):
    """Paddle 3.x: paddle.norm of a 1-D x over its axis is 0-d ([1] with keepdim), as a full
    reduction is; values and gradient against numpy."""
    v = np.array([3.0, -4.0, 1.5, 0.5])
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [4], "float64")
        x.stop_gradient = False
        out = paddle.norm(x, p=p, axis=axis, keepdim=keepdim)
        (grad,) = paddle.static.gradients(out, x)
    assert tuple(out.shape) == ((1,) if keepdim else ())
    got, got_grad = paddle.static.Executor(paddle.CPUPlace()).run(
        main, feed={"x": v}, fetch_list=[out, grad])
    want = np.linalg.norm(v, ord=p, keepdims=keepdim)
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-12)
    dv = np.abs(v).max() == np.abs(v) if p == float("inf") else \
        np.sign(v) * np.abs(v) ** (p - 1) / want.reshape(()) ** (p - 1)
    np.testing.assert_allclose(got_grad, dv * np.sign(v) if p == float("inf") else dv,
                               rtol=1e-9)


def test_norm_rejects_what_paddle_rejects():
    """(Matrix norms of order 2 / 'nuc' are computed: tests/test_norms_pad_remainder.py.)"""
    with paddle.static.program_guard(paddle.static.Program()):
        x = paddle.static.data("x", [2, 3], "float32")
        with pytest.raises(ValueError, match="just support p value"):
            paddle.norm(x, p=3, axis=[0, 1])
        with pytest.raises(ValueError, match="just support p value"):
            paddle.norm(x, p="inf")


def test_split_like_and_dtype_constants():
    main = paddle.static.Program()
    with paddle.static.program_guard(main):
        x = paddle.static.data("x", [4, 6], paddle.float64)
        parts = paddle.split(x, [1, -1, 2], axis=1)
        halves = paddle.split(x, 2)
        likes = [paddle.zeros_like(x), paddle.ones_like(x, dtype=paddle.int32),
                 paddle.full_like(x, 2.5, dtype="float32")]
    assert x.dtype == paddle.float64 and likes[1].dtype == paddle.int32
    assert [paddle.bool, paddle.uint8, paddle.int8, paddle.int16, paddle.int64,
            paddle.float16] == [paddle.VarType.BOOL, paddle.VarType.UINT8, paddle.VarType.INT8,
                                paddle.VarType.INT16, paddle.VarType.INT64, paddle.VarType.FP16]
    xv = np.arange(24.0).reshape(4, 6)
    got = paddle.static.Executor(paddle.CPUPlace()).run(
        main, feed={"x": xv}, fetch_list=parts + halves + likes)
    for g, w in zip(got[:5], np.split(xv, [1, 4], axis=1) + np.split(xv, 2)):
        np.testing.assert_array_equal(g, w)
    np.testing.assert_array_equal(got[5], np.zeros((4, 6)))
    assert got[6].dtype == np.int32 and (got[6] == 1).all()
    assert got[7].dtype == np.float32 and (got[7] == 2.5).all()
