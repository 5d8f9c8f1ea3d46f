"""Learning-rate schedules: the 2.x paddle.optimizer.lr classes against closed-form numpy
values and against real Paddle's (tests/fixtures/optimizers.npz), the executor picking up
scheduler.step() between runs, and the 1.x fluid.layers decay functions (a persistable step
counter advanced every run) against their formulas."""
import math
import os
import sys

import numpy as np
import pytest

import fluidc as fluid
import fluidc as paddle

FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures")
sys.path.insert(0, FIXTURES)
from optimizer_cases import schedule_cases, schedule_values  # noqa: E402

lr = paddle.optimizer.lr


def _values(schedule, n=8, metrics=None):
    out = []
    for i in range(n):
        out.append(schedule())
        schedule.step(metrics[i]) if metrics is not None else schedule.step()
    return out


@pytest.mark.parametrize("make,formula", [
    (lambda: lr.StepDecay(0.5, step_size=3, gamma=0.1), lambda e: 0.5 * 0.1 ** (e // 3)),
    (lambda: lr.MultiStepDecay(0.5, [2, 5], gamma=0.5),
     lambda e: 0.5 * 0.5 ** ((e >= 2) + (e >= 5))),
    (lambda: lr.ExponentialDecay(0.5, 0.9), lambda e: 0.5 * 0.9 ** e),
    (lambda: lr.NaturalExpDecay(0.5, 0.3), lambda e: 0.5 * math.exp(-0.3 * e)),
    (lambda: lr.InverseTimeDecay(0.5, 0.3), lambda e: 0.5 / (1 + 0.3 * e)),
    (lambda: lr.PiecewiseDecay([2, 4], [1.0, 0.5, 0.1]),
     lambda e: 1.0 if e < 2 else 0.5 if e < 4 else 0.1),
    (lambda: lr.NoamDecay(64, 3, learning_rate=2.0),
     lambda e: 2.0 * 64 ** -0.5 * min(1 if e == 0 else e ** -0.5, 3 ** -1.5 * e)),
    (lambda: lr.PolynomialDecay(0.5, 4, end_lr=0.1, power=2.0),
     lambda e: 0.4 * (1 - min(e, 4) / 4) ** 2 + 0.1),
    (lambda: lr.PolynomialDecay(0.5, 3, end_lr=0.1, cycle=True),
     lambda e: 0.4 * (1 - e / (3 * max(1, math.ceil(e / 3)))) + 0.1),
    (lambda: lr.LambdaDecay(0.5, lambda e: 0.95 ** e), lambda e: 0.5 * 0.95 ** e),
    (lambda: lr.MultiplicativeDecay(0.5, lambda e: 0.9), lambda e: 0.5 * 0.9 ** e),
    (lambda: lr.LinearWarmup(0.5, 4, 0.0, 0.5), lambda e: 0.5 * e / 4 if e < 4 else 0.5),
    (lambda: lr.LinearWarmup(lr.ExponentialDecay(0.5, 0.9), 3, 0.1, 0.5),
     lambda e: 0.1 + 0.4 * e / 3 if e < 3 else 0.5 * 0.9 ** (e - 3)),
    (lambda: lr.CosineAnnealingDecay(0.5, T_max=5, eta_min=0.1),
     lambda e: 0.1 + 0.4 * (1 + math.cos(math.pi * e / 5)) / 2),
])
def test_schedule_values(make, formula):
    np.testing.assert_allclose(_values(make()), [formula(e) for e in range(8)], rtol=1e-12)


@pytest.mark.parametrize("name", sorted(schedule_cases(paddle)))
def test_schedule_matches_paddle(name):
    """OneCycleLR, CyclicLR, LinearLR, CosineAnnealingWarmRestarts (stepped and jumped with
    step(epoch)), MultiplicativeDecay: every rate equals real Paddle's."""
    ref = np.load(os.path.join(FIXTURES, "optimizers.npz"))[f"schedule/{name}"]
    np.testing.assert_allclose(schedule_values(paddle, name), ref, rtol=1e-13, atol=0)


def test_reduce_on_plateau():
    s = lr.ReduceOnPlateau(1.0, patience=1, factor=0.5, cooldown=1)
    got = _values(s, 7, metrics=[5.0, 4.0, 4.0, 4.0, 4.0, 4.0, 4.0])
    # two epochs without improvement halve the rate, then one epoch of cooldown
    assert got == [1.0, 1.0, 1.0, 1.0, 0.5, 0.5, 0.5]
    assert s() == 0.25
    with pytest.raises(TypeError):
        s.step("loss")


def test_state_dict_round_trip():
    s = lr.StepDecay(0.5, 2)
    for _ in range(5):
        s.step()
    t = lr.StepDecay(0.5, 2)
    t.set_state_dict(s.state_dict())
    assert (t.last_epoch, t()) == (5, s())


@pytest.mark.parametrize("make,error", [
    (lambda: lr.StepDecay(0.5, step_size=1.5), TypeError),
    (lambda: lr.StepDecay(0.5, 2, gamma=1.5), ValueError),
    (lambda: lr.MultiStepDecay(0.5, milestones="1,2"), TypeError),
    (lambda: lr.MultiStepDecay(0.5, [3, 2]), ValueError),
    (lambda: lr.PiecewiseDecay([], [0.1]), ValueError),
    (lambda: lr.LambdaDecay(0.5, 0.9), TypeError),
    (lambda: lr.LRScheduler("0.1"), TypeError),
    (lambda: lr.CosineAnnealingDecay(0.5, T_max=2.0), TypeError),
    (lambda: lr.ReduceOnPlateau(0.5, mode="median"), ValueError),
    (lambda: lr.OneCycleLR(0.1, 10, phase_pct=1), TypeError),
    (lambda: lr.OneCycleLR(0.1, 10, anneal_strategy="exp"), ValueError),
    (lambda: lr.OneCycleLR(0.1, 10, phase_pct=0.5, three_phase=True), ValueError),
    (lambda: _values(lr.OneCycleLR(0.1, 2), 4), ValueError),  # stepped past total_steps
    (lambda: lr.CyclicLR(0.01, 0.1, step_size_up=2.5), TypeError),
    (lambda: lr.CyclicLR(0.01, 0.1, 2, mode="sawtooth"), ValueError),
    (lambda: lr.LinearLR(0.5, 10, start_factor=0), ValueError),
    (lambda: lr.CosineAnnealingWarmRestarts(0.5, T_0=0), ValueError),
    (lambda: lr.CosineAnnealingWarmRestarts(0.5, T_0=2, T_mult=1.5), ValueError),
])
def test_schedule_errors(make, error):
    with pytest.raises(error):
        make()


def test_scheduler_step_changes_the_next_run():
    """SGD on loss = sum(w): each run moves w by -lr, the lr of the schedule's current step."""
    main, startup = paddle.static.Program(), paddle.static.Program()
    sched = lr.PiecewiseDecay([2, 3], [0.5, 0.25, 0.125])
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [1, 3], "float32")
        w = paddle.create_parameter([3, 1], "float32", attr=paddle.ParamAttr(
            name="w", initializer=paddle.initializer.Constant(0.0)))
        loss = paddle.layers.mean(paddle.matmul(x, w))
        opt = paddle.optimizer.SGD(learning_rate=sched)
        opt.minimize(loss)
    exe = paddle.static.Executor(paddle.CPUPlace())
    scope = paddle.static.Scope()
    seen = []
    with paddle.static.scope_guard(scope):
        exe.run(startup)
        before = np.zeros(3, np.float32)
        for _ in range(4):
            seen.append(opt.get_lr())
            exe.run(main, feed={"x": np.ones((1, 3), np.float32)})
            after = np.array(scope.find_var("w").get_tensor()).reshape(-1)
            np.testing.assert_allclose(before - after, seen[-1], rtol=1e-6)
            before = after
            sched.step()
    assert seen == [0.5, 0.5, 0.25, 0.125]
    assert main.lr_scheduler is sched


def _run_1x(make, steps=7):
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        rate = make()
    exe = fluid.Executor(fluid.CPUPlace())
    scope = fluid.Scope()
    with fluid.scope_guard(scope):
        exe.run(startup)
        got = [float(exe.run(main, fetch_list=[rate])[0].reshape(-1)[0]) for _ in range(steps)]
    return main, got


L = fluid.layers


@pytest.mark.parametrize("make,formula", [
    (lambda: L.exponential_decay(0.1, 2, 0.5), lambda s: 0.1 * 0.5 ** (s / 2)),
    (lambda: L.exponential_decay(0.1, 2, 0.5, staircase=True), lambda s: 0.1 * 0.5 ** (s // 2)),
    (lambda: L.natural_exp_decay(0.1, 2, 0.5), lambda s: 0.1 * math.exp(-0.5 * s / 2)),
    (lambda: L.inverse_time_decay(0.1, 2, 0.5, staircase=True),
     lambda s: 0.1 / (1 + 0.5 * (s // 2))),
    (lambda: L.polynomial_decay(0.1, 3, 0.01, power=2.0),
     lambda s: 0.09 * (1 - min(s, 3) / 3) ** 2 + 0.01),
    (lambda: L.polynomial_decay(0.1, 2, 0.01, cycle=True),
     lambda s: 0.09 * (1 - s / (2 * max(1, math.ceil(s / 2)))) + 0.01),
    (lambda: L.piecewise_decay([2, 4], [0.1, 0.05, 0.01]),
     lambda s: 0.1 if s < 2 else 0.05 if s < 4 else 0.01),
    (lambda: L.cosine_decay(0.1, 2, 5), lambda s: 0.05 * (math.cos((s // 2) * math.pi / 5) + 1)),
    (lambda: L.noam_decay(16, 3, 2.0),
     lambda s: 2.0 * 16 ** -0.5 * min((s + 1) ** -0.5, 3 ** -1.5 * (s + 1))),
    (lambda: L.linear_lr_warmup(0.1, 3, 0.01, 0.1), lambda s: 0.01 + 0.03 * s if s < 3 else 0.1),
    (lambda: L.linear_lr_warmup(L.exponential_decay(0.1, 2, 0.5), 3, 0.01, 0.1),
     lambda s: 0.01 + 0.03 * s if s < 3 else 0.1 * 0.5 ** (s / 2)),
])
def test_fluid_decay_layers(make, formula):
    main, got = _run_1x(make)
    np.testing.assert_allclose(got, [formula(s) for s in range(7)], rtol=1e-5)
    counter = main.global_block().var("@LR_DECAY_COUNTER@")
    assert counter.persistable and main.global_block().ops[0].type == "increment"


def test_fluid_decay_drives_training():
    """A 1.x decay var as the optimizer's learning rate: each run uses that run's value."""
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = fluid.data("x", [1, 2], "float32")
        w = fluid.layers.create_parameter([2, 1], "float32", name="w",
                                          default_initializer=fluid.initializer.Constant(0.0))
        loss = fluid.layers.mean(fluid.layers.matmul(x, w))
        rate = L.piecewise_decay([1, 2], [1.0, 0.5, 0.25])
        fluid.optimizer.SGD(learning_rate=rate).minimize(loss)
    exe = fluid.Executor(fluid.CPUPlace())
    scope = fluid.Scope()
    with fluid.scope_guard(scope):
        exe.run(startup)
        for _ in range(3):
            exe.run(main, feed={"x": np.ones((1, 2), np.float32)})
        np.testing.assert_allclose(np.array(scope.find_var("w").get_tensor()).reshape(-1),
                                   [-1.75, -1.75], rtol=1e-6)


def test_piecewise_decay_checks_lengths():
    with fluid.program_guard(fluid.Program(), fluid.Program()):
        with pytest.raises(ValueError):
            L.piecewise_decay([1, 2], [0.1])
