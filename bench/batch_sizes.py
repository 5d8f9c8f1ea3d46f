"""Many batch sizes, one library: the MLP of mlp_train.py run at every batch size 1..N.

- sweep: the inference program (batch dim -1) run once at each size 1..N (N=2000 by default,
  sizes in a shuffled order, one executor, a fresh kernel cache directory): the C libraries
  compiled, the plans built, and the first run of a new size (plan built + one step), median
  over sizes; then the same for the first 20 sizes of that order with every size compiling
  its own library (the behaviour without codegen/dynamic_batch.py), for comparison.
- step: the Adam training step at batch 256 and inference at batch 64 on the library shared
  with other sizes (a template: sizes in a variable) against the library compiled for that
  size alone, interleaved as every bench's competitors are.

    python bench/run.py batches [--repeat N]        (BATCH_SIZES=N sets the sweep's N)
"""
from __future__ import annotations

import contextlib
import gc
import os
import statistics
import tempfile
import time

import numpy as np

from .harness import Competitor, run_bench
from .mlp_train import INFER_BATCH, TRAIN_BATCH, FluidcMLP, synthetic_data

SWEEP_SIZES = int(os.environ.get("BATCH_SIZES", "2000"))
OWN_SIZES = 20


@contextlib.contextmanager
def _env(**values: str):
    """Environment variables set for the block, restored after."""
    old = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def _sweep(sizes: list[int], shared: bool) -> dict:
    """First runs of the inference program at `sizes` with an empty kernel cache."""
    from fluidc.codegen import compiler, dynamic_batch

    builds = [0]
    real_build, real_shared = compiler._build, dynamic_batch.shared_source

    def counting(*args, **kwargs):
        builds[0] += 1
        return real_build(*args, **kwargs)
    gc.collect()  # no library of an earlier sweep's plans is still loaded
    compiler._build = counting
    if not shared:
        dynamic_batch.shared_source = lambda source, batch, key: None
    dynamic_batch._families.clear()
    firsts = []
    try:
        with tempfile.TemporaryDirectory(prefix="fluidc-batches-") as d, \
                _env(FLUIDC_CACHE_DIR=d):
            mlp = FluidcMLP()
            builds[0] = 0  # the startup program's
            x, _ = synthetic_data(max(sizes))
            for b in sizes:
                t0 = time.perf_counter()
                mlp.infer(x[:b])
                firsts.append(time.perf_counter() - t0)
    finally:
        compiler._build, dynamic_batch.shared_source = real_build, real_shared
    return {"sizes": len(sizes), "libraries_compiled": builds[0],
            "first_run_median_ms": 1e3 * statistics.median(firsts),
            "total_s": sum(firsts)}


def _mlp_on(shared: bool, first: int | None) -> FluidcMLP:
    """An MLP whose plans use a template library (run first at batch `first`, so the timed
    size fits a template from it) or a library of their own (no template known)."""
    from fluidc.codegen import dynamic_batch

    dynamic_batch._families.clear()
    mlp = FluidcMLP()
    if shared:
        x, y = synthetic_data(first)
        mlp.train_step(x, y)
        mlp.infer(x)
    return mlp


def _step_competitors() -> list[Competitor]:
    x, y = synthetic_data(TRAIN_BATCH)
    xi, _ = synthetic_data(INFER_BATCH)

    def train(shared: bool):
        def setup():
            mlp = _mlp_on(shared, TRAIN_BATCH - 1)
            return lambda: mlp.train_step(x, y)
        return setup

    def infer(shared: bool):
        def setup():
            mlp = _mlp_on(shared, INFER_BATCH - 1)
            return lambda: mlp.infer(xi)
        return setup
    return [Competitor(f"train {TRAIN_BATCH}: own library", train(False)),
            Competitor(f"train {TRAIN_BATCH}: shared library", train(True)),
            Competitor(f"infer {INFER_BATCH}: own library", infer(False)),
            Competitor(f"infer {INFER_BATCH}: shared library", infer(True))]


def run(repeat: int | None, verbose: bool) -> list[dict]:
    # Every first run waits for its library (no tier 0 meanwhile): compiles are what is counted.
    with _env(FLUIDC_TIERED="0"):
        return _run(repeat, verbose)


def _run(repeat: int | None, verbose: bool) -> list[dict]:
    order = list(np.random.default_rng(0).permutation(np.arange(1, SWEEP_SIZES + 1)))
    order = [int(b) for b in order]
    rows = []
    for shared, sizes in ((True, order), (False, order[:OWN_SIZES])):
        r = _sweep(sizes, shared)
        name = "shared libraries" if shared else "a library per size"
        note = (f"{r['sizes']} sizes: {r['libraries_compiled']} libraries compiled, "
                f"{r['total_s']:.1f} s in all")
        if verbose:
            print(f"  [batches] {name}: {note}, first run of a size median "
                  f"{r['first_run_median_ms']:.1f} ms", flush=True)
        rows.append({"bench": "batches: first run of a new size", "competitor": name,
                     "median_us": 1e3 * r["first_run_median_ms"], "min_us": None,
                     "max_us": None, "repeat": r["sizes"], "number": 1, "note": note,
                     **{k: v for k, v in r.items() if k != "first_run_median_ms"}})
    base = rows[0]["median_us"]
    for row in rows:
        row["ratio"], row["ratio_min"], row["ratio_to"] = row["median_us"] / base, None, \
            rows[0]["competitor"]
    for comps in (_step_competitors()[:2], _step_competitors()[2:]):
        rows += run_bench("batches: step", comps, repeat=repeat or 30, verbose=verbose)
    return rows
