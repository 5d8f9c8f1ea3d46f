"""Neural-network ops: softmax, the cross entropies, accuracy, top_k, dropout and the embedding
lookups, with their grads (batch_norm is in norm.py)."""
from __future__ import annotations

import numpy as np
from fluidc.frontend.lazy_import import torch

from ..dtypes import VarType
from ..errors import OpError, ShapeError
from .define import pointwise, present, same_as
from .registry import IndexBound, OpDef, OpDesc, VarInfo, grad_name, register, slots


def _extern(type, inputs, outputs, attrs, infer, run, reference, grad=None, stateful=False,
            indices=None, lod_from=None):
    register(OpDef(type, slots(*inputs), slots(*outputs), attrs, infer, "extern",
                   reference=reference, grad=grad, run=run, stateful=stateful, indices=indices,
                   lod_from=lod_from))


def _class_labels(values_slot: str):
    """indices(): hard labels must name a class of `values_slot` along the op's axis, or be
    ignore_index."""
    def indices(shapes, a):
        if a.get("soft_label"):
            return {}
        shape = shapes[values_slot][0]
        return {"Label": IndexBound(0, shape[a.get("axis", -1) % len(shape)], a["ignore_index"])}
    return indices


def _axis(axis: int, rank: int, op: str) -> int:
    """A possibly negative axis normalized to 0..rank-1, or a ShapeError naming the op."""
    if not -rank <= axis < max(rank, 1):
        raise ShapeError(f"op '{op}': axis {axis} is out of range for rank {rank}")
    return axis % max(rank, 1)


def _with_dim(shape, axis: int, size: int) -> tuple[int, ...]:
    return tuple(size if i == axis else d for i, d in enumerate(shape))


def _log_tolerable(x: np.ndarray) -> np.ndarray:
    # Paddle clamps log(0) = -inf to -1e20 so a zero probability gives a huge, finite loss.
    with np.errstate(divide="ignore"):
        return np.clip(np.log(x), -1e20, 1e20)


# ---------------------------------------------------------------------------------------------
# softmax: composite, lowered to primitives so the compiler fuses the max/exp/sum/div chain.

_EW = {"axis": -1}  # the keep_dim reductions broadcast back numpy-style

# Paddle's CPU softmax kernels (softmax, log_softmax, softmax_with_cross_entropy) clip x - max
# at -64 before exp (its ValueClip): no probability falls below exp(-64) / sum, so a label more
# than 64 below its row's max costs a loss of 64 (plus log sum), not an overflow or the 1e20 cap.
SOFTMAX_FLOOR = -64.0


def shifted_np(x: np.ndarray, axis: int) -> np.ndarray:
    """x - max(x, axis), clipped below at SOFTMAX_FLOOR as Paddle's kernels do (NaN stays NaN)."""
    with np.errstate(invalid="ignore"):  # inf - inf: a row holding +inf is NaN
        s = x - x.max(axis=axis, keepdims=True)
        return np.where(s < SOFTMAX_FLOOR, x.dtype.type(SOFTMAX_FLOOR), s)


def shifted_torch(x: torch.Tensor, axis: int) -> torch.Tensor:
    """shifted_np on a tensor."""
    return (x - x.amax(axis, keepdim=True)).clamp_(min=SOFTMAX_FLOOR)


def shifted_ops(x: str, info: VarInfo, axis: int, new_var) -> tuple[list[OpDesc], str]:
    """The ops computing shifted_np of var x (reduce_max, elementwise_sub, clip) and its var."""
    red = {"dim": [axis], "keep_dim": True, "reduce_all": False}
    m, d, clipped = new_var(VarInfo(_with_dim(info.shape, axis, 1), info.dtype)), new_var(info), \
        new_var(info)
    return [OpDesc("reduce_max", {"X": [x]}, {"Out": [m]}, red),
            OpDesc("elementwise_sub", {"X": [x], "Y": [m]}, {"Out": [d]}, dict(_EW)),
            OpDesc("clip", {"X": [d]}, {"Out": [clipped]}, {"min": SOFTMAX_FLOOR})], clipped


def fill_like(like: list[str], out: list[str], value: float) -> list[OpDesc]:
    """Out = value in the shape and dtype of `like`: what Paddle's softmax-family kernels give
    for a 0-D input (softmax 1, log_softmax 0, their grads 0), NaN or not."""
    return [OpDesc("fill_any_like", {"X": like}, {"Out": out}, {"value": value, "dtype": -1})]


def _softmax_lower(op: OpDesc, infos: dict[str, VarInfo], new_var) -> list[OpDesc]:
    x = infos[op.input("X")[0]]
    if not x.shape:
        return fill_like(op.input("X"), op.output("Out"), 1.0)
    axis = _axis(op.attrs.get("axis", -1), len(x.shape), "softmax")
    kept = VarInfo(_with_dim(x.shape, axis, 1), x.dtype)
    red = {"dim": [axis], "keep_dim": True, "reduce_all": False}
    ops, shifted = shifted_ops(op.input("X")[0], x, axis, new_var)
    e, z = new_var(x), new_var(kept)
    return ops + [
        OpDesc("exp", {"X": [shifted]}, {"Out": [e]}, {}),
        OpDesc("reduce_sum", {"X": [e]}, {"Out": [z]}, dict(red)),
        OpDesc("elementwise_div", {"X": [e], "Y": [z]}, {"Out": op.output("Out")}, dict(_EW))]


def _softmax_np(x: np.ndarray, axis: int) -> np.ndarray:
    if x.ndim == 0:
        return np.ones_like(x)
    e = np.exp(shifted_np(x, axis))
    return e / e.sum(axis=axis, keepdims=True)


def _softmax_ref(ins, a):
    x = np.asarray(ins["X"][0])
    return {"Out": [_softmax_np(x, _axis(a["axis"], max(x.ndim, 1), "softmax")).astype(x.dtype)]}


def row_grad(op: OpDesc) -> list[OpDesc]:
    """<op>_grad of a row op whose grad needs only its output (softmax, log_softmax)."""
    return [OpDesc(op.type + "_grad", {"Out": op.output("Out"),
                                       "Out@GRAD": [grad_name(op.output("Out")[0])]},
                   {"X@GRAD": [grad_name(op.input("X")[0])]}, dict(op.attrs))]


def row_grad_parts(op: OpDesc, infos: dict[str, VarInfo]):
    """(Out, Out@GRAD, Out's info, axis) of a row op's grad to lower, or the ops it lowers to
    outright: none when nobody wants X@GRAD, zeros for a 0-d Out (a row of one value)."""
    if not present(op.output("X@GRAD")):
        return []
    out, dout = op.input("Out"), op.input("Out@GRAD")
    y = infos[out[0]]
    if not y.shape:
        return fill_like(out, op.output("X@GRAD"), 0.0)
    return out, dout, y, _axis(op.attrs.get("axis", -1), len(y.shape), op.type)


def _softmax_grad_lower(op: OpDesc, infos: dict[str, VarInfo], new_var) -> list[OpDesc]:
    # dX = Out * (dOut - sum(dOut * Out, axis))
    parts = row_grad_parts(op, infos)
    if isinstance(parts, list):
        return parts
    out, dout, y, axis = parts
    prod, s, diff = new_var(y), new_var(VarInfo(_with_dim(y.shape, axis, 1), y.dtype)), new_var(y)
    return [OpDesc("elementwise_mul", {"X": dout, "Y": out}, {"Out": [prod]}, dict(_EW)),
            OpDesc("reduce_sum", {"X": [prod]}, {"Out": [s]},
                   {"dim": [axis], "keep_dim": True, "reduce_all": False}),
            OpDesc("elementwise_sub", {"X": dout, "Y": [s]}, {"Out": [diff]}, dict(_EW)),
            OpDesc("elementwise_mul", {"X": out, "Y": [diff]}, {"Out": op.output("X@GRAD")},
                   dict(_EW))]


def _softmax_grad_ref(ins, a):
    y, dy = np.asarray(ins["Out"][0]), np.asarray(ins["Out@GRAD"][0])
    axis = _axis(a["axis"], max(y.ndim, 1), "softmax_grad")
    if y.ndim == 0:
        return {"X@GRAD": [np.zeros_like(y)]}
    return {"X@GRAD": [(y * (dy - (dy * y).sum(axis=axis, keepdims=True))).astype(y.dtype)]}


SOFTMAX_ATTRS = {"axis": -1}
def _softmax_infer(ins, a):
    x = ins["X"][0]
    _axis(a["axis"], max(len(x.shape), 1), "softmax")
    return {"Out": [VarInfo(x.shape, x.dtype, x.lod_level)]}


register(OpDef("softmax", slots("X"), slots("Out"), SOFTMAX_ATTRS, _softmax_infer,
               "composite", reference=_softmax_ref, grad=row_grad, lower=_softmax_lower))
register(OpDef("softmax_grad", slots("Out", "Out@GRAD"), slots("X@GRAD?"), SOFTMAX_ATTRS,
               same_as("Out", "X@GRAD"), "composite", reference=_softmax_grad_ref,
               lower=_softmax_grad_lower))


# ---------------------------------------------------------------------------------------------
# cross_entropy: X holds probabilities over the last axis; Y = -log(X[label]) (hard) or
# -sum(label * log(X)) (soft).

def _check_label(op: str, x: VarInfo, label: VarInfo, soft: bool, axis: int = -1) -> None:
    axis = axis % len(x.shape)
    want = x.shape if soft else _with_dim(x.shape, axis, 1)
    ok = len(label.shape) == len(x.shape) and all(
        a == b or -1 in (a, b) for a, b in zip(label.shape, want))
    if not ok:
        kind = "soft" if soft else "hard"
        raise ShapeError(f"op '{op}': {kind} Label shape {list(label.shape)} does not match "
                         f"X shape {list(x.shape)} (expected {list(want)})")


def _ce_infer(ins, a):
    x, label = ins["X"][0], ins["Label"][0]
    _check_label("cross_entropy", x, label, a["soft_label"])
    return {"Y": [VarInfo(x.shape[:-1] + (1,), x.dtype, x.lod_level)]}


def _hard_pick(x: np.ndarray, label: np.ndarray, axis: int, ignore: int):
    """x's entries at the label positions along `axis`, and the mask of non-ignored labels."""
    label = label.astype(np.int64)
    keep = label != ignore
    return np.take_along_axis(x, np.where(keep, label, 0), axis=axis), keep


def _ce_ref(ins, a):
    x, label = np.asarray(ins["X"][0]), np.asarray(ins["Label"][0])
    if a["soft_label"]:
        y = -(label * _log_tolerable(x)).sum(axis=-1, keepdims=True)
    else:
        p, keep = _hard_pick(x, label, -1, a["ignore_index"])
        y = np.where(keep, -_log_tolerable(p), 0)
    return {"Y": [y.astype(x.dtype)]}


def _ce_run(ins, outs, a, rng):
    x, label = ins["X"][0], ins["Label"][0]
    logx = torch.log(x).clamp_(-1e20, 1e20)
    if a["soft_label"]:
        torch.sum(-label * logx, dim=-1, keepdim=True, out=outs["Y"][0])
        return
    label = label.long()
    keep = label != a["ignore_index"]
    picked = torch.gather(logx, -1, torch.where(keep, label, 0))
    outs["Y"][0].copy_(torch.where(keep, -picked, 0))


def _ce_grad(op: OpDesc) -> list[OpDesc]:
    return [OpDesc("cross_entropy_grad",
                   {"X": op.input("X"), "Label": op.input("Label"),
                    "Y@GRAD": [grad_name(op.output("Y")[0])]},
                   {"X@GRAD": [grad_name(op.input("X")[0])]}, dict(op.attrs))]


def _ce_grad_ref(ins, a):
    x, label = np.asarray(ins["X"][0]), np.asarray(ins["Label"][0])
    dy = np.asarray(ins["Y@GRAD"][0])
    if a["soft_label"]:
        return {"X@GRAD": [(-dy * label / x).astype(x.dtype)]}
    p, keep = _hard_pick(x, label, -1, a["ignore_index"])
    dx = np.zeros_like(x)
    np.put_along_axis(dx, np.where(keep, label, 0).astype(np.int64),
                      np.where(keep, -dy / p, 0), axis=-1)
    return {"X@GRAD": [dx]}


def _ce_grad_run(ins, outs, a, rng):
    x, label, dy = ins["X"][0], ins["Label"][0], ins["Y@GRAD"][0]
    dx = outs["X@GRAD"][0]
    if a["soft_label"]:
        torch.div(-dy * label, x, out=dx)
        return
    label = label.long()
    keep = label != a["ignore_index"]
    idx = torch.where(keep, label, 0)
    dx.zero_().scatter_(-1, idx, torch.where(keep, -dy / torch.gather(x, -1, idx), 0))


CE_ATTRS = {"soft_label": False, "ignore_index": -100}
_extern("cross_entropy", ["X", "Label"], ["Y"], CE_ATTRS, _ce_infer, _ce_run, _ce_ref, _ce_grad,
        indices=_class_labels("X"))
_extern("cross_entropy_grad", ["X", "Label", "Y@GRAD"], ["X@GRAD?"], CE_ATTRS,
        same_as("X", "X@GRAD"), _ce_grad_run, _ce_grad_ref, indices=_class_labels("X"))


# ---------------------------------------------------------------------------------------------
# softmax_with_cross_entropy: Softmax = softmax(Logits, axis); Loss over `axis` kept as size 1.

def _swce_infer(ins, a):
    x, label = ins["Logits"][0], ins["Label"][0]
    axis = _axis(a["axis"], len(x.shape), "softmax_with_cross_entropy")
    _check_label("softmax_with_cross_entropy", x, label, a["soft_label"], axis)
    return {"Softmax": [VarInfo(x.shape, x.dtype, x.lod_level)],
            "Loss": [VarInfo(_with_dim(x.shape, axis, 1), x.dtype, x.lod_level)]}


def _swce_ref(ins, a):
    x, label = np.asarray(ins["Logits"][0]), np.asarray(ins["Label"][0])
    axis = _axis(a["axis"], x.ndim, "softmax_with_cross_entropy")
    if a["use_softmax"]:
        shifted = shifted_np(x, axis)
        logp = shifted - np.log(np.exp(shifted).sum(axis=axis, keepdims=True))
        sm = np.exp(logp)
    else:  # Logits already hold probabilities
        sm, logp = x, _log_tolerable(x)
    if a["soft_label"]:
        loss = -(label * logp).sum(axis=axis, keepdims=True)
    else:
        p, keep = _hard_pick(logp, label, axis, a["ignore_index"])
        loss = np.where(keep, -p, 0)
    return {"Softmax": [sm.astype(x.dtype)], "Loss": [loss.astype(x.dtype)]}


def _swce_run(ins, outs, a, rng):
    x, label = ins["Logits"][0], ins["Label"][0]
    axis = _axis(a["axis"], x.dim(), "softmax_with_cross_entropy")
    if a["use_softmax"]:
        logp = torch.log_softmax(shifted_torch(x, axis), axis)
        torch.exp(logp, out=outs["Softmax"][0])
    else:
        logp = torch.log(x).clamp_(-1e20, 1e20)
        outs["Softmax"][0].copy_(x)
    if a["soft_label"]:
        torch.sum(-label * logp, dim=axis, keepdim=True, out=outs["Loss"][0])
        return
    label = label.long()
    keep = label != a["ignore_index"]
    picked = torch.gather(logp, axis, torch.where(keep, label, 0))
    outs["Loss"][0].copy_(torch.where(keep, -picked, 0))


def _swce_grad(op: OpDesc) -> list[OpDesc]:
    return [OpDesc("softmax_with_cross_entropy_grad",
                   {"Label": op.input("Label"), "Softmax": op.output("Softmax"),
                    "Loss@GRAD": [grad_name(op.output("Loss")[0])]},
                   {"Logits@GRAD": [grad_name(op.input("Logits")[0])]}, dict(op.attrs))]


def _swce_grad_ref(ins, a):
    # Paddle's formula: (softmax - label) * dloss; soft labels are assumed to sum to 1.
    sm, label = np.asarray(ins["Softmax"][0]), np.asarray(ins["Label"][0])
    dloss = np.asarray(ins["Loss@GRAD"][0])
    axis = _axis(a["axis"], sm.ndim, "softmax_with_cross_entropy_grad")
    if a["soft_label"]:
        d = (sm - label) * dloss if a["use_softmax"] else -label * dloss / sm
        return {"Logits@GRAD": [d.astype(sm.dtype)]}
    p, keep = _hard_pick(sm, label, axis, a["ignore_index"])
    idx = np.where(keep, label, 0).astype(np.int64)
    if a["use_softmax"]:
        onehot = np.zeros_like(sm)
        np.put_along_axis(onehot, idx, 1, axis=axis)
        d = (sm - onehot) * np.where(keep, dloss, 0)
    else:
        d = np.zeros_like(sm)
        np.put_along_axis(d, idx, np.where(keep, -dloss / p, 0), axis=axis)
    return {"Logits@GRAD": [d.astype(sm.dtype)]}


def _swce_grad_run(ins, outs, a, rng):
    sm, label, dloss = ins["Softmax"][0], ins["Label"][0], ins["Loss@GRAD"][0]
    d = outs["Logits@GRAD"][0]
    axis = _axis(a["axis"], sm.dim(), "softmax_with_cross_entropy_grad")
    if a["soft_label"]:
        d.copy_((sm - label) * dloss if a["use_softmax"] else -label * dloss / sm)
        return
    label = label.long()
    keep = label != a["ignore_index"]
    idx = torch.where(keep, label, 0)
    dloss = torch.where(keep, dloss, 0)
    if a["use_softmax"]:
        torch.mul(sm, dloss, out=d)
        d.scatter_add_(axis, idx, -dloss)
    else:
        d.zero_().scatter_(axis, idx, -dloss / torch.gather(sm, axis, idx))


SWCE_ATTRS = {"soft_label": False, "ignore_index": -100, "axis": -1, "use_softmax": True}
_extern("softmax_with_cross_entropy", ["Logits", "Label"], ["Softmax", "Loss"], SWCE_ATTRS,
        _swce_infer, _swce_run, _swce_ref, _swce_grad, indices=_class_labels("Logits"))
_extern("softmax_with_cross_entropy_grad", ["Label", "Softmax", "Loss@GRAD"], ["Logits@GRAD?"],
        SWCE_ATTRS, same_as("Softmax", "Logits@GRAD"), _swce_grad_run, _swce_grad_ref,
        indices=_class_labels("Softmax"))


# ---------------------------------------------------------------------------------------------
# top_k and accuracy (no grads: Paddle trains through neither).

def _topk_infer(ins, a):
    x = ins["X"][0]
    k = a["k"]
    if k < 1:
        raise ShapeError(f"op 'top_k': k={k} must be >= 1")
    if x.shape[-1] != -1 and k > x.shape[-1]:
        raise ShapeError(f"op 'top_k': k={k} exceeds the last dim of X {list(x.shape)}")
    shape = tuple(x.shape[:-1]) + (k,)  # an eager tensor's shape is a list
    return {"Out": [VarInfo(shape, x.dtype, x.lod_level)],
            "Indices": [VarInfo(shape, VarType.INT64, x.lod_level)]}


def _topk_ref(ins, a):
    x = np.asarray(ins["X"][0])
    # A stable sort of the negation: descending values, ties by lower index.
    idx = np.argsort(-x, axis=-1, kind="stable")[..., :a["k"]]
    return {"Out": [np.take_along_axis(x, idx, axis=-1)], "Indices": [idx.astype(np.int64)]}


def _topk_run(ins, outs, a, rng):
    torch.topk(ins["X"][0], a["k"], dim=-1, largest=True, sorted=True,
               out=(outs["Out"][0], outs["Indices"][0]))


_extern("top_k", ["X", "K?"], ["Out", "Indices"], {"k": 1}, _topk_infer, _topk_run, _topk_ref)


def _acc_infer(ins, a):
    """0-d results, as Paddle 3.x gives them; Accuracy is float32 whatever Out's dtype, as
    Paddle's kernel writes it."""
    out, label = ins["Out"][0], ins["Label"][0]
    if len(out.shape) != 2:
        raise OpError(f"Rank(Input) of AccuracyOp must be 2, with shape [sample_number, "
                      f"class_dim], But received rank(Input) is {len(out.shape)}")
    if len(label.shape) != 2:
        raise OpError(f"ShapeError: label's dimensions of AccuracyOp must be 2. But received "
                      f"label's dimensions = {len(label.shape)}, label's shape = "
                      f"{list(label.shape)}")
    return {"Accuracy": [VarInfo((), VarType.FP32)], "Correct": [VarInfo((), VarType.INT32)],
            "Total": [VarInfo((), VarType.INT32)]}


def _acc_ref(ins, a):
    idx, label = np.asarray(ins["Indices"][0]), np.asarray(ins["Label"][0])
    n = idx.shape[0]
    correct = int((idx == label.reshape(n, 1)).any(axis=1).sum())
    return {"Accuracy": [np.array(correct / n if n else 0.0, np.float32)],
            "Correct": [np.array(correct, np.int32)], "Total": [np.array(n, np.int32)]}


def _acc_run(ins, outs, a, rng):
    idx, label = ins["Indices"][0], ins["Label"][0]
    n = idx.shape[0]
    correct = (idx == label.reshape(n, 1).to(idx.dtype)).any(dim=1).sum()
    outs["Correct"][0].fill_(correct)
    outs["Total"][0].fill_(n)
    outs["Accuracy"][0].copy_(correct.float() / max(n, 1))


# Paddle rejects negative labels; a label past the last class is just never predicted.
_extern("accuracy", ["Out", "Indices", "Label"], ["Accuracy", "Correct", "Total"], {},
        _acc_infer, _acc_run, _acc_ref, indices=lambda shapes, a: {"Label": IndexBound(0)})


# ---------------------------------------------------------------------------------------------
# dropout: Mask (uint8) keeps an element with probability 1 - dropout_prob.

DROPOUT_ATTRS = {"dropout_prob": 0.5, "is_test": False, "fix_seed": False, "seed": 0,
                 "dropout_implementation": "downgrade_in_infer"}


def dropout_scales(a) -> tuple[float, float]:
    """(train-time scale of kept elements, test-time scale of every element), computed in
    float32 as Paddle's kernels compute them from the float32 attribute."""
    p = np.float32(a["dropout_prob"])
    keep = np.float32(1.0) - p
    if a["dropout_implementation"] == "upscale_in_train":
        return (0.0 if p >= 1.0 else float(np.float32(1.0) / keep)), 1.0
    if a["dropout_implementation"] != "downgrade_in_infer":
        raise OpError(f"op 'dropout': unknown dropout_implementation "
                      f"{a['dropout_implementation']!r}")
    return 1.0, float(keep)


def _dropout_infer(ins, a):
    x = ins["X"][0]
    if not 0.0 <= a["dropout_prob"] <= 1.0:
        raise OpError(f"op 'dropout': dropout_prob {a['dropout_prob']} must be in [0, 1]")
    return {"Out": [VarInfo(x.shape, x.dtype, x.lod_level)],
            "Mask": [VarInfo(x.shape, VarType.UINT8, x.lod_level)]}


def _dropout_ref(ins, a):
    x = np.asarray(ins["X"][0])
    train_scale, test_scale = dropout_scales(a)
    if a["is_test"]:
        return {"Out": [(x * test_scale).astype(x.dtype)], "Mask": [np.ones(x.shape, np.uint8)]}
    mask = _dropout_mask_np(x.shape, a)
    return {"Out": [(x * mask * train_scale).astype(x.dtype)], "Mask": [mask]}


def _dropout_mask_np(shape, a) -> np.ndarray:
    """The reference's uint8 mask (numpy's stream: the reference never matches the library's
    draws, only their distribution)."""
    rng = np.random.default_rng(a["seed"] if a["fix_seed"] else None)
    return (rng.random(tuple(shape)) >= a["dropout_prob"]).astype(np.uint8)


def _draw_keep(mask: torch.Tensor, a, rng) -> None:
    """Fill the uint8 `mask` of one training run: 1 where the element's uniform draw from the
    op's stream (or a stream of its `seed` when fix_seed) is at least dropout_prob. A runtime
    stream draws masks itself where it can (runtime/random.py), else torch.rand draws."""
    seed = int(a["seed"]) if a["fix_seed"] else None
    keep_mask = getattr(rng, "keep_mask", None)
    if keep_mask is not None and keep_mask(mask, a["dropout_prob"], seed):
        return
    if seed is not None:
        rng = torch.Generator(device=mask.device).manual_seed(seed)
    # Drawn on the generator's device (the runtime's may differ from the mask's), then moved.
    u = torch.rand(tuple(mask.shape), generator=rng,
                   device=rng.device if rng is not None else mask.device)
    mask.copy_(u.to(mask.device) >= a["dropout_prob"])


def _dropout_run(ins, outs, a, rng):
    x, out = ins["X"][0], outs["Out"][0]
    train_scale, test_scale = dropout_scales(a)
    mask = outs.get("Mask", [None])[0]
    if a["is_test"]:
        torch.mul(x, test_scale, out=out)
        if mask is not None:
            mask.fill_(1)
        return
    keep = mask if mask is not None else torch.empty(x.shape, dtype=torch.uint8,
                                                      device=x.device)
    _draw_keep(keep, a, rng)
    torch.mul(x, keep.to(x.dtype) * train_scale, out=out)


def _dropout_grad(op: OpDesc) -> list[OpDesc]:
    # Out@GRAD first: define.pointwise's reference takes the dtype of the first input given.
    return [OpDesc("dropout_grad", {"Out@GRAD": [grad_name(op.output("Out")[0])],
                                    "Mask": op.output("Mask")},
                   {"X@GRAD": [grad_name(op.input("X")[0])]}, dict(op.attrs))]


def _dropout_masked(o, x, mask, a):
    """A training dropout's x * (mask * train_scale), as _dropout_run computes it."""
    keep = o.cast(mask, x.dtype)
    return o.mul(x, o.mul(keep, o.constant(dropout_scales(a)[0], x.dtype)))


def _dropout_grad_expr(o, i, a):
    d = i["Out@GRAD"]
    if a["is_test"]:
        return {"X@GRAD": o.mul(d, o.constant(dropout_scales(a)[1], d.dtype))}
    return {"X@GRAD": _dropout_masked(o, d, i["Mask"], a)}


_extern("dropout", ["X", "Seed?"], ["Out", "Mask?"], DROPOUT_ATTRS, _dropout_infer, _dropout_run,
        _dropout_ref, _dropout_grad, stateful=True)
# Out@GRAD is listed first so the grad takes its dtype, not the mask's.
pointwise("dropout_grad", ["Out@GRAD", "Mask"], ["X@GRAD"], _dropout_grad_expr, DROPOUT_ATTRS)

# A training dropout as passes/dropout.py splits it, so that applying the mask is pointwise work
# that fuses with what makes X (attention's softmax): dropout_mask draws Mask (of the attribute
# `shape`; it reads no input, so it can run before X is made) and dropout_apply computes
# Out = X * (Mask * train_scale). Never in a Program.
DROPOUT_MASK_ATTRS = {**DROPOUT_ATTRS, "shape": []}


def _dropout_mask_run(ins, outs, a, rng):
    _draw_keep(outs["Mask"][0], a, rng)


_extern("dropout_mask", [], ["Mask"], DROPOUT_MASK_ATTRS,
        lambda ins, a: {"Mask": [VarInfo(tuple(a["shape"]), VarType.UINT8)]},
        _dropout_mask_run, lambda ins, a: {"Mask": [_dropout_mask_np(a["shape"], a)]},
        stateful=True)
pointwise("dropout_apply", ["X", "Mask"], ["Out"],
          lambda o, i, a: {"Out": _dropout_masked(o, i["X"], i["Mask"], a)}, DROPOUT_ATTRS)


# ---------------------------------------------------------------------------------------------
# lookup_table (Ids end in a dim of 1) and lookup_table_v2 (they do not); padding_idx rows are 0.

LOOKUP_ATTRS = {"padding_idx": -1}
# The ids each op takes: lookup_table_v2 any int dtype (Paddle 2.x's embedding), 1.x's
# lookup_table int32 / int64.
_LOOKUP_ID_DTYPES = {
    "lookup_table": (VarType.INT32, VarType.INT64),
    "lookup_table_v2": (VarType.UINT8, VarType.INT8, VarType.INT16, VarType.INT32, VarType.INT64),
}


def _lookup_ids_shape(op: str, ids) -> tuple[int, ...]:
    """The leading shape of the output: Ids' shape, less lookup_table's trailing 1."""
    if op.startswith("lookup_table_v2"):
        return tuple(ids)
    if len(ids) < 1 or ids[-1] not in (1, -1):
        raise ShapeError(f"op '{op}': Ids must end in a dim of 1, got shape {list(ids)}")
    return tuple(ids[:-1])


def _lookup_pad(a, vocab: int) -> int:
    """The id whose rows are zeros. -1 (no padding row) is still an id Paddle accepts without
    a lookup (its kernel leaves the row unwritten); fluidc gives zeros for it."""
    p = a["padding_idx"]
    return p + vocab if p < -1 else p


def _lookup_indices(shapes, a):
    vocab = shapes["W"][0][0]
    pad = _lookup_pad(a, vocab)
    return {"Ids": IndexBound(0, vocab, pad if pad < 0 else None)}


def _lookup_rows(w: torch.Tensor, ids: torch.Tensor, pad: int, out: torch.Tensor) -> None:
    """out[i] = w[ids[i]], zeros where ids[i] is the padding id (ids are checked already)."""
    try:
        torch.index_select(w, 0, ids, out=out)
        if pad < 0:
            return
    except (IndexError, RuntimeError):  # a -1 padding id: only then pay for a mask
        torch.index_select(w, 0, ids.clamp(min=0), out=out)
    out[ids == pad] = 0


def _register_lookup(op: str) -> None:
    def infer(ins, a):
        w, ids = ins["W"][0], ins["Ids"][0]
        if ids.dtype not in _LOOKUP_ID_DTYPES[op]:
            raise OpError(f"op '{op}': Ids must be int "
                          f"({' / '.join(d.name.lower() for d in _LOOKUP_ID_DTYPES[op])}), "
                          f"got {ids.dtype.name}")
        if len(w.shape) != 2:
            raise ShapeError(f"op '{op}': W must be 2-D, got shape {list(w.shape)}")
        return {"Out": [VarInfo(_lookup_ids_shape(op, ids.shape) + (w.shape[1],), w.dtype,
                                ids.lod_level)]}

    def reference(ins, a):
        w, ids = np.asarray(ins["W"][0]), np.asarray(ins["Ids"][0]).astype(np.int64)
        lead = _lookup_ids_shape(op, ids.shape)
        ids = ids.reshape(lead)
        pad = _lookup_pad(a, w.shape[0])
        out = w[np.where(ids == pad, 0, ids)]
        out[ids == pad] = 0
        return {"Out": [out]}

    def run(ins, outs, a, rng):
        w, ids = ins["W"][0], ins["Ids"][0].long().reshape(-1)
        _lookup_rows(w, ids, _lookup_pad(a, w.shape[0]), outs["Out"][0].view(-1, w.shape[1]))

    def grad(fwd: OpDesc) -> list[OpDesc]:
        # fluidc's W@GRAD is a dense tensor: the grad op says so (is_sparse False), or Paddle,
        # running a saved program, would write SelectedRows into it
        return [OpDesc(op + "_grad", {"W": fwd.input("W"), "Ids": fwd.input("Ids"),
                                      "Out@GRAD": [grad_name(fwd.output("Out")[0])]},
                       {"W@GRAD": [grad_name(fwd.input("W")[0])]},
                       {**fwd.attrs, "is_sparse": False})]

    def grad_ref(ins, a):
        w, ids = np.asarray(ins["W"][0]), np.asarray(ins["Ids"][0]).astype(np.int64).reshape(-1)
        dout = np.asarray(ins["Out@GRAD"][0]).reshape(-1, w.shape[1])
        dw = np.zeros_like(w)
        keep = ids != _lookup_pad(a, w.shape[0])
        np.add.at(dw, ids[keep], dout[keep])
        return {"W@GRAD": [dw]}

    def grad_run(ins, outs, a, rng):
        w, ids = ins["W"][0], ins["Ids"][0].long().reshape(-1)
        dout = ins["Out@GRAD"][0].reshape(-1, w.shape[1])
        dw = outs["W@GRAD"][0].zero_()
        pad = _lookup_pad(a, w.shape[0])
        try:
            dw.index_add_(0, ids, dout)
        except (IndexError, RuntimeError):  # a -1 padding id
            keep = ids != pad
            dw.index_add_(0, ids[keep], dout[keep])
        if pad >= 0:
            dw[pad] = 0

    _extern(op, ["W", "Ids"], ["Out"], LOOKUP_ATTRS, infer, run, reference, grad,
            indices=_lookup_indices, lod_from="Ids")
    # Paddle gives a SelectedRows W@GRAD when is_sparse; fluidc's is always dense.
    _extern(op + "_grad", ["W", "Ids", "Out@GRAD"], ["W@GRAD?"], LOOKUP_ATTRS,
            same_as("W", "W@GRAD"), grad_run, grad_ref, indices=_lookup_indices)


_register_lookup("lookup_table")
_register_lookup("lookup_table_v2")
