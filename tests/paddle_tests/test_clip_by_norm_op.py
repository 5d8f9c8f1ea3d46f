"""Port of Paddle test/legacy_test/test_clip_by_norm_op.py: the clip_by_norm op through its
python_api, paddle.nn.clip.clip_by_norm.

Kept: TestClipByNormOp and TestCase1 / 2 / 3 (float32; shapes (100,), (16, 16), (4, 8, 16);
max_norm 1, 1e20, 0.1, 1): the forward output against the file's numpy reference through
op_forward.run_forward (OpTest's float32 tolerance).
Added (fluidc): TestClipByNormErrors, the layer's checks as Paddle's (a float64 x, an int
max_norm: TypeError).
Dropped: the FP16 / BF16 cases (CUDA only), TestClipByNormOpWithSelectedRows (SelectedRows
through core.Scope / Operator).
"""
import unittest

import numpy as np

import fluidc as paddle

from .op_forward import run_forward

clip = paddle.nn.clip

paddle.enable_static()


class TestClipByNormOp(unittest.TestCase):
    def setUp(self):
        self.max_relative_error = 0.006
        self.python_api = clip.clip_by_norm
        self.init_dtype()
        self.initTestCase()
        input = np.random.random(self.shape).astype(self.dtype)
        input[np.abs(input) < self.max_relative_error] = 0.5
        self.op_type = "clip_by_norm"
        self.inputs = {'X': input}
        self.attrs = {}
        self.attrs['max_norm'] = self.max_norm
        norm = np.sqrt(np.sum(np.square(input)))
        if norm > self.max_norm:
            output = self.max_norm * input / norm
        else:
            output = input
        self.outputs = {'Out': output}

    def test_check_output(self):
        got = run_forward(self.python_api, {'x': self.inputs['X']},
                          max_norm=float(self.attrs['max_norm']))
        np.testing.assert_allclose(got, self.outputs['Out'], rtol=1e-5, atol=1e-5)

    def initTestCase(self):
        self.shape = (100,)
        self.max_norm = 1.0

    def init_dtype(self):
        self.dtype = np.float32


class TestCase1(TestClipByNormOp):
    def initTestCase(self):
        self.shape = (100,)
        self.max_norm = 1e20


class TestCase2(TestClipByNormOp):
    def initTestCase(self):
        self.shape = (16, 16)
        self.max_norm = 0.1


class TestCase3(TestClipByNormOp):
    def initTestCase(self):
        self.shape = (4, 8, 16)
        self.max_norm = 1.0


class TestClipByNormErrors(unittest.TestCase):
    def test_errors(self):
        with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):
            x64 = paddle.static.data('x64', [4], 'float64')
            self.assertRaises(TypeError, clip.clip_by_norm, x64, 1.0)
            x = paddle.static.data('x', [4], 'float32')
            self.assertRaises(TypeError, clip.clip_by_norm, x, 1)


if __name__ == '__main__':
    paddle.enable_static()
    unittest.main()
