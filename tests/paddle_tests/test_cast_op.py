"""Port of Paddle test/legacy_test/test_cast_op.py: its static-graph parts.

Kept: the forward output of the OpTest cases TestCastOpFp32ToFp64 (+ _ZeroDim),
TestCastOpFp16ToFp32 and TestCastOpFp32ToFp16 through paddle.cast (exact: Paddle's reference is
numpy's astype), and TestCastOpError.
Dropped: OpTest gradient checks, bf16 cases (CUDA only), TestCastOpEager and
TestCastInplaceContinuous (dygraph), TestCastDoubleGradCheck / TestCastTripleGradCheck (through
Paddle's gradient_checker test helper and prog_scope).
"""
import unittest

import numpy as np

import fluidc as fluid
import fluidc as paddle

from .op_forward import run_forward

Program, program_guard = paddle.static.Program, paddle.static.program_guard


class TestCastOpFp32ToFp64(unittest.TestCase):
    in_dtype, out_dtype = 'float32', 'float64'

    def init_shapes(self):
        self.input_shape = [10, 10]

    def test_check_output(self):
        self.init_shapes()
        ipt = np.random.random(size=self.input_shape)
        res = run_forward(paddle.cast, {'x': ipt.astype(self.in_dtype)},
                          dtype=self.out_dtype)
        self.assertEqual(res.dtype, np.dtype(self.out_dtype))
        np.testing.assert_array_equal(res, ipt.astype(self.in_dtype).astype(self.out_dtype))


class TestCastOpFp32ToFp64_ZeroDim(TestCastOpFp32ToFp64):
    def init_shapes(self):
        self.input_shape = ()


class TestCastOpFp16ToFp32(TestCastOpFp32ToFp64):
    in_dtype, out_dtype = 'float16', 'float32'


class TestCastOpFp32ToFp16(TestCastOpFp32ToFp64):
    in_dtype, out_dtype = 'float32', 'float16'


class TestCastOpError(unittest.TestCase):
    def test_errors(self):
        paddle.enable_static()
        with program_guard(Program(), Program()):
            # The input type of cast_op must be Variable.
            x1 = fluid.create_lod_tensor(
                np.array([[-1]]), [[1]], fluid.CPUPlace()
            )
            self.assertRaises(TypeError, paddle.cast, x1, 'int32')


if __name__ == '__main__':
    unittest.main()
