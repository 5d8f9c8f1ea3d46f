"""Port of Paddle test/legacy_test/test_randn_op.py: paddle.randn.

Kept: all of it: TestRandnOp (static: float32 / float64, a shape of one-value int64 / int32
tensors, a fed int32 shape tensor; mean and std of each draw), TestRandnOpForDygraph,
TestRandnOpError.
Changed: fluid.core.is_compiled_with_cuda -> paddle.is_compiled_with_cuda; TestRandnOpError's
randn(1) is a shape [1] draw in Paddle 3.3.1, not a TypeError (asserted so).
Added (fluidc): the fetched draws' shapes and dtypes.
"""
import unittest

import numpy as np

import fluidc as paddle

Program, program_guard = paddle.static.Program, paddle.static.program_guard


class TestRandnOp(unittest.TestCase):
    def test_api(self):
        paddle.enable_static()
        shape = [1000, 784]
        train_program = Program()
        startup_program = Program()
        with program_guard(train_program, startup_program):
            x1 = paddle.randn(shape, 'float32')
            x2 = paddle.randn(shape, 'float64')

            dim_1 = paddle.tensor.fill_constant([1], "int64", 20)
            dim_2 = paddle.tensor.fill_constant([1], "int32", 50)
            x3 = paddle.randn([dim_1, dim_2, 784])

            var_shape = paddle.static.data('X', [2], 'int32')
            x4 = paddle.randn(var_shape)

        place = paddle.CUDAPlace(0) if paddle.is_compiled_with_cuda() else paddle.CPUPlace()
        exe = paddle.static.Executor(place)
        res = exe.run(train_program, feed={'X': np.array(shape, dtype='int32')},
                      fetch_list=[x1, x2, x3, x4])

        for out in res:
            self.assertAlmostEqual(np.mean(out), 0.0, delta=0.1)
            self.assertAlmostEqual(np.std(out), 1.0, delta=0.1)
        # fluidc addition
        self.assertEqual([r.shape for r in res],
                         [(1000, 784), (1000, 784), (20, 50, 784), (1000, 784)])
        self.assertEqual([r.dtype for r in res], [np.float32, np.float64, np.float32,
                                                  np.float32])


class TestRandnOpForDygraph(unittest.TestCase):
    def test_api(self):
        shape = [1000, 784]
        place = paddle.CUDAPlace(0) if paddle.is_compiled_with_cuda() else paddle.CPUPlace()
        paddle.disable_static(place)
        x1 = paddle.randn(shape, 'float32')
        x2 = paddle.randn(shape, 'float64')

        dim_1 = paddle.tensor.fill_constant([1], "int64", 20)
        dim_2 = paddle.tensor.fill_constant([1], "int32", 50)
        x3 = paddle.randn(shape=[dim_1, dim_2, 784])

        var_shape = paddle.to_tensor(np.array(shape))
        x4 = paddle.randn(var_shape)

        for out in [x1, x2, x3, x4]:
            self.assertAlmostEqual(np.mean(out.numpy()), 0.0, delta=0.1)
            self.assertAlmostEqual(np.std(out.numpy()), 1.0, delta=0.1)
        paddle.enable_static()


class TestRandnOpError(unittest.TestCase):
    def test_error(self):
        paddle.enable_static()
        with program_guard(Program(), Program()):
            # The argument shape's type of randn_op should be list or tuple.
            # Paddle 3.3.1 takes an int n as the shape [n] (rand and randn only): no TypeError
            self.assertEqual(tuple(paddle.randn(1).shape), (1,))

            # The argument dtype of randn_op should be float32 or float64.
            self.assertRaises(TypeError, paddle.randn, [1, 2], 'int32')


if __name__ == "__main__":
    unittest.main()
