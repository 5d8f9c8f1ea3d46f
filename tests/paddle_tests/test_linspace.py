"""Port of Paddle test/legacy_test/test_linspace.py: paddle.linspace and the linspace op.

Kept: the forward output of TestLinspaceOpCommonCase / ReverseCase / NumOneCase (float32; the
Start / Stop / Num arrays fed to paddle.linspace), TestLinspaceAPI (tensor start / stop / num in
a static program and in dygraph, the three dtype spellings, the output name, dygraph float32
and int32 results against numpy), TestLinspaceOpError (int8 dtype, a float num, list bounds,
a list num and float64 bounds with a float32 dtype are refused with Paddle's error types;
Paddle's test_num_dtype asserts test_step_dtype again, kept as it is).
Dropped: the float16 / bfloat16 OpTest cases; pir_utils.OldIrGuard (fluidc programs are legacy
programs already).
"""
import unittest

import numpy as np

import fluidc as fluid
import fluidc as paddle

from .op_forward import run_forward

paddle.enable_static()


class TestLinspaceOpCommonCase(unittest.TestCase):
    dtype = "float32"

    def _set_data(self):
        self.outputs = {'Out': np.arange(0, 11).astype(self.dtype)}
        self.inputs = {
            'Start': np.array([0]).astype(self.dtype),
            'Stop': np.array([10]).astype(self.dtype),
            'Num': np.array([11]).astype('int32'),
        }

    def test_check_output(self):
        self._set_data()
        out = run_forward(paddle.linspace, self.inputs, dtype=self.dtype)
        np.testing.assert_allclose(out, self.outputs['Out'], rtol=1e-6)


class TestLinspaceOpReverseCase(TestLinspaceOpCommonCase):
    def _set_data(self):
        self.inputs = {
            'Start': np.array([10]).astype(self.dtype),
            'Stop': np.array([0]).astype(self.dtype),
            'Num': np.array([11]).astype('int32'),
        }
        self.outputs = {'Out': np.arange(10, -1, -1).astype(self.dtype)}


class TestLinspaceOpNumOneCase(TestLinspaceOpCommonCase):
    def _set_data(self):
        self.inputs = {
            'Start': np.array([10]).astype(self.dtype),
            'Stop': np.array([0]).astype(self.dtype),
            'Num': np.array([1]).astype('int32'),
        }
        self.outputs = {'Out': np.array([10], dtype=self.dtype)}


class TestLinspaceAPI(unittest.TestCase):
    def test_variable_input1(self):
        start = paddle.full(shape=[1], fill_value=0, dtype='float32')
        stop = paddle.full(shape=[1], fill_value=10, dtype='float32')
        num = paddle.full(shape=[1], fill_value=5, dtype='int32')
        out = paddle.linspace(start, stop, num, dtype='float32')
        exe = fluid.Executor(place=fluid.CPUPlace())
        res = exe.run(fluid.default_main_program(), fetch_list=[out])
        np_res = np.linspace(0, 10, 5, dtype='float32')
        self.assertEqual((res == np_res).all(), True)

    def test_variable_input2(self):
        paddle.disable_static()
        start = paddle.full(shape=[1], fill_value=0, dtype='float32')
        stop = paddle.full(shape=[1], fill_value=10, dtype='float32')
        num = paddle.full(shape=[1], fill_value=5, dtype='int32')
        out = paddle.linspace(start, stop, num, dtype='float32')
        np_res = np.linspace(0, 10, 5, dtype='float32')
        self.assertEqual((out.numpy() == np_res).all(), True)
        paddle.enable_static()

    def test_dtype(self):
        out_1 = paddle.linspace(0, 10, 5, dtype='float32')
        out_2 = paddle.linspace(0, 10, 5, dtype=np.float32)
        out_3 = paddle.linspace(0, 10, 5, dtype=fluid.core.VarDesc.VarType.FP32)
        exe = fluid.Executor(place=fluid.CPUPlace())
        res_1, res_2, res_3 = exe.run(fluid.default_main_program(),
                                      fetch_list=[out_1, out_2, out_3])
        np.testing.assert_array_equal(res_1, res_2)

    def test_name(self):
        with paddle.static.program_guard(paddle.static.Program()):
            out = paddle.linspace(0, 10, 5, dtype='float32', name='linspace_res')
            assert 'linspace_res' in out.name

    def test_imperative(self):
        paddle.disable_static()
        out1 = paddle.linspace(0, 10, 5, dtype='float32')
        np_out1 = np.linspace(0, 10, 5, dtype='float32')
        out2 = paddle.linspace(0, 10, 5, dtype='int32')
        np_out2 = np.linspace(0, 10, 5, dtype='int32')
        out3 = paddle.linspace(0, 10, 200, dtype='int32')
        np_out3 = np.linspace(0, 10, 200, dtype='int32')
        paddle.enable_static()
        self.assertEqual((out1.numpy() == np_out1).all(), True)
        self.assertEqual((out2.numpy() == np_out2).all(), True)
        self.assertEqual((out3.numpy() == np_out3).all(), True)


class TestLinspaceOpError(unittest.TestCase):
    def test_errors(self):
        with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):

            def test_dtype():
                paddle.linspace(0, 10, 1, dtype="int8")

            self.assertRaises(TypeError, test_dtype)

            def test_dtype1():
                paddle.linspace(0, 10, 1.33, dtype="int32")

            self.assertRaises(TypeError, test_dtype1)

            def test_start_type():
                paddle.linspace([0], 10, 1, dtype="float32")

            self.assertRaises(TypeError, test_start_type)

            def test_end_type():
                paddle.linspace(0, [10], 1, dtype="float32")

            self.assertRaises(TypeError, test_end_type)

            def test_step_dtype():
                paddle.linspace(0, 10, [0], dtype="float32")

            self.assertRaises(TypeError, test_step_dtype)

            def test_start_dtype():
                start = paddle.static.data(shape=[1], dtype="float64", name="start")
                paddle.linspace(start, 10, 1, dtype="float32")

            self.assertRaises(ValueError, test_start_dtype)

            def test_end_dtype():
                end = paddle.static.data(shape=[1], dtype="float64", name="end")
                paddle.linspace(0, end, 1, dtype="float32")

            self.assertRaises(ValueError, test_end_dtype)

            def test_num_dtype():
                num = paddle.static.data(shape=[1], dtype="int32", name="step")
                paddle.linspace(0, 10, num, dtype="float32")

            self.assertRaises(TypeError, test_step_dtype)
