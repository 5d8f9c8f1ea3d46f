"""Port of Paddle test/legacy_test/test_pool2d_api.py: F.max_pool2d / F.avg_pool2d and
nn.MaxPool2D / nn.AvgPool2D in static programs.

Kept: TestPool2D_API.test_pool2d_static (check_max_static_results, check_avg_static_results on
the CPU place); TestPool2D_API.test_pool2d's checks and TestPool2DError_API.test_error_api's 15
ValueError cases, which Paddle runs in dygraph, run here as static programs (the same arrays fed
to a paddle.static.data of their shape instead of paddle.to_tensor, the same calls, numpy
references and assertions). The numpy references are Paddle's pool2D_forward_naive /
avg_pool2D_forward_naive / max_pool2D_forward_naive (test/deprecated/legacy_test/test_pool2d_op.py)
without their ROCm / int8 branches.
Dropped: the CUDA place, @test_with_pir_api (the PIR rerun).
"""
import unittest

import numpy as np

import fluidc as paddle

avg_pool2d = paddle.nn.functional.avg_pool2d
max_pool2d = paddle.nn.functional.max_pool2d
paddle.enable_static()


def max_pool2D_forward_naive(x, ksize, strides, paddings, global_pool=0, ceil_mode=False,
                             exclusive=True, adaptive=False):
    N, C, H, W = x.shape
    if global_pool == 1:
        ksize = [H, W]
    H_out = ((H - ksize[0] + 2 * paddings[0] + strides[0] - 1) // strides[0] + 1 if ceil_mode
             else (H - ksize[0] + 2 * paddings[0]) // strides[0] + 1)
    W_out = ((W - ksize[1] + 2 * paddings[1] + strides[1] - 1) // strides[1] + 1 if ceil_mode
             else (W - ksize[1] + 2 * paddings[1]) // strides[1] + 1)
    out = np.zeros((N, C, H_out, W_out))
    for i in range(H_out):
        for j in range(W_out):
            r_start = np.max((i * strides[0] - paddings[0], 0))
            r_end = np.min((i * strides[0] + ksize[0] - paddings[0], H))
            c_start = np.max((j * strides[1] - paddings[1], 0))
            c_end = np.min((j * strides[1] + ksize[1] - paddings[1], W))
            x_masked = x[:, :, r_start:r_end, c_start:c_end]
            out[:, :, i, j] = np.max(x_masked, axis=(2, 3))
    return out


def avg_pool2D_forward_naive(x, ksize, strides, paddings, global_pool=0, ceil_mode=False,
                             exclusive=True, adaptive=False):
    N, C, H, W = x.shape
    if global_pool == 1:
        ksize = [H, W]
    H_out = ((H - ksize[0] + 2 * paddings[0] + strides[0] - 1) // strides[0] + 1 if ceil_mode
             else (H - ksize[0] + 2 * paddings[0]) // strides[0] + 1)
    W_out = ((W - ksize[1] + 2 * paddings[1] + strides[1] - 1) // strides[1] + 1 if ceil_mode
             else (W - ksize[1] + 2 * paddings[1]) // strides[1] + 1)
    out = np.zeros((N, C, H_out, W_out))
    for i in range(H_out):
        for j in range(W_out):
            r_start = i * strides[0] - paddings[0]
            r_end = i * strides[0] + ksize[0] - paddings[0]
            c_start = j * strides[1] - paddings[1]
            c_end = j * strides[1] + ksize[1] - paddings[1]
            field_size = (r_end - r_start) * (c_end - c_start)
            r_start = np.max((r_start, 0))
            r_end = np.min((r_end, H))
            c_start = np.max((c_start, 0))
            c_end = np.min((c_end, W))
            x_masked = x[:, :, r_start:r_end, c_start:c_end]
            if exclusive or adaptive:
                field_size = (r_end - r_start) * (c_end - c_start)
            out[:, :, i, j] = np.sum(x_masked, axis=(2, 3)) / field_size
    return out


def pool2D_forward_naive(x, ksize, strides, paddings, global_pool=0, ceil_mode=False,
                         exclusive=True, adaptive=False, data_format='NCHW', pool_type="max",
                         padding_algorithm="EXPLICIT"):
    def _get_padding_with_SAME(input_shape, pool_size, pool_stride):
        padding = []
        for input_size, filter_size, stride_size in zip(input_shape, pool_size, pool_stride):
            out_size = int((input_size + stride_size - 1) / stride_size)
            pad_sum = np.max(((out_size - 1) * stride_size + filter_size - input_size, 0))
            pad_0 = int(pad_sum / 2)
            pad_1 = int(pad_sum - pad_0)
            padding.append(pad_0)
            padding.append(pad_1)
        return padding

    padding_algorithm = padding_algorithm.upper()
    if padding_algorithm == "VALID":
        paddings = [0, 0, 0, 0]
    elif padding_algorithm == "SAME":
        input_data_shape = x.shape[2:4] if data_format == "NCHW" else x.shape[1:3]
        paddings = _get_padding_with_SAME(input_data_shape, ksize, strides)
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
    H_out = ((H - ksize[0] + pad_h_up + pad_h_down + strides[0] - 1) // strides[0] + 1
             if ceil_mode else (H - ksize[0] + pad_h_up + pad_h_down) // strides[0] + 1)
    W_out = ((W - ksize[1] + pad_w_left + pad_w_right + strides[1] - 1) // strides[1] + 1
             if ceil_mode else (W - ksize[1] + pad_w_left + pad_w_right) // strides[1] + 1)
    out = (np.zeros((N, C, H_out, W_out)) if data_format == 'NCHW'
           else np.zeros((N, H_out, W_out, C)))
    for i in range(H_out):
        for j in range(W_out):
            in_h_start = i * strides[0] - pad_h_up
            in_w_start = j * strides[1] - pad_w_left
            in_h_end = i * strides[0] + ksize[0] - pad_h_up
            in_w_end = j * strides[1] + ksize[1] - pad_w_left
            field_size = (in_h_end - in_h_start) * (in_w_end - in_w_start)
            in_h_start = np.max((in_h_start, 0))
            in_w_start = np.max((in_w_start, 0))
            in_h_end = np.min((in_h_end, H))
            in_w_end = np.min((in_w_end, W))
            if data_format == 'NCHW':
                x_masked = x[:, :, in_h_start:in_h_end, in_w_start:in_w_end]
                axes = (2, 3)
            else:
                x_masked = x[:, in_h_start:in_h_end, in_w_start:in_w_end, :]
                axes = (1, 2)
            if pool_type == 'avg':
                if exclusive or adaptive:
                    field_size = (in_h_end - in_h_start) * (in_w_end - in_w_start)
                value = np.sum(x_masked, axis=axes) / field_size
            else:
                value = np.max(x_masked, axis=axes)
            if data_format == 'NCHW':
                out[:, :, i, j] = value
            else:
                out[:, i, j, :] = value
    return out


def run_static(input_np, *fns):
    """Paddle's dygraph checks as a static program: input_np fed to a data var of its shape, each
    fn applied to it, the results fetched (the first output of a fn returning a tuple)."""
    main = paddle.static.Program()
    with paddle.static.program_guard(main, paddle.static.Program()):
        x = paddle.static.data('input', list(input_np.shape), str(input_np.dtype))
        outs = [fn(x) for fn in fns]
        outs = [o[0] if isinstance(o, tuple) else o for o in outs]
        return paddle.static.Executor(paddle.CPUPlace()).run(
            main, feed={'input': input_np}, fetch_list=outs)


class TestPool2D_API(unittest.TestCase):
    def setUp(self):
        np.random.seed(123)
        self.places = [paddle.CPUPlace()]

    def check_avg_static_results(self, place):
        with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):
            input = paddle.static.data(name="input", shape=[2, 3, 32, 32], dtype="float32")
            result = avg_pool2d(input, kernel_size=2, stride=2, padding=0)

            input_np = np.random.random([2, 3, 32, 32]).astype("float32")
            result_np = pool2D_forward_naive(input_np, ksize=[2, 2], strides=[2, 2],
                                             paddings=[0, 0], pool_type='avg')

            exe = paddle.static.Executor(place)
            fetches = exe.run(feed={"input": input_np}, fetch_list=[result])
            np.testing.assert_allclose(fetches[0], result_np, rtol=1e-05)

    def check_max_static_results(self, place):
        with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):
            input = paddle.static.data(name="input", shape=[2, 3, 32, 32], dtype="float32")
            result = max_pool2d(input, kernel_size=2, stride=2, padding=0)

            input_np = np.random.random([2, 3, 32, 32]).astype("float32")
            result_np = pool2D_forward_naive(input_np, ksize=[2, 2], strides=[2, 2],
                                             paddings=[0, 0], pool_type='max')

            exe = paddle.static.Executor(place)
            fetches = exe.run(feed={"input": input_np}, fetch_list=[result])
            np.testing.assert_allclose(fetches[0], result_np, rtol=1e-05)

    # Paddle's dygraph checks, run as static programs
    def check_avg_dygraph_results(self, place):
        input_np = np.random.random([2, 3, 32, 32]).astype("float32")
        results = run_static(
            input_np, lambda x: avg_pool2d(x, kernel_size=2, stride=2, padding=0),
            paddle.nn.layer.AvgPool2D(kernel_size=2, stride=2, padding=0))
        result_np = pool2D_forward_naive(input_np, ksize=[2, 2], strides=[2, 2],
                                         paddings=[0, 0], pool_type='avg')
        for result in results:
            np.testing.assert_allclose(result, result_np, rtol=1e-05)

    def check_max_dygraph_results(self, place):
        input_np = np.random.random([2, 3, 32, 32]).astype("float32")
        results = run_static(
            input_np,
            lambda x: max_pool2d(x, kernel_size=2, stride=2, padding=0, return_mask=False),
            paddle.nn.layer.MaxPool2D(kernel_size=2, stride=2, padding=0))
        result_np = pool2D_forward_naive(input_np, ksize=[2, 2], strides=[2, 2],
                                         paddings=[0, 0], pool_type='max')
        for result in results:
            np.testing.assert_allclose(result, result_np, rtol=1e-05)

    def check_max_dygraph_nhwc_results(self, place):
        input_np = np.random.random([2, 3, 32, 32]).astype("float32")
        (result,) = run_static(
            np.transpose(input_np, [0, 2, 3, 1]),
            lambda x: max_pool2d(x, kernel_size=2, stride=2, padding=0, return_mask=False,
                                 data_format="NHWC"))
        result_np = pool2D_forward_naive(input_np, ksize=[2, 2], strides=[2, 2],
                                         paddings=[0, 0], pool_type='max')
        np.testing.assert_allclose(np.transpose(result, [0, 3, 1, 2]), result_np, rtol=1e-05)

    def check_max_dygraph_padding_results(self, place):
        input_np = np.random.random([2, 3, 32, 32]).astype("float32")
        results = run_static(
            input_np,
            lambda x: max_pool2d(x, kernel_size=2, stride=2, padding=1, ceil_mode=False),
            paddle.nn.layer.MaxPool2D(kernel_size=2, stride=2, padding=1, ceil_mode=False))
        result_np = max_pool2D_forward_naive(input_np, ksize=[2, 2], strides=[2, 2],
                                             paddings=[1, 1], ceil_mode=False, exclusive=False)
        for result in results:
            np.testing.assert_allclose(result, result_np, rtol=1e-05)

    def check_max_dygraph_ceilmode_results(self, place):
        input_np = np.random.random([2, 3, 32, 32]).astype("float32")
        results = run_static(
            input_np,
            lambda x: max_pool2d(x, kernel_size=2, stride=2, padding=0, ceil_mode=True),
            paddle.nn.layer.MaxPool2D(kernel_size=2, stride=2, padding=0, ceil_mode=True))
        result_np = max_pool2D_forward_naive(input_np, ksize=[2, 2], strides=[2, 2],
                                             paddings=[0, 0], ceil_mode=True)
        for result in results:
            np.testing.assert_allclose(result, result_np, rtol=1e-05)

    def check_max_dygraph_stride_is_none(self, place):
        input_np = np.random.random([2, 3, 32, 32]).astype("float32")
        results = run_static(
            input_np,
            lambda x: max_pool2d(x, kernel_size=2, stride=None, padding="SAME",
                                 return_mask=True),
            paddle.nn.layer.MaxPool2D(kernel_size=2, stride=2, padding=0))
        result_np = pool2D_forward_naive(input_np, ksize=[2, 2], strides=[2, 2],
                                         paddings=[0, 0], pool_type='max',
                                         padding_algorithm="SAME")
        for result in results:
            np.testing.assert_allclose(result, result_np, rtol=1e-05)

    def check_avg_dygraph_stride_is_none(self, place):
        input_np = np.random.random([2, 3, 32, 32]).astype("float32")
        results = run_static(
            input_np, lambda x: avg_pool2d(x, kernel_size=2, stride=None, padding="SAME"),
            paddle.nn.layer.AvgPool2D(kernel_size=2, stride=2, padding=0))
        result_np = pool2D_forward_naive(input_np, ksize=[2, 2], strides=[2, 2],
                                         paddings=[0, 0], pool_type='avg',
                                         padding_algorithm="SAME")
        for result in results:
            np.testing.assert_allclose(result, result_np, rtol=1e-05)

    def check_max_dygraph_padding(self, place):
        input_np = np.random.random([2, 3, 32, 32]).astype("float32")
        padding = [[0, 0], [0, 0], [0, 0], [0, 0]]
        results = run_static(
            input_np,
            lambda x: max_pool2d(x, kernel_size=2, stride=2, padding=padding,
                                 return_mask=False),
            paddle.nn.layer.MaxPool2D(kernel_size=2, stride=2, padding=0))
        result_np = pool2D_forward_naive(input_np, ksize=[2, 2], strides=[2, 2],
                                         paddings=[0, 0], pool_type='max')
        for result in results:
            np.testing.assert_allclose(result, result_np, rtol=1e-05)

    def check_avg_divisor(self, place):
        input_np = np.random.random([2, 3, 32, 32]).astype("float32")
        padding = [[0, 0], [0, 0], [0, 0], [0, 0]]
        results = run_static(
            input_np,
            lambda x: avg_pool2d(x, kernel_size=2, stride=2, padding=padding,
                                 divisor_override=4),
            paddle.nn.layer.AvgPool2D(kernel_size=2, stride=2, padding=0))
        result_np = pool2D_forward_naive(input_np, ksize=[2, 2], strides=[2, 2],
                                         paddings=[0, 0], pool_type='avg')
        for result in results:
            np.testing.assert_allclose(result, result_np, rtol=1e-05)

    def test_pool2d(self):
        for place in self.places:
            self.check_max_dygraph_results(place)
            self.check_avg_dygraph_results(place)
            self.check_max_dygraph_stride_is_none(place)
            self.check_avg_dygraph_stride_is_none(place)
            self.check_max_dygraph_padding(place)
            self.check_avg_divisor(place)
            self.check_max_dygraph_padding_results(place)
            self.check_max_dygraph_ceilmode_results(place)
            self.check_max_dygraph_nhwc_results(place)

    def test_pool2d_static(self):
        for place in self.places:
            self.check_max_static_results(place)
            self.check_avg_static_results(place)


class TestPool2DError_API(unittest.TestCase):
    """Paddle's dygraph error cases, built in static programs: each must raise ValueError."""

    def assert_value_error(self, fn, shape=(2, 3, 32, 32)):
        with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):
            x = paddle.static.data('input', list(shape), 'float32')
            self.assertRaises(ValueError, fn, x)

    def test_error_api(self):
        pair_padding = [[0, 1], [0, 0], [0, 0], [0, 0]]
        cases = [
            # run1, run2: non-zero padding of the batch dim
            lambda x: max_pool2d(x, kernel_size=2, stride=2, padding=pair_padding),
            lambda x: max_pool2d(x, kernel_size=2, stride=2, padding=pair_padding,
                                 data_format='NHWC'),
            # run3, run3_avg, run5: an unknown padding string
            lambda x: max_pool2d(x, kernel_size=2, stride=2, padding="padding",
                                 data_format='NHWC'),
            lambda x: avg_pool2d(x, kernel_size=2, stride=2, padding="padding",
                                 data_format='NHWC'),
            lambda x: avg_pool2d(x, kernel_size=2, stride=2, padding="padding",
                                 data_format='NHWC'),
            # run4, run4_avg, run6: 'VALID' with ceil_mode
            lambda x: max_pool2d(x, kernel_size=2, stride=2, padding="VALID", ceil_mode=True,
                                 data_format='NHWC'),
            lambda x: avg_pool2d(x, kernel_size=2, stride=2, padding="VALID", ceil_mode=True,
                                 data_format='NHWC'),
            lambda x: avg_pool2d(x, kernel_size=2, stride=2, padding="VALID", ceil_mode=True,
                                 data_format='NHWC'),
            # run7, run8: an unknown data_format
            lambda x: avg_pool2d(x, kernel_size=2, stride=2, padding="VALID", ceil_mode=False,
                                 data_format='NNNN'),
            lambda x: max_pool2d(x, kernel_size=2, stride=2, padding="VALID", ceil_mode=False,
                                 data_format='NNNN'),
            # run9: return_mask with NHWC
            lambda x: max_pool2d(x, kernel_size=2, stride=2, padding=0, ceil_mode=False,
                                 data_format='NHWC', return_mask=True),
            # run_kernel_out_of_range, run_stride_out_of_range
            lambda x: avg_pool2d(x, kernel_size=[-1, 2], stride=2, padding=0, ceil_mode=False,
                                 data_format='NHWC'),
            lambda x: avg_pool2d(x, kernel_size=3, stride=[0, 2], padding=0, ceil_mode=False,
                                 data_format='NHWC'),
        ]
        for fn in cases:
            self.assert_value_error(fn)
        # run_zero_stride, run_zero_tuple_stride: a [1, 1, 1, 1] input
        self.assert_value_error(
            lambda x: max_pool2d(x, 1, stride=0, padding=1, return_mask=True, ceil_mode=True),
            shape=(1, 1, 1, 1))
        self.assert_value_error(
            lambda x: max_pool2d(x, 1, stride=(0, 0), return_mask=False, data_format='NHWC'),
            shape=(1, 1, 1, 1))


if __name__ == '__main__':
    unittest.main()
