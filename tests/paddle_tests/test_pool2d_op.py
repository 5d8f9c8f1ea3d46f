"""Port of Paddle test/legacy_test/test_pool2d_op.py: the OpTest cases' forward outputs.

Kept: the forward check (`test_check_output`) of every CPU OpTest case - TestPool2D_Op,
TestLPPool2D_Op, TestCase1..5, CeilModeCast, TestAvgInclude, TestAvgPoolAdaptive(AsyOutSize), the
asymmetric-padding, channel-last, PaddingSAMEOp / PaddingVALIDOp and strides classes - through
the public API, on the case's float64 data against the file's numpy `pool2D_forward_naive`, with
OpTest's default atol 1e-5. The pool2d op's attributes map to the 2.x functions as Paddle's own
wrappers do: global pooling = a kernel of the whole H x W without padding (what the reference
computes), adaptive = F.adaptive_avg_pool2d(x, ksize), otherwise F.avg_pool2d (exclusive,
ceil_mode) / F.max_pool2d, with padding the list or 'SAME' / 'VALID'; lp_pool2d = F.lp_pool2d.
Dropped: OpTest's gradient checks, the CUDNN / fp16 / bf16 classes (CUDA only) and
TestCUDNNAvgInclude* (use_cudnn only: the same numbers as TestAvgInclude*).
"""
import unittest

import numpy as np

import fluidc as paddle

from .op_forward import run_forward

paddle.enable_static()
F = paddle.nn.functional


def adaptive_start_index(index, input_size, output_size):
    return int(np.floor(index * input_size / output_size))


def adaptive_end_index(index, input_size, output_size):
    return int(np.ceil((index + 1) * input_size / output_size))


def pool2D_forward_naive(x, ksize, strides, paddings, global_pool=0, ceil_mode=False,
                         exclusive=True, adaptive=False, data_format='NCHW', pool_type="max",
                         padding_algorithm="EXPLICIT", norm_type=0):
    """Paddle's numpy reference (the test file's own)."""
    def _get_padding_with_SAME(input_shape, pool_size, pool_stride):
        padding = []
        for input_size, filter_size, stride_size in zip(input_shape, pool_size, pool_stride):
            out_size = int((input_size + stride_size - 1) / stride_size)
            pad_sum = np.max(((out_size - 1) * stride_size + filter_size - input_size, 0))
            pad_0 = int(pad_sum / 2)
            padding.append(pad_0)
            padding.append(int(pad_sum - pad_0))
        return padding

    padding_algorithm = padding_algorithm.upper()
    if padding_algorithm == "VALID":
        paddings = [0, 0, 0, 0]
    elif padding_algorithm == "SAME":
        shape = x.shape[2:4] if data_format == "NCHW" else x.shape[1:3]
        paddings = _get_padding_with_SAME(shape, ksize, strides)
    is_sys = len(paddings) == 2
    N = x.shape[0]
    C, H, W = ([x.shape[1], x.shape[2], x.shape[3]] if data_format == 'NCHW'
               else [x.shape[3], x.shape[1], x.shape[2]])
    if global_pool == 1:
        ksize = [H, W]
        paddings = [0 for _ in range(len(paddings))]
    pad_h_up = paddings[0]
    pad_h_down = paddings[0] if is_sys else paddings[1]
    pad_w_left = paddings[1] if is_sys else paddings[2]
    pad_w_right = paddings[1] if is_sys else paddings[3]
    if adaptive:
        H_out, W_out = ksize
    else:
        H_out = ((H - ksize[0] + pad_h_up + pad_h_down + strides[0] - 1) // strides[0] + 1
                 if ceil_mode else (H - ksize[0] + pad_h_up + pad_h_down) // strides[0] + 1)
        W_out = ((W - ksize[1] + pad_w_left + pad_w_right + strides[1] - 1) // strides[1] + 1
                 if ceil_mode else (W - ksize[1] + pad_w_left + pad_w_right) // strides[1] + 1)
    out = (np.zeros((N, C, H_out, W_out)) if data_format == 'NCHW'
           else np.zeros((N, H_out, W_out, C)))
    for i in range(H_out):
        if adaptive:
            in_h_start = adaptive_start_index(i, H, ksize[0])
            in_h_end = adaptive_end_index(i, H, ksize[0])
        for j in range(W_out):
            if adaptive:
                in_w_start = adaptive_start_index(j, W, ksize[1])
                in_w_end = adaptive_end_index(j, W, ksize[1])
            else:
                in_h_start = i * strides[0] - pad_h_up
                in_w_start = j * strides[1] - pad_w_left
                in_h_end = i * strides[0] + ksize[0] - pad_h_up
                in_w_end = j * strides[1] + ksize[1] - pad_w_left
                field_size = (in_h_end - in_h_start) * (in_w_end - in_w_start)
                in_h_start = np.max((in_h_start, 0))
                in_w_start = np.max((in_w_start, 0))
                in_h_end = np.min((in_h_end, H))
                in_w_end = np.min((in_w_end, W))
            axes = (2, 3) if data_format == 'NCHW' else (1, 2)
            if data_format == 'NCHW':
                x_masked = x[:, :, in_h_start:in_h_end, in_w_start:in_w_end]
            else:
                x_masked = x[:, in_h_start:in_h_end, in_w_start:in_w_end, :]
            if pool_type == 'avg':
                if exclusive or adaptive:
                    field_size = (in_h_end - in_h_start) * (in_w_end - in_w_start)
                val = np.sum(x_masked, axis=axes) / field_size
            elif pool_type == 'max':
                val = np.max(x_masked, axis=axes)
            else:  # lp_pool2d
                val = np.power(np.sum(np.power(x_masked, norm_type), axis=axes), 1.0 / norm_type)
            if data_format == 'NCHW':
                out[:, :, i, j] = val
            else:
                out[:, i, j, :] = val
    return out


class TestPool2D_Op(unittest.TestCase):
    norm_type = 0

    def setUp(self):
        self.init_test_case()
        self.padding_algorithm = "EXPLICIT"
        self.init_paddings()
        self.init_global_pool()
        self.init_pool_type()
        self.init_ceil_mode()
        self.init_exclusive()
        self.init_adaptive()
        self.init_data_format()
        self.init_shape()

    def pool(self, x):
        """The pool2d op's attributes as a public-API call."""
        kw = dict(data_format=self.data_format)
        if self.adaptive:
            assert self.pool_type == 'avg'
            return F.adaptive_avg_pool2d(x, self.ksize, **kw)
        hw = x.shape[1:3] if self.data_format == 'NHWC' else x.shape[2:4]
        ksize, padding = self.ksize, self.paddings
        if self.padding_algorithm != 'EXPLICIT':
            padding = self.padding_algorithm
        if self.global_pool:
            ksize, padding = list(hw), 0
        kw.update(kernel_size=ksize, stride=self.strides, padding=padding,
                  ceil_mode=self.ceil_mode)
        if self.pool_type == 'lp':
            return F.lp_pool2d(x, norm_type=self.norm_type, **kw)
        if self.pool_type == 'avg':
            return F.avg_pool2d(x, exclusive=self.exclusive, **kw)
        return F.max_pool2d(x, **kw)

    def test_check_output(self):
        input = np.random.random(self.shape).astype(np.float64)
        expect = pool2D_forward_naive(input, self.ksize, self.strides, self.paddings,
                                      self.global_pool, self.ceil_mode, self.exclusive,
                                      self.adaptive, self.data_format, self.pool_type,
                                      self.padding_algorithm, self.norm_type)
        out = run_forward(self.pool, {'x': input})
        np.testing.assert_allclose(out, expect, rtol=0, atol=1e-5)

    def init_data_format(self):
        self.data_format = "NCHW"

    def init_shape(self):
        self.shape = [2, 3, 5, 5]

    def init_test_case(self):
        self.ksize = [3, 3]
        self.strides = [1, 1]

    def init_paddings(self):
        self.paddings = [0, 0]
        self.padding_algorithm = "EXPLICIT"

    def init_pool_type(self):
        self.pool_type = "avg"

    def init_global_pool(self):
        self.global_pool = True

    def init_ceil_mode(self):
        self.ceil_mode = False

    def init_exclusive(self):
        self.exclusive = True

    def init_adaptive(self):
        self.adaptive = False


class TestLPPool2D_Op(TestPool2D_Op):
    norm_type = 2

    def init_pool_type(self):
        self.pool_type = 'lp'


class TestCase1(TestPool2D_Op):
    def init_test_case(self):
        self.ksize = [3, 3]
        self.strides = [1, 1]

    def init_paddings(self):
        self.paddings = [0, 0]

    def init_pool_type(self):
        self.pool_type = "avg"

    def init_global_pool(self):
        self.global_pool = False

    def init_shape(self):
        self.shape = [2, 3, 7, 7]


class TestCase2(TestPool2D_Op):
    def init_test_case(self):
        self.ksize = [3, 3]
        self.strides = [1, 1]

    def init_paddings(self):
        self.paddings = [1, 1]

    def init_pool_type(self):
        self.pool_type = "avg"

    def init_global_pool(self):
        self.global_pool = False

    def init_shape(self):
        self.shape = [2, 3, 7, 7]


class TestCase3(TestPool2D_Op):
    def init_pool_type(self):
        self.pool_type = "max"


class TestCase4(TestCase1):
    def init_pool_type(self):
        self.pool_type = "max"


class TestCase5(TestCase2):
    def init_pool_type(self):
        self.pool_type = "max"


def subclass(parent, suffix, **methods):
    """Paddle's create_test_*_class: `parent` with some init_* methods replaced."""
    name = f"{parent.__name__}_{suffix}"
    globals()[name] = type(name, (parent,), methods)


def _ceil(self):
    self.ceil_mode = True


for _p in (TestCase1, TestCase2):
    subclass(_p, "CeilModeCast", init_ceil_mode=_ceil)


class TestAvgInclude(TestCase2):
    def init_exclusive(self):
        self.exclusive = False


class TestAvgPoolAdaptive(TestCase1):
    def init_adaptive(self):
        self.adaptive = True


class TestAvgPoolAdaptiveAsyOutSize(TestCase1):
    def init_adaptive(self):
        self.adaptive = True

    def init_shape(self):
        self.shape = [8, 3, 6, 6]

    def init_test_case(self):
        self.ksize = [2, 3]
        self.strides = [1, 1]
        self.paddings = [0, 0, 0, 0]


# -------test pool2d with asymmetric padding-----


def asy(parent, paddings, shape):
    """TestXxx_AsyPadding: ksize 3, stride 1, the given 4-int paddings and shape."""
    def init_test_case(self):
        self.ksize = [3, 3]
        self.strides = [1, 1]
        self.paddings = paddings

    def init_shape(self):
        self.shape = shape

    return type(f"{parent.__name__}_AsyPadding", (parent,),
                {'init_test_case': init_test_case, 'init_shape': init_shape})


TestPool2D_AsyPadding = asy(TestPool2D_Op, [1, 0, 1, 2], [2, 3, 5, 5])
TestCase1_AsyPadding = asy(TestCase1, [1, 0, 1, 0], [2, 3, 7, 7])
TestCase2_AsyPadding = asy(TestCase2, [1, 2, 1, 2], [2, 3, 7, 7])
TestCase3_AsyPadding = asy(TestCase3, [1, 0, 1, 2], [2, 3, 5, 5])
TestCase4_AsyPadding = asy(TestCase4, [1, 0, 1, 0], [2, 3, 7, 7])
TestCase5_AsyPadding = asy(TestCase5, [2, 2, 1, 2], [2, 3, 7, 7])

for _p in (TestCase1_AsyPadding, TestCase2_AsyPadding):
    subclass(_p, "CeilModeCast", init_ceil_mode=_ceil)


class TestAvgInclude_AsyPadding(TestCase2):
    def init_exclusive(self):
        self.exclusive = False

    def init_test_case(self):
        self.ksize = [3, 3]
        self.strides = [1, 1]
        self.paddings = [1, 2, 1, 2]

    def init_shape(self):
        self.shape = [2, 3, 7, 7]


class TestAvgPoolAdaptive_AsyPadding(TestCase1):
    def init_adaptive(self):
        self.adaptive = True

    def init_test_case(self):
        self.ksize = [3, 3]
        self.strides = [1, 1]
        self.paddings = [1, 1, 0, 2]

    def init_shape(self):
        self.shape = [2, 3, 7, 7]


class TestCase5_Max(TestCase2):
    def init_pool_type(self):
        self.pool_type = "max"


# ----------- test channel_last --------------


def channel_last(parent, shape, name=None):
    """TestXxx_channel_last: NHWC data of the given shape."""
    def init_data_format(self):
        self.data_format = "NHWC"

    def init_shape(self):
        self.shape = shape

    name = name or f"{parent.__name__}_channel_last"
    return type(name, (parent,), {'init_data_format': init_data_format,
                                  'init_shape': init_shape})


TestPool2D_channel_last = channel_last(TestPool2D_Op, [2, 5, 5, 3])
TestCase1_channel_last = channel_last(TestCase1, [2, 7, 7, 3])
TestCase2_channel_last = channel_last(TestCase2, [2, 7, 7, 3])
TestCase3_channel_last = channel_last(TestCase3, [2, 5, 5, 3])
TestCase4_channel_last = channel_last(TestCase4, [2, 7, 7, 3])
TestCase5_channel_last = channel_last(TestCase5, [2, 7, 7, 3])
for _p in (TestCase1_channel_last, TestCase2_channel_last):
    subclass(_p, "CeilModeCast", init_ceil_mode=_ceil)
TestCase5_channel_last_Max = channel_last(TestCase5_Max, [2, 7, 7, 3],
                                          "TestCase5_channel_last_Max")


class TestAvgInclude_channel_last(TestCase2_channel_last):
    def init_exclusive(self):
        self.exclusive = False


class TestAvgPoolAdaptive_channel_last(TestCase1_channel_last):
    def init_adaptive(self):
        self.adaptive = True


TestPool2D_AsyPadding_channel_last = channel_last(TestPool2D_AsyPadding, [2, 5, 5, 3])
TestCase1_AsyPadding_channel_last = channel_last(TestCase1_AsyPadding, [2, 7, 7, 3])
TestCase2_AsyPadding_channel_last = channel_last(TestCase2_AsyPadding, [2, 7, 7, 3])
TestCase3_AsyPadding_channel_last = channel_last(TestCase3_AsyPadding, [2, 5, 5, 3])
TestCase4_AsyPadding_channel_last = channel_last(TestCase4_AsyPadding, [2, 7, 7, 3])
TestCase5_AsyPadding_channel_last = channel_last(TestCase5_AsyPadding, [2, 7, 7, 3])
for _p in (TestCase1_AsyPadding_channel_last, TestCase2_AsyPadding_channel_last):
    subclass(_p, "CeilModeCast", init_ceil_mode=_ceil)
TestAvgInclude_AsyPadding_channel_last = channel_last(
    TestAvgInclude_AsyPadding, [2, 7, 7, 3], "TestAvgInclude_AsyPadding_channel_last")
TestAvgPoolAdaptive_AsyPadding_channel_last = channel_last(
    TestAvgPoolAdaptive_AsyPadding, [2, 7, 7, 3], "TestAvgPoolAdaptive_AsyPadding_channel_last")


class TestCase1_strides(TestCase1):
    def init_test_case(self):
        self.ksize = [3, 3]
        self.strides = [1, 2]

    def init_shape(self):
        self.shape = [2, 3, 4, 5]


# test paddings: SAME VALID


def _same(self):
    self.paddings = [0, 0]
    self.padding_algorithm = "SAME"


def _valid(self):
    self.paddings = [1, 1]
    self.padding_algorithm = "VALID"


for _p in (TestPool2D_Op, TestCase1, TestCase2, TestCase3, TestCase4, TestCase5,
           TestPool2D_channel_last, TestCase1_channel_last, TestCase2_channel_last,
           TestCase3_channel_last, TestCase4_channel_last, TestCase5_channel_last):
    subclass(_p, "PaddingSAMEOp", init_paddings=_same)
    subclass(_p, "PaddingVALIDOp", init_paddings=_valid)
subclass(TestCase1_strides, "PaddingSAMEOp", init_paddings=_same)
del _p

if __name__ == '__main__':
    unittest.main()
