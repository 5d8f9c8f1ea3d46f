"""Port of Paddle test/legacy_test/test_elementwise_div_op.py: its static-graph parts.

Kept: TestElementwiseDivBroadcast.test_shape_with_batch_sizes (2. / x with None dims, exact),
TestDivideOp.test_name, and the forward output of the OpTest cases whose numpy reference is
plain broadcasting, through paddle.divide on float64 data in [0.1, 1) (OpTest's tolerance).
Dropped: OpTest gradient checks, axis!=-1 cases, fp16/bf16/complex/int OpTests, dygraph tests
(TestDivideOp.test_dygraph, TestElementwiseDivop).
"""
import unittest

import numpy as np

import fluidc as fluid
import fluidc as paddle

paddle.enable_static()


class TestElementwiseDivOp(unittest.TestCase):
    x_shape, y_shape = (12, 13), (12, 13)

    def test_check_output(self):
        x_np = np.random.uniform(0.1, 1, self.x_shape).astype('float64')
        y_np = np.random.uniform(0.1, 1, self.y_shape).astype('float64')
        main = paddle.static.Program()
        with paddle.static.program_guard(main, paddle.static.Program()):
            x = paddle.static.data('x', list(self.x_shape), 'float64')
            y = paddle.static.data('y', list(self.y_shape), 'float64')
            out = paddle.divide(x, y)
            (res,) = paddle.static.Executor(paddle.CPUPlace()).run(
                main, feed={'x': x_np, 'y': y_np}, fetch_list=[out])
        np.testing.assert_allclose(res, np.divide(x_np, y_np), rtol=1e-7, atol=1e-5)


def _case(name, x_shape, y_shape):
    globals()[name] = type(name, (TestElementwiseDivOp,),
                           {'x_shape': x_shape, 'y_shape': y_shape})


_case('TestElementwiseDivOp_ZeroDim1', (), ())
_case('TestElementwiseDivOp_ZeroDim2', (13, 17), ())
_case('TestElementwiseDivOp_ZeroDim3', (), (13, 17))
_case('TestElementwiseDivOpScalar', (20, 3, 4), (1,))
_case('TestElementwiseDivOpVector', (100,), (100,))
_case('TestElementwiseDivOpBroadcast2', (2, 3, 50), (50,))
_case('TestElementwiseDivOpBroadcast4', (2, 3, 4, 5), (1, 3, 1, 5))
_case('TestElementwiseDivOpCommonuse1', (2, 3, 100), (1, 1, 100))
_case('TestElementwiseDivOpCommonuse2', (30, 3, 1, 5), (30, 1, 4, 1))


class TestElementwiseDivBroadcast(unittest.TestCase):
    def test_shape_with_batch_sizes(self):
        with fluid.program_guard(fluid.Program()):
            x_var = paddle.static.data(name='x', dtype='float32', shape=[None, 3, None, None])
            out = 2.0 / x_var
            exe = fluid.Executor(fluid.CPUPlace())
            x = np.random.uniform(0.1, 0.6, (1, 3, 32, 32)).astype('float32')
            (out_result,) = exe.run(feed={'x': x}, fetch_list=[out])
            self.assertTrue((out_result == (2 / x)).all())


class TestDivideOp(unittest.TestCase):
    def test_name(self):
        with fluid.program_guard(fluid.Program()):
            x = paddle.static.data(name='x', shape=[2, 3], dtype='float32')
            y = paddle.static.data(name='y', shape=[2, 3], dtype='float32')
            y_1 = paddle.divide(x, y, name='div_res')
            self.assertTrue('div_res' in y_1.name)


if __name__ == '__main__':
    unittest.main()
