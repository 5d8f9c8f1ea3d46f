"""Channel-last conv3d (NDHWC), conv2d_transpose (NHWC) and conv3d_transpose (NDHWC): the
output and the gradients of x and the filter equal the channel-first op's on the transposed
input (which tests/test_conv3d.py and test_conv_transpose.py check against numpy), compiled
and by the reference executor; the layers put their bias on the last dim."""
import numpy as np
import pytest

import fluidc as fluid
import fluidc as paddle

from op_harness import run_reference

F = paddle.nn.functional

CASES = [  # (api, channel-first x shape, filter shape, keyword arguments)
    (F.conv3d, (2, 4, 5, 4, 6), (6, 2, 2, 3, 2),
     dict(stride=[1, 2, 1], padding=[1, 0, 0, 2, 1, 1], groups=2)),
    (F.conv3d, (1, 3, 4, 5, 5), (2, 3, 3, 3, 3), dict(padding="SAME", stride=2)),
    (F.conv2d_transpose, (2, 4, 5, 4), (4, 3, 3, 2),
     dict(stride=[2, 1], padding=[1, 0, 2, 1], groups=2, dilation=[1, 2])),
    (F.conv2d_transpose, (1, 3, 4, 4), (3, 2, 3, 3), dict(stride=2, output_size=[10, 9])),
    (F.conv3d_transpose, (1, 2, 3, 4, 3), (2, 3, 2, 3, 2),
     dict(stride=[2, 1, 1], padding=[1, 0, 1], output_padding=[1, 0, 0])),
]
FIRST, LAST = {4: "NCHW", 5: "NCDHW"}, {4: "NHWC", 5: "NDHWC"}


def _run(api, x_np, w_np, fmt, kwargs):
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        x = paddle.static.data("x", list(x_np.shape), "float64")
        w = paddle.static.data("w", list(w_np.shape), "float64")
        x.stop_gradient = w.stop_gradient = False
        y = api(x, w, data_format=fmt, **kwargs)
        fluid.backward.append_backward(paddle.sum(paddle.multiply(y, y)))
    feed, fetch = {"x": x_np, "w": w_np}, [y.name, "x@GRAD", "w@GRAD"]
    got = fluid.Executor(fluid.CPUPlace()).run(main, feed=feed, fetch_list=fetch)
    assert got[0].shape == tuple(y.shape)
    return got, run_reference(main, feed, fetch)


@pytest.mark.parametrize("api,xs,ws,kwargs", CASES)
def test_channel_last_equals_channel_first(api, xs, ws, kwargs):
    rng = np.random.default_rng(sum(xs) + sum(ws))
    x, w = rng.normal(size=xs), rng.normal(size=ws)
    rank = len(xs)
    to_last, to_first = (0, *range(2, rank), 1), (0, rank - 1, *range(1, rank - 1))
    first, _ = _run(api, x, w, FIRST[rank], kwargs)
    for got in _run(api, x.transpose(to_last), w, LAST[rank], kwargs):
        y, dx, dw = got
        np.testing.assert_allclose(y.transpose(to_first), first[0], rtol=1e-10, atol=1e-10)
        np.testing.assert_allclose(dx.transpose(to_first), first[1], rtol=1e-10, atol=1e-10)
        np.testing.assert_allclose(dw, first[2], rtol=1e-10, atol=1e-10)


def test_layers_bias_on_the_channel_dim():
    with fluid.program_guard(fluid.Program(), fluid.Program()):
        x5 = paddle.static.data("x5", [2, 4, 4, 4, 3], "float32")
        x4 = paddle.static.data("x4", [2, 5, 5, 3], "float32")
        conv = paddle.static.nn.conv3d(x5, 4, 3, padding=1, data_format="NDHWC",
                                       bias_attr=paddle.ParamAttr(
                                           initializer=paddle.nn.initializer.Constant(0.5)))
        convt = paddle.static.nn.conv2d_transpose(x4, 6, filter_size=3, data_format="NHWC",
                                                  bias_attr=paddle.ParamAttr(
                                                      initializer=paddle.nn.initializer.Constant(
                                                          0.25)),
                                                  param_attr=paddle.ParamAttr(
                                                      initializer=paddle.nn.initializer.Constant(
                                                          0.0)))
        layer = paddle.nn.Conv3D(3, 2, 1, data_format="NDHWC")
        assert conv.shape == (2, 4, 4, 4, 4) and convt.shape == (2, 7, 7, 6)
        assert layer(x5).shape == (2, 4, 4, 4, 2)
        exe = fluid.Executor(fluid.CPUPlace())
        exe.run(fluid.default_startup_program())
        feed = {"x5": np.ones([2, 4, 4, 4, 3], "float32"), "x4": np.ones([2, 5, 5, 3], "float32")}
        _, got_t = exe.run(feed=feed, fetch_list=[conv, convt])
        np.testing.assert_array_equal(got_t, np.full([2, 7, 7, 6], 0.25, "float32"))
        with pytest.raises(ValueError, match="num of filters"):
            paddle.static.nn.conv2d_transpose(x4, 0, filter_size=3, data_format="NHWC")
        with pytest.raises(ValueError, match="batch or channel"):
            F.conv3d(x5, paddle.static.data("w", [2, 3, 1, 1, 1], "float32"),
                     padding=[[0, 0], [1, 1], [1, 1], [1, 1], [1, 0]], data_format="NDHWC")
