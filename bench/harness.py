"""A small timing harness: competitors side by side in one process, repeats interleaved.

The bench machines are noisy (2 cores, shared), so absolute figures drift from run to run;
ratios taken inside one process run, with the competitors' repeats interleaved round-robin,
are what to compare. Each repeat times `number` back-to-back calls with
time.perf_counter_ns and records the mean per call, so microsecond calls are not dominated
by the timer itself; the median over repeats is the headline figure.
"""
from __future__ import annotations

import gc
import json
import statistics
import time
import traceback
from dataclasses import dataclass, field
from typing import Callable, Optional

Step = Callable[[], object]


@dataclass
class Competitor:
    """One contender: `setup()` builds it (untimed) and returns the zero-argument call to time.

    `setup` may raise `Skip` (or any exception when `optional` is true) to leave the
    competitor out with a note instead of failing the whole benchmark.
    """

    name: str
    setup: Callable[[], Step]
    optional: bool = False
    note: str = ""


class Skip(Exception):
    """Raised by a competitor's setup when it cannot run here (missing package, ...)."""


@dataclass
class _Live:
    comp: Competitor
    step: Optional[Step] = None
    samples_ns: list = field(default_factory=list)
    note: str = ""
    setup_s: float = 0.0


def torch_or_skip():
    """torch, or Skip naming why a bench row cannot run without it."""
    try:
        import torch
    except ImportError as e:  # pragma: no cover - torch is a fluidc dependency
        raise Skip(f"torch not importable ({e})") from e
    return torch


def _describe(exc: BaseException) -> str:
    msg = str(exc).strip().splitlines()
    first = msg[0] if msg else ""
    return f"{type(exc).__name__}: {first}"[:160]


# Competitor names to run (None: all), set by `run.py --only`: timing a few alone shows what the
# others' load (torch's spinning threads, numpy's temporaries) does to them on a small machine.
ONLY: Optional[set[str]] = None


def run_bench(bench: str, competitors: list[Competitor], *, repeat: int = 30, number: int = 1,
              warmup: int = 3, baseline: Optional[str] = None, verbose: bool = True) -> list[dict]:
    """Time every competitor; return one result row (a dict) per competitor.

    warmup: calls per competitor before timing (compilation, caches, allocator).
    repeat: timed samples per competitor, taken round-robin across competitors (the starting
    competitor rotates each round so no one always runs right after another).
    number: calls per sample; a sample is the mean per call over those calls.
    baseline: competitor name the `ratio` column is relative to (default: the first that ran).
    """
    live = [_Live(c) for c in competitors if ONLY is None or c.name in ONLY]
    for lv in live:
        t0 = time.perf_counter()
        try:
            lv.step = lv.comp.setup()
            for _ in range(warmup):
                lv.step()
        except Skip as e:
            lv.step, lv.note = None, f"skipped: {e}"
        except Exception as e:  # noqa: BLE001 - optional competitors must not sink the run
            if not lv.comp.optional:
                raise
            lv.step, lv.note = None, f"skipped: {_describe(e)}"
            if verbose:
                traceback.print_exc(limit=2)
        lv.setup_s = time.perf_counter() - t0
        if verbose:
            state = lv.note or f"ready (setup+warm-up {lv.setup_s:.1f}s)"
            print(f"  [{bench}] {lv.comp.name}: {state}", flush=True)

    running = [lv for lv in live if lv.step is not None]
    clock = time.perf_counter_ns
    gc_was_enabled = gc.isenabled()
    gc.collect()
    gc.disable()  # a collection landing in one competitor's sample is noise, not its cost
    try:
        for r in range(repeat):
            k = r % len(running) if running else 0
            for lv in running[k:] + running[:k]:
                step = lv.step
                rng = range(number)
                t0 = clock()
                for _ in rng:
                    step()
                lv.samples_ns.append((clock() - t0) / number)
    finally:
        if gc_was_enabled:
            gc.enable()

    rows = []
    for lv in live:
        s = lv.samples_ns
        rows.append({
            "bench": bench,
            "competitor": lv.comp.name,
            "median_us": statistics.median(s) / 1e3 if s else None,
            "min_us": min(s) / 1e3 if s else None,
            "max_us": max(s) / 1e3 if s else None,
            "repeat": len(s),
            "number": number,
            "setup_s": round(lv.setup_s, 3),
            "note": "; ".join(x for x in (lv.comp.note, lv.note) if x),
        })
    base = next((r for r in rows if r["median_us"] is not None
                 and (baseline is None or r["competitor"] == baseline)), None)
    for row in rows:
        ok = base is not None and row["median_us"] is not None
        row["ratio"] = row["median_us"] / base["median_us"] if ok else None
        # Ratio of the fastest samples: less sensitive to other load on a shared machine.
        row["ratio_min"] = row["min_us"] / base["min_us"] if ok else None
        row["ratio_to"] = base["competitor"] if base is not None else None
    return rows


def _fmt_time(us: Optional[float]) -> str:
    if us is None:
        return "-"
    if us >= 1e6:
        return f"{us / 1e6:.2f} s"
    if us >= 1e4:
        return f"{us / 1e3:.1f} ms"
    if us >= 1e3:
        return f"{us / 1e3:.2f} ms"
    if us >= 100:
        return f"{us:.0f} us"
    return f"{us:.2f} us"


def format_table(rows: list[dict]) -> str:
    """Render result rows as a plain-text table (ratio = median / the bench's baseline's).

    Rows that carry bandwidth figures (`gb_s`, `of_copy_bw`: bench/kernels.py) add the
    columns `GB/s` and `of copy`.
    """
    bandwidth = any(r.get("gb_s") is not None for r in rows)
    head = ["bench", "competitor", "median", "min", "max", "ratio", "min ratio"]
    head += ["GB/s", "of copy"] if bandwidth else []
    head += ["samples", "note"]
    body = []
    for r in rows:
        ratio = "-" if r.get("ratio") is None else f"{r['ratio']:.2f}x"
        ratio_min = "-" if r.get("ratio_min") is None else f"{r['ratio_min']:.2f}x"
        line = [r["bench"], r["competitor"], _fmt_time(r["median_us"]),
                _fmt_time(r["min_us"]), _fmt_time(r["max_us"]), ratio, ratio_min]
        if bandwidth:
            line += ["-" if r.get("gb_s") is None else f"{r['gb_s']:.1f}",
                     "-" if r.get("of_copy_bw") is None else f"{r['of_copy_bw']:.0%}"]
        line += [f"{r['repeat']}x{r['number']}", r.get("note", "")]
        body.append(line)
    widths = [max(len(str(x)) for x in col) for col in zip(head, *body)]
    lines = ["  ".join(str(x).ljust(w) for x, w in zip(head, widths)).rstrip(),
             "  ".join("-" * w for w in widths)]
    lines += ["  ".join(str(x).ljust(w) for x, w in zip(row, widths)).rstrip() for row in body]
    return "\n".join(lines)


def add_target(row: Optional[dict], text: str, value: Optional[float],
               value_min: Optional[float], ok: Optional[bool]) -> None:
    """Record on `row` a target: its text, the measured value (from medians and from mins)
    and whether it is met (None: unknown)."""
    if row is None:
        return
    row.setdefault("targets", []).append(
        {"target": text, "value": value, "value_min": value_min, "met": ok})


def add_ratio_targets(rows: list[dict], label: str, limits: dict[str, float]) -> None:
    """On fluidc's row of one bench: for each competitor of `limits`, the target
    fluidc's median / its median <= the limit (and the same from the mins)."""
    by_name = {r["competitor"]: r for r in rows if r.get("median_us") is not None}
    fluidc = by_name.get("fluidc")
    for other, limit in limits.items():
        o = by_name.get(other)
        if fluidc is None or o is None:
            continue
        r, rm = fluidc["median_us"] / o["median_us"], fluidc["min_us"] / o["min_us"]
        add_target(fluidc, f"{label}: fluidc / {other} <= {limit}", r, rm, r <= limit)


def format_targets(rows: list[dict]) -> str:
    """The targets rows carry (`targets`: text, value, value_min, met), one line each."""
    lines = []
    for r in rows:
        for t in r.get("targets", ()):
            met = {True: "MET   ", False: "MISSED", None: "?     "}[t["met"]]
            val = "-" if t["value"] is None else f"{t['value']:.3g}"
            vmin = "" if t.get("value_min") is None else f" (from mins: {t['value_min']:.3g})"
            lines.append(f"  {met} {t['target']}: {val}{vmin}")
    return "\n".join(lines)


def write_json(rows: list[dict], path: str, meta: Optional[dict] = None) -> None:
    """Write the rows (and run metadata) as JSON."""
    with open(path, "w") as f:
        json.dump({"meta": meta or {}, "results": rows}, f, indent=2)
        f.write("\n")
