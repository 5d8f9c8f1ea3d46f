"""multiplex (paddle.multiplex): row i of Out is row i of X[Ids[i]], the candidates X of one
shape (rank >= 2) and Ids an int32 / int64 [N, 1] whose values must name a candidate (checked
when the program runs, as Paddle's kernel refuses others). Its grad gives each X[k] the rows
of dOut that chose it, zeros elsewhere."""
from __future__ import annotations

import numpy as np
from fluidc.frontend.lazy_import import torch

from ..dtypes import VarType
from ..errors import OpError, ShapeError
from .define import grad_like
from .registry import IndexBound, OpDef, OpDesc, VarInfo, grad_name, register, slots


def _infer(ins, a):
    xs, ids = ins["X"], ins["Ids"][0]
    shape = xs[0].shape
    if len(shape) < 2:
        raise ShapeError(f"op 'multiplex': X must have rank >= 2, got shape {list(shape)}")
    if any(x.shape != shape or x.dtype != xs[0].dtype for x in xs):
        raise ShapeError(f"op 'multiplex': every X must have one shape and dtype, got "
                         f"{[(list(x.shape), x.dtype.name) for x in xs]}")
    if ids.dtype not in (VarType.INT32, VarType.INT64):
        raise OpError(f"op 'multiplex': Ids must be int32 or int64, got {ids.dtype.name}")
    if len(ids.shape) != 2 or ids.shape[1] != 1:
        raise ShapeError(f"op 'multiplex': Ids must have shape [N, 1], got {list(ids.shape)}")
    return {"Out": [VarInfo(shape, xs[0].dtype, xs[0].lod_level)]}


def _indices(shapes, a):
    return {"Ids": IndexBound(0, len(shapes["X"]))}


def _rows(ids) -> np.ndarray:
    return np.asarray(ids).reshape(-1).astype(np.int64)


def _reference(ins, a):
    xs = np.stack([np.asarray(x) for x in ins["X"]])
    ids = _rows(ins["Ids"][0])
    return {"Out": [xs[ids, np.arange(len(ids))]]}


def _run(ins, outs, a, rng):
    ids = ins["Ids"][0].reshape(-1).long()
    rows = torch.arange(ids.numel(), device=ids.device)
    outs["Out"][0].copy_(torch.stack(ins["X"])[ids, rows])


def _grad(op: OpDesc) -> list[OpDesc]:
    return [OpDesc("multiplex_grad", {"X": op.input("X"), "Ids": op.input("Ids"),
                                      "Out@GRAD": [grad_name(op.output("Out")[0])]},
                   grad_like(op, "X"), dict(op.attrs))]


def _chose(ids, k, ndim):
    """Ids == k as a mask broadcasting over the rows' other dims."""
    return (ids == k).reshape((-1,) + (1,) * (ndim - 1))


def _grad_reference(ins, a):
    d = np.asarray(ins["Out@GRAD"][0])
    ids = _rows(ins["Ids"][0])
    return {"X@GRAD": [np.where(_chose(ids, k, d.ndim), d, 0).astype(d.dtype)
                       for k in range(len(ins["X"]))]}


def _grad_run(ins, outs, a, rng):
    d = ins["Out@GRAD"][0]
    ids = ins["Ids"][0].reshape(-1)
    for k, t in enumerate(outs.get("X@GRAD", [])):  # dropped grads are None
        if t is not None:
            torch.where(_chose(ids, k, d.dim()), d, torch.zeros((), dtype=d.dtype), out=t)


register(OpDef("multiplex", slots("X*", "Ids"), slots("Out"), {}, _infer, "extern",
               reference=_reference, grad=_grad, run=_run, indices=_indices))
register(OpDef("multiplex_grad", slots("X*", "Ids", "Out@GRAD"), slots("X@GRAD*?"), {},
               lambda ins, a: {"X@GRAD": list(ins["X"])}, "extern",
               reference=_grad_reference, run=_grad_run, indices=_indices))
