"""Port of Paddle test/legacy_test/test_elementwise_mod_op.py.

The OpTest cases' check_output runs through paddle.remainder on a static program: the int32
ones (plain, 0-d, scalar) exactly, TestElementwiseModOpFloat / Double (float32 / float64, the
file's fmod(y + fmod(x, y), y) reference) at OpTest's tolerance. TestElementwiseDygraph (same
shape and broadcast remainders of four dtypes, and test_check_grad's paddle.grad of both
operands), TestRemainderOp / TestRemainderInplaceOp (static and dygraph) and
TestRemainderInplaceBroadcastSuccess / 2 / 3 are Paddle's (dygraph_guard / static_guard as
disable_static / enable_static), their places the CPU.
Dropped: the FP16 OpTests (CUDA only; their ZeroDim subclasses inherit the skip) and BF16
(CUDA only).
"""
import random
import unittest

import numpy as np

import fluidc as paddle

from .op_forward import run_forward

static = paddle.static


class TestElementwiseModOp(unittest.TestCase):
    def setUp(self):
        # seeded: Paddle's int cases draw y from uniform(0, 1000), a 0 (a division by zero,
        # which Paddle's kernel raises on) one run in ten
        np.random.seed(2024)
        random.seed(2024)
        self.init_dtype()
        self.init_input_output()

    def test_check_output(self):
        self.assertTrue((self.y != 0).all())
        res = run_forward(paddle.remainder, {'x': self.x, 'y': self.y})
        self.assertEqual(res.shape, self.out.shape)
        if np.issubdtype(self.dtype, np.integer):
            np.testing.assert_array_equal(res, self.out)
        else:
            np.testing.assert_allclose(res, self.out, rtol=1e-5 if self.dtype == np.float32
                                       else 1e-7, atol=1e-5 if self.dtype == np.float32 else 1e-7)

    def init_input_output(self):
        self.x = np.random.uniform(0, 10000, [10, 10]).astype(self.dtype)
        self.y = np.random.uniform(0, 1000, [10, 10]).astype(self.dtype)
        self.out = np.mod(self.x, self.y)

    def init_dtype(self):
        self.dtype = np.int32


class TestElementwiseModOp_ZeroDim1(TestElementwiseModOp):
    def init_input_output(self):
        self.x = np.random.uniform(0, 10000, []).astype(self.dtype)
        self.y = np.random.uniform(0, 1000, []).astype(self.dtype)
        self.out = np.mod(self.x, self.y)


class TestElementwiseModOp_ZeroDim2(TestElementwiseModOp):
    def init_input_output(self):
        self.x = np.random.uniform(0, 10000, [10, 10]).astype(self.dtype)
        self.y = np.random.uniform(0, 1000, []).astype(self.dtype)
        self.out = np.mod(self.x, self.y)


class TestElementwiseModOp_ZeroDim3(TestElementwiseModOp):
    def init_input_output(self):
        self.x = np.random.uniform(0, 10000, []).astype(self.dtype)
        self.y = np.random.uniform(0, 1000, [10, 10]).astype(self.dtype)
        self.out = np.mod(self.x, self.y)


class TestElementwiseModOp_scalar(TestElementwiseModOp):
    def init_input_output(self):
        scale_x = random.randint(0, 100000000)
        scale_y = random.randint(1, 100000000)
        self.x = (np.random.rand(2, 3, 4) * scale_x).astype(self.dtype)
        self.y = (np.random.rand(1) * scale_y + 1).astype(self.dtype)
        self.out = np.mod(self.x, self.y)


class TestElementwiseModOpFloat(TestElementwiseModOp):
    def init_dtype(self):
        self.dtype = np.float32

    def init_input_output(self):
        self.x = np.random.uniform(-1000, 1000, [10, 10]).astype(self.dtype)
        self.y = np.random.uniform(-100, 100, [10, 10]).astype(self.dtype)
        self.out = np.fmod(self.y + np.fmod(self.x, self.y), self.y)


class TestElementwiseModOpDouble(TestElementwiseModOpFloat):
    def init_dtype(self):
        self.dtype = np.float64


class TestElementwiseDygraph(unittest.TestCase):
    def setUp(self):
        paddle.disable_static()

    def tearDown(self):
        paddle.enable_static()

    def check_remainder(self, x_shape, y_shape):
        dtypes = ['int32', 'int64', 'float32', 'float64']
        places = [paddle.CPUPlace()]
        for dtype in dtypes:
            for place in places:
                x_np = np.random.uniform(-1000, 1000, x_shape).astype(dtype)
                y_np = np.random.uniform(-1000, 1000, y_shape).astype(dtype)
                # make sure all element in y is non-zero
                y_np[np.isclose(y_np, 0)] = -1
                z_np = np.remainder(x_np, y_np)

                x = paddle.to_tensor(x_np, dtype=dtype, place=place)
                y = paddle.to_tensor(y_np, dtype=dtype, place=place)
                z = paddle.remainder(x, y)
                self.assertEqual(z.dtype, x.dtype)
                np.testing.assert_allclose(z_np, z.numpy())

    def test_dygraph_same_shape(self):
        self.check_remainder([1, 2, 3, 4, 5], [1, 2, 3, 4, 5])

    def test_dygraph_broadcast_to_x(self):
        self.check_remainder([2, 3, 4, 5], [1, 1, 5])

    def test_dygraph_broadcast_to_y(self):
        self.check_remainder([1, 1, 5], [2, 3, 4, 5])

    def test_dygraph_broadcast_to_z(self):
        self.check_remainder([1, 3, 1, 5], [2, 1, 4, 1])

    def test_check_grad(self):
        dtypes = ['int32', 'int64', 'float32', 'float64']
        places = [paddle.CPUPlace()]  # only test in cpu
        for dtype in dtypes:
            for place in places:
                x_shape = [2, 1, 4, 1]
                y_shape = [1, 3, 1, 5]
                # x_shape = y_shape
                x_np = np.random.uniform(-1000, 1000, x_shape).astype(dtype)
                # make sure all element in y is non-zero
                x_np[x_np == 0] = -1
                y_np = np.random.uniform(-1000, 1000, y_shape).astype(dtype)
                # make sure all element in y is non-zero
                y_np[np.isclose(y_np, 0)] = -1
                z_np = np.remainder(x_np, y_np)

                x = paddle.to_tensor(x_np, dtype=dtype, place=place, stop_gradient=False)
                y = paddle.to_tensor(y_np, dtype=dtype, place=place, stop_gradient=False)
                z = paddle.remainder(x, y)
                self.assertEqual(z.dtype, x.dtype)
                np.testing.assert_allclose(z_np, z.numpy())

                v_np = np.random.uniform(-1000, 1000, z_np.shape).astype(dtype)
                v = paddle.to_tensor(v_np, dtype=dtype, place=place)
                dx = paddle.grad(z, x, v, retain_graph=True)[0]

                dx_np = v_np
                for dim in range(len(x_shape)):
                    if dx_np.shape[dim] > x.shape[dim]:
                        dx_np = dx_np.sum(axis=dim, keepdims=True)
                np.testing.assert_allclose(dx_np, dx.numpy(), 5e-5)

                dy = paddle.grad(z, y, v, retain_graph=True)[0]
                dy_np = -v_np * np.floor_divide(x_np, y_np)
                for dim in range(len(y_shape)):
                    if dy_np.shape[dim] > y.shape[dim]:
                        dy_np = dy_np.sum(axis=dim, keepdims=True)
                np.testing.assert_allclose(dy_np, dy.numpy(), 5e-5)


class TestRemainderOp(unittest.TestCase):
    def setUp(self):
        self.np_x1 = np.array([2, 3, 8, 7]).astype('int64')
        self.np_y1 = np.array([1, 5, 3, 3]).astype('int64')
        self.z_expected1 = np.array([0, 3, 2, 1])

        self.np_x2 = np.array([-3.3, 11.5, -2, 3.5])
        self.np_y2 = np.array([-1.2, 2.0, 3.3, -2.3])
        self.z_expected2 = np.array([-0.9, 1.5, 1.3, -1.1])

        self.np_x3 = np.array([-3, 11, -2, 3])
        self.np_y3 = np.array([-1, 2, 3, -2])
        self.z_expected3 = np.array([0, 1, 1, -1])

    def _executed_api(self, x, y, name=None):
        return paddle.remainder(x, y, name)

    def test_dygraph(self):
        paddle.disable_static()
        try:
            x = paddle.to_tensor(self.np_x1)
            y = paddle.to_tensor(self.np_y1)
            z = self._executed_api(x, y)
            np_z = z.numpy()
            self.assertEqual((np_z == self.z_expected1).all(), True)

            x = paddle.to_tensor(self.np_x2)
            y = paddle.to_tensor(self.np_y2)
            z = x % y
            np.testing.assert_allclose(self.z_expected2, z.numpy(), rtol=1e-05)

            x = paddle.to_tensor(self.np_x3, dtype="int64")
            y = paddle.to_tensor(self.np_y3, dtype="int64")
            z = x % y
            np.testing.assert_allclose(self.z_expected3, z.numpy(), rtol=1e-05)
        finally:
            paddle.enable_static()

    def test_static(self):
        paddle.enable_static()
        mp, sp = static.Program(), static.Program()
        with static.program_guard(mp, sp):
            x1 = static.data("x1", shape=[4], dtype="int64")
            y1 = static.data("y1", shape=[4], dtype="int64")
            z1 = self._executed_api(x1, y1)

            x2 = static.data("x2", shape=[4], dtype="float64")
            y2 = static.data("y2", shape=[4], dtype="float64")
            z2 = self._executed_api(x2, y2)

            x3 = static.data("x3", shape=[4], dtype="int64")
            y3 = static.data("y3", shape=[4], dtype="int64")
            z3 = self._executed_api(x3, y3)

        exe = static.Executor()
        exe.run(sp)
        [z_np1, z_np2, z_np3] = exe.run(
            mp,
            feed={
                "x1": self.np_x1,
                "y1": self.np_y1,
                "x2": self.np_x2,
                "y2": self.np_y2,
                "x3": self.np_x3,
                "y3": self.np_y3,
            },
            fetch_list=[z1, z2, z3],
        )
        np.testing.assert_allclose(self.z_expected1, z_np1, rtol=1e-05)
        np.testing.assert_allclose(self.z_expected2, z_np2, rtol=1e-05)
        np.testing.assert_allclose(self.z_expected3, z_np3, rtol=1e-05)


class TestRemainderInplaceOp(TestRemainderOp):
    def _executed_api(self, x, y, name=None):
        return x.remainder_(y, name)


class TestRemainderInplaceBroadcastSuccess(unittest.TestCase):
    def init_data(self):
        self.x_numpy = np.random.rand(2, 3, 4).astype('float')
        self.y_numpy = np.random.rand(3, 4).astype('float')

    def test_broadcast_success(self):
        paddle.disable_static()
        self.init_data()
        x = paddle.to_tensor(self.x_numpy)
        y = paddle.to_tensor(self.y_numpy)
        inplace_result = x.remainder_(y)
        numpy_result = self.x_numpy % self.y_numpy
        self.assertEqual((inplace_result.numpy() == numpy_result).all(), True)
        paddle.enable_static()


class TestRemainderInplaceBroadcastSuccess2(TestRemainderInplaceBroadcastSuccess):
    def init_data(self):
        self.x_numpy = np.random.rand(1, 2, 3, 1).astype('float')
        self.y_numpy = np.random.rand(3, 1).astype('float')


class TestRemainderInplaceBroadcastSuccess3(TestRemainderInplaceBroadcastSuccess):
    def init_data(self):
        self.x_numpy = np.random.rand(2, 3, 1, 5).astype('float')
        self.y_numpy = np.random.rand(1, 3, 1, 5).astype('float')


if __name__ == '__main__':
    unittest.main()
