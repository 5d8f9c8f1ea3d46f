"""Port of Paddle test/legacy_test/test_matmul_v2_op.py: the static API and the op cases' outputs.

run-on-paddle: pir

Kept: TestMatMulV2API.test_static (paddle.matmul on static data, CPU), and the forward check of
every OpTest shape case (TestMatMulV2Op, TestMatMulOp2..17, TestMatMulOpBroadcast1/2, the
int32/int64 cases), expressed through the public API: paddle.matmul(x, y, transpose_x, transpose_y)
on float64 data in [-0.1, 0.1] against Paddle's numpy `reference_matmul`, with OpTest's float64
check_output tolerance (atol 1e-5; integer cases exact).
Dropped: OpTest's gradient checks (numeric finite differences through core.*), fp16/bf16/complex
OpTest variants, auto-parallel placements, dygraph tests (test_dygraph, fp16 compute-type flags,
TestMatmulop.func_dygraph_matmul).
"""
import unittest

import numpy as np

import fluidc as paddle

paddle.enable_static()


def reference_matmul(X, Y, transpose_X=False, transpose_Y=False):
    """numpy reference: swap the last two axes for the transpose flags, then np.matmul."""
    if transpose_X:
        if X.ndim == 1:
            X = X.reshape((X.size,))
        elif X.ndim == 2:
            X = X.T
        else:
            axes = list(range(X.ndim))
            axes[-1], axes[-2] = axes[-2], axes[-1]
            X = np.transpose(X, tuple(axes))
    if transpose_Y:
        if Y.ndim == 1:
            Y = Y.reshape((Y.size,))
        else:
            axes = list(range(Y.ndim))
            axes[-1], axes[-2] = axes[-2], axes[-1]
            Y = np.transpose(Y, tuple(axes))
    return np.matmul(X, Y)


class TestMatMulV2Op(unittest.TestCase):
    """case 1"""

    dtype = 'float64'

    def config(self):
        self.x_shape = (100,)
        self.y_shape = (100,)
        self.trans_x = False
        self.trans_y = False

    def make_inputs(self):
        x = np.random.random(self.x_shape).astype(self.dtype)
        y = np.random.random(self.y_shape).astype(self.dtype)
        return -0.1 + 0.2 * x, -0.1 + 0.2 * y  # in [-0.1, 0.1]

    def test_check_output(self):
        self.config()
        x_np, y_np = self.make_inputs()
        expected = reference_matmul(x_np, y_np, self.trans_x, self.trans_y).astype(self.dtype)
        main = paddle.static.Program()
        with paddle.static.program_guard(main, paddle.static.Program()):
            x = paddle.static.data('X', list(x_np.shape), self.dtype)
            y = paddle.static.data('Y', list(y_np.shape), self.dtype)
            out = paddle.matmul(x, y, transpose_x=self.trans_x, transpose_y=self.trans_y)
            exe = paddle.static.Executor(paddle.CPUPlace())
            (res,) = exe.run(main, feed={'X': x_np, 'Y': y_np}, fetch_list=[out])
        self.assertEqual(res.shape, expected.shape)
        np.testing.assert_allclose(res, expected, rtol=1e-5, atol=1e-5)


def _case(name, x_shape, y_shape, trans_x, trans_y):
    def config(self):
        self.x_shape, self.y_shape = x_shape, y_shape
        self.trans_x, self.trans_y = trans_x, trans_y
    globals()[name] = type(name, (TestMatMulV2Op,), {'config': config})


_case('TestMatMulOp2', (100,), (1, 3, 2, 100), False, True)
_case('TestMatMulOp3', (100,), (1, 1, 100, 2), False, False)
_case('TestMatMulOp4', (100,), (1, 2, 100, 2), False, False)
_case('TestMatMulOp5', (1, 1, 100, 1), (100,), True, False)
_case('TestMatMulOp6', (1, 2, 102, 1), (102,), True, False)
_case('TestMatMulOp7', (1, 2, 1, 100), (100,), False, False)
_case('TestMatMulOp8', (1, 1, 2, 100), (1, 1, 100, 2), False, False)
_case('TestMatMulOp9', (1, 1, 1, 100), (2, 1, 2, 100), False, True)
_case('TestMatMulOp10', (1, 1, 25, 4), (1, 2, 4, 25), False, False)
_case('TestMatMulOp11', (2, 1, 2, 100), (1, 1, 100, 2), False, False)
_case('TestMatMulOp12', (2, 1, 4, 25), (1, 1, 4, 25), True, False)
_case('TestMatMulOp13', (2, 2, 10, 10), (2, 2, 10, 10), True, False)
_case('TestMatMulOp14', (3, 1, 6, 6), (1, 2, 6, 9), True, False)
_case('TestMatMulOp15', (3, 1, 6, 6), (1, 2, 6, 9), False, False)
_case('TestMatMulOp16', (100,), (1, 2, 2, 100, 2), False, False)
_case('TestMatMulOp17', (2, 1, 100), (100,), False, False)
_case('TestMatMulOpBroadcast1', (3, 1, 10, 10), (1, 2, 10, 10), True, True)
_case('TestMatMulOpBroadcast2', (3, 1, 10, 10), (1, 2, 10, 10), False, True)
_case('TestMatMulV2OpAutoParallel', (32, 64), (48, 32), True, True)


class TestInt32MatmulOp(TestMatMulV2Op):
    dtype = 'int32'

    def config(self):
        self.x_shape, self.y_shape = (10, 10), (10, 10)
        self.trans_x = self.trans_y = False

    def make_inputs(self):
        # Paddle casts random() in [0, 1) to int (all zeros); small random ints say more
        return (np.random.randint(-5, 5, self.x_shape).astype(self.dtype),
                np.random.randint(-5, 5, self.y_shape).astype(self.dtype))


class TestInt32MatMulOpBroadcast(TestInt32MatmulOp):
    def config(self):
        self.x_shape, self.y_shape = (10, 2, 5), (5, 20)
        self.trans_x = self.trans_y = False


class TestInt64MatmulOp(TestInt32MatmulOp):
    dtype = 'int64'


class TestInt64MatMulOpBroadcast(TestInt32MatMulOpBroadcast):
    dtype = 'int64'


class TestMatMulV2API(unittest.TestCase):
    def check_static_result(self, place):
        with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):
            input_x = paddle.static.data(name='input_x', shape=[4, 3], dtype='float32')
            input_y = paddle.static.data(name='input_y', shape=[3, 4], dtype='float32')
            result = paddle.matmul(input_x, input_y)
            x_np = np.random.random([4, 3]).astype('float32')
            y_np = np.random.random([3, 4]).astype('float32')
            exe = paddle.static.Executor(place)
            exe.run(paddle.static.default_main_program(),
                    feed={'input_x': x_np, 'input_y': y_np}, fetch_list=[result])

    def test_static(self):
        self.check_static_result(place=paddle.CPUPlace())


if __name__ == '__main__':
    unittest.main()
