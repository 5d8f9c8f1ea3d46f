"""cumsum: a running sum along an axis (or over the flattened input), optionally exclusive
(each element left out of its own sum) and reversed; its grad is the reversed scan of Out@GRAD."""
from __future__ import annotations

import math

import numpy as np
from fluidc.frontend.lazy_import import torch

from ..errors import ShapeError
from .registry import OpDef, OpDesc, VarInfo, grad_name, register, slots

CUMSUM_ATTRS = {"axis": -1, "flatten": False, "exclusive": False, "reverse": False}


def _axis(a, rank: int, op: str) -> int:
    axis = a["axis"]
    if not -rank <= axis < max(rank, 1):
        raise ShapeError(f"op '{op}': axis {axis} is out of range for rank {rank}")
    return axis % max(rank, 1)


def _infer(ins, a):
    x = ins["X"][0]
    if a["flatten"]:
        n = -1 if -1 in x.shape else math.prod(x.shape)
        return {"Out": [VarInfo((n,), x.dtype, x.lod_level)]}
    _axis(a, len(x.shape), "cumsum")
    return {"Out": [VarInfo(tuple(x.shape), x.dtype, x.lod_level)]}


def scan(x, a, xp):
    """cumsum's value for attrs `a` on a numpy array (xp=np) or torch tensor (xp=torch)."""
    if a["flatten"]:
        x = x.reshape(-1)
    if x.ndim == 0:
        x = x.reshape(1)
    axis = _axis(a, x.ndim, "cumsum")
    flip = (lambda v: np.flip(v, axis)) if xp is np else (lambda v: torch.flip(v, (axis,)))
    v = flip(x) if a["reverse"] else x
    s = np.cumsum(v, axis=axis, dtype=v.dtype) if xp is np else torch.cumsum(v, axis)
    if a["exclusive"]:
        s = s - v
    return flip(s) if a["reverse"] else s


def _ref(ins, a):
    x = np.asarray(ins["X"][0])
    return {"Out": [np.ascontiguousarray(scan(x, a, np))]}


def _run(ins, outs, a, rng):
    outs["Out"][0].copy_(scan(ins["X"][0], a, torch).reshape(outs["Out"][0].shape))


def _grad(op: OpDesc) -> list[OpDesc]:
    return [OpDesc("cumsum_grad", {"X": op.input("X"),
                                   "Out@GRAD": [grad_name(op.output("Out")[0])]},
                   {"X@GRAD": [grad_name(op.input("X")[0])]}, dict(op.attrs))]


def _reversed(a):
    return {**a, "reverse": not a["reverse"]}


def _grad_ref(ins, a):
    x, d = np.asarray(ins["X"][0]), np.asarray(ins["Out@GRAD"][0])
    return {"X@GRAD": [np.ascontiguousarray(scan(d, _reversed(a), np)).reshape(x.shape)]}


def _grad_run(ins, outs, a, rng):
    dx = outs["X@GRAD"][0]
    dx.copy_(scan(ins["Out@GRAD"][0], _reversed(a), torch).reshape(dx.shape))


def _grad_infer(ins, a):
    x = ins["X"][0]
    return {"X@GRAD": [VarInfo(tuple(x.shape), x.dtype, x.lod_level)]}


register(OpDef("cumsum", slots("X"), slots("Out"), CUMSUM_ATTRS, _infer, "extern",
               reference=_ref, grad=_grad, run=_run))
register(OpDef("cumsum_grad", slots("X", "Out@GRAD"), slots("X@GRAD?"), CUMSUM_ATTRS,
               _grad_infer, "extern", reference=_grad_ref, run=_grad_run))
