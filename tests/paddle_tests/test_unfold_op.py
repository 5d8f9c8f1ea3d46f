"""Port of Paddle test/legacy_test/test_unfold_op.py: F.unfold and nn.Unfold.

Kept: TestUnfoldOp's forward output (float64, [3, 3, 20, 20], 3x3 kernel, paddings 1) through
F.unfold against Paddle's calc_unfold, its test_support_tuple (dygraph, int and tuple
arguments agree), TestUnfoldAPI's test_dygraph (nn.Unfold in eval mode against calc_unfold)
and test_info (str of the layer). Dropped: the OpTest grad check (tests/test_ops_grad.py checks
unfold's grad by finite differences), the float16 / bfloat16 cases.
"""
import unittest

import numpy as np

import fluidc as fluid
import fluidc as paddle

from .op_forward import run_forward

paddle.enable_static()


class TestUnfoldOp(unittest.TestCase):
    def init_data(self):
        self.batch_size = 3
        self.input_channels = 3
        self.input_height = 20
        self.input_width = 20
        self.kernel_sizes = [3, 3]
        self.strides = [1, 1]
        self.paddings = [1, 1, 1, 1]
        self.dilations = [1, 1]
        input_shape = [self.batch_size, self.input_channels, self.input_height,
                       self.input_width]
        self.x = np.random.rand(*input_shape).astype(self.dtype)

    def calc_unfold(self):
        output_shape = [0] * 3
        output_shape[0] = self.batch_size
        output_shape[1] = self.input_channels * self.kernel_sizes[0] * self.kernel_sizes[1]
        dkernel_h = self.dilations[0] * (self.kernel_sizes[0] - 1) + 1
        dkernel_w = self.dilations[1] * (self.kernel_sizes[1] - 1) + 1
        out_height = int((self.input_height + self.paddings[0] + self.paddings[2] - dkernel_h)
                         / self.strides[0]) + 1
        out_width = int((self.input_width + self.paddings[1] + self.paddings[3] - dkernel_w)
                        / self.strides[1]) + 1
        output_shape[2] = out_height * out_width
        output = np.zeros(output_shape).astype(self.dtype)
        for i in range(output_shape[0]):
            for j in range(output_shape[1]):
                for k in range(output_shape[2]):
                    h_out = int(k / out_width)
                    w_out = k % out_width
                    w_offset = j % self.kernel_sizes[1]
                    h_offset = int(j / self.kernel_sizes[1]) % self.kernel_sizes[0]
                    c_in = int(j / (self.kernel_sizes[0] * self.kernel_sizes[1]))
                    h_in = h_offset * self.dilations[0] + h_out * self.strides[0] \
                        - self.paddings[0]
                    w_in = w_offset * self.dilations[1] + w_out * self.strides[1] \
                        - self.paddings[1]
                    if (h_in >= 0 and h_in < self.input_height) and \
                            (w_in >= 0 and w_in < self.input_width):
                        output[i, j, k] = self.x[i, c_in, h_in, w_in]
        self.outputs = output

    def set_data(self):
        self.init_data()
        self.calc_unfold()
        self.inputs = {'X': self.x}
        self.attrs = {'kernel_sizes': self.kernel_sizes, 'paddings': self.paddings,
                      'dilations': self.dilations, 'strides': self.strides}
        self.outputs = {'Y': self.outputs}

    def setUp(self):
        self.dtype = np.float64
        self.set_data()

    def test_check_output(self):
        out = run_forward(paddle.nn.functional.unfold, {'x': self.inputs['X']}, **self.attrs)
        np.testing.assert_allclose(out, self.outputs['Y'], rtol=1e-7)

    def test_support_tuple(self):
        paddle.disable_static()
        x = paddle.randn((10, 3, 64, 64))
        paddle.nn.functional.unfold(x, 3, (1, 1), 1, 1)
        paddle.nn.functional.unfold(x, 3, 1, (1, 1), 1)
        paddle.nn.functional.unfold(x, 3, 1, 1, (1, 1))
        out1 = paddle.nn.functional.unfold(x, 3, (1, 1), (1, 1), (1, 1))
        out2 = paddle.nn.functional.unfold(x, (3, 3), (1, 1), (1, 1), (1, 1))
        self.assertTrue(np.allclose(out1.numpy(), out2.numpy()))
        paddle.enable_static()


class TestUnfoldAPI(TestUnfoldOp):
    """This is for test on paddle.nn.Unfold"""

    def test_dygraph(self):
        with fluid.dygraph.guard(fluid.CPUPlace()):
            input = paddle.to_tensor(self.inputs['X'])
            m = paddle.nn.Unfold(**self.attrs)
            m.eval()
            result = m(input)
            np.testing.assert_allclose(result.numpy(), self.outputs['Y'], rtol=1e-05)

    def test_info(self):
        str(paddle.nn.Unfold(**self.attrs))
