"""nce (noise-contrastive estimation, fluid.layers.nce / paddle.static.nn.nce).

Each row i of Input [N, D] gets SampleLabels[i] = its Label row (num_true classes) followed by
num_neg_samples negative classes: custom_neg_classes when given (the same for every row), else
drawn by the sampler (0 uniform over [0, num_total_classes), 1 log-uniform, 2 the custom
distribution given by CustomDistProbs with its alias tables CustomDistAlias /
CustomDistAliasProbs). SampleLogits[i, j] = sigmoid(Input[i] . Weight[c] + Bias[c]) for c =
SampleLabels[i, j] (a probability, despite the name), and with b = num_neg_samples * P(c) under
the sampler, Cost[i] = SampleWeight[i] * sum_j (-log(o / (o + b)) for true classes,
-log(b / (o + b)) for negatives). The gradient is the exact derivative of Cost, with the drawn
samples held fixed (they are outputs the grad op reads). fluidc's Weight@GRAD is dense whatever
is_sparse says (the same update for every optimizer)."""
from __future__ import annotations

import math

import numpy as np
from fluidc.frontend.lazy_import import torch

from ..dtypes import VarType
from ..errors import OpError, ShapeError
from .conv import _bound
from .registry import OpDef, OpDesc, VarInfo, grad_name, register, slots

UNIFORM, LOG_UNIFORM, CUSTOM = 0, 1, 2
# is_sparse / remote_prefetch and the parameter server's prefetch settings compute the same in
# one process; is_test too (the outputs are the same, no gradient is asked for).
NCE_ATTRS = {"num_total_classes": 0, "num_neg_samples": 10, "sampler": UNIFORM, "seed": 0,
             "custom_neg_classes": [], "is_sparse": False, "remote_prefetch": False,
             "is_test": False, "height_sections": [], "epmap": [], "table_names": []}
_CUSTOM_SLOTS = ("CustomDistProbs", "CustomDistAlias", "CustomDistAliasProbs")


def _check(ins, a) -> None:
    c = a["num_total_classes"]
    if c < 1:
        raise OpError(f"op 'nce': num_total_classes must be positive, got {c}")
    if a["sampler"] not in (UNIFORM, LOG_UNIFORM, CUSTOM):
        raise OpError(f"op 'nce': sampler must be 0 (uniform), 1 (log_uniform) or 2 "
                      f"(custom_dist), got {a['sampler']}")
    if a["sampler"] == CUSTOM:
        for s in _CUSTOM_SLOTS:
            if not ins.get(s):
                raise OpError(f"op 'nce': sampler 2 (custom_dist) needs input {s}")
    neg = a["custom_neg_classes"]
    if neg and len(neg) != a["num_neg_samples"]:
        raise OpError(f"op 'nce': custom_neg_classes {neg} must hold num_neg_samples = "
                      f"{a['num_neg_samples']} classes")
    if any(not 0 <= k < c for k in neg):
        raise OpError(f"op 'nce': custom_neg_classes {neg} must lie in [0, {c})")


def _num_true(label_shape) -> int:
    return label_shape[1] if len(label_shape) == 2 else 1


def _infer(ins, a):
    _check(ins, a)
    x, label, w = ins["Input"][0], ins["Label"][0], ins["Weight"][0]
    if len(x.shape) != 2 or len(w.shape) != 2 or len(label.shape) not in (1, 2):
        raise ShapeError(f"op 'nce': Input must be [N, D], Weight [num_total_classes, D] and "
                         f"Label [N, num_true], got Input {list(x.shape)}, Weight "
                         f"{list(w.shape)}, Label {list(label.shape)}")
    if -1 not in (x.shape[1], w.shape[1]) and x.shape[1] != w.shape[1]:
        raise ShapeError(f"op 'nce': Weight {list(w.shape)} must have Input's width "
                         f"{x.shape[1]}")
    if w.shape[0] not in (-1, a["num_total_classes"]):
        raise ShapeError(f"op 'nce': Weight {list(w.shape)} must have num_total_classes = "
                         f"{a['num_total_classes']} rows")
    if -1 not in (x.shape[0], label.shape[0]) and x.shape[0] != label.shape[0]:
        raise ShapeError(f"op 'nce': Input {list(x.shape)} and Label {list(label.shape)} "
                         f"must have the same number of rows")
    k = _num_true(label.shape) + a["num_neg_samples"]
    n = x.shape[0]
    return {"Cost": [VarInfo((n, 1), x.dtype)], "SampleLogits": [VarInfo((n, k), x.dtype)],
            "SampleLabels": [VarInfo((n, k), VarType.INT64)]}


def _as(x, like, xp):
    """x in like's dtype (and device)."""
    return x.astype(like.dtype) if xp is np else x.to(dtype=like.dtype, device=like.device)


def _noise(labels, a, ins, o, xp):
    """b = num_neg_samples * P(class) under the sampler for each entry of labels, computed in
    float32 as Paddle does whatever the dtype, then in o's dtype."""
    c = a["num_total_classes"]
    k = labels.astype(np.float64) if xp is np else labels.double()
    if a["sampler"] == UNIFORM:
        p = k * 0 + 1.0 / c
    elif a["sampler"] == LOG_UNIFORM:
        p = xp.log((k + 2.0) / (k + 1.0)) / math.log(c)
    else:
        p = ins["CustomDistProbs"][0].reshape(-1)[labels]
    p = p.astype(np.float32) if xp is np else p.float()
    return _as(p * a["num_neg_samples"], o, xp)


def _draw(a, ins, n: int, gen):
    """[n, num_neg_samples] negative classes drawn by the sampler (torch, generator gen)."""
    c, shape = a["num_total_classes"], (n, a["num_neg_samples"])
    if a["sampler"] == UNIFORM:
        return torch.randint(0, c, shape, generator=gen)
    u = torch.rand(shape, generator=gen, dtype=torch.float64)
    if a["sampler"] == LOG_UNIFORM:  # P(k) = log((k + 2) / (k + 1)) / log(c)
        return (torch.exp(u * math.log(c)).long() - 1).clamp_(0, c - 1)
    # the alias method: a uniform column, kept with its alias probability, else its alias
    col = torch.randint(0, c, shape, generator=gen)
    alias = ins["CustomDistAlias"][0].reshape(-1).long().cpu()
    keep = ins["CustomDistAliasProbs"][0].reshape(-1).double().cpu()
    return torch.where((u <= keep[col]) | (alias[col] < 0), col, alias[col])


def _sample_labels(ins, a, rng, xp):
    """SampleLabels [N, num_true + num_neg]: the Label columns, then the negatives."""
    label = ins["Label"][0]
    n = label.shape[0]
    label = label.reshape(n, -1)
    neg = a["custom_neg_classes"]
    if neg:
        negs = np.tile(np.asarray(neg, np.int64), (n, 1))
    else:
        gen = torch.Generator().manual_seed(int(a["seed"])) if a["seed"] else \
            (rng if rng is not None and getattr(rng, "device", None) == torch.device("cpu")
             else None)
        negs = _draw(a, ins, n, gen).numpy()
    if xp is np:
        return np.concatenate([np.asarray(label, np.int64), negs], 1)
    return torch.cat([label.long(), torch.as_tensor(negs, device=label.device)], 1)


def _logits(ins, labels, xp):
    """sigmoid(Input . Weight[c] + Bias[c]) for each sampled class c."""
    x, w = ins["Input"][0], ins["Weight"][0]
    z = (x[:, None, :] * w[labels]).sum(-1)
    if ins.get("Bias"):
        z = z + ins["Bias"][0].reshape(-1)[labels]
    return 1.0 / (1.0 + xp.exp(-z))


def _row_weight(ins, n, xp):
    sw = ins.get("SampleWeight")
    return sw[0].reshape(n, 1) if sw else 1.0


def _is_true(ins, o, xp):
    """[1, K] mask of the true-class columns of the sampled classes."""
    cols = xp.arange(o.shape[1]) if xp is np else torch.arange(o.shape[1], device=o.device)
    return (cols < _num_true(ins["Label"][0].shape))[None, :]


def _cost(ins, a, o, labels, xp):
    b = _noise(labels, a, ins, o, xp)
    per = xp.where(_is_true(ins, o, xp), -xp.log(o / (o + b)), -xp.log(b / (o + b)))
    return (per * _row_weight(ins, o.shape[0], xp)).sum(1).reshape(-1, 1)


def _ref(ins, a, rng=None):
    ins = {k: [np.asarray(v[0])] for k, v in ins.items() if v}
    labels = _sample_labels(ins, a, rng, np)
    o = _logits(ins, labels, np)
    return {"Cost": [_cost(ins, a, o, labels, np).astype(o.dtype)], "SampleLogits": [o],
            "SampleLabels": [labels]}


def _run(ins, outs, a, rng):
    ins = {k: v for k, v in ins.items() if v}
    labels = _sample_labels(ins, a, rng, torch)
    o = _logits(ins, labels, torch)
    outs["SampleLabels"][0].copy_(labels)
    outs["SampleLogits"][0].copy_(o)
    outs["Cost"][0].copy_(_cost(ins, a, o, labels, torch))


def _grad(op: OpDesc) -> list[OpDesc]:
    keep = ("Input", "Label", "Weight", "Bias", "SampleWeight", *_CUSTOM_SLOTS)
    ins = {s: op.input(s) for s in keep if op.input(s)}
    ins.update({"SampleLogits": op.output("SampleLogits"),
                "SampleLabels": op.output("SampleLabels"),
                "Cost@GRAD": [grad_name(op.output("Cost")[0])]})
    outs = {f"{s}@GRAD": [grad_name(op.input(s)[0])] for s in ("Input", "Weight", "Bias")
            if op.input(s)}
    return [OpDesc("nce_grad", ins, outs, dict(op.attrs))]


def _grad_infer(ins, a):
    return {f"{s}@GRAD": [ins[s][0]] for s in ("Input", "Weight", "Bias") if ins.get(s)}


def _sample_grad(ins, a, xp):
    """dCost / dz for each sampled logit z (o = sigmoid(z)), times the row's Cost@GRAD."""
    o, labels = ins["SampleLogits"][0], ins["SampleLabels"][0]
    b = _noise(labels, a, ins, o, xp)
    g = xp.where(_is_true(ins, o, xp), b / (o + b) * (o - 1), o * (1 - o) / (o + b))
    n = o.shape[0]
    return g * _row_weight(ins, n, xp) * ins["Cost@GRAD"][0].reshape(n, 1)


def _grads(ins, a, xp):
    """{Input@GRAD, Weight@GRAD, Bias@GRAD} as arrays of xp."""
    g, labels = _sample_grad(ins, a, xp), ins["SampleLabels"][0]
    x, w = ins["Input"][0], ins["Weight"][0]
    flat = labels.reshape(-1)
    rows_x = (g[:, :, None] * x[:, None, :]).reshape(-1, x.shape[1])
    out = {"Input@GRAD": (g[:, :, None] * w[labels]).sum(1)}
    if xp is np:
        dw = np.zeros_like(w)
        np.add.at(dw, flat, rows_x)
        db = np.zeros(w.shape[0], dtype=w.dtype)
        np.add.at(db, flat, g.reshape(-1))
    else:
        dw = torch.zeros_like(w).index_add_(0, flat, rows_x)
        db = torch.zeros(w.shape[0], dtype=w.dtype, device=w.device).index_add_(
            0, flat, g.reshape(-1))
    out["Weight@GRAD"] = dw
    if ins.get("Bias"):
        out["Bias@GRAD"] = db.reshape(ins["Bias"][0].shape)
    return out


def _grad_ref(ins, a):
    ins = {k: [np.asarray(v[0])] for k, v in ins.items() if v}
    return {k: [v] for k, v in _grads(ins, a, np).items()}


def _grad_run(ins, outs, a, rng):
    ins = {k: v for k, v in ins.items() if v}
    for slot, value in _grads(ins, a, torch).items():
        out = _bound(outs, slot)
        if out is not None:
            out.copy_(value)


_INS = ("Input", "Label", "Weight", "Bias?", "SampleWeight?", *(s + "?" for s in _CUSTOM_SLOTS))
register(OpDef("nce", slots(*_INS), slots("Cost", "SampleLogits", "SampleLabels"), NCE_ATTRS,
               _infer, "extern", reference=_ref, grad=_grad, run=_run, stateful=True))
register(OpDef("nce_grad", slots(*_INS, "SampleLogits", "SampleLabels", "Cost@GRAD"),
               slots("Input@GRAD?", "Weight@GRAD?", "Bias@GRAD?"), NCE_ATTRS, _grad_infer,
               "extern", reference=_grad_ref, run=_grad_run))
