"""pixel_shuffle (F.pixel_shuffle): [N, C * r^2, H, W] -> [N, C, H * r, W * r] (NCHW; NHWC the
same on channels-last data), channel c * r^2 + i * r + j going to row h * r + i, column
w * r + j, as Paddle's kernel; its grad is the inverse rearrangement of dOut."""
from __future__ import annotations

import numpy as np
from fluidc.frontend.lazy_import import torch

from ..errors import OpError, ShapeError
from .registry import OpDef, OpDesc, VarInfo, grad_name, register, slots

ATTRS = {"upscale_factor": 1, "data_format": "NCHW"}


def _nchw(a) -> bool:
    if a["data_format"] not in ("NCHW", "NHWC"):
        raise OpError(f"op 'pixel_shuffle': data_format must be 'NCHW' or 'NHWC', got "
                      f"{a['data_format']!r}")
    return a["data_format"] == "NCHW"


def _out_shape(shape, a) -> tuple:
    r = a["upscale_factor"]
    if len(shape) != 4:
        raise ShapeError(f"op 'pixel_shuffle': X must be 4-D, got shape {list(shape)}")
    if r < 1:
        raise OpError(f"op 'pixel_shuffle': upscale_factor must be positive, got {r}")
    n, c, h, w = shape if _nchw(a) else (shape[0], shape[3], shape[1], shape[2])
    if c >= 0 and c % (r * r):
        raise ShapeError(f"op 'pixel_shuffle': X's {c} channels are not divisible by "
                         f"upscale_factor^2 = {r * r}")
    c, h, w = (c // (r * r) if c >= 0 else -1), (h * r if h >= 0 else -1), \
        (w * r if w >= 0 else -1)
    return (n, c, h, w) if _nchw(a) else (n, h, w, c)


def _infer(ins, a):
    x = ins["X"][0]
    return {"Out": [VarInfo(_out_shape(x.shape, a), x.dtype, x.lod_level)]}


def _shuffle_np(x, a, inverse=False):
    """X -> Out (or Out -> X with inverse) in numpy, by reshape and transpose."""
    r = a["upscale_factor"]
    if not _nchw(a):
        x = x.transpose(0, 3, 1, 2)
    n, c, h, w = x.shape
    if inverse:
        y = x.reshape(n, c, h // r, r, w // r, r).transpose(0, 1, 3, 5, 2, 4)
        y = y.reshape(n, c * r * r, h // r, w // r)
    else:
        y = x.reshape(n, c // (r * r), r, r, h, w).transpose(0, 1, 4, 2, 5, 3)
        y = y.reshape(n, c // (r * r), h * r, w * r)
    return np.ascontiguousarray(y if _nchw(a) else y.transpose(0, 2, 3, 1))


def _shuffle_torch(x, out, a, inverse=False):
    fn = torch.nn.functional.pixel_unshuffle if inverse else torch.nn.functional.pixel_shuffle
    if _nchw(a):
        out.copy_(fn(x, a["upscale_factor"]))
    else:
        out.permute(0, 3, 1, 2).copy_(fn(x.permute(0, 3, 1, 2), a["upscale_factor"]))


def _grad(op: OpDesc) -> list[OpDesc]:
    return [OpDesc("pixel_shuffle_grad", {"Out@GRAD": [grad_name(op.output("Out")[0])]},
                   {"X@GRAD": [grad_name(op.input("X")[0])]}, dict(op.attrs))]


def _grad_infer(ins, a):
    d = ins["Out@GRAD"][0]
    r = a["upscale_factor"]
    n, c, h, w = d.shape if _nchw(a) else (d.shape[0], d.shape[3], d.shape[1], d.shape[2])
    c, h, w = c * r * r, h // r, w // r
    return {"X@GRAD": [VarInfo((n, c, h, w) if _nchw(a) else (n, h, w, c), d.dtype)]}


register(OpDef("pixel_shuffle", slots("X"), slots("Out"), ATTRS, _infer, "extern",
               reference=lambda ins, a: {"Out": [_shuffle_np(np.asarray(ins["X"][0]), a)]},
               run=lambda ins, outs, a, rng: _shuffle_torch(ins["X"][0], outs["Out"][0], a),
               grad=_grad))
register(OpDef("pixel_shuffle_grad", slots("Out@GRAD"), slots("X@GRAD"), ATTRS, _grad_infer,
               "extern",
               reference=lambda ins, a: {"X@GRAD": [_shuffle_np(np.asarray(ins["Out@GRAD"][0]),
                                                                a, inverse=True)]},
               run=lambda ins, outs, a, rng: _shuffle_torch(ins["Out@GRAD"][0],
                                                            outs["X@GRAD"][0], a, inverse=True)))
