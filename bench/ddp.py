"""Data-parallel training step on 2 processes over gloo: fluidc's collective mode against
torch DistributedDataParallel on the same model, batch and backend.

MLP 784-256-256-10, softmax cross-entropy, Adam(1e-3), 64 rows a process (128 a step). fluidc:
the program transpiled in nccl2 mode (distributed.collective.transpile_nccl2: bucketed
c_allreduce_sum ops, each started as soon as backward made its bucket, waited for before the
optimizer) run by a ParallelExecutor with num_trainers=2; torch: nn.Sequential in DDP with
torch.optim.Adam, from fluidc's initial weights. Each side runs with 32 MB buckets (Paddle's
default; one bucket here) and with 256 KB ones (several, overlapping backward).
Both processes run the harness's interleaved repeats in lockstep (every step is a collective);
rank 0's samples are reported, with each side's all-reduce bytes per step and bucket count.
One thread a process (2 processes on the machine's cores).
"""
from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

from fluidc.distributed.launch import free_ports

SIZES = (784, 256, 256, 10)
BATCH = 64  # per process
SMALL = 256 << 10  # the small buckets' bytes
WORLD = 2


def _data(rank: int):
    r = np.random.default_rng(10 + rank)
    return (r.standard_normal((BATCH, SIZES[0]), dtype=np.float32),
            r.integers(0, SIZES[-1], (BATCH, 1)).astype(np.int64))


def _fluidc(rank: int, endpoints: list[str], info: dict, bucket_bytes: int):
    import fluidc as fluid
    from fluidc.distributed.collective import plan_buckets, transpile_nccl2
    main, startup = fluid.Program(), fluid.Program()
    main.random_seed = startup.random_seed = 1
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        x = fluid.layers.data("x", [SIZES[0]], dtype="float32")
        y = fluid.layers.data("y", [1], dtype="int64")
        h = x
        for width in SIZES[1:-1]:
            h = fluid.layers.fc(h, width, act="relu")
        logits = fluid.layers.fc(h, SIZES[-1])
        loss = fluid.layers.mean(fluid.layers.softmax_with_cross_entropy(logits, y))
        fluid.optimizer.Adam(1e-3).minimize(loss)
    buckets = plan_buckets(main, bucket_bytes)
    transpile_nccl2(main, startup, rank, endpoints, endpoints[rank], bucket_bytes)
    info.update(buckets=len(buckets), bytes=sum(b.nbytes for b in buckets))
    scope = fluid.Scope()
    exe = fluid.Executor(fluid.CPUPlace())
    with fluid.scope_guard(scope):
        exe.run(startup)
    pe = fluid.ParallelExecutor(False, loss_name=loss.name, main_program=main, num_trainers=WORLD,
                                trainer_id=rank, scope=scope)
    xs, ys = _data(rank)
    feed = {"x": xs, "y": ys}
    pe.run([loss.name], feed=feed)  # joins the group, broadcasts trainer 0's parameters
    weights = [(np.array(scope.find_var(f"fc_{i}.w_0").get_tensor()),
                np.array(scope.find_var(f"fc_{i}.b_0").get_tensor()))
               for i in range(len(SIZES) - 1)]
    return (lambda: pe.run([loss.name], feed=feed)), weights


def _torch_ddp(rank: int, weights, info: dict, bucket_bytes: int):
    import torch
    from torch.nn.parallel import DistributedDataParallel as DDP
    layers = []
    for i, (w, b) in enumerate(weights):
        lin = torch.nn.Linear(w.shape[0], w.shape[1])
        with torch.no_grad():
            lin.weight.copy_(torch.from_numpy(w.T))
            lin.bias.copy_(torch.from_numpy(b))
        layers += [lin, torch.nn.ReLU()] if i < len(weights) - 1 else [lin]
    model = DDP(torch.nn.Sequential(*layers), bucket_cap_mb=bucket_bytes / 2**20)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    xs, ys = _data(rank)
    x, y = torch.from_numpy(xs), torch.from_numpy(ys[:, 0])

    def step():
        opt.zero_grad(set_to_none=True)
        loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        return loss.item()

    step()
    info["bytes"] = sum(p.numel() * p.element_size() for p in model.parameters())
    try:
        info["buckets"] = len(model._get_ddp_logging_data().get("bucket_sizes", "").split(", "))
    except (AttributeError, RuntimeError):  # private API: report what it gives
        info["buckets"] = None
    return step


def worker(rank: int, endpoints: list[str], repeat: int, out: str) -> None:
    """One process: the competitors (each side with the default 32 MB buckets and with small
    ones, several buckets overlapping backward), the harness's interleaved repeats."""
    import torch
    torch.set_num_threads(1)
    from .harness import Competitor, run_bench
    info: dict = {}  # competitor -> its all-reduce bytes and buckets
    made: dict = {}

    def fluidc(name: str, bucket_bytes: int):
        def setup():
            step, made["weights"] = _fluidc(rank, endpoints, info.setdefault(name, {}),
                                            bucket_bytes)
            made[name] = step
            return step
        return Competitor(name, setup)

    def ddp(name: str, bucket_bytes: int):  # from fluidc's initial weights: set up after it
        return Competitor(name, lambda: _torch_ddp(rank, made["weights"],
                                                   info.setdefault(name, {}), bucket_bytes))

    rows = run_bench("ddp", [fluidc("fluidc", 32 << 20), ddp("torch DDP", 32 << 20),
                             fluidc(f"fluidc {SMALL >> 10} KB buckets", SMALL),
                             ddp(f"torch DDP {SMALL >> 10} KB buckets", SMALL)],
                     repeat=repeat, verbose=rank == 0)
    if rank == 0:
        for row in rows:
            got = info[row["competitor"]]
            row["note"] = (f"{got['bytes']} all-reduce bytes/step in {got['buckets']} "
                           f"bucket(s); gloo, 2 processes x {BATCH} rows")
        with open(out, "w") as f:
            json.dump(rows, f)
    # Tear DDP down before the interpreter does: a DDP reducer finalized at exit, its gloo
    # group's threads still joinable, sometimes aborts the process (SIGABRT).
    made.clear()
    gc.collect()
    torch.distributed.barrier()
    torch.distributed.destroy_process_group()


def run(repeat: int | None, verbose: bool) -> list[dict]:
    """Start the 2 processes, wait for them (bounded) and return rank 0's rows."""
    repeat = repeat or 30
    endpoints = [f"127.0.0.1:{port}" for port in free_ports(WORLD)]
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "rows.json")
        env = dict(os.environ, OMP_NUM_THREADS="1", CPU_NUM="1")
        procs = [subprocess.Popen([sys.executable, "-m", "bench.ddp", str(rank),
                                   ",".join(endpoints), str(repeat), out],
                                  cwd=root, env=env, stdout=None if verbose and rank == 0
                                  else subprocess.DEVNULL) for rank in range(WORLD)]
        try:
            codes = [p.wait(timeout=600) for p in procs]
        finally:
            for p in procs:
                if p.poll() is None:
                    p.kill()
                p.wait()
        if codes != [0] * WORLD:
            raise RuntimeError(f"ddp bench workers exited with {codes}")
        with open(out) as f:
            return json.load(f)


if __name__ == "__main__":
    worker(int(sys.argv[1]), sys.argv[2].split(","), int(sys.argv[3]), sys.argv[4])
