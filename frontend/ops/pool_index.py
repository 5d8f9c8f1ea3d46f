"""max_pool2d_with_index: pool2d's max over NCHW data that also gives Mask, each maximum's
position h * W + w in its input plane (F.max_pool2d(return_mask=True)); its grad scatters dOut
to those positions. Windows, output sizes and the torch kernels are pool2d's (ops/conv.py);
ties go to the first maximum in row-major window order, as in Paddle's kernel, which starts
from the dtype's lowest value and index -1: a window holding nothing above that (wholly in the
padding, or -inf) gives that lowest value and Mask -1, and no gradient."""
from __future__ import annotations

import math

import numpy as np
from fluidc.frontend.lazy_import import torch
from fluidc.frontend.lazy_import import torch_functional as F

from ..dtypes import VarType
from .conv import POOL_ATTRS, _bound, _pool_call, _pool_infer, _windows, pool_geometry
from .registry import OpDef, OpDesc, VarInfo, grad_name, register, slots

# Paddle's attributes: no data_format (NCHW) and no padding_algorithm (explicit paddings)
WITH_INDEX_ATTRS = {"ksize": [1, 1], "strides": [1, 1], "paddings": [0, 0],
                    "global_pooling": False, "adaptive": False, "ceil_mode": False}
_OP = "max_pool2d_with_index"


def _as_max_pool(a) -> dict:
    """The pool2d attributes that pool the same windows."""
    return {**POOL_ATTRS, **a, "pooling_type": "max", "data_format": "NCHW",
            "padding_algorithm": "EXPLICIT"}


def _infer(ins, a):
    out = _pool_infer(ins, _as_max_pool(a))["Out"][0]
    return {"Out": [out], "Mask": [VarInfo(out.shape, VarType.INT32, out.lod_level)]}


def _reference(ins, a):
    x = np.asarray(ins["X"][0])
    pa = _as_max_pool(a)
    _, k, s, pads, out = pool_geometry(_OP, x.shape, pa)
    n, c, _, w = x.shape
    rows, cols = _windows(pa, x.shape[2:], k, s, pads, out)
    lowest = np.finfo(x.dtype).min
    res = np.full((n, c) + tuple(out), lowest, x.dtype)
    mask = np.full((n, c) + tuple(out), -1, np.int32)
    for i, (h0, h1) in enumerate(rows):
        for j, (w0, w1) in enumerate(cols):
            win = x[:, :, h0:h1, w0:w1].reshape(n, c, -1)
            if win.shape[-1] == 0:  # a window wholly in the padding
                continue
            first = win.argmax(-1)
            best = np.take_along_axis(win, first[..., None], -1)[..., 0]
            found = best > lowest
            res[:, :, i, j] = np.where(found, best, lowest)
            mask[:, :, i, j] = np.where(
                found, (h0 + first // (w1 - w0)) * w + w0 + first % (w1 - w0), -1)
    return {"Out": [res], "Mask": [mask]}


def _run(ins, outs, a, rng):
    A = torch.ops.aten
    x, y, mask = ins["X"][0], outs["Out"][0], outs["Mask"][0]
    if y.numel() == 0:
        return
    _, _, kind, k, s, pad, ceil, explicit = _pool_call(x, _as_max_pool(a), _OP)
    if kind == "adaptive":
        v, idx = A.adaptive_max_pool2d(x, k)
    elif kind == "native":  # torch's indices are positions in the input plane, as Paddle's
        v, idx = A.max_pool2d_with_indices(x, k, s, pad, [1, 1], ceil)
    else:  # positions in the explicitly padded (or cropped) plane, moved back to x's
        t, b, l, r = explicit
        xp = F.pad(x, (l, r, t, b), value=-math.inf)
        v, idx = A.max_pool2d_with_indices(xp, k, s, [0, 0], [1, 1], False)
        idx = (torch.div(idx, xp.shape[3], rounding_mode="floor") - t) * x.shape[3] \
            + idx % xp.shape[3] - l
    found = v > torch.finfo(v.dtype).min
    y.copy_(torch.where(found, v, torch.finfo(v.dtype).min))
    mask.copy_(torch.where(found, idx, -1))


def _grad(op: OpDesc) -> list[OpDesc]:
    return [OpDesc(_OP + "_grad", {"X": op.input("X"), "Mask": op.output("Mask"),
                                   "Out@GRAD": [grad_name(op.output("Out")[0])]},
                   {"X@GRAD": [grad_name(op.input("X")[0])]}, dict(op.attrs))]


def _grad_reference(ins, a):
    x, m, d = (np.asarray(ins[s][0]) for s in ("X", "Mask", "Out@GRAD"))
    n, c, h, w = x.shape
    dx = np.zeros(n * c * h * w, d.dtype)
    m, d = m.reshape(n * c, -1), d.reshape(n * c, -1)
    planes = np.arange(n * c)[:, None] * (h * w)
    np.add.at(dx, (planes + m)[m >= 0], d[m >= 0])  # Mask -1: no position, no gradient
    return {"X@GRAD": [dx.reshape(x.shape)]}


def _grad_run(ins, outs, a, rng):
    dx = _bound(outs, "X@GRAD")
    if dx is None:
        return
    n, c = dx.shape[:2]
    m, d = ins["Mask"][0].reshape(n, c, -1).long(), ins["Out@GRAD"][0].reshape(n, c, -1)
    flat = torch.zeros((n, c, dx.shape[2] * dx.shape[3]), dtype=dx.dtype, device=dx.device)
    flat.scatter_add_(2, m.clamp(min=0), torch.where(m >= 0, d, 0))  # Mask -1: no gradient
    dx.copy_(flat.reshape(dx.shape))


register(OpDef(_OP, slots("X"), slots("Out", "Mask"), WITH_INDEX_ATTRS, _infer, "extern",
               reference=_reference, grad=_grad, run=_run))
register(OpDef(_OP + "_grad", slots("X", "Mask", "Out@GRAD"), slots("X@GRAD?"),
               WITH_INDEX_ATTRS, lambda ins, a: {"X@GRAD": [ins["X"][0]]}, "extern",
               reference=_grad_reference, run=_grad_run))
