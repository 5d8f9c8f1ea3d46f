"""Port of Paddle test/legacy_test/test_gru_unit_op.py: the gru_unit op's forward.

Paddle 3.3.1 has no layer for the 1.x `gru_unit` op (fluid.layers.gru_unit is gone), so each
OpTest case is the op appended to a legacy Program with Block.append_op (op_append.run_op),
fed the case's inputs, as OpTest runs it.
Kept: test_check_output of TestGRUUnitOp, TestGRUUnitOpOriginMode, TestGRUUnitOpWithBias
(identity candidate activation) and TestGRUUnitOpWithBiasOriginMode: batch 5, frame 40,
float64, all three outputs (Gate, ResetHiddenPrev, Hidden) against the file's numpy GRU step
with OpTest's check_output tolerance (atol 1e-5).
Dropped: the check_grad cases (numeric gradients through core.*).
"""
import math
import unittest

import numpy as np

from .op_append import run_op


class GRUActivationType:
    identity = 0
    sigmoid = 1
    tanh = 2
    relu = 3


def identity(x):
    return x


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def tanh(x):
    return 2.0 * sigmoid(2.0 * x) - 1.0


def relu(x):
    return np.maximum(x, 0)


class TestGRUUnitOp(unittest.TestCase):
    batch_size = 5
    frame_size = 40
    activate = {
        GRUActivationType.identity: identity,
        GRUActivationType.sigmoid: sigmoid,
        GRUActivationType.tanh: tanh,
        GRUActivationType.relu: relu,
    }

    def set_inputs(self, origin_mode=False):
        batch_size = self.batch_size
        frame_size = self.frame_size
        self.op_type = 'gru_unit'
        self.inputs = {
            'Input': np.random.uniform(
                -0.1, 0.1, (batch_size, frame_size * 3)
            ).astype(self.dtype),
            'HiddenPrev': np.random.uniform(
                -0.1, 0.1, (batch_size, frame_size)
            ).astype(self.dtype),
            'Weight': np.random.uniform(
                -1.0 / math.sqrt(frame_size),
                1.0 / math.sqrt(frame_size),
                (frame_size, frame_size * 3),
            ).astype(self.dtype),
        }
        self.attrs = {
            'activation': GRUActivationType.tanh,
            'gate_activation': GRUActivationType.sigmoid,
            'origin_mode': origin_mode,
        }

    def set_outputs(self, origin_mode=False):
        # GRU calculations
        batch_size = self.batch_size
        frame_size = self.frame_size
        x = self.inputs['Input']
        h_p = self.inputs['HiddenPrev']
        w = self.inputs['Weight']
        b = (
            self.inputs['Bias']
            if 'Bias' in self.inputs
            else np.zeros((1, frame_size * 3))
        )
        g = x + np.tile(b, (batch_size, 1))
        w_u_r = w.flatten()[: frame_size * frame_size * 2].reshape(
            (frame_size, frame_size * 2)
        )
        u_r = self.activate[self.attrs['gate_activation']](
            np.dot(h_p, w_u_r) + g[:, : frame_size * 2]
        )
        u = u_r[:, :frame_size]
        r = u_r[:, frame_size : frame_size * 2]
        r_h_p = r * h_p
        w_c = w.flatten()[frame_size * frame_size * 2 :].reshape(
            (frame_size, frame_size)
        )
        c = self.activate[self.attrs['activation']](
            np.dot(r_h_p, w_c) + g[:, frame_size * 2 :]
        )
        g = np.hstack((u_r, c))
        if origin_mode:
            h = (1 - u) * c + u * h_p
        else:
            h = u * c + (1 - u) * h_p
        self.outputs = {
            'Gate': g.astype(self.dtype),
            'ResetHiddenPrev': r_h_p.astype(self.dtype),
            'Hidden': h.astype(self.dtype),
        }

    def setUp(self):
        self.dtype = 'float64'
        self.set_inputs()
        self.set_outputs()

    def test_check_output(self):
        got = run_op(self.op_type, self.inputs, {k: self.dtype for k in self.outputs},
                     self.attrs, exact_shapes=True)
        for name, want in self.outputs.items():
            self.assertEqual(got[name].dtype, want.dtype, name)
            np.testing.assert_allclose(got[name], want, rtol=1e-5, atol=1e-5, err_msg=name)


class TestGRUUnitOpOriginMode(TestGRUUnitOp):
    def setUp(self):
        self.dtype = 'float64'
        self.set_inputs(origin_mode=True)
        self.set_outputs(origin_mode=True)


class TestGRUUnitOpWithBias(TestGRUUnitOp):
    def set_inputs(self, origin_mode=False):
        batch_size = self.batch_size
        frame_size = self.frame_size
        super().set_inputs()
        self.inputs['Bias'] = np.random.uniform(
            -0.1, 0.1, (1, frame_size * 3)
        ).astype(self.dtype)
        self.attrs = {
            'activation': GRUActivationType.identity,
            'gate_activation': GRUActivationType.sigmoid,
            'origin_mode': origin_mode,
        }


class TestGRUUnitOpWithBiasOriginMode(TestGRUUnitOpWithBias):
    def setUp(self):
        self.dtype = 'float64'
        self.set_inputs(origin_mode=True)
        self.set_outputs(origin_mode=True)


if __name__ == '__main__':
    unittest.main()
