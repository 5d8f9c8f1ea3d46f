"""Port of Paddle test/legacy_test/test_elementwise_pow_op.py: its static-graph parts.

Paddle's file has OpTest classes only (besides a dygraph gradient test). Kept: the forward output
of the float64 and int OpTest cases (same shape, 0-d, scalar, vector, broadcast, int64 data)
through paddle.pow with a Variable exponent (the elementwise_pow op), same shapes and data
ranges, against np.power at OpTest's float64 tolerance.
Dropped: OpTest gradient checks (incl. prim), TestElementwisePowGradOpInt (dygraph),
fp16/bf16 variants.
"""
import unittest

import numpy as np

import fluidc as paddle

from .op_forward import run_forward


class TestElementwisePowOp(unittest.TestCase):
    x_shape, y_shape = [20, 5], [20, 5]
    x_range, y_range = (1, 2), (1, 2)

    def init_data(self):
        self.x = np.random.uniform(*self.x_range, self.x_shape).astype('float64')
        self.y = np.random.uniform(*self.y_range, self.y_shape).astype('float64')

    def test_check_output(self):
        self.init_data()
        out = np.power(self.x, self.y)
        res = run_forward(paddle.pow, {'x': self.x, 'y': self.y})
        self.assertEqual(res.dtype, out.dtype)
        self.assertEqual(res.shape, out.shape)
        np.testing.assert_allclose(res, out, rtol=1e-7, atol=1e-7)


def _case(name, x_shape, y_shape, x_range, y_range):
    globals()[name] = type(name, (TestElementwisePowOp,), {
        'x_shape': x_shape, 'y_shape': y_shape, 'x_range': x_range, 'y_range': y_range})


_case('TestElementwisePowOp_ZeroDim1', [], [], (1, 2), (1, 2))
_case('TestElementwisePowOp_ZeroDim2', [20, 5], [], (1, 2), (1, 2))
_case('TestElementwisePowOp_ZeroDim3', [], [20, 5], (1, 2), (1, 2))
_case('TestElementwisePowOp_big_shape_1', [10, 10], [10, 10], (1, 2), (0.1, 1))
_case('TestElementwisePowOp_big_shape_2', [10, 10], [10, 10], (1, 2), (0.2, 2))
_case('TestElementwisePowOp_scalar', [3, 3, 4], [1], (0.1, 1), (0.1, 1))
_case('TestElementwisePowOp_tensor', [100], [100], (0.1, 1), (1, 3))
_case('TestElementwisePowOp_broadcast_0', [2, 1, 100], [100], (0.1, 1), (0.1, 1))
_case('TestElementwisePowOp_broadcast_4', [2, 10, 3, 5], [2, 10, 1, 5], (0.1, 1), (0.1, 1))


class TestElementwisePowOpInt(TestElementwisePowOp):
    def init_data(self):
        self.x, self.y = np.asarray([1, 3, 6]), np.asarray([1, 1, 1])


if __name__ == '__main__':
    unittest.main()
