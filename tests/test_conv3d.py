"""conv3d / conv3d_grad (torch's kernels) equal the op's numpy reference (shifted slices) on
random shapes, strides, paddings (symmetric, asymmetric, SAME, VALID), dilations and groups."""
import numpy as np
import pytest

import fluidc as fluid
import fluidc as paddle

from op_harness import run_reference

CASES = [  # (x shape, out channels, kernel, stride, padding, dilation, groups)
    ((2, 3, 6, 6, 6), 3, 2, 1, 0, 1, 1),
    ((1, 4, 5, 7, 6), 6, [3, 2, 3], [2, 1, 2], [1, 0, 2], 1, 2),
    ((2, 2, 6, 5, 5), 4, 3, 1, [0, 1, 2, 0, 1, 1], [2, 1, 1], 1),
    ((1, 4, 7, 6, 5), 4, 3, 2, "SAME", 1, 4),
    ((2, 3, 5, 5, 5), 2, 2, [1, 2, 1], "VALID", 1, 1),
]


@pytest.mark.parametrize("shape,out_c,k,stride,padding,dilation,groups", CASES)
def test_forward_and_grads_match_reference(shape, out_c, k, stride, padding, dilation, groups):
    rng = np.random.default_rng(sum(shape) + out_c)
    ks = [k] * 3 if isinstance(k, int) else k
    feed = {"x": rng.normal(size=shape), "w": rng.normal(size=[out_c, shape[1] // groups] + ks)}
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        x = paddle.static.data("x", list(shape), "float64")
        w = paddle.static.data("w", list(feed["w"].shape), "float64")
        x.stop_gradient = w.stop_gradient = False
        y = paddle.nn.functional.conv3d(x, w, stride=stride, padding=padding, dilation=dilation,
                                        groups=groups)
        loss = paddle.sum(paddle.multiply(y, y))
        fluid.backward.append_backward(loss)
    fetch = [y.name, "x@GRAD", "w@GRAD"]
    got = fluid.Executor(fluid.CPUPlace()).run(main, feed=feed, fetch_list=fetch)
    want = run_reference(main, feed, fetch)
    for name, g, r in zip(fetch, got, want):
        assert g.shape == r.shape, name
        np.testing.assert_allclose(g, r, rtol=1e-10, atol=1e-10, err_msg=name)


def test_layers_and_errors():
    with fluid.program_guard(fluid.Program(), fluid.Program()):
        x = paddle.static.data("x", [-1, 3, 6, 6, 6], "float32")
        assert paddle.static.nn.conv3d(x, 4, 2).shape == (-1, 4, 5, 5, 5)
        assert paddle.nn.Conv3D(3, 5, [1, 2, 3], padding=[0, 1, 1])(x).shape == (-1, 5, 6, 7, 6)
        with pytest.raises(TypeError):
            paddle.static.nn.conv3d(paddle.static.data("i", [2, 3, 4, 4, 4], "int32"), 2, 2)
        with pytest.raises(ValueError, match="NCDHW"):
            paddle.nn.functional.conv3d(x, x, data_format="NHWC")
        with pytest.raises(ValueError, match="3 or 6"):
            paddle.nn.functional.conv3d(x, paddle.static.data("w", [2, 3, 2, 2, 2], "float32"),
                                        padding=[1, 1])
