"""Port of Paddle test/legacy_test/test_pixel_shuffle_op.py: F.pixel_shuffle and
nn.PixelShuffle against the file's numpy pixel_shuffle_np.

Kept: the forward of TestPixelShuffleOp / TestChannelLast (the pixel_shuffle op's Out, float64,
NCHW and NHWC) through F.pixel_shuffle in a static program, TestPixelShuffleAPI (static
functional and layer runs with use_prune, dygraph layer and functional for both formats),
TestPixelShuffleError (TypeError for a float factor, ValueError for a 0 factor and an unknown
data format, functional and layer).
Added (fluidc): the two OpTest cases' X gradient for a random Out gradient, against the same
permutation applied backwards (the op only moves elements).
Dropped: the float16 / bfloat16 cases (CUDA), check_grad's numeric differences (OpTest).
paddle.base.dygraph.guard() is written fluid.dygraph.guard() (fluid is Paddle 3.x's base).
"""
import unittest

import numpy as np

import fluidc as paddle
import fluidc as fluid

F = paddle.nn.functional


def pixel_shuffle_np(x, up_factor, data_format="NCHW"):
    if data_format == "NCHW":
        n, c, h, w = x.shape
        new_shape = (
            n,
            c // (up_factor * up_factor),
            up_factor,
            up_factor,
            h,
            w,
        )
        # reshape to (num,output_channel,upscale_factor,upscale_factor,h,w)
        npresult = np.reshape(x, new_shape)
        # transpose to (num,output_channel,h,upscale_factor,w,upscale_factor)
        npresult = npresult.transpose(0, 1, 4, 2, 5, 3)
        oshape = [n, c // (up_factor * up_factor), h * up_factor, w * up_factor]
        npresult = np.reshape(npresult, oshape)
        return npresult
    else:
        n, h, w, c = x.shape
        new_shape = (
            n,
            h,
            w,
            c // (up_factor * up_factor),
            up_factor,
            up_factor,
        )
        # reshape to (num,h,w,output_channel,upscale_factor,upscale_factor)
        npresult = np.reshape(x, new_shape)
        # transpose to (num,h,upscale_factor,w,upscale_factor,output_channel)
        npresult = npresult.transpose(0, 1, 4, 2, 5, 3)
        oshape = [n, h * up_factor, w * up_factor, c // (up_factor * up_factor)]
        npresult = np.reshape(npresult, oshape)
        return npresult


class TestPixelShuffleOp(unittest.TestCase):
    def setUp(self):
        self.op_type = "pixel_shuffle"
        self.python_api = paddle.nn.functional.pixel_shuffle
        self.init_dtype()
        self.init_data_format()
        n, c, h, w = 2, 9, 4, 4

        if self.format == "NCHW":
            shape = [n, c, h, w]
        if self.format == "NHWC":
            shape = [n, h, w, c]

        up_factor = 3

        x = np.random.random(shape).astype(self.dtype)
        npresult = pixel_shuffle_np(x, up_factor, self.format)

        self.inputs = {'X': x}
        self.outputs = {'Out': npresult}
        self.attrs = {'upscale_factor': up_factor, "data_format": self.format}

    def init_dtype(self):
        self.dtype = np.float64

    def init_data_format(self):
        self.format = "NCHW"

    def run_op(self):
        paddle.enable_static()
        main = paddle.static.Program()
        with paddle.static.program_guard(main, paddle.static.Program()):
            x = paddle.static.data('x', list(self.inputs['X'].shape), 'float64')
            x.stop_gradient = False
            out = self.python_api(x, self.attrs['upscale_factor'], self.attrs['data_format'])
            dout = np.random.RandomState(1).random_sample(self.outputs['Out'].shape)
            (dx,) = paddle.static.gradients([out], [x], target_gradients=[paddle.assign(dout)])
            got = paddle.static.Executor(paddle.CPUPlace()).run(
                main, feed={'x': self.inputs['X']}, fetch_list=[out, dx])
        return got, dout

    def test_check_output(self):
        (out, _), _ = self.run_op()
        np.testing.assert_allclose(out, self.outputs['Out'], rtol=1e-7, atol=1e-9)

    def test_check_grad(self):
        # the op permutes elements: X's gradient at each position is Out's gradient where
        # that element went (indices pushed through the same numpy permutation)
        (_, dx), dout = self.run_op()
        index = np.arange(self.inputs['X'].size).reshape(self.inputs['X'].shape)
        moved = pixel_shuffle_np(index, self.attrs['upscale_factor'], self.format)
        want = np.zeros(self.inputs['X'].size)
        want[moved.reshape(-1)] = dout.reshape(-1)
        np.testing.assert_array_equal(dx, want.reshape(self.inputs['X'].shape))


class TestChannelLast(TestPixelShuffleOp):
    def init_data_format(self):
        self.format = "NHWC"


class TestPixelShuffleAPI(unittest.TestCase):
    def setUp(self):
        self.x_1_np = np.random.random([2, 9, 4, 4]).astype("float64")
        self.x_2_np = np.random.random([2, 4, 4, 9]).astype("float64")
        self.out_1_np = pixel_shuffle_np(self.x_1_np, 3)
        self.out_2_np = pixel_shuffle_np(self.x_2_np, 3, "NHWC")

    def test_static_graph_functional(self):
        for use_cuda in [False]:
            place = paddle.CPUPlace()

            paddle.enable_static()
            x_1 = paddle.static.data(
                name="x", shape=[2, 9, 4, 4], dtype="float64"
            )
            x_2 = paddle.static.data(
                name="x2", shape=[2, 4, 4, 9], dtype="float64"
            )
            out_1 = F.pixel_shuffle(x_1, 3)
            out_2 = F.pixel_shuffle(x_2, 3, "NHWC")

            exe = paddle.static.Executor(place=place)
            res_1 = exe.run(
                paddle.static.default_main_program(),
                feed={"x": self.x_1_np, "x2": self.x_2_np},
                fetch_list=out_1,
                use_prune=True,
            )[0]

            res_2 = exe.run(
                paddle.static.default_main_program(),
                feed={"x": self.x_1_np, "x2": self.x_2_np},
                fetch_list=out_2,
                use_prune=True,
            )[0]

            np.testing.assert_allclose(res_1, self.out_1_np)
            np.testing.assert_allclose(res_2, self.out_2_np)

    # same test between layer and functional in this op.

    def test_static_graph_layer(self):
        for use_cuda in [False]:
            place = paddle.CPUPlace()

            paddle.enable_static()
            x_1 = paddle.static.data(
                name="x", shape=[2, 9, 4, 4], dtype="float64"
            )
            x_2 = paddle.static.data(
                name="x2", shape=[2, 4, 4, 9], dtype="float64"
            )
            # init instance
            ps_1 = paddle.nn.PixelShuffle(3)
            ps_2 = paddle.nn.PixelShuffle(3, "NHWC")
            out_1 = ps_1(x_1)
            out_2 = ps_2(x_2)
            out_1_np = pixel_shuffle_np(self.x_1_np, 3)
            out_2_np = pixel_shuffle_np(self.x_2_np, 3, "NHWC")

            exe = paddle.static.Executor(place=place)
            res_1 = exe.run(
                paddle.static.default_main_program(),
                feed={"x": self.x_1_np, "x2": self.x_2_np},
                fetch_list=out_1,
                use_prune=True,
            )[0]

            res_2 = exe.run(
                paddle.static.default_main_program(),
                feed={"x": self.x_1_np, "x2": self.x_2_np},
                fetch_list=out_2,
                use_prune=True,
            )[0]

            np.testing.assert_allclose(res_1, out_1_np, rtol=1e-5, atol=1e-8)
            np.testing.assert_allclose(res_2, out_2_np, rtol=1e-5, atol=1e-8)

    def run_dygraph(self, up_factor, data_format):
        n, c, h, w = 2, 9, 4, 4

        if data_format == "NCHW":
            shape = [n, c, h, w]
        if data_format == "NHWC":
            shape = [n, h, w, c]

        x = np.random.random(shape).astype("float64")

        npresult = pixel_shuffle_np(x, up_factor, data_format)

        for use_cuda in [False]:
            place = paddle.CPUPlace()

            paddle.disable_static(place=place)

            pixel_shuffle = paddle.nn.PixelShuffle(
                up_factor, data_format=data_format
            )
            result = pixel_shuffle(paddle.to_tensor(x))

            np.testing.assert_allclose(result.numpy(), npresult, rtol=1e-05)

            result_functional = F.pixel_shuffle(
                paddle.to_tensor(x), 3, data_format
            )
            np.testing.assert_allclose(
                result_functional.numpy(), npresult, rtol=1e-05
            )
        paddle.enable_static()

    def test_dygraph1(self):
        self.run_dygraph(3, "NCHW")

    def test_dygraph2(self):
        self.run_dygraph(3, "NHWC")


class TestPixelShuffleError(unittest.TestCase):
    def test_error_functional(self):
        def error_upscale_factor():
            with fluid.dygraph.guard():
                x = np.random.random([2, 9, 4, 4]).astype("float64")
                pixel_shuffle = F.pixel_shuffle(paddle.to_tensor(x), 3.33)

        self.assertRaises(TypeError, error_upscale_factor)

        def error_0_upscale_factor():
            with fluid.dygraph.guard():
                x = paddle.uniform([1, 1, 1, 1], dtype='float64')
                pixel_shuffle = F.pixel_shuffle(x, 0)

        self.assertRaises(ValueError, error_0_upscale_factor)

        def error_data_format():
            with fluid.dygraph.guard():
                x = np.random.random([2, 9, 4, 4]).astype("float64")
                pixel_shuffle = F.pixel_shuffle(paddle.to_tensor(x), 3, "WOW")

        self.assertRaises(ValueError, error_data_format)

    def test_error_layer(self):
        def error_upscale_factor_layer():
            with fluid.dygraph.guard():
                x = np.random.random([2, 9, 4, 4]).astype("float64")
                ps = paddle.nn.PixelShuffle(3.33)

        self.assertRaises(TypeError, error_upscale_factor_layer)

        def error_data_format_layer():
            with fluid.dygraph.guard():
                x = np.random.random([2, 9, 4, 4]).astype("float64")
                ps = paddle.nn.PixelShuffle(3, "MEOW")

        self.assertRaises(ValueError, error_data_format_layer)


if __name__ == '__main__':
    paddle.enable_static()
    unittest.main()
