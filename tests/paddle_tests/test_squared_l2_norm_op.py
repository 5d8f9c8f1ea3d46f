"""Port of Paddle test/legacy_test/test_squared_l2_norm_op.py: the squared_l2_norm op.

Kept: TestSquaredL2NormF16Op / Op1 / Op2 (the op and its gradient run twice on the same
float32 data give the same values; added: against sum(x^2) and 2x), TestL2LossOp (Out against
np.square(LA.norm(X)); the gradient against central differences, OpTest's
max_relative_error 0.05), TestL2LossDeterministic (two runs equal, exact).
Changed: the file calls the op through the private paddle._C_ops / _legacy_C_ops in dygraph;
Paddle 3.3.1 has no public layer for it, so it is appended to a legacy Program by
Block.append_op (as OpTest's Operator runs it), its gradient through static.gradients.
"""
import unittest

import numpy as np
from numpy import linalg as LA

import fluidc as paddle

from .op_forward import assert_grad_close

paddle.enable_static()


def squared_l2_norm(x_np, with_grad=False):
    """[Out] (and X's gradient of Out) of the op run on x_np."""
    main = paddle.static.Program()
    with paddle.static.program_guard(main, paddle.static.Program()):
        x = paddle.static.data('x', list(x_np.shape), str(x_np.dtype))
        x.stop_gradient = not with_grad
        out = main.global_block().create_var(name='out', dtype=x.dtype, shape=[1])
        main.global_block().append_op(type='squared_l2_norm', inputs={'X': [x]},
                                      outputs={'Out': [out]})
        fetch = [out] + (paddle.static.gradients([out], [x]) if with_grad else [])
        return paddle.static.Executor(paddle.CPUPlace()).run(main, feed={'x': x_np},
                                                             fetch_list=fetch)


class TestSquaredL2NormF16Op(unittest.TestCase):
    def init_test_case(self):
        X = np.random.uniform(-0.1, 0.1, (8, 5, 10)).astype('float32')
        return X

    def check_main(self, x_np, dtype):
        y, x_g = squared_l2_norm(x_np, with_grad=True)
        return y, x_g

    def test_main(self):
        x_np = self.init_test_case()
        y_np_1, x_g_np_1 = self.check_main(x_np, 'float32')
        y_np_2, x_g_np_2 = self.check_main(x_np, 'float16')

        def assert_equal(x, y):
            np.testing.assert_allclose(x, y, rtol=1e-05, atol=0.0)

        assert_equal(y_np_1, y_np_2)
        assert_equal(x_g_np_1, x_g_np_2)
        assert_equal(y_np_1, [np.sum(x_np.astype(np.float64) ** 2)])
        assert_equal(x_g_np_1, 2 * x_np)


class TestSquaredL2NormF16Op1(TestSquaredL2NormF16Op):
    def init_test_case(self):
        X = np.random.uniform(-2.0, 2.0, (30, 10)).astype('float32')
        return X


class TestSquaredL2NormF16Op2(TestSquaredL2NormF16Op):
    def init_test_case(self):
        X = np.random.uniform(-5.0, 5.0, (20, 10, 20)).astype('float32')
        return X


class TestL2LossOp(unittest.TestCase):
    """Test squared_l2_norm"""

    def setUp(self):
        self.max_relative_error = 0.05

        X = np.random.uniform(-1, 1, (13, 19)).astype("float32")
        X[np.abs(X) < self.max_relative_error] = 0.1
        self.inputs = {'X': X}
        self.outputs = {'Out': np.array([np.square(LA.norm(X))])}

    def test_check_output(self):
        (out,) = squared_l2_norm(self.inputs['X'])
        np.testing.assert_allclose(out, self.outputs['Out'], rtol=1e-5, atol=1e-5)

    def test_check_grad(self):
        # OpTest's check_grad: the analytic gradient against central differences of the op
        # (delta 0.005, in float64 as OpTest computes them), compared by OpTest's rule
        x = self.inputs['X'].astype(np.float64)
        _, grad = squared_l2_norm(x, with_grad=True)
        delta = 0.005
        numeric = np.zeros_like(x)
        for idx in np.ndindex(x.shape):
            plus, minus = x.copy(), x.copy()
            plus[idx] += delta
            minus[idx] -= delta
            numeric[idx] = (squared_l2_norm(plus)[0][0] - squared_l2_norm(minus)[0][0]) / (
                2 * delta)
        assert_grad_close(numeric, grad, self.max_relative_error)


class TestL2LossDeterministic(unittest.TestCase):
    def check_place(self, place):
        x_np = np.random.rand(5, 11, 13).astype('float32')
        (y1,) = squared_l2_norm(x_np)
        (y2,) = squared_l2_norm(x_np)
        np.testing.assert_array_equal(y1, y2)

    def test_main(self):
        self.check_place(paddle.CPUPlace())


if __name__ == "__main__":
    paddle.enable_static()
    unittest.main()
