"""Port of Paddle test/legacy_test/test_shape_op.py: the shape op's forward.

Kept: test_check_output of TestShapeOp, case1, case2 and their float16 twins (TestShapeOpFp16,
case1Fp16, case2Fp16) via paddle.shape, against np.array(shape), on a static program fed zeros
of the case's shape and dtype (not the float16 ones: Paddle 3.3.1's legacy executor has no
float16 shape kernel) and in dygraph; added: the output dtype (int32 from the static shape op,
int64 in dygraph, as Paddle 3.3.1's eager shape64).
Dropped: TestShapeWithSelectedRows (a SelectedRows var in a core.Scope run by op.Operator:
internals), TestShapeOpBf16 / case1Bf16 / case2Bf16 (CUDA or custom devices only).
"""
import unittest

import numpy as np

import fluidc as paddle

from .op_forward import run_forward

paddle.enable_static()


class TestShapeOp(unittest.TestCase):
    def setUp(self):
        self.op_type = "shape"
        self.config()
        input = np.zeros(self.shape, dtype=self.dtype)
        self.inputs = {'Input': input}
        self.outputs = {'Out': np.array(self.shape)}

    def config(self):
        self.shape = [2, 3]
        self.dtype = np.float32

    def test_check_output(self):
        # OpTest checks the static op and the dygraph API. Paddle 3.3.1's legacy executor has
        # no float16 kernel for the shape op (its dygraph and PIR do): static for the others
        if self.dtype != np.float16:
            out = run_forward(paddle.shape, {'input': self.inputs['Input']})
            np.testing.assert_array_equal(out, self.outputs['Out'])
            self.assertEqual(out.dtype, np.int32)
        paddle.disable_static()
        try:
            out = paddle.shape(paddle.to_tensor(self.inputs['Input']))
        finally:
            paddle.enable_static()
        np.testing.assert_array_equal(out.numpy(), self.outputs['Out'])
        self.assertEqual(out.numpy().dtype, np.int64)  # eager shape is shape64
        self.assertTrue(out.stop_gradient)


class case1(TestShapeOp):
    def config(self):
        self.shape = [2]
        self.dtype = np.float32


class case2(TestShapeOp):
    def config(self):
        self.shape = [1, 2, 3]
        self.dtype = np.float32


class TestShapeOpFp16(TestShapeOp):
    def config(self):
        self.shape = [2, 3]
        self.dtype = np.float16


class case1Fp16(TestShapeOp):
    def config(self):
        self.shape = [2]
        self.dtype = np.float16


class case2Fp16(TestShapeOp):
    def config(self):
        self.shape = [1, 2, 3]
        self.dtype = np.float16


if __name__ == '__main__':
    unittest.main()
