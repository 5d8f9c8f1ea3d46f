"""Dropout as pointwise work, so it fuses with what makes its input (attention's softmax).

A `dropout` op is a library call; left as one, it closes the kernel computing its X (the
softmax row kernel of attention) and costs a pass over X and Out of its own. After lowering:
- with `is_test`, Out = X * test_scale is the pointwise `scale` (an identity for
  upscale_in_train, which the expression builder drops, so Out is stored straight from the
  kernel that makes X);
- in training, `dropout_mask` draws Mask from the op's own random stream (the same draws the
  library op makes: bit-identical results) and, reading no input, is hoisted before every op,
  where it splits no kernel; `dropout_apply` computes Out = X * (Mask * train_scale) as
  pointwise work. dropout_grad was already pointwise and reads the same Mask.
Left alone: a dropout reading a Seed tensor, one over a non-float X, and an is_test one whose
Mask (all ones) something reads or fetches.
"""
from __future__ import annotations

from ..frontend.dtypes import VarType, to_numpy_dtype
from ..frontend.ops import OpDesc, VarInfo
from ..frontend.ops.registry import EMPTY_VAR
from ..frontend.ops.nn import dropout_scales
from .lower import TempNamer


def _mask(op: OpDesc) -> str | None:
    return next((n for n in op.output("Mask") if n != EMPTY_VAR), None)


def _mask_used(op: OpDesc, ops: list[OpDesc], live_out: set[str]) -> bool:
    mask = _mask(op)
    return mask is not None and (mask in live_out
                                 or any(mask in o.input_arg_names for o in ops if o is not op))


def split_dropout(ops: list[OpDesc], infos: dict[str, VarInfo],
                  live_out: set[str]) -> list[OpDesc]:
    """The ops with each fitting dropout rewritten as the module says."""
    namer = TempNamer(infos, "@dropout@")
    hoisted: list[OpDesc] = []
    out: list[OpDesc] = []
    for op in ops:
        x = op.input("X")[0] if op.type == "dropout" else None
        if x is None or op.input("Seed") or to_numpy_dtype(infos[x].dtype).kind != "f":
            out.append(op)
            continue
        a, origin = op.attrs, op.origin or op.type
        if a["is_test"]:
            if _mask_used(op, ops, live_out):
                out.append(op)
                continue
            out.append(OpDesc("scale", {"X": [x]}, {"Out": op.output("Out")},
                              {"scale": dropout_scales(a)[1], "bias": 0.0,
                               "bias_after_scale": True},
                              callsite=op.callsite, origin=origin))
            continue
        shape = tuple(infos[x].shape)
        mask = _mask(op) or namer(VarInfo(shape, VarType.UINT8))
        infos[mask] = VarInfo(shape, VarType.UINT8, infos[x].lod_level)
        hoisted.append(OpDesc("dropout_mask", {}, {"Mask": [mask]},
                              {**a, "shape": [int(d) for d in shape]},
                              callsite=op.callsite, origin=origin))
        out.append(OpDesc("dropout_apply", {"X": [x], "Mask": [mask]}, {"Out": op.output("Out")},
                          dict(a), callsite=op.callsite, origin=origin))
    return hoisted + out
