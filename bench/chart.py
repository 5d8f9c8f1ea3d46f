"""The benchmark rows as a PNG: one horizontal bar chart of ratios per bench (matplotlib)."""
from __future__ import annotations

import math
from typing import Optional


def write_png(rows: list[dict], path: str, meta: Optional[dict] = None) -> str:
    """Draw each bench's ratios (median / its baseline's median) to `path`; say what happened.

    matplotlib is optional: without it nothing is written and the message says so.
    """
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib import ticker
    except ImportError:
        return (f"not writing {path}: matplotlib is not installed "
                f"(pip install matplotlib); the table and --json have every figure")
    benches: dict[str, list[dict]] = {}
    for r in rows:
        if r.get("ratio") is not None:
            benches.setdefault(r["bench"], []).append(r)
    if not benches:
        return f"not writing {path}: no timed rows"
    heights = [max(1.2, 0.32 * len(v) + 0.7) for v in benches.values()]
    fig, axes = plt.subplots(len(benches), 1, figsize=(9, sum(heights)), squeeze=False,
                             gridspec_kw={"height_ratios": heights})
    for ax, (bench, brows) in zip(axes[:, 0], benches.items()):
        names = [r["competitor"] for r in brows][::-1]
        ratios = [r["ratio"] for r in brows][::-1]
        colors = ["tab:blue" if n.startswith("fluidc") else "tab:gray" for n in names]
        ax.barh(names, ratios, color=colors)
        ax.set_xscale("log")
        ax.xaxis.set_major_formatter(ticker.FuncFormatter(lambda v, _: f"{v:g}x"))
        ax.xaxis.set_minor_formatter(ticker.NullFormatter())
        ax.axvline(1.0, color="black", linewidth=0.8)
        lo, hi = min(ratios + [1.0]), max(ratios + [1.0])
        ax.set_xlim(10 ** (math.floor(math.log10(lo) * 4) / 4 - 0.1),
                    10 ** (math.ceil(math.log10(hi) * 4) / 4 + 0.25))
        for y, (v, r) in enumerate(zip(ratios, brows[::-1])):
            extra = f"  {r['of_copy_bw']:.0%} of copy" if r.get("of_copy_bw") is not None else ""
            ax.text(v, y, f" {v:.2f}x{extra}", va="center", fontsize=7)
        base = brows[0].get("ratio_to") or "baseline"
        ax.set_title(f"{bench}  (median / {base}'s median; right = slower)", fontsize=9,
                     loc="left")
        ax.tick_params(labelsize=8)
    if meta:
        fig.suptitle(f"fluidc bench {meta.get('time', '')}  load {meta.get('loadavg_start', '')}",
                     fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return f"wrote {path}"
