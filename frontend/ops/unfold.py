"""unfold (F.unfold, nn.Unfold; im2col): Y[n, (c*kh + i)*kw + j, oh_i*ow + ow_j] is X[n, c] at
row oh_i*sh + i*dh - top and column ow_j*sw + j*dw - left, zero outside X. paddings are
[top, left, bottom, right]. Its grad adds each column entry back to the cell it came from
(col2im)."""
from __future__ import annotations

import numpy as np
from fluidc.frontend.lazy_import import torch

from ..errors import ShapeError
from .define import input_grad_op
from .registry import OpDef, OpDesc, VarInfo, register, slots

ATTRS = {"kernel_sizes": [], "strides": [1, 1], "paddings": [0, 0, 0, 0], "dilations": [1, 1]}


def geometry(x_shape, a):
    """((kh, kw), (sh, sw), (top, left, bottom, right), (dh, dw), (oh, ow)) over X."""
    if len(x_shape) != 4:
        raise ShapeError(f"op 'unfold': X must be 4-D [N, C, H, W], got {list(x_shape)}")
    k, s, p, d = (tuple(int(v) for v in a[n]) for n in
                  ("kernel_sizes", "strides", "paddings", "dilations"))
    if len(k) != 2 or len(s) != 2 or len(p) != 4 or len(d) != 2:
        raise ShapeError(f"op 'unfold': kernel_sizes, strides and dilations take 2 values and "
                         f"paddings 4, got {list(k)}, {list(s)}, {list(p)}, {list(d)}")
    if min(k + s + d) < 1 or min(p) < 0:
        raise ShapeError(f"op 'unfold': kernel_sizes, strides and dilations must be positive "
                         f"and paddings >= 0, got {list(k)}, {list(s)}, {list(d)}, {list(p)}")
    out = []
    for i, size in enumerate(x_shape[2:]):
        span = d[i] * (k[i] - 1) + 1
        o = -1 if size < 0 else (size + p[i] + p[i + 2] - span) // s[i] + 1
        if size >= 0 and o < 1:
            raise ShapeError(f"op 'unfold': a {k[i]}-cell window (dilation {d[i]}) with "
                             f"paddings {list(p)} does not fit dim {i + 2} of X "
                             f"{list(x_shape)}")
        out.append(o)
    return k, s, p, d, tuple(out)


def _infer(ins, a):
    x = ins["X"][0]
    k, _, _, _, (oh, ow) = geometry(x.shape, a)
    c = -1 if x.shape[1] < 0 else x.shape[1] * k[0] * k[1]
    return {"Y": [VarInfo((x.shape[0], c, -1 if min(oh, ow) < 0 else oh * ow), x.dtype)]}


def _taps(a, x_shape):
    """Per kernel cell (i, j): the rows and columns of the padded X it reads, as slices."""
    k, s, _, d, (oh, ow) = geometry(x_shape, a)
    for i in range(k[0]):
        for j in range(k[1]):
            yield i, j, (slice(i * d[0], i * d[0] + s[0] * (oh - 1) + 1, s[0]),
                         slice(j * d[1], j * d[1] + s[1] * (ow - 1) + 1, s[1]))


def _reference(ins, a):
    x = np.asarray(ins["X"][0])
    k, _, (t, left, b, r), _, (oh, ow) = geometry(x.shape, a)
    xp = np.pad(x, ((0, 0), (0, 0), (t, b), (left, r)))
    cols = np.empty(x.shape[:2] + k + (oh, ow), x.dtype)
    for i, j, (rows, columns) in _taps(a, x.shape):
        cols[:, :, i, j] = xp[:, :, rows, columns]
    return {"Y": [cols.reshape(x.shape[0], -1, oh * ow)]}


def _run(ins, outs, a, rng):
    x = ins["X"][0]
    k, s, (t, left, b, r), d, _ = geometry(tuple(x.shape), a)
    xp = torch.nn.functional.pad(x, (left, r, t, b))
    outs["Y"][0].copy_(torch.nn.functional.unfold(xp, k, dilation=d, stride=s))


def _grad(op: OpDesc) -> list[OpDesc]:
    return input_grad_op(op, "X", out="Y")


def _grad_reference(ins, a):
    x, dy = np.asarray(ins["X"][0]), np.asarray(ins["Y@GRAD"][0])
    k, _, (t, left, b, r), _, (oh, ow) = geometry(x.shape, a)
    n, c, h, w = x.shape
    dxp = np.zeros((n, c, h + t + b, w + left + r), dy.dtype)
    cols = dy.reshape((n, c) + k + (oh, ow))
    for i, j, (rows, columns) in _taps(a, x.shape):
        dxp[:, :, rows, columns] += cols[:, :, i, j]
    return {"X@GRAD": [dxp[:, :, t:t + h, left:left + w]]}


def _grad_run(ins, outs, a, rng):
    x, dy = ins["X"][0], ins["Y@GRAD"][0]
    k, s, (t, left, b, r), d, _ = geometry(tuple(x.shape), a)
    h, w = x.shape[2:]
    dxp = torch.nn.functional.fold(dy, (h + t + b, w + left + r), k, dilation=d, stride=s)
    outs["X@GRAD"][0].copy_(dxp[:, :, t:t + h, left:left + w])


register(OpDef("unfold", slots("X"), slots("Y"), ATTRS, _infer, "extern",
               reference=_reference, grad=_grad, run=_run))
register(OpDef("unfold_grad", slots("X", "Y@GRAD"), slots("X@GRAD?"), ATTRS,
               lambda ins, a: {"X@GRAD": [VarInfo(ins["X"][0].shape, ins["Y@GRAD"][0].dtype)]},
               "extern", reference=_grad_reference, run=_grad_run))
