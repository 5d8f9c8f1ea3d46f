"""Constants written once per binding of a plan (constant_fold.once_per_binding): a
fill_constant / assign_value library call whose storage nothing else writes runs when the plan
binds, not on every run; one whose storage a later op overwrites runs every time."""
import numpy as np

import fluidc as fluid
import fluidc as paddle
from op_harness import run_reference


def _externs(plan):
    return [s.op.type for s in plan.module.schedule if not isinstance(s, str)]


def _run_twice(main, fetch, feeds):
    exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
    got = [exe.run(main, feed=f, fetch_list=fetch, scope=scope) for f in feeds]
    plan = list(exe._plans.values())[-1]
    return got, plan


def test_a_constant_nothing_overwrites_is_written_at_binding_only(rng):
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = paddle.static.data("x", [4, 70], "float32")
        c = fluid.layers.assign(np.linspace(-1, 1, 70).astype("float32"))
        y = fluid.layers.tanh(x * c)
    feeds = [{"x": rng.normal(size=(4, 70)).astype("float32")} for _ in range(3)]
    got, plan = _run_twice(main, [y], feeds)
    assert plan.lowered.constants == {c.name}
    assert "assign_value" in _externs(plan) and len(plan.calls) == len(plan.module.schedule) - 1
    for (g,), f in zip(got, feeds):
        want, = run_reference(main, f, [y.name])
        np.testing.assert_allclose(g, want, rtol=1e-6, atol=1e-6)


def test_a_constant_whose_storage_a_later_step_takes_is_written_every_run(rng):
    """exp(c * x) lives in c's storage (c dies there): c is written again before every run."""
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = paddle.static.data("x", [8, 70], "float32")
        c = fluid.layers.assign(rng.normal(size=(8, 70)).astype("float32"))
        h = fluid.layers.exp(c * x)
        k = paddle.argsort(h, axis=1)
    feeds = [{"x": rng.normal(size=(8, 70)).astype("float32")} for _ in range(3)]
    got, plan = _run_twice(main, [k], feeds)
    assert plan.lowered.storage(h.name) == c.name and not plan.lowered.constants
    for (g,), f in zip(got, feeds):
        np.testing.assert_array_equal(g, run_reference(main, f, [k.name])[0])


def test_an_overwritten_constant_keeps_its_first_value_for_earlier_readers(rng):
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = paddle.static.data("x", [70], "float32")
        c = fluid.layers.assign(np.arange(70).astype("float32"))
        y = c * 2.0
        paddle.assign(x, output=c)
        z = c + 1.0
    feeds = [{"x": rng.normal(size=70).astype("float32")} for _ in range(3)]
    got, plan = _run_twice(main, [y, z], feeds)
    for (gy, gz), f in zip(got, feeds):
        np.testing.assert_array_equal(gy, np.arange(70, dtype="float32") * 2)
        np.testing.assert_allclose(gz, f["x"] + 1, rtol=1e-6)


def test_a_fetched_constant_is_written_every_run():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = paddle.static.data("x", [3], "float32")
        c = fluid.layers.fill_constant([3], "float32", 2.5)
        y = x + c
    got, plan = _run_twice(main, [c, y], [{"x": np.ones(3, "float32")}] * 2)
    assert c.name not in plan.lowered.constants
    for gc, gy in got:
        np.testing.assert_array_equal(gc, [2.5] * 3)
        np.testing.assert_array_equal(gy, [3.5] * 3)


def test_eager_ops_with_constants_keep_them_across_calls(rng):
    """softmax_with_cross_entropy's lowering reads constant class ids and its ignore_index:
    eager calls with new labels and logits each time, against numpy."""
    paddle.disable_static()
    try:
        for _ in range(4):
            logits = rng.normal(size=(16, 10)).astype("float32")
            labels = rng.integers(0, 10, (16, 1)).astype("int64")
            loss = paddle.nn.functional.softmax_with_cross_entropy(
                paddle.to_tensor(logits), paddle.to_tensor(labels)).numpy()
            shifted = logits - logits.max(1, keepdims=True)
            logp = shifted - np.log(np.exp(shifted).sum(1, keepdims=True))
            want = -np.take_along_axis(logp, labels, 1)
            np.testing.assert_allclose(loss, want, rtol=1e-5, atol=1e-6)
    finally:
        paddle.enable_static()
