"""Port of Paddle test/legacy_test/test_nadam_op.py: the nadam op and paddle.optimizer.NAdam.

Kept: TestNAdamOp (the op appended to a Program's block with param / grad / learning_rate and
the five accumulators fed, as OpTest runs it: the six outputs against the file's nadam_step),
TestNAdamAPI (dygraph steps, backward + apply_gradients in dygraph, a static conv2d program
trained a step, the ValueErrors), TestNAdamAPIGroup, TestNAdamMultiPrecision on the CPU,
TestNAdamGroupWithLR.
Changed for Paddle 3.3.1: its nadam kernel has no momentum_decay_base attribute (the base is
the literal 0.96) and walks momentum_decay_pow / beta2_pow / mu_product element by element
with the param (the optimizer makes them param-shaped; 0-d ones, as the file's newer version
feeds, give NaNs there), so the OpTest feeds them at the param's shape and nadam_step uses
0.96; NAdam takes no momentum_decay_base argument, so that ValueError case is dropped.
Dropped: TestNAdamOpGPU (CUDA), test_pir_nadam (PIR programs).
"""
import unittest
from copy import deepcopy

import numpy as np

import fluidc as paddle
import fluidc as fluid

from .update_op import run_update_op

RTOL = 1e-06
ATOL = 1e-06
MOMENTUM_DECAY_BASE = 0.96  # Paddle 3.3.1's kernel literal


def nadam_step(inputs, attributes):
    param = inputs['param']
    grad = inputs['grad']
    lr = inputs['learning_rate']

    # accumulators
    momentum_decay_pow = inputs['momentum_decay_pow']
    beta2_pow = inputs['beta2_pow']
    mu_product = inputs['mu_product']
    moment1 = inputs['moment1']
    moment2 = inputs['moment2']

    # attrs
    epsilon = attributes['epsilon']
    beta1 = attributes['beta1']
    beta2 = attributes['beta2']
    momentum_decay = attributes['momentum_decay']
    momentum_decay_base = MOMENTUM_DECAY_BASE

    momentum_decay_pow *= momentum_decay_base
    beta2_pow *= beta2

    mu_t = beta1 * (1.0 - 0.5 * (momentum_decay_pow**momentum_decay))
    mu_t_1 = beta1 * (
        1.0
        - 0.5
        * (momentum_decay_pow**momentum_decay)
        * (momentum_decay_base**momentum_decay)
    )

    mu_product *= mu_t
    mu_product_t_1 = mu_product * mu_t_1

    moment1 = beta1 * moment1 + (1.0 - beta1) * grad
    moment2 = beta2 * moment2 + (1.0 - beta2) * grad * grad

    moment1_hat = mu_t_1 * moment1 / (1.0 - mu_product_t_1) + (
        1.0 - mu_t
    ) * grad / (1.0 - mu_product)
    moment2_hat = moment2 / (1.0 - beta2_pow)

    param = param - lr * moment1_hat / (np.sqrt(moment2_hat) + epsilon)

    # get accumulators
    return param, momentum_decay_pow, beta2_pow, mu_product, moment1, moment2



class TestNAdamOp(unittest.TestCase):
    def setUp(self):
        '''Test NAdam Op with supplied attributes'''
        np.random.seed(2024)

        self.op_type = "nadam"

        shape = (102, 105)
        param = np.random.uniform(-1, 1, shape).astype("float32")
        grad = np.random.uniform(-1, 1, shape).astype("float32")
        learning_rate = np.array(0.003).astype("float32")

        beta1 = 0.78
        beta2 = 0.915
        epsilon = 1e-8
        momentum_decay = 0.004
        momentum_decay_base = MOMENTUM_DECAY_BASE

        # accumulators, at the param's shape (see the module doc)
        momentum_decay_pow = np.full(shape, momentum_decay_base**3).astype(
            "float32"
        )
        # use beta1 to fake mu_product
        mu_product = np.full(shape, beta1**3).astype("float32")
        beta2_pow = np.full(shape, beta2**3).astype("float32")
        moment1 = np.random.uniform(-1, 1, shape).astype("float32")
        # The second moment is positive
        moment2 = np.random.random(shape).astype("float32")

        self.inputs = {
            "param": param,
            "grad": grad,
            "momentum_decay_pow": momentum_decay_pow,
            "beta2_pow": beta2_pow,
            "mu_product": mu_product,
            "moment1": moment1,
            "moment2": moment2,
            "learning_rate": learning_rate,
        }

        self.attrs = {
            "epsilon": epsilon,
            "beta1": beta1,
            "beta2": beta2,
            "momentum_decay": momentum_decay,
        }

        (
            param_out,
            momentum_decay_pow_out,
            beta2_pow_out,
            mu_product_out,
            moment1_out,
            moment2_out,
        ) = nadam_step(deepcopy(self.inputs), deepcopy(self.attrs))

        self.outputs = {
            "param_out": param_out,
            "momentum_decay_pow_out": momentum_decay_pow_out,
            "beta2_pow_out": beta2_pow_out,
            "mu_product_out": mu_product_out,
            "moment1_out": moment1_out,
            "moment2_out": moment2_out,
        }

    def test_check_output(self):
        got = run_update_op(self.op_type, self.inputs, self.outputs, self.attrs)
        for name, want in self.outputs.items():
            np.testing.assert_allclose(got[name], want, rtol=RTOL, atol=ATOL, err_msg=name)


class TestNAdamAPI(unittest.TestCase):
    def test_nadam_dygraph(self):
        paddle.disable_static()
        value = np.arange(26).reshape(2, 13).astype("float32")
        a = paddle.to_tensor(value)
        linear = paddle.nn.Linear(13, 5)
        nadam = paddle.optimizer.NAdam(
            learning_rate=0.01,
            parameters=linear.parameters(),
            weight_decay=0.01,
        )

        for _ in range(2):
            out = linear(a)
            out.backward()
            nadam.step()
            nadam.clear_gradients()

    def test_nadam_apply_gradients(self):
        paddle.disable_static()
        value = np.arange(26).reshape(2, 13).astype("float32")
        a = paddle.to_tensor(value)
        linear = paddle.nn.Linear(13, 5)
        nadam = paddle.optimizer.NAdam(
            learning_rate=0.01,
            parameters=linear.parameters(),
            weight_decay=0.01,
        )

        for _ in range(2):
            out = linear(a)
            loss = paddle.mean(out)
            param_grads = nadam.backward(loss)
            nadam.apply_gradients(param_grads)
            nadam.clear_gradients()

    def test_nadam_static(self):
        paddle.enable_static()
        place = fluid.CPUPlace()
        shape = [2, 3, 8, 8]
        exe = fluid.Executor(place)
        train_prog = fluid.Program()
        startup = fluid.Program()
        with fluid.program_guard(train_prog, startup):
            with fluid.unique_name.guard():
                data = paddle.static.data(name="data", shape=shape)
                conv = paddle.static.nn.conv2d(data, 8, 3)
                loss = paddle.mean(conv)

                beta1 = 0.85
                beta2 = 0.95
                opt = paddle.optimizer.NAdam(
                    learning_rate=1e-5,
                    beta1=beta1,
                    beta2=beta2,
                    weight_decay=0.01,
                    epsilon=1e-8,
                )
                opt.minimize(loss)

        exe.run(startup)
        data_np = np.random.random(shape).astype('float32')
        rets = exe.run(train_prog, feed={"data": data_np}, fetch_list=[loss])
        assert rets[0] is not None
        paddle.disable_static()

    def test_nadam_invalid_input(self):
        paddle.disable_static()
        linear = paddle.nn.Linear(10, 10)
        with self.assertRaises(ValueError):
            _ = paddle.optimizer.NAdam(
                learning_rate=-1, parameters=linear.parameters()
            )
        with self.assertRaises(ValueError):
            _ = paddle.optimizer.NAdam(
                0.1, beta1=-1, parameters=linear.parameters()
            )
        with self.assertRaises(ValueError):
            _ = paddle.optimizer.NAdam(
                0.1, beta2=-1, parameters=linear.parameters()
            )
        with self.assertRaises(ValueError):
            _ = paddle.optimizer.NAdam(
                0.1, beta1=2.0, parameters=linear.parameters()
            )
        with self.assertRaises(ValueError):
            _ = paddle.optimizer.NAdam(
                0.1, beta2=2.0, parameters=linear.parameters()
            )
        with self.assertRaises(ValueError):
            _ = paddle.optimizer.NAdam(
                0.1, epsilon=-1, parameters=linear.parameters()
            )
        with self.assertRaises(ValueError):
            _ = paddle.optimizer.NAdam(
                0.1, momentum_decay=-1, parameters=linear.parameters()
            )


class TestNAdamAPIGroup(TestNAdamAPI):
    def test_nadam_dygraph(self):
        paddle.disable_static()
        value = np.arange(26).reshape(2, 13).astype("float32")
        a = paddle.to_tensor(value)
        linear_1 = paddle.nn.Linear(13, 5)
        linear_2 = paddle.nn.Linear(5, 3)
        nadam = paddle.optimizer.NAdam(
            learning_rate=0.01,
            parameters=[
                {'params': linear_1.parameters()},
                {'params': linear_2.parameters(), 'weight_decay': 0.001},
            ],
            weight_decay=0.01,
        )

        for _ in range(2):
            out = linear_1(a)
            out = linear_2(out)
            out.backward()
            nadam.step()
            nadam.clear_gradients()


class TestNAdamMultiPrecision(unittest.TestCase):
    def _test_nadam_dygraph_place_amp(self, place, use_amp=False):
        paddle.disable_static()
        paddle.seed(10)
        paddle.set_device(place)

        input = paddle.randn((5, 5))

        model = paddle.nn.Linear(5, 5)

        optimizer = paddle.optimizer.NAdam(
            parameters=[
                {
                    'params': model.parameters(),
                    'weight_decay': 0.001,
                    'beta1': 0.1,
                    'beta2': 0.99,
                }
            ],
        )

        optimizer._multi_precision = use_amp

        for _ in range(2):
            output = model(input)
            loss = paddle.mean(output)
            loss.backward()
            optimizer.step()
            optimizer.clear_grad()

    def test_main(self):
        # the CPU place (the file's GPU AMP branch needs CUDA)
        for use_amp in [True, False]:
            self._test_nadam_dygraph_place_amp('cpu', use_amp)


class TestNAdamGroupWithLR(TestNAdamAPI):
    def test_nadam(self):
        paddle.disable_static()
        value = np.arange(26).reshape(2, 13).astype("float32")
        a = paddle.to_tensor(value)
        linear_1 = paddle.nn.Linear(13, 5)
        linear_2 = paddle.nn.Linear(5, 3)
        nadam = paddle.optimizer.NAdam(
            learning_rate=paddle.optimizer.lr.PiecewiseDecay(
                boundaries=[3, 6], values=[0.1, 0.2, 0.3]
            ),
            parameters=[
                {
                    'params': linear_1.parameters(),
                    'learning_rate': 0.1,
                },
                {
                    'params': linear_2.parameters(),
                    'weight_decay': 0.001,
                },
            ],
            weight_decay=0.01,
        )

        for _ in range(2):
            out = linear_1(a)
            out = linear_2(out)
            out.backward()
            nadam.step()
            nadam.clear_gradients()


if __name__ == "__main__":
    unittest.main()
