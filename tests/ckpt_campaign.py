"""kill -9 campaign against fluidc's checkpoint writers.

One process builds a program (15 fc layers trained by Adam: 151 persistable vars), then, per
save API, forks a child that saves in a loop (every var holding the step number), kills it with
SIGKILL at a random moment, reaps it and loads what is on disk in a fresh scope: every var must
hold one step, the last the child finished or the one it was writing. Counted: kills, kills that
landed inside a save, torn sets (fluidc loads), torn sets as Paddle would read the files
(directly, without fluidc's commit journal), failed loads, temp files present right after the
kills and left after the next complete save.

    python tests/ckpt_campaign.py --kills 200            # all four APIs, JSON on stdout
    python tests/ckpt_campaign.py --kills 20 --api static.save --seed 3
"""
from __future__ import annotations

import argparse
import json
import os
import pickle
import random
import signal
import sys
import tempfile
import time

import numpy as np

APIS = ("save_persistables", "save_inference_model", "static.save", "paddle.save")
LAYERS = 15


def _build():
    import fluidc as fluid
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        x = fluid.data("x", [-1, 8], "float32")
        h = x
        for _ in range(LAYERS):
            h = fluid.layers.fc(h, 8, act="relu")
        loss = fluid.layers.mean(h)
        fluid.optimizer.Adam(learning_rate=0.01).minimize(loss)
    return main, h


def _persistables(program):
    import fluidc.io
    return [v for v in program.list_vars() if fluidc.io.is_persistable(v)]


def _fill(scope, variables, step: int) -> None:
    from fluidc.frontend.dtypes import to_numpy_dtype
    for v in variables:
        scope.var(v.name).get_tensor().set(np.full(v.shape, step, to_numpy_dtype(v.dtype)))


def _steps_of(values: dict) -> set:
    out = set()
    for arr in values.values():
        flat = np.asarray(arr).reshape(-1)
        out.update(int(s) for s in np.unique(flat))
    return out


class Api:
    """One save API: where it writes, how to save a step, how fluidc and Paddle read it back."""

    def __init__(self, name: str, root: str, main, out) -> None:
        import fluidc as fluid
        self.name, self.main, self.out, self.fluid = name, main, out, fluid
        self.exe = fluid.Executor(fluid.CPUPlace())
        self.dir = os.path.join(root, name.replace(".", "_"))
        self.path = os.path.join(self.dir, "ckpt")  # a directory, a prefix or a file
        if name == "save_inference_model":
            from fluidc.runtime.io import _inference_program
            self.vars = _persistables(_inference_program(main, ["x"], [out.name]))
        else:
            self.vars = _persistables(main)

    def save(self, step: int) -> None:
        import fluidc.io
        fluid = self.fluid
        _fill(fluid.global_scope(), self.vars, step)
        if self.name == "save_persistables":
            fluidc.io.save_persistables(self.exe, self.path, self.main)
        elif self.name == "save_inference_model":
            fluidc.io.save_inference_model(self.path, ["x"], [self.out], self.exe, self.main)
        elif self.name == "static.save":
            fluid.static.save(self.main, self.path)
        else:
            fluid.save(self.main.state_dict(), self.path)

    def load(self) -> dict:
        """name -> array as fluidc loads it, in a fresh scope."""
        import fluidc.io
        fluid = self.fluid
        with fluid.scope_guard(fluid.Scope()):
            scope = fluid.global_scope()
            if self.name == "paddle.save":
                return dict(fluid.load(self.path))
            if self.name == "save_persistables":
                fluidc.io.load_persistables(self.exe, self.path, self.main)
                names = [v.name for v in self.vars]
            elif self.name == "save_inference_model":
                prog, _, _ = fluidc.io.load_inference_model(self.path, self.exe)
                names = [v.name for v in _persistables(prog)]
            else:
                fluid.static.load(self.main, self.path, self.exe)
                names = [v.name for v in self.vars]
            return {n: scope.find_var(n).get_tensor().numpy().copy() for n in names}

    def raw(self) -> dict:
        """name -> array as Paddle would read the files: each file directly, no journal."""
        from fluidc.runtime.tensor_io import tensor_from_bytes
        out = {}
        if self.name in ("static.save", "paddle.save"):
            exts = (".pdparams", ".pdopt") if self.name == "static.save" else ("",)
            for ext in exts:
                with open(self.path + ext, "rb") as f:
                    out.update(pickle.loads(f.read()))  # the campaign's own files
            return out
        for v in self.vars:
            with open(os.path.join(self.path, v.name), "rb") as f:
                out[v.name] = tensor_from_bytes(f.read(), v.name, v.name).numpy()
        return out

    def temp_files(self) -> list[str]:
        """Temp files and directories, commit journals: every entry with a leading dot (var
        names here have none)."""
        found = []
        for d, dirs, files in os.walk(self.dir):
            found += [os.path.join(d, n) for n in dirs + files if n.startswith(".")]
        return found


def _child(api: Api, first_step: int, wfd: int) -> None:
    try:
        step = first_step
        while True:
            os.write(wfd, b"S%d\n" % step)
            api.save(step)
            os.write(wfd, b"D%d\n" % step)
            step += 1
    finally:
        os._exit(0)


def run_api(name: str, root: str, kills: int, rng: random.Random, main, out) -> dict:
    api = Api(name, root, main, out)
    step = 1
    api.save(step)  # a complete checkpoint to start from
    t0 = time.perf_counter()
    for _ in range(3):
        api.save(step)
    save_s = (time.perf_counter() - t0) / 3
    stats = {"api": name, "vars": len(api.vars), "save_ms": round(1000 * save_s, 2),
             "kills": 0, "kills_inside_a_save": 0, "torn_sets": 0, "torn_sets_raw": 0,
             "stepped_back": 0, "load_failures": 0, "temp_files_after_kills_max": 0,
             "temp_files_after_kills_total": 0, "errors": []}
    finished_last = step  # the newest step a save is known to have finished
    maybe = set()  # steps whose save was killed after it began: on disk or not
    next_step = step + 1
    for _ in range(kills):
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(r)
            _child(api, next_step, w)
        os.close(w)
        time.sleep(rng.uniform(0, 4 * save_s))
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        with os.fdopen(r, "rb") as f:
            lines = f.read().split()
        stats["kills"] += 1
        started = [int(x[1:]) for x in lines if x[:1] == b"S"]
        finished = [int(x[1:]) for x in lines if x[:1] == b"D"]
        if finished:
            finished_last, maybe = finished[-1], set()
        if started and (not finished or started[-1] > finished[-1]):
            stats["kills_inside_a_save"] += 1
            maybe.add(started[-1])
        next_step = max([next_step] + started) + 1
        temps = api.temp_files()
        stats["temp_files_after_kills_max"] = max(stats["temp_files_after_kills_max"], len(temps))
        stats["temp_files_after_kills_total"] += len(temps)
        try:  # first as Paddle reads the files (a fluidc load may finish a committed set)
            if len(_steps_of(api.raw())) != 1:
                stats["torn_sets_raw"] += 1
        except Exception:  # noqa: BLE001 - a file Paddle could not read counts as torn
            stats["torn_sets_raw"] += 1
        try:
            steps = _steps_of(api.load())
        except Exception as e:  # noqa: BLE001 - counted and reported
            stats["load_failures"] += 1
            stats["errors"].append(f"{type(e).__name__}: {e}"[:300])
            continue
        if len(steps) != 1:
            stats["torn_sets"] += 1
            stats["errors"].append(f"torn: steps {sorted(steps)[:6]}")
        elif next(iter(steps)) not in maybe | {finished_last}:
            stats["stepped_back"] += 1
            stats["errors"].append(f"step {steps}: the last finished save was {finished_last}, "
                                   f"killed ones {sorted(maybe)}")
        else:  # what is on disk is now the newest known step
            finished_last = next(iter(steps))
            maybe = {m for m in maybe if m > finished_last}
    done = next_step
    api.save(done + 1)  # the next complete save cleans what the kills left
    steps = _steps_of(api.load())
    stats["final_load_ok"] = steps == {done + 1}
    stats["temp_files_left_after_next_save"] = len(api.temp_files())
    stats["errors"] = stats["errors"][:10]
    return stats


def campaign(kills: int, apis=APIS, seed: int = 0, root: str | None = None) -> list[dict]:
    import torch
    torch.set_num_threads(1)
    import fluidc as fluid
    main, out = _build()
    rng = random.Random(seed)
    results = []
    with tempfile.TemporaryDirectory(prefix="fluidc-kill-") as tmp:
        for name in apis:
            with fluid.scope_guard(fluid.Scope()):
                results.append(run_api(name, root or tmp, kills, rng, main, out))
    return results


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--kills", type=int, default=200, help="kills per API")
    p.add_argument("--api", action="append", choices=APIS, help="default: all four")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    results = campaign(args.kills, tuple(args.api or APIS), args.seed)
    json.dump(results, sys.stdout, indent=1)
    print()
    bad = any(r["torn_sets"] or r["stepped_back"] or r["load_failures"] or not r["final_load_ok"]
              or r["temp_files_left_after_next_save"] for r in results)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
