"""Port of Paddle test/legacy_test/test_gather_op.py: the static API classes and op cases' outputs.

run-on-paddle: pir

Kept: API_TestGather (test_out1, test_out2 with a fed axis), TestGathertError (3), TestCheckOutType
.test_out_type, and the forward output of the axis OpTest cases (TestGatherOp1..5: shapes
(10, 88, 10) / (3, 100, 10), float64, axis 0 / 2 / -1) through paddle.gather against Paddle's
`gather_numpy` (np.take), exact.
Dropped: OpTest gradient / prim checks, fp16/bf16/complex/bool dtype variants, the dygraph classes
(API_TestDygraphGather, zero-size index, CUDA large-data test), test_pir_out_type (PIR internals).
"""
import unittest

import numpy as np

import fluidc as paddle

paddle.enable_static()


def gather_numpy(x, index, axis):
    return np.take(x, index, axis=axis)


class TestGatherOp1(unittest.TestCase):
    x_shape, index, index_type, axis = (3, 88, 3), [1, 3, 5], 'int32', 1

    def test_check_output(self):
        x_np = np.random.random(self.x_shape).astype('float64')
        idx = np.array(self.index).astype(self.index_type)
        main = paddle.static.Program()
        with paddle.static.program_guard(main, paddle.static.Program()):
            x = paddle.static.data('x', list(self.x_shape), 'float64')
            i = paddle.static.data('index', [len(self.index)], self.index_type)
            out = paddle.gather(x, i, axis=self.axis)
            (res,) = paddle.static.Executor(paddle.CPUPlace()).run(
                main, feed={'x': x_np, 'index': idx}, fetch_list=[out])
        np.testing.assert_array_equal(res, gather_numpy(x_np, idx, self.axis))


def _case(name, x_shape, index, index_type, axis):
    globals()[name] = type(name, (TestGatherOp1,), dict(
        x_shape=x_shape, index=index, index_type=index_type, axis=axis))


_case('TestGatherOp2', (10, 88, 10), [1, 3, 5], 'int64', 0)
_case('TestGatherOp3', (10, 88, 10), [1, 3, 5], 'int64', 2)
_case('TestGatherOp4', (3, 100, 10), [1] * 10, 'int64', 0)
_case('TestGatherOp5', (3, 100, 10), [1] * 10, 'int64', -1)


class API_TestGather(unittest.TestCase):
    def test_out1(self):
        with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):
            data1 = paddle.static.data('data1', shape=[-1, 2], dtype='float64')
            index = paddle.static.data('index', shape=[-1, 1], dtype='int64')
            out = paddle.gather(data1, index)
            exe = paddle.static.Executor(paddle.CPUPlace())
            input = np.array([[1, 2], [3, 4], [5, 6]]).astype('float64')
            index_1 = np.array([1, 2]).astype('int64')
            (result,) = exe.run(feed={'data1': input, 'index': index_1}, fetch_list=[out])
            expected_output = np.array([[3, 4], [5, 6]])
        np.testing.assert_allclose(result, expected_output, rtol=1e-05)

    def test_out2(self):
        with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):
            x = paddle.static.data('x', shape=[-1, 2], dtype='float64')
            index = paddle.static.data('index', shape=[-1, 1], dtype='int32')
            axis = paddle.static.data('axis', shape=[1], dtype='int32')
            out = paddle.gather(x, index, axis)
            exe = paddle.static.Executor(paddle.CPUPlace())
            x_np = np.array([[1, 2], [3, 4], [5, 6]]).astype('float64')
            index_np = np.array([1, 1]).astype('int32')
            axis_np = np.array([1]).astype('int32')
            (result,) = exe.run(feed={'x': x_np, 'index': index_np, 'axis': axis_np},
                                fetch_list=[out])
            expected_output = gather_numpy(x_np, index_np, axis_np[0])
        np.testing.assert_allclose(result, expected_output, rtol=1e-05)


class TestGathertError(unittest.TestCase):
    def test_error1(self):
        with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):
            shape = [8, 9, 6]
            x = paddle.static.data(shape=shape, dtype='int8', name='x')
            axis = paddle.static.data(shape=[1], dtype='float32', name='axis')
            index = paddle.static.data(shape=shape, dtype='int32', name='index')
            index_float = paddle.static.data(shape=shape, dtype='float32', name='index_float')
            self.assertRaises((TypeError, ValueError), paddle.gather, x, index)
            self.assertRaises((TypeError, ValueError), paddle.gather, x, index_float)
            self.assertRaises((TypeError, ValueError), paddle.gather, x, index, axis=1.11)
            self.assertRaises((TypeError, ValueError), paddle.gather, x, index, axis=axis)

    def test_error2(self):
        with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):
            shape = [8, 9, 6]
            x = paddle.static.data(shape=shape, dtype='int8', name='x')
            index = paddle.static.data(shape=shape, dtype='int32', name='mask')
            index_float = paddle.static.data(shape=shape, dtype='float32', name='index_float')
            self.assertRaises((TypeError, ValueError), paddle.gather, x, index)
            self.assertRaises((TypeError, ValueError), paddle.gather, x, index_float)

    def test_error3(self):
        with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):
            shape = [8, 9, 6]
            x = paddle.static.data(shape=shape, dtype='int32', name='x')
            index = paddle.static.data(shape=shape, dtype='int32', name='index')
            self.assertRaises(ValueError, paddle.gather, x, index, axis=-1)
            self.assertRaises(ValueError, paddle.gather, x, index, axis=512)


class TestCheckOutType(unittest.TestCase):
    def test_out_type(self):
        with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):
            data = paddle.static.data(shape=[16, 10], dtype='int64', name='x')
            index = paddle.static.data(shape=[4], dtype='int64', name='index')
            out = paddle.gather(data, index)
            self.assertTrue(out.dtype == paddle.int64)


if __name__ == '__main__':
    unittest.main()
