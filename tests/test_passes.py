"""Passes keep results: prune, fusion (on, off, reductions apart), and what fusion produces."""
import numpy as np
import pytest

import fluidc as fluid
from fluidc.passes import prune_ops
from fluidc.passes.fuse import Concurrent, Kernel, MatmulKernel
from fluidc.runtime.reference import ReferencePlan


def _strategy(**flags):
    s = fluid.BuildStrategy()
    for k, v in flags.items():
        setattr(s, k, v)
    return s


STRATEGIES = {
    "default": {},
    "unfused": {"fuse_all": False},
    "no_reduce_fusion": {"fuse_reduce_ops": False},
    "memory_optimize": {"memory_optimize": True},
    "no_inplace": {"enable_inplace": False},
    "no_concurrent": {"fuse_all_optimizer_ops": False},
}


def _classifier():
    main, startup = fluid.Program(), fluid.Program()
    main.random_seed = startup.random_seed = 3
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        x = fluid.layers.data(name="x", shape=[12], dtype="float32")
        y = fluid.layers.data(name="y", shape=[1], dtype="int64")
        h = fluid.layers.fc(x, 16, act="relu")
        prob = fluid.layers.fc(h, 4, act="softmax")
        loss = fluid.layers.mean(fluid.layers.cross_entropy(prob, y))
        fluid.optimizer.Momentum(0.1, 0.9).minimize(loss)
    return main, startup, loss, prob


@pytest.mark.parametrize("name", STRATEGIES)
def test_training_under_every_strategy_equals_the_reference_executor(name):
    main, startup, loss, prob = _classifier()
    rng = np.random.default_rng(0)
    feed = {"x": rng.normal(size=(8, 12)).astype("float32"),
            "y": rng.integers(0, 4, (8, 1)).astype("int64")}
    exe = fluid.Executor(fluid.CPUPlace())
    compiled_scope, reference_scope = fluid.Scope(), fluid.Scope()
    exe.run(startup, scope=compiled_scope)
    for v in main.list_vars():
        if v.persistable:
            reference_scope.var(v.name).get_tensor().set(
                np.array(compiled_scope.find_var(v.name).get_tensor()), fluid.CPUPlace())
    program = fluid.CompiledProgram(main, build_strategy=_strategy(**STRATEGIES[name]))
    reference = ReferencePlan(main, list(feed), [loss.name, prob.name])
    for _ in range(3):
        got = exe.run(program, feed=feed, fetch_list=[loss, prob], scope=compiled_scope)
        want = reference.run(feed, reference_scope)
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, w, rtol=2e-5, atol=1e-6)


def _kernels(program, feed, fetch, **flags):
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(fluid.CompiledProgram(program, build_strategy=_strategy(**flags)), feed=feed,
            fetch_list=fetch)
    plan = next(iter(exe._plans.values()))
    return [s for s in plan.lowered.steps if isinstance(s, Kernel)], plan


def test_softmax_is_one_kernel_and_unfused_is_not():
    x = fluid.layers.data(name="x", shape=[7, 33], dtype="float32", append_batch_size=False)
    out = fluid.layers.softmax(x)
    feed = {"x": np.random.default_rng(1).normal(size=(7, 33)).astype("float32")}
    fused, plan = _kernels(fluid.default_main_program(), feed, [out])
    assert len(fused) == 1 and len(plan.lowered.steps) == 1
    unfused, _ = _kernels(fluid.default_main_program(), feed, [out], fuse_all=False)
    assert len(unfused) == 6  # max, sub, clip at -64 (as Paddle), exp, sum, div


def test_pointwise_chain_is_one_kernel_with_only_used_values_stored():
    x = fluid.layers.data(name="x", shape=[64], dtype="float32", append_batch_size=False)
    y = fluid.layers.data(name="y", shape=[64], dtype="float32", append_batch_size=False)
    mid = fluid.layers.relu(fluid.layers.scale(x, 0.5) + y)
    out = fluid.layers.tanh(mid - 1.0) * x + 2.0
    feed = {"x": np.ones(64, "float32"), "y": np.ones(64, "float32")}
    kernels, _ = _kernels(fluid.default_main_program(), feed, [out])
    assert len(kernels) == 1 and kernels[0].outputs == [out.name]
    kernels, _ = _kernels(fluid.default_main_program(), feed, [out, mid])
    assert len(kernels) == 1 and set(kernels[0].outputs) == {out.name, mid.name}


def test_prune_keeps_exactly_the_ops_the_fetches_need():
    x = fluid.layers.data(name="x", shape=[4], dtype="float32")
    a = fluid.layers.relu(x)
    b = fluid.layers.tanh(x)  # not needed by c
    c = fluid.layers.scale(a, 2.0)
    ops = [op.desc for op in fluid.default_main_program().global_block().ops]
    kept = prune_ops(ops, ["x"], [c.name])
    assert [op.type for op in kept] == ["relu", "scale"]
    assert [op.type for op in prune_ops(ops, ["x"], [b.name])] == ["tanh"]
    # A fed intermediate cuts what produced it.
    assert [op.type for op in prune_ops(ops, ["x", a.name], [c.name])] == ["scale"]


def test_optimizer_updates_run_even_when_only_the_loss_is_fetched():
    main, startup, loss, _ = _classifier()
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup)
    before = np.array(fluid.global_scope().find_var("fc_0.w_0").get_tensor()).copy()
    exe.run(main, feed={"x": np.ones((2, 12), "float32"), "y": np.zeros((2, 1), "int64")},
            fetch_list=[loss])
    after = np.array(fluid.global_scope().find_var("fc_0.w_0").get_tensor())
    assert not np.array_equal(before, after)


@pytest.mark.parametrize("generated", [True, False])
def test_matmul_epilogue_bias_and_activation(generated):
    """By default the product is a generated kernel with bias and relu applied per tile; with
    fuse_gemm_epilogue off it is one library call with the bias (addmm), relu a kernel."""
    x = fluid.layers.data(name="x", shape=[6], dtype="float32")
    out = fluid.layers.fc(x, 3, act="relu")
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(fluid.default_startup_program())
    strategy = fluid.BuildStrategy()
    strategy.fuse_gemm_epilogue = generated
    program = fluid.CompiledProgram(fluid.default_main_program(), build_strategy=strategy)
    xs = np.random.default_rng(2).normal(size=(5, 6)).astype("float32")
    got, = exe.run(program, feed={"x": xs}, fetch_list=[out])
    plan = next(p for p in exe._plans.values() if p.lowered.fetches == [out.name])
    steps = plan.lowered.steps
    if generated:  # W, only read, is packed once per binding (PackKernel)
        assert [type(s).__name__ for s in steps] == ["PackKernel", "MatmulKernel"]
        assert [op.type for op in steps[1].ops] == ["mul", "elementwise_add", "relu"]
    else:
        assert [type(s).__name__ for s in steps] == ["Extern", "Kernel"]
        assert steps[0].op.type == "mul_bias"
    scope = fluid.global_scope()
    w, b = (np.array(scope.find_var(n).get_tensor()) for n in ("fc_0.w_0", "fc_0.b_0"))
    np.testing.assert_allclose(got, np.maximum(xs @ w + b, 0), rtol=1e-5, atol=1e-6)


def test_fetched_results_held_by_the_caller_are_never_overwritten(monkeypatch):
    # what is checked is how the compiled plan hands out its buffers: no tier-0 runs first
    monkeypatch.setenv("FLUIDC_TIERED", "0")
    n = 1 << 15  # big enough for results to be handed out without a copy
    x = fluid.layers.data(name="x", shape=[n], dtype="float32", append_batch_size=False)
    y = fluid.layers.relu(x + 1.0)
    exe = fluid.Executor(fluid.CPUPlace())
    held = [exe.run(feed={"x": np.full(n, v, "float32")}, fetch_list=[y])[0] for v in range(5)]
    assert [h[0] for h in held] == [1, 2, 3, 4, 5] and all((h == h[0]).all() for h in held)
    view = held.pop()[1:]  # a view keeps its base alive
    last = exe.run(feed={"x": np.full(n, 9, "float32")}, fetch_list=[y])[0]
    assert (view == 5).all() and (last == 10).all()
    ids = {id(exe.run(feed={"x": np.zeros(n, "float32")}, fetch_list=[y])[0]) for _ in range(6)}
    assert len(ids) <= 2  # results dropped at once are written again, not reallocated


def test_inference_batch_norm_fuses_with_relu_into_one_kernel():
    x = fluid.layers.data(name="x", shape=[3, 4, 4], dtype="float32")
    y = fluid.layers.batch_norm(x, act="relu", is_test=True)
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(fluid.default_startup_program())
    scope = fluid.global_scope()
    rng = np.random.default_rng(4)
    stats = {}
    for v in fluid.default_main_program().list_vars():
        if v.persistable:
            stats[v.name] = rng.uniform(0.5, 1.5, v.shape).astype("float32")
            scope.var(v.name).get_tensor().set(stats[v.name], fluid.CPUPlace())
    xs = rng.normal(size=(2, 3, 4, 4)).astype("float32")
    got, = exe.run(feed={"x": xs}, fetch_list=[y])
    plan = next(p for p in exe._plans.values() if p.lowered.fetches == [y.name])
    assert len(plan.lowered.steps) == 1 and isinstance(plan.lowered.steps[0], Kernel)
    scale, bias, mean, var = (stats[f"batch_norm_0.{s}"] for s in ("w_0", "b_0", "w_1", "w_2"))
    c = (1, 3, 1, 1)
    want = np.maximum((xs - mean.reshape(c)) / np.sqrt(var.reshape(c) + 1e-5) * scale.reshape(c)
                      + bias.reshape(c), 0)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_enable_inplace_writes_a_kernel_output_over_its_dying_input():
    x = fluid.layers.data(name="x", shape=[8], dtype="float32")
    w = fluid.layers.create_parameter([8, 8], "float32", name="w")
    h = fluid.layers.mul(x, w)                 # a library call (below): h lives in a buffer
    y = fluid.layers.scale(fluid.layers.relu(h), 2.0)
    out = fluid.layers.mean(fluid.layers.concat([y, y], axis=1))
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(fluid.default_startup_program())
    xs = np.random.default_rng(5).normal(size=(4, 8)).astype("float32")
    results = {}
    for flag in (True, False):
        program = fluid.CompiledProgram(fluid.default_main_program(),
                                        build_strategy=_strategy(enable_inplace=flag,
                                                                 fuse_gemm_epilogue=False))
        results[flag] = exe.run(program, feed={"x": xs}, fetch_list=[out])[0]
        plan = next(p for key, p in exe._plans.items() if p.lowered.fetches == [out.name]
                    and key[3] == id(program._build_strategy))
        assert plan.lowered.storage(y.name) == (h.name if flag else y.name)
    np.testing.assert_array_equal(results[True], results[False])
    w_val = np.array(fluid.global_scope().find_var("w").get_tensor())
    np.testing.assert_allclose(results[True], [np.maximum(xs @ w_val, 0).mean() * 2], rtol=1e-5)


def test_an_add_grad_passing_dout_on_is_a_view_not_a_copy():
    """The gradient of an add's side with Out's shape is dOut itself (a view of its storage),
    of a sub's X too; a sub's Y (-dOut) is computed, and an add's broadcast side is dOut
    summed (read in place, no copy of dOut first). Values checked against finite
    differences of the loss."""
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = fluid.data("x", [4, 6], "float32")
        y = fluid.data("y", [4, 6], "float32")
        b = fluid.data("b", [6], "float32")
        for v in (x, y, b):
            v.stop_gradient = False
        s = fluid.layers.elementwise_sub(fluid.layers.tanh(x), fluid.layers.tanh(y))
        loss = fluid.layers.reduce_sum(fluid.layers.square(s + b + x))
        grads = fluid.backward.gradients([loss], [x, y, b])
    rng = np.random.default_rng(3)
    feed = {n: rng.normal(size=shape).astype("float32")
            for n, shape in (("x", (4, 6)), ("y", (4, 6)), ("b", (6,)))}
    exe = fluid.Executor(fluid.CPUPlace())
    got = exe.run(main, feed=feed, fetch_list=grads)
    plan = next(iter(exe._plans.values()))
    ops = [op.type for s in plan.lowered.steps
           for op in (s.ops if hasattr(s, "ops") else [s.op])]
    assert "elementwise_add_grad_x" not in ops and "elementwise_add_grad_y" not in ops
    add_b = next(op for op in main.global_block().ops if op.input("Y") == ["b"])
    assert [op.input("X") for s in plan.lowered.steps
            for op in (s.ops if hasattr(s, "ops") else [s.op])
            if op.type == "reduce_sum" and not op.attrs.get("reduce_all")] == \
        [[add_b.output("Out")[0] + "@GRAD"]]  # b's gradient: dOut summed where it lies
    assert "elementwise_sub_grad_x" not in ops and "elementwise_sub_grad_y" in ops
    assert any(plan.lowered.storage(n) != n for n in plan.lowered.infos if n.endswith("@GRAD"))

    def f(x, y, b):
        return np.sum((np.tanh(x) - np.tanh(y) + b + x) ** 2, dtype=np.float64)
    args = [feed[n].astype(np.float64) for n in ("x", "y", "b")]
    for i, g in enumerate(got):
        num = np.zeros_like(args[i])
        for j in np.ndindex(num.shape):
            hi, lo = [a.copy() for a in args], [a.copy() for a in args]
            hi[i][j] += 1e-6
            lo[i][j] -= 1e-6
            num[j] = (f(*hi) - f(*lo)) / 2e-6
        np.testing.assert_allclose(g, num, rtol=1e-4, atol=1e-4)


def test_parameter_updates_run_in_their_gradients_products_or_one_concurrent_step():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = fluid.layers.data(name="x", shape=[8], dtype="float32")
        y = fluid.layers.data(name="y", shape=[1], dtype="int64")
        h = fluid.layers.fc(fluid.layers.fc(x, 16, act="relu"), 12, act="tanh")
        loss = fluid.layers.mean(fluid.layers.softmax_with_cross_entropy(fluid.layers.fc(h, 3), y))
        fluid.optimizer.Adam(0.01).minimize(loss)
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup)
    exe.run(main, feed={"x": np.ones((4, 8), "float32"), "y": np.zeros((4, 1), "int64")},
            fetch_list=[loss])
    plan = next(p for p in exe._plans.values() if p.lowered.fetches == [loss.name])
    groups = [s for s in plan.lowered.steps if isinstance(s, Concurrent)]
    updates = [[op.type for op in g.ops] for g in groups]
    # A weight's update is its gradient product's epilogue; the biases' three run in one
    # parallel region.
    in_products = [op.type for s in plan.lowered.steps if isinstance(s, MatmulKernel)
                   for op in s.ops[1:] if op.type == "adam_update"]
    assert in_products == ["adam_update"] * 3 and ["adam_update"] * 3 in updates
    assert plan.module.source.count("#pragma omp parallel\n") == len(groups)


def test_build_strategy_takes_paddles_settings_and_refuses_misspellings():
    s = fluid.BuildStrategy()
    s.reduce_strategy = fluid.BuildStrategy.ReduceStrategy.Reduce  # Paddle's, kept
    s.debug_graphviz_path = "/tmp/graphs"
    s.sync_batch_norm = True
    with pytest.raises(AttributeError, match="'fuse_elewise_add_act_opss'.*did you mean "
                                             "'fuse_elewise_add_act_ops'"):
        s.fuse_elewise_add_act_opss = True
