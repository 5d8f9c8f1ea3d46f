"""Products generated or left to the library by measurement (codegen/product_choice.py): the
choice is honoured by plans, kept in the cache, re-measured when the file is bad, pinned by
FLUIDC_PRODUCTS; either choice gives the reference executor's numbers."""
import json
import tempfile

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import fluidc as fluid
from fluidc.codegen import product_choice
from fluidc.passes.fuse import Extern, MatmulKernel
from fluidc.passes.matmul import ProductShape
from op_harness import run_reference
from test_random_aliasing import STRATEGIES, _run_training, training_programs


@pytest.fixture
def measured(monkeypatch, tmp_path):
    """Measured mode over an empty cache of this test's own, small products measured too."""
    monkeypatch.setenv("FLUIDC_PRODUCTS", "measured")
    monkeypatch.setenv("FLUIDC_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(product_choice, "MEASURE_MIN_FMAS", 1)
    monkeypatch.setattr(product_choice, "_known", {})
    return tmp_path


def _fake_times(monkeypatch, library_faster: set):
    """measure() reporting the library faster for the shapes (m, n, k) in `library_faster`;
    returns the list of shape lists it was asked to measure."""
    asked = []

    def measure(shapes):
        asked.append(list(shapes))
        return {product_choice._name(s): {
            "generated_s": 1.0, "library_s": 0.5 if (s.m, s.n, s.k) in library_faster else 2.0,
            "generated": (s.m, s.n, s.k) not in library_faster} for s in shapes}
    monkeypatch.setattr(product_choice, "measure", measure)
    return asked


def _two_layers(rng):
    """x [32, 48] -> fc 40 (relu) -> fc 24 (tanh): products 32x48x40 and 32x40x24."""
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = fluid.data("x", [32, 48], "float32")
        h = fluid.layers.fc(x, 40, act="relu")
        out = fluid.layers.fc(h, 24, act="tanh")
    exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
    exe.run(startup, scope=scope)
    feed = {"x": rng.normal(size=(32, 48)).astype("float32")}
    got, = exe.run(main, feed=feed, fetch_list=[out], scope=scope)
    plan = list(exe._plans.values())[-1]
    want, = run_reference(main, feed, [out.name], scope)
    return got, want, plan.lowered.steps


def _generated_shapes(steps):
    return sorted((s.shape[0], s.shape[1]) for s in steps if isinstance(s, MatmulKernel))


def test_plans_generate_the_products_measured_faster(measured, monkeypatch, rng):
    asked = _fake_times(monkeypatch, library_faster={(32, 40, 48)})  # (rows: a power of 2)
    got, want, steps = _two_layers(rng)
    assert _generated_shapes(steps) == [(32, 24)]  # the second layer's product
    assert [s.op.type for s in steps if isinstance(s, Extern)] == ["mul_bias"]
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    assert sorted((s.m, s.n, s.k) for s in asked[0]) == [(32, 24, 40), (32, 40, 48)]
    # Kept on disk: another process (a fresh view of the file) measures nothing.
    monkeypatch.setattr(product_choice, "_known", {})
    _fake_times(monkeypatch, library_faster=set())  # would now choose differently
    shapes = {ProductShape(32, 40, 48, False, "float32"), ProductShape(32, 24, 40, False, "float32")}
    assert product_choice.choose_products(shapes) == {ProductShape(32, 24, 40, False, "float32")}


@pytest.mark.parametrize("content", ["", "{not json", '{"format": 1, "products": []}',
                                     '{"format": 99, "products": {}}', "\x00\xff" * 10,
                                     '{"format": 1, "products": {"float32 32x48 @ [k,n] n=40":'
                                     ' {"generated": "yes"}}}'])
def test_an_unreadable_choice_file_is_measured_again_and_replaced(measured, monkeypatch,
                                                                   content):
    shape = ProductShape(32, 40, 48, False, "float32")
    path = product_choice._path()
    path.write_bytes(content.encode("latin-1"))
    asked = _fake_times(monkeypatch, library_faster={(32, 40, 48)})
    assert product_choice.choose_products({shape}) == set()
    assert len(asked) == 1
    data = json.loads(path.read_text())
    assert data["products"][product_choice._name(shape)]["generated"] is False


def test_an_unsteady_measurement_serves_only_its_process(measured, monkeypatch):
    """Samples taken while other work held the cores are not kept: the next process measures
    again (and keeps what it measures steadily)."""
    busy, calm = ProductShape(32, 40, 48, False, "float32"), ProductShape(32, 24, 40, False,
                                                                            "float32")
    asked = []

    def measure(shapes):
        asked.append(sorted((s.m, s.n, s.k) for s in shapes))
        return {product_choice._name(s): {"generated_s": 1.0, "library_s": 0.5,
                                          "generated": False, "steady": s is not busy
                                          and (s.m, s.n, s.k) != (32, 40, 48)}
                for s in shapes}
    monkeypatch.setattr(product_choice, "measure", measure)
    assert product_choice.choose_products({busy, calm}) == set()
    assert product_choice.choose_products({busy, calm}) == set() and len(asked) == 1
    assert list(json.loads(product_choice._path().read_text())["products"]) == [
        product_choice._name(calm)]
    monkeypatch.setattr(product_choice, "_known", {})  # another process
    assert product_choice.choose_products({busy, calm}) == set()
    assert asked == [[(32, 24, 40), (32, 40, 48)], [(32, 40, 48)]]


@pytest.mark.parametrize("first,steady", [([1, 1, 1.2], True), ([1, 9, 9], False),
                                          ([9, 1, 1.2], True)])
def test_samples_are_steady_when_each_median_is_near_its_best(monkeypatch, first, steady):
    """The first function's three samples as given, the second's all 1 (perf_counter faked:
    two readings a sample, after two calibrating readings per function)."""
    readings = [0, 1, 0, 1] + [r for t in first for r in (0, t, 0, 1)]
    clock = iter(readings)
    monkeypatch.setattr(product_choice, "ROUNDS", 3)
    monkeypatch.setattr(product_choice, "SAMPLE_SECONDS", 1e-9)
    monkeypatch.setattr(product_choice.time, "perf_counter", lambda: next(clock))
    assert product_choice._best_of(lambda: None, lambda: None) == ([1, 1], steady)


def test_a_real_measurement_keeps_times_and_a_choice(measured):
    shapes = {ProductShape(64, 48, 32, False, "float32"), ProductShape(64, 48, 32, True, "float64")}
    chosen = product_choice.choose_products(shapes)
    data = json.loads(product_choice._path().read_text())["products"]
    for s in shapes:
        entry = data.get(product_choice._name(s)) or product_choice._known[
            str(product_choice._path())][product_choice._name(s)]  # (unsteady: not on disk)
        assert entry["generated_s"] > 0 and entry["library_s"] > 0
        assert isinstance(entry["steady"], bool)
        assert entry["generated"] == (entry["generated_s"]
                                      <= entry["library_s"] * product_choice.LIBRARY_MARGIN)
        assert (s in chosen) == entry["generated"]


def test_choices_are_measured_and_kept_per_row_bucket(measured, monkeypatch):
    """Rows rounded up to a power of two, at most MEASURE_MAX_ROWS: 10^9 rows (32 GB of X)
    are timed on 4096; every batch size of a served model measures a few shapes."""
    asked = _fake_times(monkeypatch, library_faster={(4096, 16, 8)})
    tall = ProductShape(10**9, 16, 8, False, "float32")
    rows = {ProductShape(m, 16, 8, False, "float32") for m in (300, 400, 511, 512, 513, 1000)}
    assert product_choice.choose_products(rows | {tall}) == rows
    assert sorted(s.m for s in asked[0]) == [512, 1024, 4096]
    assert product_choice.choose_products({ProductShape(3000, 16, 8, False, "float32")}) == set()
    assert len(asked) == 1
    real = product_choice.measure([product_choice.measured_shape(tall)])
    assert list(real) == [product_choice._name(ProductShape(4096, 16, 8, False, "float32"))]


def test_a_weight_gradient_is_measured_per_bucket_of_its_summed_rows(measured, monkeypatch):
    """X^T @ dOut (x_transposed: X [k, m]) sums over the batch's rows, its k: k is rounded,
    m kept; the real measurement times the transposed product and names it apart."""
    asked = _fake_times(monkeypatch, library_faster={(128, 256, 2048)})
    grads = {ProductShape(128, 256, k, False, "float32", True) for k in (1500, 2000, 2048)}
    assert product_choice.choose_products(grads) == set()
    assert [(s.m, s.k, s.x_transposed) for s in asked[0]] == [(128, 2048, True)]
    plain = ProductShape(128, 256, 2048, False, "float32")
    assert product_choice._name(plain) != product_choice._name(next(iter(grads)))
    real = product_choice.measure([ProductShape(128, 256, 2048, False, "float32", True)])
    entry, = real.values()
    assert entry["generated_s"] > 0 and entry["library_s"] > 0


def test_a_batched_product_is_measured_per_bucket_of_its_matrices(measured, monkeypatch):
    """Attention's products (32 heads x batch of [128, 64] @ [64, 128]^T): their count of
    matrices, which follows the batch size, is rounded, the matrices' shape kept; counted
    with the matrices, they are measured (each alone would be under MEASURE_MIN_FMAS); the
    real measurement times the batched product (a name of its own)."""
    asked = _fake_times(monkeypatch, library_faster=set())
    heads = {ProductShape(128, 128, 64, True, "float32", False, b) for b in (24, 28, 32)}
    assert product_choice.choose_products(heads) == heads
    assert [(s.batch, s.m, s.n, s.k) for s in asked[0]] == [(32, 128, 128, 64)]
    one = ProductShape(128, 128, 64, True, "float32")
    assert product_choice._name(one) != product_choice._name(next(iter(heads)))
    real = product_choice.measure([ProductShape(64, 32, 48, True, "float64", True, 5)])
    entry, = real.values()
    assert entry["generated_s"] > 0 and entry["library_s"] > 0


def test_small_products_are_generated_unmeasured(monkeypatch, tmp_path):
    monkeypatch.setenv("FLUIDC_PRODUCTS", "measured")
    monkeypatch.setenv("FLUIDC_CACHE_DIR", str(tmp_path))
    asked = _fake_times(monkeypatch, library_faster={(8, 8, 8)})
    small = ProductShape(8, 8, 8, False, "float32")
    assert product_choice.choose_products({small}) == {small}
    assert asked == [] and not list(tmp_path.iterdir())


@pytest.mark.parametrize("mode,shapes", [("generated", [(32, 24), (32, 40)]),
                                         ("library", [])])
def test_the_env_pins_the_choice(monkeypatch, tmp_path, rng, mode, shapes):
    monkeypatch.setenv("FLUIDC_PRODUCTS", mode)
    monkeypatch.setenv("FLUIDC_CACHE_DIR", str(tmp_path))
    asked = _fake_times(monkeypatch, library_faster={(32, 40, 48)})
    got, want, steps = _two_layers(rng)
    assert _generated_shapes(steps) == shapes and asked == []
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_a_pinned_choice_is_not_served_a_plan_cached_under_another(monkeypatch, tmp_path,
                                                                   rng):
    """Plans found on disk were lowered under the same FLUIDC_PRODUCTS."""
    monkeypatch.setenv("FLUIDC_CACHE_DIR", str(tmp_path))
    for mode, shapes in [("library", []), ("generated", [(32, 24), (32, 40)]), ("library", [])]:
        monkeypatch.setenv("FLUIDC_PRODUCTS", mode)
        assert _generated_shapes(_two_layers(rng)[2]) == shapes


def test_a_bad_mode_is_named(monkeypatch):
    monkeypatch.setenv("FLUIDC_PRODUCTS", "fastest")
    with pytest.raises(ValueError, match="FLUIDC_PRODUCTS must be one of measured, generated, "
                                         "library, got 'fastest'"):
        product_choice.choose_products({ProductShape(1, 1, 1, False, "float32")})


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(training_programs(), st.integers(0, 2**31))
def test_random_mixes_of_generated_and_library_products_agree_with_reference(prog, seed):
    """Training programs whose products are generated or library calls at random (each shape
    its own draw), every strategy, against the reference executor's loss and gradients."""
    rng = np.random.default_rng(seed)

    def measure(shapes):
        return {product_choice._name(s): {"generated_s": 1.0, "library_s": 1.0,
                                          "generated": bool(rng.integers(2))} for s in shapes}
    with pytest.MonkeyPatch.context() as mp, tempfile.TemporaryDirectory() as cache:
        mp.setenv("FLUIDC_PRODUCTS", "measured")
        mp.setenv("FLUIDC_CACHE_DIR", cache)
        mp.setattr(product_choice, "MEASURE_MIN_FMAS", 1)
        mp.setattr(product_choice, "_known", {})
        mp.setattr(product_choice, "measure", measure)
        _run_training(prog, seed, [fluid.CPUPlace()], STRATEGIES[:2])
