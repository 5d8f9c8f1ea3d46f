"""paddle.flip (op flip, its grad a flip of Out@GRAD as Paddle's): Paddle 3.3.1's outputs and
gradients (tests/fixtures/make_flip_fixtures.py), the reference executor and every
BuildStrategy agreeing, and Paddle's errors for a repeated or out-of-range axis."""
import os

import numpy as np
import pytest

import fluidc as paddle
from fluidc.frontend.errors import ShapeError

from test_random_control_flow import assert_reference_and_compiled_give

FIXTURE = os.path.join(os.path.dirname(__file__), "fixtures", "paddle", "flip.npz")
with np.load(FIXTURE) as _f:
    PADDLE = {k: _f[k] for k in _f.files}
CASES = {"axes_0_2": ("x", [0, 2]), "axis_1": ("x", 1), "axis_neg1": ("x", [-1]),
         "all": ("x", (0, 1, 2)), "int64_axis_0": ("xi", [0])}


def _program(src, axis):
    main = paddle.static.Program()
    with paddle.static.program_guard(main, paddle.static.Program()):
        x = paddle.static.data(src, PADDLE[src].shape, str(PADDLE[src].dtype))
        x.stop_gradient = src != "x"
        y = paddle.flip(x, axis)
        names = [y.name]
        if src == "x":
            w = paddle.static.data("w", PADDLE["w"].shape, "float32")
            paddle.static.append_backward(paddle.mean(y * w))
            names.append("x@GRAD")
    return main, names


@pytest.mark.parametrize("case", list(CASES))
def test_flip_gives_paddles_outputs_and_grads(case):
    src, axis = CASES[case]
    program, names = _program(src, axis)
    feed = {k: PADDLE[k] for k in (src, "w") if k == src or src == "x"}
    want = [PADDLE[f"{case}/out"]] + ([PADDLE[f"{case}/x@GRAD"]] if src == "x" else [])
    assert_reference_and_compiled_give(program, feed, names, want)


@pytest.mark.parametrize("axis, message", [([0, -2], "names a dimension twice"),
                                           ([2], "out of range")])
def test_flip_refuses_a_repeated_or_out_of_range_axis(axis, message):
    with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):
        x = paddle.static.data("x", [2, 3], "float32")
        with pytest.raises(ShapeError, match=message):
            paddle.flip(x, axis)
