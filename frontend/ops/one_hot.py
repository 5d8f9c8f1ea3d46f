"""one_hot_v2 (Out gets a new last dim of size depth) and 1.x's one_hot (X's last dim, of size
1, becomes depth). Ids outside [0, depth) are an error unless allow_out_of_range, which gives
them an all-zero row. A depth_tensor input (one int) overrides `depth`, as in Paddle; it is a
shape input, folded into `depth` before shape inference (passes/shape_inputs.py)."""
from __future__ import annotations

import numpy as np
from fluidc.frontend.lazy_import import torch

from ..dtypes import VarType, convert_dtype, to_numpy_dtype
from ..errors import OpError, ShapeError
from .registry import OpDef, VarInfo, register, slots

ONE_HOT_ATTRS = {"depth": -1, "dtype": int(VarType.FP32), "allow_out_of_range": False}


def _lead(op: str, shape) -> tuple[int, ...]:
    if op == "one_hot_v2":
        return tuple(shape)
    if not shape or shape[-1] not in (1, -1):
        raise ShapeError(f"op 'one_hot': X must end in a dim of 1, got {list(shape)}")
    return tuple(shape[:-1])


def _depth(op: str, a) -> int:
    if a["depth"] < 1:
        raise OpError(f"op '{op}': depth must be positive, got {a['depth']}")
    return int(a["depth"])


def _fold(op: str):
    def fold(a, values):
        depth = np.asarray(values["depth_tensor"][0]).reshape(-1)
        if depth.size != 1:
            raise ShapeError(f"op '{op}': depth_tensor must hold one value, got {depth.size}")
        return {**a, "depth": int(depth[0])}
    return fold


def _check_ids(op: str, ids: np.ndarray, depth: int, a) -> None:
    bad = (ids < 0) | (ids >= depth)
    if bad.any() and not a["allow_out_of_range"]:
        raise OpError(f"op '{op}': id {int(ids[bad][0])} is outside [0, {depth}); set "
                      f"allow_out_of_range to give such ids an all-zero row")


def _register(op: str) -> None:
    fold = _fold(op)

    def infer(ins, a):
        x = ins["X"][0]
        depth = -1 if ins.get("depth_tensor") else _depth(op, a)  # known when the program runs
        return {"Out": [VarInfo(_lead(op, x.shape) + (depth,),
                                convert_dtype(a["dtype"]), x.lod_level)]}

    def reference(ins, a):
        if ins.get("depth_tensor"):
            a = fold(a, ins)
        ids = np.asarray(ins["X"][0]).astype(np.int64)
        depth = _depth(op, a)
        ids = ids.reshape(_lead(op, ids.shape))
        _check_ids(op, ids, depth, a)
        out = ids[..., None] == np.arange(depth)
        return {"Out": [out.astype(to_numpy_dtype(a["dtype"]))]}

    def run(ins, outs, a, rng):
        out = outs["Out"][0]
        depth = _depth(op, a)
        ids = ins["X"][0].long().reshape(out.shape[:-1])
        _check_ids(op, ids.cpu().numpy(), depth, a)
        out.copy_(ids.unsqueeze(-1) == torch.arange(depth, device=ids.device))

    register(OpDef(op, slots("X", "depth_tensor?"), slots("Out"), ONE_HOT_ATTRS, infer, "extern",
                   reference=reference, run=run, shape_inputs=("depth_tensor",), fold=fold))


_register("one_hot_v2")
_register("one_hot")
