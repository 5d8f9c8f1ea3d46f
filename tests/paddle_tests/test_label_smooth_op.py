"""Port of Paddle test/legacy_test/test_label_smooth_op.py: the label_smooth op through
F.label_smooth, against the file's formulas (`run-on-paddle: pir`: on Paddle 3.3.1's legacy
programs paddle.static.gradients finds no path through label_smooth and returns []).

Kept: the forward (test_check_output) of TestLabelSmoothOp, TestLabelSmoothOpWithPriorDist,
TestLabelSmoothOp3D and TestLabelSmoothOpWithPriorDist3D (float64; the prior distribution fed
as prior_dist), each run in a static program through the op's python_api.
Added (fluidc): the gradient of each case (check_grad's X) against central differences of the
op's sum, through paddle.static.gradients with target_gradients.
Dropped: the float16 / bfloat16 classes (OpTest's CUDA and low-precision checks).
"""
import unittest

import numpy as np

import fluidc as paddle

paddle.enable_static()


class TestLabelSmoothOp(unittest.TestCase):
    def config(self):
        self.op_type = "label_smooth"
        self.python_api = paddle.nn.functional.label_smooth
        self.init_dtype()
        self.epsilon = 0.1
        batch_size, self.label_dim = 10, 12
        self.label = np.zeros((batch_size, self.label_dim)).astype(self.dtype)
        nonzero_index = np.random.randint(self.label_dim, size=(batch_size))
        self.label[np.arange(batch_size), nonzero_index] = 1

    def setUp(self):
        self.config()
        smoothed_label = (
            1 - self.epsilon
        ) * self.label + self.epsilon / self.label_dim
        self.inputs = {'X': self.label}
        self.attrs = {'epsilon': self.epsilon}
        self.outputs = {'Out': smoothed_label}

    def init_dtype(self):
        self.dtype = np.float64

    def build(self):
        main = paddle.static.Program()
        with paddle.static.program_guard(main, paddle.static.Program()):
            x = paddle.static.data('x', list(self.inputs['X'].shape), 'float64')
            x.stop_gradient = False
            feed = {'x': self.inputs['X']}
            prior = None
            if 'PriorDist' in self.inputs:
                prior = paddle.static.data('prior', list(self.inputs['PriorDist'].shape),
                                           'float64')
                feed['prior'] = self.inputs['PriorDist']
            out = self.python_api(x, prior_dist=prior, epsilon=self.attrs['epsilon'])
            w = paddle.assign(self.weights())
            (dx,) = paddle.static.gradients([out], [x], target_gradients=[w])
        return main, feed, out, dx

    def weights(self):
        return np.random.RandomState(0).uniform(0.5, 1.5, self.inputs['X'].shape)

    def test_check_output(self):
        main, feed, out, _ = self.build()
        exe = paddle.static.Executor(paddle.CPUPlace())
        (got,) = exe.run(main, feed=feed, fetch_list=[out])
        np.testing.assert_allclose(got, self.outputs['Out'], rtol=1e-7, atol=1e-9)

    def test_check_grad(self):
        # X's gradient for an out gradient w, against central differences of sum(w * out)
        # computed from the file's formula
        main, feed, _, dx = self.build()
        exe = paddle.static.Executor(paddle.CPUPlace())
        (got,) = exe.run(main, feed=feed, fetch_list=[dx])
        w = self.weights()
        x = self.inputs['X']

        def total(x):
            if 'PriorDist' in self.inputs:
                smooth = (1 - self.epsilon) * x + self.epsilon * self.inputs['PriorDist']
            else:
                smooth = (1 - self.epsilon) * x + self.epsilon / self.label_dim
            return np.sum(w * smooth)

        numeric = np.zeros_like(x)
        h = 1e-6
        for idx in np.ndindex(*x.shape):
            xp, xm = x.copy(), x.copy()
            xp[idx] += h
            xm[idx] -= h
            numeric[idx] = (total(xp) - total(xm)) / (2 * h)
        np.testing.assert_allclose(got, numeric, rtol=1e-5, atol=1e-7)


class TestLabelSmoothOpWithPriorDist(TestLabelSmoothOp):
    def setUp(self):
        self.config()
        dist = np.random.random((1, self.label_dim)).astype(self.dtype)
        smoothed_label = (1 - self.epsilon) * self.label + self.epsilon * dist
        self.inputs = {'X': self.label, 'PriorDist': dist}
        self.attrs = {'epsilon': self.epsilon}
        self.outputs = {'Out': smoothed_label}


class TestLabelSmoothOp3D(TestLabelSmoothOp):
    def setUp(self):
        super().setUp()
        self.inputs['X'] = self.inputs['X'].reshape(
            [2, -1, self.inputs['X'].shape[-1]]
        )
        self.outputs['Out'] = self.outputs['Out'].reshape(
            self.inputs['X'].shape
        )


class TestLabelSmoothOpWithPriorDist3D(TestLabelSmoothOpWithPriorDist):
    def setUp(self):
        super().setUp()
        self.inputs['X'] = self.inputs['X'].reshape(
            [2, -1, self.inputs['X'].shape[-1]]
        )
        self.outputs['Out'] = self.outputs['Out'].reshape(
            self.inputs['X'].shape
        )


if __name__ == '__main__':
    paddle.enable_static()
    unittest.main()
