"""Port of Paddle test/legacy_test/test_mul_op.py: the mul op's forward.

Paddle 3.3.1 has no layer for the 1.x `mul` op (fluid.layers.mul is gone), so each OpTest case
is the op appended to a legacy Program with Block.append_op (op_append.run_op), fed the case's
inputs, as OpTest runs it.
Kept: test_check_output of TestMulOp ([20, 5] x [5, 21]) and TestMulOp2 (x_num_col_dims /
y_num_col_dims 2: [3, 4, 2, 9] x [3, 6, 1, 2, 3] -> [3, 4, 1, 2, 3]) in float64 against
np.dot of the flattened inputs (OpTest checks float64 outputs to 1e-7; the same here), and the
output's shape and dtype.
Dropped: the check_grad cases (numeric gradients through core.*), the FP16 / BF16 / Int8
classes (CUDA only).
"""
import unittest

import numpy as np

from .op_append import run_op


class TestMulOp(unittest.TestCase):
    def setUp(self):
        self.op_type = "mul"
        self.dtype = np.float64
        self.inputs = {
            'X': np.random.random((20, 5)).astype(self.dtype),
            'Y': np.random.random((5, 21)).astype(self.dtype),
        }
        self.attrs = {}
        self.outputs = {'Out': np.dot(self.inputs['X'], self.inputs['Y'])}

    def test_check_output(self):
        got = run_op(self.op_type, self.inputs, {'Out': self.dtype}, self.attrs,
                     exact_shapes=True)['Out']
        self.assertEqual(got.dtype, self.dtype)
        self.assertEqual(got.shape, self.outputs['Out'].shape)
        np.testing.assert_allclose(got, self.outputs['Out'], rtol=1e-7, atol=1e-7)


class TestMulOp2(TestMulOp):
    def setUp(self):
        self.op_type = "mul"
        self.dtype = np.float64
        self.inputs = {
            'X': np.random.random((3, 4, 2, 9)).astype(self.dtype),
            'Y': np.random.random((3, 6, 1, 2, 3)).astype(self.dtype),
        }
        self.attrs = {
            'x_num_col_dims': 2,
            'y_num_col_dims': 2,
        }
        result = np.dot(
            self.inputs['X'].reshape(3 * 4, 2 * 9),
            self.inputs['Y'].reshape(3 * 6, 1 * 2 * 3),
        )
        result = result.reshape(3, 4, 1, 2, 3)
        self.outputs = {'Out': result}


if __name__ == "__main__":
    unittest.main()
