"""Generated convolutions (codegen/c_conv.py, ConvKernel): an inference conv2d_fused whose
packed filter is small enough is a direct kernel, with the max or average pool reading its
result alone taken in when that pool's windows tile it; the transpose2 alone making its Input
(the start of a channels-last chain) is folded into its loads, the one after its pool into its
stores. Random convs (channels, kernel sizes, strides, paddings of 2 and 4 values, dilations,
output channel counts past a vector and with a tail, bias or not, relu or not, batch_norm
folded or not, NCHW and NHWC, max and average pools of every window shape the rule takes or
refuses, conv + pool chains) against the numpy reference executor and the unfused plan
(torch's convolution and pool)."""
import numpy as np
import pytest

import fluidc as fluid
from fluidc.passes.conv_fusion import PACKED_W_BYTES, SMALL_CONV_OUT
from fluidc.passes.fuse import ConvKernel
from fluidc.passes.pipeline import lower_for_batch

from op_harness import assert_same, run_reference, seeded

TOL = {"float32": (2e-5, 2e-5), "float64": (1e-12, 1e-12)}
# pools after a conv: (type, pool_size, stride, padding, global, whether the conv takes it in)
POOLS = [("max", 2, 2, 0, False, True), ("max", 3, 3, 0, False, True),
         ("max", [2, 3], [2, 3], 0, False, True), ("max", 1, 1, 0, False, True),
         ("max", 2, 2, 0, True, True),  # global: one window over the map
         ("max", 3, 2, 0, False, False), ("max", 2, 2, 1, False, False),
         ("max", 2, 1, 0, False, False), ("avg", 2, 2, 0, False, True),
         ("avg", [3, 2], [3, 2], 0, False, True), ("avg", 2, 2, 0, True, True),
         ("avg", 2, 2, 1, False, False), ("avg", 3, 2, 0, False, False)]


def _conv_steps(program, feed, fetch) -> list[list[str]]:
    lp = lower_for_batch(program, list(feed), fetch, 0,
                         shapes={n: v.shape for n, v in feed.items()})
    return [[o.type for o in s.ops] for s in lp.steps if isinstance(s, ConvKernel)]


def _conv(rng, x, fmt: str, wide: bool):
    """A random conv (+ bias, + batch_norm, + relu) of x; wide: at least 2x3 cells."""
    c = x.shape[3 if fmt == "NHWC" else 1]
    kh, kw = int(rng.integers(1, 4)), int(rng.integers(1, 4))
    if wide:
        kh, kw = max(kh, 2), 3
    pad = [int(v) for v in rng.integers(0, 3, 4 if rng.random() < 0.3 else 2)]
    stride = [int(rng.integers(1, 3)), int(rng.integers(1, 3))]
    dil = [int(rng.integers(1, 3)), int(rng.integers(1, 3))] if rng.random() < 0.3 else [1, 1]
    o = int(rng.choice([1, 5, 16, 33, 70]))
    act = "relu" if rng.random() < 0.7 else None
    norm = rng.random() < 0.5
    bias = rng.random() < 0.7 or not (act or norm)  # some epilogue makes it a conv2d_fused
    y = fluid.layers.conv2d(x, o, [kh, kw], stride=stride, padding=pad, dilation=dil,
                            bias_attr=None if bias else False, data_format=fmt,
                            act=None if norm else act)
    if norm:
        y = fluid.layers.batch_norm(y, act=act, is_test=True, data_layout=fmt)
    return y


def _pool(y, fmt: str, pool):
    type_, size, stride, padding, global_, _ = pool
    return fluid.layers.pool2d(y, size, type_, stride, padding, global_pooling=global_,
                               data_format=fmt)


def _program(rng, dtype: str, kind: str):
    """An inference program and whether its first conv takes the pool after it in: `small` a
    conv over 1-3 channels, maybe pooled; `wide` one over 12-39 channels and a pool; `chain`
    conv + pool + conv + pool over NCHW (channels-last inside, transposes at both ends)."""
    wide = kind == "wide"
    fmt = "NHWC" if kind != "chain" and rng.random() < 0.4 else "NCHW"
    c = int(rng.integers(12, 40)) if wide else int(rng.integers(1, 4))
    n, h, w = int(rng.integers(1, 4)), int(rng.integers(5, 20)), int(rng.integers(5, 30))
    shape = [n, h, w, c] if fmt == "NHWC" else [n, c, h, w]
    pool = POOLS[int(rng.integers(len(POOLS)))] if wide or rng.random() < 0.5 else None
    main, startup = fluid.Program(), fluid.Program()
    with fluid.unique_name.guard(), fluid.program_guard(main, startup):
        x = fluid.data("x", shape, dtype)
        y = _conv(rng, x, fmt, wide)
        if kind == "chain":
            pool = POOLS[0]
            y = _pool(y, fmt, pool)
            y = fluid.layers.conv2d(y, int(rng.choice([20, 64])), 3, padding=1, act="relu")
            y = fluid.layers.pool2d(y, 2, "max", 2)
        elif pool is not None:
            y = _pool(y, fmt, pool)
    feed = {"x": rng.standard_normal(shape).astype(dtype)}
    return main, startup, feed, y, pool is not None and pool[-1]


def _run(main, startup, feed, y, rng, dtype):
    """(fused, unfused, reference) outputs over random parameters."""
    scope = fluid.Scope()
    with fluid.scope_guard(scope):
        fluid.Executor(fluid.CPUPlace()).run(startup)
        for p in main.all_parameters():  # statistics and scales away from 0 and 1, filters
            t = scope.find_var(p.name).get_tensor()  # scaled to their fan-in, as initializers
            a = np.array(t)
            v = rng.uniform(0.5, 1.5, a.shape) if "batch_norm" in p.name else \
                rng.standard_normal(a.shape) / np.sqrt(np.prod(a.shape[1:]))
            t.set(v.astype(a.dtype), fluid.CPUPlace())
        plain = fluid.BuildStrategy()
        plain.fuse_all = False
        exe = fluid.Executor(fluid.CPUPlace())
        fused, = exe.run(main, feed=feed, fetch_list=[y])
        unfused, = exe.run(fluid.CompiledProgram(main, build_strategy=plain), feed=feed,
                           fetch_list=[y])
    reference, = run_reference(main, feed, [y.name], scope)
    return fused, unfused, reference


@pytest.mark.parametrize("seed", range(30))
def test_random_convs_against_reference_and_unfused(seed):
    rng = seeded(f"conv-kernel-{seed}")
    dtype = ("float32", "float64")[seed % 2]
    kind = ("small", "wide", "chain")[seed % 3]
    main, startup, feed, y, takes_pool = _program(rng, dtype, kind)
    steps = _conv_steps(main, feed, [y.name])
    assert steps and "conv2d_fused" in steps[0]
    assert ("pool2d" in steps[0]) == (takes_pool or kind == "chain")
    fused, unfused, reference = _run(main, startup, feed, y, rng, dtype)
    assert_same(fused, unfused, "unfused", TOL[dtype])
    assert_same(fused, reference, "reference", TOL[dtype])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_pooled_conv_keeps_nan_and_infinities(dtype):
    """The pool taken in keeps the first NaN of a window and floors at -FLT_MAX, as the
    generated pool and Paddle's kernel: a conv without activation over inputs holding NaN and
    infinities, into a 2x2 max pool."""
    rng = seeded(f"conv-kernel-nan-{dtype}")
    main, startup = fluid.Program(), fluid.Program()
    with fluid.unique_name.guard(), fluid.program_guard(main, startup):
        x = fluid.data("x", [2, 16, 6, 8], dtype)
        y = fluid.layers.pool2d(fluid.layers.conv2d(x, 20, [1, 3], padding=[0, 1]), 2, "max", 2)
    a = rng.standard_normal((2, 16, 6, 8)).astype(dtype)
    a[0, 3, 2, 5] = np.nan
    a[1, :, 4, 1] = -np.inf
    a[1, 2, 0, 6] = np.inf
    feed = {"x": a}
    assert _conv_steps(main, feed, [y.name]) == [
        ["transpose2", "conv2d_fused", "pool2d", "transpose2"]]
    fused, unfused, reference = _run(main, startup, feed, y, rng, dtype)
    assert np.isnan(fused).any() and np.isinf(fused).any()
    assert_same(fused, reference, "reference", TOL[dtype])
    assert_same(fused, unfused, "unfused", TOL[dtype])


def test_chain_folds_both_transposes():
    """conv -> pool -> conv -> pool over NCHW runs channels-last: the first conv reads the NCHW
    feed itself (the transpose into NHWC folded into its loads), the last pool, taken in the
    second conv, stores NCHW (the transpose out folded into its stores)."""
    rng = seeded("conv-kernel-fold")
    main, _, feed, y, _ = _program(rng, "float32", "chain")
    assert _conv_steps(main, feed, [y.name]) == [
        ["transpose2", "conv2d_fused", "pool2d"], ["conv2d_fused", "pool2d", "transpose2"]]


def _plan(c: int = 8, o: int = 16, groups: int = 1, pool: bool = True,
          fetch_conv: bool = False):
    """The ConvKernels' ops of conv(c -> o channels, 3x3) + relu [+ 2x2 max pool]."""
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = fluid.data("x", [2, c, 10, 10], "float32")
        conv = fluid.layers.conv2d(x, o, 3, padding=1, groups=groups, act="relu")
        y = fluid.layers.pool2d(conv, 2, "max", 2) if pool else conv
    feed = {"x": np.zeros((2, c, 10, 10), "float32")}
    return _conv_steps(main, feed, [y.name] + ([conv.name] if fetch_conv else []))


def test_which_convs_and_pools_are_generated():
    """A conv is generated unless grouped, with more than SMALL_CONV_OUT output channels or
    with its packed filter past PACKED_W_BYTES (then oneDNN's); its pool is taken in unless
    something else reads the conv's result."""
    assert _plan() == [["transpose2", "conv2d_fused", "pool2d", "transpose2"]]
    assert _plan(pool=False) == [["conv2d_fused"]]
    assert _plan(fetch_conv=True) == [["conv2d_fused"]]  # a lone NCHW conv
    assert _plan(groups=2) == []
    assert _plan(o=SMALL_CONV_OUT + 1) == []
    assert 160 * 128 * 9 * 4 > PACKED_W_BYTES and _plan(c=128, o=160) == []
