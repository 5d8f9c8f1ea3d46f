"""Port of Paddle test/legacy_test/test_transpose_op.py: its static-graph API classes.

Kept: TestTransposeOpError, TestTransposeApi.test_static_out, TestTAPI (static halves of test_out,
test_errors), TestMoveAxis (static halves of test_moveaxis1/2, test_error).
fluid.layers.transpose / fluid.layers.data / fluid.data are written paddle.transpose /
paddle.static.data (3-D x, as in Paddle's current version of the file).
Dropped: the OpTest classes (TestTransposeOp*, bf16/fp16, bool), the dygraph halves
(test_dygraph_out, fluid.dygraph.guard blocks, paddle.to_tensor, test_moveaxis3 on complex).
"""
import unittest

import numpy as np

import fluidc as paddle

paddle.enable_static()


class TestTransposeOpError(unittest.TestCase):
    def test_errors(self):
        with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):
            x = paddle.static.data(name='x', shape=[10, 5, 3], dtype='float64')
            # x must be a Variable
            self.assertRaises(TypeError,
                              lambda: paddle.transpose("not_variable", perm=[1, 0, 2]))
            # (Paddle's 2.x test also required TypeError for an int8 x; Paddle 3.x transposes
            # int8, so that check is dropped)
            # perm must be a list (or tuple)
            self.assertRaises(TypeError, lambda: paddle.transpose(x, perm="[1, 0, 2]"))
            # perm's length must be x's rank
            self.assertRaises(ValueError, lambda: paddle.transpose(x, perm=[1, 0, 2, 3, 4]))
            # and each element less than it
            self.assertRaises(ValueError, lambda: paddle.transpose(x, perm=[3, 5, 7]))


class TestTransposeApi(unittest.TestCase):
    def test_static_out(self):
        with paddle.static.program_guard(paddle.static.Program()):
            x = paddle.static.data(name='x', shape=[2, 3, 4], dtype='float32')
            x_trans1 = paddle.transpose(x, perm=[1, 0, 2])
            x_trans2 = paddle.transpose(x, perm=(2, 1, 0))
            exe = paddle.static.Executor(paddle.CPUPlace())
            x_np = np.random.random([2, 3, 4]).astype("float32")
            result1, result2 = exe.run(feed={"x": x_np}, fetch_list=[x_trans1, x_trans2])
        np.testing.assert_array_equal(result1, np.transpose(x_np, [1, 0, 2]))
        np.testing.assert_array_equal(result2, np.transpose(x_np, (2, 1, 0)))


class TestTAPI(unittest.TestCase):
    def test_out(self):
        for shape in ([10], [10, 5], [1, 5]):
            with paddle.static.program_guard(paddle.static.Program()):
                data = paddle.static.data(shape=shape, dtype="float64", name="data")
                data_t = paddle.t(data)
                exe = paddle.static.Executor(paddle.CPUPlace())
                data_np = np.random.random(shape).astype("float64")
                (result,) = exe.run(feed={"data": data_np}, fetch_list=[data_t])
            self.assertEqual((result == np.transpose(data_np)).all(), True)

    def test_errors(self):
        with paddle.static.program_guard(paddle.static.Program()):
            x = paddle.static.data(name='x', shape=[10, 5, 3], dtype='float64')
            # paddle.t takes at most 2-D
            self.assertRaises(ValueError, lambda: paddle.t(x))


class TestMoveAxis(unittest.TestCase):
    def test_moveaxis1(self):
        x_np = np.random.randn(2, 3, 4, 5, 7)
        expected = np.moveaxis(x_np, [0, 4, 3, 2], [1, 3, 2, 0])
        with paddle.static.program_guard(paddle.static.Program()):
            x = paddle.static.data("x", shape=[2, 3, 4, 5, 7], dtype='float64')
            out = paddle.moveaxis(x, [0, 4, 3, 2], [1, 3, 2, 0])
            out_np = paddle.static.Executor().run(feed={"x": x_np}, fetch_list=[out])[0]
        self.assertEqual(np.array_equal(out_np, expected), True)

    def test_moveaxis2(self):
        x_np = np.random.randn(2, 3, 5)
        expected = np.moveaxis(x_np, -2, -1)
        with paddle.static.program_guard(paddle.static.Program()):
            x = paddle.static.data("x", shape=[2, 3, 5], dtype='float64')
            out = x.moveaxis(-2, -1)
            out_np = paddle.static.Executor().run(feed={"x": x_np}, fetch_list=[out])[0]
        self.assertEqual(np.array_equal(out_np, expected), True)

    def test_error(self):
        x = paddle.randn([2, 3, 4, 5])
        # src and dst of one length
        with self.assertRaises(AssertionError):
            paddle.moveaxis(x, [1, 0], [2])
        # unique src, unique dst
        with self.assertRaises(ValueError):
            paddle.moveaxis(x, [1, 1], [0, 2])
        with self.assertRaises(ValueError):
            paddle.moveaxis(x, [0, 1], [2, 2])
        # integers
        with self.assertRaises(AssertionError):
            paddle.moveaxis(x, [0.5], [1])
        with self.assertRaises(AssertionError):
            paddle.moveaxis(x, [0], [1.5])
        # in range
        with self.assertRaises(AssertionError):
            paddle.moveaxis(x, [-10, 1], [2, 3])
        with self.assertRaises(AssertionError):
            paddle.moveaxis(x, [2, 1], [10, 3])


if __name__ == '__main__':
    unittest.main()
