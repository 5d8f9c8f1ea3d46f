"""conv2d, depthwise_conv2d, pool2d, unfold and affine_grid: inference (concrete and -1 dims), references against
torch, extern runs against the references, grads against finite differences, and a small CNN
(conv2d + batch_norm + relu + pool2d + fc) through the compiled C executor against numpy."""
import numpy as np
import pytest
import torch
import torch.nn.functional as F

import fluidc as fluid
from fluidc.frontend.errors import OpError, ShapeError
from fluidc.frontend.ops.registry import get_op_def

from op_harness import one_op_program, reference_op, run_c
from ref_harness import check_grad, check_run, infer

RNG = np.random.default_rng(7)


def _t(a):
    return torch.from_numpy(np.ascontiguousarray(a))


# --- conv2d ------------------------------------------------------------------------------------

def test_conv2d_infer():
    x, w = [((-1, 3, 9, 9), 5)], [((4, 3, 3, 3), 5)]
    out = lambda a, x=x, w=w: infer("conv2d", {"Input": x, "Filter": w}, a)["Output"][0].shape
    assert out({}) == (-1, 4, 7, 7)
    assert out({"paddings": [1, 1], "strides": [2, 2]}) == (-1, 4, 5, 5)
    assert out({"paddings": [0, 1, 2, 0]}) == (-1, 4, 8, 9)
    assert out({"padding_algorithm": "SAME", "strides": [2, 2]}) == (-1, 4, 5, 5)
    assert out({"padding_algorithm": "VALID", "paddings": [5, 5]}) == (-1, 4, 7, 7)
    assert out({"dilations": [2, 2]}) == (-1, 4, 5, 5)
    assert out({"data_format": "NHWC"}, x=[((-1, 9, 9, 3), 5)]) == (-1, 7, 7, 4)
    assert out({}, x=[((2, 3, -1, 9), 5)]) == (2, 4, -1, 7)
    assert infer("depthwise_conv2d", {"Input": [((-1, 6, 5, 5), 6)], "Filter": [((6, 1, 3, 3), 6)]},
                 {"groups": 6})["Output"][0].shape == (-1, 6, 3, 3)
    with pytest.raises(ShapeError, match="conv2d.*channels"):
        out({"groups": 2}, w=[((4, 2, 3, 3), 5)])
    with pytest.raises(ShapeError, match="conv2d"):
        out({}, x=[((1, 3, 2, 2), 5)])
    with pytest.raises(OpError, match="padding_algorithm"):
        out({"padding_algorithm": "FULL"})


def _torch_conv(x, w, a):
    """An independent conv: torch with explicit (possibly asymmetric) zero padding."""
    nhwc = a.get("data_format") == "NHWC"
    xt = _t(x).permute(0, 3, 1, 2) if nhwc else _t(x)
    p = a.get("paddings", [0, 0])
    t, b, l, r = (p[0], p[0], p[1], p[1]) if len(p) == 2 else p
    y = F.conv2d(F.pad(xt, (l, r, t, b)), _t(w), stride=a.get("strides", 1),
                 dilation=a.get("dilations", 1), groups=a.get("groups", 1))
    return (y.permute(0, 2, 3, 1) if nhwc else y).numpy()


CONV_CASES = {
    "plain": ((2, 3, 7, 8), (4, 3, 3, 3), {}),
    "stride_pad": ((2, 3, 7, 8), (4, 3, 3, 2), {"strides": [2, 1], "paddings": [1, 2]}),
    "pad4": ((1, 2, 6, 6), (3, 2, 3, 3), {"paddings": [0, 2, 1, 0], "strides": [2, 2]}),
    "dilation": ((1, 2, 9, 9), (2, 2, 3, 3), {"dilations": [2, 3], "paddings": [1, 1]}),
    "groups": ((2, 4, 5, 5), (6, 2, 3, 3), {"groups": 2, "paddings": [1, 1]}),
    "nhwc": ((2, 6, 5, 3), (4, 3, 2, 2), {"data_format": "NHWC", "strides": [2, 2]}),
}


@pytest.mark.parametrize("case", sorted(CONV_CASES))
def test_conv2d_reference_and_run(case):
    xs, ws, a = CONV_CASES[case]
    x, w = RNG.standard_normal(xs).astype(np.float32), RNG.standard_normal(ws).astype(np.float32)
    ref = get_op_def("conv2d").reference({"Input": [x], "Filter": [w]},
                                         get_op_def("conv2d").complete_attrs(a))["Output"][0]
    np.testing.assert_allclose(ref, _torch_conv(x, w, a), rtol=1e-4, atol=1e-5)
    check_run("conv2d", {"Input": [x], "Filter": [w]}, a, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("algo,stride", [("SAME", 1), ("SAME", 2), ("VALID", 2)])
def test_conv2d_padding_algorithm(algo, stride):
    x, w = RNG.standard_normal((1, 2, 7, 6)), RNG.standard_normal((3, 2, 4, 3))
    a = {"padding_algorithm": algo, "strides": [stride, stride], "paddings": [9, 9],
         "dilations": [2, 2]}  # SAME ignores dilations and paddings, VALID paddings
    got = check_run("conv2d", {"Input": [x], "Filter": [w]}, a)["Output"][0]
    if algo == "SAME":
        assert got.shape[2:] == (-(-7 // stride), -(-6 // stride))
        # pad total (out - 1) * stride + k - in, split with the extra cell after
        pads = {1: [1, 2, 1, 1], 2: [1, 2, 0, 1]}[stride]
        want = _torch_conv(x, w, {"paddings": pads, "strides": [stride] * 2})
    else:
        want = _torch_conv(x, w, {"strides": [2, 2], "dilations": [2, 2]})
    np.testing.assert_allclose(got, want, rtol=1e-10)


def test_depthwise_conv2d():
    x, w = RNG.standard_normal((2, 4, 6, 6)), RNG.standard_normal((8, 1, 3, 3))
    a = {"groups": 4, "paddings": [1, 1], "strides": [2, 2]}
    got = check_run("depthwise_conv2d", {"Input": [x], "Filter": [w]}, a)["Output"][0]
    np.testing.assert_allclose(got, _torch_conv(x, w, a), rtol=1e-10)
    check_grad("depthwise_conv2d", {"Input": RNG.standard_normal((1, 2, 4, 4)),
                                    "Filter": RNG.standard_normal((2, 1, 3, 3))},
               {"groups": 2, "paddings": [1, 1]}, ["Input", "Filter"], outs=("Output",))


@pytest.mark.parametrize("case", ["stride_pad", "pad4", "dilation", "groups", "nhwc"])
def test_conv2d_grad(case):
    xs, ws, a = CONV_CASES[case]
    xs = (1,) + xs[1:]
    x, w = RNG.standard_normal(xs), RNG.standard_normal(ws)
    fwd, g = check_grad("conv2d", {"Input": x, "Filter": w}, a, ["Input", "Filter"],
                        outs=("Output",))
    out = get_op_def("conv2d").reference({"Input": [x], "Filter": [w]},
                                         get_op_def("conv2d").complete_attrs(a))["Output"][0]
    check_run("conv2d_grad", {"Input": [x], "Filter": [w],
                              "Output@GRAD": [RNG.standard_normal(out.shape)]}, a, rtol=1e-10,
              atol=1e-10)


def test_conv2d_grad_with_a_dropped_output():
    x, w = RNG.standard_normal((1, 2, 5, 5)), RNG.standard_normal((3, 2, 3, 3))
    d = get_op_def("conv2d_grad")
    a = d.complete_attrs({})
    dw = torch.zeros(3, 2, 3, 3, dtype=torch.float64)
    d.run({"Input": [_t(x)], "Filter": [_t(w)], "Output@GRAD": [torch.ones(1, 3, 3, 3,
                                                                          dtype=torch.float64)]},
          {"Filter@GRAD": [dw]}, a, None)
    np.testing.assert_allclose(dw.numpy(), d.reference(
        {"Input": [x], "Filter": [w], "Output@GRAD": [np.ones((1, 3, 3, 3))]}, a)["Filter@GRAD"][0])


# --- pool2d ------------------------------------------------------------------------------------

def test_pool2d_infer():
    x = {"X": [((-1, 3, 7, 7), 5)]}
    out = lambda a, x=x: infer("pool2d", x, a)["Out"][0].shape
    assert out({"ksize": [2, 2], "strides": [2, 2]}) == (-1, 3, 3, 3)
    assert out({"ksize": [2, 2], "strides": [2, 2], "ceil_mode": True}) == (-1, 3, 4, 4)
    assert out({"ksize": [3, 3], "paddings": [1, 1]}) == (-1, 3, 7, 7)
    assert out({"ksize": [3, 3], "global_pooling": True, "paddings": [1, 1]}) == (-1, 3, 1, 1)
    assert out({"ksize": [2, 3], "adaptive": True}) == (-1, 3, 2, 3)
    assert out({"ksize": [3, 3], "strides": [2, 2], "padding_algorithm": "SAME"}) == (-1, 3, 4, 4)
    assert out({"ksize": [2, 2], "data_format": "NHWC"}, {"X": [((-1, 7, 7, 3), 5)]}) == \
        (-1, 6, 6, 3)
    assert out({"ksize": [2, 2]}, {"X": [((2, 3, -1, 5), 5)]}) == (2, 3, -1, 4)
    with pytest.raises(OpError, match="pooling_type"):
        out({"pooling_type": "sum"})
    with pytest.raises(ShapeError, match="pool2d"):
        out({"ksize": [9, 9]})


POOL_CASES = {
    "max": {"pooling_type": "max", "ksize": [3, 3], "strides": [2, 2], "paddings": [1, 1]},
    "avg_exclusive": {"pooling_type": "avg", "ksize": [3, 3], "strides": [2, 2],
                      "paddings": [1, 1]},
    "avg_inclusive": {"pooling_type": "avg", "ksize": [3, 2], "strides": [1, 2],
                      "paddings": [1, 1], "exclusive": False},
    "global_avg": {"pooling_type": "avg", "ksize": [1, 1], "global_pooling": True},
    "global_max": {"pooling_type": "max", "global_pooling": True},
    "adaptive_avg": {"pooling_type": "avg", "ksize": [3, 2], "adaptive": True},
    "adaptive_max": {"pooling_type": "max", "ksize": [2, 4], "adaptive": True},
}


def _torch_pool(x, a):
    xt = _t(x)
    k, s, p = a.get("ksize"), a.get("strides", [1, 1]), a.get("paddings", [0, 0])
    if a.get("global_pooling"):
        return (xt.amax((2, 3), keepdim=True) if a["pooling_type"] == "max"
                else xt.mean((2, 3), keepdim=True)).numpy()
    if a.get("adaptive"):
        fn = F.adaptive_max_pool2d if a["pooling_type"] == "max" else F.adaptive_avg_pool2d
        return fn(xt, k).numpy()
    if a["pooling_type"] == "max":
        return F.max_pool2d(xt, k, s, p).numpy()
    return F.avg_pool2d(xt, k, s, p, count_include_pad=not a.get("exclusive", True)).numpy()


@pytest.mark.parametrize("case", sorted(POOL_CASES))
def test_pool2d_reference_and_run(case):
    a = POOL_CASES[case]
    x = RNG.standard_normal((2, 3, 7, 9)).astype(np.float32)
    got = check_run("pool2d", {"X": [x]}, a)["Out"][0]
    np.testing.assert_allclose(got, _torch_pool(x, a), rtol=1e-5, atol=1e-6)
    nhwc = check_run("pool2d", {"X": [x.transpose(0, 2, 3, 1).copy()]},
                     {**a, "data_format": "NHWC"})["Out"][0]
    np.testing.assert_allclose(nhwc.transpose(0, 3, 1, 2), got, rtol=1e-6)


@pytest.mark.parametrize("a", [
    {"pooling_type": "max", "ksize": [2, 2], "strides": [2, 2], "ceil_mode": True},
    {"pooling_type": "avg", "ksize": [3, 3], "strides": [2, 2], "ceil_mode": True,
     "paddings": [0, 1, 1, 0]},
    {"pooling_type": "avg", "ksize": [2, 2], "strides": [2, 2], "ceil_mode": True,
     "exclusive": False},
    {"pooling_type": "max", "ksize": [3, 3], "strides": [2, 2], "padding_algorithm": "SAME"},
])
def test_pool2d_ceil_and_asymmetric(a):
    x = RNG.standard_normal((1, 2, 5, 5))
    got = check_run("pool2d", {"X": [x]}, a)["Out"][0]
    # The last window of a ceil_mode pool covers x[..., 4:5, 4:5] only; past the (unpadded)
    # edge nothing counts, so even the inclusive average is the corner itself, as Paddle's.
    if a.get("ceil_mode") and a["ksize"] == [2, 2]:
        np.testing.assert_allclose(got[:, :, 2, 2], x[:, :, 4, 4])


@pytest.mark.parametrize("case", ["max", "avg_exclusive", "avg_inclusive", "adaptive_avg",
                                  "global_max"])
def test_pool2d_grad(case):
    a = POOL_CASES[case]
    x = RNG.permutation(2 * 5 * 6).reshape(1, 2, 5, 6) / 7.0  # distinct: no ties at the max
    check_grad("pool2d", {"X": x}, a, ["X"])
    out = get_op_def("pool2d").reference({"X": [x]}, get_op_def("pool2d").complete_attrs(a))
    check_run("pool2d_grad", {"X": [x], "Out": out["Out"],
                              "Out@GRAD": [RNG.standard_normal(out["Out"][0].shape)]}, a,
              rtol=1e-10, atol=1e-12)


def test_conv_and_pool_on_the_c_executor():
    x = RNG.standard_normal((2, 3, 8, 8)).astype(np.float32)
    w = RNG.standard_normal((4, 3, 3, 3)).astype(np.float32)
    for op, ins, a, out in (("conv2d", {"Input": x, "Filter": w}, {"paddings": [1, 1]}, "Output"),
                            ("pool2d", {"X": x}, POOL_CASES["avg_exclusive"], "Out")):
        program, feed, names, desc = one_op_program(op, ins, a)
        got = run_c(program, feed, [names[out]])[0]
        np.testing.assert_allclose(got, reference_op(desc, feed)[names[out]], rtol=1e-4,
                                   atol=1e-5)


# --- a small CNN end to end --------------------------------------------------------------------

def _np_cnn(x, p):
    c = _torch_conv(x, p["conv2d_0.w_0"], {"paddings": [1, 1]}) + \
        p["conv2d_0.b_0"].reshape(1, -1, 1, 1)
    mean, var = p["batch_norm_0.w_1"], p["batch_norm_0.w_2"]
    v = (1, -1, 1, 1)
    bn = (c - mean.reshape(v)) / np.sqrt(var.reshape(v) + 1e-5) * \
        p["batch_norm_0.w_0"].reshape(v) + p["batch_norm_0.b_0"].reshape(v)
    r = np.maximum(bn, 0)
    pooled = r.reshape(r.shape[0], r.shape[1], 4, 2, 4, 2).max((3, 5))
    return pooled.reshape(len(x), -1) @ p["fc_0.w_0"] + p["fc_0.b_0"]


@pytest.mark.parametrize("fmt", ["NCHW", "NHWC"])
def test_cnn_end_to_end(fmt):
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = fluid.layers.data("x", [3, 8, 8] if fmt == "NCHW" else [8, 8, 3])
        c = fluid.layers.conv2d(x, 4, 3, padding=1, data_format=fmt)
        b = fluid.layers.batch_norm(c, act="relu", is_test=True, data_layout=fmt)
        p = fluid.layers.pool2d(b, 2, "max", 2, data_format=fmt)
        if fmt == "NHWC":
            p = fluid.layers.transpose(p, [0, 3, 1, 2])
        y = fluid.layers.fc(p, 5)
    assert [op.type for op in main.global_block().ops][:5] == \
        ["conv2d", "elementwise_add", "batch_norm", "relu", "pool2d"]
    exe = fluid.Executor(fluid.CPUPlace())
    scope = fluid.global_scope()
    exe.run(startup)
    params = {}
    for v in main.all_parameters():
        arr = RNG.uniform(0.5, 1.5, v.shape).astype(np.float32)
        scope.var(v.name).get_tensor().set(arr, fluid.CPUPlace())
        params[v.name] = arr
    xv = RNG.standard_normal((2, 3, 8, 8)).astype(np.float32)
    feed = xv if fmt == "NCHW" else xv.transpose(0, 2, 3, 1).copy()
    got, = exe.run(main, feed={"x": feed}, fetch_list=[y])
    np.testing.assert_allclose(got, _np_cnn(xv, params), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("a", [
    {"kernel_sizes": [3, 3], "strides": [1, 1], "paddings": [1, 1, 1, 1], "dilations": [1, 1]},
    {"kernel_sizes": [2, 3], "strides": [2, 1], "paddings": [0, 2, 1, 0], "dilations": [1, 2]},
    {"kernel_sizes": [1, 2], "strides": [3, 2], "paddings": [2, 0, 0, 1], "dilations": [2, 1]}])
def test_unfold(a):
    """im2col against torch's unfold over the explicitly padded X (asymmetric paddings); the
    grad (col2im) against finite differences; windows that do not fit are refused."""
    x = np.random.default_rng(5).standard_normal((2, 3, 6, 7))
    got = check_run("unfold", {"X": [x]}, a)["Y"][0]
    t, left, b, r = a["paddings"]
    want = F.unfold(F.pad(torch.from_numpy(x), (left, r, t, b)), a["kernel_sizes"],
                    dilation=a["dilations"], stride=a["strides"])
    np.testing.assert_array_equal(got, want.numpy())
    check_grad("unfold", {"X": x[:1, :2]}, a, ["X"], outs=("Y",))
    with pytest.raises(ShapeError, match="unfold"):
        infer("unfold", {"X": [((1, 1, 2, 2), 5)]}, {**a, "kernel_sizes": [4, 4],
                                                      "paddings": [0, 0, 0, 0]})


@pytest.mark.parametrize("shape, align", [([3, 2, 4, 5], True), ([3, 2, 4, 5], False),
                                          ([2, 1, 2, 3, 4], True), ([2, 1, 2, 3, 4], False)])
def test_affine_grid(shape, align):
    """The grid against torch's affine_grid; Theta's grad against finite differences; a Theta
    that does not match the output's rank is refused."""
    k = len(shape) - 2
    theta = np.random.default_rng(6).standard_normal((shape[0], k, k + 1))
    a = {"output_shape": shape, "align_corners": align}
    got = check_run("affine_grid", {"Theta": [theta]}, a)["Output"][0]
    want = F.affine_grid(torch.from_numpy(theta), shape, align_corners=align)
    np.testing.assert_allclose(got, want.numpy(), rtol=1e-12, atol=1e-14)
    check_grad("affine_grid", {"Theta": theta}, a, ["Theta"], outs=("Output",))
    with pytest.raises(ShapeError, match="affine_grid"):
        infer("affine_grid", {"Theta": [((2, 3, 4), 5)]}, {"output_shape": [2, 1, 3, 3]})
