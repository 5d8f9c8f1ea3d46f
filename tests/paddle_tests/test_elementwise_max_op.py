"""Port of Paddle test/legacy_test/test_elementwise_max_op.py: its static-graph parts.

run-on-paddle: pir

Paddle's file has OpTest classes only. Kept: the forward output of the float64 OpTest cases
(same shape, 0-d, scalar, vector, broadcast) through paddle.maximum, with Paddle's data (y kept
0.1 to 1 away from x, so max is differentiable) and numpy reference, at OpTest's float64
tolerance.
Dropped: OpTest gradient checks (incl. prim), fp16 variants (their reference is float16 numpy;
fluidc computes float16 through float32) and bf16 variants (CUDA only).
Paddle 3.3.1's paddle.maximum works on static programs only with PIR, hence the marker.
"""
import unittest

import numpy as np

import fluidc as paddle

from .op_forward import apart, run_forward


class TestElementwiseOp(unittest.TestCase):
    def init_data(self):
        self.x = np.random.uniform(0.1, 1, [13, 17]).astype('float64')
        self.y = apart(self.x, [13, 17], 0.1, 1)

    def test_check_output(self):
        self.init_data()
        out = np.maximum(self.x, self.y)
        res = run_forward(paddle.maximum, {'x': self.x, 'y': self.y})
        self.assertEqual(res.shape, out.shape)
        np.testing.assert_allclose(res, out, rtol=1e-7, atol=1e-7)


class TestElementwiseMaxOp_ZeroDim1(TestElementwiseOp):
    def init_data(self):
        self.x = np.random.uniform(0.1, 1, []).astype('float64')
        self.y = np.random.uniform(0.1, 1, []).astype('float64')


class TestElementwiseMaxOp_ZeroDim2(TestElementwiseOp):
    def init_data(self):
        self.x = np.random.uniform(0.1, 1, [13, 17]).astype('float64')
        self.y = np.random.uniform(0.1, 1, []).astype('float64')


class TestElementwiseMaxOp_ZeroDim3(TestElementwiseOp):
    def init_data(self):
        self.x = np.random.uniform(0.1, 1, []).astype('float64')
        self.y = np.random.uniform(0.1, 1, [13, 17]).astype('float64')


class TestElementwiseMaxOp_scalar(TestElementwiseOp):
    def init_data(self):
        self.x = np.random.randint(-5, 6, [2, 3, 20]).astype('float64')
        self.y = np.array([0.5]).astype('float64')


class TestElementwiseMaxOp_Vector(TestElementwiseOp):
    def init_data(self):
        self.x = np.random.random((100,)).astype('float64')
        self.y = apart(self.x, (100,), 0.1, 1)


class TestElementwiseMaxOp_broadcast_2(TestElementwiseOp):
    def init_data(self):
        self.x = np.random.uniform(0.5, 1, (1, 3, 100)).astype('float64')
        self.y = apart(self.x[0, 0, :], (100,), 1, 2)


class TestElementwiseMaxOp_broadcast_4(TestElementwiseOp):
    def init_data(self):
        self.x = np.random.uniform(0.5, 1, (2, 3, 4, 5)).astype('float64')
        self.y = apart(self.x, (2, 3, 1, 5), 1, 2)


if __name__ == '__main__':
    unittest.main()
