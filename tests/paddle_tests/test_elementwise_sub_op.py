"""Port of Paddle test/legacy_test/test_elementwise_sub_op.py: its static-graph parts.

Kept: TestSubtractApi (test_name, test_declarative), TestSubtractInplaceApi (Variable.subtract_),
and the forward output of the OpTest cases whose numpy reference is plain broadcasting
(same shape, 0-d, scalar, broadcast, common-use), through paddle.subtract on float64 data.
Dropped: OpTest gradient checks, axis!=-1 cases (no 2.x form), fp16/bf16/complex OpTests,
dygraph tests.
"""
import unittest

import numpy as np

import fluidc as paddle

paddle.enable_static()


class TestElementwiseSubOp(unittest.TestCase):
    x_shape, y_shape = (2, 3, 4, 5), (2, 3, 4, 5)

    def test_check_output(self):
        x_np = np.random.uniform(0.1, 1, self.x_shape).astype('float64')
        y_np = np.random.uniform(0.1, 1, self.y_shape).astype('float64')
        main = paddle.static.Program()
        with paddle.static.program_guard(main, paddle.static.Program()):
            x = paddle.static.data('x', list(self.x_shape), 'float64')
            y = paddle.static.data('y', list(self.y_shape), 'float64')
            out = paddle.subtract(x, y)
            (res,) = paddle.static.Executor(paddle.CPUPlace()).run(
                main, feed={'x': x_np, 'y': y_np}, fetch_list=[out])
        np.testing.assert_allclose(res, x_np - y_np, rtol=1e-7, atol=1e-5)


def _case(name, x_shape, y_shape):
    globals()[name] = type(name, (TestElementwiseSubOp,),
                           {'x_shape': x_shape, 'y_shape': y_shape})


_case('TestElementwiseSubOp_ZeroDim1', (), ())
_case('TestElementwiseSubOp_ZeroDim2', (2, 3, 4, 5), ())
_case('TestElementwiseSubOp_ZeroDim3', (), (2, 3, 4, 5))
_case('TestElementwiseSubOp_scalar', (10, 3, 4), (1,))
_case('TestElementwiseSubOp_Vector', (100,), (100,))
_case('TestElementwiseSubOp_broadcast_2', (2, 3, 100), (100,))
_case('TestElementwiseSubOp_broadcast_4', (2, 5, 3, 12), (2, 5, 1, 12))
_case('TestElementwiseSubOp_commonuse_1', (2, 3, 100), (1, 1, 100))
_case('TestElementwiseSubOp_commonuse_2', (10, 3, 1, 4), (10, 1, 12, 1))


class TestSubtractApi(unittest.TestCase):
    def _executed_api(self, x, y, name=None):
        return paddle.subtract(x, y, name)

    def test_name(self):
        with paddle.static.program_guard(paddle.static.Program()):
            x = paddle.static.data(name='x', shape=[2, 3], dtype='float32')
            y = paddle.static.data(name='y', shape=[2, 3], dtype='float32')
            y_1 = self._executed_api(x, y, name='subtract_res')
            self.assertTrue('subtract_res' in y_1.name)

    def test_declarative(self):
        main = paddle.static.Program()
        with paddle.static.program_guard(main):
            x = paddle.static.data(name='x', shape=[3], dtype='float32')
            y = paddle.static.data(name='y', shape=[3], dtype='float32')
            z = self._executed_api(x, y)
            exe = paddle.static.Executor(paddle.CPUPlace())
            z_value = exe.run(main, feed={'x': np.array([2, 3, 4]).astype('float32'),
                                          'y': np.array([1, 5, 2]).astype('float32')},
                              fetch_list=[z])
            self.assertTrue((z_value == np.array([1.0, -2.0, 2.0])).all())


class TestSubtractInplaceApi(TestSubtractApi):
    def _executed_api(self, x, y, name=None):
        return x.subtract_(y, name)


if __name__ == '__main__':
    unittest.main()
