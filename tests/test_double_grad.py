"""Double gradients (paddle.static.gradients of a gradient) against central finite differences.

The first gradient g(x, y, dout) = gradients(op(x, y), [x, y], dout) is a program of its own;
the second, gradients(sum(g . w), [x, y, dout]) through elementwise_<op>_grad_grad, must equal
the finite differences of sum(g . w) computed by re-running that program with perturbed feeds.
"""
from __future__ import annotations

import numpy as np
import pytest

import fluidc as paddle

EPS = 1e-6
SHAPES = [((3, 4), (3, 4), -1), ((3, 4), (4,), -1), ((2, 3, 4), (3,), 1)]


def _build(op: str, xs, ys, axis, second: bool):
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", list(xs), "float64")
        y = paddle.static.data("y", list(ys), "float64")
        dout = paddle.static.data("dout", list(xs), "float64")  # X is the larger operand
        wx = paddle.static.data("wx", list(xs), "float64")
        wy = paddle.static.data("wy", list(ys), "float64")
        for v in (x, y, dout):
            v.stop_gradient = False
        block = main.global_block()
        out = block.create_var(name="out", shape=xs, dtype=x.dtype)
        block.append_op(f"elementwise_{op}", {"X": [x], "Y": [y]}, {"Out": [out]}, {"axis": axis})
        gx, gy = paddle.static.gradients([out], [x, y], [dout])
        target = paddle.sum(gx * wx) + paddle.sum(gy * wy)
        grads = paddle.static.gradients([target], [x, y, dout]) if second else []
    return main, target, grads


@pytest.mark.parametrize("op", ["mul", "add", "sub"])
@pytest.mark.parametrize("xs,ys,axis", SHAPES)
def test_double_grad_matches_finite_differences(op, xs, ys, axis):
    rng = np.random.default_rng(0)
    main, target, grads = _build(op, xs, ys, axis, second=True)
    feed = {"x": rng.normal(size=xs), "y": rng.normal(size=ys),
            "wx": rng.normal(size=xs), "wy": rng.normal(size=ys)}
    feed["dout"] = rng.normal(size=xs)
    exe = paddle.static.Executor(paddle.CPUPlace())
    wanted = [g for g in grads if g is not None]
    got = exe.run(main, feed=feed, fetch_list=wanted)
    for name, grad in zip(["x", "y", "dout"], grads):
        numeric = np.zeros_like(feed[name])
        for i in np.ndindex(numeric.shape):
            values = []
            for sign in (1, -1):
                shifted = dict(feed, **{name: feed[name].copy()})
                shifted[name][i] += sign * EPS
                values.append(float(exe.run(main, feed=shifted, fetch_list=[target])[0]))
            numeric[i] = (values[0] - values[1]) / (2 * EPS)
        if grad is None:  # the target does not depend on it (add/sub: g is linear in dout only)
            np.testing.assert_allclose(numeric, 0, atol=1e-6)
            continue
        at = [w.name for w in wanted].index(grad.name)  # Variable == builds an op, as Paddle's
        np.testing.assert_allclose(got[at], numeric, rtol=1e-5, atol=1e-7,
                                   err_msg=f"d/d{name}")


def test_double_grad_op_types_are_paddles():
    main, _, _ = _build("mul", (3, 4), (4,), -1, second=True)
    types = [op.type for op in main.global_block().ops]
    assert "elementwise_mul_grad_grad" in types
    op = next(o for o in main.global_block().ops if o.type == "elementwise_mul_grad_grad")
    assert set(op.desc.inputs) == {"X", "Y", "DOut", "DDX", "DDY"}
    assert set(op.desc.outputs) <= {"X@GRAD", "Y@GRAD", "DDOut"}
