"""erf (dX = dOut * 2/sqrt(pi) * exp(-x^2), Paddle's ErfGradKernel) and take_along_axis
(Result = Input gathered along Axis at Index, numpy's take_along_axis with negative indices
counted from the end as Paddle 3.3.1's kernel; the grad scatter-adds Result@GRAD back, Paddle's
take_along_axis_grad)."""
from __future__ import annotations

import math

import numpy as np
from fluidc.frontend.lazy_import import torch

from ..dtypes import VarType
from ..errors import OpError, ShapeError
from .define import unary
from .registry import IndexBound, OpDef, OpDesc, VarInfo, grad_name, register, slots

unary("erf", lambda o, x, a: o.erf(x),
      lambda o, x, d, a: o.mul(d, o.mul(o.constant(2 / math.sqrt(math.pi), x.dtype),
                                        o.exp(o.neg(o.mul(x, x))))))

ATTRS = {"Axis": 0}


def _axis(a, rank: int) -> int:
    axis = int(a["Axis"])
    if not -rank <= axis < max(rank, 1):
        raise ShapeError(f"op 'take_along_axis': Axis {axis} is out of range for rank {rank}")
    return axis % max(rank, 1)


def _infer(ins, a):
    x, idx = ins["Input"][0], ins["Index"][0]
    if idx.dtype not in (VarType.INT32, VarType.INT64):
        raise OpError(f"op 'take_along_axis': Index must be int32 or int64, got {idx.dtype.name}")
    if len(idx.shape) != len(x.shape):
        raise ShapeError(f"op 'take_along_axis': Index (shape {list(idx.shape)}) must have the "
                         f"rank of Input (shape {list(x.shape)})")
    axis = _axis(a, len(x.shape))
    for i, (n, m) in enumerate(zip(x.shape, idx.shape)):
        if i != axis and n >= 0 and m >= 0 and m > n:
            raise ShapeError(f"op 'take_along_axis': Index's dim {i} ({m}) exceeds Input's "
                             f"({n}); shapes {list(idx.shape)} and {list(x.shape)}")
    return {"Result": [VarInfo(idx.shape, x.dtype, x.lod_level)]}


def _indices(shapes, a):
    """Positions along Axis, negative ones counted from the end."""
    n = shapes["Input"][0][_axis(a, len(shapes["Input"][0]))]
    return {"Index": IndexBound(-n, n) if n >= 0 else IndexBound(0)}


def _positions(idx, n: int):
    """Index as positions in [0, n) (numpy or torch); the bound check ran before."""
    return idx % n if n else idx


def _leading(t, like_shape, axis: int):
    """t's leading part along every dim but `axis` cut to `like_shape` (Index may be smaller)."""
    return t[tuple(slice(None) if i == axis else slice(0, m) for i, m in enumerate(like_shape))]


def _reference(ins, a):
    x, idx = np.asarray(ins["Input"][0]), np.asarray(ins["Index"][0]).astype(np.int64)
    axis = _axis(a, x.ndim)
    part = _leading(x, idx.shape, axis)
    return {"Result": [np.take_along_axis(part, _positions(idx, x.shape[axis]), axis)]}


def _run(ins, outs, a, rng):
    x, idx = ins["Input"][0], ins["Index"][0].long()
    axis = _axis(a, x.dim())
    torch.gather(_leading(x, idx.shape, axis), axis, _positions(idx, x.shape[axis]),
                 out=outs["Result"][0])


def _grad(op: OpDesc) -> list[OpDesc]:
    return [OpDesc("take_along_axis_grad",
                   {"Input": op.input("Input"), "Index": op.input("Index"),
                    "Result@GRAD": [grad_name(op.output("Result")[0])]},
                   {"Input@GRAD": [grad_name(op.input("Input")[0])]}, dict(op.attrs))]


def _grad_infer(ins, a):
    return {"Input@GRAD": [VarInfo(ins["Input"][0].shape, ins["Result@GRAD"][0].dtype)]}


def _grad_reference(ins, a):
    x, idx = np.asarray(ins["Input"][0]), np.asarray(ins["Index"][0]).astype(np.int64)
    d = np.asarray(ins["Result@GRAD"][0])
    axis = _axis(a, x.ndim)
    dx = np.zeros(x.shape, d.dtype)
    pos = _positions(idx, x.shape[axis])
    grid = list(np.indices(idx.shape, sparse=True))
    grid[axis] = pos
    np.add.at(dx, tuple(grid), d)
    return {"Input@GRAD": [dx]}


def _grad_run(ins, outs, a, rng):
    x, idx, d = ins["Input"][0], ins["Index"][0].long(), ins["Result@GRAD"][0]
    axis = _axis(a, x.dim())
    dx = outs["Input@GRAD"][0].zero_()
    _leading(dx, idx.shape, axis).scatter_add_(axis, _positions(idx, x.shape[axis]), d)


register(OpDef("take_along_axis", slots("Input", "Index"), slots("Result"), ATTRS, _infer,
               "extern", reference=_reference, grad=_grad, run=_run, indices=_indices))
register(OpDef("take_along_axis_grad", slots("Input", "Index", "Result@GRAD"),
               slots("Input@GRAD?"), ATTRS, _grad_infer, "extern", reference=_grad_reference,
               run=_grad_run, indices=_indices))
