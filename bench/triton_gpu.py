"""GPU kernels: fluidc's Triton backend, fused vs unfused, against torch eager and torch.compile.

    python bench/triton_gpu.py            # on a machine with a CUDA GPU
    python bench/triton_gpu.py --small    # smoke test: tiny shapes; without a GPU it runs the
                                          # Triton interpreter on the CPU (TRITON_INTERPRET=1)

Workloads (float32): the 7-op chain out = tanh(relu(x*0.5 + y) - 1.0) * x + 2.0 on 16M floats;
softmax over the last axis of [4096, 1024]; a layer-norm-like row normalization
(x - mean) / sqrt(var + 1e-5) over [4096, 1024], written with reduce_mean so fusion has to
find it. fluidc rows time the compiled plan's launches on device-resident buffers (the
kernels, not exe.run's host<->device copies of feeds and fetches). Every competitor is checked
against torch eager once before timing.

Timing: CUDA events around `number` back-to-back calls per sample (perf_counter and no events
on the CPU), samples taken round-robin across a workload's competitors; the table reports the
median, min and max per call. GB/s = the workload's ideal bytes (inputs read once, output
written once) / median time; `of copy` relates that to the device copy bandwidth measured in
the same run (torch clone of a 256 MiB tensor: read + write).
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

if __name__ == "__main__" and not __package__:  # run as a script: `bench` as a package
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    __package__ = "bench"
    import bench  # noqa: F401

N_CHAIN = 16 * 1024 * 1024
ROWS, COLS = 4096, 1024
EPS = 1e-5
COPY_BYTES = 256 << 20


@dataclass
class Workload:
    """One benchmark: input shapes, the fluidc program body, and torch's version of it."""

    name: str
    shapes: dict[str, tuple[int, ...]]
    fluid_build: Callable   # (fluid, {name: var}) -> output var
    torch_fn: Callable      # (**tensors) -> tensor

    def nbytes(self) -> int:
        """Ideal traffic: every input read once and the output (shaped like `x`) written once."""
        n = sum(_numel(s) for s in self.shapes.values()) + _numel(self.shapes["x"])
        return 4 * n


def _numel(shape) -> int:
    out = 1
    for d in shape:
        out *= d
    return out


def _chain_fluid(fluid, v):
    x, L = v["x"], fluid.layers  # scale, add, relu, scale, tanh, mul, scale: 7 ops
    return L.tanh(L.relu(x * 0.5 + v["y"]) - 1.0) * x + 2.0


def _chain_torch(x, y):
    import torch
    return torch.tanh(torch.relu(x * 0.5 + y) - 1.0) * x + 2.0


def _layer_norm_fluid(fluid, v):
    L = fluid.layers
    x = v["x"]
    d = L.elementwise_sub(x, L.reduce_mean(x, dim=[-1], keep_dim=True))
    var = L.reduce_mean(L.elementwise_mul(d, d), dim=[-1], keep_dim=True)
    return L.elementwise_div(d, L.sqrt(var + EPS))


def _layer_norm_torch(x):
    import torch
    d = x - x.mean(-1, keepdim=True)
    return d / torch.sqrt((d * d).mean(-1, keepdim=True) + EPS)


def workloads(small: bool) -> list[Workload]:
    """The three workloads, at full size or (small) at smoke-test size with odd extents."""
    n, rows, cols = (4099, 9, 129) if small else (N_CHAIN, ROWS, COLS)
    return [
        Workload("chain", {"x": (n,), "y": (n,)}, _chain_fluid, _chain_torch),
        Workload("softmax", {"x": (rows, cols)},
                 lambda fluid, v: fluid.layers.softmax(v["x"]),
                 lambda x: __import__("torch").softmax(x, -1)),
        Workload("layer_norm", {"x": (rows, cols)}, _layer_norm_fluid, _layer_norm_torch),
    ]


class Timer:
    """Seconds per call of a step: CUDA events on the GPU, perf_counter on the CPU."""

    def __init__(self, device: str) -> None:
        import torch
        self.torch = torch
        self.cuda = device.startswith("cuda")

    def sample(self, step: Callable[[], object], number: int) -> float:
        torch = self.torch
        if not self.cuda:
            t0 = time.perf_counter()
            for _ in range(number):
                step()
            return (time.perf_counter() - t0) / number
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        torch.cuda.synchronize()
        start.record()
        for _ in range(number):
            step()
        end.record()
        end.synchronize()
        return start.elapsed_time(end) / 1e3 / number


def copy_bandwidth(timer: Timer, device: str, repeat: int, number: int, nbytes: int) -> float:
    """Bytes/s of a device-to-device clone (read + write), the best case for a streaming kernel."""
    import torch
    src = torch.empty(nbytes // 4, dtype=torch.float32, device=device).uniform_()
    step = src.clone
    for _ in range(3):
        step()
    t = statistics.median(timer.sample(step, number) for _ in range(repeat))
    return 2 * nbytes / t


def _fluidc(fluid, w: Workload, inputs: dict, fused: bool):
    """(step launching the compiled plan's kernels on its device buffers, exe.run's output)."""
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        vs = {k: fluid.layers.data(name=k, shape=list(a.shape), dtype="float32",
                                   append_batch_size=False) for k, a in inputs.items()}
        out = w.fluid_build(fluid, vs)
    program = main
    if not fused:
        strategy = fluid.BuildStrategy()
        strategy.fuse_all = False
        program = fluid.CompiledProgram(main, build_strategy=strategy)
    exe, scope = fluid.Executor(fluid.CUDAPlace(0)), fluid.Scope()
    result = exe.run(program, feed=inputs, fetch_list=[out], scope=scope)[0]
    plan, = exe._plans.values()  # internal: its calls are the kernels without feed/fetch copies
    calls = plan.calls

    def step():
        for call in calls:
            call()
    n_kernels = sum(isinstance(s, str) for s in plan.module.schedule)
    launches = len(getattr(plan.module, "launches", ())) or n_kernels
    return step, result, f"{launches} kernel launch(es)"


def _graphed(make):
    """The same step captured once in a CUDA graph: kernel time without Python launch costs."""
    import torch

    def build():
        step, result, note = make()
        torch.cuda.synchronize()
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):  # warm up (compile) off the capture
            step()
        torch.cuda.current_stream().wait_stream(side)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            step()
        return graph.replay, result, note
    return build


def bench_workload(fluid, w: Workload, device: str, timer: Timer, repeat: int, number: int,
                   copy_bw: float, compile_torch: bool) -> list[dict]:
    """Time every competitor of one workload; one result row each."""
    import numpy as np
    import torch
    rng = np.random.default_rng(7)
    arrays = {k: rng.standard_normal(s).astype(np.float32) for k, s in w.shapes.items()}
    tensors = {k: torch.from_numpy(a).to(device) for k, a in arrays.items()}
    want = w.torch_fn(**tensors).cpu().numpy()
    competitors: list[tuple[str, Callable, str]] = []

    def add(name: str, make: Callable, note: str = "") -> None:
        try:
            step, got, extra = make()
            got = got.cpu().numpy() if hasattr(got, "cpu") else np.asarray(got)
            if not np.allclose(got, want, rtol=1e-4, atol=1e-5):
                raise AssertionError(f"max |error| {np.max(np.abs(got - want)):.3g} vs torch")
            competitors.append((name, step, "; ".join(x for x in (note, extra) if x)))
        except Exception as e:  # noqa: BLE001 - report a broken competitor, time the rest
            msg = str(e).strip().splitlines()
            note = f"skipped: {type(e).__name__}: {msg[0][:100] if msg else ''}"
            competitors.append((name, None, note))

    add("fluidc fused", lambda: _fluidc(fluid, w, arrays, True))
    add("fluidc unfused", lambda: _fluidc(fluid, w, arrays, False), "fuse_all = False")
    if device.startswith("cuda"):
        add("fluidc fused, CUDA graph", _graphed(lambda: _fluidc(fluid, w, arrays, True)),
            "diagnostic: launches replayed from a graph")
    add("torch eager", lambda: (lambda: w.torch_fn(**tensors), w.torch_fn(**tensors), ""))
    if compile_torch:
        def compiled():
            fn = torch.compile(w.torch_fn)
            return (lambda: fn(**tensors)), fn(**tensors), ""
        add("torch.compile", compiled)

    samples: dict[str, list[float]] = {name: [] for name, step, _ in competitors if step}
    live = [(name, step) for name, step, _ in competitors if step]
    for _, step in live:  # warm-up: compilation, autotuning, allocator
        for _ in range(3):
            step()
    for r in range(repeat):
        k = r % len(live) if live else 0
        for name, step in live[k:] + live[:k]:
            samples[name].append(timer.sample(step, number))
    rows = []
    for name, _, note in competitors:
        s = samples.get(name)
        med = statistics.median(s) if s else None
        gb_s = w.nbytes() / med / 1e9 if med else None
        rows.append({"bench": w.name, "competitor": name,
                     "median_us": med * 1e6 if med else None,
                     "min_us": min(s) * 1e6 if s else None, "max_us": max(s) * 1e6 if s else None,
                     "repeat": len(s or ()), "number": number, "note": note, "gb_s": gb_s,
                     "of_copy_bw": gb_s * 1e9 / copy_bw if gb_s else None})
    base = next((r for r in rows if r["median_us"]), None)
    for r in rows:
        ok = base is not None and r["median_us"] is not None
        r["ratio"] = r["median_us"] / base["median_us"] if ok else None
        r["ratio_min"] = r["min_us"] / base["min_us"] if ok else None
    return rows


def main(argv: list[str] | None = None) -> int:
    """Run every workload and print the table; 2 when there is no GPU and no --small."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--small", action="store_true",
                    help="tiny shapes (a smoke test); without a GPU, under TRITON_INTERPRET=1")
    ap.add_argument("--repeat", type=int, default=None, help="timed samples per competitor")
    ap.add_argument("--number", type=int, default=None, help="calls per sample")
    ap.add_argument("--no-compile", action="store_true", help="leave torch.compile out")
    args = ap.parse_args(argv)

    import torch
    gpu = torch.cuda.is_available()
    if not gpu:
        if not args.small:
            print("triton_gpu: no CUDA GPU here; `--small` runs a smoke test on the Triton "
                  "interpreter", file=sys.stderr)
            return 2
        os.environ["TRITON_INTERPRET"] = "1"  # before any generated kernel is imported
        # The interpreter computes masked-off lanes too; numpy warns about their NaNs.
        warnings.filterwarnings("ignore", category=RuntimeWarning, module=r"triton\.")
    import fluidc as fluid

    from .harness import format_table
    device = "cuda" if gpu else "cpu"
    repeat = args.repeat or (3 if args.small else 30)
    number = args.number or (1 if args.small else 10)
    timer = Timer(device)
    copy_bw = copy_bandwidth(timer, device, repeat, number, (1 << 20) if args.small else COPY_BYTES)
    name = torch.cuda.get_device_name() if gpu else "CPU (Triton interpreter)"
    print(f"device: {name}; copy bandwidth {copy_bw / 1e9:.1f} GB/s "
          f"(clone of {((1 << 20) if args.small else COPY_BYTES) >> 20} MiB)")
    rows = []
    for w in workloads(args.small):
        rows += bench_workload(fluid, w, device, timer, repeat, number, copy_bw,
                               compile_torch=not args.no_compile and gpu)
    print(format_table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
