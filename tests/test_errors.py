"""Bad input: each raises a fluidc error naming the var or op, before any kernel runs."""
import numpy as np
import pytest

import fluidc as fluid
from fluidc.frontend.errors import (FeedError, FetchError, FluidcError, OpError, ShapeError,
                                    UninitializedVarError)


def _model():
    x = fluid.layers.data(name="x", shape=[4], dtype="float32")
    y = fluid.layers.fc(input=x, size=2)
    return x, y


def test_missing_feed_names_the_var():
    _, y = _model()
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(fluid.default_startup_program())
    with pytest.raises(FeedError, match="'x'"):
        exe.run(fetch_list=[y])


def test_unknown_feed_is_ignored_with_a_warning_and_unknown_fetch_raises():
    _, y = _model()
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(fluid.default_startup_program())
    with pytest.warns(UserWarning, match="'nope' is not a var of the program"):  # as in Paddle
        got = exe.run(feed={"x": np.ones((1, 4), "float32"), "nope": np.ones(1)}, fetch_list=[y])
    assert got[0].shape == (1, 2)
    with pytest.raises(FetchError, match="'ghost'"):
        exe.run(feed={"x": np.ones((1, 4), "float32")}, fetch_list=["ghost"])


def test_wrong_feed_dtype():
    _, y = _model()
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(fluid.default_startup_program())
    with pytest.raises(FeedError, match="Variable 'x' must be 'float32', but received 'float64'"):
        exe.run(feed={"x": np.ones((1, 4))}, fetch_list=[y])


def test_fluid_data_checks_declared_shape_but_layers_data_is_lax():
    x = fluid.data(name="x", shape=[None, 4], dtype="float32")
    y = fluid.layers.scale(x, 2.0)
    exe = fluid.Executor(fluid.CPUPlace())
    with pytest.raises(FeedError, match=r"'x' should have dimensions = 2, shape = \(-1, 4\), but received fed shape \[2, 5\]"):
        exe.run(feed={"x": np.ones((2, 5), "float32")}, fetch_list=[y])
    assert exe.run(feed={"x": np.ones((3, 4), "float32")}, fetch_list=[y])[0].shape == (3, 4)


def test_shape_no_op_accepts_names_op_and_shapes():
    _, y = _model()
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(fluid.default_startup_program())
    with pytest.raises(ShapeError, match="mul"):
        exe.run(feed={"x": np.ones((2, 5), "float32")}, fetch_list=[y])


def test_non_scalar_loss():
    _, y = _model()
    with pytest.raises(FluidcError, match="loss 'fc_0.tmp_1' must hold one value"):
        fluid.optimizer.SGD(learning_rate=0.1).minimize(y)


def test_unknown_op_attribute():
    x = fluid.layers.data(name="x", shape=[4], dtype="float32")
    out = fluid.default_main_program().global_block().create_var(name="o", dtype="float32")
    with pytest.raises(OpError, match="'relu' has no attribute 'alpha_typo'"):
        fluid.default_main_program().global_block().append_op(
            "relu", inputs={"X": [x]}, outputs={"Out": [out]}, attrs={"alpha_typo": 1})


def test_running_main_before_startup():
    _, y = _model()
    exe = fluid.Executor(fluid.CPUPlace())
    with pytest.raises(UninitializedVarError, match="fc_0.w_0.*startup"):
        exe.run(feed={"x": np.ones((1, 4), "float32")}, fetch_list=[y])


def test_odd_var_names_never_reach_generated_source():
    names = ["x with space", "quote'\"x", "at@x.y", "ünï"]
    block = fluid.default_main_program().global_block()
    vars_ = [fluid.layers.data(name=n, shape=[3], dtype="float32", append_batch_size=False)
             for n in names]
    total = vars_[0]
    for v in vars_[1:]:
        total = fluid.layers.elementwise_add(total, v)
    out = block.create_var(name="rés'ult \"1\"", dtype="float32")
    block.append_op("relu", inputs={"X": [total]}, outputs={"Out": [out]})
    exe = fluid.Executor(fluid.CPUPlace())
    feed = {n: np.full(3, i + 1, "float32") for i, n in enumerate(names)}
    got, = exe.run(feed=feed, fetch_list=[out])
    np.testing.assert_array_equal(got, [10, 10, 10])
    plan = next(iter(exe._plans.values()))
    for n in names + [out.name]:
        assert n not in plan.module.source


def test_unknown_names_suggest_close_ones():
    """Did-you-mean for op types (act=...), feeds, fetches and missing layers / API names."""
    x, y = _model()
    with pytest.raises(OpError, match=r"unknown op type 'rleu'; did you mean 'relu'"):
        fluid.layers.fc(x, 3, act="rleu")
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(fluid.default_startup_program())
    feed = {"x": np.ones((2, 4), "float32"), "xs": np.ones((2, 4), "float32")}
    with pytest.warns(UserWarning, match=r"feed 'xs' is not a var .* did you mean 'x'\?") as w:
        exe.run(feed=feed, fetch_list=[y])
    assert w[0].filename == __file__  # the warning points at the caller's line
    with pytest.raises(FetchError, match=rf"did you mean '{y.name}'"):
        exe.run(feed=feed, fetch_list=[y.name + "x"])
    with pytest.raises(AttributeError, match=r"fluidc.layers has no 'fcc'; did you mean 'fc'"):
        fluid.layers.fcc  # noqa: B018
    with pytest.raises(AttributeError, match=r"fluidc.nn.functional has no 'rleu'; did you mean"):
        fluid.nn.functional.rleu  # noqa: B018
    assert not hasattr(fluid.static, "no_such_api")
    with pytest.raises(AttributeError, match="module 'fluidc' has no attribute '__wrapped__'"):
        fluid.__wrapped__  # noqa: B018


def test_shape_errors_name_the_vars_and_the_users_line():
    """Feeding [2, 5] into a [-1, 4] layers.data: the error names the fed var, the fc call and
    the line of this file that made it (Paddle's op_callstack), at build and at run time."""
    import inspect

    x = fluid.layers.data(name="x", shape=[4], dtype="float32")
    line = inspect.currentframe().f_lineno + 1
    y = fluid.layers.fc(input=x, size=3)
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(fluid.default_startup_program())
    with pytest.raises(ShapeError) as e:
        exe.run(feed={"x": np.ones((2, 5), "float32")}, fetch_list=[y])
    text = str(e.value)
    assert "X = 'x' [2, 5]" in text and f"fc() at {__file__}:{line}" in text
    z = fluid.layers.data(name="z", shape=[3], dtype="float32")
    with pytest.raises(ShapeError, match=rf"elementwise_add\(\) at {__file__}:{line + 9}"):
        fluid.layers.elementwise_add(x, z)
