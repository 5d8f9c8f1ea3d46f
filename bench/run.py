"""Run fluidc's benchmarks and print one table.

    python bench/run.py [overhead|mlp|cnn|transformer|kernels|chain|arith|softmax|layer_norm
                         |compile|models|memory|dygraph|batches|ddp|bfloat16|all ...]
                        [--json out.json] [--png chart.png] [--repeat N]
    python -m bench ...            (from the repo root; same arguments)

Competitors of a bench run side by side in one process with their repeats interleaved, so
read the ratio column (median / fluidc's median): absolute times drift on a noisy machine.
"""
from __future__ import annotations

if __name__ == "__main__" and not __package__:
    # Run as a script: make the relative imports below resolve as the `bench` package.
    import os as _os
    import sys as _sys
    _sys.path.insert(0, _os.path.dirname(_os.path.dirname(_os.path.abspath(__file__))))
    __package__ = "bench"
    import bench  # noqa: F401

import argparse
import importlib
import os
import platform
import sys
import tempfile
import time

from .harness import format_table, format_targets, write_json

KERNELS = ("chain", "arith", "softmax", "layer_norm", "colstats", "broadcast")  # bench/kernels.py
BENCHES = ("overhead", "mlp", "cnn", "transformer", "kernels", "compile", "models", "memory",
           "dygraph")
# only when named: batches (2,000 plans), ddp (2 processes), bfloat16
CHOICES = (*BENCHES, *KERNELS, "batches", "ddp", "bfloat16")


def _setup_threads(threads: int | None) -> dict:
    """Pin torch to `threads` (default 2, the machine's cores); --threads also sets OpenMP's."""
    if threads is not None:
        # Before the first OpenMP runtime loads: fluidc's kernels read it at library load.
        os.environ["OMP_NUM_THREADS"] = str(threads)
    info = {"cpu_count": os.cpu_count(), "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS")}
    try:
        import torch
        torch.set_num_threads(threads or 2)
        info.update(torch=torch.__version__, torch_threads=torch.get_num_threads())
    except ImportError:
        info["torch"] = None
    return info


def _meta(thread_info: dict, selected: list[str], repeat: int | None) -> dict:
    import numpy as np
    import fluidc
    return {"time": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "python": platform.python_version(),
            "machine": platform.machine(), "processor": platform.processor(),
            "numpy": np.__version__, "fluidc": fluidc.__version__, "benches": selected,
            "repeat": repeat, "loadavg_start": os.getloadavg(), **thread_info}


def _print_parity(name: str, p: dict) -> None:
    """How far fluidc's losses (and inference outputs) are from torch's from the same weights."""
    text = (f"  [{name} parity] fluidc loss {[round(v, 5) for v in p['fluidc_loss']]}, "
            f"torch loss {[round(v, 5) for v in p['torch_loss']]}, "
            f"max |diff| {p['max_abs_diff']:.2e}")
    if "infer_max_abs_diff" in p:
        text += f", inference max |diff| {p['infer_max_abs_diff']:.2e}"
    print(text, flush=True)


def main(argv: list[str] | None = None, prog: str = "bench") -> int:
    """Entry point: parse argv, run the selected benches, print the table (and write JSON)."""
    ap = argparse.ArgumentParser(prog=prog, description=__doc__.strip().splitlines()[0])
    ap.add_argument("benches", nargs="*", metavar="BENCH",
                    help=f"which benches to run: {', '.join(CHOICES)} or all (default: all; "
                         f"kernels = {' '.join(KERNELS)})")
    ap.add_argument("--json", metavar="PATH", help="also write the rows and metadata as JSON")
    ap.add_argument("--png", metavar="PATH",
                    help="also draw the ratios as a bar chart per bench (needs matplotlib)")
    ap.add_argument("--no-torch-compile-time", action="store_true",
                    help="compile bench: skip torch.compile's (slow) first-call timing")
    ap.add_argument("--repeat", type=int, metavar="N",
                    help="timed samples per competitor (default: per bench)")
    ap.add_argument("--threads", type=int, metavar="N",
                    help="torch threads and OMP_NUM_THREADS (default: torch 2, OpenMP untouched)")
    ap.add_argument("--only", metavar="NAMES",
                    help="comma list of competitors to run (e.g. 'fluidc,C fused'); others left out")
    ap.add_argument("-q", "--quiet", action="store_true", help="only print the table")
    args = ap.parse_args(argv)
    # The kernels benchmarks build stay out of the user's cache unless FLUIDC_CACHE_DIR says.
    os.environ.setdefault("FLUIDC_CACHE_DIR", os.path.join(tempfile.gettempdir(),
                                                           "fluidc-bench-kernels"))
    if args.only:
        from . import harness
        harness.ONLY = {n.strip() for n in args.only.split(",") if n.strip()}
    chosen = args.benches or ["all"]
    unknown = [b for b in chosen if b not in (*CHOICES, "all")]
    if unknown:
        ap.error(f"unknown bench {', '.join(unknown)}; choose from {', '.join(CHOICES)}, all")
    selected = list(BENCHES) if "all" in chosen else list(dict.fromkeys(chosen))
    workloads = list(KERNELS) if "kernels" in selected else [b for b in selected if b in KERNELS]
    if args.repeat is not None and args.repeat < 1:
        ap.error("--repeat must be at least 1")

    if args.threads is not None and args.threads < 1:
        ap.error("--threads must be at least 1")
    meta = _meta(_setup_threads(args.threads), selected, args.repeat)
    verbose = not args.quiet
    rows: list[dict] = []
    if "overhead" in selected:
        from . import overhead
        rows += overhead.run(args.repeat, verbose)
    for name, module in (("mlp", "mlp_train"), ("cnn", "cnn_train"),
                         ("transformer", "transformer")):
        if name in selected:
            workload = importlib.import_module(f".{module}", __package__)
            meta[f"{name}_parity"] = p = workload.parity()
            if verbose:
                _print_parity(name, p)
            rows += workload.run(args.repeat, verbose)
    if "dygraph" in selected:
        from . import dygraph
        rows += dygraph.run(args.repeat, verbose)
    if workloads:
        from . import kernels
        rows += kernels.run(args.repeat, verbose, workloads)
    if "ddp" in selected:
        from . import ddp
        rows += ddp.run(args.repeat, verbose)
    if "batches" in selected:
        from . import batch_sizes
        rows += batch_sizes.run(args.repeat, verbose)
    if "bfloat16" in selected:
        from . import bfloat16
        rows += bfloat16.run(args.repeat, verbose)
    if "compile" in selected:
        from . import compile_time
        rows += compile_time.run(args.repeat, verbose, not args.no_torch_compile_time,
                                 args.threads)
    if "models" in selected:
        from . import models
        rows += models.run(args.repeat, verbose)
    mem_rows: list[dict] = []  # bytes, not times: a table of their own
    if "memory" in selected:
        from . import memory
        mem_rows = memory.run(args.repeat, verbose)

    meta["loadavg_end"] = os.getloadavg()
    if mem_rows:
        print()
        print(memory.format_table(mem_rows))
    if rows:
        print()
        print(format_table(rows))
        print("\nratio = median / fluidc's median in the same bench (same process, interleaved "
              "repeats); min ratio = min / fluidc's min.\nBelow 1 means faster than fluidc. "
              "Absolute times drift with other load on the machine; the ratios much less.")
    if any(r.get("gb_s") is not None for r in rows):
        print("GB/s = (bytes of inputs read + outputs written) / median; of copy = that / the "
              "copy bandwidth measured in the same bench (the faster copy row).")
    rows += mem_rows
    targets = format_targets(rows)
    if targets:
        print("\nTargets (medians; from the fastest samples in parentheses):\n" + targets)
    if args.json:
        write_json(rows, args.json, meta)
        print(f"wrote {args.json}")
    if args.png:
        from .chart import write_png
        msg = write_png(rows, args.png, meta)
        print(msg)
    return 0


if __name__ == "__main__":
    sys.exit(main())
