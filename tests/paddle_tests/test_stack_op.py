"""Port of Paddle test/legacy_test/test_stack_op.py: paddle.stack's static API and op cases.

run-on-paddle: pir

Kept: API_test (test_out, test_single_tensor_error), TestStackOpWithNegativeShape,
TestStackAPI_ZeroSizedTensor.test_static_cpu, and the forward output of the OpTest cases
TestStackOpBase, TestStackOp1..6, TestStackOp_ZeroDim (4 / 8 / 10 float64 inputs of shape
(5, 6, 7) or (), axis 0 / -1 / -4 / 1 / 3) through paddle.stack against np.stack, exact.
Dropped: OpTest gradient / prim checks, fp16 / bf16 cases, the dygraph / jit / eager-prim classes
(API_DygraphTest, TestStackAPI_ZeroDim, TestStackListOfSingleTensor, TestPrimStackGrad, the
dygraph and GPU halves of TestStackAPI_ZeroSizedTensor), and the DenseTensorArray classes
(TestStackAPIWithDenseTensorArray, TestTensorStackAPIWithDenseTensorArray: paddle.tensor
.create_array / array_write, which fluidc does not have yet).
"""
import unittest

import numpy as np

import fluidc as paddle
import fluidc as fluid

paddle.enable_static()


class TestStackOpBase(unittest.TestCase):
    num_inputs, input_dim, axis, dtype = 4, (5, 6, 7), 0, 'float64'

    def test_check_output(self):
        xs = [np.random.random(size=self.input_dim).astype(self.dtype)
              for _ in range(self.num_inputs)]
        main = paddle.static.Program()
        with paddle.static.program_guard(main, paddle.static.Program()):
            data = [paddle.static.data(f'x{i}', list(self.input_dim), self.dtype)
                    for i in range(self.num_inputs)]
            y = paddle.stack(data, axis=self.axis)
            (res,) = paddle.static.Executor(paddle.CPUPlace()).run(
                main, feed={f'x{i}': x for i, x in enumerate(xs)}, fetch_list=[y])
        np.testing.assert_array_equal(res, np.stack(xs, axis=self.axis))


def _case(name, **attrs):
    globals()[name] = type(name, (TestStackOpBase,), attrs)


_case('TestStackOp1', num_inputs=8)
_case('TestStackOp2', num_inputs=10)
_case('TestStackOp3', axis=-1)
_case('TestStackOp4', axis=-4)
_case('TestStackOp5', axis=1)
_case('TestStackOp6', axis=3)
_case('TestStackOp_ZeroDim', input_dim=())


class API_test(unittest.TestCase):
    def test_out(self):
        with paddle.static.program_guard(
            paddle.static.Program(), paddle.static.Program()
        ):
            data1 = paddle.static.data('data1', shape=[1, 2], dtype='float64')
            data2 = paddle.static.data('data2', shape=[1, 2], dtype='float64')
            data3 = paddle.static.data('data3', shape=[1, 2], dtype='float64')
            result_stack = paddle.stack([data1, data2, data3], axis=0)
            place = fluid.CPUPlace()
            exe = fluid.Executor(place)
            input1 = np.random.random([1, 2]).astype('float64')
            input2 = np.random.random([1, 2]).astype('float64')
            input3 = np.random.random([1, 2]).astype('float64')
            (result,) = exe.run(
                feed={"data1": input1, "data2": input2, "data3": input3},
                fetch_list=[result_stack],
            )
            expected_result = np.stack([input1, input2, input3], axis=0)
            np.testing.assert_allclose(expected_result, result, rtol=1e-05)

    def test_single_tensor_error(self):
        with paddle.static.program_guard(
            paddle.static.Program(), paddle.static.Program()
        ):
            x = paddle.rand([2, 3])
            self.assertRaises(TypeError, paddle.stack, x)


class TestStackOpWithNegativeShape(unittest.TestCase):
    def test_out(self):
        main_prg, startup_prg = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main_prg, startup_prg):
            b = paddle.static.data(name='b', shape=[-1], dtype='int64')
            e = paddle.static.data(name='e', shape=[3], dtype='int64')
            k = paddle.stack([b, e], axis=0)
            exe = paddle.static.Executor()
            exe.run(startup_prg)
            out = exe.run(
                main_prg,
                feed={'b': np.ones([3]).astype("int64"), 'e': np.zeros([3]).astype("int64")},
                fetch_list=[k],
            )
        np.testing.assert_allclose(out[0], np.array([[1, 1, 1], [0, 0, 0]]), rtol=1e-05)


class TestStackAPI_ZeroSizedTensor(unittest.TestCase):
    def test_static_cpu(self):
        paddle.enable_static()
        place = fluid.CPUPlace()
        exe = fluid.Executor(place)
        with paddle.static.program_guard(
            paddle.static.Program(), paddle.static.Program()
        ):
            data1 = paddle.static.data('data1', shape=[0, 2], dtype='float64')
            data2 = paddle.static.data('data2', shape=[0, 2], dtype='float64')
            data3 = paddle.static.data('data3', shape=[0, 2], dtype='float64')
            result_stack = paddle.stack([data1, data2, data3], axis=0)
            input1 = np.ones([0, 2]).astype('float64')
            input2 = np.ones([0, 2]).astype('float64')
            input3 = np.ones([0, 2]).astype('float64')
            (result,) = exe.run(
                feed={"data1": input1, "data2": input2, "data3": input3},
                fetch_list=[result_stack],
            )
            expected_result = np.stack([input1, input2, input3], axis=0)
            np.testing.assert_equal(expected_result, result)


if __name__ == '__main__':
    unittest.main()
