"""pad (F.pad's constant padding of any dims, Paddle's `pad` op): Out is X with
paddings[2 * i] values of pad_value before and paddings[2 * i + 1] after along each dim i.
pad_grad: X@GRAD is the slice of Out@GRAD where X sits."""
from __future__ import annotations

import numpy as np

from ..errors import ShapeError
from .registry import OpDef, OpDesc, VarInfo, grad_name, register, slots

ATTRS = {"paddings": [], "pad_value": 0.0}


def _pairs(rank: int, a) -> list[tuple[int, int]]:
    p = [int(v) for v in a["paddings"]]
    if len(p) != 2 * rank:
        raise ShapeError(f"op 'pad': paddings must hold 2 values per dim of X (rank {rank}), "
                         f"got {p}")
    if min(p, default=0) < 0:
        raise ShapeError(f"op 'pad': paddings must be non-negative, got {p}")
    return [(p[2 * i], p[2 * i + 1]) for i in range(rank)]


def _infer(ins, a):
    x = ins["X"][0]
    shape = tuple(d + lo + hi if d >= 0 else -1 for d, (lo, hi) in zip(x.shape, _pairs(
        len(x.shape), a)))
    return {"Out": [VarInfo(shape, x.dtype, x.lod_level)]}


def _inside(shape, a) -> tuple:
    """Where X sits in Out."""
    return tuple(slice(lo, lo + d) for d, (lo, _) in zip(shape, _pairs(len(shape), a)))


def _reference(ins, a):
    x = np.asarray(ins["X"][0])
    return {"Out": [np.pad(x, _pairs(x.ndim, a), constant_values=x.dtype.type(a["pad_value"]))]}


def _run(ins, outs, a, rng):
    x, out = ins["X"][0], outs["Out"][0]
    out.fill_(a["pad_value"])
    out[_inside(tuple(x.shape), a)] = x


def _grad(op: OpDesc) -> list[OpDesc]:
    return [OpDesc("pad_grad", {"X": op.input("X"), "Out@GRAD": [grad_name(op.output("Out")[0])]},
                   {"X@GRAD": [grad_name(op.input("X")[0])]}, dict(op.attrs))]


def _grad_reference(ins, a):
    x, d = np.asarray(ins["X"][0]), np.asarray(ins["Out@GRAD"][0])
    return {"X@GRAD": [d[_inside(x.shape, a)].copy()]}


def _grad_run(ins, outs, a, rng):
    x, d = ins["X"][0], ins["Out@GRAD"][0]
    outs["X@GRAD"][0].copy_(d[_inside(tuple(x.shape), a)])


register(OpDef("pad", slots("X"), slots("Out"), ATTRS, _infer, "extern", reference=_reference,
               grad=_grad, run=_run))
register(OpDef("pad_grad", slots("X", "Out@GRAD"), slots("X@GRAD"), ATTRS,
               lambda ins, a: {"X@GRAD": [VarInfo(ins["X"][0].shape, ins["Out@GRAD"][0].dtype)]},
               "extern", reference=_grad_reference, run=_grad_run))
