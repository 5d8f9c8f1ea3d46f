"""layer_norm, batch_norm and their grads: composites lowered to reductions and pointwise ops,
so they fuse.

layer_norm: X splits at begin_norm_axis into `left` rows of `right` normalized values; Mean and
Variance hold one value per row ([left]), Scale and Bias one per normalized value ([right]).
batch_norm: statistics per channel, over every other axis of X; Scale, Bias, the running Mean
and Variance and the saved statistics are [C]."""
from __future__ import annotations

import math

import numpy as np
from fluidc.frontend.lazy_import import torch

from ..dtypes import convert_dtype
from ..errors import OpError, ShapeError
from .define import grad_like, pointwise, present
from .reduce import inverse_count
from .registry import OpDef, OpDesc, VarInfo, grad_name, register, slots

LN_ATTRS = {"epsilon": 1e-5, "begin_norm_axis": 1}


def _prod(dims) -> int:
    return -1 if any(d < 0 for d in dims) else math.prod(dims)


def _split(op: str, shape, a) -> tuple[int, int, int]:
    """(begin_norm_axis, left, right) of X's shape."""
    ax = a["begin_norm_axis"]
    if not 0 <= ax < len(shape):
        raise ShapeError(f"op '{op}': begin_norm_axis={ax} is out of range for X {list(shape)}")
    return ax, _prod(shape[:ax]), _prod(shape[ax:])


def _ln_infer(ins, a):
    x = ins["X"][0]
    ax, left, right = _split("layer_norm", x.shape, a)
    for s in ("Scale", "Bias"):
        if ins.get(s):
            got = ins[s][0].shape
            if len(got) != 1 or (right >= 0 and got[0] not in (right, -1)):
                raise ShapeError(f"op 'layer_norm': {s} shape {list(got)} does not match the "
                                 f"{right} normalized values of X {list(x.shape)} at "
                                 f"begin_norm_axis={ax}")
    stat = VarInfo((left,), x.dtype)
    return {"Y": [VarInfo(x.shape, x.dtype, x.lod_level)], "Mean": [stat], "Variance": [stat]}


def _ln_np(x, a):
    ax, left, right = _split("layer_norm", x.shape, a)
    rows = x.reshape(left, right)
    mean = rows.mean(1)
    var = ((rows - mean[:, None]) ** 2).mean(1)
    xhat = (rows - mean[:, None]) / np.sqrt(var[:, None] + a["epsilon"])
    return rows, mean, var, xhat


def _ln_ref(ins, a):
    x = np.asarray(ins["X"][0])
    _, mean, var, y = _ln_np(x, a)
    if ins.get("Scale"):
        y = y * np.asarray(ins["Scale"][0])
    if ins.get("Bias"):
        y = y + np.asarray(ins["Bias"][0])
    return {"Y": [y.reshape(x.shape).astype(x.dtype)], "Mean": [mean.astype(x.dtype)],
            "Variance": [var.astype(x.dtype)]}


class _Emit:
    """Appends lowered ops, making their temporaries."""

    def __init__(self, new_var, dtype) -> None:
        self.ops: list[OpDesc] = []
        self.new_var, self.dtype = new_var, dtype

    def __call__(self, type: str, ins: dict, shape, attrs=None, out: str | None = None,
                 slot: str = "Out") -> str:
        out = out or self.new_var(VarInfo(tuple(shape), self.dtype))
        self.ops.append(OpDesc(type, {k: [v] for k, v in ins.items()}, {slot: [out]},
                               dict(attrs or {})))
        return out

    def zeros(self, shape, out: str) -> str:
        return self("fill_constant", {}, shape, {"shape": list(shape), "value": 0.0,
                                                 "dtype": int(convert_dtype(self.dtype))}, out)

    def reshape(self, x: str, shape, out: str | None = None) -> str:
        # reshape2 reads a 0 as "X's dim there": an empty target's one 0 is spelled -1 (the
        # size inferred from X's 0 elements)
        dims = list(shape)
        if dims.count(0) == 1:
            dims[dims.index(0)] = -1
        return self("reshape2", {"X": x}, shape, {"shape": dims}, out)

    def row_mean(self, x: str, axes, kept, n: int) -> str:
        """mean over `axes` (the normalized ones), kept as size-1 dims."""
        total = self("reduce_sum", {"X": x}, kept, {"dim": list(axes), "keep_dim": True})
        return self("scale", {"X": total}, kept, {"scale": inverse_count(n)})

    def column_sum(self, x: str, ax: int, shape, right: int, out: str) -> None:
        """sum over the rows (dims before ax) into the [right] var `out`."""
        if ax > 0:
            x = self("reduce_sum", {"X": x}, shape[ax:], {"dim": list(range(ax)),
                                                           "keep_dim": False})
        self.reshape(x, (right,), out)


def _ln_frame(op: OpDesc, infos: dict[str, VarInfo], new_var):
    """What layer_norm and its grad lower over: X's shape, the attrs, the split (ax, left,
    right), the normalized axes, the kept shape (1 on them) and an emitter."""
    xi = infos[op.input("X")[0]]
    shape = tuple(xi.shape)
    a = {**LN_ATTRS, **op.attrs}
    ax, left, right = _split(op.type, shape, a)
    axes, kept = range(ax, len(shape)), shape[:ax] + (1,) * (len(shape) - ax)
    return shape, a, (ax, left, right), axes, kept, _Emit(new_var, xi.dtype)


def _ln_param(e: _Emit, infos: dict[str, VarInfo], name: str, shape) -> str:
    """Scale or Bias over the normalized dims: itself when its shape is theirs already (one
    normalized axis), which broadcasts as it is. A reshape2 of a parameter the optimizer then
    writes is no view but a copy, a library call between the layer_norm's kernels."""
    return name if tuple(infos[name].shape) == tuple(shape) else e.reshape(name, shape)


def _ln_lower(op: OpDesc, infos: dict[str, VarInfo], new_var) -> list[OpDesc]:
    shape, a, (ax, left, right), axes, kept, e = _ln_frame(op, infos, new_var)
    # Scale and Bias shaped first, so the normalize-scale-shift chain stays one kernel.
    scale, bias = (_ln_param(e, infos, op.input(s)[0], shape[ax:]) if present(op.input(s))
                   else None for s in ("Scale", "Bias"))
    x = op.input("X")[0]
    mean = e.row_mean(x, axes, kept, right)
    xc = e("elementwise_sub", {"X": x, "Y": mean}, shape)
    var = e.row_mean(e("square", {"X": xc}, shape), axes, kept, right)
    rstd = e("rsqrt", {"X": e("scale", {"X": var}, kept, {"bias": float(a["epsilon"])})}, kept)
    y = op.output("Y")[0]
    y0 = e("elementwise_mul", {"X": xc, "Y": rstd}, shape, out=None if scale or bias else y)
    if scale:
        y0 = e("elementwise_mul", {"X": y0, "Y": scale}, shape, out=None if bias else y)
    if bias:
        e("elementwise_add", {"X": y0, "Y": bias}, shape, out=y)
    for slot, v in (("Mean", mean), ("Variance", var)):
        if present(op.output(slot)):
            e.reshape(v, (left,), op.output(slot)[0])
    return e.ops


def _ln_grad(op: OpDesc) -> list[OpDesc]:
    if not (present(op.output("Mean")) and present(op.output("Variance"))):
        raise OpError(f"op 'layer_norm' needs its Mean and Variance outputs to be "
                      f"differentiated (X {op.input('X')})")
    ins = {s: op.input(s) for s in ("X", "Scale", "Bias") if op.input(s)}
    ins.update({"Mean": op.output("Mean"), "Variance": op.output("Variance"),
                "Y@GRAD": [grad_name(op.output("Y")[0])]})
    return [OpDesc("layer_norm_grad", ins, grad_like(op, "X", "Scale", "Bias"), dict(op.attrs))]


def _ln_grad_infer(ins, a):
    out = {"X@GRAD": [ins["X"][0]]}
    out.update({s + "@GRAD": [ins[s][0]] for s in ("Scale", "Bias") if ins.get(s)})
    return out


def _ln_grad_ref(ins, a):
    x, dy = np.asarray(ins["X"][0]), np.asarray(ins["Y@GRAD"][0])
    ax, left, right = _split("layer_norm_grad", x.shape, a)
    mean = np.asarray(ins["Mean"][0]).reshape(left, 1)
    rstd = 1.0 / np.sqrt(np.asarray(ins["Variance"][0]).reshape(left, 1) + a["epsilon"])
    xhat = (x.reshape(left, right) - mean) * rstd
    dy = dy.reshape(left, right)
    g = dy * np.asarray(ins["Scale"][0]) if ins.get("Scale") else dy
    dx = rstd * (g - g.mean(1, keepdims=True) - xhat * (g * xhat).mean(1, keepdims=True))
    out = {"X@GRAD": [dx.reshape(x.shape).astype(x.dtype)]}
    if ins.get("Scale"):
        out["Scale@GRAD"] = [(dy * xhat).sum(0).astype(x.dtype)]
    if ins.get("Bias"):
        out["Bias@GRAD"] = [dy.sum(0).astype(x.dtype)]
    return out


def _ln_grad_lower(op: OpDesc, infos: dict[str, VarInfo], new_var) -> list[OpDesc]:
    # dX = rstd * (g - mean(g) - xhat * mean(g * xhat)), g = dY * Scale, over the normalized axes
    shape, a, (ax, left, right), axes, kept, e = _ln_frame(op, infos, new_var)
    x, dy = op.input("X")[0], op.input("Y@GRAD")[0]
    scale = _ln_param(e, infos, op.input("Scale")[0], shape[ax:]) \
        if present(op.input("Scale")) else None
    mean = e.reshape(op.input("Mean")[0], kept)
    var = e.reshape(op.input("Variance")[0], kept)
    rstd = e("rsqrt", {"X": e("scale", {"X": var}, kept, {"bias": float(a["epsilon"])})},
             kept)
    xhat = e("elementwise_mul", {"X": e("elementwise_sub", {"X": x, "Y": mean}, shape),
                                 "Y": rstd}, shape)
    if present(op.output("Bias@GRAD")):
        e.column_sum(dy, ax, shape, right, op.output("Bias@GRAD")[0])
    if present(op.output("Scale@GRAD")):
        e.column_sum(e("elementwise_mul", {"X": dy, "Y": xhat}, shape), ax, shape, right,
                     op.output("Scale@GRAD")[0])
    if present(op.output("X@GRAD")):
        g = e("elementwise_mul", {"X": dy, "Y": scale}, shape) if scale else dy
        m1 = e.row_mean(g, axes, kept, right)
        m2 = e.row_mean(e("elementwise_mul", {"X": g, "Y": xhat}, shape), axes, kept, right)
        centered = e("elementwise_sub", {"X": g, "Y": m1}, shape)
        diff = e("elementwise_sub", {"X": centered, "Y": e("elementwise_mul",
                                                            {"X": xhat, "Y": m2}, shape)}, shape)
        e("elementwise_mul", {"X": diff, "Y": rstd}, shape, out=op.output("X@GRAD")[0])
    return e.ops


register(OpDef("layer_norm", slots("X", "Scale?", "Bias?"), slots("Y", "Mean?", "Variance?"),
               LN_ATTRS, _ln_infer, "composite", reference=_ln_ref, grad=_ln_grad,
               lower=_ln_lower))
register(OpDef("layer_norm_grad", slots("X", "Scale?", "Bias?", "Mean", "Variance", "Y@GRAD"),
               slots("X@GRAD?", "Scale@GRAD?", "Bias@GRAD?"), LN_ATTRS, _ln_grad_infer,
               "composite", reference=_ln_grad_ref, lower=_ln_grad_lower))


# ---------------------------------------------------------------------------------------------
# batch_norm: statistics per channel, over every axis but the channel one.
#
# Training mode lowers onto sums over the non-channel axes (kept as size-1 dims, so per-channel
# values broadcast back numpy-style) and pointwise ops; [C] vectors (Scale, Bias, the saved and
# running statistics) meet X-shaped values through elementwise ops at the channel axis, and the
# [C] outputs are views of kept-shaped values. With row fusion the forward is a kernel of the
# two sums (mean, then the variance of the centred values) and the per-channel values, a [C]
# kernel updating the running statistics, and Y's pointwise ops, emitted last so the activation
# after batch_norm joins them; the grad is one kernel (the sums of dY and dY * xhat, then dX),
# which the ops before it (relu_grad) and after it (the conv bias grad) join. Nothing of X's
# size is stored but Y and dX. On running statistics (is_test, use_global_stats) Y is the
# pointwise batch_norm_infer, as the inference rewrite wrote it before batch_norm was lowered.

BN_ATTRS = {"momentum": 0.9, "epsilon": 1e-5, "is_test": False, "data_layout": "NCHW",
            "use_global_stats": False, "trainable_statistics": False}


def _channel_axis(a, rank: int) -> int:
    if a["data_layout"] not in ("NCHW", "NHWC", "AnyLayout"):
        raise OpError(f"op 'batch_norm': unknown data_layout {a['data_layout']!r}")
    return rank - 1 if a["data_layout"] == "NHWC" and rank > 2 else 1


def _uses_global_stats(a) -> bool:
    """Whether batch_norm normalizes with its running statistics (inference)."""
    return a["use_global_stats"] or (a["is_test"] and not a["trainable_statistics"])


def _bn_infer(ins, a):
    x = ins["X"][0]
    if not 2 <= len(x.shape) <= 5:
        raise ShapeError(f"op 'batch_norm': X must have rank 2 to 5, got {list(x.shape)}")
    c = x.shape[_channel_axis(a, len(x.shape))]
    for s in ("Scale", "Bias", "Mean", "Variance"):
        got = ins[s][0].shape
        if len(got) != 1 or (got[0] != c and -1 not in (got[0], c)):
            raise ShapeError(f"op 'batch_norm': {s} shape {list(got)} does not match the "
                             f"{c} channels of X {list(x.shape)}")
    stat = VarInfo((c,), ins["Mean"][0].dtype)
    return {"Y": [VarInfo(x.shape, x.dtype, x.lod_level)], "MeanOut": [stat],
            "VarianceOut": [stat], "SavedMean": [stat], "SavedVariance": [stat],
            "ReserveSpace": [VarInfo((0,), x.dtype)]}


def _passes_through(a, shape) -> bool:
    """Whether training-mode batch_norm normalizes one value per channel (N*H*W == 1): Paddle's
    kernels then copy X to Y (and dY to dX), leave the running statistics as they are and give
    zero saved statistics and Scale/Bias grads, rather than normalizing everything to 0."""
    c = _channel_axis(a, len(shape))
    return not _uses_global_stats(a) and math.prod(d for i, d in enumerate(shape) if i != c) == 1


def _bn_view(x_ndim: int, axis: int) -> tuple[int, ...]:
    """The shape that broadcasts a per-channel vector against X."""
    return tuple(-1 if i == axis else 1 for i in range(x_ndim))


def _momentum(ins, a) -> float:
    """The running statistics' momentum: MomentumTensor's value where the op has one (Paddle
    reads it before the attribute), else the attribute."""
    t = ins.get("MomentumTensor") or [None]
    return a["momentum"] if t[0] is None else float(np.asarray(t[0]).reshape(-1)[0])


def _bn_ref(ins, a):
    x = np.asarray(ins["X"][0])
    scale, bias, mean, var = (np.asarray(ins[s][0]) for s in ("Scale", "Bias", "Mean", "Variance"))
    axis = _channel_axis(a, x.ndim)
    red = tuple(i for i in range(x.ndim) if i != axis)
    view = _bn_view(x.ndim, axis)
    m = _momentum(ins, a)
    if _passes_through(a, x.shape):
        st, zero = mean.dtype, np.zeros_like(mean)
        return {"Y": [x.copy()], "MeanOut": [mean.copy()], "VarianceOut": [var.copy()],
                "SavedMean": [zero], "SavedVariance": [zero.copy()],
                "ReserveSpace": [np.zeros((0,), x.dtype)]}
    if _uses_global_stats(a):
        use_mean, use_var = mean, var
        mean_out, var_out = mean.copy(), var.copy()
    else:
        use_mean, use_var = x.mean(axis=red), x.var(axis=red)
        mean_out = mean * m + use_mean * (1 - m)
        var_out = var * m + use_var * (1 - m)
    inv_std = 1.0 / np.sqrt(use_var + a["epsilon"])
    y = (x - use_mean.reshape(view)) * (inv_std * scale).reshape(view) + bias.reshape(view)
    st = mean.dtype
    return {"Y": [y.astype(x.dtype)], "MeanOut": [mean_out.astype(st)],
            "VarianceOut": [var_out.astype(st)], "SavedMean": [use_mean.astype(st)],
            "SavedVariance": [inv_std.astype(st)], "ReserveSpace": [np.zeros((0,), x.dtype)]}


def _bn_run(ins, outs, a, rng):
    """The same on torch tensors: not called by the compiler (batch_norm is lowered), kept as a
    second implementation the reference is checked against."""
    x = ins["X"][0]
    scale, bias, mean, var = (ins[s][0] for s in ("Scale", "Bias", "Mean", "Variance"))
    axis = _channel_axis(a, x.dim())
    red = [i for i in range(x.dim()) if i != axis]
    view = _bn_view(x.dim(), axis)
    m = _momentum(ins, a)
    if _passes_through(a, tuple(x.shape)):
        outs["Y"][0].copy_(x)
        outs["MeanOut"][0].copy_(mean)
        outs["VarianceOut"][0].copy_(var)
        outs["SavedMean"][0].zero_()
        outs["SavedVariance"][0].zero_()
        return
    # MeanOut/VarianceOut usually alias Mean/Variance: compute everything before writing.
    if _uses_global_stats(a):
        use_mean, use_var = mean.clone(), var.clone()
        new_mean, new_var = use_mean, use_var
    else:
        use_var, use_mean = torch.var_mean(x, dim=red, correction=0)
        new_mean = mean * m + use_mean * (1 - m)
        new_var = var * m + use_var * (1 - m)
    inv_std = torch.rsqrt(use_var + a["epsilon"])
    torch.addcmul(bias.view(view), x - use_mean.view(view), (inv_std * scale).view(view),
                  out=outs["Y"][0])
    outs["MeanOut"][0].copy_(new_mean)
    outs["VarianceOut"][0].copy_(new_var)
    outs["SavedMean"][0].copy_(use_mean)
    outs["SavedVariance"][0].copy_(inv_std)


def _bn_grad(op: OpDesc) -> list[OpDesc]:
    ins = {s: op.input(s) for s in ("X", "Scale", "Bias", "Mean", "Variance")}
    ins.update({"SavedMean": op.output("SavedMean"), "SavedVariance": op.output("SavedVariance"),
                "Y@GRAD": [grad_name(op.output("Y")[0])]})
    if op.output("ReserveSpace"):
        ins["ReserveSpace"] = op.output("ReserveSpace")
    return [OpDesc("batch_norm_grad", ins, grad_like(op, "X", "Scale", "Bias"), dict(op.attrs))]


def _bn_grad_math(x, scale, mean, inv_std, dy, a, xp_sum):
    """(dX, dScale, dBias) for numpy or torch arrays; xp_sum(t, axes) sums keeping dims."""
    axis = _channel_axis(a, x.ndim)
    red = tuple(i for i in range(x.ndim) if i != axis)
    view = _bn_view(x.ndim, axis)
    xhat = (x - mean.reshape(view)) * inv_std.reshape(view)
    dbias = xp_sum(dy, red)
    dscale = xp_sum(dy * xhat, red)
    k = (scale * inv_std).reshape(view)
    if _uses_global_stats(a):
        return dy * k, dscale, dbias
    n = math.prod(x.shape[i] for i in red)
    dx = k * (dy - dbias.reshape(view) / n - xhat * dscale.reshape(view) / n)
    return dx, dscale, dbias


def _bn_grad_stats(ins, a):
    """The mean and 1/std the forward normalized with."""
    if _uses_global_stats(a):
        var = ins["Variance"][0]
        return ins["Mean"][0], 1.0 / (var + a["epsilon"]) ** 0.5
    return ins["SavedMean"][0], ins["SavedVariance"][0]


def _bn_grad_ref(ins, a):
    x, scale, dy = (np.asarray(ins[s][0]) for s in ("X", "Scale", "Y@GRAD"))
    if _passes_through(a, x.shape):
        return {"X@GRAD": [dy.copy()], "Scale@GRAD": [np.zeros_like(scale)],
                "Bias@GRAD": [np.zeros_like(scale)]}
    mean, inv_std = (np.asarray(v) for v in _bn_grad_stats(ins, a))
    dx, dscale, dbias = _bn_grad_math(x, scale, mean, inv_std, dy, a,
                                      lambda t, red: t.sum(axis=red))
    return {"X@GRAD": [dx.astype(x.dtype)], "Scale@GRAD": [dscale.astype(scale.dtype)],
            "Bias@GRAD": [dbias.astype(scale.dtype)]}


def _bn_grad_run(ins, outs, a, rng):
    """The grad on torch tensors: like _bn_run, a check of the reference, never compiled."""
    x, scale, dy = ins["X"][0], ins["Scale"][0], ins["Y@GRAD"][0]
    if _passes_through(a, tuple(x.shape)):
        dx, dscale, dbias = dy, torch.zeros_like(scale), torch.zeros_like(scale)
    else:
        mean, inv_std = _bn_grad_stats(ins, a)
        dx, dscale, dbias = _bn_grad_math(x, scale, mean, inv_std, dy, a,
                                          lambda t, red: t.sum(dim=red))
    for slot, v in (("X@GRAD", dx), ("Scale@GRAD", dscale), ("Bias@GRAD", dbias)):
        if outs.get(slot):
            outs[slot][0].copy_(v)


def _bn_grad_infer(ins, a):
    return {"X@GRAD": [ins["X"][0]], "Scale@GRAD": [ins["Scale"][0]],
            "Bias@GRAD": [ins["Scale"][0]]}


def _bn_frame(op: OpDesc, infos: dict[str, VarInfo], new_var):
    """What batch_norm and its grad lower over: X's shape, the attrs, the channel axis c and
    count C, the reduced axes, the kept shape (C on c, 1 elsewhere), the values per channel n,
    and an emitter. The lowering computes in X's dtype; so do Paddle's float32/float64
    kernels, which want Scale, Bias and the statistics in it too."""
    xi = infos[op.input("X")[0]]
    shape = tuple(xi.shape)
    a = {**BN_ATTRS, **op.attrs}
    c = _channel_axis(a, len(shape))
    for s in ("Scale", "Bias", "Mean", "Variance", "SavedMean", "SavedVariance"):
        if present(op.input(s)) and infos[op.input(s)[0]].dtype != xi.dtype:
            raise OpError(f"op '{op.type}': {s} '{op.input(s)[0]}' is "
                          f"{infos[op.input(s)[0]].dtype.name}, X '{op.input('X')[0]}' is "
                          f"{xi.dtype.name}: they must have one dtype")
    axes = [i for i in range(len(shape)) if i != c]
    kept = tuple(d if i == c else 1 for i, d in enumerate(shape))
    n = math.prod(shape[i] for i in axes)
    return shape, a, c, axes, kept, n, _Emit(new_var, xi.dtype)


def _bn_lower(op: OpDesc, infos: dict[str, VarInfo], new_var) -> list[OpDesc]:
    shape, a, c, axes, kept, n, e = _bn_frame(op, infos, new_var)
    vec = (shape[c],)  # the shape of the [C] values
    ch = {"axis": c}  # a [C] operand sits on X's channel axis
    x, scale, bias, mean, var = (op.input(s)[0] for s in ("X", "Scale", "Bias", "Mean",
                                                          "Variance"))
    out = {s: op.output(s)[0] if present(op.output(s)) else None
           for s in ("Y", "MeanOut", "VarianceOut", "SavedMean", "SavedVariance")}
    eps = float(a["epsilon"])
    if _passes_through(a, shape):
        for src, slot in ((mean, "MeanOut"), (var, "VarianceOut")):
            if out[slot] is not None and out[slot] != src:
                e("assign", {"X": src}, vec, out=out[slot])
        for slot in ("SavedMean", "SavedVariance"):
            if out[slot] is not None:
                e.zeros(vec, out[slot])
        if out["Y"] is not None:
            e("assign", {"X": x}, shape, out=out["Y"])
        return e.ops
    if _uses_global_stats(a):
        # The statistics [C] first, then Y as the one pointwise op of the inference rewrite,
        # so the activation after it joins its kernel; unread saved statistics are pruned.
        for src, slot in ((mean, "MeanOut"), (var, "VarianceOut")):
            if out[slot] is not None and out[slot] != src:
                e("assign", {"X": src}, vec, out=out[slot])
        if out["SavedMean"] is not None:
            e("assign", {"X": mean}, vec, out=out["SavedMean"])
        if out["SavedVariance"] is not None:
            e("rsqrt", {"X": e("scale", {"X": var}, vec, {"bias": eps})}, vec,
              out=out["SavedVariance"])
        e("batch_norm_infer", {"X": x, "Scale": scale, "Bias": bias, "Mean": mean,
                               "Variance": var}, shape,
          {"epsilon": eps, "data_layout": a["data_layout"]}, out=out["Y"], slot="Y")
        return e.ops
    # Kernel 1: the batch mean, the (biased) batch variance of the centred values, 1/std and
    # Scale/std per channel.
    red = {"dim": axes, "keep_dim": True}
    bmean = e("scale", {"X": e("reduce_sum", {"X": x}, kept, red)}, kept,
              {"scale": inverse_count(n)})
    xc = e("elementwise_sub", {"X": x, "Y": bmean}, shape)
    bvar = e("scale", {"X": e("reduce_sum", {"X": e("square", {"X": xc}, shape)}, kept, red)},
             kept, {"scale": inverse_count(n)})
    rstd = e("rsqrt", {"X": e("scale", {"X": bvar}, kept, {"bias": eps})}, kept)
    k = e("elementwise_mul", {"X": rstd, "Y": scale}, kept, ch)
    # The [C] outputs are views of the per-channel values (no copies).
    for v, slot in ((bmean, "SavedMean"), (rstd, "SavedVariance")):
        if out[slot] is not None:
            e.reshape(v, vec, out[slot])
    # Kernel 2 ([C]): running statistics, Stat * momentum + batch value * (1 - momentum), the
    # momentum MomentumTensor's [1] value (cast to X's dtype) where the op has one.
    m, keep = float(a["momentum"]), None
    if present(op.input("MomentumTensor")):
        keep = e("cast", {"X": op.input("MomentumTensor")[0]}, (1,),
                 {"out_dtype": int(convert_dtype(e.dtype))})
    for run, batch, slot in ((mean, bmean, "MeanOut"), (var, bvar, "VarianceOut")):
        if out[slot] is not None:
            batch = out["SavedMean"] if slot == "MeanOut" and out["SavedMean"] else \
                e.reshape(batch, vec)
            if keep is None:
                old_part = e("scale", {"X": run}, vec, {"scale": m})
                new_part = e("scale", {"X": batch}, vec, {"scale": 1.0 - m})
            else:
                old_part = e("elementwise_mul", {"X": run, "Y": keep}, vec)
                new_part = e("elementwise_mul", {"X": batch, "Y": e(
                    "scale", {"X": keep}, (1,), {"scale": -1.0, "bias": 1.0})}, vec)
            e("elementwise_add", {"X": old_part, "Y": new_part}, vec, out=out[slot])
    # Kernel 3: Y = (X - mean) * (Scale / std) + Bias, recomputing X - mean rather than storing
    # it in kernel 1.
    if out["Y"] is not None:
        y0 = e("elementwise_mul", {"X": e("elementwise_sub", {"X": x, "Y": bmean}, shape),
                                   "Y": k}, shape)
        e("elementwise_add", {"X": y0, "Y": bias}, shape, ch, out=out["Y"])
    return e.ops


def _bn_grad_lower(op: OpDesc, infos: dict[str, VarInfo], new_var) -> list[OpDesc]:
    # xhat = (X - mean) * rstd; dBias = sum(dY), dScale = sum(dY * xhat) over the non-channel
    # axes; dX = Scale * rstd * (dY - dBias / n - xhat * dScale / n) in training, and
    # Scale * rstd * dY on the running statistics (they do not depend on X).
    shape, a, c, axes, kept, n, e = _bn_frame(op, infos, new_var)
    vec = (shape[c],)
    ch = {"axis": c}
    x, scale, dy = (op.input(s)[0] for s in ("X", "Scale", "Y@GRAD"))
    dx, dscale, dbias = (op.output(s)[0] if present(op.output(s)) else None
                         for s in ("X@GRAD", "Scale@GRAD", "Bias@GRAD"))
    red = {"dim": axes, "keep_dim": True}
    if _passes_through(a, shape):
        if dx is not None:
            e("assign", {"X": dy}, shape, out=dx)
        for v in (dscale, dbias):
            if v is not None:
                e.zeros(vec, v)
        return e.ops
    glob = _uses_global_stats(a)
    if glob:
        if not (present(op.input("Mean")) and present(op.input("Variance"))):
            raise OpError(f"op 'batch_norm_grad' with use_global_stats needs the running Mean "
                          f"and Variance (X {op.input('X')})")
        mean = op.input("Mean")[0]
        # 1/std per channel from the running variance: a [C] value, before the kernel.
        rstd = e("rsqrt", {"X": e("scale", {"X": op.input("Variance")[0]}, vec,
                                  {"bias": float(a["epsilon"])})}, vec)
    else:
        mean, rstd = op.input("SavedMean")[0], op.input("SavedVariance")[0]
    # 1/std viewed in the kept shape: Scale / std is then one value per channel in the kernel.
    rstd_k = e.reshape(rstd, kept) if dx is not None else None
    sums = dx is not None and not glob  # dX needs both sums in training
    xhat = dbias_k = dscale_k = None
    if dscale is not None or sums:
        xhat = e("elementwise_mul", {"X": e("elementwise_sub", {"X": x, "Y": mean}, shape, ch),
                                     "Y": rstd}, shape, ch)
    if dbias is not None or sums:
        dbias_k = e("reduce_sum", {"X": dy}, kept, red)
    if xhat is not None:
        dscale_k = e("reduce_sum", {"X": e("elementwise_mul", {"X": dy, "Y": xhat}, shape)},
                     kept, red)
    if dbias is not None:
        e.reshape(dbias_k, vec, dbias)
    if dscale is not None:
        e.reshape(dscale_k, vec, dscale)
    if dx is not None:
        k = e("elementwise_mul", {"X": rstd_k, "Y": scale}, kept, ch)
        if glob:
            e("elementwise_mul", {"X": dy, "Y": k}, shape, out=dx)
        else:
            c1 = e("scale", {"X": dbias_k}, kept, {"scale": inverse_count(n)})
            c2 = e("scale", {"X": dscale_k}, kept, {"scale": inverse_count(n)})
            t = e("elementwise_sub", {"X": dy, "Y": c1}, shape)
            t = e("elementwise_sub", {"X": t, "Y": e("elementwise_mul", {"X": xhat, "Y": c2},
                                                     shape)}, shape)
            e("elementwise_mul", {"X": t, "Y": k}, shape, out=dx)
    return e.ops


def _bn_infer_broadcast(attrs, shapes, rank):
    # Scale, Bias, Mean, Variance ([C]) sit on the channel axis of X.
    c = _channel_axis(attrs, rank)
    return {k: (tuple(v) if k == "X" else (1,) * c + tuple(v) + (1,) * (rank - c - 1))
            for k, v in shapes.items()}


def _bn_infer_expr(o, i, a):
    x = i["X"]
    inv = o.truediv(i["Scale"], o.sqrt(o.add(i["Variance"], o.constant(a["epsilon"], x.dtype))))
    return {"Y": o.add(o.mul(o.sub(x, i["Mean"]), inv), i["Bias"])}


# batch_norm with its running statistics, as one pointwise op (batch_norm's lowering writes it on
# running statistics, so it fuses with the activation after it; never in a Program).
pointwise("batch_norm_infer", ["X", "Scale", "Bias", "Mean", "Variance"], ["Y"], _bn_infer_expr,
          {"epsilon": 1e-5, "data_layout": "NCHW"}, broadcast=_bn_infer_broadcast)

# `run` (torch) is kept on both as an independent check of the references; the compiler lowers.
register(OpDef("batch_norm", slots("X", "Scale", "Bias", "Mean", "Variance", "MomentumTensor?"),
               slots("Y", "MeanOut", "VarianceOut", "SavedMean", "SavedVariance",
                     "ReserveSpace?"),
               BN_ATTRS, _bn_infer, "composite", reference=_bn_ref, grad=_bn_grad,
               lower=_bn_lower, run=_bn_run))
register(OpDef("batch_norm_grad", slots("X", "Scale", "Bias?", "Mean?", "Variance?", "SavedMean",
                                        "SavedVariance", "Y@GRAD", "ReserveSpace?",
                                        "MeanOut?", "VarianceOut?"),  # Paddle 3.x's grad maker
               slots("X@GRAD?", "Scale@GRAD?", "Bias@GRAD?"), BN_ATTRS, _bn_grad_infer,
               "composite", reference=_bn_grad_ref, lower=_bn_grad_lower, run=_bn_grad_run))
