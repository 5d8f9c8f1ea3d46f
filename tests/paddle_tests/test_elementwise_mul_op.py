"""Port of Paddle test/legacy_test/test_elementwise_mul_op.py: its static-graph parts.

run-on-paddle: pir

Paddle's file has OpTest classes only (besides a dygraph test). Kept: the forward output of the
OpTest cases whose numpy reference is plain broadcasting (same shape, 0-d, scalar, vector,
broadcast with axis -1, common use) and of the two complex128 cases, through paddle.multiply
on the same shapes, dtypes and data ranges, at OpTest's float64 tolerance.
Dropped: OpTest gradient checks, the cases using the op's `axis` attribute (broadcast_0/1/3,
xsize_lessthan_ysize: no 2.x form), fp16/bf16 variants (CUDA only), TestElementwiseMulop
(dygraph).
Paddle 3.3.1's paddle.multiply works on static programs only with PIR, hence the marker.
"""
import unittest

import numpy as np

import fluidc as paddle

from .op_forward import run_forward


def _uniform(shape):
    return np.random.uniform(0.1, 1, shape).astype('float64')


def _complex(shape, real_x=False):
    def part():
        return np.random.random(shape).astype('complex128')
    return part() if real_x else part() + 1j * part()


class ElementwiseMulOp(unittest.TestCase):
    x_shape, y_shape = [13, 17], [13, 17]

    def init_input_output(self):
        self.x, self.y = _uniform(self.x_shape), _uniform(self.y_shape)
        self.out = np.multiply(self.x, self.y)

    def test_check_output(self):
        self.init_input_output()
        res = run_forward(paddle.multiply, {'x': self.x, 'y': self.y})
        self.assertEqual(res.dtype, self.out.dtype)
        self.assertEqual(res.shape, self.out.shape)
        np.testing.assert_allclose(res, self.out, rtol=1e-7, atol=1e-7)


def _case(name, x_shape, y_shape):
    globals()[name] = type(name, (ElementwiseMulOp,), {'x_shape': x_shape, 'y_shape': y_shape})


_case('TestElementwiseMulOp_ZeroDim1', [], [])
_case('TestElementwiseMulOp_ZeroDim2', [13, 17], [])
_case('TestElementwiseMulOp_ZeroDim3', [], [13, 17])
_case('TestElementwiseMulOp_scalar', [10, 3, 4], [1])
_case('TestElementwiseMulOp_Vector', [100], [100])
_case('ElementwiseMulOp_broadcast', [13, 17, 1], [17, 17])
_case('TestElementwiseMulOp_broadcast_2', [2, 3, 100], [100])
_case('TestElementwiseMulOp_broadcast_4', [10, 2, 11], [10, 1, 11])
_case('TestElementwiseMulOp_broadcast_5', [10, 4, 2, 3], [10, 4, 1, 3])
_case('TestElementwiseMulOp_commonuse_1', [2, 3, 100], [1, 1, 100])
_case('TestElementwiseMulOp_commonuse_2', [30, 3, 1, 5], [30, 1, 4, 1])


class TestComplexElementwiseMulOpWithCheckGrad(ElementwiseMulOp):
    def init_input_output(self):
        self.x = np.array([3 + 4j, 1 + 2j]).astype('complex128')
        self.y = np.array([3 + 4j, 5 + 6j]).astype('complex128')
        self.out = np.multiply(self.x, self.y)


class TestComplexElementwiseMulOp(ElementwiseMulOp):
    real_x = False

    def init_input_output(self):
        self.x = _complex((2, 3, 4, 5), self.real_x)
        self.y = _complex((2, 3, 4, 5))
        self.out = self.x * self.y


class TestRealComplexElementwiseMulOp(TestComplexElementwiseMulOp):
    real_x = True


if __name__ == '__main__':
    unittest.main()
