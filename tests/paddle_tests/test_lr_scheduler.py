"""Port of Paddle test/legacy_test/test_lr_scheduler.py (static parts).

Kept: the numpy reference schedules and TestLRScheduler's checks that each paddle.optimizer.lr
schedule, given to a static Adam, puts its value into the learning-rate var every run (fetched
from the main program and its clone) and that scheduler.step() moves it; the argument errors.
Dropped: every _test_dygraph half (fluidc has no dygraph), ReduceOnPlateau's static half (uses
paddle.increment / paddle.sin on a global var; its schedule is checked in
tests/test_lr_schedules.py), and the schedules fluidc does not provide (OneCycleLR, CyclicLR,
LinearLR, CosineAnnealingWarmRestarts).
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
        ]
        for python_func, paddle_api, kwarg in cases:
            with self.subTest(api=paddle_api.__name__):
                self._test_static(python_func, paddle_api, kwarg, paddle.CPUPlace())


if __name__ == "__main__":
    unittest.main()
