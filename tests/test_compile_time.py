"""Compile time: equal kernels compiled once, modules compiled in concurrent units, linear
concurrent levels, plans found on disk by the program, and tier 0 (numpy kernels) while the
library compiles — each checked bit for bit against the plain compiled plan."""
import json
import pickle
import random
import re
import threading

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import fluidc as fluid
from fluidc.codegen import c_matmul, c_plan, compiler
from fluidc.codegen.kernel import kernel_names
from fluidc.frontend.errors import CompileError
from fluidc.frontend.ops import OpDesc, VarInfo
from fluidc.passes import fuse
from fluidc.passes.fuse import Concurrent, Kernel, flat_steps, run_concurrently
from fluidc.passes.pipeline import lower_for_batch
from fluidc.passes.scheduler import SchedulerGraph
from fluidc.runtime import plan_cache, tiered
from fluidc.runtime.plan import Plan
from test_random_aliasing import STRATEGIES, training_programs


def _deep(blocks: int, width: int = 16, optimizer: str = "adam", norm: bool = True):
    """`blocks` residual blocks (layer_norm, fc + relu, add) and a softmax loss."""
    main, startup = fluid.Program(), fluid.Program()
    main.random_seed = startup.random_seed = 1
    with fluid.program_guard(main, startup):
        x = fluid.data(name="x", shape=[-1, width], dtype="float32")
        y = fluid.data(name="y", shape=[-1, 1], dtype="int64")
        h = x
        for _ in range(blocks):
            z = fluid.layers.layer_norm(h, begin_norm_axis=1) if norm else h
            h = fluid.layers.elementwise_add(h, fluid.layers.fc(z, width, act="relu"))
        loss = fluid.layers.mean(fluid.layers.softmax_with_cross_entropy(
            fluid.layers.fc(h, 4), y))
        opt = fluid.optimizer.Adam(1e-3) if optimizer == "adam" else fluid.optimizer.SGD(1e-2)
        opt.minimize(loss)
    return main, startup, loss


def _regression(hidden: int = 0, momentum: bool = False):
    """fit_a_line (hidden=0) or a small relu MLP regression, trained with SGD or momentum."""
    main, startup = fluid.Program(), fluid.Program()
    main.random_seed = startup.random_seed = 3
    with fluid.program_guard(main, startup):
        x = fluid.data(name="x", shape=[-1, 13], dtype="float32")
        y = fluid.data(name="y", shape=[-1, 1], dtype="float32")
        h = fluid.layers.fc(x, hidden, act="relu") if hidden else x
        loss = fluid.layers.mean(fluid.layers.square_error_cost(fluid.layers.fc(h, 1), y))
        opt = fluid.optimizer.Momentum(1e-3, 0.9) if momentum else fluid.optimizer.SGD(1e-3)
        opt.minimize(loss)
    return main, startup, loss


def _state(scope, program) -> list:
    return [np.array(scope.find_var(p.name).get_tensor())
            for p in program.global_block().all_parameters()]


def _same(a: list, b: list) -> bool:
    return len(a) == len(b) and all(
        x.dtype == y.dtype and x.shape == y.shape and x.tobytes() == y.tobytes()
        for x, y in zip(a, b))


def _batches(n: int, rows: int = 20, seed: int = 0, scale: float = 1.0):
    rng = np.random.default_rng(seed)
    for _ in range(n):
        yield {"x": (rng.standard_normal((rows, 13)) * scale).astype(np.float32),
               "y": rng.standard_normal((rows, 1)).astype(np.float32)}


# -- equal kernels once, concurrent units ---------------------------------------------------------
def test_repeated_layers_compile_each_distinct_kernel_once():
    main, _, loss = _deep(12)
    lp = lower_for_batch(main, ["x", "y"], [loss.name], 8)
    module = c_plan.generate_c(lp.steps, lp.infos, lp.storage, load=False, batch=8)
    defined = module.source.count("\nstatic void kernel_")
    entries = re.findall(r"\{run_(kernel_\w+), \d+\}, /\* (kernel_\w+) \*/", module.source)
    # Every kernel step is one entry, under its own name, run by a defined kernel's runner.
    assert sorted(own for _, own in entries) == sorted(kernel_names(lp.steps).values())
    assert len(entries) > 3 * defined  # 12 equal blocks: most kernels are another's code
    for first, _ in entries:
        assert f"static void {first}(" in module.source
        assert f"static void run_{first}(int64_t nb, void **restrict s" in module.source


def test_kernels_touch_at_most_max_kernel_vars():
    """Independent updates join a kernel side by side only up to fuse.MAX_KERNEL_VARS vars (its
    compile time grows with their square), and still do join: fewer kernels than updates."""
    main, _, loss = _deep(12)
    lp = lower_for_batch(main, ["x", "y"], [loss.name], 8)
    adams = [k for _, k in flat_steps(lp.steps) if isinstance(k, Kernel)
             and all(op.type == "adam_update" for op in k.ops)]
    assert sum(len(k.ops) for k in adams) > 2 * len(adams)
    for k in flat_steps(lp.steps):
        if isinstance(k[1], Kernel):
            names = {n for op in k[1].ops for n in op.input_arg_names + op.output_arg_names}
            assert len(names) < fuse.MAX_KERNEL_VARS + 12  # the last op may pass the cap


def _rendered_once_is_rendered_each(lp, batch: int | None = 8) -> int:
    """The module with each kernel structure rendered once is the module rendering every
    kernel, byte for byte; the number of kernels that took another's rendering."""
    calls = []
    real = c_plan.structure
    c_plan.structure = lambda *a: calls.append(real(*a)) or calls[-1]
    try:
        once = c_plan.generate_c(lp.steps, lp.infos, lp.storage, load=False, batch=batch)
    finally:
        c_plan.structure = real
    each = c_plan.generate_c(lp.steps, lp.infos, lp.storage, load=False, batch=batch,
                             memo=False)
    assert once.source == each.source and once.units == each.units
    assert once.slots == each.slots and once.schedule == each.schedule
    assert None not in calls  # every step kind is keyed
    return len(calls) - len({c.key for c in calls})


def _bench_model(name: str, test: bool):
    from fluidc.bench import cnn_train, transformer
    if name == "cnn":
        m = cnn_train.FluidcCNN()
        return (m.test_program if test else m.main), ["img"] + ([] if test else ["label"]), \
            [(m.logits if test else m.loss).name]
    m = transformer.FluidcBlock()
    return (m.test_program if test else m.main), ["x"], [(m.out if test else m.loss).name]


@pytest.mark.parametrize("model", ["deep", "cnn", "transformer"])
@pytest.mark.parametrize("test", [False, True], ids=["train", "infer"])
def test_kernels_of_one_structure_are_rendered_once(model, test):
    if model == "deep":
        main, _, loss = _deep(6)
        program, feeds, fetches = main.clone(for_test=test), ["x", "y"], [loss.name]
    else:
        program, feeds, fetches = _bench_model(model, test)
    lp = lower_for_batch(program, feeds, fetches, 8, written_products=True)
    taken = _rendered_once_is_rendered_each(lp)
    if model == "deep" and not test:
        assert taken > 20  # six equal blocks


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(training_programs(), st.sampled_from(STRATEGIES))
def test_random_training_programs_render_once_as_each(prog, strategy):
    main, _, feeds, fetch = prog
    batch = next(iter(feeds.values()))[0]
    _rendered_once_is_rendered_each(
        lower_for_batch(main, list(feeds), fetch, batch, strategy=strategy), batch)


def test_structures_tell_apart_what_renders_apart():
    """Keys see the type of an attribute (1 or True, 0.0 or -0.0), each var's shape and dtype,
    and which vars share storage; not names."""
    infos = {n: VarInfo((4,), fluid.VarType.FP32) for n in ("a", "b", "c", "d")}

    def key(attrs, ins=("a", "b"), out="c", storage=str, info=infos):
        op = OpDesc("elementwise_add", {"X": [ins[0]], "Y": [ins[1]]},
                               {"Out": [out]}, attrs)
        return c_plan.structure(Kernel([op], (4,), list(ins), [out]), info, storage, False).key

    base = key({"axis": -1})
    assert key({"axis": -1}, ("b", "a"), "d") == base  # renamed
    assert key({"axis": -1}, ("a", "a")) != base  # one var read twice
    assert key({"axis": -1}, storage=lambda n: "a" if n == "c" else n) != base  # in place
    assert key({"axis": True}) != key({"axis": 1})
    assert key({"axis": 0.0}) != key({"axis": -0.0})
    wide = dict(infos, b=VarInfo((4,), fluid.VarType.FP64))
    assert key({"axis": -1}, info=wide) != base


def test_units_link_into_the_library_one_unit_makes(monkeypatch, tmp_path):
    """The module cut into units computes exactly what it computes as one unit."""
    monkeypatch.setenv("FLUIDC_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(c_plan, "UNIT_MIN_BYTES", 2000)
    monkeypatch.setattr(c_plan.os, "cpu_count", lambda: 3)
    main, startup, loss = _deep(6, optimizer="sgd")
    feed = {"x": np.random.default_rng(1).standard_normal((8, 16)).astype(np.float32),
            "y": np.arange(8, dtype=np.int64).reshape(8, 1) % 4}
    results = []
    for units in (True, False):
        if not units:
            monkeypatch.setattr(c_plan, "split_units", lambda *a: ())
        # (products generated: the units call the helpers' object, the one unit its own copy)
        lp = lower_for_batch(main, ["x", "y"], [loss.name], 8, written_products=True)
        module = c_plan.generate_c(lp.steps, lp.infos, lp.storage, load=False, batch=8)
        assert bool(module.units) == units
        assert not units or module.units[0].startswith(compiler.HELPERS_MARK)
        exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
        exe.run(startup, scope=scope)
        plan = Plan(lp, 1, module=module.load())
        out = [plan.run(feed, scope)[0] for _ in range(3)]
        results.append(out + _state(scope, main))
    assert _same(results[0], results[1])


def _split_module(blocks: int, width: int):
    """A deep MLP's training module cut into units (its products call the helpers)."""
    main, _, loss = _deep(blocks, width=width, optimizer="sgd")
    lp = lower_for_batch(main, ["x", "y"], [loss.name], 8, written_products=True)
    module = c_plan.generate_c(lp.steps, lp.infos, lp.storage, load=False, batch=8)
    assert module.units
    return module


def test_product_helpers_are_one_cached_object_every_library_links(monkeypatch, tmp_path):
    """Kernel units declare the helpers; their own unit (the same text in every library) is
    compiled once into the cache and linked into each library; a damaged object is rebuilt."""
    monkeypatch.setenv("FLUIDC_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(c_plan, "UNIT_MIN_BYTES", 2000)
    monkeypatch.setattr(c_plan.os, "cpu_count", lambda: 3)
    one = _split_module(4, 16)
    helpers, *kernels, segments = one.units
    assert helpers.startswith(compiler.HELPERS_MARK) and "fluidc_tile_f32_4(" in helpers
    assert all("fluidc_tile_f32_4(" not in u and "fluidc_pack_f32(" in u for u in kernels)
    one.load()
    (obj,) = tmp_path.glob("o_*.o")
    first = obj.stat()
    compiled = []
    run = compiler.subprocess.run
    monkeypatch.setattr(compiler.subprocess, "run",
                        lambda cmd, *a, **k: compiled.append(cmd) or run(cmd, *a, **k))
    two = _split_module(5, 24)
    assert two.units[0] == helpers and two.source != one.source
    two.load()
    assert not [c for c in compiled if "-c" in c]  # the object was not compiled again
    assert list(tmp_path.glob("o_*.o")) == [obj] and obj.stat().st_ino == first.st_ino
    obj.write_bytes(b"\x7fELF garbage")
    compiled.clear()
    _split_module(6, 16).load()  # a library linking a damaged object would not load
    assert [c for c in compiled if "-c" in c]
    key = json.loads(obj.with_suffix(".meta").read_text())["key"]
    assert compiler.verify_entry(obj, key)


def test_helpers_are_prefetched_while_a_large_program_lowers(monkeypatch, tmp_path):
    monkeypatch.setenv("FLUIDC_CACHE_DIR", str(tmp_path))
    started = []
    monkeypatch.setattr(c_matmul, "prefetch_object", started.append)
    c_matmul.prefetch_helpers(["mul"] * 10)  # small programs compile as one unit
    c_matmul.prefetch_helpers(["relu"] * 500)  # no products
    assert not started
    c_matmul.prefetch_helpers(["mul"] + ["relu"] * 500)
    assert started == [c_matmul.helpers_unit(np.float32)]
    monkeypatch.undo()
    monkeypatch.setenv("FLUIDC_CACHE_DIR", str(tmp_path))
    compiler.prefetch_object(started[0])
    for t in [t for t in threading.enumerate() if t.name == "fluidc-helpers"]:
        t.join()
    assert len(list(tmp_path.glob("o_*.o"))) == 1


def test_a_unit_that_fails_to_compile_is_a_compile_error(tmp_path, monkeypatch):
    monkeypatch.setenv("FLUIDC_CACHE_DIR", str(tmp_path))
    good = "int f(void) { return 1; }\n"
    with pytest.raises(CompileError, match="compiling generated C failed"):
        compiler.load_c(good, (good, "int g(void) { return undeclared; }\n"))
    assert not list(tmp_path.glob("k_*.so"))


def test_a_failed_compile_raises_from_run_and_keeps_no_plan(tmp_path, monkeypatch):
    """The compiler runs beside the plan's own making: its error is what run raises, no plan
    is kept (in the executor or on disk), and a later run compiles again."""
    monkeypatch.setenv("FLUIDC_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("FLUIDC_TIERED", "0")
    main, startup, loss = _regression(hidden=8)
    exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
    exe.run(startup, scope=scope)
    feed = next(iter(_batches(1)))
    real = c_plan.load_library

    def failing(*a, **k):
        raise CompileError("the compiler is gone")
    monkeypatch.setattr(c_plan, "load_library", failing)
    with pytest.raises(CompileError, match="the compiler is gone"):
        exe.run(main, feed=feed, fetch_list=[loss], scope=scope)
    assert len(_entries(tmp_path)) == 1  # the startup program's alone
    monkeypatch.setattr(c_plan, "load_library", real)
    got, = exe.run(main, feed=feed, fetch_list=[loss], scope=scope)
    assert np.isfinite(got).all() and len(_entries(tmp_path)) == 2


# -- concurrent levels ----------------------------------------------------------------------------
def _pairwise_levels(steps, graph) -> list[list[int]]:
    """The levels by the pairwise rule run_concurrently's indexes stand for."""
    levels: list[list[int]] = []
    for k in range(len(steps)):
        after = max((i for i, lv in enumerate(levels)
                     if any(graph.conflict(k, o) for o in lv)), default=-1)
        if after + 1 == len(levels):
            levels.append([])
        levels[after + 1].append(k)
    return levels


@pytest.mark.parametrize("seed", range(20))
def test_concurrent_levels_match_the_pairwise_rule(seed):
    rng = random.Random(seed)
    names = [f"v{i}" for i in range(8)]
    steps = []
    for _ in range(rng.randint(1, 30)):
        ins, outs = rng.sample(names, rng.randint(0, 3)), rng.sample(names, rng.randint(1, 2))
        steps.append(Kernel([], (4,), ins, outs))
    storage = {n: rng.choice(names) for n in rng.sample(names, 2)}
    storage = {k: v for k, v in storage.items() if k != v and storage.get(v, v) == v}
    graph = SchedulerGraph(steps, storage)
    got = run_concurrently(steps, graph)
    want = _pairwise_levels(steps, graph)
    assert [[id(k) for k in (s.parts if isinstance(s, Concurrent) else [s])] for s in got] == \
        [[id(steps[k]) for k in lv] for lv in want]


# -- prune: one backward sweep --------------------------------------------------------------------
def _graph_prune(ops, feeds, fetches, keep=(), target_ops=(), run=False):
    """Pruning as a walk over graph.build_graph's versioned dataflow graph (the oracle). Fed
    vars cut the walk in a pruned copy only: a run executes the ops writing them. A run that
    fetches nothing runs the whole program."""
    from fluidc.frontend.ops import get_op_def
    if run and not fetches:
        return list(ops)
    feeds = set() if run else set(feeds)
    from fluidc.passes.graph import build_graph, op_node, var_node
    g = build_graph(ops)
    final = g.graph["final_version"]
    targets = [var_node(n, final[n]) for n in set(fetches) | set(keep) if n in final]
    target_ops = list(target_ops) + ([i for i, op in enumerate(ops)
                                      if get_op_def(op.type).side_effect] if run else [])
    needed = {op_node(i) for i in target_ops}
    stack = targets + list(needed)
    while stack:
        node = stack.pop()
        for pred in g.predecessors(node):
            name = g.nodes[node].get("name")
            if pred in needed or (g.nodes[node]["kind"] == "var" and name in feeds
                                  and name not in g.nodes[pred]["desc"].input_arg_names):
                continue
            needed.add(pred)
            stack.append(pred)
    return [op for i, op in enumerate(ops) if op_node(i) in needed]


@pytest.mark.parametrize("seed", range(40))
def test_prune_matches_the_dataflow_graph_walk(seed):
    from fluidc.frontend.ops import OpDesc
    from fluidc.passes.prune import prune_ops
    rng = random.Random(seed)
    names = [f"v{i}" for i in range(7)]
    kinds = [("elementwise_add", ["X", "Y"], ["Out"]), ("relu", ["X"], ["Out"]),
             ("sgd", ["Param", "Grad", "LearningRate"], ["ParamOut"]), ("print", ["In"], ["Out"]),
             ("assign", ["X"], ["Out"])]
    ops = []
    for _ in range(rng.randint(1, 25)):
        kind, ins, outs = rng.choice(kinds)
        op = OpDesc(kind, {s: [rng.choice(names)] for s in ins},
                    {s: [rng.choice(names)] for s in outs})
        if kind == "sgd" and rng.random() < 0.7:
            op.outputs["ParamOut"] = list(op.inputs["Param"])  # in place, as optimizers run
        ops.append(op)
    args = dict(feeds=set(rng.sample(names, rng.randint(0, 2))),
                fetches=rng.sample(names, rng.randint(0, 2)),
                keep=set(rng.sample(names, rng.randint(0, 2))),
                target_ops=rng.sample(range(len(ops)), rng.randint(0, min(2, len(ops)))),
                run=rng.random() < 0.5)
    assert [id(o) for o in prune_ops(ops, **args)] == [id(o) for o in _graph_prune(ops, **args)]


# -- plans on disk --------------------------------------------------------------------------------
def _run_fresh(main, startup, loss, feeds) -> tuple[list, list]:
    exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
    exe.run(startup, scope=scope)
    out = [exe.run(main, feed=f, fetch_list=[loss], scope=scope)[0] for f in feeds]
    return out, _state(scope, main)


def _entries(d) -> list:
    return sorted(p.name for p in d.glob("p_*.pkl"))


def test_a_plan_is_found_on_disk_without_lowering(tmp_path, monkeypatch):
    monkeypatch.setenv("FLUIDC_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("FLUIDC_TIERED", "0")
    main, startup, loss = _regression(hidden=8)
    feeds = list(_batches(4))
    first = _run_fresh(main, startup, loss, feeds)
    assert len(_entries(tmp_path)) == 2  # the startup program's and the training program's
    import fluidc.runtime.executor as executor

    def no_lowering(*a, **k):
        raise AssertionError("lowered although the plan is on disk")
    monkeypatch.setattr(executor, "lowering", no_lowering)
    assert _same(*[sum(r, []) for r in (first, _run_fresh(main, startup, loss, feeds))])


def test_what_changes_a_plan_changes_its_key():
    main, startup, loss = _regression(hidden=8)
    block = main.global_block()
    feeds = {n: VarInfo((20,) + tuple(block.var(n).shape[1:]), block.var(n).dtype)
             for n in ("x", "y")}
    state = {n: v.info() for n, v in block.vars.items() if v.persistable}

    def key(program=main, feeds=feeds, fetches=(loss.name,), state=state, strategy=None,
            lods=None, values=None, batch=20):
        return plan_cache.plan_key(program, feeds, list(fetches), state, strategy, lods, values,
                                   batch)
    base = key()
    assert base == key() and len(base) == 32
    other_batch = {n: VarInfo((21,) + i.shape[1:], i.dtype) for n, i in feeds.items()}
    strategy = fluid.BuildStrategy()
    strategy.enable_inplace = False
    clone = main.clone()
    clone.global_block().ops[0].desc.attrs["use_mkldnn"] = True
    wider = {**state, "fc_0.w_0": VarInfo((13, 9), state["fc_0.w_0"].dtype)}
    keys = {base, key(feeds=other_batch), key(fetches=()), key(strategy=strategy),
            key(state=wider), key(lods={"x": ((0, 20),)}), key(values={"s": np.array([1, 2])}),
            key(batch=None), key(program=clone)}
    assert len(keys) == 9


def test_a_corrupt_or_foreign_entry_is_rebuilt_never_used(tmp_path, monkeypatch):
    monkeypatch.setenv("FLUIDC_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("FLUIDC_TIERED", "0")
    main, startup, loss = _regression()
    feeds = list(_batches(3))
    want = _run_fresh(main, startup, loss, feeds)
    entry = max(tmp_path.glob("p_*.pkl"), key=lambda p: p.stat().st_size)  # the training plan
    for damage in (lambda b: b[:len(b) // 2], lambda b: b"\0" * len(b),
                   lambda b: pickle.dumps(("not", "a plan"))):
        data = entry.read_bytes()
        entry.write_bytes(damage(data))
        if damage(data) == pickle.dumps(("not", "a plan")):  # a whole entry of another thing
            meta = json.loads(entry.with_suffix(".meta").read_text())
            import hashlib
            meta.update(size=len(damage(data)), sha256=hashlib.sha256(damage(data)).hexdigest())
            entry.with_suffix(".meta").write_text(json.dumps(meta))
        assert _same(*[sum(r, []) for r in (want, _run_fresh(main, startup, loss, feeds))])
        assert plan_cache.load_plan(entry.stem[2:], ["x", "y"], [loss.name]) is not None


def test_plan_entries_are_trimmed_with_the_kernels(tmp_path, monkeypatch):
    monkeypatch.setenv("FLUIDC_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("FLUIDC_TIERED", "0")
    main, startup, loss = _regression()
    _run_fresh(main, startup, loss, list(_batches(1)))
    assert _entries(tmp_path)
    compiler.trim_cache(tmp_path, limit=1)
    assert not _entries(tmp_path) and not list(tmp_path.glob("p_*.meta"))


# -- tier 0 ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("hidden,momentum", [(0, False), (8, True), (32, False)])
def test_tier0_matches_the_compiled_plan_bit_for_bit(hidden, momentum):
    """Run by run, tier 0 gives the compiled plan's fetches and updates exactly; a run it
    refuses (NotExact) takes the compiled plan's state, as TieredPlan's fallback does."""
    main, startup, loss = _regression(hidden, momentum)
    lp = lower_for_batch(main, ["x", "y"], [loss.name], 20)
    exe = fluid.Executor(fluid.CPUPlace())
    scopes = [fluid.Scope(), fluid.Scope()]
    for scope in scopes:
        exe.run(startup, scope=scope)
    first = Plan(lp, 3, module=tiered.NumpyModule(lp.steps, lp.infos, lp.storage))
    compiled = Plan(lp, 3)
    state = [n for n, v in main.global_block().vars.items() if v.persistable
             and scopes[0].find_var(n) is not None]
    exact = 0
    for f in _batches(30, seed=hidden):
        want = compiled.run(f, scopes[1])
        try:
            got = first.run(f, scopes[0])
        except tiered.NotExact:
            for n in state:
                scopes[0].find_var(n).get_tensor().set(
                    np.array(scopes[1].find_var(n).get_tensor()), fluid.CPUPlace())
            continue
        exact += 1
        assert _same(got + _state(scopes[0], main), want + _state(scopes[1], main))
    assert exact >= 15


def test_kernels_numpy_rounds_otherwise_are_not_tier0():
    main, _, loss = _deep(1)  # softmax: exp and log
    lp = lower_for_batch(main, ["x", "y"], [loss.name], 8)
    with pytest.raises(tiered.NotTierable):
        tiered.NumpyModule(lp.steps, lp.infos, lp.storage)


def test_an_order_dependent_sum_is_refused_at_run_time():
    f32 = np.dtype(np.float32)
    # 1 + 2**-24 is a tie in float32; 2**-80 decides it only if no partial sum drops it.
    tie = np.array([[1.0, 2.0 ** -24, 2.0 ** -80]], dtype=np.float32)
    with pytest.raises(tiered.NotExact):
        tiered._exact_sum(tie, (1,), f32)
    spread = np.array([[1e-30, 1e10, 1.0, -3.5]], dtype=np.float32)  # far from any boundary
    assert tiered._exact_sum(spread, (1,), f32).tolist() == [[np.float32(1e10 - 2.5)]]
    exact = np.array([[0.5, 1.25, -1.75, 0.0], [1.0, -1.0, 0.0, 0.0]], dtype=np.float32)
    assert tiered._exact_sum(exact, (1,), f32).tolist() == [[0.0], [0.0]]
    assert tiered._exact_sum(np.array([[1.0, np.inf]], f32), (1,), f32).tolist() == [[np.inf]]


def test_first_runs_do_not_wait_and_switch_between_runs(tmp_path, monkeypatch):
    """The first runs go on tier 0 while the library builds (held back here until the third
    run), then on the compiled plan: every result and update is the all-compiled one's."""
    monkeypatch.setenv("FLUIDC_CACHE_DIR", str(tmp_path / "a"))
    main, startup, loss = _regression(hidden=8, momentum=True)
    feeds = list(_batches(6))
    monkeypatch.setenv("FLUIDC_TIERED", "0")
    want = _run_fresh(main, startup, loss, feeds)
    monkeypatch.setenv("FLUIDC_TIERED", "1")
    monkeypatch.setenv("FLUIDC_CACHE_DIR", str(tmp_path / "b"))
    import threading
    gate = threading.Event()
    load = c_plan.CModule.load

    def held_load(self):
        gate.wait(60)
        return load(self)
    monkeypatch.setattr(c_plan.CModule, "load", held_load)
    monkeypatch.setattr(c_plan.CModule, "built", lambda self: False)  # loaded before
    exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
    gate.set()  # the startup program has no kernels: nothing to hold
    exe.run(startup, scope=scope)
    gate.clear()
    out = []
    for i, f in enumerate(feeds):
        out.append(exe.run(main, feed=f, fetch_list=[loss], scope=scope)[0])
        plan = next(p for p in exe._plans.values() if isinstance(p, tiered.TieredPlan))
        assert plan.ready == (i >= 3)
        if i == 2:
            gate.set()
            plan.compiled()
    assert _same(want[0] + want[1], out + _state(scope, main))


def test_a_run_tier0_cannot_make_exactly_waits_and_keeps_state(monkeypatch, tmp_path):
    monkeypatch.setenv("FLUIDC_CACHE_DIR", str(tmp_path / "a"))
    main, startup, loss = _regression(hidden=8)
    feeds = list(_batches(4))
    feeds[1]["x"][:5] *= 1e12  # the sums tier 0 is made to refuse below: values above 1e20
    monkeypatch.setenv("FLUIDC_TIERED", "0")
    want = _run_fresh(main, startup, loss, feeds)
    monkeypatch.setenv("FLUIDC_TIERED", "1")
    monkeypatch.setenv("FLUIDC_CACHE_DIR", str(tmp_path / "b"))
    import threading
    refused, gate = [], threading.Event()
    exact_sum, load = tiered._exact_sum, c_plan.CModule.load

    def counting(v, *a):
        if np.abs(v).max() > 1e20:  # as if the sum were too close to a rounding boundary
            refused.append(v)
            gate.set()  # the library is held back until tier 0 refuses a run
            raise tiered.NotExact("refused by the test")
        return exact_sum(v, *a)

    def held_load(self):
        if any(isinstance(s, str) for s in self.schedule):
            gate.wait(60)
        return load(self)
    monkeypatch.setattr(tiered, "_exact_sum", counting)
    monkeypatch.setattr(c_plan.CModule, "load", held_load)
    monkeypatch.setattr(c_plan.CModule, "built", lambda self: False)  # loaded before
    got = _run_fresh(main, startup, loss, feeds)
    assert refused
    assert _same(want[0] + want[1], got[0] + got[1])


def test_tier0_matches_the_compiled_plan_on_random_programs():
    """Random pointwise/reduction DAGs (test_random_programs' generator): wherever a program is
    tier 0 and its sums are exact, both tiers give the same bits."""
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st
    from test_random_programs import _feed, programs

    ran = []

    # About a quarter of the programs are tier 0 with exact sums (3 to 21 of 40 seen): 100
    # make too few unlikely.
    @settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(programs(), st.integers(0, 2**32 - 1))
    def check(prog, seed):
        program, spec, fetch = prog
        lp = lower_for_batch(program, list(spec), fetch, 1,
                             shapes={n: s[0] for n, s in spec.items()})
        try:
            first = Plan(lp, 0, module=tiered.NumpyModule(lp.steps, lp.infos, lp.storage))
        except tiered.NotTierable:
            return
        feed = _feed(spec, seed)
        scope = fluid.Scope()
        with np.errstate(all="ignore"):
            want = Plan(lp, 0).run(feed, scope)
            try:
                got = first.run(feed, scope)
            except tiered.NotExact:
                return
        ran.append(1)
        assert _same(got, want), program

    check()
    assert len(ran) >= 5, len(ran)  # enough programs were tier 0


def test_tier0_is_on_unless_turned_off(monkeypatch):
    monkeypatch.delenv("FLUIDC_TIERED", raising=False)
    assert tiered.enabled()
    for off in ("0", "false", "OFF"):
        monkeypatch.setenv("FLUIDC_TIERED", off)
        assert not tiered.enabled()
