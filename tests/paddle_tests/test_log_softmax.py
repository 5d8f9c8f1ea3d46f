"""Port of Paddle test/legacy_test/test_log_softmax.py: the static API parts.

run-on-paddle: pir

Kept: TestNNLogSoftmaxAPI and TestNNFunctionalLogSoftmaxAPI (static halves of check_api, axis
-1 / 1, dtype float64; test_errors), and the forward output of the float64 OpTest cases
(TestLogSoftmaxOp [2, 3, 4, 5] axis -1, TestLogSoftmaxShape [12, 10], TestLogSoftmaxAxis axis 1,
TestLogSoftmaxOp_ZeroDim) through F.log_softmax against Paddle's `ref_log_softmax`, at OpTest's
float64 tolerance (atol 1e-7).
Dropped: the dygraph halves of check_api (paddle.disable_static / to_tensor), OpTest gradient
and prim checks, fp16/bf16 variants, the zero-size OpTest and the 20 GB CUDA large-op case.
Paddle 3.3.1's F.log_softmax works on static programs only with PIR, hence the marker.
"""
import unittest

import numpy as np

import fluidc as paddle

F = paddle.nn.functional
paddle.enable_static()
np.random.seed(10)


def ref_log_softmax(x):
    shiftx = x - np.max(x)
    out = shiftx - np.log(np.exp(shiftx).sum())
    return out


class TestLogSoftmaxOp(unittest.TestCase):
    def setUp(self):
        self.dtype = 'float64'
        self.shape = [2, 3, 4, 5]
        self.axis = -1
        self.set_attrs()
        x = np.random.uniform(0.1, 1.0, self.shape).astype(self.dtype)
        out = np.apply_along_axis(ref_log_softmax, self.axis, x)
        self.inputs = {'X': x}
        self.outputs = {'Out': out}

    def set_attrs(self):
        pass

    def test_check_output(self):
        x_np = self.inputs['X']
        main = paddle.static.Program()
        with paddle.static.program_guard(main, paddle.static.Program()):
            x = paddle.static.data('X', list(x_np.shape), self.dtype)
            out = F.log_softmax(x, self.axis)
            (res,) = paddle.static.Executor(paddle.CPUPlace()).run(
                main, feed={'X': x_np}, fetch_list=[out])
        self.assertEqual(res.shape, self.outputs['Out'].shape)
        np.testing.assert_allclose(res, self.outputs['Out'], rtol=1e-7, atol=1e-7)


class TestLogSoftmaxOp_ZeroDim(TestLogSoftmaxOp):
    def setUp(self):
        self.dtype = 'float64'
        self.axis = -1
        x = np.random.uniform(0.1, 1.0, []).astype(self.dtype)
        out = np.array(0.0).astype(self.dtype)
        self.inputs = {'X': x}
        self.outputs = {'Out': out}


class TestLogSoftmaxShape(TestLogSoftmaxOp):
    def set_attrs(self):
        self.shape = [12, 10]


class TestLogSoftmaxAxis(TestLogSoftmaxOp):
    def set_attrs(self):
        self.axis = 1


class TestNNLogSoftmaxAPI(unittest.TestCase):
    def setUp(self):
        self.x_shape = [2, 3, 4, 5]
        self.x = np.random.uniform(-1.0, 1.0, self.x_shape).astype(np.float32)
        self.place = paddle.CPUPlace()

    def check_api(self, axis=-1):
        ref_out = np.apply_along_axis(ref_log_softmax, axis, self.x)

        logsoftmax = paddle.nn.LogSoftmax(axis)
        # test static api
        with paddle.static.program_guard(paddle.static.Program()):
            x = paddle.static.data(name='x', shape=self.x_shape)
            y = logsoftmax(x)
            exe = paddle.static.Executor(self.place)
            out = exe.run(feed={'x': self.x}, fetch_list=[y])
        np.testing.assert_allclose(out[0], ref_out, rtol=1e-05)

    def test_check_api(self):
        for axis in [-1, 1]:
            self.check_api(axis)


class TestNNFunctionalLogSoftmaxAPI(unittest.TestCase):
    def setUp(self):
        self.x_shape = [2, 3, 4, 5]
        self.x = np.random.uniform(-1, 1, self.x_shape).astype(np.float32)
        self.place = paddle.CPUPlace()

    def check_api(self, axis=-1, dtype=None):
        x = self.x.copy()
        if dtype is not None:
            x = x.astype(dtype)
        ref_out = np.apply_along_axis(ref_log_softmax, axis, x)
        with paddle.static.program_guard(paddle.static.Program()):
            x = paddle.static.data(name='x', shape=self.x_shape)
            y = F.log_softmax(x, axis, dtype)
            exe = paddle.static.Executor(self.place)
            out = exe.run(feed={'x': self.x}, fetch_list=[y])
        np.testing.assert_allclose(out[0], ref_out, rtol=1e-05)

    def test_check_api(self):
        for axis in [-1, 1]:
            self.check_api(axis)
        self.check_api(-1, 'float64')

    def test_errors(self):
        with paddle.static.program_guard(paddle.static.Program()):
            x = paddle.static.data(name='X1', shape=[100], dtype='int32')
            self.assertRaises(TypeError, F.log_softmax, x)

            x = paddle.static.data(name='X2', shape=[100], dtype='float32')
            self.assertRaises(TypeError, F.log_softmax, x, dtype='int32')


if __name__ == "__main__":
    unittest.main()
