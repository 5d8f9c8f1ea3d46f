"""The scheduler graph: storage of views and in-place outputs, hazards by storage, live ranges,
and the arena planned from them (no two buffers live at once share a byte)."""
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import fluidc as fluid
from fluidc.frontend.ops import OpDesc
from fluidc.passes.pipeline import lower_for_batch
from fluidc.passes.scheduler import SchedulerGraph, plan_arena


def _op(ins, outs):
    return OpDesc("relu", {"X": list(ins)}, {"Out": list(outs)}, {})


def test_hazards_are_by_storage_not_by_name():
    # v is a view of a: writing v's storage (through a) after reading v is a WAR hazard
    ops = [_op(["x"], ["a"]), _op(["v"], ["b"]), _op(["b"], ["a2"])]
    g = SchedulerGraph(ops, {"v": "a", "a2": "a"}, live_in=["x"], live_out=["a2"])
    assert g.storage("v") == g.storage("a2") == "a" and g.may_alias("v", "a2")
    assert sorted(g.vars_on("a")) == ["a", "a2", "v"]
    dep = g.dependencies()
    assert dep.has_edge(0, 1)  # RAW: a written, read as v
    assert dep.has_edge(1, 2)  # WAR: v read, then a2 written over it
    assert g.conflict(0, 2) and g.conflict(1, 2)
    assert g.live_range("a") == (0, 3)  # live out: past the last step
    assert g.live_range("x") == (-1, 0)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 9), st.integers(0, 9), st.integers(1, 5000)),
                min_size=1, max_size=25), st.booleans())
def test_arena_never_overlaps_buffers_live_at_once(spans, reuse):
    # buffer i is written at step first and read at step last
    ops = []
    for k in range(10):
        ops.append(_op([f"b{i}" for i, (f, l, _) in enumerate(spans) if min(f, l) < k <= max(f, l)],
                       [f"b{i}" for i, (f, l, _) in enumerate(spans) if min(f, l) == k]))
    g = SchedulerGraph(ops)
    nbytes = {f"b{i}": n for i, (_, _, n) in enumerate(spans)}
    arena = plan_arena(g, nbytes, reuse=reuse)
    placed = [(arena.offsets[s], arena.offsets[s] + n, *g.live_range(s)) for s, n in nbytes.items()]
    for i, (o1, e1, f1, l1) in enumerate(placed):
        for o2, e2, f2, l2 in placed[i + 1:]:
            if (not reuse) or not (l1 < f2 or l2 < f1):
                assert e1 <= o2 or e2 <= o1
    assert arena.size <= arena.unshared
    assert reuse or arena.size == arena.unshared


def test_inspect_says_why_a_kernel_stands_alone_and_what_the_arena_holds():
    x = fluid.layers.data(name="x", shape=[4, 6], dtype="float32", append_batch_size=False)
    s = fluid.layers.softmax(x)                      # a row kernel reducing axis 1
    m = fluid.layers.reduce_sum(s, dim=[0])          # reduces axis 0: a kernel of its own
    out = fluid.layers.reshape(fluid.layers.exp(m), [2, 3])
    lowered = lower_for_batch(fluid.default_main_program(), ["x"], [out.name], 1)
    from fluidc.passes.export import steps_text
    text = steps_text(lowered)
    assert "a kernel of its own: it reduces axes [0], the kernel [1]" in text
    assert "arena:" in text and lowered.storage(out.name) != out.name  # the reshape is a view
    exe = fluid.Executor(fluid.CPUPlace())
    xs = np.random.default_rng(0).normal(size=(4, 6)).astype("float32")
    e = np.exp(xs - xs.max(1, keepdims=True))
    want = np.exp((e / e.sum(1, keepdims=True)).sum(0)).reshape(2, 3)
    np.testing.assert_allclose(exe.run(feed={"x": xs}, fetch_list=[out])[0], want, rtol=1e-5)


def test_fusion_by_dependency_joins_across_an_independent_library_call_only():
    x = fluid.layers.data(name="x", shape=[4, 6], dtype="float32", append_batch_size=False)
    a = fluid.layers.relu(x)
    m = fluid.layers.cast(fluid.layers.argmax(x, axis=1), "float32")   # a library call
    b = fluid.layers.scale(a, 2.0)              # needs only a: joins relu's kernel, before argmax
    c = fluid.layers.elementwise_add(a, fluid.layers.reshape(m, [4, 1]))  # needs the call
    lowered = lower_for_batch(fluid.default_main_program(), ["x"], [b.name, c.name], 1)
    from fluidc.passes.fuse import Extern, Kernel
    kinds = [(type(s).__name__, [op.type for op in getattr(s, "ops", [])]) for s in lowered.steps]
    first = next(k for k, s in enumerate(lowered.steps) if isinstance(s, Kernel))
    assert [op.type for op in lowered.steps[first].ops] == ["relu", "scale"], kinds
    call = next(k for k, s in enumerate(lowered.steps)
                if isinstance(s, Extern) and s.op.type == "arg_max")
    later = [op.type for s in lowered.steps[call + 1:] for op in getattr(s, "ops", [])]
    assert "elementwise_add" in later, kinds  # never moved before what it reads
    xs = np.random.default_rng(1).normal(size=(4, 6)).astype("float32")
    got = fluid.Executor(fluid.CPUPlace()).run(feed={"x": xs}, fetch_list=[b, c])
    np.testing.assert_allclose(got[0], np.maximum(xs, 0) * 2)
    np.testing.assert_allclose(got[1], np.maximum(xs, 0) + xs.argmax(1)[:, None])
