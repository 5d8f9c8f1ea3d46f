"""Port of Paddle test/legacy_test/test_executor_return_tensor_not_overwriting.py: a tensor
fetched with return_numpy=False keeps its value after the Executor runs another program.
TestExecutorReturnTensorNotOverOverwritingWithLayers kept whole; the OpTest class
(_calc_output, an OpTest internal) dropped."""
import unittest

import numpy as np

import fluidc as paddle
import fluidc as fluid

paddle.enable_static()


class TestExecutorReturnTensorNotOverOverwritingWithLayers(unittest.TestCase):
    def setUp(self):
        pass

    def calc_add_out(self, place=None):
        x = paddle.ones(shape=[3, 3], dtype='float32')
        y = paddle.ones(shape=[3, 3], dtype='float32')
        out = paddle.add(x=x, y=y)
        program = fluid.default_main_program()
        exe = fluid.Executor(place)
        out = exe.run(program, fetch_list=[out], return_numpy=False)
        return out

    def calc_sub_out(self, place=None):
        x = paddle.ones(shape=[2, 2], dtype='float32')
        y = paddle.ones(shape=[2, 2], dtype='float32')
        out = paddle.subtract(x=x, y=y)
        program = fluid.default_main_program()
        exe = fluid.Executor(place)
        out = exe.run(program, fetch_list=[out], return_numpy=False)
        return out

    def test_executor_run_twice(self):
        places = [fluid.CPUPlace()]
        if fluid.is_compiled_with_cuda():
            places.append(fluid.CUDAPlace(0))

        for place in places:
            add_out = self.calc_add_out(place)
            add_out1 = np.array(add_out[0])
            sub_out = self.calc_sub_out(place)
            add_out2 = np.array(add_out[0])
            np.testing.assert_array_equal(add_out1, add_out2)
            # added: the values themselves (Paddle's test compares the two reads only)
            np.testing.assert_array_equal(add_out2, np.full((3, 3), 2, 'float32'))
            np.testing.assert_array_equal(np.array(sub_out[0]), np.zeros((2, 2), 'float32'))


if __name__ == '__main__':
    paddle.enable_static()
    unittest.main()
