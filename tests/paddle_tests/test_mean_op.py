"""Port of Paddle test/legacy_test/test_mean_op.py: the static API classes and the op cases' outputs.

run-on-paddle: pir

Kept: the forward output of TestMeanOp / TestMeanOp_ZeroDim (paddle.mean of everything) and of the
float64/float32 TestReduceMeanOp cases (shape, axis, keepdim, reduce_all as Paddle's case computes
them, through Paddle's `reduce_mean_wrapper` logic: reduce_all -> paddle.mean over every axis),
against numpy's mean with OpTest's tolerance (1e-5); TestMeanOpError; TestMeanAPI.test_api_static,
the static half of test_fluid_api.
Dropped: gradient / prim / double- and triple-grad checks (core.*, gradient_checker), fp16/bf16/
CUDA variants, test_api_dygraph, the dygraph half of test_fluid_api, test_errors and the int32 check
of TestMeanOpError (their static check, TypeError for int32 data, fails on Paddle 3.3.1, which
accepts int32; the rest of test_errors is dygraph), and
TestMeanWithTensorAxis* (dygraph paddle.to_tensor axes). Paddle guards TestReduceMeanOp with
`is_compiled_with_cuda` (its float16 subclasses need it); the float64/float32 cases' forward
check is device-independent and is kept here on CPU.
"""
import unittest

import numpy as np

import fluidc as fluid
import fluidc as paddle

paddle.enable_static()


def _run_mean(x_np, axis=None, keepdim=False, reduce_all=False):
    main = paddle.static.Program()
    with paddle.static.program_guard(main, paddle.static.Program()):
        x = paddle.static.data('X', list(x_np.shape), str(x_np.dtype))
        if reduce_all:  # Paddle's reduce_mean_wrapper
            out = paddle.mean(x, list(range(len(x.shape))), keepdim)
        else:
            out = paddle.mean(x, axis, keepdim)
        (res,) = paddle.static.Executor(paddle.CPUPlace()).run(
            main, feed={'X': x_np}, fetch_list=[out])
    return res


class TestMeanOp(unittest.TestCase):
    shape = (10, 10)

    def test_check_output(self):
        x_np = np.random.random(self.shape).astype('float64')
        res = _run_mean(x_np)
        expected = np.mean(x_np)
        self.assertEqual(res.shape, expected.shape)
        np.testing.assert_allclose(res, expected, rtol=1e-5, atol=1e-5)


class TestMeanOp_ZeroDim(TestMeanOp):
    shape = ()


class TestMeanOpError(unittest.TestCase):
    def test_errors(self):
        with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):
            self.assertRaises(TypeError, paddle.mean, 12)  # must be a Variable
            # Paddle's int32-input TypeError check is dropped: Paddle 3.3.1's paddle.mean
            # accepts int32 data (it no longer raises).
            # Paddle's float16 softmax build is dropped: a CPU-only Paddle 3.3.1 rejects float16
            # softmax (it checks for a CUDA float16 kernel).


class TestReduceMeanOp(unittest.TestCase):
    dtype = 'float64'
    shape = [2, 3, 4, 5]
    axis = [0]
    keepdim = False
    reduce_all = None  # None: computed as Paddle's setUp does

    def test_check_output(self):
        axis = [] if self.shape == [] else self.axis
        np.random.seed(10)
        x_np = np.random.uniform(-1, 1, self.shape).astype(self.dtype)
        reduce_all = self.reduce_all
        if reduce_all is None and x_np.shape != ():
            # Paddle's own rule (len(x_np) is the first dim's size)
            reduce_all = (not axis) or len(axis) == len(x_np)
        if x_np.shape == ():
            reduce_all = True
        np_axis = None if reduce_all else tuple(axis)
        expected = np.mean(x_np, axis=np_axis, keepdims=self.keepdim)
        res = _run_mean(x_np, list(axis) if isinstance(axis, tuple) else axis,
                        self.keepdim, reduce_all)
        self.assertEqual(res.shape, expected.shape)
        np.testing.assert_allclose(res, expected, rtol=1e-5, atol=1e-5)


class TestReduceMeanOp_ZeroDim(TestReduceMeanOp):
    shape = []


class TestReduceMeanOpDefaultAttrs(TestReduceMeanOp):
    pass  # Paddle: mean over axis 0 of [2, 3, 4, 5], default attrs


class TestReduceMeanOpFloat32(TestReduceMeanOp):
    dtype = 'float32'


class TestReduceMeanOpShape1D(TestReduceMeanOp):
    shape = [100]


class TestReduceMeanOpShape6D(TestReduceMeanOp):
    shape = [2, 3, 4, 5, 6, 7]


class TestReduceMeanOpAxisAll(TestReduceMeanOp):
    axis = [0, 1, 2, 3]


class TestReduceMeanOpAxisTuple(TestReduceMeanOp):
    axis = (0, 1, 2)


class TestReduceMeanOpAxisNegative(TestReduceMeanOp):
    axis = [-2, -1]


class TestReduceMeanOpKeepdimTrue1(TestReduceMeanOp):
    keepdim = True


class TestReduceMeanOpKeepdimTrue2(TestReduceMeanOp):
    axis = [0, 1, 2, 3]
    keepdim = True


class TestReduceMeanOpReduceAllTrue(TestReduceMeanOp):
    reduce_all = True


class TestMeanAPI(unittest.TestCase):
    def setUp(self):
        self.x_shape = [2, 3, 4, 5]
        self.x = np.random.uniform(-1, 1, self.x_shape).astype(np.float32)
        self.place = paddle.CPUPlace()

    def test_api_static(self):
        with paddle.static.program_guard(paddle.static.Program()):
            x = paddle.static.data('X', self.x_shape)
            out1 = paddle.mean(x)
            out2 = paddle.tensor.mean(x)
            out3 = paddle.tensor.stat.mean(x)
            axis = np.arange(len(self.x_shape)).tolist()
            out4 = paddle.mean(x, axis)
            out5 = paddle.mean(x, tuple(axis))
            exe = paddle.static.Executor(self.place)
            res = exe.run(feed={'X': self.x}, fetch_list=[out1, out2, out3, out4, out5])
        out_ref = np.mean(self.x)
        for out in res:
            np.testing.assert_allclose(out, out_ref, rtol=0.0001)

    def test_fluid_api(self):
        with fluid.program_guard(fluid.Program(), fluid.Program()):
            x = paddle.static.data('x', shape=[10, 10], dtype='float32')
            out = paddle.mean(x=x, axis=1)
            exe = fluid.Executor(fluid.CPUPlace())
            x_np = np.random.rand(10, 10).astype(np.float32)
            res = exe.run(feed={'x': x_np}, fetch_list=[out])
        np.testing.assert_allclose(res[0], np.mean(x_np, axis=1), rtol=1e-05)


if __name__ == '__main__':
    unittest.main()
