"""conv2d_transpose / conv3d_transpose and their grads (library calls: torch's transposed
convolution kernels; the numpy reference scatters each input cell times the filter), over
channel-first data or channel-last (NHWC / NDHWC: run on channel-first views, layout.py).
Filters are [in, out / groups, *kernel]; out dims are (in - 1) * stride - pad_lo - pad_hi +
dilation * (k - 1) + 1, plus output_padding, or output_size when given (Paddle's rule: at most
stride - 1 above that). output_size may be given as vars (var_attrs.py), folded in before a run."""
from __future__ import annotations

import itertools

import numpy as np
from fluidc.frontend.lazy_import import torch

from ..errors import OpError, ShapeError
from .conv import _bound
from .define import grad_like
from .layout import CHANNEL_FIRST, channel_last, first_shape, last_shape, to_first, to_last
from .registry import OpDef, OpDesc, VarInfo, grad_name, register, slots
from .var_attrs import fold_ints, given, var_slots


def _attrs(nd: int) -> dict:
    return {"strides": [1] * nd, "paddings": [0] * nd, "padding_algorithm": "EXPLICIT",
            "groups": 1, "dilations": [1] * nd, "output_padding": [], "output_size": [],
            "data_format": CHANNEL_FIRST[nd]}


def _last(op: str, a) -> bool:
    return channel_last(op, a, 2 if op.startswith("conv2d") else 3)


def _n(op: str, name: str, v, nd: int) -> list[int]:
    v = [int(d) for d in v]
    v = v * nd if len(v) == 1 else v
    if len(v) != nd or min(v) < 1:
        raise ShapeError(f"op '{op}': {name} must be {nd} positive values, got {v}")
    return v


def geometry(op: str, x_shape, w_shape, a):
    """([(lo, hi)] per dim, strides, dilations, output_padding per dim, the dims before it) of
    a transposed conv of channel-first x_shape."""
    nd = len(w_shape) - 2
    strides, dil = _n(op, "strides", a["strides"], nd), _n(op, "dilations", a["dilations"], nd)
    p, algo = [int(d) for d in a["paddings"]], a["padding_algorithm"]
    if algo == "VALID":
        pads = [(0, 0)] * nd
    elif algo == "SAME":
        dil, pads = [1] * nd, []
        for d, k, s in zip(x_shape[2:], w_shape[2:], strides):
            total = max((-(-d // s) - 1) * s + k - d, 0) if d >= 0 else 0
            pads.append((total // 2, total - total // 2))
    elif algo == "EXPLICIT" and len(p) in (nd, 2 * nd):
        pads = [(v, v) for v in p] if len(p) == nd else list(zip(p[::2], p[1::2]))
    else:
        raise OpError(f"op '{op}': paddings {p} with padding_algorithm {algo!r}")
    base = [(d - 1) * s - lo - hi + dl * (k - 1) + 1 if d >= 0 else -1
            for d, k, s, dl, (lo, hi) in zip(x_shape[2:], w_shape[2:], strides, dil, pads)]
    if a["output_size"]:
        size = _n(op, "output_size", a["output_size"], nd)
        extra = [o - b if b >= 0 else 0 for o, b in zip(size, base)]
    else:
        extra = [int(v) for v in a["output_padding"]] or [0] * nd
    if len(extra) != nd or any(not 0 <= e < max(s, dl) for e, s, dl in zip(extra, strides, dil)):
        raise ShapeError(f"op '{op}': output_size / output_padding {extra} beyond the "
                         f"computed size {base} (at most stride - 1 more)")
    return pads, strides, dil, extra, base


def _infer(op: str):
    def infer(ins, a):
        x, w = ins["Input"][0], ins["Filter"][0]
        nd = 2 if op.startswith("conv2d") else 3
        if len(x.shape) != nd + 2 or len(w.shape) != nd + 2:
            raise ShapeError(f"op '{op}': Input {list(x.shape)} and Filter {list(w.shape)} must "
                             f"both be {nd + 2}-D")
        last = _last(op, a)
        xs = first_shape(x.shape, last)
        if xs[1] >= 0 and xs[1] != w.shape[0]:
            raise ShapeError(f"op '{op}': Input {list(x.shape)} ({a['data_format']}) has "
                             f"{xs[1]} channels, Filter {list(w.shape)} takes {w.shape[0]}")
        g = int(a["groups"] or 1)
        if w.shape[0] % g:
            raise ShapeError(f"op '{op}': {w.shape[0]} input channels do not split into "
                             f"groups={g}")
        _, _, _, extra, base = geometry(op, xs, w.shape, a)
        if any(0 <= b < 1 for b in base):
            raise ShapeError(f"op '{op}': paddings leave no output for Input {list(x.shape)}")
        dims = [b + e if b >= 0 else -1 for b, e in zip(base, extra)]
        if given("output_size", ins):  # known when the program runs
            dims = [-1] * nd
        out = last_shape((xs[0], w.shape[1] * g, *dims), last)
        return {"Output": [VarInfo(out, x.dtype, x.lod_level)]}
    return infer


def _np(x, w, a, op, dout=None):
    """The transposed conv by scattering (full output, then the paddings cropped); with dout,
    the grads (dX, dW) instead."""
    pads, strides, dil, extra, base = geometry(op, x.shape, w.shape, a)
    g = int(a["groups"] or 1)
    n, c = x.shape[:2]
    cg, mg = c // g, w.shape[1]
    full = [(d - 1) * s + dl * (k - 1) + 1 + e + hi
            for d, k, s, dl, e, (_, hi) in zip(x.shape[2:], w.shape[2:], strides, dil, extra,
                                                pads)]
    xg = x.reshape(n, g, cg, *x.shape[2:])
    wg = w.reshape(g, cg, mg, *w.shape[2:])
    out = np.zeros((n, g, mg, *full), np.result_type(x, w))
    crop = tuple(slice(lo, lo + b + e) for (lo, _), b, e in zip(pads, base, extra))
    if dout is not None:
        out[(Ellipsis,) + crop] = dout.reshape(n, g, mg, *dout.shape[2:])
        dx, dw = np.zeros_like(xg), np.zeros_like(wg)
    sp = "xyz"[:len(x.shape) - 2]  # the spatial dims' einsum letters
    for offs in itertools.product(*(range(k) for k in w.shape[2:])):
        win = (Ellipsis,) + tuple(slice(o * dl, o * dl + s * (d - 1) + 1, s)
                                  for o, dl, s, d in zip(offs, dil, strides, x.shape[2:]))
        tap = wg[(Ellipsis,) + offs]
        if dout is None:
            out[win] += np.einsum(f"ngc{sp},gcm->ngm{sp}", xg, tap)
        else:
            dx += np.einsum(f"ngm{sp},gcm->ngc{sp}", out[win], tap)
            dw[(Ellipsis,) + offs] += np.einsum(f"ngc{sp},ngm{sp}->gcm", xg, out[win])
    if dout is not None:
        return dx.reshape(x.shape), dw.reshape(w.shape)
    return out.reshape(n, g * mg, *full)[(slice(None), slice(None)) + crop]


def _fold(op: str):
    """output_size from its vars' values (one var of nd values, or one var per dim)."""
    def fold(a, values):
        size = fold_ints(op, "output_size", values, 3 if "3d" in op else 2)
        return a if size is None else {**a, "output_size": size}
    return fold


def _ref(op: str):
    def ref(ins, a):
        a = _fold(op)(a, ins)
        last = _last(op, a)
        x, w = to_first(np.asarray(ins["Input"][0]), last), np.asarray(ins["Filter"][0])
        return {"Output": [np.ascontiguousarray(to_last(_np(x, w, a, op), last)).astype(x.dtype)]}
    return ref


def _torch_args(x, w, a, op: str):
    """torch's (padding, output_padding, strides, dilations, groups) and the [(lo, hi)] crop
    torch cannot express (asymmetric paddings: run with the smaller one, crop the rest)."""
    pads, strides, dil, extra, _ = geometry(op, tuple(x.shape), tuple(w.shape), a)
    sym = [min(lo, hi) for lo, hi in pads]
    rest = [(lo - m, hi - m) for (lo, hi), m in zip(pads, sym)]
    return sym, extra, strides, dil, int(a["groups"] or 1), rest


def _run(op: str):
    def run(ins, outs, a, rng):
        last = _last(op, a)
        x, w = to_first(ins["Input"][0], last), ins["Filter"][0]
        pad, extra, strides, dil, g, rest = _torch_args(x, w, a, op)
        # torch's output is the full one from min(lo, hi) on (output_padding more at the end):
        # the rest of the low padding is cropped here
        y = torch.convolution(x, w, None, strides, pad, dil, True, extra, g)
        out = to_first(outs["Output"][0], last)
        out.copy_(y[(slice(None), slice(None)) + tuple(
            slice(lo, lo + d) for (lo, _), d in zip(rest, out.shape[2:]))])
    return run


def _grad_maker(grad_type: str):
    def grad(op: OpDesc) -> list[OpDesc]:
        sizes = {s.name: op.input(s.name) for s in var_slots("output_size") if op.input(s.name)}
        return [OpDesc(grad_type, {"Input": op.input("Input"), "Filter": op.input("Filter"),
                                   "Output@GRAD": [grad_name(op.output("Output")[0])], **sizes},
                       grad_like(op, "Input", "Filter"), dict(op.attrs))]
    return grad


def _grad_ref(op: str):
    def ref(ins, a):
        a = _fold(op)(a, ins)
        last = _last(op, a)
        x, w = to_first(np.asarray(ins["Input"][0]), last), np.asarray(ins["Filter"][0])
        dx, dw = _np(x, w, a, op, dout=to_first(np.asarray(ins["Output@GRAD"][0]), last))
        return {"Input@GRAD": [np.ascontiguousarray(to_last(dx, last)).astype(x.dtype)],
                "Filter@GRAD": [dw.astype(w.dtype)]}
    return ref


def _grad_run(op: str):
    def run(ins, outs, a, rng):
        dx_out, dw_out = _bound(outs, "Input@GRAD"), _bound(outs, "Filter@GRAD")
        if dx_out is None and dw_out is None:
            return
        last = _last(op, a)
        x, w, dy = (to_first(ins["Input"][0], last), ins["Filter"][0],
                    to_first(ins["Output@GRAD"][0], last))
        pad, extra, strides, dil, g, rest = _torch_args(x, w, a, op)
        full = [d + lo + hi for d, (lo, hi) in zip(dy.shape[2:], rest)]
        dyf = dy.new_zeros((*dy.shape[:2], *full))
        dyf[(slice(None), slice(None)) + tuple(slice(lo, lo + d) for (lo, _), d
                                               in zip(rest, dy.shape[2:]))] = dy
        dx, dw, _ = torch.ops.aten.convolution_backward(
            dyf, x, w, None, strides, pad, dil, True, extra, g,
            [dx_out is not None, dw_out is not None, False])
        if dx_out is not None:
            to_first(dx_out, last).copy_(dx)
        if dw_out is not None:
            dw_out.copy_(dw)
    return run


def _grad_infer(ins, a):
    return {"Input@GRAD": [ins["Input"][0]], "Filter@GRAD": [ins["Filter"][0]]}


_SIZES = var_slots("output_size")
for _op, _nd in (("conv2d_transpose", 2), ("conv3d_transpose", 3)):
    register(OpDef(_op, slots("Input", "Filter") + _SIZES, slots("Output"), _attrs(_nd),
                   _infer(_op), "extern", reference=_ref(_op), grad=_grad_maker(_op + "_grad"),
                   run=_run(_op), shape_inputs=tuple(s.name for s in _SIZES), fold=_fold(_op)))
    register(OpDef(_op + "_grad", slots("Input", "Filter", "Output@GRAD") + _SIZES,
                   slots("Input@GRAD?", "Filter@GRAD?"), _attrs(_nd), _grad_infer, "extern",
                   reference=_grad_ref(_op + "_grad"), run=_grad_run(_op + "_grad"),
                   shape_inputs=tuple(s.name for s in _SIZES), fold=_fold(_op + "_grad")))
