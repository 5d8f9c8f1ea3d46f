"""Losses and log-probabilities Paddle saves as ops of their own: log_softmax, cross_entropy2 (what
1.x fluid.layers.cross_entropy saves for hard labels), sigmoid_cross_entropy_with_logits,
bce_loss, nll_loss and cos_sim, with their grads (softmax and the older cross entropies are in
nn.py)."""
from __future__ import annotations

import numpy as np
from fluidc.frontend.lazy_import import torch

from ..errors import OpError, ShapeError
from .define import pointwise, same_as
from .nn import (_axis, _class_labels, _hard_pick, _log_tolerable, _with_dim, fill_like, row_grad,
                 row_grad_parts, shifted_np, shifted_ops)
from .registry import OpDef, OpDesc, VarInfo, grad_name, register, slots


def _extern(type, inputs, outputs, attrs, infer, run, reference, grad=None, indices=None):
    register(OpDef(type, slots(*inputs), slots(*outputs), attrs, infer, "extern",
                   reference=reference, grad=grad, run=run, indices=indices))


def _c(o, v, like):
    return o.constant(v, like.dtype)


# ---------------------------------------------------------------------------------------------
# log_softmax: composite, lowered to max / sub / exp / sum / log / sub so it fuses into one row
# kernel like softmax. Grad: dX = dOut - exp(Out) * sum(dOut, axis).

_RED = {"keep_dim": True, "reduce_all": False}


def _log_softmax_lower(op: OpDesc, infos: dict[str, VarInfo], new_var) -> list[OpDesc]:
    x = infos[op.input("X")[0]]
    if not x.shape:
        return fill_like(op.input("X"), op.output("Out"), 0.0)
    axis = _axis(op.attrs.get("axis", -1), len(x.shape), "log_softmax")
    kept = VarInfo(_with_dim(x.shape, axis, 1), x.dtype)
    ops, shifted = shifted_ops(op.input("X")[0], x, axis, new_var)
    e, z, logz = new_var(x), new_var(kept), new_var(kept)
    red = {"dim": [axis], **_RED}
    return ops + [
        OpDesc("exp", {"X": [shifted]}, {"Out": [e]}, {}),
        OpDesc("reduce_sum", {"X": [e]}, {"Out": [z]}, dict(red)),
        OpDesc("log", {"X": [z]}, {"Out": [logz]}, {}),
        OpDesc("elementwise_sub", {"X": [shifted], "Y": [logz]}, {"Out": op.output("Out")}, {})]


def log_softmax_np(x: np.ndarray, axis: int) -> np.ndarray:
    """log(softmax(x)) along axis, from x - max clipped at -64 as Paddle's kernel."""
    if x.ndim == 0:
        return np.zeros_like(x)
    shifted = shifted_np(x, axis)
    return shifted - np.log(np.exp(shifted).sum(axis=axis, keepdims=True))


def _log_softmax_ref(ins, a):
    x = np.asarray(ins["X"][0])
    axis = _axis(a["axis"], max(x.ndim, 1), "log_softmax")
    return {"Out": [log_softmax_np(x, axis).astype(x.dtype)]}


def _log_softmax_grad_lower(op: OpDesc, infos: dict[str, VarInfo], new_var) -> list[OpDesc]:
    # dX = dOut - exp(Out) * sum(dOut, axis)
    parts = row_grad_parts(op, infos)
    if isinstance(parts, list):
        return parts
    out, dout, y, axis = parts
    s, p, prod = new_var(VarInfo(_with_dim(y.shape, axis, 1), y.dtype)), new_var(y), new_var(y)
    return [OpDesc("reduce_sum", {"X": dout}, {"Out": [s]}, {"dim": [axis], **_RED}),
            OpDesc("exp", {"X": out}, {"Out": [p]}, {}),
            OpDesc("elementwise_mul", {"X": [p], "Y": [s]}, {"Out": [prod]}, {}),
            OpDesc("elementwise_sub", {"X": dout, "Y": [prod]}, {"Out": op.output("X@GRAD")}, {})]


def _log_softmax_grad_ref(ins, a):
    y, dy = np.asarray(ins["Out"][0]), np.asarray(ins["Out@GRAD"][0])
    axis = _axis(a["axis"], max(y.ndim, 1), "log_softmax_grad")
    if y.ndim == 0:
        return {"X@GRAD": [np.zeros_like(y)]}
    return {"X@GRAD": [(dy - np.exp(y) * dy.sum(axis=axis, keepdims=True)).astype(y.dtype)]}


register(OpDef("log_softmax", slots("X"), slots("Out"), {"axis": -1}, same_as("X", "Out"),
               "composite", reference=_log_softmax_ref, grad=row_grad,
               lower=_log_softmax_lower))
register(OpDef("log_softmax_grad", slots("Out", "Out@GRAD"), slots("X@GRAD?"), {"axis": -1},
               same_as("Out", "X@GRAD"), "composite", reference=_log_softmax_grad_ref,
               lower=_log_softmax_grad_lower))


# ---------------------------------------------------------------------------------------------
# cross_entropy2: hard labels only. Y = -log(X[label]); MatchX keeps X[label] for the grad and
# XShape (X's shape + [0], as Paddle's) carries X's shape; ignored labels give 0 and grad 0.

def _ce2_infer(ins, a):
    x, label = ins["X"][0], ins["Label"][0]
    want = x.shape[:-1] + (1,)
    if len(label.shape) != len(x.shape) or any(
            p != q and -1 not in (p, q) for p, q in zip(label.shape, want)):
        raise ShapeError(f"op 'cross_entropy2': Label shape {list(label.shape)} does not match "
                         f"X shape {list(x.shape)} (expected {list(want)})")
    col = VarInfo(want, x.dtype, x.lod_level)
    return {"Y": [col], "MatchX": [VarInfo(want, x.dtype, x.lod_level)],
            "XShape": [VarInfo(tuple(x.shape) + (0,), x.dtype)]}


def _ce2_ref(ins, a):
    x, label = np.asarray(ins["X"][0]), np.asarray(ins["Label"][0])
    p, keep = _hard_pick(x, label, -1, a["ignore_index"])
    match = np.where(keep, p, 0).astype(x.dtype)
    return {"Y": [np.where(keep, -_log_tolerable(p), 0).astype(x.dtype)], "MatchX": [match],
            "XShape": [np.zeros(x.shape + (0,), x.dtype)]}


def _ce2_run(ins, outs, a, rng):
    x, label = ins["X"][0], ins["Label"][0].long()
    keep = label != a["ignore_index"]
    p = torch.gather(x, -1, torch.where(keep, label, 0))
    outs["MatchX"][0].copy_(torch.where(keep, p, 0))
    outs["Y"][0].copy_(torch.where(keep, -torch.log(p).clamp_(-1e20, 1e20), 0))


def _ce2_grad(op: OpDesc) -> list[OpDesc]:
    return [OpDesc("cross_entropy_grad2",
                   {"Label": op.input("Label"), "MatchX": op.output("MatchX"),
                    "XShape": op.output("XShape"), "Y@GRAD": [grad_name(op.output("Y")[0])]},
                   {"X@GRAD": [grad_name(op.input("X")[0])]}, dict(op.attrs))]


def _ce2_grad_infer(ins, a):
    xs = ins["XShape"][0]
    return {"X@GRAD": [VarInfo(tuple(xs.shape[:-1]), xs.dtype)]}


def _ce2_grad_ref(ins, a):
    label = np.asarray(ins["Label"][0]).astype(np.int64)
    match, dy = np.asarray(ins["MatchX"][0]), np.asarray(ins["Y@GRAD"][0])
    dx = np.zeros(np.asarray(ins["XShape"][0]).shape[:-1], match.dtype)
    keep = label != a["ignore_index"]
    with np.errstate(divide="ignore", invalid="ignore"):
        vals = np.where(keep, -dy / match, 0).astype(match.dtype)
    np.put_along_axis(dx, np.where(keep, label, 0), vals, axis=-1)
    return {"X@GRAD": [dx]}


def _ce2_grad_run(ins, outs, a, rng):
    label, match, dy = ins["Label"][0].long(), ins["MatchX"][0], ins["Y@GRAD"][0]
    keep = label != a["ignore_index"]
    outs["X@GRAD"][0].zero_().scatter_(-1, torch.where(keep, label, 0),
                                       torch.where(keep, -dy / match, 0))


_extern("cross_entropy2", ["X", "Label"], ["Y", "XShape?", "MatchX"], {"ignore_index": -100},
        _ce2_infer, _ce2_run, _ce2_ref, _ce2_grad, indices=_class_labels("X"))
_extern("cross_entropy_grad2", ["Label", "MatchX", "XShape", "Y@GRAD"], ["X@GRAD?"],
        {"ignore_index": -100}, _ce2_grad_infer, _ce2_grad_run, _ce2_grad_ref)


# ---------------------------------------------------------------------------------------------
# sigmoid_cross_entropy_with_logits, as Paddle 3.3.1's CPU kernel: max(x, 0) - x * label +
# log(1 + exp(-|x|)), or with pos_weight (taken as given: binary_cross_entropy_with_logits forms
# 1 + (pos_weight - 1) * label itself) (1 - label) * x + pos_weight * (log(1 + exp(-|x|)) +
# max(-x, 0)); an element whose label truncates to ignore_index gives 0. `normalize` divides
# every element by the count of labels farther than 1e-6 from ignore_index (0 / 0 where none
# is). A composite: the pointwise sigmoid_cross_entropy_terms (and its grad's), then that
# division.

SCE_ATTRS = {"normalize": False, "ignore_index": -100}
_TERMS_ATTRS = {"ignore_index": -100}


def _softplus_neg_abs(o, x):
    return o.log(o.add(_c(o, 1, x), o.exp(o.neg(o.abs(x)))))


def _ignored(o, label, a):
    """label truncated toward zero equals ignore_index (the kernel's int cast)."""
    whole = o.mul(o.sign(label), o.floor(o.abs(label)))
    return o.eq(whole, _c(o, a["ignore_index"], label))


def _sce(o, i, a):
    x, label = i["X"], i["Label"]
    zero = _c(o, 0, x)
    if "pos_weight" in i:
        loss = o.add(o.mul(o.sub(_c(o, 1, x), label), x),
                     o.mul(i["pos_weight"],
                           o.add(_softplus_neg_abs(o, x), o.maximum(o.neg(x), zero))))
    else:
        loss = o.add(o.sub(o.maximum(x, zero), o.mul(x, label)), _softplus_neg_abs(o, x))
    return {"Out": o.where(_ignored(o, label, a), zero, loss)}


def _sce_grad_expr(o, i, a):
    x, label, d = i["X"], i["Label"], i["Out@GRAD"]
    one, zero = _c(o, 1, x), _c(o, 0, x)
    sig = o.truediv(one, o.add(one, o.exp(o.neg(x))))
    if "pos_weight" in i:
        slope = o.sub(o.sub(one, label), o.mul(i["pos_weight"], o.sub(one, sig)))
    else:
        slope = o.sub(sig, label)
    return {"X@GRAD": o.where(_ignored(o, label, a), zero, o.mul(d, slope))}


def _sce_counted(o, i, a):
    """1 where the label counts towards normalize's divisor, else 0."""
    label = i["Label"]
    far = o.gt(o.abs(o.sub(label, _c(o, a["ignore_index"], label))), _c(o, 1e-6, label))
    return {"Out": o.where(far, _c(o, 1, label), _c(o, 0, label))}


def _normalized(op: OpDesc, infos, new_var, terms: str, ins: dict, out_slot: str):
    """`terms` over ins into the op's output, divided by normalize's count where asked."""
    a = {**SCE_ATTRS, **op.attrs}
    out = op.output(out_slot)
    attrs = {"ignore_index": a["ignore_index"]}
    if not a["normalize"]:
        return [OpDesc(terms, ins, {out_slot: out}, attrs)]
    label = infos[op.input("Label")[0]]
    raw, counted = new_var(infos[op.input("X")[0]]), new_var(label)
    count = new_var(VarInfo((), label.dtype))
    return [OpDesc(terms, ins, {out_slot: [raw]}, attrs),
            OpDesc("sigmoid_cross_entropy_counted", {"Label": op.input("Label")},
                   {"Out": [counted]}, attrs),
            OpDesc("reduce_sum", {"X": [counted]}, {"Out": [count]},
                   {"dim": [], "keep_dim": False, "reduce_all": True}),
            OpDesc("elementwise_div", {"X": [raw], "Y": [count]}, {"Out": out}, {"axis": -1})]


def _sce_inputs(op: OpDesc, *slots_: str) -> dict:
    return {s: op.input(s) for s in slots_ if op.input(s)}


def _sce_lower(op: OpDesc, infos, new_var) -> list[OpDesc]:
    return _normalized(op, infos, new_var, "sigmoid_cross_entropy_terms",
                       _sce_inputs(op, "X", "Label", "pos_weight"), "Out")


def _sce_grad_lower(op: OpDesc, infos, new_var) -> list[OpDesc]:
    return _normalized(op, infos, new_var, "sigmoid_cross_entropy_terms_grad",
                       _sce_inputs(op, "X", "Label", "pos_weight", "Out@GRAD"), "X@GRAD")


def _sce_grad(op: OpDesc) -> list[OpDesc]:
    ins = _sce_inputs(op, "X", "Label", "pos_weight")
    ins["Out@GRAD"] = [grad_name(op.output("Out")[0])]
    return [OpDesc("sigmoid_cross_entropy_with_logits_grad", ins,
                   {"X@GRAD": [grad_name(op.input("X")[0])]}, dict(op.attrs))]


pointwise("sigmoid_cross_entropy_terms", ["X", "Label", "pos_weight?"], ["Out"], _sce,
          _TERMS_ATTRS)
pointwise("sigmoid_cross_entropy_terms_grad", ["X", "Label", "pos_weight?", "Out@GRAD"],
          ["X@GRAD"], _sce_grad_expr, _TERMS_ATTRS)
pointwise("sigmoid_cross_entropy_counted", ["Label"], ["Out"], _sce_counted, _TERMS_ATTRS)
register(OpDef("sigmoid_cross_entropy_with_logits", slots("X", "Label", "pos_weight?"),
               slots("Out"), SCE_ATTRS, same_as("X", "Out"), "composite", grad=_sce_grad,
               lower=_sce_lower))
register(OpDef("sigmoid_cross_entropy_with_logits_grad",
               slots("X", "Label", "pos_weight?", "Out@GRAD"), slots("X@GRAD"), SCE_ATTRS,
               same_as("X", "X@GRAD"), "composite", lower=_sce_grad_lower))


# ---------------------------------------------------------------------------------------------
# bce_loss: -(label * log(x) + (1 - label) * log(1 - x)), each log clamped at -100 as Paddle's;
# grad dout * (x - label) / max(x * (1 - x), 1e-12).

def _bce(o, i, a):
    x, label = i["X"], i["Label"]
    one, floor = _c(o, 1, x), _c(o, -100, x)
    pos = o.maximum(o.log(x), floor)
    neg = o.maximum(o.log(o.sub(one, x)), floor)
    return {"Out": o.neg(o.add(o.mul(label, pos), o.mul(o.sub(one, label), neg)))}


def _bce_grad_expr(o, i, a):
    x, label, d = i["X"], i["Label"], i["Out@GRAD"]
    denom = o.maximum(o.mul(x, o.sub(_c(o, 1, x), x)), _c(o, 1e-12, x))
    return {"X@GRAD": o.truediv(o.mul(d, o.sub(x, label)), denom)}


pointwise("bce_loss", ["X", "Label"], ["Out"], _bce,
          grad=lambda op: [OpDesc("bce_loss_grad",
                                  {"X": op.input("X"), "Label": op.input("Label"),
                                   "Out@GRAD": [grad_name(op.output("Out")[0])]},
                                  {"X@GRAD": [grad_name(op.input("X")[0])]}, {})])
pointwise("bce_loss_grad", ["X", "Label", "Out@GRAD"], ["X@GRAD"], _bce_grad_expr)


# ---------------------------------------------------------------------------------------------
# nll_loss: X holds log-probabilities [N, C], Label [N] (fluidc's op is 2-D; the layer moves
# extra dims of [N, C, d...] into rows).
# loss_i = -w[l_i] * X[i, l_i]; Total_weight = sum of w[l_i] over kept labels; reduction
# 'mean' divides the sum by it, 'sum' sums, 'none' keeps Label's shape.

NLL_ATTRS = {"ignore_index": -100, "reduction": "mean"}


def _nll_reduction(a) -> str:
    r = a["reduction"]
    if r not in ("mean", "sum", "none"):
        raise OpError(f"op 'nll_loss': reduction {r!r} is not 'mean', 'sum' or 'none'")
    return r


def _nll_infer(ins, a):
    x, label = ins["X"][0], ins["Label"][0]
    want = (x.shape[0],)
    if len(x.shape) != 2 or len(label.shape) != 1 or any(
            p != q and -1 not in (p, q) for p, q in zip(label.shape, want)):
        raise ShapeError(f"op 'nll_loss': Label shape {list(label.shape)} does not match X "
                         f"shape {list(x.shape)} (expected {list(want)})")
    out = tuple(label.shape) if _nll_reduction(a) == "none" else ()
    return {"Out": [VarInfo(out, x.dtype)], "Total_weight": [VarInfo((), x.dtype)]}


def _nll_pick(x, label, weight, ignore, xp):
    """(per-element weights, the picked log-probabilities), ignored labels weighted 0."""
    keep = label != ignore
    idx = xp.where(keep, label, 0)
    w = weight[idx] if weight is not None else xp.ones_like(idx, dtype=x.dtype)
    w = xp.where(keep, w, 0)
    if xp is np:
        picked = np.take_along_axis(x, idx[:, None], axis=1)[:, 0]
    else:
        picked = torch.gather(x, 1, idx.unsqueeze(1)).squeeze(1)
    return w, picked


def _nll_ref(ins, a):
    x, label = np.asarray(ins["X"][0]), np.asarray(ins["Label"][0]).astype(np.int64)
    weight = np.asarray(ins["Weight"][0]) if ins.get("Weight") else None
    w, picked = _nll_pick(x, label, weight, a["ignore_index"], np)
    loss, total = -w * picked, w.sum()
    r = _nll_reduction(a)
    out = loss if r == "none" else loss.sum() if r == "sum" else loss.sum() / total
    return {"Out": [np.asarray(out, x.dtype)], "Total_weight": [np.asarray(total, x.dtype)]}


def _nll_run(ins, outs, a, rng):
    x, label = ins["X"][0], ins["Label"][0].long()
    weight = ins["Weight"][0] if ins.get("Weight") else None
    w, picked = _nll_pick(x, label, weight, a["ignore_index"], torch)
    loss, total = -w * picked, w.sum()
    r = _nll_reduction(a)
    outs["Out"][0].copy_(loss if r == "none" else loss.sum() if r == "sum" else loss.sum() / total)
    outs["Total_weight"][0].copy_(total)


def _nll_grad(op: OpDesc) -> list[OpDesc]:
    ins = {s: op.input(s) for s in ("X", "Label", "Weight") if op.input(s)}
    ins.update({"Total_weight": op.output("Total_weight"),
                "Out@GRAD": [grad_name(op.output("Out")[0])]})
    return [OpDesc("nll_loss_grad", ins, {"X@GRAD": [grad_name(op.input("X")[0])]},
                   dict(op.attrs))]


def _nll_grad_ref(ins, a):
    x, label = np.asarray(ins["X"][0]), np.asarray(ins["Label"][0]).astype(np.int64)
    weight = np.asarray(ins["Weight"][0]) if ins.get("Weight") else None
    d, total = np.asarray(ins["Out@GRAD"][0]), np.asarray(ins["Total_weight"][0])
    w, _ = _nll_pick(x, label, weight, a["ignore_index"], np)
    scale = d if _nll_reduction(a) != "mean" else d / total
    dx = np.zeros_like(x)
    np.put_along_axis(dx, np.where(label != a["ignore_index"], label, 0)[:, None],
                      (-w * scale)[:, None].astype(x.dtype), axis=1)
    return {"X@GRAD": [dx]}


def _nll_grad_run(ins, outs, a, rng):
    x, label = ins["X"][0], ins["Label"][0].long()
    weight = ins["Weight"][0] if ins.get("Weight") else None
    d, total = ins["Out@GRAD"][0], ins["Total_weight"][0]
    w, _ = _nll_pick(x, label, weight, a["ignore_index"], torch)
    scale = d if _nll_reduction(a) != "mean" else d / total
    idx = torch.where(label != a["ignore_index"], label, 0).unsqueeze(1)
    outs["X@GRAD"][0].zero_().scatter_(1, idx, (-w * scale).unsqueeze(1).to(x.dtype))


_extern("nll_loss", ["X", "Label", "Weight?"], ["Out", "Total_weight"], NLL_ATTRS, _nll_infer,
        _nll_run, _nll_ref, _nll_grad)
_extern("nll_loss_grad", ["X", "Label", "Weight?", "Total_weight", "Out@GRAD"], ["X@GRAD?"],
        NLL_ATTRS, same_as("X", "X@GRAD"), _nll_grad_run, _nll_grad_ref)


# ---------------------------------------------------------------------------------------------
# cos_sim (1.x fluid.layers.cos_sim): rows of X [N, D...] against rows of Y ([N, D...] or one
# row [1, D...] broadcast). Out = <x, y> / (|x| |y|) as [N, 1]; XNorm [N, 1], YNorm [N|1, 1].

def _cos_infer(ins, a):
    x, y = ins["X"][0], ins["Y"][0]
    if len(x.shape) < 2 or tuple(x.shape[1:]) != tuple(y.shape[1:]) or \
            y.shape[0] not in (1, x.shape[0], -1):
        raise ShapeError(f"op 'cos_sim': Y {list(y.shape)} must have X's {list(x.shape)} row "
                         f"shape and X's row count or 1 row")
    col = VarInfo((x.shape[0], 1), x.dtype, x.lod_level)
    return {"Out": [col], "XNorm": [VarInfo((x.shape[0], 1), x.dtype)],
            "YNorm": [VarInfo((y.shape[0], 1), x.dtype)]}


def _cos_forward(x, y, sqrt):
    x2, y2 = x.reshape(x.shape[0], -1), y.reshape(y.shape[0], -1)
    xn = sqrt((x2 * x2).sum(1, keepdims=True))
    yn = sqrt((y2 * y2).sum(1, keepdims=True))
    return (x2 * y2).sum(1, keepdims=True) / (xn * yn), xn, yn


def _cos_ref(ins, a):
    x, y = np.asarray(ins["X"][0]), np.asarray(ins["Y"][0])
    out, xn, yn = _cos_forward(x, y, np.sqrt)
    return {"Out": [out.astype(x.dtype)], "XNorm": [xn.astype(x.dtype)],
            "YNorm": [yn.astype(x.dtype)]}


def _cos_run(ins, outs, a, rng):
    x, y = ins["X"][0], ins["Y"][0]
    x2, y2 = x.reshape(x.shape[0], -1), y.reshape(y.shape[0], -1)
    xn = torch.sqrt((x2 * x2).sum(1, keepdim=True))
    yn = torch.sqrt((y2 * y2).sum(1, keepdim=True))
    outs["XNorm"][0].copy_(xn)
    outs["YNorm"][0].copy_(yn)
    outs["Out"][0].copy_((x2 * y2).sum(1, keepdim=True) / (xn * yn))


def _cos_grad(op: OpDesc) -> list[OpDesc]:
    ins = {s: op.input(s) for s in ("X", "Y")}
    ins.update({s: op.output(s) for s in ("Out", "XNorm", "YNorm")})
    ins["Out@GRAD"] = [grad_name(op.output("Out")[0])]
    return [OpDesc("cos_sim_grad", ins, {"X@GRAD": [grad_name(op.input("X")[0])],
                                         "Y@GRAD": [grad_name(op.input("Y")[0])]}, {})]


def _cos_grads(x, y, out, xn, yn, d, sum_rows):
    """(dX, dY) of Out = <x, y> / (|x| |y|) for row matrices; dY summed when Y is one row."""
    dx = d * (y / (xn * yn) - out * x / (xn * xn))
    dy = d * (x / (xn * yn) - out * y / (yn * yn))
    return dx, (sum_rows(dy) if y.shape[0] == 1 and x.shape[0] != 1 else dy)


def _cos_grad_ref(ins, a):
    x, y = np.asarray(ins["X"][0]), np.asarray(ins["Y"][0])
    vals = [np.asarray(ins[s][0]) for s in ("Out", "XNorm", "YNorm", "Out@GRAD")]
    dx, dy = _cos_grads(x.reshape(x.shape[0], -1), y.reshape(y.shape[0], -1), *vals,
                        lambda v: v.sum(0, keepdims=True))
    return {"X@GRAD": [dx.reshape(x.shape).astype(x.dtype)],
            "Y@GRAD": [dy.reshape(y.shape).astype(y.dtype)]}


def _cos_grad_run(ins, outs, a, rng):
    x, y = ins["X"][0], ins["Y"][0]
    vals = [ins[s][0] for s in ("Out", "XNorm", "YNorm", "Out@GRAD")]
    dx, dy = _cos_grads(x.reshape(x.shape[0], -1), y.reshape(y.shape[0], -1), *vals,
                        lambda v: v.sum(0, keepdim=True))
    if outs.get("X@GRAD"):
        outs["X@GRAD"][0].copy_(dx.reshape(x.shape))
    if outs.get("Y@GRAD"):
        outs["Y@GRAD"][0].copy_(dy.reshape(y.shape))


def _cos_grad_infer(ins, a):
    return {"X@GRAD": [ins["X"][0]], "Y@GRAD": [ins["Y"][0]]}


_extern("cos_sim", ["X", "Y"], ["Out", "XNorm", "YNorm"], {}, _cos_infer, _cos_run, _cos_ref,
        _cos_grad)
_extern("cos_sim_grad", ["X", "Y", "Out", "XNorm", "YNorm", "Out@GRAD"], ["X@GRAD?", "Y@GRAD?"],
        {}, _cos_grad_infer, _cos_grad_run, _cos_grad_ref)
