"""Port of Paddle test/legacy_test/test_reshape_op.py: its static-graph API classes.

Kept: TestReshapeAPI.test_paddle_api (shape as list / int Variable / list holding a Variable,
and every dtype), TestStaticReshape_ (the same through paddle.reshape_), TestReshapeOpError,
TestReshapeZeroTensor, TestReshapeAPI_ZeroDim.test_static (legacy-program branch).
paddle.tensor.fill_constant([1], dtype, v) is written paddle.full([1], v, dtype);
base.framework.grad_var_name(n) is written n + '@GRAD' (its value); base.create_lod_tensor is
fluid.create_lod_tensor.
Dropped: the OpTest classes, bfloat16 (CUDA only in Paddle's test too), the dygraph tests
(test_imperative, TestDygraphReshape*, ZeroDim.test_dygraph), the PIR-only classes.
"""
import unittest

import numpy as np

import fluidc as fluid
import fluidc as paddle

paddle.enable_static()


class TestReshapeAPI(unittest.TestCase):
    def _executed_api(self):
        self.reshape = paddle.reshape

    def _test_api(self):
        input = np.random.random([2, 25]).astype("float32")
        shape = [2, 5, 5]
        main_prog = paddle.static.Program()
        with paddle.static.program_guard(main_prog, paddle.static.Program()):
            positive_five = paddle.full([1], 5, "int32")
            x = paddle.static.data(name="x", shape=[2, 25], dtype="float32")
            actual_shape = paddle.static.data(name="shape", shape=[3], dtype="int32")
            out_1 = self.reshape(x, shape)                          # a list
            out_2 = paddle.reshape(x, actual_shape)                 # a Variable, positionally
            out_3 = self.reshape(x, shape=[positive_five, 10])      # a list holding a Variable
            out_4 = self.reshape(x, shape=actual_shape)             # a Variable
        exe = paddle.static.Executor(place=paddle.CPUPlace())
        res_1, res_2, res_3, res_4 = exe.run(
            main_prog, feed={"x": input, "shape": np.array([2, 5, 5]).astype("int32")},
            fetch_list=[out_1, out_2, out_3, out_4])
        np.testing.assert_array_equal(res_1, input.reshape(shape))
        np.testing.assert_array_equal(res_2, input.reshape(shape))
        np.testing.assert_array_equal(res_3, input.reshape([5, 10]))
        np.testing.assert_array_equal(res_4, input.reshape(shape))

    def _test_static_dtype(self):
        dtypes = ['float16', 'float32', 'float64', 'int16', 'int32', 'int64', 'int8', 'uint8',
                  'complex64', 'complex128', 'bool']
        for dtype in dtypes:
            input = np.random.random([2, 25]).astype(dtype)
            shape = [2, 5, 5]
            main_prog = paddle.static.Program()
            with paddle.static.program_guard(main_prog, paddle.static.Program()):
                x = paddle.static.data(name="x", shape=[2, 25], dtype=dtype)
                out_1 = self.reshape(x, shape)
            exe = paddle.static.Executor(place=paddle.CPUPlace())
            res_1 = exe.run(main_prog, feed={"x": input}, fetch_list=[out_1])[0]
            np.testing.assert_array_equal(res_1, input.reshape(shape), err_msg=dtype)

    def test_paddle_api(self):
        self._executed_api()
        self._test_api()
        self._test_static_dtype()


class TestStaticReshape_(TestReshapeAPI):
    def _executed_api(self):
        self.reshape = paddle.reshape_


class TestReshapeOpError(unittest.TestCase):
    def test_paddle_api_error(self):
        reshape = paddle.reshape
        with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):
            def test_x_type():
                # x must be a Variable
                x1 = fluid.create_lod_tensor(np.array([[-1]]), [[1]], paddle.CPUPlace())
                reshape(x1, shape=[1])

            self.assertRaises(TypeError, test_x_type)
            # float16 is accepted
            x_float16 = paddle.static.data(name="x_float16", shape=[2, 25], dtype="float16")
            reshape(x_float16, shape=[2, 5, 5])
            x3 = paddle.static.data(name="x3", shape=[2, 25], dtype="float32")
            # shape must be a list, tuple or Variable
            self.assertRaises(TypeError, lambda: reshape(x3, shape=1))
            # at most one -1
            self.assertRaises(AssertionError, lambda: reshape(x3, shape=[-1, -1, 5]))
            # a 0 (copy this dim) past x's rank
            self.assertRaises(AssertionError, lambda: reshape(x3, [2, 5, 5, 0]))
            # no negative value but -1
            self.assertRaises(AssertionError, lambda: reshape(x3, [-1, -2, 5]))


class TestReshapeZeroTensor(unittest.TestCase):
    def test_reshape_zero_tensor_success(self):
        zero_tensor = paddle.zeros([0, 2, 3])
        # 0 copies the source dim, so a 0-size tensor reshapes keeping its 0 dim
        zero_tensor = zero_tensor.reshape([0, 6])
        self.assertTrue(list(zero_tensor.shape) == [0, 6])

    def test_reshape_zero_tensor_error(self):
        zero_tensor = paddle.zeros([0, 2, 3])
        with self.assertRaises(ValueError):
            zero_tensor.reshape([2, 3])


class TestReshapeAPI_ZeroDim(unittest.TestCase):
    def test_static(self):
        main_prog = paddle.static.Program()
        with paddle.static.program_guard(main_prog, paddle.static.Program()):
            x = paddle.rand([])
            x.stop_gradient = False
            out = paddle.reshape(x, [-1])
            paddle.static.append_backward(out)
            block = paddle.static.default_main_program().global_block()
            x_grad = block.var(x.name + '@GRAD')
            out_grad = block.var(out.name + '@GRAD')
            # compile-time shapes
            self.assertEqual(tuple(x.shape), ())
            self.assertEqual(tuple(out.shape), (1,))
            self.assertEqual(tuple(x_grad.shape), ())
            self.assertEqual(tuple(out_grad.shape), (1,))
            result = paddle.static.Executor().run(main_prog,
                                                  fetch_list=[x, out, x_grad, out_grad])
            # run-time shapes
            self.assertEqual(result[0].shape, ())
            self.assertEqual(result[1].shape, (1,))
            self.assertEqual(result[2].shape, ())
            self.assertEqual(result[3].shape, (1,))


if __name__ == "__main__":
    unittest.main()
