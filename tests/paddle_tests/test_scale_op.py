"""Port of Paddle test/legacy_test/test_scale_op.py: the static API parts.

run-on-paddle: pir

Kept: TestScaleRaiseError, TestScaleApiStatic, TestScaleInplaceApiStatic (Variable.scale_), and
the forward output of the two float64 OpTest cases (TestScaleOp: scale -2.3 attribute;
TestScaleOpScaleVariable: scale fed as a float64 [1] tensor) through paddle.scale against
Paddle's numpy reference X * scale, at OpTest's float64 tolerance (atol 1e-7).
Dropped: OpTest gradient checks, fp16/bf16 variants, the SelectedRows cases (core.Scope /
Operator internals), the dygraph API classes, the double/triple gradient checks
(gradient_checker, a Paddle test helper) and the zero-numel case (dygraph paddle.ones).
Paddle 3.3.1's paddle.scale works on static programs only with PIR, hence the marker.
"""
import unittest

import numpy as np

import fluidc as paddle

paddle.enable_static()
Program, program_guard = paddle.static.Program, paddle.static.program_guard


class TestScaleOp(unittest.TestCase):
    def setUp(self):
        self.dtype = np.float64
        self.inputs = {'X': np.random.random((10, 10)).astype(self.dtype)}
        self.attrs = {'scale': -2.3}
        self.outputs = {'Out': self.inputs['X'] * self.dtype(self.attrs['scale'])}

    def test_check_output(self):
        x_np = self.inputs['X']
        main = Program()
        with program_guard(main, Program()):
            x = paddle.static.data('X', [10, 10], 'float64')
            out = paddle.scale(x, scale=self.attrs['scale'])
            (res,) = paddle.static.Executor(paddle.CPUPlace()).run(
                main, feed={'X': x_np}, fetch_list=[out])
        np.testing.assert_allclose(res, self.outputs['Out'], rtol=1e-7, atol=1e-7)


class TestScaleOpScaleVariable(unittest.TestCase):
    def setUp(self):
        self.dtype = np.float64
        self.scale = -2.3
        self.inputs = {
            'X': np.random.random((10, 10)).astype(self.dtype),
            'ScaleTensor': np.array([self.scale]).astype('float64'),
        }
        self.outputs = {'Out': self.inputs['X'] * self.dtype(self.scale)}

    def test_check_output(self):
        main = Program()
        with program_guard(main, Program()):
            x = paddle.static.data('X', [10, 10], 'float64')
            s = paddle.static.data('ScaleTensor', [1], 'float64')
            out = paddle.scale(x, scale=s)
            (res,) = paddle.static.Executor(paddle.CPUPlace()).run(
                main, feed=self.inputs, fetch_list=[out])
        np.testing.assert_allclose(res, self.outputs['Out'], rtol=1e-7, atol=1e-7)


class TestScaleRaiseError(unittest.TestCase):
    def test_errors(self):
        def test_type():
            paddle.scale([10])

        self.assertRaises(TypeError, test_type)


class TestScaleApiStatic(unittest.TestCase):
    def _executed_api(self, x, scale=1.0, bias=0.0):
        return paddle.scale(x, scale, bias)

    def test_api(self):
        input = np.random.random([2, 25]).astype("float32")
        main_prog = Program()
        with program_guard(main_prog, Program()):
            x = paddle.static.data(name="x", shape=[2, 25], dtype="float32")
            out = self._executed_api(x, scale=2.0, bias=3.0)

        exe = paddle.static.Executor(place=paddle.CPUPlace())
        out = exe.run(main_prog, feed={"x": input}, fetch_list=[out])
        np.testing.assert_array_equal(out[0], input * 2.0 + 3.0)


class TestScaleInplaceApiStatic(TestScaleApiStatic):
    def _executed_api(self, x, scale=1.0, bias=0.0):
        return x.scale_(scale, bias)


if __name__ == "__main__":
    unittest.main()
