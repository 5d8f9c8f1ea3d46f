"""Port of Paddle test/legacy_test/test_conv2d_op.py: the OpTest cases' forward outputs.

Kept: the forward check (`test_check_output`) of every CPU OpTest case - TestConv2DOp, TestWithPad,
TestWithStride, TestWithGroup, TestWith1x1, TestWithDepthWise3x3/5x5/7x7, TestWithDilation,
TestWithInput1x1Filter1x1, the asymmetric-padding TestConv2DOp_v2 family, and the generated
PaddingSAMEOp / PaddingVALIDOp / ChannelLast classes - expressed through the public API:
paddle.nn.functional.conv2d(x, weight, stride, padding, dilation, groups, data_format) on the
case's float64 data against the file's numpy `conv2d_forward_naive`, with OpTest's atol 1e-5
(TestWithGroup keeps Paddle's `self.group = 3` typo: it runs with groups 1, as there).
TestConv2DOpError (TypeErrors of paddle.static.nn.conv2d) is kept as it is.
Dropped: OpTest's gradient checks (numeric differences through core.*), the CUDNN / fp16 / bf16 /
exhaustive-search classes (CUDA only), fuse_relu_before_depthwise_conv (CUDA only).
"""
import unittest

import numpy as np

import fluidc as fluid
import fluidc as paddle

from .op_forward import run_forward

paddle.enable_static()


def conv2d_forward_naive(input, filter, group, conv_param, padding_algorithm='EXPLICIT',
                         data_format='NCHW'):
    """Paddle's numpy reference (the test file's own)."""
    channel_last = data_format == "NHWC"
    if channel_last:
        input = np.transpose(input, [0, 3, 1, 2])
    in_n, in_c, in_h, in_w = input.shape
    f_n, f_c, f_h, f_w = filter.shape
    out_c = f_n
    assert f_c * group == in_c
    sub_out_c = out_c // group
    sub_f_n = f_n // group
    stride, pad, dilation = conv_param['stride'], conv_param['pad'], conv_param['dilation']

    def _get_padding_with_SAME(input_shape, pool_size, pool_stride):
        padding = []
        for input_size, filter_size, stride_size in zip(input_shape, pool_size, pool_stride):
            out_size = int((input_size + stride_size - 1) / stride_size)
            pad_sum = np.max(((out_size - 1) * stride_size + filter_size - input_size, 0))
            pad_0 = int(pad_sum / 2)
            padding.append(pad_0)
            padding.append(int(pad_sum - pad_0))
        return padding

    ksize = filter.shape[2:4]
    if padding_algorithm == "VALID":
        pad = [0, 0, 0, 0]
    elif padding_algorithm == "SAME":
        dilation = [1, 1]
        pad = _get_padding_with_SAME(input.shape[2:4], ksize, stride)

    pad_h_0, pad_h_1 = pad[0], pad[0]
    pad_w_0, pad_w_1 = pad[1], pad[1]
    if len(pad) == 4:
        pad_h_0, pad_h_1 = pad[0], pad[1]
        pad_w_0, pad_w_1 = pad[2], pad[3]
    out_h = 1 + (in_h + pad_h_0 + pad_h_1 - (dilation[0] * (f_h - 1) + 1)) // stride[0]
    out_w = 1 + (in_w + pad_w_0 + pad_w_1 - (dilation[1] * (f_w - 1) + 1)) // stride[1]
    out = np.zeros((in_n, out_c, out_h, out_w))
    d_block_h = dilation[0] * (f_h - 1) + 1
    d_block_w = dilation[1] * (f_w - 1) + 1
    input_pad = np.pad(input, ((0, 0), (0, 0), (pad_h_0, pad_h_1), (pad_w_0, pad_w_1)),
                       mode='constant', constant_values=0)
    filter_dilation = np.zeros((f_n, f_c, d_block_h, d_block_w))
    filter_dilation[:, :, 0:d_block_h:dilation[0], 0:d_block_w:dilation[1]] = filter
    for i in range(out_h):
        for j in range(out_w):
            for g in range(group):
                input_pad_masked = input_pad[:, g * f_c:(g + 1) * f_c,
                                             i * stride[0]:i * stride[0] + d_block_h,
                                             j * stride[1]:j * stride[1] + d_block_w]
                f_sub = filter_dilation[g * sub_f_n:(g + 1) * sub_f_n, :, :, :]
                for k in range(sub_out_c):
                    out[:, g * sub_out_c + k, i, j] = np.sum(input_pad_masked * f_sub[k, :, :, :],
                                                             axis=(1, 2, 3))
    if channel_last:
        out = np.transpose(out, [0, 2, 3, 1])
    return out


class TestConv2DOp(unittest.TestCase):
    dtype = np.float64
    padding_algorithm = 'EXPLICIT'
    data_format = 'NCHW'

    def setUp(self):
        self.init_group()
        self.init_dilation()
        self.init_data_format()
        self.init_test_case()
        self.init_paddings()
        self.init_test_case_2()

    def test_check_output(self):
        input = np.random.random(self.input_size).astype(self.dtype)
        filter = np.random.uniform(-1, 1, self.filter_size).astype(self.dtype)
        conv2d_param = {'stride': self.stride, 'pad': self.pad, 'dilation': self.dilations}
        expect = conv2d_forward_naive(input, filter, self.groups, conv2d_param,
                                      self.padding_algorithm, self.data_format)
        padding = self.pad if self.padding_algorithm == 'EXPLICIT' else self.padding_algorithm
        out = run_forward(paddle.nn.functional.conv2d, {'x': input, 'weight': filter},
                          stride=self.stride, padding=padding, dilation=self.dilations,
                          groups=self.groups, data_format=self.data_format)
        np.testing.assert_allclose(out, expect, rtol=0, atol=1e-5)

    def init_test_case(self):
        self.pad = [0, 0]
        self.stride = [1, 1]
        self.input_size = [2, 3, 5, 5]  # NCHW
        f_c = self.input_size[1] // self.groups
        self.filter_size = [6, f_c, 3, 3]

    def init_test_case_2(self):
        pass

    def init_dilation(self):
        self.dilations = [1, 1]

    def init_group(self):
        self.groups = 1

    def init_paddings(self):
        pass

    def init_data_format(self):
        pass


class TestWithPad(TestConv2DOp):
    def init_test_case(self):
        self.pad = [1, 1]
        self.stride = [1, 1]
        self.input_size = [2, 3, 5, 5]
        self.filter_size = [6, self.input_size[1] // self.groups, 3, 3]


class TestWithStride(TestConv2DOp):
    def init_test_case(self):
        self.pad = [1, 1]
        self.stride = [2, 2]
        self.input_size = [2, 3, 6, 6]
        self.filter_size = [6, self.input_size[1] // self.groups, 3, 3]


class TestWithGroup(TestConv2DOp):
    def init_test_case(self):
        self.pad = [0, 0]
        self.stride = [1, 1]
        self.input_size = [2, 3, 5, 5]
        self.group = 3  # sic (Paddle's): groups stays 1
        self.filter_size = [18, self.input_size[1] // self.groups, 3, 3]


class TestWith1x1(TestConv2DOp):
    def init_test_case(self):
        self.pad = [0, 0]
        self.stride = [1, 1]
        self.input_size = [2, 3, 5, 5]
        self.filter_size = [120, self.input_size[1] // self.groups, 1, 1]

    def init_group(self):
        self.groups = 3


class TestWithDepthWise3x3(TestConv2DOp):
    def init_test_case(self):
        self.pad = [1, 1]
        self.stride = [1, 1]
        self.input_size = [3, 4, 10, 10]
        self.filter_size = [12, self.input_size[1] // self.groups, 3, 3]

    def init_dilation(self):
        self.dilations = [2, 2]

    def init_group(self):
        self.groups = 4


class TestWithDepthWise5x5(TestConv2DOp):
    def init_test_case(self):
        self.pad = [0, 0]
        self.stride = [1, 1]
        self.input_size = [2, 4, 10, 10]
        self.filter_size = [8, self.input_size[1] // self.groups, 5, 5]

    def init_group(self):
        self.groups = 4


class TestWithDepthWise7x7(TestConv2DOp):
    def init_test_case(self):
        self.pad = [1, 1]
        self.stride = [2, 2]
        self.input_size = [2, 8, 10, 10]
        self.filter_size = [16, self.input_size[1] // self.groups, 7, 7]

    def init_group(self):
        self.groups = 8


class TestWithDilation(TestConv2DOp):
    def init_test_case(self):
        self.pad = [0, 0]
        self.stride = [1, 1]
        self.input_size = [2, 3, 10, 10]
        self.filter_size = [12, self.input_size[1] // self.groups, 3, 3]

    def init_dilation(self):
        self.dilations = [2, 2]

    def init_group(self):
        self.groups = 3


class TestWithInput1x1Filter1x1(TestConv2DOp):
    def init_test_case(self):
        self.pad = [0, 0]
        self.stride = [1, 1]
        self.input_size = [100, 3, 1, 1]
        self.filter_size = [120, self.input_size[1] // self.groups, 1, 1]

    def init_group(self):
        self.groups = 3


class TestConv2DOpError(unittest.TestCase):
    def test_errors(self):
        with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):

            def test_Variable():
                # the input of conv2d must be Variable.
                x1 = fluid.create_lod_tensor(np.array([-1, 3, 5, 5]), [[1, 1, 1, 1]],
                                             fluid.CPUPlace())
                paddle.static.nn.conv2d(x1, 1, 1)

            self.assertRaises(TypeError, test_Variable)

            def test_dtype():
                # the input dtype of conv2d must be float16 or float32 or float64
                x2 = paddle.static.data(name='x2', shape=[-1, 3, 4, 5, 6], dtype="int32")
                paddle.static.nn.conv2d(x2, 1, 1)

            self.assertRaises(TypeError, test_dtype)


# ---- asymmetric padding ----


class TestConv2DOp_v2(TestConv2DOp):
    def init_test_case(self):
        self.pad = [0, 0]
        self.stride = [1, 2]
        self.input_size = [2, 3, 5, 5]
        self.filter_size = [6, self.input_size[1] // self.groups, 4, 3]

    def init_paddings(self):
        self.pad = [0, 0]
        self.padding_algorithm = "EXPLICIT"


class TestConv2DOp_AsyPadding(TestConv2DOp_v2):
    def init_paddings(self):
        self.pad = [0, 0, 1, 2]
        self.padding_algorithm = "EXPLICIT"


class TestWithPad_AsyPadding(TestConv2DOp_v2):
    def init_test_case(self):
        self.stride = [1, 1]
        self.input_size = [2, 3, 5, 5]
        self.filter_size = [6, self.input_size[1] // self.groups, 3, 3]

    def init_paddings(self):
        self.pad = [2, 1, 3, 2]
        self.padding_algorithm = "EXPLICIT"


class TestWithStride_AsyPadding(TestConv2DOp_v2):
    def init_test_case(self):
        self.stride = [2, 2]
        self.input_size = [2, 3, 6, 6]
        self.filter_size = [6, self.input_size[1] // self.groups, 3, 3]

    def init_paddings(self):
        self.pad = [2, 1, 3, 2]
        self.padding_algorithm = "EXPLICIT"


class TestWithGroup_AsyPadding(TestConv2DOp_v2):
    def init_test_case(self):
        self.pad = [0, 0]
        self.stride = [1, 2]
        self.input_size = [2, 3, 5, 5]
        self.group = 3  # sic (Paddle's): groups stays 1
        self.filter_size = [24, self.input_size[1] // self.groups, 4, 3]


class TestWith1x1_AsyPadding(TestConv2DOp_v2):
    def init_test_case(self):
        self.stride = [1, 1]
        self.input_size = [2, 3, 5, 5]
        self.filter_size = [120, self.input_size[1] // self.groups, 1, 1]

    def init_group(self):
        self.groups = 3

    def init_paddings(self):
        self.pad = [2, 2, 4, 0]
        self.padding_algorithm = "EXPLICIT"


class TestWithDepthWise3x3_AsyPadding(TestConv2DOp_v2):
    def init_test_case(self):
        self.stride = [1, 1]
        self.input_size = [3, 4, 10, 10]
        self.filter_size = [16, self.input_size[1] // self.groups, 3, 3]

    def init_dilation(self):
        self.dilations = [2, 2]

    def init_group(self):
        self.groups = 4

    def init_paddings(self):
        self.pad = [1, 3, 2, 1]
        self.padding_algorithm = "EXPLICIT"


class TestWithDepthWise5x5_AsyPadding(TestConv2DOp_v2):
    def init_test_case(self):
        self.stride = [1, 1]
        self.input_size = [2, 4, 10, 10]
        self.filter_size = [8, self.input_size[1] // self.groups, 5, 5]

    def init_group(self):
        self.groups = 4

    def init_paddings(self):
        self.pad = [0, 1, 1, 0]
        self.padding_algorithm = "EXPLICIT"


class TestWithDepthWise7x7_AsyPadding(TestConv2DOp_v2):
    def init_test_case(self):
        self.stride = [2, 2]
        self.input_size = [2, 8, 10, 10]
        self.filter_size = [16, self.input_size[1] // self.groups, 7, 7]

    def init_group(self):
        self.groups = 8

    def init_paddings(self):
        self.pad = [1, 3, 4, 1]
        self.padding_algorithm = "EXPLICIT"


class TestWithDilation_AsyPadding(TestConv2DOp_v2):
    def init_test_case(self):
        self.stride = [1, 1]
        self.input_size = [2, 3, 10, 10]
        self.filter_size = [24, self.input_size[1] // self.groups, 3, 3]

    def init_dilation(self):
        self.dilations = [2, 2]

    def init_group(self):
        self.groups = 3

    def init_paddings(self):
        self.pad = [0, 1, 3, 0]
        self.padding_algorithm = "EXPLICIT"


class TestWithInput1x1Filter1x1_AsyPadding(TestConv2DOp_v2):
    def init_test_case(self):
        self.stride = [1, 1]
        self.input_size = [40, 3, 1, 1]
        self.filter_size = [120, self.input_size[1] // self.groups, 1, 1]

    def init_group(self):
        self.groups = 3

    def init_paddings(self):
        self.pad = [0, 3, 4, 0]
        self.padding_algorithm = "EXPLICIT"


def create_test_padding_class(parent, algorithm, pad):
    """Paddle's create_test_padding_SAME_class / _VALID_class."""
    def init_paddings(self):
        self.pad = pad
        self.padding_algorithm = algorithm

    cls_name = f"{parent.__name__}_Padding{algorithm}Op"
    globals()[cls_name] = type(cls_name, (parent,), {'init_paddings': init_paddings})


def create_test_channel_last_class(parent):
    """Paddle's create_test_channel_last_class: NHWC data."""
    def init_data_format(self):
        self.data_format = "NHWC"

    def init_test_case_2(self):
        N, C, H, W = self.input_size
        self.input_size = [N, H, W, C]

    cls_name = f"{parent.__name__}_ChannelLast"
    globals()[cls_name] = type(cls_name, (parent,), {'init_data_format': init_data_format,
                                                     'init_test_case_2': init_test_case_2})


for _parent in (TestConv2DOp_AsyPadding, TestWithPad_AsyPadding, TestWithStride_AsyPadding,
                TestWithGroup_AsyPadding, TestWithInput1x1Filter1x1_AsyPadding):
    create_test_padding_class(_parent, "SAME", [0, 0])
    create_test_padding_class(_parent, "VALID", [1, 1])
for _parent in (TestConv2DOp_AsyPadding, TestWithPad_AsyPadding, TestWithGroup_AsyPadding,
                TestWith1x1_AsyPadding, TestWithInput1x1Filter1x1_AsyPadding):
    create_test_channel_last_class(_parent)
del _parent

if __name__ == '__main__':
    unittest.main()
