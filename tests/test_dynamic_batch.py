"""A dynamic batch dimension: plans of one program at different batch sizes share one compiled
library (codegen/dynamic_batch.py), and every size computes what its own library computes.

Random programs (test_random_programs.py's generator, their batch-covering feeds declared -1)
run at many batch sizes through one executor, against the numpy reference executor and against
a library compiled for that size alone; views, in-place updates and arena reuse (Adam over
reshapes and transposes of the batch) and an MLP's training steps the same."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import fluidc as fluid
from fluidc.codegen import dynamic_batch
from fluidc.codegen.dynamic_batch import Line, fit_template, split

from op_harness import run_reference
from test_random_programs import TOL, programs

SIZES = [1, 2, 3, 7, 64, 1000, 2]
BATCH_EXPR = f"(int64_t)({dynamic_batch.BATCH})"


@pytest.fixture
def libraries(monkeypatch):
    """The sources of the C libraries loaded while the test runs (each compiled or found in a
    cache), with no template known from earlier tests."""
    sources = []
    real = dynamic_batch.load_c

    def recording(source, units=()):
        sources.append(source)
        return real(source, units)
    monkeypatch.setattr(dynamic_batch, "load_c", recording)
    monkeypatch.setattr(dynamic_batch, "_families", type(dynamic_batch._families)())
    return sources


# -- templates ---------------------------------------------------------------------------------
def test_ints_on_a_line_become_expressions_of_the_batch():
    a = "for (i = 0; i < 8; ++i) b[i*128 + 3] = x * (0x1.0000000000000p-3f);"
    b = "for (i = 0; i < 9; ++i) b[i*144 + 3] = x * (0x1.c71c720000000p-4f);"
    text, nums_a = split(a)
    assert split(b)[0] == text and nums_a == ("0", "8", "128", "3", "0x1.0000000000000p-3f")
    t = fit_template(text, (8, nums_a), (9, split(b)[1]))
    assert t.numbers[1] == Line(1, 0) and t.numbers[2] == Line(16, 0)
    assert t.numbers[4] == Line(1, 0, "recip", "f")
    assert "i < ((int64_t)(nb))" in t.source
    assert "((float)(1.0 / (double)((int64_t)(nb))))" in t.source
    for batch in (1, 2, 3, 7, 1000, 12345):
        rendered = a.replace("< 8", f"< {batch}").replace("128", str(16 * batch)).replace(
            "0x1.0000000000000p-3f", float(np.float32(1.0 / batch)).hex() + "f")
        assert t.matches(split(rendered)[1], batch)
        assert not t.matches(split(rendered)[1], batch + 1)
    # a number off the line, or a constant that changed, is no match
    assert not t.matches(("0", "10", "160", "3", "0x1.99999a0000000p-4f"), 11)
    assert not t.matches(("1", "10", "160", "3", "0x1.99999a0000000p-4f"), 10)


def test_no_template_where_a_number_is_no_line_of_the_batch():
    text, n1 = split("x[5] = 0x1.8p+1f;")
    assert fit_template(text, (2, n1), (4, split("x[6] = 0x1.8p+1f;")[1])) is None  # slope 1/2
    assert fit_template(text, (2, n1), (3, n1)) is None  # nothing depends on the batch
    assert fit_template(text, (2, n1), (3, split("x[5] = 0x1.9p+1f;")[1])) is None


@pytest.mark.parametrize("suffix,dtype", [("f", np.float32), ("", np.float64)])
def test_reciprocal_and_float_lines_match_c_rounding(suffix, dtype):
    """A float line's value at B is the one C computes: (T)(1.0 / (double)n)."""
    for kind, f in (("recip", lambda n: 1.0 / n), ("float", float)):
        line = Line(3, -1, kind, suffix)
        for batch in range(1, 2000, 7):
            n = 3 * batch - 1
            assert line.at(batch) == float(dtype(f(n)))


# -- programs at many batch sizes ----------------------------------------------------------------
def _declare_batch(program, batch_feeds):
    """Declare -1 the leading dim of the feeds that cover the batch dim."""
    block = program.global_block()
    for name in batch_feeds:
        block.var(name).desc.set_shape((-1, *block.var(name).shape[1:]))


def _feed_at(spec, batch_feeds, batch, seed):
    rng = np.random.default_rng(seed)
    out = {}
    for n, (shape, dtype, *scale) in spec.items():
        shape = (batch, *shape[1:]) if n in batch_feeds else shape
        out[n] = (rng.uniform(-3.0, 3.0, shape) * (scale[0] if scale else 1)).astype(dtype)
    return out


def _own_library(program, feed, fetch):
    """The fetches computed by a library compiled for this feed's sizes alone."""
    saved = dict(dynamic_batch._families)
    dynamic_batch._families.clear()
    try:
        with fluid.scope_guard(fluid.Scope()), np.errstate(all="ignore"):
            return fluid.Executor(fluid.CPUPlace()).run(program, feed=feed, fetch_list=fetch)
    finally:
        dynamic_batch._families.clear()
        dynamic_batch._families.update(saved)


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(programs(batched=True), st.integers(0, 2**32 - 1))
def test_one_library_serves_every_batch_size(prog, seed):
    program, spec, fetch, batch_feeds = prog
    _declare_batch(program, batch_feeds)
    exe = fluid.Executor(fluid.CPUPlace())
    scope = fluid.Scope()
    for i, batch in enumerate(SIZES):
        feed = _feed_at(spec, batch_feeds, batch, seed + i)
        with fluid.scope_guard(scope), np.errstate(all="ignore"):
            got = exe.run(program, feed=feed, fetch_list=fetch)
            want = run_reference(program, feed, fetch)
        own = _own_library(program, feed, fetch)
        rtol, atol = TOL["float32" if "float32" in str(program) else want[0].dtype.name]
        for name, g, w, o in zip(fetch, got, want, own):
            assert g.dtype == w.dtype and g.shape == w.shape, (name, batch, g.shape, w.shape)
            # absolute error relative to the result's scale: a sum over 1000 rows (x +
            # sum(x, 0)) cancels to small elements, rounded differently by each order
            finite = np.abs(w[np.isfinite(w)]) if w.dtype.kind == "f" else np.abs(w)
            scale = max(1.0, float(np.max(finite, initial=1.0)))
            np.testing.assert_allclose(g, w, rtol=rtol, atol=atol * scale, equal_nan=True,
                                       err_msg=f"{name} at batch {batch} of\n{program}")
            # Products vectorize differently at a known size; exp turns their last-bit
            # differences into relative ones (1 ulp of a logit near 10 is 1e-6 after exp).
            np.testing.assert_allclose(g, o, rtol=1e-5 if g.dtype == np.float32 else 1e-12,
                                       atol=0, equal_nan=True,
                                       err_msg=f"{name} at batch {batch}: shared vs own library")


def _mlp(act="relu"):
    main, start = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, start), fluid.unique_name.guard():
        x = fluid.data("x", [-1, 16], "float32")
        y = fluid.data("y", [-1, 1], "int64")
        h = fluid.layers.fc(x, 32, act=act)
        p = fluid.layers.fc(h, 10, act="softmax")
        loss = fluid.layers.mean(fluid.layers.cross_entropy(p, y))
        fluid.optimizer.SGD(0.1).minimize(loss)
    return main, start, loss


def _train(sizes, seed=0):
    """Losses and final weights of SGD steps at the given batch sizes, one executor."""
    main, start, loss = _mlp()
    main.random_seed = start.random_seed = 7
    rng = np.random.default_rng(seed)
    scope = fluid.Scope()
    exe = fluid.Executor(fluid.CPUPlace())
    losses = []
    with fluid.scope_guard(scope):
        exe.run(start)
        for b in sizes:
            feed = {"x": rng.standard_normal((b, 16)).astype("float32"),
                    "y": rng.integers(0, 10, (b, 1))}
            losses.append(exe.run(main, feed=feed, fetch_list=[loss])[0].item())
    weights = [np.array(scope.find_var(p.name).get_tensor())
               for p in main.global_block().all_parameters()]
    return losses, weights


def test_training_across_batch_sizes_compiles_a_few_libraries(libraries):
    sizes = [32, 33, 5, 17, 100, 31, 2, 64, 250, 3, 1, 7, 50, 99, 31]
    losses, weights = _train(sizes)
    shared, loads = len(set(libraries)), len(libraries)
    # the first size's own library and the template; sizes that cross a
    # codegen decision (a size-1 loop dropped, a loop parallel past its threshold) a few more
    assert shared <= 8, shared
    # the same steps, each size compiling its own library
    _equal_to_each_size_alone(_train, sizes, losses, weights)
    assert len(set(libraries[loads:])) == len(set(sizes))


def _equal_to_each_size_alone(train, batches, losses, weights) -> None:
    """train(batches) with every size compiling its own library gives these losses and
    weights."""
    dynamic_batch._families.clear()
    real = dynamic_batch.shared_source
    try:
        dynamic_batch.shared_source = lambda source, batch, key: None
        own_losses, own_weights = train(batches)
    finally:
        dynamic_batch.shared_source = real
    np.testing.assert_allclose(losses, own_losses, rtol=1e-6)
    for w, own in zip(weights, own_weights, strict=True):
        np.testing.assert_allclose(w, own, rtol=1e-5, atol=1e-7)


def test_a_plan_found_on_disk_keeps_its_family_and_later_sizes_share_a_template(
        libraries, tmp_path, monkeypatch):
    """A new process finding the first size's plan on disk loads it without splitting its
    source (the plan keeps its family), and a later size still fits a template from it:
    the same libraries, and the same losses and weights, as the process that compiled them."""
    monkeypatch.setenv("FLUIDC_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("FLUIDC_TIERED", "0")
    sizes = [8, 12, 20]
    cold = _train(sizes)
    cold_libraries = list(libraries)
    assert len(set(cold_libraries)) == 2 and BATCH_EXPR in cold_libraries[1]
    dynamic_batch._families.clear()  # a new process
    libraries.clear()
    splits = []
    real_split = dynamic_batch.split
    monkeypatch.setattr(dynamic_batch, "split", lambda source: splits.append(source)
                        or real_split(source))
    warm = _train(sizes)
    # The first size's plan came from disk: its source is split once, by the second size
    # fitting the template, not when it was loaded.
    assert splits[0] != cold_libraries[0] and splits.count(cold_libraries[0]) == 1
    assert libraries == cold_libraries
    np.testing.assert_array_equal(cold[0], warm[0])
    for a, b in zip(cold[1], warm[1], strict=True):
        np.testing.assert_array_equal(a, b)


def test_sizes_of_one_class_run_concurrently_with_their_own_batch():
    """Plans sharing a library keep their batch in their own table: threads running two
    sizes at once each get their own size's result."""
    import threading
    main, start = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, start):
        x = fluid.data("x", [-1, 300], "float32")
        out = fluid.layers.reduce_sum(fluid.layers.relu(x), dim=0)
    exe = fluid.Executor(fluid.CPUPlace())
    feeds = {b: np.random.default_rng(b).standard_normal((b, 300)).astype("float32")
             for b in (4, 5, 6, 9)}
    for b, v in feeds.items():
        exe.run(main, feed={"x": v}, fetch_list=[out])
    errors = []

    def worker(b):
        for _ in range(30):
            got = exe.run(main, feed={"x": feeds[b]}, fetch_list=[out])[0]
            if not np.allclose(got, np.maximum(feeds[b], 0).sum(0), rtol=1e-5):
                errors.append(b)
    threads = [threading.Thread(target=worker, args=(b,)) for b in feeds]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors


def _views_program():
    """Views (reshape2, unsqueeze/squeeze), a transpose moving the batch dim inward, reductions
    over the batch (mean, bias grads) and in-place optimizer updates, trained with Adam."""
    main, start = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, start):
        x = fluid.data("x", [-1, 4, 6], "float32")
        flat = fluid.layers.reshape(x, [-1, 24])
        h = fluid.layers.fc(flat, 8, act="tanh")
        cube = fluid.layers.reshape(h, [-1, 2, 4])
        t = fluid.layers.transpose(cube, [2, 1, 0])  # [4, 2, B]: the batch innermost
        s = fluid.layers.softmax(t, axis=-1)  # a row over the batch
        u = fluid.layers.squeeze(fluid.layers.unsqueeze(s, [0]), [0])
        back = fluid.layers.transpose(u, [2, 1, 0])
        loss = fluid.layers.reduce_mean(fluid.layers.square(back - cube)) + \
            fluid.layers.mean(h)
        fluid.optimizer.Adam(0.01).minimize(loss)
    return main, start, loss, [loss.name, s.name, h.name]


@pytest.mark.parametrize("memory_optimize", [True, False])
def test_views_in_place_and_arena_reuse_at_every_size(memory_optimize, libraries):
    main, start, loss, fetch = _views_program()
    main.random_seed = start.random_seed = 3
    build = fluid.BuildStrategy()
    build.memory_optimize = build.enable_inplace = memory_optimize
    compiled = fluid.CompiledProgram(main, build_strategy=build)
    rng = np.random.default_rng(0)
    scope = fluid.Scope()
    exe = fluid.Executor(fluid.CPUPlace())
    with fluid.scope_guard(scope):
        exe.run(start)
    params = [p.name for p in main.global_block().all_parameters()]
    sizes = [1, 2, 3, 7, 64, 1000, 5, 3]
    for b in sizes:
        feed = {"x": rng.standard_normal((b, 4, 6)).astype("float32")}
        before = {n: np.array(scope.find_var(n).get_tensor()) for n in params}
        ref_scope = fluid.Scope()
        for n, v in before.items():
            ref_scope.var(n).get_tensor().set(v.copy(), fluid.CPUPlace())
        # Adam's moments and beta powers: the reference gets the same state
        for n, v in main.global_block().vars.items():
            if v.persistable and n not in before and scope.find_var(n) is not None:
                t = scope.find_var(n).get_tensor()
                if np.array(t).size:
                    ref_scope.var(n).get_tensor().set(np.array(t).copy(), fluid.CPUPlace())
        want = run_reference(main, feed, fetch, ref_scope)
        with fluid.scope_guard(scope):
            got = exe.run(compiled, feed=feed, fetch_list=fetch)
        for name, g, w in zip(fetch, got, want):
            np.testing.assert_allclose(g, w, rtol=2e-4, atol=1e-5, err_msg=f"{name} at {b}")
        for n in params:
            np.testing.assert_allclose(np.array(scope.find_var(n).get_tensor()),
                                       np.array(ref_scope.find_var(n).get_tensor()),
                                       rtol=2e-4, atol=1e-6, err_msg=f"{n} at {b}")
    assert len(set(libraries)) <= 4, len(set(libraries))  # 7 sizes: most share a template


def test_a_square_of_the_batch_is_served_right_and_templates_stay_bounded(libraries):
    """x @ x^T is [B, B]: its sizes are no line of B, so templates fitted from two sizes serve
    no third; every size is still exact, and the family stops fitting after a few."""
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        x = fluid.data("x", [-1, 5], "float64")
        out = fluid.layers.relu(fluid.layers.matmul(x, x, transpose_y=True))
    exe = fluid.Executor(fluid.CPUPlace())
    sizes = list(range(2, 40))
    for b in sizes:
        v = np.random.default_rng(b).standard_normal((b, 5))
        got, = exe.run(main, feed={"x": v}, fetch_list=[out])
        np.testing.assert_allclose(got, np.maximum(v @ v.T, 0), rtol=1e-12, err_msg=str(b))
    assert len(set(libraries)) <= len(sizes) + dynamic_batch._MAX_TEMPLATES


def _train_sequences(batches):
    """SGD steps of an embedding + fc + sequence_pool classifier over LoD batches of word ids:
    the losses and the final weights."""
    main, startup = fluid.Program(), fluid.Program()
    main.random_seed = startup.random_seed = 5
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        words = fluid.layers.data(name="words", shape=[1], dtype="int64", lod_level=1)
        label = fluid.layers.data(name="label", shape=[1], dtype="int64")
        emb = fluid.layers.embedding(input=words, size=[50, 16])
        hidden = fluid.layers.fc(input=emb, size=24, act="tanh")
        pooled = fluid.layers.sequence_pool(input=hidden, pool_type="max")
        predict = fluid.layers.fc(input=pooled, size=3, act="softmax")
        loss = fluid.layers.mean(fluid.layers.cross_entropy(input=predict, label=label))
        fluid.optimizer.SGD(learning_rate=0.5).minimize(loss)
    exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
    exe.run(startup, scope=scope)
    losses = []
    for lengths in batches:
        rng = np.random.default_rng(sum(lengths))
        ids = rng.integers(0, 50, (sum(lengths), 1)).astype("int64")
        feed = {"words": fluid.create_lod_tensor(ids, [lengths], fluid.CPUPlace()),
                "label": rng.integers(0, 3, (len(lengths), 1)).astype("int64")}
        out, = exe.run(main, feed=feed, fetch_list=[loss], scope=scope)
        losses.append(float(np.asarray(out).reshape(-1)[0]))
    weights = [np.array(scope.find_var(p.name).get_tensor())
               for p in main.global_block().all_parameters()]
    return losses, weights


def test_batches_of_sequences_share_a_library_across_row_counts(libraries):
    """Word-id batches with a LoD: the row count changes every batch while the sequence count
    stays (the label's leading dim), so the rows are the batch tried; the last, shorter batch
    of an epoch differs in the sequence count too and compiles its own."""
    rng = np.random.default_rng(0)
    batches = [list(rng.integers(1, 12, 8)) for _ in range(7)] + [[3, 9, 4]]
    rows = {sum(lengths) for lengths in batches}
    losses, weights = _train_sequences(batches)
    shared, loads = len(set(libraries)), len(libraries)
    # the first row count's own library, the template, the last batch's own
    assert shared <= 4, shared
    _equal_to_each_size_alone(_train_sequences, batches, losses, weights)
    assert len(set(libraries[loads:])) == len(rows) > shared  # one per row count alone
