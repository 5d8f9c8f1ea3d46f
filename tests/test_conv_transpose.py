"""conv2d_transpose / conv3d_transpose and their grads (torch's transposed kernels, asymmetric
paddings cropped) equal the ops' numpy reference (a scatter of each input cell times the filter)
on random shapes, strides, paddings, dilations, groups, output_padding and output_size."""
import numpy as np
import pytest

import fluidc as fluid
import fluidc as paddle

from op_harness import run_reference

F = paddle.nn.functional

CASES = [  # (x shape, filter shape, keyword arguments)
    ((2, 3, 4, 5), (3, 2, 3, 2), {}),
    ((1, 4, 3, 4), (4, 3, 3, 3), dict(stride=[2, 1], padding=[1, 0, 2, 1], groups=2,
                                      dilation=[1, 2])),
    ((2, 2, 3, 3), (2, 3, 3, 2), dict(stride=2, padding=[0, 2, 1, 0], output_padding=1)),
    ((1, 2, 3, 3), (2, 2, 3, 3), dict(stride=2, padding="SAME")),
    ((1, 2, 3, 3), (2, 2, 3, 3), dict(stride=3, output_size=[10, 11])),
    ((1, 2, 3, 3, 2), (2, 2, 2, 3, 2), dict(stride=[2, 1, 1], padding=[1, 0, 1])),
    ((2, 2, 2, 3, 2), (2, 4, 2, 2, 3), dict(padding=[0, 1, 1, 0, 2, 1], groups=2)),
]


@pytest.mark.parametrize("xs,ws,kwargs", CASES)
def test_forward_and_grads_match_reference(xs, ws, kwargs):
    rng = np.random.default_rng(sum(xs) + sum(ws))
    feed = {"x": rng.normal(size=xs), "w": rng.normal(size=ws)}
    api = F.conv2d_transpose if len(xs) == 4 else F.conv3d_transpose
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        x = paddle.static.data("x", list(xs), "float64")
        w = paddle.static.data("w", list(ws), "float64")
        x.stop_gradient = w.stop_gradient = False
        y = api(x, w, **kwargs)
        fluid.backward.append_backward(paddle.sum(paddle.multiply(y, y)))
    fetch = [y.name, "x@GRAD", "w@GRAD"]
    got = fluid.Executor(fluid.CPUPlace()).run(main, feed=feed, fetch_list=fetch)
    want = run_reference(main, feed, fetch)
    assert got[0].shape == tuple(d for d in y.shape)
    for name, g, r in zip(fetch, got, want):
        np.testing.assert_allclose(g, r, rtol=1e-10, atol=1e-10, err_msg=name)


def test_layers_and_errors():
    with fluid.program_guard(fluid.Program(), fluid.Program()):
        img = paddle.static.data("pixel", [-1, 3, 2, 2], "float32")
        out = paddle.static.nn.conv2d_transpose(input=img, num_filters=10, output_size=28)
        assert out.shape == (-1, 10, 28, 28)  # the filter made 27 x 27, as Paddle does
        assert paddle.nn.Conv3DTranspose(3, 4, 2)(
            paddle.static.data("v", [1, 3, 2, 2, 2], "float32")).shape == (1, 4, 3, 3, 3)
        with pytest.raises(TypeError):
            paddle.nn.Conv2DTranspose(3, 3, [2, 2])(np.ones([2, 3, 5, 5], "float32"))
        with pytest.raises(TypeError):
            paddle.nn.Conv2DTranspose(3, 3, [2, 2])(
                paddle.static.data("i", [-1, 3, 5, 5], "int32"))
        with pytest.raises(ValueError, match="output_size must be set"):
            paddle.static.nn.conv2d_transpose(img, 4)
        with pytest.raises(ValueError, match="beyond the computed size"):
            F.conv2d_transpose(img, paddle.static.data("w", [3, 2, 2, 2], "float32"),
                               output_size=[9, 9])
