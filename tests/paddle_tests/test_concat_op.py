"""Port of Paddle test/legacy_test/test_concat_op.py: its static-graph API classes.

Kept: TestConcatOpError.test_errors, TestConcatAPI.test_base_api / test_api / test_errors,
TestConcatAPIWithDenseTensorArray (paddle.concat of a tensor array; its CUDAPlace choice is
CPUPlace here).
paddle.tensor.fill_constant([1], dtype, v) is written paddle.full([1], v, dtype) (the public 2.x
name); base.create_lod_tensor is fluid.create_lod_tensor.
Dropped: the OpTest classes (TestConcatOp*, bf16/fp16, AutoParallel), test_imperative (dygraph),
TestConcatDoubleGradCheck / TripleGradCheck (internal gradient_checker),
TestConcatOpErrorWithPir (PIR only).
"""
import unittest

import numpy as np

import fluidc as fluid
import fluidc as paddle

paddle.enable_static()


def _check_errors(test, with_list_check):
    with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):
        if with_list_check:
            # a single Variable (not a list) is accepted
            x1 = paddle.static.data(shape=[-1, 4], dtype='int32', name='x1')
            paddle.concat(x1)
        # the items must be Variables, not LoDTensors
        x2 = fluid.create_lod_tensor(np.array([[-1]]), [[1]], fluid.CPUPlace())
        test.assertRaises(TypeError, paddle.concat, [x2])
        # uint8 is not a concat dtype
        x4 = paddle.static.data(shape=[-1, 4], dtype='uint8', name='x4')
        x5 = paddle.static.data(shape=[-1, 4], dtype='uint8', name='x5')
        test.assertRaises(TypeError, paddle.concat, [x4, x5])
        x6 = paddle.static.data(shape=[-1, 4], dtype='float16', name='x6')
        x7 = paddle.static.data(shape=[-1, 4], dtype='float16', name='x7')
        x8 = paddle.static.data(shape=[-1, 4], dtype='float32', name='x8')
        if with_list_check:
            paddle.concat([x6, x7])
        # axis must be an int or a Variable
        test.assertRaises(TypeError, lambda: paddle.concat([x6, x7], 3.2))
        # all inputs must have one dtype
        test.assertRaises(TypeError, lambda: paddle.concat([x7, x8]))


class TestConcatOpError(unittest.TestCase):
    def test_errors(self):
        _check_errors(self, True)


class TestConcatAPI(unittest.TestCase):
    def _run(self, with_negative):
        with paddle.static.program_guard(paddle.static.Program()):
            x_1 = paddle.static.data(shape=[None, 1, 4, 5], dtype='int32', name='x_1')
            paddle.concat([x_1, x_1], 0)
            input_2 = np.random.random([2, 1, 4, 5]).astype("int32")
            input_3 = np.random.random([2, 2, 4, 5]).astype("int32")
            x_2 = paddle.static.data(shape=[2, 1, 4, 5], dtype='int32', name='x_2')
            x_3 = paddle.static.data(shape=[2, 2, 4, 5], dtype='int32', name='x_3')
            positive_1_int32 = paddle.full([1], 1, "int32")
            positive_1_int64 = paddle.full([1], 1, "int64")
            outs = [paddle.concat([x_2, x_3], axis=1),
                    paddle.concat(x=[x_2, x_3], axis=positive_1_int32),
                    paddle.concat(x=[x_2, x_3], axis=positive_1_int64)]
            if with_negative:
                outs.append(paddle.concat(x=[x_2, x_3], axis=paddle.full([1], -3, "int64")))
            exe = paddle.static.Executor(place=paddle.CPUPlace())
            res = exe.run(paddle.static.default_main_program(),
                          feed={"x_1": input_2, "x_2": input_2, "x_3": input_3},
                          fetch_list=outs)
            for r in res:
                np.testing.assert_array_equal(r, np.concatenate((input_2, input_3), axis=1))

    def test_base_api(self):
        self._run(False)

    def test_api(self):
        self._run(True)

    def test_errors(self):
        _check_errors(self, False)


class TestConcatAPIWithDenseTensorArray(unittest.TestCase):
    """
    Test concat api when the input(x) is a DenseTensorArray.
    """

    def setUp(self):
        self.axis = 1
        self.python = paddle.concat
        self.iter_num = 3
        self.input_shape = [2, 3]
        self.x = np.random.random(self.input_shape).astype("float32")
        self.place = fluid.CPUPlace()

    def set_program(self, use_base_api):
        paddle.enable_static()
        if use_base_api:
            self.program = fluid.Program()
            with fluid.program_guard(self.program):
                input = paddle.assign(self.x)
                tensor_array = paddle.tensor.create_array(dtype='float32')
                zero = paddle.full([1], 0, "int64")

                for i in range(self.iter_num):
                    paddle.tensor.array_write(input, zero + i, tensor_array)

                self.out_var = paddle.concat(tensor_array, axis=self.axis)
        else:
            self.program = paddle.static.Program()
            with paddle.static.program_guard(self.program):
                input = paddle.assign(self.x)
                tensor_array = paddle.tensor.create_array(
                    dtype='float32'
                )  # Api create_array is not supported in paddle 2.0 yet.
                zero = paddle.zeros(shape=[1], dtype="int64")

                for i in range(self.iter_num):
                    # Api array_write is not supported in paddle 2.0 yet.
                    paddle.tensor.array_write(input, zero + i, tensor_array)

                self.out_var = paddle.concat(tensor_array, axis=self.axis)

    def test_base_api(self):
        self._run_static_mode(use_base_api=True)

    def test_paddle_api(self):
        self._run_static_mode(use_base_api=False)

    def _run_static_mode(self, use_base_api):
        self.set_program(use_base_api)
        self.assertTrue(self.out_var.shape[self.axis] == -1)
        exe = fluid.Executor(self.place)
        res = exe.run(self.program, fetch_list=self.out_var)
        np.testing.assert_array_equal(
            res[0], np.concatenate([self.x] * self.iter_num, axis=self.axis)
        )


if __name__ == '__main__':
    unittest.main()
