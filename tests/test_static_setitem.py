"""paddle.static.setitem (set_value into a new Variable, as Paddle 3.3.1's legacy static mode
appends it) gives Paddle's values and gradients (tests/fixtures/make_setitem_fixtures.py) on
the reference executor and every BuildStrategy; Variable.__setitem__ refuses as Paddle's."""
import os
import sys

import numpy as np
import pytest

import fluidc as paddle

from test_random_control_flow import assert_reference_and_compiled_give

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures"))
import setitem_case  # noqa: E402

FIXTURE = os.path.join(os.path.dirname(__file__), "fixtures", "paddle", "setitem.npz")
with np.load(FIXTURE) as _f:
    PADDLE = {k: _f[k] for k in _f.files}


def test_setitem_gives_paddles_values_and_grads():
    program, names = setitem_case.build(paddle)
    feed = {k: PADDLE[k] for k in ("x", "v", "w")}
    want = [PADDLE[f"out/{i}"] for i in range(len(names))]
    assert_reference_and_compiled_give(program, feed, names, want)


def test_static_variable_setitem_refuses_as_paddle_and_bad_indices_are_named():
    with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):
        x = paddle.static.data("x", [3, 4], "float32")
        with pytest.raises(RuntimeError, match="paddle.static.setitem"):
            x[0] = 1.0
        with pytest.raises(IndexError, match="out of range"):
            paddle.static.setitem(x, 3, 1.0)
        with pytest.raises(IndexError, match="int-list index mixed with None"):
            paddle.static.setitem(x, ([0, 1], None), 1.0)
        with pytest.raises(TypeError, match="Only support to assign"):
            paddle.static.setitem(x, 0, "a")


def test_setitem_indexed_by_a_loop_counter_writes_every_row():
    """x[i] = x[i - 1] * 2 + i in a while_loop: the counter's value is read when set_value runs
    (each iteration), not folded into the op before the run."""
    with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):
        x = paddle.static.data("x", [5, 3], "float32")

        def body(i, x):
            x = paddle.static.setitem(x, i, x[i - 1] * 2.0 + paddle.cast(i, "float32"))
            return i + 1, x

        i = paddle.full([1], 1, "int64")
        _, out = paddle.static.nn.while_loop(lambda i, x: i < 5, body, [i, x])
        program = paddle.static.default_main_program()
    feed = np.random.RandomState(0).rand(5, 3).astype(np.float32)
    want = feed.copy()
    for k in range(1, 5):
        want[k] = want[k - 1] * 2 + k
    assert_reference_and_compiled_give(program, {"x": feed}, [out.name], [want])


def test_a_value_that_does_not_fit_the_region_is_refused_when_the_program_runs():
    """As Paddle's set_value kernel: the program builds; any run that executes the op raises a
    ValueError naming both shapes. A run fetching nothing executes every op, as Paddle's
    executor does; one fetching something else prunes the op (and its error) away."""
    main = paddle.static.Program()
    with paddle.static.program_guard(main, paddle.static.Program()):
        x = paddle.ones([3, 4], "float32")
        out = paddle.static.setitem(x, 0, np.array([3.0, 4.0, 5.0, 6.0, 7.0], "float32"))
        other = paddle.full([2], 1.5, "float32")
    exe = paddle.static.Executor(paddle.CPUPlace())
    shapes = r"value of shape \[5\] cannot be broadcast to the indexed region of shape \[4\]"
    with pytest.raises(ValueError, match=shapes):
        exe.run(main)
    with pytest.raises(ValueError, match=shapes):
        exe.run(main, fetch_list=[out])
    np.testing.assert_array_equal(exe.run(main, fetch_list=[other])[0], [1.5, 1.5])
