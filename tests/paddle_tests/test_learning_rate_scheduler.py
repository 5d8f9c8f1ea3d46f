"""Port of Paddle test/legacy_test/test_learning_rate_scheduler.py.

Kept: TestLearningRateDecay.test_decay (1.x decay functions of paddle.optimizer.lr run in a static
program for 10 steps against their Python formulas) for the cases Paddle 3.3.1 can still build,
and the parts of TestLearningRateDecayDygraph that are plain Python schedule objects
(test_LinearLrWarmup, test_StepDecay, test_LambdaDecay; Paddle runs them under dygraph.guard,
which they do not need). The fetched float32 is compared as float(lr_val[0]): under numpy 2 a
Python float minus a numpy float32 is float32, which turns a 4e-8 gap into one that fails
assertAlmostEqual's 7 places.

Dropped because Paddle 3.3.1 cannot run them (these are its own static paths, broken in both
modes: on a legacy program they call floor / exp / ceil / minimum / logical_not, which take only
PIR values; under PIR the step counter's cast rejects its legacy Variable):
test_decay's staircase variants and its natural_exp_decay, polynomial_decay, piecewise_decay,
cosine_decay and noam_decay cases, TestLinearWamrupLearningRateDecay and
TestLinearWamrupLearningRateDecayWithScalarInput (linear_lr_warmup). fluidc's versions of all of
them are checked against the same formulas in tests/test_lr_schedules.py.
Also dropped: test_LR_state_dict, test_NoamDecay, test_MultiStepDecay (dygraph optimizers, Linear
layers, paddle.save of dygraph state), the dygraph Linear/Adam lines of test_LambdaDecay, and
test_LinearLrWarmup's linear_lr_warmup("fake_lr") TypeError (a dygraph-mode check). GPU places.
"""
import math
import unittest

import numpy as np

import fluidc as paddle

paddle.enable_static()


def exponential_decay(learning_rate, global_step, decay_steps, decay_rate, staircase=False):
    exponent = global_step / decay_steps
    if staircase:
        exponent = math.floor(exponent)
    return learning_rate * decay_rate ** exponent


def inverse_time_decay(learning_rate, global_step, decay_steps, decay_rate, staircase=False):
    temp = float(global_step) / float(decay_steps)
    if staircase:
        temp = math.floor(temp)
    return learning_rate / (1 + decay_rate * temp)


def step_decay(global_step, learning_rate, step_size, decay_rate=0.1):
    return learning_rate * math.pow(decay_rate, global_step // step_size)


def lambda_decay(global_step, learning_rate, lr_lambda):
    return learning_rate * lr_lambda(global_step)


class TestLearningRateDecayDygraph(unittest.TestCase):
    def test_LinearLrWarmup(self):
        lr = paddle.optimizer.lr.PolynomialDecay(learning_rate=1.0, decay_steps=10, end_lr=0.0,
                                                 power=1.0)
        lr.step()
        lr = paddle.optimizer.lr.LinearWarmup(learning_rate=lr, warmup_steps=2, start_lr=0.0,
                                              end_lr=1.0)
        lr.step()
        right_result = [0.5, 0.9, 0.8, 0.7, 0.6]
        for i in range(5):
            if i == 1:
                lr.step()
            t = lr()
            lr.step()
            np.testing.assert_allclose(t, right_result[i], rtol=1e-05)

    def test_StepDecay(self):
        learning_rate = 0.5
        step_size = 3
        decay_rate = 0.2
        scheduler = paddle.optimizer.lr.StepDecay(learning_rate, step_size, decay_rate)
        for epoch in range(10):
            right_result = step_decay(epoch, learning_rate, step_size, decay_rate)
            base_result = scheduler()
            scheduler.get_lr()
            scheduler.step()
            self.assertAlmostEqual(
                right_result, base_result,
                msg=f'Failed lr scheduler in epoch {epoch}, Python result is {right_result}, '
                    f'Fluid result is {base_result}')

        with self.assertRaises(TypeError):
            paddle.optimizer.lr.StepDecay(learning_rate, "test", 0.1)

        with self.assertRaises(ValueError):
            paddle.optimizer.lr.StepDecay(learning_rate, 20, 2)

    def test_LambdaDecay(self):
        learning_rate = 0.5
        lr_lambda = lambda x: 0.95 ** x  # noqa: E731 (Paddle's)
        scheduler = paddle.optimizer.lr.LambdaDecay(learning_rate, lr_lambda)

        for epoch in range(30):
            right_result = lambda_decay(epoch, learning_rate, lr_lambda)
            base_result = scheduler()
            scheduler.get_lr()
            scheduler.step()
            self.assertAlmostEqual(
                right_result, base_result,
                msg=f'Failed lr scheduler in epoch {epoch}, Python result is {right_result}, '
                    f'Fluid result is {base_result}')

        with self.assertRaises(TypeError):
            paddle.optimizer.lr.LambdaDecay(learning_rate, "test")


class TestLearningRateDecay(unittest.TestCase):
    def check_decay(self, python_decay_fn, base_decay_fn, kwargs):
        for place in [paddle.CPUPlace()]:
            self.check_decay_with_place(place, python_decay_fn, base_decay_fn, kwargs)

    def check_decay_with_place(self, place, python_decay_fn, base_decay_fn, kwargs):
        main_prog = paddle.static.Program()
        startup_prog = paddle.static.Program()

        with paddle.static.program_guard(main_prog, startup_prog):
            decayed_lr = base_decay_fn(**kwargs)

        place = paddle.CPUPlace()
        exe = paddle.static.Executor(place)

        exe.run(startup_prog)

        for step in range(10):
            (lr_val,) = exe.run(main_prog, feed={}, fetch_list=[decayed_lr])
            python_decayed_lr = python_decay_fn(global_step=float(step), **kwargs)
            self.assertAlmostEqual(
                python_decayed_lr, float(lr_val[0]),
                msg=f'Failed lr scheduler is {python_decay_fn.__name__}, step {step}, Python '
                    f'result is {python_decayed_lr}, Fluid result is {lr_val[0]}')

    def test_decay(self):
        common_kwargs_false = {"learning_rate": 1.0, "decay_steps": 5, "decay_rate": 0.5,
                               "staircase": False}
        lr = paddle.optimizer.lr

        decay_fns = [
            (exponential_decay, lr.exponential_decay, common_kwargs_false),
            (inverse_time_decay, lr.inverse_time_decay, common_kwargs_false),
        ]

        for py_decay_fn, base_decay_fn, kwargs in decay_fns:
            with self.subTest(decay_fn=py_decay_fn.__name__, kwargs=kwargs):
                main_program = paddle.static.Program()
                startup_program = paddle.static.Program()
                with paddle.static.program_guard(main_program, startup_program):
                    self.check_decay(py_decay_fn, base_decay_fn, kwargs)


if __name__ == '__main__':
    unittest.main()
