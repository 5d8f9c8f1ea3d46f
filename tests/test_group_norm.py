"""F.group_norm / F.instance_norm (a layer_norm over x viewed as [N, groups, rest], then the
per-channel weight and bias): forward and gradients equal numpy's formula and the numpy
reference executor on random shapes, groups and layouts."""
import numpy as np
import pytest

import fluidc as fluid
import fluidc as paddle

from op_harness import run_reference

F = paddle.nn.functional


def _numpy(x, groups, scale, bias, eps):
    n, c = x.shape[:2]
    g = x.reshape(n, groups, -1)
    g = (g - g.mean(-1, keepdims=True)) / np.sqrt(g.var(-1, keepdims=True) + eps)
    shape = (1, c) + (1,) * (x.ndim - 2)
    return g.reshape(x.shape) * scale.reshape(shape) + bias.reshape(shape)


CASES = [((2, 4, 3, 3), 2, "NCHW"), ((3, 6, 5), 3, "NCL"), ((2, 4, 2, 3, 2), 1, "NCDHW"),
         ((1, 6, 7, 1), 6, "NCHW"), ((4, 3, 2, 2), None, "NCHW")]  # None: instance_norm


@pytest.mark.parametrize("shape,groups,layout", CASES)
def test_matches_numpy_and_reference(shape, groups, layout):
    rng = np.random.default_rng(sum(shape))
    c, eps = shape[1], 1e-5
    feed = {"x": rng.normal(1.0, 2.0, shape), "w": rng.normal(size=c), "b": rng.normal(size=c),
            "dy": rng.normal(size=shape)}
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        x, w, b, dy = (paddle.static.data(k, list(v.shape), "float64") for k, v in feed.items())
        for v in (x, w, b):
            v.stop_gradient = False
        if groups is None:
            y = F.instance_norm(x, weight=w, bias=b, eps=eps, data_format=layout)
        else:
            y = F.group_norm(x, groups, eps, w, b, data_format=layout)
        loss = paddle.sum(paddle.multiply(y, dy))
        fluid.backward.append_backward(loss)
    fetch = [y.name, "x@GRAD", "w@GRAD", "b@GRAD"]
    got = fluid.Executor(fluid.CPUPlace()).run(main, feed=feed, fetch_list=fetch)
    want = run_reference(main, feed, fetch)
    for name, g, r in zip(fetch, got, want):
        np.testing.assert_allclose(g, r, rtol=1e-9, atol=1e-10, err_msg=name)
    np.testing.assert_allclose(got[0], _numpy(feed["x"], groups or c, feed["w"], feed["b"], eps),
                               rtol=1e-9, atol=1e-10)
    # dL/db is dy summed over everything but the channel axis
    axes = tuple(i for i in range(len(shape)) if i != 1)
    np.testing.assert_allclose(got[3], feed["dy"].sum(axes), rtol=1e-9)


def test_bad_arguments():
    with fluid.program_guard(fluid.Program(), fluid.Program()):
        x = paddle.static.data("x", [2, 6, 3, 3], "float32")
        with pytest.raises(ValueError, match="do not split into 4 groups"):
            F.group_norm(x, 4)
        with pytest.raises(ValueError, match="channel-first"):
            F.group_norm(x, 2, data_format="NHWC")
        with pytest.raises(TypeError):
            F.group_norm(np.ones([2, 6, 3, 3], "float32"), 2)
        with pytest.raises(TypeError):
            paddle.nn.InstanceNorm2D(6)(paddle.static.data("i", [2, 6, 3, 3], "int32"))
        with pytest.raises(ValueError, match="expected a 4-D input"):
            paddle.nn.InstanceNorm2D(6)(paddle.static.data("y", [2, 6, 3], "float32"))
