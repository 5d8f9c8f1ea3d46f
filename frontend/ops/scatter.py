"""scatter (paddle.scatter): Out = X with rows Ids replaced by Updates' rows; with duplicate ids
the last update wins (overwrite, Paddle's CPU kernel), or, overwrite=False, the indexed rows are
zeroed and every update added. Ids (int32 / int64, [M] or [M, 1]) must lie in [-X.shape[0],
X.shape[0]), a negative id counting from the end (Paddle 3.3.1's kernel), checked when the
program runs. The grad is Paddle's in both modes: dX = dOut with the indexed
rows zeroed, dUpdates = dOut's indexed rows."""
from __future__ import annotations

import numpy as np
from fluidc.frontend.lazy_import import torch

from ..dtypes import VarType
from ..errors import OpError, ShapeError
from .registry import IndexBound, OpDef, OpDesc, VarInfo, grad_name, register, slots

ATTRS = {"overwrite": True}


def _check_ids(ids: VarInfo) -> None:
    if ids.dtype not in (VarType.INT32, VarType.INT64):
        raise OpError(f"op 'scatter': Ids must be int32 or int64, got {ids.dtype.name}")
    if not (len(ids.shape) == 1 or (len(ids.shape) == 2 and ids.shape[1] == 1)):
        raise ShapeError(f"op 'scatter': Ids must have shape [M] or [M, 1], got "
                         f"{list(ids.shape)}")


def _infer(ins, a):
    x, ids, upd = ins["X"][0], ins["Ids"][0], ins["Updates"][0]
    _check_ids(ids)
    if tuple(upd.shape[1:]) != tuple(x.shape[1:]) or (
            -1 not in (upd.shape[0], ids.shape[0]) and upd.shape[0] != ids.shape[0]):
        raise ShapeError(f"op 'scatter': Updates must have shape [len(Ids)] + X.shape[1:] = "
                         f"{[ids.shape[0]] + list(x.shape[1:])}, got {list(upd.shape)}")
    return {"Out": [VarInfo(x.shape, x.dtype, x.lod_level)]}


def _rows(shape) -> IndexBound:
    """Ids name rows of a dim of `shape`[0] rows, negative ones from the end."""
    return IndexBound(-shape[0], shape[0]) if shape[0] >= 0 else IndexBound(0)


def _ids(ids, rows: int):
    """Ids as a flat array of rows in [0, rows) (numpy or torch)."""
    flat = ids.reshape(-1)
    return flat % rows if rows else flat


def _indices(shapes, a):
    return {"Ids": _rows(shapes["X"][0])}


def _reference(ins, a):
    x, upd = np.asarray(ins["X"][0]), np.asarray(ins["Updates"][0])
    ids = _ids(np.asarray(ins["Ids"][0]), x.shape[0])
    out = x.copy()
    if a["overwrite"]:
        for i, row in zip(ids, upd):  # in order: the last update of a row wins
            out[i] = row
    else:
        out[ids] = 0
        np.add.at(out, ids, upd)
    return {"Out": [out]}


def _run(ins, outs, a, rng):
    x, upd, out = ins["X"][0], ins["Updates"][0], outs["Out"][0]
    ids = _ids(ins["Ids"][0].long(), x.shape[0])
    out.copy_(x)
    if a["overwrite"]:
        # each target row's last update: the largest position naming it
        pos = torch.full((x.shape[0],), -1, dtype=torch.int64, device=x.device)
        pos.scatter_reduce_(0, ids, torch.arange(ids.numel(), device=x.device), "amax")
        rows = torch.nonzero(pos >= 0).reshape(-1)
        out[rows] = upd[pos[rows]]
    else:
        out[ids] = 0
        out.index_add_(0, ids, upd)


def _grad(op: OpDesc) -> list[OpDesc]:
    return [OpDesc("scatter_grad", {"Ids": op.input("Ids"), "Updates": op.input("Updates"),
                                    "Out@GRAD": [grad_name(op.output("Out")[0])]},
                   {"X@GRAD": [grad_name(op.input("X")[0])],
                    "Updates@GRAD": [grad_name(op.input("Updates")[0])]}, dict(op.attrs))]


def _grad_infer(ins, a):
    d, upd = ins["Out@GRAD"][0], ins["Updates"][0]
    return {"X@GRAD": [VarInfo(d.shape, d.dtype)], "Updates@GRAD": [VarInfo(upd.shape, d.dtype)]}


def _grad_reference(ins, a):
    d = np.asarray(ins["Out@GRAD"][0])
    ids = _ids(np.asarray(ins["Ids"][0]), d.shape[0])
    dx = d.copy()
    dx[ids] = 0
    return {"X@GRAD": [dx], "Updates@GRAD": [d[ids]]}


def _grad_run(ins, outs, a, rng):
    d = ins["Out@GRAD"][0]
    ids = _ids(ins["Ids"][0].long(), d.shape[0])
    dx, du = ((outs.get(s) or [None])[0] for s in ("X@GRAD", "Updates@GRAD"))
    if dx is not None:
        dx.copy_(d)
        dx[ids] = 0
    if du is not None:
        torch.index_select(d, 0, ids, out=du)


def _grad_indices(shapes, a):
    return {"Ids": _rows(shapes["Out@GRAD"][0])}


register(OpDef("scatter", slots("X", "Ids", "Updates"), slots("Out"), ATTRS, _infer, "extern",
               reference=_reference, grad=_grad, run=_run, indices=_indices))
register(OpDef("scatter_grad", slots("Ids", "Updates", "Out@GRAD"),
               slots("X@GRAD?", "Updates@GRAD?"), ATTRS, _grad_infer, "extern",
               reference=_grad_reference, run=_grad_run, indices=_grad_indices))
