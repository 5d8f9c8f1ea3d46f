"""Convolution and pooling: conv2d, depthwise_conv2d and pool2d with their grads (library calls).

Filters are OIHW whatever the data_format; the torch runs work on NCHW views (NHWC tensors
permuted). Runs call torch's forward and backward kernels directly, no autograd, and write into
the outputs where torch has a kernel with out=, else copy the kernel's result once.
"""
from __future__ import annotations

import math

import numpy as np
from fluidc.frontend.lazy_import import torch
from fluidc.frontend.lazy_import import torch_functional as F

from ..dtypes import VarType
from ..errors import OpError, ShapeError
from .define import grad_like
from .registry import OpDef, OpDesc, VarInfo, grad_name, register, slots


def _extern(type, inputs, outputs, attrs, infer, run, reference, grad=None):
    register(OpDef(type, slots(*inputs), slots(*outputs), attrs, infer, "extern",
                   reference=reference, grad=grad, run=run))


def _pair(v) -> list[int]:
    v = [int(d) for d in (v if isinstance(v, (list, tuple)) else [v])]
    return v * 2 if len(v) == 1 else v


def _data_format(op: str, a) -> str:
    fmt = a["data_format"]
    if fmt not in ("NCHW", "NHWC", "AnyLayout"):
        raise OpError(f"op '{op}': unknown data_format {fmt!r} (expected 'NCHW' or 'NHWC')")
    return "NHWC" if fmt == "NHWC" else "NCHW"


def _spatial(shape, fmt: str) -> tuple[int, int]:
    return (shape[1], shape[2]) if fmt == "NHWC" else (shape[2], shape[3])


def resolve_padding(op: str, in_hw, k_hw, strides, paddings, algo: str) -> list[int]:
    """[top, bottom, left, right] from Paddle's paddings (2 or 4 values) and padding_algorithm."""
    p = [int(d) for d in paddings]
    if len(p) == 2:
        p = [p[0], p[0], p[1], p[1]]
    elif len(p) != 4:
        raise OpError(f"op '{op}': paddings must have 2 or 4 values, got {list(paddings)}")
    if algo == "VALID":
        return [0, 0, 0, 0]
    if algo == "SAME":
        p = []
        for d, k, s in zip(in_hw, k_hw, strides):
            total = max((-(-d // s) - 1) * s + k - d, 0) if d >= 0 else 0
            p += [total // 2, total - total // 2]
    elif algo != "EXPLICIT":
        raise OpError(f"op '{op}': unknown padding_algorithm {algo!r}")
    return p


def _out_size(d: int, k: int, lo: int, hi: int, s: int, ceil: bool = False) -> int:
    if d < 0:
        return -1
    span = d + lo + hi - k
    return 0 if span < 0 else (span + (s - 1 if ceil else 0)) // s + 1


def _layout(shape_nchw, fmt: str) -> tuple[int, ...]:
    n, c, h, w = shape_nchw
    return (n, h, w, c) if fmt == "NHWC" else (n, c, h, w)


def _nchw(x, fmt: str):
    """numpy or torch NHWC -> NCHW (a view)."""
    if fmt != "NHWC":
        return x
    return x.permute(0, 3, 1, 2) if isinstance(x, torch.Tensor) else x.transpose(0, 3, 1, 2)


def _from_nchw(x, fmt: str):
    if fmt != "NHWC":
        return x
    return x.permute(0, 2, 3, 1) if isinstance(x, torch.Tensor) else x.transpose(0, 2, 3, 1)


# ---------------------------------------------------------------------------------------------
# conv2d / depthwise_conv2d

CONV_ATTRS = {  # Paddle's others: frontend/ops/paddle_attrs.py
    "strides": [1, 1], "paddings": [0, 0], "padding_algorithm": "EXPLICIT", "groups": 1,
    "dilations": [1, 1], "data_format": "NCHW",
}


def conv_geometry(op: str, x_shape, w_shape, a):
    """(format, [t, b, l, r] paddings, strides, dilations) of a conv over X and Filter shapes."""
    fmt = _data_format(op, a)
    strides, dil = _pair(a["strides"]), _pair(a["dilations"])
    if min(strides) < 1 or min(dil) < 1:
        raise ShapeError(f"op '{op}': strides {strides} and dilations {dil} must be >= 1")
    pads = resolve_padding(op, _spatial(x_shape, fmt), w_shape[2:], strides, a["paddings"],
                           a["padding_algorithm"])
    if a["padding_algorithm"] == "SAME":
        dil = [1, 1]
    return fmt, pads, strides, dil


def _conv_infer_fn(op: str):
    def infer(ins, a):
        x, w = ins["Input"][0], ins["Filter"][0]
        if len(x.shape) != 4 or len(w.shape) != 4:
            raise ShapeError(f"op '{op}': Input {list(x.shape)} and Filter {list(w.shape)} "
                             f"must both be 4-D")
        fmt, pads, strides, dil = conv_geometry(op, x.shape, w.shape, a)
        c = x.shape[3 if fmt == "NHWC" else 1]
        g = int(a["groups"] or 1)
        if c >= 0 and w.shape[1] * g != c:
            raise ShapeError(f"op '{op}': Input {list(x.shape)} ({fmt}) has {c} channels but "
                             f"Filter {list(w.shape)} with groups={g} expects {w.shape[1] * g}")
        if w.shape[0] % g:
            raise ShapeError(f"op '{op}': Filter {list(w.shape)} has {w.shape[0]} output "
                             f"channels, not divisible by groups={g}")
        hw = [_out_size(d, dl * (k - 1) + 1, pads[2 * i], pads[2 * i + 1], s)
              for i, (d, k, s, dl) in enumerate(zip(_spatial(x.shape, fmt), w.shape[2:],
                                                     strides, dil))]
        if 0 in hw:
            raise ShapeError(f"op '{op}': Input {list(x.shape)} is smaller than Filter "
                             f"{list(w.shape)} with paddings {pads} and dilations {dil}")
        out = _layout((x.shape[0], w.shape[0], hw[0], hw[1]), fmt)
        return {"Output": [VarInfo(out, x.dtype, x.lod_level)]}
    return infer


def _conv_np(x, w, pads, strides, dil, groups, dout=None):
    """NCHW conv by shifted slices; with dout, the grads (dX, dW) instead of the output."""
    t, b, l, r = pads
    xp = np.pad(x, ((0, 0), (0, 0), (t, b), (l, r)))
    n, c, h, wd = xp.shape
    m, cg, kh, kw = w.shape
    oh = (h - dil[0] * (kh - 1) - 1) // strides[0] + 1
    ow = (wd - dil[1] * (kw - 1) - 1) // strides[1] + 1
    wg = w.reshape(groups, m // groups, cg, kh, kw)
    xg = xp.reshape(n, groups, cg, h, wd)
    out = np.zeros((n, groups, m // groups, oh, ow), np.result_type(x, w))
    dxp, dw = np.zeros_like(xg), np.zeros_like(wg)
    dg = None if dout is None else dout.reshape(n, groups, m // groups, oh, ow)
    for i in range(kh):
        for j in range(kw):
            hs = slice(i * dil[0], i * dil[0] + strides[0] * (oh - 1) + 1, strides[0])
            ws = slice(j * dil[1], j * dil[1] + strides[1] * (ow - 1) + 1, strides[1])
            patch = xg[:, :, :, hs, ws]
            if dg is None:
                out += np.einsum("ngchw,gmc->ngmhw", patch, wg[..., i, j])
            else:
                dw[..., i, j] += np.einsum("ngchw,ngmhw->gmc", patch, dg)
                dxp[:, :, :, hs, ws] += np.einsum("ngmhw,gmc->ngchw", dg, wg[..., i, j])
    if dg is None:
        return out.reshape(n, m, oh, ow)
    dx = dxp.reshape(n, c, h, wd)[:, :, t:h - b, l:wd - r]
    return dx, dw.reshape(w.shape)


def _conv_ref(ins, a):
    x, w = np.asarray(ins["Input"][0]), np.asarray(ins["Filter"][0])
    fmt, pads, strides, dil = conv_geometry("conv2d", x.shape, w.shape, a)
    out = _conv_np(_nchw(x, fmt), w, pads, strides, dil, int(a["groups"] or 1))
    return {"Output": [np.ascontiguousarray(_from_nchw(out, fmt)).astype(x.dtype)]}


def _conv_call(x, w, a, op: str):
    """What torch's convolution kernels take for a Paddle conv over NCHW or NHWC tensors:
    (format, x as an NCHW view, padding, strides, dilations, groups, [t, b, l, r] or None).

    torch pads both sides of a dim alike: asymmetric paddings are applied explicitly (a padded
    copy of x, the last item says which), so the kernel then pads nothing."""
    fmt, (t, b, l, r), strides, dil = conv_geometry(op, tuple(x.shape), tuple(w.shape), a)
    x = _nchw(x, fmt)
    g = int(a["groups"] or 1)
    if (t, l) == (b, r):
        return fmt, x, [t, l], strides, dil, g, None
    return fmt, F.pad(x, (l, r, t, b)), [0, 0], strides, dil, g, (t, b, l, r)


def _conv_run(ins, outs, a, rng):
    fmt, x, pad, strides, dil, g, _ = _conv_call(ins["Input"][0], ins["Filter"][0], a, "conv2d")
    # One copy of the kernel's result into the output (NHWC: its NCHW view). aten's
    # convolution.out is a generated wrapper doing the same (no backend writes into a given
    # tensor), measured a few microseconds slower.
    _nchw(outs["Output"][0], fmt).copy_(
        torch.convolution(x, ins["Filter"][0], None, strides, pad, dil, False, [0, 0], g))


def _conv_grad_maker(grad_type: str):
    def grad(op: OpDesc) -> list[OpDesc]:
        return [OpDesc(grad_type, {"Input": op.input("Input"), "Filter": op.input("Filter"),
                                   "Output@GRAD": [grad_name(op.output("Output")[0])]},
                       grad_like(op, "Input", "Filter"), dict(op.attrs))]
    return grad


def _conv_grad_ref(ins, a):
    x, w = np.asarray(ins["Input"][0]), np.asarray(ins["Filter"][0])
    d = np.asarray(ins["Output@GRAD"][0])
    fmt, pads, strides, dil = conv_geometry("conv2d_grad", x.shape, w.shape, a)
    dx, dw = _conv_np(_nchw(x, fmt), w, pads, strides, dil, int(a["groups"] or 1),
                      dout=_nchw(d, fmt))
    return {"Input@GRAD": [np.ascontiguousarray(_from_nchw(dx, fmt)).astype(x.dtype)],
            "Filter@GRAD": [dw.astype(w.dtype)]}


def _bound(outs: dict, slot: str):
    """The output tensor of `slot`, or None when nobody needs it (absent, or a dropped grad)."""
    v = outs.get(slot)
    return v[0] if v else None


def _conv_grad_run(ins, outs, a, rng):
    """dInput and dFilter by torch's convolution backward kernel (no forward re-run), each only
    when bound; the kernel returns fresh tensors, copied once into the outputs."""
    dx_out, dw_out = _bound(outs, "Input@GRAD"), _bound(outs, "Filter@GRAD")
    if dx_out is None and dw_out is None:
        return
    x, w = ins["Input"][0], ins["Filter"][0]
    fmt, xc, pad, strides, dil, g, explicit = _conv_call(x, w, a, "conv2d_grad")
    dx, dw, _ = torch.ops.aten.convolution_backward(
        _nchw(ins["Output@GRAD"][0], fmt), xc, w, None, strides, pad, dil, False, [0, 0], g,
        [dx_out is not None, dw_out is not None, False])
    if dx_out is not None:
        dx_out = _nchw(dx_out, fmt)
        if explicit is not None:  # the grad of the padded copy: crop the padding off
            t, _, l, _ = explicit
            dx = dx[:, :, t:t + dx_out.shape[2], l:l + dx_out.shape[3]]
        dx_out.copy_(dx)
    if dw_out is not None:
        dw_out.copy_(dw)


def _conv_grad_infer(ins, a):
    return {"Input@GRAD": [ins["Input"][0]], "Filter@GRAD": [ins["Filter"][0]]}


for _t in ("conv2d", "depthwise_conv2d"):
    _extern(_t, ["Input", "Filter"], ["Output"], CONV_ATTRS,
            _conv_infer_fn(_t), _conv_run, _conv_ref, _conv_grad_maker(_t + "_grad"))
    _extern(_t + "_grad", ["Input", "Filter", "Output@GRAD"], ["Input@GRAD?", "Filter@GRAD?"],
            CONV_ATTRS, _conv_grad_infer, _conv_grad_run, _conv_grad_ref)


# conv2d_fused: conv2d with its epilogue, Output = act(conv(Input, Filter) + Bias), Bias [C_out]
# (optional) and act '' or 'relu'. Written by passes/conv_fusion.py in inference plans (never in a
# Program); no grad.
CONV_FUSED_ACTS = ("", "relu")


def _conv_fused_ref(ins, a):
    y = _conv_ref(ins, a)["Output"][0]
    if ins.get("Bias"):
        fmt = _data_format("conv2d_fused", a)
        y = y + np.asarray(ins["Bias"][0]).reshape((1, 1, 1, -1) if fmt == "NHWC" else
                                                   (1, -1, 1, 1))
    return {"Output": [(np.maximum(y, 0) if a["act"] == "relu" else y).astype(y.dtype)]}


def _conv_fused_run(ins, outs, a, rng):
    """float32 on CPU: oneDNN's convolution with the bias and activation as post-ops, summed
    into the zeroed output (its binary form writes into a given tensor: no copy of the result;
    measured faster than the conv plus a copy). Otherwise torch's convolution with the bias,
    the activation in place, one copy."""
    x, w, b = ins["Input"][0], ins["Filter"][0], _bound(ins, "Bias")
    fmt, x, pad, strides, dil, g, _ = _conv_call(x, w, a, "conv2d_fused")
    out, act = _nchw(outs["Output"][0], fmt), a["act"]
    if act not in CONV_FUSED_ACTS:
        raise OpError(f"op 'conv2d_fused': act must be one of {CONV_FUSED_ACTS}, got {act!r}")
    if x.dtype == torch.float32 and x.device.type == "cpu" and torch.backends.mkldnn.is_available():
        out.zero_()
        torch.ops.mkldnn._convolution_pointwise_.binary(
            out, x, w, b, pad, strides, dil, g, "add", 1.0, act or None, [], "")
        return
    y = torch.convolution(x, w, b, strides, pad, dil, False, [0, 0], g)
    out.copy_(y.relu_() if act == "relu" else y)


_extern("conv2d_fused", ["Input", "Filter", "Bias?"], ["Output"], {**CONV_ATTRS, "act": ""},
        _conv_infer_fn("conv2d_fused"), _conv_fused_run, _conv_fused_ref)


# ---------------------------------------------------------------------------------------------
# pool2d: max or average over windows; exclusive averages count only the non-padding cells.

POOL_ATTRS = {
    "pooling_type": "max", "ksize": [1, 1], "global_pooling": False, "strides": [1, 1],
    "paddings": [0, 0], "exclusive": True, "adaptive": False, "ceil_mode": False,
    "data_format": "NCHW", "padding_algorithm": "EXPLICIT",
}


def _pool_out_size(op: str, d: int, k: int, lo: int, hi: int, s: int, ceil: bool) -> int:
    """Paddle's pooling output size: C's division, truncating toward zero, so a window larger
    than the padded input still gives one output when the stride is larger than the excess
    (a 2x2 pool with stride 2 on a 1x1 map gives 1x1; with stride 1, an empty 0x0)."""
    if d < 0:
        return -1
    span = d + lo + hi - k + (s - 1 if ceil else 0)
    o = int(span / s) + 1
    if o < 0:
        raise ShapeError(f"op '{op}': the output size would be {o}: input size {d}, paddings "
                         f"({lo}, {hi}), ksize {k} and stride {s}")
    return o


def pool_geometry(op: str, x_shape, a):
    """(format, ksize, strides, [t, b, l, r] paddings, output [h, w]) of a pool2d over X."""
    fmt = _data_format(op, a)
    if a["pooling_type"] not in ("max", "avg"):
        raise OpError(f"op '{op}': pooling_type must be 'max' or 'avg', got {a['pooling_type']!r}")
    hw = _spatial(x_shape, fmt)
    k, s = _pair(a["ksize"]), _pair(a["strides"])
    if a["global_pooling"]:
        return fmt, list(hw), s, [0, 0, 0, 0], [1, 1]
    if a["adaptive"]:
        return fmt, k, s, [0, 0, 0, 0], k
    if min(s) < 1:
        raise ShapeError(f"op '{op}': strides {s} must be >= 1")
    pads = resolve_padding(op, hw, k, s, a["paddings"], a["padding_algorithm"])
    out = [_pool_out_size(op, d, kk, pads[2 * i], pads[2 * i + 1], ss, a["ceil_mode"])
           for i, (d, kk, ss) in enumerate(zip(hw, k, s))]
    return fmt, k, s, pads, out


def _pool_infer(ins, a):
    x = ins["X"][0]
    if len(x.shape) != 4:
        raise ShapeError(f"op 'pool2d': X must be 4-D, got {list(x.shape)}")
    fmt, _, _, _, out = pool_geometry("pool2d", x.shape, a)
    c = x.shape[3 if fmt == "NHWC" else 1]
    return {"Out": [VarInfo(_layout((x.shape[0], c, out[0], out[1]), fmt), x.dtype,
                            x.lod_level)]}


def _spans(a, d: int, o: int, k: int, s: int, lead: int) -> list[tuple[int, int, int]]:
    """Paddle's windows along one dim: per output index, the [start, end) of the window clipped
    to the input and its size counting padding. Window j starts at j*s - lead (the top or left
    padding; Paddle's kernel pads both sides by it) and ends at most `lead` past the input."""
    if a["adaptive"]:
        return [(j * d // o, -(-(j + 1) * d // o), -(-(j + 1) * d // o) - j * d // o)
                for j in range(o)]
    out = []
    for j in range(o):
        start = j * s - lead
        end = min(start + k, d + lead)
        out.append((max(start, 0), min(end, d), end - start))
    return out


def _windows(a, hw, k, s, pads, out):
    """Per output row and column: the clipped [start, end) of its window."""
    return tuple([w[:2] for w in _spans(a, hw[i], out[i], k[i], s[i], pads[2 * i])]
                 for i in range(2))


def window_spans(a, hw, k, s, pads, out):
    """Per output row and column: (start, end, count), the clipped [start, end) of its window
    and the factor of an average pool's divisor along that dim, as Paddle's kernel takes it:
    the cells inside the input (exclusive, adaptive, global), else inside the input and its
    padding, so a ceil_mode window hanging past the padded edge counts only its part inside
    (as torch's count_include_pad)."""
    exclusive = a["exclusive"] or a["adaptive"] or a["global_pooling"]
    return tuple([(w0, w1, w1 - w0 if exclusive else n)
                  for w0, w1, n in _spans(a, hw[i], out[i], k[i], s[i], pads[2 * i])]
                 for i in range(2))


def pool_divisors(a, hw, k, s, pads, out) -> np.ndarray:
    """The [oh, ow] divisors of an average pool (window_spans' counts multiplied)."""
    rows, cols = window_spans(a, hw, k, s, pads, out)
    return np.outer([n for _, _, n in rows], [n for _, _, n in cols])


def grad_scales(div: np.ndarray, dtype) -> np.ndarray:
    """What an average pool's grad multiplies dOut by: Paddle's kernel takes 1 / divisor in
    float32, so float64 grads carry float32's rounding of it."""
    with np.errstate(divide="ignore"):
        return (np.float32(1) / div.astype(np.float32)).astype(dtype)


# Paddle's max pools start each window at -FLT_MAX (MaxPool::initial, in any float dtype): a
# window with nothing above it (empty: wholly past the edge under ceil_mode, or in the padding;
# or all -inf) gives -FLT_MAX, never -inf. NaN stays NaN (docs/numerics.md).
MAX_POOL_FLOOR = -float(np.finfo(np.float32).max)


def _floor_max_pool(y) -> None:
    """Raise a torch max pool's output to Paddle's -FLT_MAX floor, in place."""
    if y.is_floating_point():
        y.clamp_(min=MAX_POOL_FLOOR)


def _pool_np(x, a, dout=None):
    """NCHW pooling by windows; with dout, dX instead of the output."""
    fmt, k, s, pads, out = pool_geometry("pool2d", x.shape, a)
    x = _nchw(x, fmt)
    rows, cols = _windows(a, x.shape[2:], k, s, pads, out)
    res = np.zeros(x.shape[:2] + tuple(out), x.dtype)
    dx = np.zeros_like(x)
    d = None if dout is None else _nchw(dout, fmt)
    is_max = a["pooling_type"] == "max"
    div = pool_divisors(a, x.shape[2:], k, s, pads, out)
    scale = grad_scales(div, x.dtype)
    for i, (h0, h1) in enumerate(rows):
        for j, (w0, w1) in enumerate(cols):
            win = x[:, :, h0:h1, w0:w1]
            if is_max:
                flat = win.reshape(win.shape[:2] + (-1,))
                if d is None:
                    res[:, :, i, j] = flat.max(-1, initial=MAX_POOL_FLOOR)
                    continue
                if flat.shape[-1] == 0:
                    continue
                first = flat.argmax(-1)  # the gradient goes to the first maximum, as Paddle's
                g = np.zeros_like(flat)
                np.put_along_axis(g, first[..., None], d[:, :, i, j][..., None], -1)
                dx[:, :, h0:h1, w0:w1] += g.reshape(win.shape)
            elif d is None:
                with np.errstate(divide="ignore", invalid="ignore"):
                    res[:, :, i, j] = win.sum((2, 3)) / x.dtype.type(div[i, j])
            else:
                dx[:, :, h0:h1, w0:w1] += (d[:, :, i, j] * scale[i, j])[:, :, None, None]
    return np.ascontiguousarray(_from_nchw(res if d is None else dx, fmt))


def _torch_pool_size(d: int, k: int, p: int, s: int, ceil: bool) -> int:
    """torch's pooling output size (padding p on both sides; a ceil_mode window must start
    inside the input or its leading padding)."""
    o = (d + 2 * p - k + (s - 1 if ceil else 0)) // s + 1
    return o - 1 if ceil and (o - 1) * s >= d + p else o


def _pool_call(x, a, op: str):
    """How torch's pooling kernels compute a Paddle pool2d over x (NCHW or NHWC):
    (format, is_max, kind, ksize, strides, padding, ceil_mode, (t, b, l, r)).

    kind 'adaptive': torch's adaptive kernels (Paddle's and torch's windows are both
    [floor(j*d/o), ceil((j+1)*d/o))). kind 'native': torch's kernels with their own padding
    give Paddle's windows and divisors. In both, window j starts at j*s - top and is clipped to
    the input (max pools never see padding, exclusive averages count only the cells inside the
    input, inclusive ones those inside the input padded by top/left on both sides, as
    count_include_pad), so they agree whenever torch, padding top/left on both sides, makes
    Paddle's output size with one ceil_mode for both dims (torch allows at most k // 2
    padding; bottom/right padding only decides the size). kind 'padded': otherwise, x padded
    (or cropped) at the bottom and right explicitly so that windows of torch's unpadded pooling
    tile Paddle's output, (t, b, l, r) the padding to apply."""
    fmt, k, s, pads, out = pool_geometry(op, tuple(x.shape), a)
    is_max = a["pooling_type"] == "max"
    hw = _spatial(tuple(x.shape), fmt)
    if a["global_pooling"]:
        return fmt, is_max, "native", k, k, [0, 0], False, None
    if a["adaptive"]:
        return fmt, is_max, "adaptive", k, s, [0, 0], False, None
    t, _, l, _ = pads
    for ceil in (False, True):
        if all(p <= kk // 2 and d + 2 * p >= kk and _torch_pool_size(d, kk, p, ss, ceil) == o
               for d, kk, p, ss, o in zip(hw, k, (t, l), s, out)):
            return fmt, is_max, "native", k, s, [t, l], ceil, None
    # Pad (or crop) bottom/right so the windows tile exactly Paddle's output size.
    b = (out[0] - 1) * s[0] + k[0] - hw[0] - t
    r = (out[1] - 1) * s[1] + k[1] - hw[1] - l
    return fmt, is_max, "padded", k, s, [0, 0], False, (t, b, l, r)


def _exclusive(a) -> bool:
    return bool(a["exclusive"] or a["global_pooling"] or a["adaptive"])


def _pool_divisors(x, a, op: str) -> torch.Tensor:
    """pool_divisors as an [oh, ow] tensor of x's dtype and device."""
    fmt, k, s, pads, out = pool_geometry(op, tuple(x.shape), a)
    div = pool_divisors(a, _spatial(tuple(x.shape), fmt), k, s, pads, out)
    return torch.from_numpy(div.astype(np.float64)).to(x.device, x.dtype)


def _pool_grad_scales(x, a) -> torch.Tensor:
    """grad_scales as an [oh, ow] tensor of x's dtype and device."""
    fmt, k, s, pads, out = pool_geometry("pool2d_grad", tuple(x.shape), a)
    div = pool_divisors(a, _spatial(tuple(x.shape), fmt), k, s, pads, out)
    scale = grad_scales(div, np.float64 if x.dtype == torch.float64 else np.float32)
    return torch.from_numpy(scale).to(x.device, x.dtype)


def _channels_last(x):
    return x.is_contiguous(memory_format=torch.channels_last)


def _max_pool(x, k, s, pad, ceil):
    """(out, argmax indices) of torch's max pool over the NCHW view x, run channels-last: torch's
    kernel over NCHW-contiguous tensors measured about 10x slower than over a channels-last copy
    (7.5 ms against 0.65 ms with the copy, on the bench CNN's first pool). The indices count
    cells of each (n, c) plane whatever the memory format."""
    if not _channels_last(x):
        x = x.contiguous(memory_format=torch.channels_last)
    return torch.ops.aten.max_pool2d_with_indices(x, k, s, pad, [1, 1], ceil)


def _max_pool_into(y, x, k, s, pad, ceil) -> None:
    """y = the max pool of x (NCHW views): straight into y when both are channels-last (NHWC
    data), else through _max_pool and one copy of its (smaller) output."""
    if _channels_last(x) and _channels_last(y):
        idx = torch.empty(0, dtype=torch.int64, device=y.device)  # the kernel's temporary
        torch.ops.aten.max_pool2d_with_indices.out(x, k, s, pad, [1, 1], ceil, out=y,
                                                   indices=idx)
    else:
        y.copy_(_max_pool(x, k, s, pad, ceil)[0])


def _pool_run(ins, outs, a, rng):
    A = torch.ops.aten
    fmt, is_max, kind, k, s, pad, ceil, explicit = _pool_call(ins["X"][0], a, "pool2d")
    x, y = _nchw(ins["X"][0], fmt), _nchw(outs["Out"][0], fmt)
    if y.numel() == 0:
        return
    if kind == "adaptive":
        if is_max:  # written in place by the kernel that also gives the argmax indices (the
            # only one with out=): the indices are the temporary
            idx = torch.empty(0, dtype=torch.int64, device=y.device)
            A.adaptive_max_pool2d.out(x, k, out=y, indices=idx)
        else:
            A.adaptive_avg_pool2d.out(x, k, out=y)
    elif kind == "native":
        if is_max:
            _max_pool_into(y, x, k, s, pad, ceil)
        else:
            A.avg_pool2d.out(x, k, s, pad, ceil, not _exclusive(a), None, out=y)
    else:
        t, b, l, r = explicit
        if is_max:
            _max_pool_into(y, F.pad(x, (l, r, t, b), value=-math.inf), k, s, [0, 0], False)
        else:
            total = F.avg_pool2d(F.pad(x, (l, r, t, b)), k, s, divisor_override=1)
            torch.div(total, _pool_divisors(ins["X"][0], a, "pool2d"), out=y)
    if is_max:
        _floor_max_pool(y)


def _pool_grad(op: OpDesc) -> list[OpDesc]:
    return [OpDesc("pool2d_grad", {"X": op.input("X"), "Out": op.output("Out"),
                                   "Out@GRAD": [grad_name(op.output("Out")[0])]},
                   {"X@GRAD": [grad_name(op.input("X")[0])]}, dict(op.attrs))]


def _scatter_max(d, x, k, s, pad, ceil, idx, dx) -> None:
    """dx = dOut d routed to the argmax indices idx of the max pool over x (NCHW views)."""
    torch.ops.aten.max_pool2d_with_indices_backward.grad_input(d, x, k, s, pad, [1, 1], ceil,
                                                                idx, grad_input=dx)


def _pool_grad_run(ins, outs, a, rng):
    """dX by torch's pooling backward kernels, written into X@GRAD (no autograd).

    Max pools: torch's backward kernel takes the forward's argmax indices, which Out does not
    give; they are recomputed by max_pool2d_with_indices (one pass over X; its out and indices
    are the temporaries). Routing to the first cell equal to Out (Paddle's grad kernel) takes
    several elementwise torch ops per window offset and measured 4-7x slower on the bench CNN's
    pools. Ties go to the first maximum in row-major window order, as in the reference and
    Paddle; a window holding NaN routes to torch's pick, its last NaN (the reference takes the
    first). Average pools scatter dOut times grad_scales (Paddle's float32 reciprocals) with
    torch's divisor-1 backward kernels."""
    dx = _bound(outs, "X@GRAD")
    if dx is None:
        return
    A = torch.ops.aten
    fmt, is_max, kind, k, s, pad, ceil, explicit = _pool_call(ins["X"][0], a, "pool2d_grad")
    x, d, dx = _nchw(ins["X"][0], fmt), _nchw(ins["Out@GRAD"][0], fmt), _nchw(dx, fmt)
    if d.numel() == 0:
        dx.zero_()
        return
    g = None if is_max else d * _pool_grad_scales(ins["X"][0], a)
    if kind == "adaptive":
        if is_max:
            _, idx = A.adaptive_max_pool2d(x, k)
            A.adaptive_max_pool2d_backward.grad_input(d, x, idx, grad_input=dx)
        else:  # torch's kernel divides by each window's cells: hand it g times them
            count = _pool_divisors(ins["X"][0], a, "pool2d_grad")
            A._adaptive_avg_pool2d_backward.out(g * count, x, out=dx)
    elif kind == "native":
        if is_max:
            _scatter_max(d, x, k, s, pad, ceil, _max_pool(x, k, s, pad, ceil)[1], dx)
        else:
            A.avg_pool2d_backward.grad_input(g, x, k, s, pad, ceil, True, 1, grad_input=dx)
    else:  # the grad over the explicitly padded x, cropped back (rows cropped off get 0)
        t, b, l, r = explicit
        n, c, h, w = x.shape
        if is_max:
            xp = F.pad(x, (l, r, t, b), value=-math.inf)
            _, idx = _max_pool(xp, k, s, [0, 0], False)
            dxp = A.max_pool2d_with_indices_backward(d, xp, k, s, [0, 0], [1, 1], False, idx)
        else:
            shape = d.new_empty(()).expand(n, c, h + t + b, w + l + r)  # only its shape is read
            dxp = A.avg_pool2d_backward(g, shape, k, s, [0, 0], False, True, 1)
        hh, ww = h + min(b, 0), w + min(r, 0)
        if (hh, ww) != (h, w):
            dx.zero_()
        dx[:, :, :hh, :ww].copy_(dxp[:, :, t:t + hh, l:l + ww])


_extern("pool2d", ["X"], ["Out"], POOL_ATTRS, _pool_infer, _pool_run,
        lambda ins, a: {"Out": [_pool_np(np.asarray(ins["X"][0]), a)]}, _pool_grad)
_extern("pool2d_grad", ["X", "Out", "Out@GRAD"], ["X@GRAD?"], POOL_ATTRS,
        lambda ins, a: {"X@GRAD": [ins["X"][0]]}, _pool_grad_run,
        lambda ins, a: {"X@GRAD": [_pool_np(np.asarray(ins["X"][0]), a,
                                            np.asarray(ins["Out@GRAD"][0]))]})


# ---------------------------------------------------------------------------------------------
# pool2d_argmax / pool2d_argmax_grad: a max pool2d that also keeps torch's argmax indices (int64,
# each maximum's h * W + w in its input plane) for its grad, which then scatters dOut without
# recomputing them (pool2d_grad's pass over X). Written by passes/conv_fusion.py in training
# plans for max pools torch computes with its own padding (`native_max_pool`); never in a
# Program. The indices cost an int64 per output in the arena.

def native_max_pool(shape, a) -> bool:
    """Whether pool2d (complete attrs `a`) over X of `shape` is a max pool torch's kernels
    compute with their own padding, so its indices address X itself."""
    if a["pooling_type"] != "max" or a["adaptive"]:
        return False
    return _pool_call(torch.empty(tuple(shape), device="meta"), a, "pool2d")[2] == "native"


def _argmax_infer(ins, a):
    out = _pool_infer(ins, a)["Out"][0]
    return {"Out": [out], "Indices": [VarInfo(out.shape, VarType.INT64, out.lod_level)]}


def _argmax_ref(ins, a):
    """Out as pool2d's; Indices: the first maximum of each window."""
    x = np.asarray(ins["X"][0])
    fmt, k, s, pads, out = pool_geometry("pool2d_argmax", x.shape, a)
    xc = _nchw(x, fmt)
    rows, cols = _windows(a, xc.shape[2:], k, s, pads, out)
    idx = np.zeros(xc.shape[:2] + tuple(out), np.int64)
    for i, (h0, h1) in enumerate(rows):
        for j, (w0, w1) in enumerate(cols):
            first = xc[:, :, h0:h1, w0:w1].reshape(xc.shape[:2] + (-1,)).argmax(-1)
            idx[:, :, i, j] = (h0 + first // (w1 - w0)) * xc.shape[3] + w0 + first % (w1 - w0)
    return {"Out": [_pool_np(x, a)], "Indices": [np.ascontiguousarray(_from_nchw(idx, fmt))]}


def _argmax_run(ins, outs, a, rng):
    fmt, _, _, k, s, pad, ceil, _ = _pool_call(ins["X"][0], a, "pool2d_argmax")
    y, idx = _max_pool(_nchw(ins["X"][0], fmt), k, s, pad, ceil)
    _floor_max_pool(y)
    _nchw(outs["Out"][0], fmt).copy_(y)
    _nchw(outs["Indices"][0], fmt).copy_(idx)


def _argmax_grad_run(ins, outs, a, rng):
    dx = _bound(outs, "X@GRAD")
    if dx is None:
        return
    fmt, _, _, k, s, pad, ceil, _ = _pool_call(ins["X"][0], a, "pool2d_argmax_grad")
    x, d, idx = (_nchw(ins[n][0], fmt) for n in ("X", "Out@GRAD", "Indices"))
    if d.numel() == 0:
        dx.zero_()
        return
    _scatter_max(d, x, k, s, pad, ceil, idx, _nchw(dx, fmt))


_extern("pool2d_argmax", ["X"], ["Out", "Indices"], POOL_ATTRS, _argmax_infer, _argmax_run,
        _argmax_ref)
_extern("pool2d_argmax_grad", ["X", "Indices", "Out@GRAD"], ["X@GRAD?"], POOL_ATTRS,
        lambda ins, a: {"X@GRAD": [ins["X"][0]]}, _argmax_grad_run,
        lambda ins, a: {"X@GRAD": [_pool_np(np.asarray(ins["X"][0]), a,
                                            np.asarray(ins["Out@GRAD"][0]))]})
