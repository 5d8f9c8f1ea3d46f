"""Port of Paddle test/legacy_test/test_cos_sim_op.py.

run-on-paddle: none (Paddle 3.3.1 no longer registers the cos_sim op: its append_op raises
"Operator cos_sim has not been registered"; the file's numpy reference is the check)

The four OpTest cases (same shapes, Y broadcast over rows in 2 and 4, 3-D inputs in 3 and 4)
check Out, XNorm and YNorm of the cos_sim op, appended with Block.append_op (Paddle 3.3.1 has no
public cos_sim layer; op_append.run_op), against the file's numpy reference at OpTest's float32
tolerance. Their gradient checks (max_relative_error 0.06) are kept as X's and Y's gradients
of mean(Out) through paddle.static.gradients against central differences of the reference.
"""
import unittest

import numpy as np

from .op_append import numeric_grad, run_op


def reference(x, y):
    axes = tuple(range(1, x.ndim))
    x_norm = np.sqrt((x * x).sum(axis=axes))
    y_norm = np.sqrt((y * y).sum(axis=axes))
    out = (x * y).sum(axis=axes) / x_norm / y_norm
    return out, x_norm, y_norm


class TestCosSimOp(unittest.TestCase):
    def setUp(self):
        self.inputs = {
            'X': np.random.random((6, 20)).astype("float32"),
            'Y': np.random.random((6, 20)).astype("float32"),
        }
        self.set_outputs()

    def set_outputs(self):
        expect_out, expect_x_norm, expect_y_norm = reference(self.inputs['X'], self.inputs['Y'])
        self.outputs = {
            'XNorm': np.expand_dims(expect_x_norm, 1),
            'YNorm': np.expand_dims(expect_y_norm, 1),
            'Out': np.expand_dims(expect_out, 1),
        }

    def test_check_output(self):
        got = run_op('cos_sim', self.inputs, {n: 'float32' for n in self.outputs})
        for name, want in self.outputs.items():
            np.testing.assert_allclose(got[name], want, rtol=1e-5, atol=1e-5, err_msg=name)

    def test_check_grad_normal(self):
        got = run_op('cos_sim', self.inputs, {n: 'float32' for n in ('Out', 'XNorm', 'YNorm')},
                     grad_inputs=('X', 'Y'))
        for name in ('X', 'Y'):
            want = numeric_grad(lambda X, Y: reference(X, Y)[0], self.inputs, name)
            np.testing.assert_allclose(got[name + '@GRAD'], want, rtol=0.06, atol=1e-6,
                                       err_msg=name)


class TestCosSimOp2(TestCosSimOp):
    def setUp(self):
        self.inputs = {
            'X': np.random.random((6, 100)).astype("float32"),
            'Y': np.random.random((1, 100)).astype("float32"),
        }
        self.set_outputs()


class TestCosSimOp3(TestCosSimOp):
    def setUp(self):
        self.inputs = {
            'X': np.random.random((6, 5, 4)).astype("float32"),
            'Y': np.random.random((6, 5, 4)).astype("float32"),
        }
        self.set_outputs()


class TestCosSimOp4(TestCosSimOp):
    def setUp(self):
        self.inputs = {
            'X': np.random.random((6, 5, 20)).astype("float32"),
            'Y': np.random.random((1, 5, 20)).astype("float32"),
        }
        self.set_outputs()


if __name__ == '__main__':
    unittest.main()
