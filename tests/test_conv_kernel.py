"""Generated convolutions (codegen/c_conv.py, ConvKernel): an inference conv2d_fused with at
most SMALL_CONV_CELLS input cells per output is a direct kernel, and the transpose2 alone
making its Input (the start of a channels-last chain) is folded into its loads. Random convs
(channels, kernel sizes, strides, paddings of 2 and 4 values, dilations, output channel counts
past a vector and with a tail, bias or not, relu or not, batch_norm folded or not, NCHW and
NHWC, a lone conv and a conv + pool + conv chain) against the numpy reference executor and the
unfused plan (torch's convolution)."""
import numpy as np
import pytest

import fluidc as fluid
from fluidc.passes.conv_fusion import SMALL_CONV_CELLS
from fluidc.passes.fuse import ConvKernel
from fluidc.passes.pipeline import lower_for_batch

from op_harness import assert_same, run_reference, seeded

TOL = {"float32": (2e-5, 2e-5), "float64": (1e-12, 1e-12)}


def _conv_steps(program, feed, fetch) -> list[list[str]]:
    lp = lower_for_batch(program, list(feed), fetch, 0,
                         shapes={n: v.shape for n, v in feed.items()})
    return [[o.type for o in s.ops] for s in lp.steps if isinstance(s, ConvKernel)]


def _program(rng, dtype: str, chain: bool):
    """An inference program: conv (+ bias, + batch_norm, + relu) [-> max pool -> conv]."""
    c = int(rng.integers(1, 4))
    kh, kw = int(rng.integers(1, 4)), int(rng.integers(1, 4))
    while c * kh * kw > SMALL_CONV_CELLS:
        c -= 1
    fmt = "NHWC" if not chain and rng.random() < 0.3 else "NCHW"
    n, h, w = int(rng.integers(1, 4)), int(rng.integers(3, 20)), int(rng.integers(3, 40))
    shape = [n, h, w, c] if fmt == "NHWC" else [n, c, h, w]
    pad = [int(v) for v in rng.integers(0, 3, 4 if rng.random() < 0.3 else 2)]
    stride = [int(rng.integers(1, 3)), int(rng.integers(1, 3))]
    dil = [int(rng.integers(1, 3)), int(rng.integers(1, 3))] if rng.random() < 0.3 else [1, 1]
    o = int(rng.choice([1, 5, 16, 33, 70]))
    act = "relu" if rng.random() < 0.7 else None
    norm = rng.random() < 0.5
    bias = rng.random() < 0.7 or not (act or norm)  # some epilogue makes it a conv2d_fused
    main, startup = fluid.Program(), fluid.Program()
    with fluid.unique_name.guard(), fluid.program_guard(main, startup):
        x = fluid.data("x", shape, dtype)
        y = fluid.layers.conv2d(x, o, [kh, kw], stride=stride, padding=pad, dilation=dil,
                                bias_attr=None if bias else False, data_format=fmt,
                                act=None if norm else act)
        if norm:
            y = fluid.layers.batch_norm(y, act=act, is_test=True, data_layout=fmt)
        if chain:
            y = fluid.layers.pool2d(y, 2, "max", 2)
            y = fluid.layers.conv2d(y, 8, 3, padding=1, act="relu")
    feed = {"x": rng.standard_normal(shape).astype(dtype)}
    return main, startup, feed, y


@pytest.mark.parametrize("seed", range(12))
def test_random_convs_against_reference_and_unfused(seed):
    rng = seeded(f"conv-kernel-{seed}")
    dtype = ("float32", "float64")[seed % 2]
    main, startup, feed, y = _program(rng, dtype, chain=seed % 3 == 2)
    scope = fluid.Scope()
    with fluid.scope_guard(scope):
        fluid.Executor(fluid.CPUPlace()).run(startup)
        for p in main.all_parameters():  # statistics and scales away from 0 and 1
            t = scope.find_var(p.name).get_tensor()
            a = np.array(t)
            t.set((rng.uniform(0.5, 1.5, a.shape) if "batch_norm" in p.name else
                   rng.standard_normal(a.shape)).astype(a.dtype), fluid.CPUPlace())
        steps = _conv_steps(main, feed, [y.name])
        assert steps and steps[0][-1] == "conv2d_fused"
        plain = fluid.BuildStrategy()
        plain.fuse_all = False
        exe = fluid.Executor(fluid.CPUPlace())
        fused, = exe.run(main, feed=feed, fetch_list=[y])
        unfused, = exe.run(fluid.CompiledProgram(main, build_strategy=plain), feed=feed,
                           fetch_list=[y])
    reference, = run_reference(main, feed, [y.name], scope)
    assert_same(fused, unfused, "unfused", TOL[dtype])
    assert_same(fused, reference, "reference", TOL[dtype])


def test_chain_start_folds_the_input_transpose():
    """conv -> pool -> conv over NCHW runs channels-last: the first conv reads the NCHW feed
    itself (the transpose into NHWC is folded into its loads)."""
    rng = seeded("conv-kernel-fold")
    main, _, feed, y = _program(rng, "float32", chain=True)
    assert _conv_steps(main, feed, [y.name])[0] == ["transpose2", "conv2d_fused"]


def test_wide_convs_stay_library_calls():
    """More input cells per output than SMALL_CONV_CELLS: oneDNN's convolution."""
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = fluid.data("x", [2, 8, 10, 10], "float32")
        y = fluid.layers.conv2d(x, 16, 3, padding=1, act="relu")
    feed = {"x": np.zeros((2, 8, 10, 10), "float32")}
    assert _conv_steps(main, feed, [y.name]) == []
