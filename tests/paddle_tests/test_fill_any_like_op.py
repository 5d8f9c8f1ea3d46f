"""Port of Paddle test/legacy_test/test_fill_any_like_op.py: the fill_any_like op's forward.

Kept: test_check_output of TestFillAnyLikeOp (int32), Float32, Value1 / Value2 / Value3 (1.0,
1e-10 and 1e-100 into int32), Type (an int32 input, out dtype FP32) and Float16 via
paddle.full_like (the file's fill_any_like_wrapper minus its PIR dtype conversion) on a
(219, 232) input, against value * ones_like(x) with OpTest's atol 1e-5; added: the output's
dtype (the input's, or the dtype given).
Dropped: TestFillAnyLikeOpBfloat16 (CUDA only); check_prim (composite-op checks through core.*).
"""
import unittest

import numpy as np

import fluidc as paddle

from .op_forward import run_forward

paddle.enable_static()


class TestFillAnyLikeOp(unittest.TestCase):
    out_dtype = None

    def setUp(self):
        self.op_type = "fill_any_like"
        self.dtype = np.int32
        self.value = 0.0
        self.init()
        self.inputs = {'X': np.random.random((219, 232)).astype(self.dtype)}
        self.attrs = {'value': self.value}
        self.outputs = {'Out': self.value * np.ones_like(self.inputs["X"])}

    def init(self):
        pass

    def test_check_output(self):
        out = run_forward(paddle.full_like, {'x': self.inputs['X']},
                          fill_value=self.attrs['value'], dtype=self.out_dtype)
        np.testing.assert_allclose(out.astype('float64'), self.outputs['Out'], rtol=1e-5,
                                   atol=1e-5)
        self.assertEqual(out.dtype, np.dtype(self.out_dtype or self.dtype))
        self.assertEqual(out.shape, self.inputs['X'].shape)


class TestFillAnyLikeOpFloat32(TestFillAnyLikeOp):
    def init(self):
        self.dtype = np.float32
        self.value = 0.0


class TestFillAnyLikeOpValue1(TestFillAnyLikeOp):
    def init(self):
        self.value = 1.0


class TestFillAnyLikeOpValue2(TestFillAnyLikeOp):
    def init(self):
        self.value = 1e-10


class TestFillAnyLikeOpValue3(TestFillAnyLikeOp):
    def init(self):
        self.value = 1e-100


class TestFillAnyLikeOpType(TestFillAnyLikeOp):
    out_dtype = 'float32'  # the OpTest's attr dtype=int(core.VarDesc.VarType.FP32)

    def setUp(self):
        self.op_type = "fill_any_like"
        self.dtype = np.int32
        self.value = 0.0
        self.init()
        self.inputs = {'X': np.random.random((219, 232)).astype(self.dtype)}
        self.attrs = {'value': self.value}
        self.outputs = {
            'Out': self.value
            * np.ones_like(self.inputs["X"]).astype(np.float32)
        }


class TestFillAnyLikeOpFloat16(TestFillAnyLikeOp):
    def init(self):
        self.dtype = np.float16


if __name__ == '__main__':
    unittest.main()
