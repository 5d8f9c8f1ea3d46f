"""Port of Paddle test/legacy_test/test_sum_op.py: paddle.add_n's static API classes.

run-on-paddle: pir

Kept: the forward output of TestSumOp (paddle.add_n of three float64 (3, 40) inputs against
x0 + x1 + x2), API_Test_Add_n.test_api's static half, TestRaiseSumError and TestRaiseSumsError.
Dropped: OpTest gradient / prim checks, the SelectedRows / LoDTensor+SelectedRows cases (they
build scopes and run a raw `sum` Operator through core.*), fp16/bf16 variants, the dygraph tests
(test_api's dygraph half, test_dygraph_api, test_add_n_and_add_and_grad, TestSumOpError), the
tensor-axis cases (they save and run a paddle.inference predictor), double/triple-grad checks
(gradient_checker) and TestSumAPIWarnings (LayerHelper.append_op, an internal).
"""
import unittest

import numpy as np

import fluidc as paddle

paddle.enable_static()


class TestSumOp(unittest.TestCase):
    dtype = 'float64'

    def test_check_output(self):
        xs = [np.random.random((3, 40)).astype(self.dtype) for _ in range(3)]
        main = paddle.static.Program()
        with paddle.static.program_guard(main, paddle.static.Program()):
            vs = [paddle.static.data('x%d' % i, [3, 40], self.dtype) for i in range(3)]
            out = paddle.add_n(vs)
            (res,) = paddle.static.Executor(paddle.CPUPlace()).run(
                main, feed={'x%d' % i: x for i, x in enumerate(xs)}, fetch_list=[out])
        np.testing.assert_allclose(res, xs[0] + xs[1] + xs[2], rtol=1e-5, atol=1e-5)


class API_Test_Add_n(unittest.TestCase):
    def test_api(self):
        with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):
            input0 = paddle.tensor.fill_constant(shape=[2, 3], dtype='int64', value=5)
            input1 = paddle.tensor.fill_constant(shape=[2, 3], dtype='int64', value=3)
            expected_result = np.empty((2, 3))
            expected_result.fill(8)
            sum_value = paddle.add_n([input0, input1])
            exe = paddle.static.Executor(paddle.CPUPlace())
            result = exe.run(fetch_list=[sum_value])
            self.assertEqual((result == expected_result).all(), True)


class TestRaiseSumError(unittest.TestCase):
    names = ('input1', 'input2', 'input1')

    def test_errors(self):
        with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):

            def test_type():
                paddle.add_n([11, 22])

            self.assertRaises(TypeError, test_type)

            def test_dtype():
                data1 = paddle.static.data(name=self.names[0], shape=[10], dtype='int8')
                data2 = paddle.static.data(name=self.names[1], shape=[10], dtype='int8')
                paddle.add_n([data1, data2])

            self.assertRaises(TypeError, test_dtype)

            def test_dtype1():
                data1 = paddle.static.data(name=self.names[2], shape=[10], dtype='int8')
                paddle.add_n(data1)

            self.assertRaises(TypeError, test_dtype1)


class TestRaiseSumsError(TestRaiseSumError):
    names = ('input1', 'input2', 'input3')


if __name__ == '__main__':
    unittest.main()
