"""conv3d and conv3d_grad over NCDHW data, or NDHWC run on NCDHW views (layout.py) (library
calls: torch's convolution kernels; the numpy reference convolves by shifted slices). Filters
are [out, in / groups, kd, kh, kw]."""
from __future__ import annotations

import itertools

import numpy as np
from fluidc.frontend.lazy_import import torch
from fluidc.frontend.lazy_import import torch_functional as F

from ..errors import OpError, ShapeError
from .conv import _bound, _conv_grad_maker, _extern, _out_size
from .layout import channel_last, first_shape, last_shape, to_first, to_last
from .registry import VarInfo

CONV3D_ATTRS = {  # Paddle's others: frontend/ops/paddle_attrs.py
    "strides": [1, 1, 1], "paddings": [0, 0, 0], "padding_algorithm": "EXPLICIT", "groups": 1,
    "dilations": [1, 1, 1], "data_format": "NCDHW",
}


def _triple(op: str, name: str, v) -> list[int]:
    v = [int(d) for d in v]
    if len(v) == 1:
        v *= 3
    if len(v) != 3 or min(v) < 1:
        raise ShapeError(f"op '{op}': {name} must be 3 positive values, got {v}")
    return v


def geometry(op: str, x_shape, w_shape, a):
    """([(lo, hi)] * 3 paddings, strides, dilations) of a conv3d over X (NCDHW) and Filter
    shapes."""
    strides = _triple(op, "strides", a["strides"])
    dil = _triple(op, "dilations", a["dilations"])
    p = [int(d) for d in a["paddings"]]
    algo = a["padding_algorithm"]
    if algo == "VALID":
        pads = [(0, 0)] * 3
    elif algo == "SAME":
        dil, pads = [1, 1, 1], []
        for d, k, s in zip(x_shape[2:], w_shape[2:], strides):
            total = max((-(-d // s) - 1) * s + k - d, 0) if d >= 0 else 0
            pads.append((total // 2, total - total // 2))
    elif algo == "EXPLICIT" and len(p) in (3, 6):
        pads = [(v, v) for v in p] if len(p) == 3 else list(zip(p[::2], p[1::2]))
    else:
        raise OpError(f"op '{op}': paddings {p} with padding_algorithm {algo!r} (expected 3 "
                      f"or 6 values, or 'SAME' / 'VALID')")
    return pads, strides, dil


def _infer(ins, a):
    x, w = ins["Input"][0], ins["Filter"][0]
    if len(x.shape) != 5 or len(w.shape) != 5:
        raise ShapeError(f"op 'conv3d': Input {list(x.shape)} and Filter {list(w.shape)} must "
                         f"both be 5-D")
    last = channel_last("conv3d", a, 3)
    xs = first_shape(x.shape, last)
    pads, strides, dil = geometry("conv3d", xs, w.shape, a)
    g = int(a["groups"] or 1)
    if xs[1] >= 0 and w.shape[1] * g != xs[1]:
        raise ShapeError(f"op 'conv3d': Input {list(x.shape)} ({a['data_format']}) has {xs[1]} "
                         f"channels but Filter {list(w.shape)} with groups={g} expects "
                         f"{w.shape[1] * g}")
    if w.shape[0] % g:
        raise ShapeError(f"op 'conv3d': Filter {list(w.shape)} has {w.shape[0]} output "
                         f"channels, not divisible by groups={g}")
    dhw = [_out_size(d, dl * (k - 1) + 1, lo, hi, s)
           for d, k, s, dl, (lo, hi) in zip(xs[2:], w.shape[2:], strides, dil, pads)]
    if 0 in dhw:
        raise ShapeError(f"op 'conv3d': Input {list(x.shape)} is smaller than Filter "
                         f"{list(w.shape)} with paddings {pads} and dilations {dil}")
    return {"Output": [VarInfo(last_shape((xs[0], w.shape[0], *dhw), last), x.dtype,
                               x.lod_level)]}


def _np(x, w, pads, strides, dil, groups, dout=None):
    """conv3d by shifted slices; with dout, the grads (dX, dW) instead of the output."""
    xp = np.pad(x, ((0, 0), (0, 0), *pads))
    n, c = xp.shape[:2]
    m, cg = w.shape[:2]
    out_dims = [(d - dl * (k - 1) - 1) // s + 1
                for d, k, s, dl in zip(xp.shape[2:], w.shape[2:], strides, dil)]
    wg = w.reshape(groups, m // groups, cg, *w.shape[2:])
    xg = xp.reshape(n, groups, cg, *xp.shape[2:])
    out = np.zeros((n, groups, m // groups, *out_dims), np.result_type(x, w))
    dxp, dw = np.zeros_like(xg), np.zeros_like(wg)
    dg = None if dout is None else dout.reshape(n, groups, m // groups, *out_dims)
    for offs in itertools.product(*(range(k) for k in w.shape[2:])):
        win = (Ellipsis,) + tuple(slice(o * dl, o * dl + s * (od - 1) + 1, s)
                                  for o, dl, s, od in zip(offs, dil, strides, out_dims))
        tap = wg[(Ellipsis,) + offs]
        if dg is None:
            out += np.einsum("ngcdhw,gmc->ngmdhw", xg[win], tap)
        else:
            dw[(Ellipsis,) + offs] += np.einsum("ngcdhw,ngmdhw->gmc", xg[win], dg)
            dxp[win] += np.einsum("ngmdhw,gmc->ngcdhw", dg, tap)
    if dg is None:
        return out.reshape(n, m, *out_dims)
    crop = (slice(None), slice(None)) + tuple(slice(lo, d - hi)
                                              for (lo, hi), d in zip(pads, xp.shape[2:]))
    return dxp.reshape(n, c, *xp.shape[2:])[crop], dw.reshape(w.shape)


def _ref(ins, a):
    last = channel_last("conv3d", a, 3)
    x, w = to_first(np.asarray(ins["Input"][0]), last), np.asarray(ins["Filter"][0])
    pads, strides, dil = geometry("conv3d", x.shape, w.shape, a)
    out = _np(x, w, pads, strides, dil, int(a["groups"] or 1))
    return {"Output": [np.ascontiguousarray(to_last(out, last)).astype(x.dtype)]}


def _call(x, w, a, op: str):
    """(x padded where torch cannot pad it, torch's symmetric padding, strides, dilations,
    groups, the explicit [(lo, hi)] * 3 or None)."""
    pads, strides, dil = geometry(op, tuple(x.shape), tuple(w.shape), a)
    g = int(a["groups"] or 1)
    if all(lo == hi for lo, hi in pads):
        return x, [lo for lo, _ in pads], strides, dil, g, None
    flat = [v for lo, hi in reversed(pads) for v in (lo, hi)]  # F.pad: last dim first
    return F.pad(x, flat), [0, 0, 0], strides, dil, g, pads


def _run(ins, outs, a, rng):
    last = channel_last("conv3d", a, 3)
    x, pad, strides, dil, g, _ = _call(to_first(ins["Input"][0], last), ins["Filter"][0], a,
                                       "conv3d")
    to_first(outs["Output"][0], last).copy_(torch.convolution(
        x, ins["Filter"][0], None, strides, pad, dil, False, [0, 0, 0], g))


def _grad_ref(ins, a):
    last = channel_last("conv3d_grad", a, 3)
    x, w = to_first(np.asarray(ins["Input"][0]), last), np.asarray(ins["Filter"][0])
    pads, strides, dil = geometry("conv3d_grad", x.shape, w.shape, a)
    dx, dw = _np(x, w, pads, strides, dil, int(a["groups"] or 1),
                 dout=to_first(np.asarray(ins["Output@GRAD"][0]), last))
    return {"Input@GRAD": [np.ascontiguousarray(to_last(dx, last)).astype(x.dtype)],
            "Filter@GRAD": [dw.astype(w.dtype)]}


def _grad_run(ins, outs, a, rng):
    """dInput and dFilter by torch's convolution backward kernel, each only when bound."""
    dx_out, dw_out = _bound(outs, "Input@GRAD"), _bound(outs, "Filter@GRAD")
    if dx_out is None and dw_out is None:
        return
    last = channel_last("conv3d_grad", a, 3)
    x, w = to_first(ins["Input"][0], last), ins["Filter"][0]
    xc, pad, strides, dil, g, explicit = _call(x, w, a, "conv3d_grad")
    dx, dw, _ = torch.ops.aten.convolution_backward(
        to_first(ins["Output@GRAD"][0], last), xc, w, None, strides, pad, dil, False,
        [0, 0, 0], g, [dx_out is not None, dw_out is not None, False])
    if dx_out is not None:
        dx_out = to_first(dx_out, last)
        if explicit is not None:  # the grad of the padded copy: crop the padding off
            dx = dx[(slice(None), slice(None)) + tuple(slice(lo, lo + d) for (lo, _), d
                                                       in zip(explicit, dx_out.shape[2:]))]
        dx_out.copy_(dx)
    if dw_out is not None:
        dw_out.copy_(dw)


def _grad_infer(ins, a):
    return {"Input@GRAD": [ins["Input"][0]], "Filter@GRAD": [ins["Filter"][0]]}


_extern("conv3d", ["Input", "Filter"], ["Output"], CONV3D_ATTRS, _infer, _run, _ref,
        _conv_grad_maker("conv3d_grad"))
_extern("conv3d_grad", ["Input", "Filter", "Output@GRAD"], ["Input@GRAD?", "Filter@GRAD?"],
        CONV3D_ATTRS, _grad_infer, _grad_run, _grad_ref)
