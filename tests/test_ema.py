"""ExponentialMovingAverage beyond Paddle's ported tests: the thres_steps schedule, restore,
parameters left out by do_model_average=False, all against numpy."""
import numpy as np

import fluidc as paddle

paddle.enable_static()


def _build(thres: bool, decay: float = 0.9):
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup), paddle.utils.unique_name.guard():
        x = paddle.static.data("x", [-1, 3], "float32")
        y = paddle.static.nn.fc(x, 2, weight_attr="w",
                                bias_attr=paddle.ParamAttr(name="b", do_model_average=False))
        paddle.optimizer.SGD(0.5).minimize(paddle.mean(y * y))
        step = paddle.optimizer.lr.autoincreased_step_counter("@STEP@") if thres else None
        ema = paddle.static.ExponentialMovingAverage(decay, thres_steps=step)
        ema.update()
    return main, startup, ema


def _train(thres: bool, decay: float = 0.9, steps: int = 5):
    main, startup, ema = _build(thres, decay)
    scope = paddle.static.Scope()
    exe = paddle.static.Executor(paddle.CPUPlace())
    rng = np.random.RandomState(3)
    with paddle.static.scope_guard(scope):
        exe.run(startup)
        ws = []
        for _ in range(steps):
            exe.run(main, feed={"x": rng.rand(4, 3).astype("float32")})
            ws.append(np.array(scope.find_var("w").get_tensor()))
        b = np.array(scope.find_var("b").get_tensor())
        with ema.apply(exe):
            applied = np.array(scope.find_var("w").get_tensor())
            b_applied = np.array(scope.find_var("b").get_tensor())
        restored = np.array(scope.find_var("w").get_tensor())
    return ws, applied, restored, b, b_applied, [p.name for p, _ in ema._params_tmps]


def _numpy_ema(ws, decays):
    ema = np.zeros_like(ws[0], dtype=np.float64)
    for w, d in zip(ws, decays):
        ema = d * ema + (1 - d) * w
    return ema / (1 - np.prod([decays[-1]] * len(ws)))


def test_constant_decay_apply_and_restore():
    ws, applied, restored, b, b_applied, averaged = _train(False)
    assert averaged == ["w"]  # the bias asked for no average
    np.testing.assert_allclose(applied, _numpy_ema(ws, [0.9] * len(ws)), rtol=1e-5)
    np.testing.assert_array_equal(restored, ws[-1])
    np.testing.assert_array_equal(b_applied, b)


def test_thres_steps_schedule():
    ws, applied, *_ = _train(True)
    # run t (1-based) decays by min((t + 1) / (t + 10), 0.9); the bias correction uses the
    # decay of the last run, as Paddle's apply program reads the decay var
    decays = [min((t + 1.0) / (t + 10.0), 0.9) for t in range(1, len(ws) + 1)]
    ema = np.zeros_like(ws[0], dtype=np.float64)
    for w, d in zip(ws, decays):
        ema = d * ema + (1 - d) * w
    np.testing.assert_allclose(applied, ema / (1 - decays[-1] ** len(ws)), rtol=1e-5)


def test_apply_before_training_gives_the_shadow():
    main, startup, ema = _build(False)
    scope = paddle.static.Scope()
    exe = paddle.static.Executor(paddle.CPUPlace())
    with paddle.static.scope_guard(scope):
        exe.run(startup)
        with ema.apply(exe, need_restore=False):
            np.testing.assert_array_equal(np.array(scope.find_var("w").get_tensor()), 0)
        ema.restore(exe)
        assert np.abs(np.array(scope.find_var("w").get_tensor())).sum() > 0
