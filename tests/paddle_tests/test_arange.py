"""Port of Paddle test/legacy_test/test_arange.py: paddle.arange and the range op.

Kept: the forward output of TestArangeOp and its float32 / int32 / float64 / int64 / zero-size
cases (the Start / End / Step arrays fed to paddle.arange, dtype the case's),
TestArangeOpError (an int8 dtype is a TypeError), TestArangeAPI (static), TestArangeImperative
(dygraph: tensor bounds, the dtype rules for mixed float / int bounds, a 2**53-sized int64
step), TestArangeStatic (the build-time shape of 0..1.005 by 0.005).
Changed: TestArangeStatic compares list(x.shape): a legacy program's shapes are tuples (Paddle's
too, with PIR off).
Dropped: the float16 / bfloat16 OpTest cases (CUDA or fp16 kernels).
"""
import unittest

import numpy as np

import fluidc as paddle

from .op_forward import run_forward

paddle.enable_static()


def arange_wrapper(start, end, step, dtype="float32"):
    return paddle.arange(start, end, step, dtype)


class TestArangeOp(unittest.TestCase):
    def setUp(self):
        self.init_config()
        self.inputs = {
            'Start': np.array([self.case[0]]).astype(self.dtype),
            'End': np.array([self.case[1]]).astype(self.dtype),
            'Step': np.array([self.case[2]]).astype(self.dtype),
        }
        self.outputs = {
            'Out': np.arange(self.case[0], self.case[1], self.case[2]).astype(self.dtype)
        }

    def init_config(self):
        self.dtype = np.float32
        self.python_api = arange_wrapper
        self.case = (0, 1, 0.2)

    def test_check_output(self):
        out = run_forward(self.python_api, self.inputs, dtype=np.dtype(self.dtype).name)
        self.assertEqual(out.dtype, np.dtype(self.dtype))
        np.testing.assert_allclose(out, self.outputs['Out'], rtol=1e-6)


class TestFloatArangeOp(TestArangeOp):
    def init_config(self):
        self.dtype = np.float32
        self.python_api = paddle.arange
        self.case = (0, 5, 1)


class TestInt32ArangeOp(TestArangeOp):
    def init_config(self):
        self.dtype = np.int32
        self.python_api = paddle.arange
        self.case = (0, 5, 2)


class TestFloat64ArangeOp(TestArangeOp):
    def init_config(self):
        self.dtype = np.float64
        self.python_api = paddle.arange
        self.case = (10, 1, -2)


class TestInt64ArangeOp(TestArangeOp):
    def init_config(self):
        self.dtype = np.int64
        self.python_api = paddle.arange
        self.case = (-1, -10, -2)


class TestZeroSizeArangeOp(TestArangeOp):
    def init_config(self):
        self.dtype = np.int32
        self.python_api = paddle.arange
        self.case = (0, 0, 1)


class TestArangeOpError(unittest.TestCase):
    def test_static_errors(self):
        with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):
            paddle.enable_static()
            self.assertRaises(TypeError, paddle.arange, 10, dtype='int8')


class TestArangeAPI(unittest.TestCase):
    def test_out(self):
        paddle.enable_static()
        with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):
            x1 = paddle.arange(0, 5, 1, 'float32')

            place = paddle.CPUPlace()
            exe = paddle.static.Executor(place)
            out = exe.run(fetch_list=[x1])

            expected_data = np.arange(0, 5, 1).astype(np.float32)
            self.assertEqual((out == expected_data).all(), True)
            self.assertListEqual(list(x1.shape), [5])
        paddle.disable_static(place)
        paddle.enable_static()


class TestArangeImperative(unittest.TestCase):
    def test_out(self):
        place = paddle.CPUPlace()
        paddle.disable_static(place)
        x1 = paddle.arange(0, 5, 1)
        x2 = paddle.tensor.arange(5)
        x3 = paddle.tensor.creation.arange(5)

        start = paddle.to_tensor(np.array([0], 'float32'))
        end = paddle.to_tensor(np.array([5], 'float32'))
        step = paddle.to_tensor(np.array([1], 'float32'))
        x4 = paddle.arange(start, end, step, 'int64')

        expected_data = np.arange(0, 5, 1).astype(np.int64)
        for x in [x1, x2, x3, x4]:
            np.testing.assert_array_equal(x.numpy(), expected_data)

        start_float = paddle.to_tensor(np.array([0.5], 'float32'))
        end_float = paddle.to_tensor(np.array([1.5], 'float32'))
        step_float = paddle.to_tensor(np.array([0.5], 'float32'))
        # all [start, end, step] is float
        x5 = paddle.arange(start_float, end_float, step_float)
        x5_expected_data = np.arange(0.5, 1.5, 0.5).astype(np.float32)
        np.testing.assert_array_equal(x5.numpy(), x5_expected_data)
        self.assertEqual(x5.numpy().dtype, np.float32)

        # [start, end] is float , [step] is int
        x6 = paddle.arange(start_float, end_float, 1)
        x6_expected_data = np.arange(0.5, 1.5, 1).astype(np.float32)
        np.testing.assert_array_equal(x6.numpy(), x6_expected_data)
        self.assertEqual(x6.numpy().dtype, np.float32)

        # [start] is float , [end] is int
        x7 = paddle.arange(start_float, 1)
        x7_expected_data = np.arange(0.5, 1).astype(np.float32)
        np.testing.assert_array_equal(x7.numpy(), x7_expected_data)
        self.assertEqual(x7.numpy().dtype, np.float32)

        # [start] is float
        x8 = paddle.arange(start_float)
        x8_expected_data = np.arange(0.5).astype(np.float32)
        np.testing.assert_array_equal(x8.numpy(), x8_expected_data)
        self.assertEqual(x8.numpy().dtype, np.float32)

        # [start] is int
        x9 = paddle.arange(1)
        x9_expected_data = np.arange(1).astype(np.int64)
        np.testing.assert_array_equal(x9.numpy(), x9_expected_data)
        self.assertEqual(x9.numpy().dtype, np.int64)

        # [start] is float
        x10 = paddle.arange(1.0)
        x10_expected_data = np.arange(1).astype(np.float32)
        np.testing.assert_array_equal(x10.numpy(), x10_expected_data)
        self.assertEqual(x10.numpy().dtype, np.float32)

        # [start] is np.int
        x11 = paddle.arange(np.int64(10))
        x11_expected_data = np.arange(10).astype(np.int64)
        np.testing.assert_array_equal(x11.numpy(), x11_expected_data)
        self.assertEqual(x11.numpy().dtype, np.int64)

        # [start] is a big integer
        x12 = paddle.arange(start=0, end=-9007199254740994, step=-9007199254740993)
        # numpy give wrong result here, so we generate 'x12_expected_data' manually
        x12_expected_data = np.array([0, -9007199254740993])
        np.testing.assert_array_equal(x12.numpy(), x12_expected_data)
        self.assertEqual(x12.numpy().dtype, np.int64)

        paddle.enable_static()


class TestArangeStatic(unittest.TestCase):
    def test_infermeta(self):
        paddle.enable_static()
        x = paddle.arange(0, 1 + 0.005, 0.005)
        self.assertEqual(list(x.shape), [201])
        paddle.disable_static()
        paddle.enable_static()


if __name__ == "__main__":
    unittest.main()
