"""Port of Paddle test/legacy_test/test_rand_op.py: paddle.rand.

Kept: TestRandOpError, TestRandOp (static: list, tensor-list and fed int64 / int32 shape
tensors), TestRandOpForDygraph, TestRandDtype (paddle.framework.set_default_dtype: rand's
dtype None follows it).
Changed: TestRandOp also checks the fetched results' shapes, dtypes and range (Paddle only
runs the program; it fetches result_1 twice, kept); the CUDA runs are dropped (CPU only).
"""
import unittest

import numpy as np

import fluidc as fluid
import fluidc as paddle

base = fluid
rand = paddle.rand


class TestRandOpError(unittest.TestCase):
    """
    This class test the input type check.
    """

    def test_errors(self):
        main_prog = base.Program()
        start_prog = base.Program()
        with base.program_guard(main_prog, start_prog):

            def test_Variable():
                x1 = base.create_lod_tensor(np.zeros((4, 784)), [[1, 1, 1, 1]],
                                            base.CPUPlace())
                rand(x1)

            self.assertRaises(TypeError, test_Variable)

            def test_dtype():
                dim_1 = paddle.tensor.fill_constant([1], "int64", 3)
                dim_2 = paddle.tensor.fill_constant([1], "int32", 5)
                rand(shape=[dim_1, dim_2], dtype='int32')

            self.assertRaises(TypeError, test_dtype)


class TestRandOp(unittest.TestCase):
    """
    This class test the common usages of randop.
    """

    def run_net(self, use_cuda=False):
        place = base.CPUPlace()
        exe = base.Executor(place)

        train_program = base.Program()
        startup_program = base.Program()
        with base.program_guard(train_program, startup_program):
            result_0 = rand([3, 4])
            result_1 = rand([3, 4], 'float64')

            dim_1 = paddle.tensor.fill_constant([1], "int64", 3)
            dim_2 = paddle.tensor.fill_constant([1], "int32", 5)
            result_2 = rand(shape=[dim_1, dim_2])

            var_shape = paddle.static.data(name='var_shape', shape=[2], dtype="int64")
            result_3 = rand(var_shape)

            var_shape_int32 = paddle.static.data(name='var_shape_int32', shape=[2],
                                                 dtype="int32")
            result_4 = rand(var_shape_int32)

        exe.run(startup_program)

        x1 = np.array([3, 2]).astype('int64')
        x2 = np.array([4, 3]).astype('int32')
        ret = exe.run(
            train_program,
            feed={"var_shape": x1, "var_shape_int32": x2},
            fetch_list=[result_1, result_1, result_2, result_3, result_4],
        )
        # fluidc addition: Paddle's test only runs the program
        shapes = [(3, 4), (3, 4), (3, 5), (3, 2), (4, 3)]
        dtypes = ["float64", "float64", "float32", "float32", "float32"]
        for r, shape, dtype in zip(ret, shapes, dtypes):
            self.assertEqual(r.shape, shape)
            self.assertEqual(r.dtype, np.dtype(dtype))
            self.assertTrue(((r >= 0) & (r < 1)).all())

    def test_run(self):
        self.run_net(False)


class TestRandOpForDygraph(unittest.TestCase):
    """
    This class test the common usages of randop.
    """

    def run_net(self, use_cuda=False):
        place = base.CPUPlace()
        with base.dygraph.guard(place):
            rand([3, 4])

            rand([3, 4], 'float64')

            dim_1 = paddle.tensor.fill_constant([1], "int64", 3)
            dim_2 = paddle.tensor.fill_constant([1], "int32", 5)
            rand(shape=[dim_1, dim_2])

            var_shape = paddle.to_tensor(np.array([3, 4]))
            rand(var_shape)

    def test_run(self):
        self.run_net(False)


class TestRandDtype(unittest.TestCase):
    def test_default_dtype(self):
        paddle.disable_static()

        def test_default_fp16():
            paddle.framework.set_default_dtype('float16')
            out = paddle.tensor.random.rand([2, 3])
            self.assertEqual(out.dtype, paddle.float16)

        def test_default_fp32():
            paddle.framework.set_default_dtype('float32')
            out = paddle.tensor.random.rand([2, 3])
            self.assertEqual(out.dtype, paddle.float32)

        def test_default_fp64():
            paddle.framework.set_default_dtype('float64')
            out = paddle.tensor.random.rand([2, 3])
            self.assertEqual(out.dtype, paddle.float64)

        test_default_fp64()
        test_default_fp32()

        paddle.enable_static()


if __name__ == "__main__":
    unittest.main()
