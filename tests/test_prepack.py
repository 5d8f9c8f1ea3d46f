"""Weights packed once per binding (passes/prepack.py): an inference plan's products read their
weights packed when the plan is bound, and packed again after anything that may have written
them. Each result is checked against numpy over the scope's weights as they are then.
(Concurrent inference runs over packed weights: test_concurrency.py.)"""
import numpy as np
import pytest

import fluidc as fluid
import fluidc as paddle
from fluidc.runtime import plan as plan_module


def _net(sizes, transposed, dtype="float32", seed=3):
    """(main with SGD, startup, its for_test clone, logits, loss, layers): dense layers of
    `sizes` (relu between), layer i's weight stored [out, in] where transposed[i]."""
    main, startup = fluid.Program(), fluid.Program()
    main.random_seed = startup.random_seed = seed
    layers = []
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        x = paddle.static.data("x", [None, sizes[0]], dtype)
        label = paddle.static.data("label", [None, sizes[-1]], dtype)
        h = x
        for i, (k, n) in enumerate(zip(sizes, sizes[1:])):
            w = fluid.layers.create_parameter([n, k] if transposed[i] else [k, n], dtype,
                                              name=f"w{i}")
            b = fluid.layers.create_parameter([n], dtype, name=f"b{i}", is_bias=True)
            h = paddle.matmul(h, w, transpose_y=bool(transposed[i])) + b
            if i < len(sizes) - 2:
                h = paddle.nn.functional.relu(h)
            layers.append((f"w{i}", f"b{i}", bool(transposed[i])))
        loss = paddle.mean(paddle.square(h - label))
        test = main.clone(for_test=True)
        fluid.optimizer.SGD(0.05).minimize(loss)
    return main, startup, test, h, loss, layers


def _numpy_forward(scope, layers, xs):
    h = xs
    for i, (w, b, transposed) in enumerate(layers):
        wv = np.array(scope.find_var(w).get_tensor())
        h = h @ (wv.T if transposed else wv) + np.array(scope.find_var(b).get_tensor())
        if i < len(layers) - 1:
            h = np.maximum(h, 0)
    return h


@pytest.fixture
def pack_count(monkeypatch):
    """How many times plans have packed their weights."""
    count = [0]
    original = plan_module.Plan._pack

    def counted(self):
        count[0] += 1
        original(self)
    monkeypatch.setattr(plan_module.Plan, "_pack", counted)
    return count


def _check(exe, test, logits, scope, layers, xs, tol):
    got = exe.run(test, feed={"x": xs}, fetch_list=[logits], scope=scope)[0]
    want = _numpy_forward(scope, layers, xs)
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol * max(1.0, np.abs(want).max()))


@pytest.mark.parametrize("dtype,tol", [("float32", 3e-5), ("float64", 1e-12)])
@pytest.mark.parametrize("sizes,transposed", [
    ((1, 1, 1), (0, 1)), ((13, 65, 7), (0, 1)), ((70, 130, 33), (1, 0)),
    ((784, 512, 10), (0, 0)), ((64, 200, 48, 17), (1, 1, 0))])
def test_packed_products_match_numpy(sizes, transposed, dtype, tol, pack_count):
    """Tails everywhere (rows, panels, K blocks), weights stored as they are and transposed."""
    main, startup, test, logits, _, layers = _net(sizes, transposed, dtype)
    exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
    exe.run(startup, scope=scope)
    rng = np.random.default_rng(sum(sizes))
    for m in (1, 6, 37):
        _check(exe, test, logits, scope, layers, rng.normal(size=(m, sizes[0])).astype(dtype),
               tol)
    plan = next(p for p in exe._plans.values() if p.packed_weights)
    assert sorted(plan.packed_weights) == sorted(w for w, _, _ in layers)
    assert pack_count[0] <= 3  # once per batch size's plan, not per run


EVENTS = ("train", "set", "torch", "load", "run", "feed_other_scope_train")


def test_every_write_to_a_weight_between_runs_is_seen(tmp_path, pack_count):
    """Random sequences of what may change a weight between two inference runs: a training
    step (C kernels write the weights: no torch version), tensor.set (a new tensor), a torch
    write in place, load_persistables (copied in place), a training step on another scope,
    nothing. Every inference run agrees with numpy over the weights as they are."""
    main, startup, test, logits, loss, layers = _net((24, 40, 9), (0, 1))
    exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
    other = fluid.Scope()
    exe.run(startup, scope=scope)
    exe.run(startup, scope=other)
    rng = np.random.default_rng(0)
    xs = rng.normal(size=(16, 24)).astype("float32")
    feed = {"x": xs, "label": rng.normal(size=(16, 9)).astype("float32")}
    with fluid.scope_guard(scope):
        fluid.io.save_persistables(exe, str(tmp_path), main_program=main)
    _check(exe, test, logits, scope, layers, xs, 3e-5)
    for step in range(60):
        event = EVENTS[rng.integers(len(EVENTS))]
        w, b, _ = layers[rng.integers(len(layers))]
        before = pack_count[0]
        if event == "train":
            exe.run(main, feed=feed, fetch_list=[loss], scope=scope)
        elif event == "set":
            t = scope.find_var(w).get_tensor()
            t.set(np.array(t) * rng.uniform(0.5, 1.5), fluid.CPUPlace())
        elif event == "torch":
            scope.find_var(w).get_tensor().tensor.mul_(float(rng.uniform(0.5, 1.5)))
        elif event == "load":
            with fluid.scope_guard(scope):
                fluid.io.load_persistables(exe, str(tmp_path), main_program=main)
        elif event == "feed_other_scope_train":
            exe.run(main, feed=feed, fetch_list=[loss], scope=other)
        _check(exe, test, logits, scope, layers, xs, 3e-5)
        if event == "run":
            assert pack_count[0] == before, "packed again though nothing was written"


def test_a_plan_found_on_disk_packs_its_weights(tmp_path, monkeypatch, pack_count):
    monkeypatch.setenv("FLUIDC_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("FLUIDC_TIERED", "0")
    _, startup, test, logits, _, layers = _net((30, 50, 5), (0, 1))
    xs = np.random.default_rng(2).normal(size=(4, 30)).astype("float32")
    for _ in range(2):  # the second executor finds the plan on disk
        exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
        exe.run(startup, scope=scope)
        _check(exe, test, logits, scope, layers, xs, 3e-5)
    assert pack_count[0] == 2


def test_a_training_program_packs_nothing():
    """Its weights change every run: its products pack them as they read them."""
    main, startup, _, _, loss, _ = _net((20, 30, 4), (0, 1))
    exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
    exe.run(startup, scope=scope)
    rng = np.random.default_rng(4)
    exe.run(main, feed={"x": rng.normal(size=(8, 20)).astype("float32"),
                        "label": rng.normal(size=(8, 4)).astype("float32")},
            fetch_list=[loss], scope=scope)
    plan = next(p for p in exe._plans.values() if p.lowered.feeds)
    assert not plan.packed_weights
    assert not any(type(s).__name__ == "PackKernel" for s in plan.lowered.steps)
