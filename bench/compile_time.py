"""Compile time of training programs, and the first run of a small one.

- MLP training program (784-512-512-10, softmax cross-entropy, Adam): cold and warm, below;
- deep MLP (`deep_mlp`): N residual blocks of layer_norm, fc(64) + relu and an add, a softmax
  loss and Adam (50 blocks: 760 ops), batch 32, cold and warm at 10/25/50/100 blocks
  (targets at 50: cold < 1.5 s, warm < 0.1 s; growth should be linear in the blocks);
- first run of fit_a_line (fc(13 -> 1), square error, mean, SGD; batch 20) in a new process
  with an empty cache: the first exe.run against the steady step (target: at most
  2 x steady + 50 ms: it runs on tier 0 while the library compiles, runtime/tiered.py).

Each figure comes from a NEW Python process (subprocess), so nothing is cached in memory:
- cold: FLUIDC_CACHE_DIR is a fresh empty directory; the figure is the first exe.run of the
  training program minus what the second run costs (the compile, not the step);
- warm: another new process on the same cache dir (a cache hit), measured the same way.
The startup program's first run, the `import fluidc` time and the child's whole wall time are
recorded in each row's `detail`. torch.compile's first call of the same model's training step
(model compiled, fresh TORCHINDUCTOR_CACHE_DIR for cold, the same dir again for warm) is
measured the same way for comparison when torch.compile works; it is optional and slow.
"""
from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Optional

COLD_TARGET_S = 3.0
WARM_TARGET_S = 0.3
CHILD_TIMEOUT_S = 600
DEEP_BLOCKS = (10, 25, 50, 100)
DEEP_COLD_TARGET_S = 1.5  # at 50 blocks
DEEP_WARM_TARGET_S = 0.1
FIRST_RUN_SLACK_S = 0.05  # first run target: 2 x steady + this

_DEEP_CHILD = r"""
import json, sys, time
import numpy as np
import fluidc
from fluidc.bench.compile_time import deep_mlp
main, startup, loss = deep_mlp(int(sys.argv[1]))
exe, scope = fluidc.Executor(fluidc.CPUPlace()), fluidc.Scope()
exe.run(startup, scope=scope)
rng = np.random.default_rng(0)
feed = {"x": rng.standard_normal((32, 64), dtype=np.float32),
        "y": rng.integers(0, 10, (32, 1)).astype(np.int64)}
runs = []
for _ in range(4):
    t0 = time.perf_counter()
    exe.run(main, feed=feed, fetch_list=[loss], scope=scope)
    runs.append(time.perf_counter() - t0)
print("RESULT" + json.dumps({"runs_s": runs, "ops": len(main.global_block().ops)}))
"""

_FIRST_RUN_CHILD = r"""
import json, time
import numpy as np
import fluidc as fluid
main, startup = fluid.Program(), fluid.Program()
with fluid.program_guard(main, startup):
    x = fluid.data(name="x", shape=[-1, 13], dtype="float32")
    y = fluid.data(name="y", shape=[-1, 1], dtype="float32")
    loss = fluid.layers.mean(fluid.layers.square_error_cost(fluid.layers.fc(x, 1), y))
    fluid.optimizer.SGD(learning_rate=1e-3).minimize(loss)
exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
exe.run(startup, scope=scope)
rng = np.random.default_rng(0)
feed = {"x": rng.standard_normal((20, 13)).astype(np.float32),
        "y": rng.standard_normal((20, 1)).astype(np.float32)}
runs = []
t_end = time.perf_counter() + 3.0  # past the background compile: steady steps at the end
while time.perf_counter() < t_end or len(runs) < 200:
    t0 = time.perf_counter()
    exe.run(main, feed=feed, fetch_list=[loss], scope=scope)
    runs.append(time.perf_counter() - t0)
print("RESULT" + json.dumps({"runs_s": [runs[0]] + runs[-100:]}))
"""


def deep_mlp(blocks: int, width: int = 64):
    """The deep MLP training program: (main, startup, loss)."""
    import fluidc as fluid

    main, startup = fluid.Program(), fluid.Program()
    main.random_seed = startup.random_seed = 1
    with fluid.program_guard(main, startup):
        x = fluid.layers.data(name="x", shape=[width], dtype="float32")
        y = fluid.layers.data(name="y", shape=[1], dtype="int64")
        h = x
        for _ in range(blocks):
            z = fluid.layers.fc(fluid.layers.layer_norm(h, begin_norm_axis=1), width, act="relu")
            h = fluid.layers.elementwise_add(h, z)
        logits = fluid.layers.fc(h, 10)
        loss = fluid.layers.mean(fluid.layers.softmax_with_cross_entropy(logits, y))
        fluid.optimizer.Adam(learning_rate=1e-3).minimize(loss)
    return main, startup, loss

_FLUIDC_CHILD = r"""
import json, sys, time
t0 = time.perf_counter()
import fluidc
t_import = time.perf_counter() - t0
from fluidc.bench.mlp_train import FluidcMLP, synthetic_data, TRAIN_BATCH
x, y = synthetic_data(TRAIN_BATCH)
t0 = time.perf_counter()
f = FluidcMLP()  # builds main + startup, runs startup (its own compile) once
t_startup = time.perf_counter() - t0
runs = []
for _ in range(3):
    t0 = time.perf_counter()
    f.train_step(x, y)
    runs.append(time.perf_counter() - t0)
print("RESULT" + json.dumps({"import_s": t_import, "startup_s": t_startup, "runs_s": runs}))
"""

_TORCH_CHILD = r"""
import json, sys, time
import torch
torch.set_num_threads(int(sys.argv[1]))
from fluidc.bench.mlp_train import SIZES, TRAIN_BATCH, LR, synthetic_data
torch.manual_seed(0)
layers = []
for a, b in zip(SIZES[:-1], SIZES[1:]):
    layers += [torch.nn.Linear(a, b), torch.nn.ReLU()]
model = torch.compile(torch.nn.Sequential(*layers[:-1]))
opt = torch.optim.Adam(model.parameters(), lr=LR)
x, y = synthetic_data(TRAIN_BATCH)
xt, yt = torch.from_numpy(x), torch.from_numpy(y.reshape(-1))
runs = []
for _ in range(3):
    t0 = time.perf_counter()
    opt.zero_grad(set_to_none=True)
    loss = torch.nn.functional.cross_entropy(model(xt), yt)
    loss.backward()
    opt.step()
    loss.item()
    runs.append(time.perf_counter() - t0)
print("RESULT" + json.dumps({"runs_s": runs}))
"""


def _child(code: str, env: dict, args: tuple = ()) -> dict:
    t0 = time.perf_counter()
    r = subprocess.run([sys.executable, "-c", code, *args], env=env, capture_output=True,
                       text=True, timeout=CHILD_TIMEOUT_S, check=False)
    wall = time.perf_counter() - t0
    line = next((ln for ln in r.stdout.splitlines() if ln.startswith("RESULT")), None)
    if r.returncode != 0 or line is None:
        tail = (r.stderr or r.stdout).strip().splitlines()[-1:] or ["no output"]
        raise RuntimeError(f"child exited {r.returncode}: {tail[0][:200]}")
    out = json.loads(line[len("RESULT"):])
    runs = out["runs_s"]
    # The compile is what the first run costs beyond a steady run (the median of the later).
    out["compile_s"] = runs[0] - statistics.median(runs[1:])
    out["child_wall_s"] = wall
    return out


def _row(name: str, samples: list[dict], note: str) -> dict:
    s = [d["compile_s"] * 1e6 for d in samples]
    detail = {k: [round(d[k], 4) if isinstance(d[k], float) else d[k] for d in samples]
              for k in samples[0]} if samples else {}
    return {"bench": "compile MLP train program", "competitor": name,
            "median_us": statistics.median(s) if s else None, "min_us": min(s) if s else None,
            "max_us": max(s) if s else None, "repeat": len(s), "number": 1, "setup_s": 0.0,
            "note": note, "detail": detail}


def _fluidc_rows(repeat: int, verbose: bool) -> list[dict]:
    cold, warm = [], []
    base_env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    for i in range(repeat):
        with tempfile.TemporaryDirectory(prefix="fluidc_bench_cache_") as cache:
            env = {**base_env, "FLUIDC_CACHE_DIR": cache}
            cold.append(_child(_FLUIDC_CHILD, env))
            warm.append(_child(_FLUIDC_CHILD, env))
        if verbose:
            print(f"  [compile] fluidc round {i + 1}/{repeat}: cold {cold[-1]['compile_s']:.3f}s,"
                  f" warm {warm[-1]['compile_s']:.3f}s", flush=True)
    return [_row("fluidc cold", cold, f"new process, empty FLUIDC_CACHE_DIR; "
                                      f"target < {COLD_TARGET_S:g} s"),
            _row("fluidc warm", warm, f"new process, same cache dir; "
                                      f"target < {WARM_TARGET_S:g} s")]


def _deep_rows(repeat: int, verbose: bool) -> list[dict]:
    """Cold and warm compiles of the deep MLP at each size (a fresh cache dir per round)."""
    base_env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    rows = []
    for blocks in DEEP_BLOCKS:
        cold, warm = [], []
        for _ in range(repeat):
            with tempfile.TemporaryDirectory(prefix="fluidc_bench_cache_") as cache:
                env = {**base_env, "FLUIDC_CACHE_DIR": cache}
                cold.append(_child(_DEEP_CHILD, env, (str(blocks),)))
                warm.append(_child(_DEEP_CHILD, env, (str(blocks),)))
        ops = cold[0]["ops"]
        if verbose:
            print(f"  [compile] deep MLP {blocks} blocks ({ops} ops): cold "
                  f"{statistics.median(d['compile_s'] for d in cold):.3f}s, warm "
                  f"{statistics.median(d['compile_s'] for d in warm):.3f}s", flush=True)
        for name, samples, limit in (("cold", cold, DEEP_COLD_TARGET_S),
                                     ("warm", warm, DEEP_WARM_TARGET_S)):
            row = _row(f"fluidc {name} {blocks} blocks", samples,
                       f"deep MLP, {ops} ops, new process, {name} cache")
            row["bench"] = "compile deep MLP train program"
            if blocks == 50:
                row["targets"] = [{"target": f"deep MLP 50 blocks: {name} compile < {limit:g} s",
                                   "value": row["median_us"] / 1e6,
                                   "value_min": row["min_us"] / 1e6,
                                   "met": row["median_us"] / 1e6 < limit}]
            rows.append(row)
    return rows


def _first_run_rows(repeat: int, verbose: bool) -> list[dict]:
    """fit_a_line's first run in a new process with an empty cache, against its steady step."""
    samples = []
    for _ in range(repeat):
        with tempfile.TemporaryDirectory(prefix="fluidc_bench_cache_") as cache:
            env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "FLUIDC_CACHE_DIR": cache}
            d = _child(_FIRST_RUN_CHILD, env)
        d["first_s"], d["steady_s"] = d["runs_s"][0], statistics.median(d["runs_s"][1:])
        del d["runs_s"]
        samples.append(d)
    first = statistics.median(d["first_s"] for d in samples)
    steady = statistics.median(d["steady_s"] for d in samples)
    limit = 2 * steady + FIRST_RUN_SLACK_S
    if verbose:
        print(f"  [compile] fit_a_line first run {first * 1e3:.1f} ms, steady "
              f"{steady * 1e6:.0f} us (target < {limit * 1e3:.1f} ms)", flush=True)
    s = [d["first_s"] * 1e6 for d in samples]
    return [{"bench": "first run of fit_a_line", "competitor": "fluidc first run",
             "median_us": statistics.median(s), "min_us": min(s), "max_us": max(s),
             "repeat": len(s), "number": 1, "setup_s": 0.0,
             "note": f"new process, empty cache; steady step {steady * 1e6:.0f} us",
             "detail": {k: [round(d[k], 6) for d in samples] for k in samples[0]},
             "targets": [{"target": "fit_a_line first run < 2 x steady + 50 ms",
                          "value": first, "value_min": min(s) / 1e6, "met": first < limit}]}]


def _torch_rows(repeat: int, verbose: bool, threads: int) -> list[dict]:
    try:
        import torch  # noqa: F401
    except ImportError as e:
        return [_skipped("torch.compile cold", f"skipped: torch not importable ({e})")]
    cold, warm = [], []
    try:
        for i in range(repeat):
            with tempfile.TemporaryDirectory(prefix="torchinductor_bench_") as cache:
                env = {**os.environ, "TORCHINDUCTOR_CACHE_DIR": cache,
                       "TRITON_CACHE_DIR": os.path.join(cache, "triton")}
                cold.append(_child(_TORCH_CHILD, env, (str(threads),)))
                warm.append(_child(_TORCH_CHILD, env, (str(threads),)))
            if verbose:
                print(f"  [compile] torch.compile round {i + 1}/{repeat}: cold "
                      f"{cold[-1]['compile_s']:.2f}s, warm {warm[-1]['compile_s']:.2f}s",
                      flush=True)
    except (RuntimeError, subprocess.TimeoutExpired) as e:
        note = f"skipped: {str(e).splitlines()[0][:160]}"
        return [_skipped("torch.compile cold", note), _skipped("torch.compile warm", note)]
    return [_row("torch.compile cold", cold, "first train step, fresh inductor cache"),
            _row("torch.compile warm", warm, "first train step, same inductor cache")]


def _skipped(name: str, note: str) -> dict:
    return {"bench": "compile MLP train program", "competitor": name, "median_us": None,
            "min_us": None, "max_us": None, "repeat": 0, "number": 1, "setup_s": 0.0,
            "note": note}


def run(repeat: int | None = None, verbose: bool = True, with_torch: bool = True,
        threads: Optional[int] = None) -> list[dict]:
    """Cold and warm compile times: fluidc `repeat` process pairs, torch.compile one pair."""
    rows = _fluidc_rows(repeat or 3, verbose)
    if with_torch:
        rows += _torch_rows(1, verbose, threads or 2)  # one pair: it takes ~30 s
    base = rows[0] if rows[0]["median_us"] is not None else None
    for r in rows:
        ok = base is not None and r["median_us"] is not None
        r["ratio"] = r["median_us"] / base["median_us"] if ok else None
        r["ratio_min"] = r["min_us"] / base["min_us"] if ok else None
        r["ratio_to"] = base["competitor"] if base else None
    for r, limit in ((rows[0], COLD_TARGET_S), (rows[1], WARM_TARGET_S)):
        if r["median_us"] is not None:
            r["targets"] = [{"target": f"MLP train program: {r['competitor']} compile < "
                                       f"{limit:g} s", "value": r["median_us"] / 1e6,
                             "value_min": r["min_us"] / 1e6,
                             "met": r["median_us"] / 1e6 < limit}]
    return rows + _deep_rows(repeat or 3, verbose) + _first_run_rows(repeat or 3, verbose)
