"""The same programs written against the 2.x static surface (`import fluidc as paddle`)."""
import numpy as np
import pytest

import fluidc as paddle


def _regression(optimizer):
    paddle.enable_static()
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data(name="x", shape=[None, 4], dtype="float32")
        y = paddle.static.data(name="y", shape=[None, 1], dtype="float32")
        pred = paddle.static.nn.fc(x, size=1, activation=None)
        loss = paddle.mean(paddle.nn.functional.square_error_cost(pred, y))
        optimizer.minimize(loss)
    exe = paddle.static.Executor(paddle.CPUPlace())
    exe.run(startup)
    rng = np.random.default_rng(0)
    xs = rng.normal(size=(64, 4)).astype("float32")
    ys = xs @ np.array([[1.0], [-2.0], [3.0], [0.5]], "float32") + 1.0
    losses = [exe.run(main, feed={"x": xs, "y": ys}, fetch_list=[loss])[0].item()
              for _ in range(200)]
    return losses


@pytest.mark.parametrize("make", [
    lambda: paddle.optimizer.SGD(learning_rate=0.1),
    lambda: paddle.optimizer.Momentum(learning_rate=0.05, momentum=0.9),
    lambda: paddle.optimizer.Momentum(learning_rate=0.05, momentum=0.9, use_nesterov=True),
    lambda: paddle.optimizer.Adam(learning_rate=0.05),
])
def test_static_regression_trains_with_each_optimizer(make):
    losses = _regression(make())
    assert losses[-1] < 1e-3 < losses[0]


def test_create_parameter_matmul_add():
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data(name="x", shape=[None, 3], dtype="float32")
        w = paddle.create_parameter(shape=[3, 2], dtype="float32")
        b = paddle.create_parameter(shape=[2], dtype="float32", is_bias=True)
        out = paddle.add(paddle.matmul(x, w), b)
    exe = paddle.static.Executor(paddle.CPUPlace())
    scope = paddle.static.Scope()
    with paddle.static.scope_guard(scope):
        exe.run(startup)
        xs = np.arange(6, dtype="float32").reshape(2, 3)
        got, = exe.run(main, feed={"x": xs}, fetch_list=[out])
        w_val = np.array(scope.find_var(w.name).get_tensor())
    np.testing.assert_allclose(got, xs @ w_val, rtol=1e-6)
    assert w.name == "create_parameter_0.w_0" and b.name == "create_parameter_1.b_0"


def test_default_programs_are_the_fluid_ones():
    assert paddle.static.default_main_program() is paddle.default_main_program()
    assert paddle.static.default_startup_program() is paddle.default_startup_program()


def test_2x_tensor_functions():
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data(name="x", shape=[None, 2, 3], dtype="float32")
        t = paddle.reshape(paddle.transpose(x, [0, 2, 1]), [-1, 6])
        outs = [paddle.sum(t * 2.0, axis=1), paddle.max(x), paddle.min(x, axis=[1, 2]),
                paddle.flatten(paddle.concat([x, x], axis=1), start_axis=1),
                paddle.exp(paddle.scale(paddle.full([2], 0.0), 1.0, 1.0)),
                paddle.cast(paddle.ones([3], "int64"), "float32") + paddle.zeros([3])]
    xs = np.arange(12, dtype="float32").reshape(2, 2, 3)
    got = paddle.static.Executor(paddle.CPUPlace()).run(main, feed={"x": xs}, fetch_list=outs)
    want = [xs.transpose(0, 2, 1).reshape(-1, 6).sum(1) * 2, [xs.max()], xs.min((1, 2)),
            np.concatenate([xs, xs], 1).reshape(2, 12), np.full(2, np.e), np.ones(3)]
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, np.asarray(w, "float32").reshape(g.shape), rtol=1e-6)
