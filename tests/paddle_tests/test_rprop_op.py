"""Port of Paddle test/legacy_test/test_rprop_op.py: the rprop op and paddle.optimizer.Rprop.

Kept: TestRpropOp and TestRpropOpCase8X (the op appended to a Program's block with param / grad
/ prev / learning_rate (per-element step sizes) / learning_rate_range / etas fed, as OpTest
runs it: the three outputs against the file's row-by-row numpy Rprop), TestRpropV2 (a dygraph
step, the ValueErrors, parameter groups).
Dropped: TestRpropMultiPrecision2_0 and TestRpropSimple (CUDA only; PIR programs),
TestRpropOpBF16 (Paddle's oneDNN bfloat16 kernel).
"""
import unittest

import numpy as np

import fluidc as paddle

from .update_op import run_update_op

paddle.enable_static()


class TestRpropOp(unittest.TestCase):
    def setUp(self):
        self.op_type = "rprop"
        self.conf()
        params = np.random.random((self.h, self.w)).astype("float32")
        grads = np.random.random((self.h, self.w)).astype("float32")
        prevs = np.random.random((self.h, self.w)).astype("float32")
        learning_rates = np.random.random((self.h, self.w)).astype("float32")

        scale = 0.01
        np.subtract(params, 0.5, out=params)
        np.multiply(params, scale, out=params)
        np.subtract(grads, 0.5, out=grads)
        np.multiply(grads, scale, out=grads)
        np.subtract(prevs, 0.5, out=prevs)
        np.multiply(prevs, scale, out=prevs)
        np.multiply(learning_rates, scale, out=learning_rates)

        learning_rate_min = 0.1 * scale
        learning_rate_max = 0.9 * scale
        eta_negative = 0.5
        eta_positive = 1.2

        param_outs = params.copy()
        prev_outs = prevs.copy()
        learning_rate_outs = learning_rates.copy()

        for i, param in enumerate(params):
            grad = grads[i]
            prev = prevs[i]
            lr = learning_rate_outs[i]
            param_out = param_outs[i]
            prev_out = prev_outs[i]

            sign = np.sign(np.multiply(grad, prev))
            sign[np.greater(sign, 0)] = eta_positive
            sign[np.less(sign, 0)] = eta_negative
            sign[np.equal(sign, 0)] = 1
            np.multiply(lr, sign, out=lr)
            lr[np.less(lr, learning_rate_min)] = learning_rate_min
            lr[np.greater(lr, learning_rate_max)] = learning_rate_max

            grad = grad.copy()
            grad[np.equal(sign, eta_negative)] = 0

            learning_rate_outs[i] = lr
            param_outs[i] = np.subtract(
                param_out, np.multiply(np.sign(grad), lr)
            )
            prev_outs[i] = grad.copy()

        self.inputs = {
            "param": params,
            "grad": grads,
            "prev": prevs,
            "learning_rate": learning_rates,
            "learning_rate_range": np.array(
                (learning_rate_min, learning_rate_max)
            ).astype("float32"),
            "etas": np.array((0.5, 1.2)).astype("float32"),
        }

        self.outputs = {
            "param_out": param_outs,
            "prev_out": prev_outs,
            "learning_rate_out": learning_rate_outs,
        }

    def conf(self):
        self.h = 102
        self.w = 105

    def test_check_output(self):
        got = run_update_op(self.op_type, self.inputs, self.outputs, {})
        for name, want in self.outputs.items():
            np.testing.assert_allclose(got[name], want, rtol=1e-5, atol=1e-7, err_msg=name)


class TestRpropOpCase8X(TestRpropOp):
    def conf(self):
        self.h = 10
        self.w = 64


class TestRpropV2(unittest.TestCase):
    def test_rprop_dygraph(self):
        paddle.disable_static()
        value = np.arange(26).reshape(1, 26).astype("float32")
        a = paddle.to_tensor(value)
        linear = paddle.nn.Linear(26, 5)

        rprop = paddle.optimizer.Rprop(
            learning_rate=0.01,
            parameters=linear.parameters(),
        )
        out = linear(a)
        out.backward()
        rprop.step()
        rprop.clear_gradients()

    def test_raise_error(self):
        self.assertRaises(
            ValueError, paddle.optimizer.Rprop, learning_rate=None
        )
        self.assertRaises(
            ValueError,
            paddle.optimizer.Rprop,
            learning_rate=1e-3,
            learning_rate_range=np.array((1e-2, 1e-1)).astype("float32"),
        )
        self.assertRaises(
            ValueError,
            paddle.optimizer.Rprop,
            learning_rate=1e-3,
            etas=np.array((-0.1, 1.1)).astype("float32"),
        )

    def test_rprop_group_dygraph(self):
        paddle.disable_static()
        value = np.arange(26).reshape(1, 26).astype("float32")
        a = paddle.to_tensor(value)
        linear_1 = paddle.nn.Linear(26, 5)
        linear_2 = paddle.nn.Linear(5, 3)
        rprop = paddle.optimizer.Rprop(
            learning_rate=0.01,
            parameters=[
                {'params': linear_1.parameters()},
                {
                    'params': linear_2.parameters(),
                    'learning_rate': 0.1,
                },
            ],
        )
        out = linear_1(a)
        out = linear_2(out)
        out.backward()
        rprop.step()
        rprop.clear_gradients()


if __name__ == "__main__":
    unittest.main()
