"""lod_reset (Paddle 1.x): X's values with a new LoD, and is_empty.

lod_reset's Out is X with the LoD of Y where Y has one (all its levels; their last must cover
X's rows), else one level of offsets: Y's int values, or the target_lod attribute where there
is no Y; append=True adds that level below X's LoD instead of replacing it. Y's values are
known at run time only, so lod_reset is a host op (kind 'array', run by the reference
executor, as the other LoD-setting ops). Its grad (Paddle's lod_reset_grad) hands Out@GRAD
to X@GRAD with X's LoD.

is_empty: a bool [1], whether X has no elements (an extern: compiled plans run it too).
"""
from __future__ import annotations

import numpy as np

from ..dtypes import VarType
from ..errors import OpError
from .lod_split import lod_of
from .registry import LOD_ATTR, OpDef, OpDesc, VarInfo, grad_name, register, slots


def _offsets(level, rows: int) -> tuple[int, ...]:
    level = tuple(int(o) for o in np.asarray(level).reshape(-1))
    if len(level) < 2 or level[0] != 0 or any(b < a for a, b in zip(level, level[1:])) or \
            level[-1] != rows:
        raise OpError(f"op 'lod_reset': the target LoD {list(level)} must start at 0, never "
                      f"decrease and end at X's row count {rows}")
    return level


def _reset_ref(ins, a, outs):
    x = np.asarray(ins["X"][0])
    rows = x.shape[0] if x.ndim else 1
    y = (ins.get("Y") or [None])[0]
    y_lod = lod_of(a, "Y")
    if y is not None and y_lod:
        if y_lod[-1][-1] != rows:
            raise OpError(f"op 'lod_reset': Y's LoD ends at {y_lod[-1][-1]} but X has {rows} "
                          f"rows")
        lod = tuple(tuple(level) for level in y_lod)
    else:
        if y is None and not a["target_lod"]:
            raise OpError("op 'lod_reset': give Y (a var with a LoD, or the offsets) or "
                          "target_lod")
        level = _offsets(a["target_lod"] if y is None else y, rows)
        x_lod = tuple(lod_of(a, "X") or ()) if a["append"] else ()
        lod = x_lod + (level,)
    return {"Out": [x.copy()], LOD_ATTR: {"Out": [lod]}}


def _reset_grad(op: OpDesc) -> list[OpDesc]:
    return [OpDesc("lod_reset_grad", {"X": op.input("X"),
                                      "Out@GRAD": [grad_name(op.output("Out")[0])]},
                   {"X@GRAD": [grad_name(op.input("X")[0])]}, {})]


register(OpDef("lod_reset", slots("X", "Y?"), slots("Out"), {"target_lod": [], "append": False},
               lambda ins, a: {"Out": [VarInfo(ins["X"][0].shape, ins["X"][0].dtype,
                                               max(ins["X"][0].lod_level, 1))]},
               "array", reference=_reset_ref, grad=_reset_grad))
register(OpDef("lod_reset_grad", slots("X", "Out@GRAD"), slots("X@GRAD"), {},
               lambda ins, a: {"X@GRAD": [ins["X"][0]]}, "array",
               reference=lambda ins, a, outs: {
                   "X@GRAD": [np.asarray(ins["Out@GRAD"][0]).copy()],
                   LOD_ATTR: {"X@GRAD": [lod_of(a, "X")]}}))


def _is_empty_run(ins, outs, a, rng):
    outs["Out"][0].fill_(ins["X"][0].numel() == 0)


register(OpDef("is_empty", slots("X"), slots("Out"), {},
               lambda ins, a: {"Out": [VarInfo((1,), VarType.BOOL)]}, "extern",
               reference=lambda ins, a: {"Out": [np.asarray([np.size(ins["X"][0]) == 0])]},
               run=_is_empty_run))
