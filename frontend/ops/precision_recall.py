"""precision_recall (Paddle 1.x/2.x's op; Paddle 3.3.1 no longer registers it): macro and micro
averaged precision, recall and F1 of top-1 predictions (Indices) against Labels, for this batch
and accumulated over batches through StatesInfo.

States are [class_number, 4] rows of (TP, FP, TN, FN) per class, weighted by Weights (1 per
instance without it), in MaxProbs' dtype T and summed in Paddle's order (instance by instance,
TN over every class, then taken back from the classes involved). BatchMetrics is computed from
this batch's states, AccumMetrics from them plus StatesInfo, which AccumStatesInfo returns: bind
StatesInfo and AccumStatesInfo to one persistable var to accumulate across runs. Metrics are
[macro precision, macro recall, macro F1, micro precision, micro recall, micro F1], computed in T
and written as float64 (as Paddle's kernel); a precision or recall with no counts is 1, an F1
of zero precision and recall 0. Indices and Labels must lie in [0, class_number)."""
from __future__ import annotations

import numpy as np
from fluidc.frontend.lazy_import import torch

from ..dtypes import VarType
from ..errors import OpError, ShapeError
from .registry import IndexBound, OpDef, VarInfo, register, slots

# class_number has no default in Paddle (a required attribute): 0 is refused at inference.
PR_ATTRS = {"class_number": 0}
TP, FP, TN, FN = range(4)


def _rows(shape) -> int:
    return shape[0] if shape else -1


def _infer(ins, a):
    classes = a["class_number"]
    if classes < 1:
        raise OpError(f"op 'precision_recall': class_number must be >= 1 (a required "
                      f"attribute), got {classes}")
    probs = ins["MaxProbs"][0]
    if probs.dtype not in (VarType.FP32, VarType.FP64):
        raise OpError(f"op 'precision_recall': MaxProbs must be float32 or float64, got "
                      f"{probs.dtype.name}")
    rows = _rows(probs.shape)
    for slot in ("MaxProbs", "Indices", "Labels", "Weights"):
        if not ins.get(slot):
            continue
        shape = tuple(ins[slot][0].shape)
        if len(shape) != 2 or shape[1] not in (1, -1) or -1 not in (rows, shape[0]) and \
                shape[0] != rows:
            raise ShapeError(f"op 'precision_recall': {slot} must be [batch_size, 1] like "
                             f"MaxProbs {list(probs.shape)}, got {list(shape)}")
    for slot in ("Indices", "Labels"):
        if ins[slot][0].dtype != VarType.INT32:
            raise OpError(f"op 'precision_recall': {slot} must be int32, got "
                          f"{ins[slot][0].dtype.name}")
    if ins.get("StatesInfo") and tuple(ins["StatesInfo"][0].shape) not in (
            (classes, 4), (-1, 4)):
        raise ShapeError(f"op 'precision_recall': StatesInfo must be [class_number, 4] = "
                         f"[{classes}, 4], got {list(ins['StatesInfo'][0].shape)}")
    metrics = VarInfo((6,), VarType.FP64)
    return {"BatchMetrics": [metrics], "AccumMetrics": [metrics],
            "AccumStatesInfo": [VarInfo((classes, 4), probs.dtype)]}


def batch_states(ids, labels, weights, classes: int, dtype) -> np.ndarray:
    """This batch's (TP, FP, TN, FN) per class, added in the kernel's order."""
    states = np.zeros((classes, 4), dtype)
    one = np.ones(len(ids), dtype) if weights is None else weights.reshape(-1).astype(dtype)
    for idx, label, w in zip(ids.reshape(-1), labels.reshape(-1), one):
        if idx == label:
            states[idx, TP] += w
            states[:, TN] += w
            states[idx, TN] -= w
        else:
            states[label, FN] += w
            states[idx, FP] += w
            states[:, TN] += w
            states[idx, TN] -= w
            states[label, TN] -= w
    return states


def _ratio(num, other, one):
    return num / (num + other) if num > 0 or other > 0 else one


def _f1(p, r, dtype):
    return dtype.type(2) * p * r / (p + r) if p > 0 or r > 0 else dtype.type(0)


def metrics(states: np.ndarray) -> np.ndarray:
    """The six metrics of per-class states, computed in their dtype as the kernel does."""
    dtype = states.dtype
    zero, one = dtype.type(0), dtype.type(1)
    total_tp = total_fp = total_fn = macro_p = macro_r = zero
    for tp, fp, _, fn in states:
        total_tp, total_fp, total_fn = total_tp + tp, total_fp + fp, total_fn + fn
        macro_p = macro_p + _ratio(tp, fp, one)
        macro_r = macro_r + _ratio(tp, fn, one)
    classes = dtype.type(len(states))
    macro_p, macro_r = macro_p / classes, macro_r / classes
    micro_p, micro_r = _ratio(total_tp, total_fp, one), _ratio(total_tp, total_fn, one)
    return np.array([macro_p, macro_r, _f1(macro_p, macro_r, dtype), micro_p, micro_r,
                     _f1(micro_p, micro_r, dtype)], np.float64)


def _ref(ins, a):
    ins = {k: np.asarray(v[0]) for k, v in ins.items() if v}
    dtype = ins["MaxProbs"].dtype
    states = batch_states(ins["Indices"], ins["Labels"], ins.get("Weights"), a["class_number"],
                          dtype)
    batch = metrics(states)
    if "StatesInfo" in ins:
        states = states + ins["StatesInfo"].astype(dtype)
    return {"BatchMetrics": [batch], "AccumMetrics": [metrics(states)],
            "AccumStatesInfo": [states]}


def _run(ins, outs, a, rng):
    host = {k: [t.detach().cpu().numpy() for t in v] for k, v in ins.items() if v}
    for slot, (value,) in _ref(host, a).items():
        if outs.get(slot):
            outs[slot][0].copy_(torch.from_numpy(value))


def _indices(shapes, a):
    return {slot: IndexBound(0, a["class_number"]) for slot in ("Indices", "Labels")}


register(OpDef("precision_recall",
               slots("MaxProbs", "Indices", "Labels", "Weights?", "StatesInfo?"),
               slots("BatchMetrics", "AccumMetrics", "AccumStatesInfo"), PR_ATTRS, _infer,
               "extern", reference=_ref, run=_run, indices=_indices))
