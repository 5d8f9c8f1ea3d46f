"""Port of Paddle test/legacy_test/test_elementwise_add_op.py: its static-graph parts.

Kept: TestAddApi (test_name, test_declarative), TestAddInplaceApi (the same through
Variable.add_), TestBoolAddFloatElementwiseAddop.test_static_add (float + bool tensor -> float32),
and the forward output of the OpTest broadcast cases whose numpy reference is plain
broadcasting (axis=-1), through paddle.add on float64 data (OpTest's float64 tolerance).
Dropped: OpTest gradient checks, the axis!=-1 cases (fluid.layers.elementwise_add's axis has no
2.x paddle.add form), fp16/bf16/complex OpTests, every dygraph test (test_dygraph,
TestAddInplaceBroadcast*, TestElementwiseAddop1, test_dygraph_add).
"""
import unittest

import numpy as np

import fluidc as fluid
import fluidc as paddle

paddle.enable_static()


class TestElementwiseAddOp(unittest.TestCase):
    x_shape, y_shape = (13, 17), (13, 17)

    def test_check_output(self):
        x_np = np.random.uniform(0.1, 1, self.x_shape).astype('float64')
        y_np = np.random.uniform(0.1, 1, self.y_shape).astype('float64')
        main = paddle.static.Program()
        with paddle.static.program_guard(main, paddle.static.Program()):
            x = paddle.static.data('x', list(self.x_shape), 'float64')
            y = paddle.static.data('y', list(self.y_shape), 'float64')
            out = paddle.add(x, y)
            (res,) = paddle.static.Executor(paddle.CPUPlace()).run(
                main, feed={'x': x_np, 'y': y_np}, fetch_list=[out])
        np.testing.assert_allclose(res, x_np + y_np, rtol=1e-7, atol=1e-5)


def _case(name, x_shape, y_shape):
    globals()[name] = type(name, (TestElementwiseAddOp,),
                           {'x_shape': x_shape, 'y_shape': y_shape})


_case('TestElementwiseAddOp_ZeroDim1', (), ())
_case('TestElementwiseAddOp_ZeroDim2', (), (13, 17))
_case('TestElementwiseAddOp_ZeroDim3', (13, 17), ())
_case('TestElementwiseAddOp_scalar', (2, 3, 4), (1,))
_case('TestElementwiseAddOp_scalar2', (2, 3, 4), (1, 1))
_case('TestElementwiseAddOp_Vector', (100,), (100,))
_case('TestElementwiseAddOp_broadcast_3', (2, 10, 12, 1), (10, 12, 1))
_case('TestElementwiseAddOp_broadcast_4', (100, 2, 1, 2), (100, 1, 1, 1))
_case('TestElementwiseAddOp_broadcast_5', (10, 3, 12), (10, 1, 12))
_case('TestElementwiseAddOp_broadcast_6', (2, 12, 3, 5), (2, 12, 1, 5))
_case('TestElementwiseAddOp_broadcast_7', (1, 1, 20, 5), (20, 5, 1, 1))
_case('TestElementwiseAddOp_rowwise_add_0', (2, 10, 12), (10, 12))
_case('TestElementwiseAddOp_channelwise_add', (100, 2, 3), (100, 1, 1))
_case('TestElementwiseAddOp_commonuse_add1', (2, 3, 100), (1, 1, 100))
_case('TestElementwiseAddOp_commonuse_add2', (10, 3, 1, 4), (10, 1, 12, 1))
_case('TestElementwiseAddOp_same_shape_ysize_large', (10, 1, 12), (10, 2, 12))


class TestAddApi(unittest.TestCase):
    def _executed_api(self, x, y, name=None):
        return paddle.add(x, y, name)

    def test_name(self):
        with fluid.program_guard(fluid.Program()):
            x = paddle.static.data(name='x', shape=[2, 3], dtype='float32')
            y = paddle.static.data(name='y', shape=[2, 3], dtype='float32')
            y_1 = self._executed_api(x, y, name='add_res')
            self.assertTrue('add_res' in y_1.name)

    def test_declarative(self):
        with fluid.program_guard(fluid.Program()):
            x = paddle.static.data(name='x', shape=[3], dtype='float32')
            y = paddle.static.data(name='y', shape=[3], dtype='float32')
            z = self._executed_api(x, y)
            exe = fluid.Executor(fluid.CPUPlace())
            z_value = exe.run(feed={'x': np.array([2, 3, 4]).astype('float32'),
                                    'y': np.array([1, 5, 2]).astype('float32')},
                              fetch_list=[z.name])
            self.assertTrue((z_value == np.array([3.0, 8.0, 6.0])).all())


class TestAddInplaceApi(TestAddApi):
    def _executed_api(self, x, y, name=None):
        return x.add_(y, name)


class TestBoolAddFloatElementwiseAddop(unittest.TestCase):
    def test_static_add(self):
        b = paddle.full([4, 5, 6], True, dtype='bool')
        c = 1.5 + b
        # Paddle compares with core.VarDesc.VarType.FP32, the legacy dtype of paddle.float32
        self.assertTrue(c.dtype == paddle.float32)


if __name__ == '__main__':
    unittest.main()
