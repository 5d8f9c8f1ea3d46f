"""Inference convolutions (passes/conv_fusion.py): conv + bias + batch_norm (running statistics,
folded into the filter and bias each run) + relu as one conv2d_fused call, and chains of convs
and pools run channels-last between two transposes. Random conv/batch_norm/relu/pool chains,
fused (the default plan) against unfused (fuse_all off) and the numpy reference executor, in
float32 and float64 (where the fold is exact up to float64 rounding); fetches of inner values,
parameters changed between runs, and the conv2d_fused op against its reference."""
import numpy as np
import pytest

import fluidc as fluid
from fluidc.frontend.ops.conv import native_max_pool
from fluidc.frontend.ops.registry import get_op_def
from fluidc.passes.fuse import ConvKernel, PoolKernel
from fluidc.passes.pipeline import lower_for_batch

from op_harness import assert_same, run_reference, seeded
from ref_harness import run_extern

TOL = {"float32": (2e-4, 2e-4), "float64": (1e-10, 1e-10)}


def _block(L, h, rng):
    """One random conv [+ batch_norm] [+ relu] [+ pool] block over h (spatial dims >= 1), and
    whether its conv has an epilogue to fuse."""
    side = min(h.shape[2:])
    k = int(rng.choice([k for k in (1, 3, 5) if k <= side]))
    conv = dict(num_filters=int(rng.integers(2, 9)), filter_size=k,
                stride=int(rng.choice([1, 2])) if side >= 4 else 1,
                padding=int(rng.integers(0, k // 2 + 1)),
                bias_attr=None if rng.random() < 0.7 else False)
    act = rng.random() < 0.7
    bn = rng.random() < 0.8
    h = L.conv2d(h, act=None if bn or not act else "relu", **conv)
    if bn:
        h = L.batch_norm(h, act="relu" if act else None, epsilon=float(rng.choice([1e-5, 1e-3])))
    if rng.random() < 0.7 and min(h.shape[2:]) >= 2:
        h = L.pool2d(h, 2, str(rng.choice(["max", "avg"])), 2)
    return h, bool(bn or act or conv["bias_attr"] is None)


def _program(seed: int, dtype: str):
    rng = seeded(f"conv_fusion{seed}")
    main, startup = fluid.Program(), fluid.Program()
    with fluid.unique_name.guard(), fluid.program_guard(main, startup):
        L = fluid.layers
        shape = [int(rng.integers(1, 5)), int(rng.integers(6, 13)), int(rng.integers(6, 13))]
        x = L.data(name="x", shape=shape, dtype=dtype)
        h, inner, fusable = x, [], 0
        for _ in range(int(rng.integers(1, 4))):
            h, fuses = _block(L, h, rng)
            inner.append(h)
            fusable += fuses
        out = L.reduce_sum(h, dim=[2, 3]) if rng.random() < 0.5 else h
    test = main.clone(for_test=True)
    feed = {"x": rng.standard_normal((int(rng.integers(1, 4)), *shape)).astype(dtype)}
    return test, startup, feed, out, inner, fusable, rng


def _scope(startup, program, rng):
    """A scope with startup's values, then random parameters and running statistics (positive
    variances), so the fold has something to fold."""
    scope = fluid.Scope()
    fluid.Executor(fluid.CPUPlace()).run(startup, scope=scope)
    for v in program.list_vars():
        if v.persistable and scope.find_var(v.name) is not None:
            t = scope.find_var(v.name).get_tensor()
            a = np.array(t)
            a = rng.uniform(0.5, 2.0, a.shape) if v.name.endswith(".w_2") \
                else rng.standard_normal(a.shape)
            t.set(a.astype(np.array(t).dtype), fluid.CPUPlace())
    return scope


def _unfused(program):
    s = fluid.BuildStrategy()
    s.fuse_all = False
    return fluid.CompiledProgram(program, build_strategy=s)


def _run(program, scope, feed, fetch):
    return fluid.Executor(fluid.CPUPlace()).run(program, feed=feed, fetch_list=fetch, scope=scope)


def _plan_ops(program, feed, fetch) -> list[str]:
    lp = lower_for_batch(program, ["x"], fetch, 0, shapes={"x": feed["x"].shape})
    return [o.type for s in lp.steps for o in (getattr(s, "ops", None) or [s.op])]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("seed", range(12))
def test_random_chains_fused_unfused_reference(seed, dtype):
    program, startup, feed, out, inner, fusable, rng = _program(seed, dtype)
    # the last value, and an inner one every other program (a fetch inside an NHWC chain)
    fetch = [out.name] + ([inner[0].name] if seed % 2 and len(inner) > 1 else [])
    scope = _scope(startup, program, rng)
    fused = _run(program, scope, feed, fetch)
    unfused = _run(_unfused(program), scope, feed, fetch)
    ref = run_reference(program, feed, fetch, scope)
    for name, f, u, r in zip(fetch, fused, unfused, ref):
        assert_same(f, r, f"fused {name}", TOL[dtype])
        assert_same(u, r, f"unfused {name}", TOL[dtype])
        assert_same(f, u, f"fused vs unfused {name}", TOL[dtype])
    ops = _plan_ops(program, feed, fetch)
    assert "batch_norm_infer" not in ops and ops.count("conv2d_fused") == fusable, ops


def test_bench_cnn_plan_is_fused_and_channels_last():
    """The bench CNN's inference plan: two conv2d_fused in NHWC, both generated kernels with
    the max pool after each taken in, the first (27 input cells per output) reading the NCHW
    feed (the transpose in folded in), the second (288 cells, generated for its pool) storing
    NCHW (the transpose out folded in); no library call, no conv2d, no batch_norm_infer, no
    pointwise pass over the conv outputs."""
    main, startup = fluid.Program(), fluid.Program()
    with fluid.unique_name.guard(), fluid.program_guard(main, startup):
        L = fluid.layers
        h = L.data(name="x", shape=[3, 32, 32], dtype="float32")
        for ch in (32, 64):
            h = L.pool2d(L.relu(L.batch_norm(L.conv2d(h, ch, 3, padding=1))), 2, "max", 2)
        logits = L.fc(L.flatten(h, 1), 10)
    test = main.clone(for_test=True)
    lp = lower_for_batch(test, ["x"], [logits.name], 32)
    assert [s.op.type for s in lp.steps if hasattr(s, "op")] == []
    convs = [s.ops for s in lp.steps if isinstance(s, ConvKernel)]
    assert [[(o.type, o.attrs.get("data_format")) for o in ops] for ops in convs] == [
        [("transpose2", "AnyLayout"), ("conv2d_fused", "NHWC"), ("pool2d", "NHWC")],
        [("conv2d_fused", "NHWC"), ("pool2d", "NHWC"), ("transpose2", "AnyLayout")]]
    assert not any(isinstance(s, PoolKernel) for s in lp.steps)
    assert all(o.attrs["act"] == "relu" for ops in convs for o in ops if o.type == "conv2d_fused")
    x = np.random.default_rng(0).standard_normal((32, 3, 32, 32)).astype("float32")
    scope = _scope(startup, test, np.random.default_rng(1))
    assert_same(_run(test, scope, {"x": x}, [logits])[0],
                run_reference(test, {"x": x}, [logits.name], scope)[0], "cnn", TOL["float32"])


def test_fold_follows_parameter_changes():
    """The fold runs with the plan: new running statistics or weights in the scope show in the
    next run of the same plan."""
    program, startup, feed, out, _, _, rng = _program(3, "float64")
    scope = _scope(startup, program, rng)
    exe = fluid.Executor(fluid.CPUPlace())
    first = exe.run(program, feed=feed, fetch_list=[out], scope=scope)[0]
    scope2 = _scope(startup, program, np.random.default_rng(7))
    for v in program.list_vars():
        if v.persistable and scope.find_var(v.name) is not None:
            scope.find_var(v.name).get_tensor().set(np.array(scope2.find_var(v.name).get_tensor()),
                                                    fluid.CPUPlace())
    second = exe.run(program, feed=feed, fetch_list=[out], scope=scope)[0]
    want = run_reference(program, feed, [out.name], scope)[0]
    assert not np.allclose(first, second)
    assert_same(second, want, "after the change", TOL["float64"])


def test_shared_conv_output_is_not_fused():
    """A conv output read by two ops (here fetched too) keeps its conv2d and pointwise ops."""
    main, startup = fluid.Program(), fluid.Program()
    with fluid.unique_name.guard(), fluid.program_guard(main, startup):
        L = fluid.layers
        x = L.data(name="x", shape=[2, 6, 6], dtype="float64")
        c = L.conv2d(x, 3, 3, bias_attr=False)
        y = L.relu(c) + c
    feed = {"x": np.random.default_rng(0).standard_normal((2, 2, 6, 6))}
    ops = _plan_ops(main, feed, [y.name])
    assert "conv2d" in ops and "conv2d_fused" not in ops
    scope = fluid.Scope()
    fluid.Executor(fluid.CPUPlace()).run(startup, scope=scope)
    assert_same(_run(main, scope, feed, [y])[0], run_reference(main, feed, [y.name], scope)[0],
                "y", TOL["float64"])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("fmt", ["NCHW", "NHWC"])
@pytest.mark.parametrize("act", ["", "relu"])
@pytest.mark.parametrize("pads,groups,bias", [([1, 1], 1, True), ([0, 1, 2, 0], 1, True),
                                              ([1, 1], 2, True), ([1, 1], 1, False)])
def test_conv2d_fused_op_against_reference(dtype, fmt, act, pads, groups, bias):
    rng = seeded(f"conv2d_fused{dtype}{fmt}{act}{pads}{groups}{bias}")
    x = rng.standard_normal((2, 4, 7, 6)).astype(dtype)
    if fmt == "NHWC":
        x = np.ascontiguousarray(x.transpose(0, 2, 3, 1))
    ins = {"Input": [x], "Filter": [rng.standard_normal((6, 4 // groups, 3, 3)).astype(dtype)],
           "Bias": [rng.standard_normal(6).astype(dtype)] if bias else []}
    attrs = {"paddings": pads, "groups": groups, "data_format": fmt, "act": act,
             "strides": [1, 2]}
    got = run_extern("conv2d_fused", ins, attrs)["Output"][0]
    d = get_op_def("conv2d_fused")
    assert_same(got, d.reference(ins, d.complete_attrs(attrs))["Output"][0], "conv2d_fused",
                TOL[dtype])


# -- training: max pools keep their argmax indices for the grad -------------------------------

def _train_program(seed: int, dtype: str):
    rng = seeded(f"conv_fusion_train{seed}")
    main, startup = fluid.Program(), fluid.Program()
    main.random_seed = startup.random_seed = 1
    with fluid.unique_name.guard(), fluid.program_guard(main, startup):
        L = fluid.layers
        x = L.data(name="x", shape=[3, 9, 8], dtype=dtype)
        label = L.data(name="label", shape=[1], dtype="int64")
        h = L.conv2d(x, 4, 3, padding=1)
        h = L.relu(L.batch_norm(h)) if seed % 2 else L.relu(h)
        # a plain 2x2 pool, then one with padding, a ragged edge and ceil_mode (still native)
        h = L.pool2d(h, 2, "max", 2)
        h = L.pool2d(h, 3, "max", 2, pool_padding=1, ceil_mode=bool(seed % 2))
        loss = L.mean(L.softmax_with_cross_entropy(L.fc(L.flatten(h, 1), 5), label))
        fluid.optimizer.Momentum(learning_rate=0.1, momentum=0.9).minimize(loss)
    feed = {"x": rng.standard_normal((4, 3, 9, 8)).astype(dtype),
            "label": rng.integers(0, 5, (4, 1)).astype("int64")}
    if seed >= 2:  # ties: whole windows of zeros after relu, and repeated values
        feed["x"] = np.round(feed["x"]).astype(dtype)
    return main, startup, feed, loss


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("seed", range(4))
def test_training_with_kept_indices_fused_unfused_reference(seed, dtype):
    main, startup, feed, loss = _train_program(seed, dtype)
    ops = [o.type for s in lower_for_batch(main, ["x", "label"], [loss.name], 4).steps
           for o in (getattr(s, "ops", None) or [s.op])]
    assert ops.count("pool2d_argmax") == 2 and ops.count("pool2d_argmax_grad") == 2, ops
    assert "pool2d_grad" not in ops
    params = [p.name for p in main.global_block().all_parameters()]
    results = []
    for run in ("fused", "unfused", "reference"):
        scope = fluid.Scope()
        fluid.Executor(fluid.CPUPlace()).run(startup, scope=scope)
        losses = []
        for _ in range(2):
            if run == "reference":
                got = run_reference(main, feed, [loss.name], scope)
            else:
                got = _run(main if run == "fused" else _unfused(main), scope, feed, [loss])
            losses.append(np.asarray(got[0]))
        results.append(losses + [np.array(scope.find_var(p).get_tensor()) for p in params])
    for what, f, u, r in zip(["loss 1", "loss 2"] + params, *results):
        assert_same(f, r, f"fused {what}", TOL[dtype])
        assert_same(u, r, f"unfused {what}", TOL[dtype])


@pytest.mark.parametrize("fmt", ["NCHW", "NHWC"])
@pytest.mark.parametrize("ksize,strides,pads,ceil", [([2, 2], [2, 2], [0, 0], False),
                                                     ([3, 3], [2, 1], [1, 1], True),
                                                     ([3, 2], [1, 2], [1, 0], False)])
def test_pool2d_argmax_ops_against_reference(fmt, ksize, strides, pads, ceil):
    rng = seeded(f"argmax{fmt}{ksize}{strides}{pads}{ceil}")
    x = np.maximum(np.round(rng.standard_normal((2, 3, 7, 6))), 0)  # ties, all-zero windows
    if fmt == "NHWC":
        x = np.ascontiguousarray(x.transpose(0, 2, 3, 1))
    d = get_op_def("pool2d_argmax")
    a = d.complete_attrs({"pooling_type": "max", "ksize": ksize, "strides": strides,
                          "paddings": pads, "ceil_mode": ceil, "data_format": fmt})
    assert native_max_pool(x.shape, a)  # the geometry torch pools with its own padding
    got = run_extern("pool2d_argmax", {"X": [x]}, a)
    want = d.reference({"X": [x]}, a)
    for slot in ("Out", "Indices"):
        assert_same(got[slot][0], want[slot][0], slot)
    dout = rng.standard_normal(want["Out"][0].shape)
    g = get_op_def("pool2d_argmax_grad")
    ins = {"X": [x], "Indices": [got["Indices"][0]], "Out@GRAD": [dout]}
    assert_same(run_extern("pool2d_argmax_grad", ins, a)["X@GRAD"][0],
                g.reference(ins, a)["X@GRAD"][0], "X@GRAD")


def test_conv_relu_without_bias_fuses_without_bias():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.unique_name.guard(), fluid.program_guard(main, startup):
        x = fluid.layers.data(name="x", shape=[3, 7, 7], dtype="float32")
        y = fluid.layers.conv2d(x, 5, 3, bias_attr=False, act="relu")
    feed = {"x": np.random.default_rng(2).standard_normal((2, 3, 7, 7)).astype("float32")}
    lp = lower_for_batch(main, ["x"], [y.name], 2)
    conv, = [op for s in lp.steps for op in ([s.op] if hasattr(s, "op") else s.ops)
             if op.type.startswith("conv")]  # a generated ConvKernel here (27 cells)
    assert conv.type == "conv2d_fused" and conv.input("Bias") == [] and conv.attrs["act"] == "relu"
    scope = fluid.Scope()
    fluid.Executor(fluid.CPUPlace()).run(startup, scope=scope)
    assert_same(_run(main, scope, feed, [y])[0], run_reference(main, feed, [y.name], scope)[0],
                "y", TOL["float32"])
