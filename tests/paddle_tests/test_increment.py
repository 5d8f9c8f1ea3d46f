"""Port of Paddle test/legacy_test/test_increment.py.

Kept: TestIncrement.test_api (static: fill_constant 5 incremented by 3; dygraph under
fluid.dygraph.guard: ones incremented by 1), TestIncrement_ZeroSize (dygraph, a [0] int64
tensor).
Dropped: test_no_inplace_increment (paddle._pir_ops.increment and base.gradients on a PIR
program: internal op functions of PIR), TestInplaceApiWithDataTransform (CUDA only:
device_guard("gpu:0")).
"""
import unittest

import numpy as np

import fluidc as fluid
import fluidc as paddle


class TestIncrement(unittest.TestCase):

    def test_api(self):
        paddle.enable_static()
        with fluid.program_guard(fluid.Program(), fluid.Program()):
            input = paddle.tensor.fill_constant(
                shape=[1], dtype='int64', value=5
            )
            expected_result = np.array([8], dtype='int64')

            output = paddle.tensor.math.increment(input, value=3)
            exe = fluid.Executor(fluid.CPUPlace())
            result = exe.run(fetch_list=[output])
            self.assertEqual((result == expected_result).all(), True)

        with fluid.dygraph.guard():
            input = paddle.ones(shape=[1], dtype='int64')
            expected_result = np.array([2], dtype='int64')
            output = paddle.tensor.math.increment(input, value=1)
            self.assertEqual((output.numpy() == expected_result).all(), True)


class TestIncrement_ZeroSize(unittest.TestCase):

    def test_api(self):
        with fluid.dygraph.guard():
            input = paddle.randn(shape=[0]).astype('int64')
            expected_result = np.random.random([0]).astype('int64')
            output = paddle.tensor.math.increment(input, value=1)
            self.assertEqual((output.numpy() == expected_result).all(), True)
            # added: the result keeps the empty shape and dtype
            self.assertEqual(list(output.shape), [0])
            self.assertEqual(output.numpy().dtype, np.int64)


if __name__ == "__main__":
    unittest.main()
