"""Mutated-file campaign against every fluidc reader of Paddle's file formats.

A small trained model is saved in each form (save_inference_model's directory of separate
files and its combined form, save_persistables, static.save's prefix set, paddle.save's
pickle). Each mutant changes one file of one form (bytes flipped, a range zeroed, bytes
inserted or cut, the file truncated or emptied, a chunk repeated) and is read by each reader
that takes that form, including `describe` (what `fluidc inspect` prints), in a worker process
whose memory is capped. Counted per reader: loads that succeed, FormatErrors (each naming the
file), other exceptions (bugs), crashes (the worker killed by a signal) and hangs (no answer in
--timeout seconds). A mutant that loads must load every var with its declared shape.

    python tests/file_campaign.py --mutants 2000          # JSON per reader on stdout
"""
from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

WORKER_MEMORY = 4 << 30  # an address-space cap: a bomb shows as MemoryError, not a dead box

# form -> readers; each reader is run by the worker on a path (a directory or a prefix)
READERS = {
    "inference_dir": ["load_inference_model", "load_persistables", "describe"],
    "inference_combined": ["load_inference_model_combined", "describe"],
    "persistables_dir": ["load_persistables", "describe"],
    "static_prefix": ["static.load", "load_program_state", "describe_prefix"],
    "pickle": ["paddle.load", "describe_file"],
}


def _build_model(root: str) -> dict[str, str]:
    """Save one small trained model in every form under `root`; form -> path."""
    import numpy as np
    import fluidc as fluid
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        x = fluid.data("x", [-1, 6], "float32")
        y = fluid.data("y", [-1, 1], "int64")
        h = fluid.layers.fc(x, 5, act="relu")
        emb = fluid.layers.embedding(y, size=[4, 3])
        out = fluid.layers.fc(fluid.layers.concat([h, emb], axis=1), 3)
        loss = fluid.layers.mean(fluid.layers.softmax_with_cross_entropy(out, y))
        fluid.optimizer.Adam(0.01).minimize(loss)
    exe = fluid.Executor(fluid.CPUPlace())
    scope = fluid.Scope()
    with fluid.scope_guard(scope):
        exe.run(startup)
        exe.run(main, feed={"x": np.ones((2, 6), "float32"), "y": np.ones((2, 1), "int64")},
                fetch_list=[loss])
        paths = {form: os.path.join(root, form) for form in READERS}
        fluid.io.save_inference_model(paths["inference_dir"], ["x", "y"], [out], exe, main)
        fluid.io.save_inference_model(paths["inference_combined"], ["x", "y"], [out], exe, main,
                                      model_filename="model", params_filename="params")
        fluid.io.save_persistables(exe, paths["persistables_dir"], main)
        fluid.static.save(main, paths["static_prefix"])
        fluid.save(main.state_dict(), paths["pickle"] + ".pdparams")
        paths["pickle"] += ".pdparams"
    return paths


def _files_of(form: str, path: str) -> list[str]:
    if os.path.isdir(path):
        return sorted(os.path.join(path, f) for f in os.listdir(path))
    if form == "static_prefix":
        return [path + ext for ext in (".pdparams", ".pdopt", ".pdmodel")]
    return [path]


def _mutate(data: bytes, rng: random.Random) -> tuple[str, bytes]:
    n = len(data)
    kind = rng.choice(["flip", "flip", "flip", "zero", "insert", "cut", "truncate", "empty",
                       "repeat"])
    b = bytearray(data)
    if kind == "flip" and n:
        for _ in range(rng.randint(1, 4)):
            pos = rng.randrange(n)
            b[pos] = rng.randrange(256)
    elif kind == "zero" and n:
        start = rng.randrange(n)
        end = min(n, start + rng.randint(1, 64))
        b[start:end] = bytes(end - start)
    elif kind == "insert":
        pos = rng.randrange(n + 1)
        b[pos:pos] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 16)))
    elif kind == "cut" and n:
        start = rng.randrange(n)
        del b[start:start + rng.randint(1, 32)]
    elif kind == "truncate" and n:
        del b[rng.randrange(n):]
    elif kind == "empty":
        b = bytearray()
    elif kind == "repeat" and n:
        start = rng.randrange(n)
        chunk = b[start:start + rng.randint(1, 64)]
        b[start:start] = chunk * rng.randint(2, 50)
    return kind, bytes(b)


def _worker() -> None:
    """Read jobs (reader, path) from stdin; answer one JSON line each."""
    import resource
    resource.setrlimit(resource.RLIMIT_AS, (WORKER_MEMORY, WORKER_MEMORY))
    import numpy as np
    import fluidc as fluid
    from fluidc.frontend.errors import FormatError
    from fluidc.runtime.inspect_files import describe

    def check_loaded(program, scope):
        for v in program.list_vars():
            if fluid.io.is_persistable(v) and scope.find_var(v.name) is not None:
                t = np.array(scope.find_var(v.name).get_tensor())
                if list(t.shape) != [d for d in v.shape]:
                    raise AssertionError(f"var {v.name} loaded as {t.shape}, declared {v.shape}")

    def run(reader: str, path: str) -> None:
        exe = fluid.Executor(fluid.CPUPlace())
        scope = fluid.Scope()
        with fluid.scope_guard(scope):
            if reader == "load_inference_model":
                program, _, _ = fluid.io.load_inference_model(path, exe)
                check_loaded(program, scope)
            elif reader == "load_inference_model_combined":
                program, _, _ = fluid.io.load_inference_model(path, exe, model_filename="model",
                                                              params_filename="params")
                check_loaded(program, scope)
            elif reader == "load_persistables":
                program, _, _ = fluid.io.load_inference_model(JOB["clean"], exe)
                fluid.io.load_persistables(exe, path, program)
            elif reader == "static.load":
                with open(JOB["clean_prefix"] + ".pdmodel", "rb") as f:
                    main = fluid.static.deserialize_program(f.read())
                fluid.static.load(main, path, exe)
                check_loaded(main, scope)
            elif reader == "load_program_state":
                state = fluid.static.load_program_state(path)
                assert all(isinstance(v, np.ndarray) for v in state.values())
            elif reader == "paddle.load":
                fluid.load(path)
            elif reader in ("describe", "describe_prefix", "describe_file"):
                describe(path)
            else:
                raise AssertionError(reader)

    for line in sys.stdin:
        job = json.loads(line)
        JOB.update(job)
        try:
            run(job["reader"], job["path"])
            out = {"result": "loaded"}
        except FormatError as e:
            names = any(os.path.basename(f) in str(e) for f in job["files"]) or \
                job["path"] in str(e) or os.path.basename(job["path"]) in str(e)
            out = {"result": "format_error" if names else "format_error_unnamed",
                   "message": str(e)[:200]}
        except BaseException as e:  # noqa: BLE001 -- anything else is what we count
            out = {"result": "bug", "message": f"{type(e).__name__}: {str(e)[:200]}"}
        print(json.dumps(out), flush=True)


JOB: dict = {}


class _Worker:
    def __init__(self) -> None:
        self.proc = subprocess.Popen([sys.executable, __file__, "--worker"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True, bufsize=1)

    def ask(self, job: dict, timeout: float) -> dict:
        import select
        self.proc.stdin.write(json.dumps(job) + "\n")
        self.proc.stdin.flush()
        ready, _, _ = select.select([self.proc.stdout], [], [], timeout)
        if not ready:
            self.proc.kill()
            self.proc.wait()
            return {"result": "hang"}
        line = self.proc.stdout.readline()
        if not line:
            code = self.proc.wait()
            return {"result": "crash", "message": f"worker exit {code}"}
        return json.loads(line)

    @property
    def alive(self) -> bool:
        return self.proc.poll() is None

    def close(self) -> None:
        if self.alive:
            self.proc.stdin.close()
            self.proc.wait()


def campaign(mutants: int, seed: int = 0, timeout: float = 60.0, root: str | None = None) -> dict:
    """Run `mutants` mutants over every form; counts per reader and the first bugs seen."""
    rng = random.Random(seed)
    own = root is None
    root = root or tempfile.mkdtemp(prefix="fluidc-files-")
    clean = os.path.join(root, "clean")
    os.makedirs(clean)
    paths = _build_model(clean)
    counts: dict[str, dict[str, int]] = {}
    bugs: list[dict] = []
    worker = _Worker()
    started = time.time()
    try:
        for i in range(mutants):
            form = rng.choice(sorted(READERS))
            work = os.path.join(root, f"m{i % 4}")
            shutil.rmtree(work, ignore_errors=True)
            os.makedirs(work)
            src = paths[form]
            dst = os.path.join(work, os.path.basename(src))
            if os.path.isdir(src):
                shutil.copytree(src, dst)
            else:
                for f in _files_of(form, src):
                    shutil.copy(f, os.path.join(work, os.path.basename(f)))
            files = _files_of(form, dst)
            target = rng.choice(files)
            with open(target, "rb") as f:
                kind, data = _mutate(f.read(), rng)
            with open(target, "wb") as f:
                f.write(data)
            for reader in READERS[form]:
                if not worker.alive:
                    worker = _Worker()
                job = {"reader": reader, "path": dst, "files": files,
                       "clean": paths["inference_dir"], "clean_prefix": paths["static_prefix"]}
                out = worker.ask(job, timeout)
                counts.setdefault(reader, {}).setdefault(out["result"], 0)
                counts[reader][out["result"]] += 1
                if out["result"] not in ("loaded", "format_error"):
                    bugs.append({"reader": reader, "form": form, "mutation": kind,
                                 "file": os.path.basename(target), **out})
    finally:
        worker.close()
        if own:
            shutil.rmtree(root, ignore_errors=True)
    return {"mutants": mutants, "seconds": round(time.time() - started, 1), "counts": counts,
            "bugs": bugs[:20], "bug_count": len(bugs)}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--mutants", type=int, default=2000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--timeout", type=float, default=60.0, help="seconds before a read is a hang")
    p.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.worker:
        _worker()
        return 0
    report = campaign(args.mutants, args.seed, args.timeout)
    print(json.dumps(report, indent=1))
    return 1 if report["bug_count"] else 0


if __name__ == "__main__":
    sys.exit(main())
