"""Port of Paddle test/legacy_test/test_lr_scheduler.py (static parts).

Kept: the numpy reference schedules and TestLRScheduler's checks that each paddle.optimizer.lr
schedule (OneCycleLR and CyclicLR included), given to a static Adam, puts its value into the
learning-rate var every run (fetched from the main program and its clone) and that
scheduler.step() moves it; the argument errors; TestCosineAnnealingWarmRestarts' static half
(step(epoch), then step()).
Dropped: every _test_dygraph half (fluidc has no dygraph), ReduceOnPlateau's static half (uses
paddle.increment / paddle.sin on a global var; its schedule is checked in
tests/test_lr_schedules.py). LinearLR has no case in Paddle's file; it is checked against
Paddle's values in tests/test_lr_schedules.py.
"""
import math
import unittest

import numpy as np

import fluidc as paddle

paddle.enable_static()


def noam_lr(epoch, d_model, warmup_steps, learning_rate=1.0, verbose=False):
    a = 1 if epoch == 0 else math.pow(epoch, -0.5)
    return learning_rate * math.pow(d_model, -0.5) * min(a, math.pow(warmup_steps, -1.5) * epoch)


def lambda_lr(epoch, learning_rate, lr_lambda, verbose=False):
    return learning_rate * lr_lambda(epoch)


def multiplicative_lr(epoch, learning_rate, lr_lambda, verbose=False):
    lr = learning_rate
    for i in range(epoch):
        lr *= lr_lambda(i + 1)
    return lr


def piecewise_lr(epoch, boundaries, values, verbose=False):
    for bound, value in zip(boundaries, values):
        if epoch < bound:
            return value
    return values[-1]


def exponential_lr(epoch, learning_rate, gamma, verbose=False):
    return learning_rate * gamma ** epoch


def natural_exp_lr(epoch, learning_rate, gamma, verbose=False):
    return learning_rate * math.exp(-1 * gamma * epoch)


def inverse_time_lr(epoch, learning_rate, gamma, verbose=False):
    return learning_rate / (1 + gamma * epoch)


def polynomial_lr(epoch, learning_rate, decay_steps, end_lr=0.0001, power=1.0, cycle=False,
                  verbose=False):
    if cycle:
        decay_steps = decay_steps * (1 if epoch == 0 else math.ceil(epoch / float(decay_steps)))
    else:
        epoch = min(epoch, decay_steps)
    return (learning_rate - end_lr) * ((1 - float(epoch) / float(decay_steps)) ** power) + end_lr


def linear_warmup_lr(epoch, learning_rate, warmup_steps, start_lr, end_lr, verbose=False):
    tmp = epoch - warmup_steps
    if tmp < 0:
        return start_lr + (end_lr - start_lr) * (float(epoch) / float(warmup_steps))
    if isinstance(learning_rate, paddle.optimizer.lr.LRScheduler):
        learning_rate.step(tmp)
        return learning_rate()
    return learning_rate


def multi_step_lr(epoch, learning_rate, milestones, gamma=0.1, verbose=False):
    for i, m in enumerate(milestones):
        if epoch < m:
            return learning_rate * gamma ** i
    return learning_rate * gamma ** len(milestones)


def step_lr(epoch, learning_rate, step_size, gamma=0.1, verbose=False):
    return learning_rate * gamma ** (epoch // step_size)


def cosine_annealing_lr(epoch, learning_rate, T_max, eta_min=0, verbose=False):  # noqa: N803
    return eta_min + (learning_rate - eta_min) * (1 + math.cos(math.pi * epoch / T_max)) / 2


def one_cycle_lr(epoch, max_learning_rate, total_steps, divide_factor=25,
                 end_learning_rate=0.0001, phase_pct=0.3, anneal_strategy='cos',
                 three_phase=False, verbose=False):
    initial_lr = max_learning_rate / divide_factor
    if three_phase:
        ends = [phase_pct * total_steps - 1, 2 * phase_pct * total_steps - 2, total_steps - 1]
        rates = [initial_lr, max_learning_rate, initial_lr, end_learning_rate]
    else:
        ends = [phase_pct * total_steps - 1, total_steps - 1]
        rates = [initial_lr, max_learning_rate, end_learning_rate]
    start = 0
    for i, end in enumerate(ends):
        if epoch <= end or i == len(ends) - 1:
            pct = (epoch - start) / (end - start)
            start_lr, end_lr = rates[i], rates[i + 1]
            if anneal_strategy == 'cos':
                return end_lr + (start_lr - end_lr) / 2.0 * (math.cos(math.pi * pct) + 1)
            return (end_lr - start_lr) * pct + start_lr
        start = end


def cyclic_lr(epoch, base_learning_rate, max_learning_rate, step_size_up, step_size_down, mode,
              exp_gamma=0.1, scale_fn=None, scale_mode='cycle', verbose=False):
    total = step_size_up + step_size_down
    up_ratio = step_size_up / total
    if scale_fn is None:
        scale_fn, scale_mode = {
            'triangular': (lambda x: 1.0, 'cycle'),
            'triangular2': (lambda x: 1 / (2.0 ** (x - 1)), 'cycle'),
            'exp_range': (lambda x: exp_gamma ** x, 'iterations'),
        }[mode]
    cycle = math.floor(1 + epoch / total)
    x = 1.0 + epoch / total - cycle
    scale = x / up_ratio if x <= up_ratio else (x - 1) / (up_ratio - 1)
    height = (max_learning_rate - base_learning_rate) * scale
    return base_learning_rate + height * scale_fn(cycle if scale_mode == 'cycle' else epoch)


def cosine_annealing_warm_restarts_lr(epoch, state):
    """The rate before this step, then `state` (T_0, T_i, T_mult, T_cur, last_epoch) stepped as
    step(epoch) does (epoch None: one epoch on)."""
    if epoch is None and state['last_epoch'] < 0:
        epoch = 0
    lr = state['eta_min'] + (state['base_lr'] - state['eta_min']) * \
        (1 + math.cos(math.pi * state['T_cur'] / state['T_i'])) / 2
    if state['last_epoch'] == -1:
        lr = state['base_lr']
    if epoch is None:
        epoch = state['last_epoch'] + 1
        state['T_cur'] += 1
        if state['T_cur'] >= state['T_i']:
            state['T_cur'] -= state['T_i']
            state['T_i'] *= state['T_mult']
    elif epoch >= state['T_0']:
        if state['T_mult'] == 1:
            state['T_cur'] = epoch % state['T_0']
        else:
            n = int(math.log(epoch / state['T_0'] * (state['T_mult'] - 1) + 1, state['T_mult']))
            state['T_cur'] = epoch - state['T_0'] * (state['T_mult'] ** n - 1) / \
                (state['T_mult'] - 1)
            state['T_i'] = state['T_0'] * state['T_mult'] ** n
    else:
        state['T_i'], state['T_cur'] = state['T_0'], epoch
    state['last_epoch'] = math.floor(epoch)
    return lr


class TestCosineAnnealingWarmRestarts(unittest.TestCase):
    def test_CosineRestartsLR(self):
        for t_0, t_mult in ((-1, 1), (1.0, 1), (1, -1), (1, 1.0)):  # T_0, T_mult value / type
            with self.assertRaises(ValueError):
                paddle.optimizer.lr.CosineAnnealingWarmRestarts(learning_rate=0.5, T_0=t_0,
                                                                T_mult=t_mult)
        kwargs = {'learning_rate': 0.5, 'T_0': 1, 'T_mult': 2, 'eta_min': 0, 'last_epoch': -1,
                  'verbose': False}
        self._test_static(paddle.CPUPlace(), kwargs)

    def _test_static(self, place, kwargs):
        state = {'base_lr': kwargs['learning_rate'], 'T_0': kwargs['T_0'], 'T_i': kwargs['T_0'],
                 'T_mult': kwargs['T_mult'], 'eta_min': kwargs['eta_min'], 'T_cur': -1,
                 'last_epoch': -1}
        scheduler = paddle.optimizer.lr.CosineAnnealingWarmRestarts(**kwargs)
        adam = paddle.optimizer.Adam(learning_rate=scheduler)
        main_prog, start_prog = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main_prog, start_prog):
            x = paddle.static.data(name='x', shape=[3, 4, 5])
            loss = paddle.mean(x)
            adam.minimize(loss)
            lr_var = adam._global_learning_rate()
            test_prog = main_prog.clone()
        exe = paddle.static.Executor(place)
        exe.run(start_prog)
        for prog, epochs in ((main_prog, range(5)), (test_prog, [None] * 5)):
            for epoch in epochs:
                for _ in range(2):
                    out = exe.run(prog, feed={'x': np.random.randn(3, 4, 5).astype('float32')},
                                  fetch_list=lr_var.name)
                expected_lr = np.array(cosine_annealing_warm_restarts_lr(epoch, state)).astype(
                    out[0].dtype)
                self.assertEqual(out[0], expected_lr)
                scheduler.step(epoch)


class TestLRScheduler(unittest.TestCase):
    def _test_static(self, python_func, paddle_api, kwarg, place):
        scheduler = paddle_api(**kwarg)
        adam = paddle.optimizer.Adam(learning_rate=scheduler)
        main_prog, start_prog = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main_prog, start_prog):
            x = paddle.static.data(name="x", shape=[3, 4, 5])
            loss = paddle.mean(x)
            adam.minimize(loss)
            lr_var = adam._global_learning_rate()
            test_prog = main_prog.clone()
        num = 0
        exe = paddle.static.Executor(place)
        exe.run(start_prog)
        for epoch in range(5):
            for _ in range(2):
                out = exe.run(main_prog,
                              feed={"x": np.random.randn(3, 4, 5).astype("float32")},
                              fetch_list=[lr_var.name])
            self.assertEqual(out[0].reshape(-1)[0],
                             np.array(python_func(num, **kwarg)).astype("float32"))
            scheduler.step()
            num += 1
        for epoch in range(5):
            for _ in range(2):
                out = exe.run(test_prog,
                              feed={"x": np.random.randn(3, 4, 5).astype("float32")},
                              fetch_list=[lr_var.name])
            self.assertEqual(out[0].reshape(-1)[0],
                             np.array(python_func(num, **kwarg)).astype("float32"))
            scheduler.step()
            num += 1

    def test_scheduler(self):
        with self.assertRaises(NotImplementedError):
            paddle.optimizer.lr.LRScheduler(learning_rate=0.1).step()
        with self.assertRaises(TypeError):
            paddle.optimizer.lr.MultiStepDecay(learning_rate=0.5, milestones="test", gamma=1)
        with self.assertRaises(ValueError):
            paddle.optimizer.lr.MultiStepDecay(learning_rate=0.5, milestones=[3, 2, 1],
                                               gamma=0.1)
        with self.assertRaises(ValueError):
            paddle.optimizer.lr.MultiStepDecay(learning_rate=0.5, milestones=[1, 2, 3],
                                               gamma=2)
        with self.assertRaises(TypeError):
            paddle.optimizer.lr.StepDecay(learning_rate=0.5, step_size="test", gamma=1)
        with self.assertRaises(ValueError):
            paddle.optimizer.lr.StepDecay(learning_rate=0.5, step_size=-1, gamma=1)
        lr = paddle.optimizer.lr
        for make, error in [
                (lambda: lr.OneCycleLR(max_learning_rate='test', total_steps=20), TypeError),
                (lambda: lr.OneCycleLR(max_learning_rate=-1.5, total_steps=20), ValueError),
                (lambda: lr.OneCycleLR(0.1, total_steps=20, end_learning_rate='test'), TypeError),
                (lambda: lr.OneCycleLR(0.1, total_steps=20, end_learning_rate=-1), ValueError),
                (lambda: lr.OneCycleLR(0.1, total_steps='test'), TypeError),
                (lambda: lr.OneCycleLR(0.1, total_steps=-10), ValueError),
                (lambda: lr.OneCycleLR(0.1, total_steps=20, anneal_strategy='test'), ValueError),
                (lambda: lr.OneCycleLR(0.1, total_steps=20, phase_pct=0.6, three_phase=True),
                 ValueError),
                (lambda: lr.CyclicLR(0.5, max_learning_rate='test', step_size_up=10), TypeError),
                (lambda: lr.CyclicLR(0.5, max_learning_rate=-1, step_size_up=10), ValueError),
                (lambda: lr.CyclicLR(0.5, 1.0, step_size_up='test'), TypeError),
                (lambda: lr.CyclicLR(0.5, 1.0, step_size_up=-1), ValueError),
                (lambda: lr.CyclicLR(0.5, 1.0, step_size_up=500, step_size_down='test'),
                 TypeError),
                (lambda: lr.CyclicLR(0.5, 1.0, step_size_up=500, step_size_down=-1), ValueError),
                (lambda: lr.CyclicLR(0.5, 1.0, 500, 500, mode='test'), ValueError),
                (lambda: lr.CyclicLR(0.5, 1.0, 500, -1, scale_mode='test'), ValueError)]:
            with self.assertRaises(error):
                make()
        with self.assertRaises(ValueError):
            paddle.optimizer.lr.PiecewiseDecay(boundaries=[], values=[])
        with self.assertRaises(ValueError):
            paddle.optimizer.lr.PiecewiseDecay(boundaries=[1, 2], values=[1, 2])

        cases = [
            (noam_lr, paddle.optimizer.lr.NoamDecay,
             {"d_model": 0.01, "warmup_steps": 100, "verbose": False}),
            (piecewise_lr, paddle.optimizer.lr.PiecewiseDecay,
             {"boundaries": [3, 6, 9, 15, 20], "values": [0.1, 0.2, 0.3, 0.4, 0.5, 0.6],
              "verbose": False}),
            (natural_exp_lr, paddle.optimizer.lr.NaturalExpDecay,
             {"learning_rate": 0.5, "gamma": 0.1, "verbose": True}),
            (inverse_time_lr, paddle.optimizer.lr.InverseTimeDecay,
             {"learning_rate": 0.5, "gamma": 0.1, "verbose": False}),
            (polynomial_lr, paddle.optimizer.lr.PolynomialDecay,
             {"learning_rate": 0.5, "decay_steps": 20, "end_lr": 0, "power": 1.0,
              "cycle": False}),
            (polynomial_lr, paddle.optimizer.lr.PolynomialDecay,
             {"learning_rate": 0.5, "decay_steps": 20, "end_lr": 0, "power": 1.0,
              "cycle": True, "verbose": False}),
            (linear_warmup_lr, paddle.optimizer.lr.LinearWarmup,
             {"learning_rate": 0.5, "warmup_steps": 10, "start_lr": 0, "end_lr": 0.5}),
            (linear_warmup_lr, paddle.optimizer.lr.LinearWarmup,
             {"learning_rate": paddle.optimizer.lr.PolynomialDecay(
                 learning_rate=0.5, decay_steps=20, end_lr=0, power=1.0, cycle=True),
              "warmup_steps": 3, "start_lr": 0.1, "end_lr": 0.5}),
            (exponential_lr, paddle.optimizer.lr.ExponentialDecay,
             {"learning_rate": 0.5, "gamma": 0.9, "verbose": False}),
            (multi_step_lr, paddle.optimizer.lr.MultiStepDecay,
             {"learning_rate": 0.5, "milestones": [3, 6, 9, 15, 20], "gamma": 0.8}),
            (step_lr, paddle.optimizer.lr.StepDecay,
             {"learning_rate": 0.5, "step_size": 2, "gamma": 0.8, "verbose": False}),
            (lambda_lr, paddle.optimizer.lr.LambdaDecay,
             {"learning_rate": 0.5, "lr_lambda": lambda x: 0.95 ** x, "verbose": False}),
            (multiplicative_lr, paddle.optimizer.lr.MultiplicativeDecay,
             {"learning_rate": 0.5, "lr_lambda": lambda x: 0.95, "verbose": False}),
            (cosine_annealing_lr, paddle.optimizer.lr.CosineAnnealingDecay,
             {"learning_rate": 0.5, "T_max": 10, "verbose": False}),
            (one_cycle_lr, paddle.optimizer.lr.OneCycleLR,
             {"max_learning_rate": 0.1, "total_steps": 20, "divide_factor": 5,
              "end_learning_rate": 0.0001, "anneal_strategy": 'cos', "phase_pct": 0.3,
              "three_phase": False}),
            (one_cycle_lr, paddle.optimizer.lr.OneCycleLR,
             {"max_learning_rate": 0.5, "total_steps": 20, "divide_factor": 10,
              "end_learning_rate": 0.001, "anneal_strategy": 'linear', "phase_pct": 0.4,
              "three_phase": False}),
            (one_cycle_lr, paddle.optimizer.lr.OneCycleLR,
             {"max_learning_rate": 1.0, "total_steps": 20, "divide_factor": 9,
              "end_learning_rate": 0.0001, "anneal_strategy": 'cos', "phase_pct": 0.3,
              "three_phase": True}),
            (one_cycle_lr, paddle.optimizer.lr.OneCycleLR,
             {"max_learning_rate": 0.3, "total_steps": 20, "divide_factor": 25,
              "end_learning_rate": 0.0005, "anneal_strategy": 'linear', "phase_pct": 0.2,
              "three_phase": True}),
        ] + [
            (cyclic_lr, paddle.optimizer.lr.CyclicLR,
             {"base_learning_rate": 0.5, "max_learning_rate": 1.0, "step_size_up": 15,
              "step_size_down": 5, "mode": mode, "exp_gamma": gamma, "scale_fn": scale_fn,
              "scale_mode": scale_mode, "verbose": False})
            for mode, gamma, scale_fn, scale_mode in [
                ('triangular', 1.0, None, 'cycle'), ('triangular2', 1.0, None, 'cycle'),
                ('exp_range', 0.8, None, 'cycle'), ('exp_range', 1.0, lambda x: 0.95 ** x, 'cycle'),
                ('exp_range', 1.0, lambda x: 0.95, 'iterations')]
        ]
        for python_func, paddle_api, kwarg in cases:
            with self.subTest(api=paddle_api.__name__):
                self._test_static(python_func, paddle_api, kwarg, paddle.CPUPlace())


if __name__ == "__main__":
    unittest.main()
