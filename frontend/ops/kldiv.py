"""kldiv_loss (F.kl_div): elementwise Target * (log(Target) - X) where Target > 0, else 0 (or,
log_target, exp(Target) * (Target - X)), reduced by `reduction`: none (X's shape), sum, mean
(over every element) or batchmean (the sum over X's first dim); a reduced loss is 0-d, as in
Paddle 3.x. Its grad: dX = -Target (where Target > 0; -exp(Target) with log_target) times
dLoss, divided by the count mean / batchmean divide by."""
from __future__ import annotations

import numpy as np
from fluidc.frontend.lazy_import import torch

from ..errors import OpError, ShapeError
from .registry import OpDef, OpDesc, VarInfo, grad_name, register, slots

ATTRS = {"reduction": "mean", "log_target": False}
_REDUCTIONS = ("none", "batchmean", "mean", "sum")


def _check(a) -> None:
    if a["reduction"] not in _REDUCTIONS:
        raise OpError(f"op 'kldiv_loss': reduction must be one of {list(_REDUCTIONS)}, got "
                      f"{a['reduction']!r}")


def _infer(ins, a):
    _check(a)
    x, t = ins["X"][0], ins["Target"][0]
    if tuple(x.shape) != tuple(t.shape) and -1 not in x.shape + t.shape:
        raise ShapeError(f"op 'kldiv_loss': X {list(x.shape)} and Target {list(t.shape)} must "
                         f"have one shape")
    return {"Loss": [VarInfo(tuple(x.shape) if a["reduction"] == "none" else (), x.dtype)]}


def _divisor(shape, a) -> int:
    """What the reduction divides the sum by (1 for sum)."""
    if a["reduction"] == "mean":
        return int(np.prod(shape))
    return int(shape[0]) if a["reduction"] == "batchmean" and shape else 1


def _reference(ins, a):
    x, t = (np.asarray(ins[s][0]) for s in ("X", "Target"))
    if a["log_target"]:
        loss = np.exp(t) * (t - x)
    else:
        with np.errstate(divide="ignore", invalid="ignore"):
            loss = np.where(t > 0, t * (np.log(np.where(t > 0, t, 1)) - x), 0).astype(x.dtype)
    if a["reduction"] == "none":
        return {"Loss": [loss]}
    return {"Loss": [np.asarray(loss.sum() / _divisor(x.shape, a), x.dtype)]}


def _run(ins, outs, a, rng):
    x, t = ins["X"][0], ins["Target"][0]
    if a["log_target"]:
        loss = torch.exp(t) * (t - x)
    else:
        pos = t > 0
        loss = torch.where(pos, t * (torch.log(torch.where(pos, t, torch.ones_like(t))) - x),
                           torch.zeros_like(x))
    out = outs["Loss"][0]
    out.copy_(loss if a["reduction"] == "none" else loss.sum() / _divisor(tuple(x.shape), a))


def _grad(op: OpDesc) -> list[OpDesc]:
    return [OpDesc("kldiv_loss_grad", {"X": op.input("X"), "Target": op.input("Target"),
                                       "Loss@GRAD": [grad_name(op.output("Loss")[0])]},
                   {"X@GRAD": [grad_name(op.input("X")[0])]}, dict(op.attrs))]


def _grad_reference(ins, a):
    x, t, d = (np.asarray(ins[s][0]) for s in ("X", "Target", "Loss@GRAD"))
    slope = -np.exp(t) if a["log_target"] else np.where(t > 0, -t, 0)
    return {"X@GRAD": [(slope * d / _divisor(x.shape, a)).astype(x.dtype)]}


def _grad_run(ins, outs, a, rng):
    x, t, d = (ins[s][0] for s in ("X", "Target", "Loss@GRAD"))
    slope = -torch.exp(t) if a["log_target"] else torch.where(t > 0, -t, torch.zeros_like(t))
    outs["X@GRAD"][0].copy_(slope * d / _divisor(tuple(x.shape), a))


register(OpDef("kldiv_loss", slots("X", "Target"), slots("Loss"), ATTRS, _infer, "extern",
               reference=_reference, grad=_grad, run=_run))
register(OpDef("kldiv_loss_grad", slots("X", "Target", "Loss@GRAD"), slots("X@GRAD"), ATTRS,
               lambda ins, a: {"X@GRAD": [ins["X"][0]]}, "extern", reference=_grad_reference,
               run=_grad_run))
