"""cvm (paddle.static.nn.continuous_value_model): X [N, D] holds show and click counts in its
first two columns, CVM [N, 2] the show / click values of each row. use_cvm: Y [N, D] is X with
the counts turned into log(show + 1) and log(click + 1) - log(show + 1); otherwise Y [N, D - 2]
drops them. cvm_grad is Paddle's rule, not the derivative: dX's first two columns are CVM's
values, the rest dY's matching columns (dY[:, 2:] with use_cvm, all of dY without)."""
from __future__ import annotations

import numpy as np
from fluidc.frontend.lazy_import import torch

from ..errors import ShapeError
from .conv import _bound
from .registry import OpDef, OpDesc, VarInfo, grad_name, register, slots

CVM_ATTRS = {"use_cvm": True}


def _infer(ins, a):
    x, c = ins["X"][0], ins["CVM"][0]
    if len(x.shape) != 2 or len(c.shape) != 2 or c.shape[1] not in (2, -1):
        raise ShapeError(f"op 'cvm': X must be [N, D] and CVM [N, 2], got X {list(x.shape)}, "
                         f"CVM {list(c.shape)}")
    if x.shape[1] != -1 and x.shape[1] < 2:
        raise ShapeError(f"op 'cvm': X needs at least the 2 count columns, got {list(x.shape)}")
    d = x.shape[1] if a["use_cvm"] or x.shape[1] == -1 else x.shape[1] - 2
    return {"Y": [VarInfo((x.shape[0], d), x.dtype, x.lod_level)]}


def _counts(x, log):
    """The two transformed count columns of x (numpy or torch by `log`)."""
    show = log(x[:, 0] + 1)
    return show, log(x[:, 1] + 1) - show


def _reference(ins, a):
    x = np.asarray(ins["X"][0])
    if not a["use_cvm"]:
        return {"Y": [x[:, 2:].copy()]}
    y = x.copy()
    y[:, 0], y[:, 1] = _counts(x, np.log)
    return {"Y": [y]}


def _run(ins, outs, a, rng):
    x, y = ins["X"][0], outs["Y"][0]
    if not a["use_cvm"]:
        y.copy_(x[:, 2:])
        return
    y.copy_(x)
    show, click = _counts(x, torch.log)
    y[:, 0], y[:, 1] = show, click


def _grad(op: OpDesc) -> list[OpDesc]:
    return [OpDesc("cvm_grad", {"X": op.input("X"), "CVM": op.input("CVM"),
                                "Y@GRAD": [grad_name(op.output("Y")[0])]},
                   {"X@GRAD": [grad_name(op.input("X")[0])]}, dict(op.attrs))]


def _grad_reference(ins, a):
    c, d = np.asarray(ins["CVM"][0]), np.asarray(ins["Y@GRAD"][0])
    return {"X@GRAD": [np.concatenate([c.astype(d.dtype), d[:, 2:] if a["use_cvm"] else d], 1)]}


def _grad_run(ins, outs, a, rng):
    dx = _bound(outs, "X@GRAD")
    if dx is None:
        return
    d = ins["Y@GRAD"][0]
    dx[:, :2] = ins["CVM"][0]
    dx[:, 2:] = d[:, 2:] if a["use_cvm"] else d


register(OpDef("cvm", slots("X", "CVM"), slots("Y"), CVM_ATTRS, _infer, "extern",
               reference=_reference, grad=_grad, run=_run))
register(OpDef("cvm_grad", slots("X", "CVM", "Y@GRAD"), slots("X@GRAD?"), CVM_ATTRS,
               lambda ins, a: {"X@GRAD": [ins["X"][0]]}, "extern", reference=_grad_reference,
               run=_grad_run))
