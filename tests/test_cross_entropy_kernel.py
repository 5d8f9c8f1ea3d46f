"""softmax_with_cross_entropy with hard labels: one row kernel forward, one kernel for its grad,
equal to the ops' numpy references (ignore_index included)."""
import numpy as np
import pytest

import fluidc as fluid
from fluidc.passes.fuse import Kernel

from op_harness import run_reference


def _program(n, c, label_dtype, soft=False, ignore_index=-100):
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = fluid.data("x", [n, c], "float64")
        x.stop_gradient = False
        label = fluid.data("label", [n, c] if soft else [n, 1], "float64" if soft else label_dtype)
        loss, sm = fluid.layers.softmax_with_cross_entropy(
            x, label, soft_label=soft, ignore_index=ignore_index, return_softmax=True)
        total = fluid.layers.reduce_sum(loss * loss)  # a loss gradient that varies by row
        fluid.backward.append_backward(total)
    return main, [loss.name, sm.name, "x@GRAD"]


def _feeds(n, c, label_dtype, ignore_index):
    rng = np.random.default_rng(n * c)
    label = rng.integers(0, c, (n, 1)).astype(label_dtype)
    label[::3] = ignore_index  # every third row ignored
    return {"x": rng.normal(0, 3, (n, c)), "label": label}


@pytest.mark.parametrize("n,c", [(1, 1), (7, 10), (64, 1031)])
@pytest.mark.parametrize("label_dtype", ["int64", "int32"])
def test_forward_and_grad_match_references_in_few_kernels(n, c, label_dtype):
    main, fetch = _program(n, c, label_dtype, ignore_index=5)
    feed = _feeds(n, c, label_dtype, 5)
    exe = fluid.Executor(fluid.CPUPlace())
    with fluid.scope_guard(fluid.Scope()):
        got = exe.run(main, feed=feed, fetch_list=fetch)
    want = run_reference(main, feed, fetch)
    for name, g, w in zip(fetch, got, want):
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12, err_msg=name)
    assert (got[0][::3] == 0).all() and (got[2][::3] == 0).all()  # ignored rows
    steps = list(exe._plans.values())[-1].lowered.steps
    types = [[op.type for op in s.ops] for s in steps if isinstance(s, Kernel)]
    assert not any(s.op.type.startswith("softmax_with_cross_entropy") for s in steps
                   if hasattr(s, "op"))
    forward = [t for t in types if "reduce_max" in t]
    assert len(forward) == 1 and {"exp", "log", "equal", "where"} <= set(forward[0])
    # the grad's one-hot and product are generated too (its `equal`s may join the forward
    # kernel, which reads the label already)
    assert any({"cast", "elementwise_sub", "elementwise_mul"} <= set(t) for t in types)


def test_soft_labels_stay_one_library_call():
    main, fetch = _program(4, 6, None, soft=True)
    rng = np.random.default_rng(1)
    p = rng.random((4, 6))
    feed = {"x": rng.normal(size=(4, 6)), "label": p / p.sum(1, keepdims=True)}
    exe = fluid.Executor(fluid.CPUPlace())
    with fluid.scope_guard(fluid.Scope()):
        got = exe.run(main, feed=feed, fetch_list=fetch)
    for g, w in zip(got, run_reference(main, feed, fetch)):
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12)
    steps = list(exe._plans.values())[-1].lowered.steps
    assert [s.op.type for s in steps if hasattr(s, "op")
            and "cross_entropy" in s.op.type] == ["softmax_with_cross_entropy",
                                                   "softmax_with_cross_entropy_grad"]
