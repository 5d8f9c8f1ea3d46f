"""Reader overlap: does PyReader hide I/O behind compute, and what does feeding through it cost?

1. A training loop (MLP 512-1024-1024-10, Adam, batch 128) whose reader sleeps `--read-ms` per
   batch to simulate I/O. Sequential: read, then run (step ~ read + compute). PyReader: a thread
   reads ahead into a queue of `capacity` batches (step ~ max(read, compute)).
2. Throughput in samples/s with no sleep: batches fed as numpy directly; the same batches
   through PyReader.decorate_batch_generator; and samples batched and converted by
   decorate_sample_generator (per-sample tuples -> feed arrays on the reader thread).

    python bench/reader_overlap.py [--steps 40] [--rounds 3] [--read-ms auto] [--batch 128]
"""
from __future__ import annotations

import argparse
import time

import numpy as np

import fluidc as fluid
from fluidc.runtime.pyreader import PyReader

SIZES = (512, 1024, 1024, 10)


def build(batch: int):
    main, startup = fluid.Program(), fluid.Program()
    main.random_seed = startup.random_seed = 1
    with fluid.program_guard(main, startup):
        x = fluid.layers.data(name="x", shape=[SIZES[0]], dtype="float32")
        y = fluid.layers.data(name="y", shape=[1], dtype="int64")
        h = x
        for w in SIZES[1:-1]:
            h = fluid.layers.fc(h, w, act="relu")
        loss = fluid.layers.mean(fluid.layers.softmax_with_cross_entropy(
            fluid.layers.fc(h, SIZES[-1]), y))
        fluid.optimizer.Adam(1e-3).minimize(loss)
    exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
    exe.run(startup, scope=scope)
    return main, x, y, loss, exe, scope


def batches(n: int, batch: int, read_s: float = 0.0):
    rng = np.random.default_rng(0)
    xs = rng.standard_normal((batch, SIZES[0]), dtype=np.float32)
    ys = rng.integers(0, SIZES[-1], (batch, 1)).astype(np.int64)

    def gen():
        for _ in range(n):
            if read_s:
                time.sleep(read_s)
            yield xs, ys
    return gen


def per_step(fn, steps: int) -> float:
    t = time.perf_counter()
    fn()
    return (time.perf_counter() - t) / steps


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=40)
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--read-ms", type=float, default=None, help="default: the compute time")
    args = ap.parse_args(argv)
    prog, x, y, loss, exe, scope = build(args.batch)
    run = lambda feed: exe.run(prog, feed=feed, fetch_list=[loss], scope=scope)  # noqa: E731

    def direct(gen):
        for xs, ys in gen():
            run({"x": xs, "y": ys})

    def through_reader(gen, sample_level=False, capacity=8):
        reader = PyReader(feed_list=[x, y], capacity=capacity, iterable=True)
        if sample_level:
            xs, ys = next(gen())
            reader.decorate_sample_generator(
                lambda: ((a, b) for _ in range(args.steps) for a, b in zip(xs, ys)), args.batch)
        else:
            reader.decorate_batch_generator(gen)
        for data in reader():
            run(data)

    direct(batches(3, args.batch))  # warm up: compile the plan
    steps, b = args.steps, args.batch
    compute = min(per_step(lambda: direct(batches(steps, b)), steps) for _ in range(2))
    read = (args.read_ms / 1e3) if args.read_ms is not None else compute
    cases = {
        "numpy fed directly": lambda: direct(batches(steps, b)),
        "PyReader, batch generator": lambda: through_reader(batches(steps, b)),
        "PyReader, sample generator": lambda: through_reader(batches(steps, b), True),
        "sequential read + run": lambda: direct(batches(steps, b, read)),
        "PyReader (thread reads ahead)": lambda: through_reader(batches(steps, b, read)),
    }
    # Round-robin rounds, best of each: the machines are shared, so load comes and goes.
    best = {k: float("inf") for k in cases}
    for _ in range(args.rounds):
        for k, fn in cases.items():
            best[k] = min(best[k], per_step(fn, steps))
    compute = best["numpy fed directly"]
    print(f"batch {b}, {steps} steps x {args.rounds} rounds (best), MLP "
          f"{'-'.join(map(str, SIZES))} + Adam")
    print(f"compute per step (numpy fed directly)  {compute * 1e3:8.2f} ms")
    print(f"simulated read per batch               {read * 1e3:8.2f} ms")
    print(f"sequential read + run                  {best['sequential read + run'] * 1e3:8.2f} "
          f"ms/step   (read + compute = {(read + compute) * 1e3:.2f})")
    print(f"PyReader (thread reads ahead)          "
          f"{best['PyReader (thread reads ahead)'] * 1e3:8.2f} ms/step   "
          f"(max(read, compute) = {max(read, compute) * 1e3:.2f})")
    print("training throughput with no I/O delay:")
    for name in list(cases)[:3]:
        print(f"  {name:28s} {b / best[name]:10.0f} samples/s  ({best[name] * 1e3:.2f} ms/step)")
    reader = PyReader(feed_list=[x, y], capacity=8)
    xs, ys = next(batches(1, b)())
    reader.decorate_sample_generator(
        lambda: ((u, v) for _ in range(args.steps) for u, v in zip(xs, ys)), b)
    t = time.perf_counter()
    n = sum(d[0]["x"].shape[0] for d in reader())
    print(f"  reader alone (sample generator, no run) {n / (time.perf_counter() - t):10.0f} "
          f"samples/s")


if __name__ == "__main__":
    main()
