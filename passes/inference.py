"""Inference rewrites: batch_norm on running statistics becomes one pointwise op, which then
fuses with what follows it (relu) into the same kernel."""
from __future__ import annotations

from ..frontend.ops import OpDesc
from ..frontend.ops.nn import uses_global_stats


def fold_batch_norm(ops: list[OpDesc], live_out: set[str]) -> list[OpDesc]:
    """batch_norm(is_test / use_global_stats) -> batch_norm_infer, when the statistics it
    would write back are its inputs unchanged and its saved statistics go unread."""
    read = {n for op in ops for n in op.input_arg_names}
    out = []
    for op in ops:
        if op.type == "batch_norm" and uses_global_stats(op.attrs):
            in_place = op.output("MeanOut") in ([], op.input("Mean")) and \
                op.output("VarianceOut") in ([], op.input("Variance"))
            extras = [n for s in ("SavedMean", "SavedVariance", "ReserveSpace")
                      for n in op.output(s)]
            if in_place and not any(n in read or n in live_out for n in extras):
                out.append(OpDesc("batch_norm_infer",
                                  {k: op.input(k) for k in ("X", "Scale", "Bias", "Mean", "Variance")},
                                  {"Y": op.output("Y")},
                                  {"epsilon": op.attrs["epsilon"],
                                   "data_layout": op.attrs["data_layout"]}))
                continue
        out.append(op)
    return out
