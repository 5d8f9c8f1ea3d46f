"""addmm (paddle.addmm): Out = Beta * Input + Alpha * (X @ Y), X [M, K], Y [K, N], Input
broadcasting to [M, N] (rank 1 or 2, each dim 1 or Out's). Its grad: dInput = Beta * dOut
summed back to Input's shape, dX = Alpha * dOut @ Y^T, dY = Alpha * X^T @ dOut."""
from __future__ import annotations

import numpy as np
from fluidc.frontend.lazy_import import torch

from ..errors import ShapeError
from .registry import OpDef, OpDesc, VarInfo, grad_name, register, slots

ATTRS = {"Alpha": 1.0, "Beta": 1.0}


def _infer(ins, a):
    inp, x, y = ins["Input"][0], ins["X"][0], ins["Y"][0]
    if len(x.shape) != 2 or len(y.shape) != 2:
        raise ShapeError(f"op 'addmm': X and Y must be 2-D, got {list(x.shape)} and "
                         f"{list(y.shape)}")
    if -1 not in (x.shape[1], y.shape[0]) and x.shape[1] != y.shape[0]:
        raise ShapeError(f"op 'addmm': X's width {x.shape[1]} must equal Y's height "
                         f"{y.shape[0]}")
    out = (x.shape[0], y.shape[1])
    tail = tuple(inp.shape)
    if not 1 <= len(tail) <= 2 or any(d not in (1, -1, o) and o != -1
                                      for d, o in zip(tail[::-1], out[::-1])):
        raise ShapeError(f"op 'addmm': Input of shape {list(tail)} does not broadcast to "
                         f"{list(out)}")
    return {"Out": [VarInfo(out, x.dtype)]}


def _reference(ins, a):
    inp, x, y = (np.asarray(ins[s][0]) for s in ("Input", "X", "Y"))
    t = x.dtype.type
    return {"Out": [(t(a["Beta"]) * inp + t(a["Alpha"]) * (x @ y)).astype(x.dtype)]}


def _run(ins, outs, a, rng):
    torch.addmm(ins["Input"][0], ins["X"][0], ins["Y"][0], beta=a["Beta"], alpha=a["Alpha"],
                out=outs["Out"][0])


def _grad(op: OpDesc) -> list[OpDesc]:
    return [OpDesc("addmm_grad", {"Input": op.input("Input"), "X": op.input("X"),
                                  "Y": op.input("Y"),
                                  "Out@GRAD": [grad_name(op.output("Out")[0])]},
                   {f"{s}@GRAD": [grad_name(op.input(s)[0])] for s in ("Input", "X", "Y")},
                   dict(op.attrs))]


def _grad_infer(ins, a):
    return {f"{s}@GRAD": [VarInfo(ins[s][0].shape, ins["Out@GRAD"][0].dtype)]
            for s in ("Input", "X", "Y")}


def _sum_to(d, shape):
    """d ([M, N]) summed over the dims Input broadcast along, in Input's shape."""
    lead = d.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(lead + i for i, n in enumerate(shape)
                                      if n == 1 and d.shape[lead + i] != 1)
    return d.sum(axis=axes, keepdims=True).reshape(shape) if axes else d.reshape(shape)


def _grad_reference(ins, a):
    inp, x, y, d = (np.asarray(ins[s][0]) for s in ("Input", "X", "Y", "Out@GRAD"))
    t = d.dtype.type
    return {"Input@GRAD": [t(a["Beta"]) * _sum_to(d, inp.shape)],
            "X@GRAD": [t(a["Alpha"]) * (d @ y.T)], "Y@GRAD": [t(a["Alpha"]) * (x.T @ d)]}


def _grad_run(ins, outs, a, rng):
    inp, x, y, d = (ins[s][0] for s in ("Input", "X", "Y", "Out@GRAD"))
    di, dx, dy = ((outs.get(f"{s}@GRAD") or [None])[0] for s in ("Input", "X", "Y"))
    if di is not None:
        lead = d.dim() - inp.dim()
        axes = list(range(lead)) + [lead + i for i, n in enumerate(inp.shape)
                                    if n == 1 and d.shape[lead + i] != 1]
        di.copy_((d.sum(dim=axes, keepdim=True) if axes else d).reshape(di.shape) * a["Beta"])
    if dx is not None:
        torch.mm(d, y.t(), out=dx).mul_(a["Alpha"])
    if dy is not None:
        torch.mm(x.t(), d, out=dy).mul_(a["Alpha"])


register(OpDef("addmm", slots("Input", "X", "Y"), slots("Out"), ATTRS, _infer, "extern",
               reference=_reference, grad=_grad, run=_run))
register(OpDef("addmm_grad", slots("Input", "X", "Y", "Out@GRAD"),
               slots("Input@GRAD?", "X@GRAD?", "Y@GRAD?"), ATTRS, _grad_infer, "extern",
               reference=_grad_reference, run=_grad_run))
