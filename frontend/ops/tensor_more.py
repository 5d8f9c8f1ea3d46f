"""Paddle 2.x's diagonal and cumprod ops, run by torch. diagonal: Out holds Input's offset-th
diagonals of its (axis1, axis2) planes, those two dims removed and the diagonal appended as the
last dim (numpy's layout); diagonal_grad puts Out@GRAD back on those diagonals, zero elsewhere.
cumprod: running products along dim, its grad exact where X holds zeros."""
from __future__ import annotations

import numpy as np
from fluidc.frontend.lazy_import import torch

from .define import input_grad_op
from .indexing_more import _define, _diag_len, _diag_positions, _grad_like, plane_axes
from .registry import VarInfo
from .shape import _axis

DIAGONAL_ATTRS = {"offset": 0, "axis1": 0, "axis2": 1}


def _plane(rank: int, a) -> tuple[int, int]:
    return plane_axes(rank, a, "diagonal")


def _infer(ins, a):
    x = ins["Input"][0]
    a1, a2 = _plane(len(x.shape), a)
    rest = tuple(d for i, d in enumerate(x.shape) if i not in (a1, a2))
    n = _diag_len(x.shape[a1], x.shape[a2], a["offset"])
    return {"Out": [VarInfo(rest + (n,), x.dtype)]}


def _ref(ins, a):
    x = np.asarray(ins["Input"][0])
    a1, a2 = _plane(x.ndim, a)
    return {"Out": [np.diagonal(x, a["offset"], a1, a2).copy()]}


def _run(ins, outs, a, rng):
    x = ins["Input"][0]
    a1, a2 = _plane(x.dim(), a)
    outs["Out"][0].copy_(torch.diagonal(x, a["offset"], a1, a2))


def _grad_ref(ins, a):
    x, d = np.asarray(ins["Input"][0]), np.asarray(ins["Out@GRAD"][0])
    a1, a2 = _plane(x.ndim, a)
    dx = np.zeros(x.shape, d.dtype)
    rows, cols = _diag_positions(d.shape[-1], a["offset"])
    np.moveaxis(dx, (a1, a2), (-2, -1))[..., rows, cols] = d
    return {"Input@GRAD": [dx]}


def _grad_run(ins, outs, a, rng):
    x, d = ins["Input"][0], ins["Out@GRAD"][0]
    a1, a2 = _plane(x.dim(), a)
    torch.diagonal(outs["Input@GRAD"][0].zero_(), a["offset"], a1, a2).copy_(d)


_define("diagonal", ["Input"], ["Out"], DIAGONAL_ATTRS, _infer, _run, _ref,
        lambda op: input_grad_op(op, "Input"))
_define("diagonal_grad", ["Input", "Out@GRAD"], ["Input@GRAD?"], DIAGONAL_ATTRS,
        _grad_like("Input"), _grad_run, _grad_ref)


# ---------------------------------------------------------------------------------------------
# cumprod: the running products of X along `dim`; cumprod_grad's dX[j] is the sum over i >= j
# of dOut[i] times the product of X[:i+1] without X[j] (exact where X holds zeros).

def _cumprod_dim(x, a) -> int:
    return _axis(a["dim"], len(x.shape), "cumprod")


def _cumprod_grad_ref(ins, a):
    x, d = np.asarray(ins["X"][0]), np.asarray(ins["Out@GRAD"][0])
    dim = _cumprod_dim(x, a)
    x, d = np.moveaxis(x, dim, -1), np.moveaxis(d, dim, -1)
    dx = np.zeros(x.shape, d.dtype)
    for j in range(x.shape[-1]):
        without = x.copy()
        without[..., j] = 1
        dx[..., j] = (d[..., j:] * np.cumprod(without, -1)[..., j:]).sum(-1)
    return {"X@GRAD": [np.moveaxis(dx, -1, dim)]}


def _cumprod_grad_run(ins, outs, a, rng):
    x, d = ins["X"][0], ins["Out@GRAD"][0]
    with torch.enable_grad():
        xg = x.detach().clone().requires_grad_(True)
        dx, = torch.autograd.grad(torch.cumprod(xg, _cumprod_dim(x, a)), xg, d)
    outs["X@GRAD"][0].copy_(dx)


def _cumprod_infer(ins, a):
    x = ins["X"][0]
    _cumprod_dim(x, a)
    return {"Out": [VarInfo(x.shape, x.dtype)]}


def _cumprod_ref(ins, a):
    x = np.asarray(ins["X"][0])
    return {"Out": [np.cumprod(x, _cumprod_dim(x, a), dtype=x.dtype)]}


def _cumprod_run(ins, outs, a, rng):
    x = ins["X"][0]
    outs["Out"][0].copy_(torch.cumprod(x, _cumprod_dim(x, a)))


_define("cumprod", ["X"], ["Out"], {"dim": -1}, _cumprod_infer, _cumprod_run, _cumprod_ref,
        lambda op: input_grad_op(op, "X"))
_define("cumprod_grad", ["X", "Out@GRAD"], ["X@GRAD?"], {"dim": -1}, _grad_like("X"),
        _cumprod_grad_run, _cumprod_grad_ref)
