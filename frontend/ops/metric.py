"""Metric ops that keep state in persistable vars: auc (Paddle's ROC area over histograms of the
positive-class score, global or over a sliding window of batches)."""
from __future__ import annotations

import numpy as np
from fluidc.frontend.lazy_import import torch

from ..dtypes import VarType
from ..errors import OpError, ShapeError
from .registry import OpDef, VarInfo, register, slots

# auc: StatPos/StatNeg hold counts of positive/negative rows per score bucket (num_thresholds + 1
# buckets; a score p falls in bucket int(p * num_thresholds)). With slide_steps 0 they are one
# cumulative histogram [1, buckets]; with slide_steps S they are S per-batch histograms, their
# sum, then a step counter: [(S + 1) * buckets + 1]. Each run replaces the oldest batch's
# histogram by this batch's and gives the ROC area of the sum (Paddle's `curve` attribute is
# not read by its kernel: the area is always ROC's). Labels > 0 are positive, 0 negative,
# others neither; an InsTagWeight whose first value is 0 marks a fake batch, counted in its
# window slot but not in the sum (and not at all by a global auc).

AUC_ATTRS = {"curve": "ROC", "num_thresholds": (2 << 12) - 1, "slide_steps": 1}


def stat_shape(num_thresholds: int, slide_steps: int) -> tuple[int, ...]:
    """The shape of auc's StatPosOut/StatNegOut for these attributes (its inputs must hold at
    least as many counts)."""
    buckets = num_thresholds + 1
    return (1, buckets) if slide_steps == 0 else ((slide_steps + 1) * buckets + 1,)


def _auc_infer(ins, a):
    pred, label = ins["Predict"][0], ins["Label"][0]
    if len(pred.shape) != 2 or pred.shape[1] not in (-1, 1, 2) or len(label.shape) not in (1, 2):
        raise ShapeError(f"op 'auc': Predict must be [N, 1] or [N, 2] and Label [N] or [N, 1], "
                         f"got {list(pred.shape)} and {list(label.shape)}")
    if -1 not in (pred.shape[0], label.shape[0]) and pred.shape[0] != label.shape[0]:
        raise ShapeError(f"op 'auc': Predict {list(pred.shape)} and Label {list(label.shape)} "
                         f"must have as many rows")
    if a["num_thresholds"] < 1 or a["slide_steps"] < 0:
        raise OpError(f"op 'auc': num_thresholds must be >= 1 and slide_steps >= 0, got "
                      f"{a['num_thresholds']} and {a['slide_steps']}")
    shape = stat_shape(a["num_thresholds"], a["slide_steps"])
    want = int(np.prod(shape))
    for slot in ("StatPos", "StatNeg"):
        have = int(np.prod(ins[slot][0].shape))
        if 0 <= have < want:
            raise ShapeError(f"op 'auc': {slot} holds {have} counts, but num_thresholds "
                             f"{a['num_thresholds']} and slide_steps {a['slide_steps']} need "
                             f"{want}")
    return {"AUC": [VarInfo((), VarType.FP64)], "StatPosOut": [VarInfo(shape, VarType.INT64)],
            "StatNegOut": [VarInfo(shape, VarType.INT64)]}


def _roc_area(pos: np.ndarray, neg: np.ndarray) -> float:
    """The trapezoid sum from the top bucket down, in that order, over the totals (0 when a
    class is missing)."""
    tot_pos, tot_neg = np.cumsum(pos[::-1], dtype=np.float64), np.cumsum(neg[::-1],
                                                                         dtype=np.float64)
    prev_pos = np.concatenate([[0.0], tot_pos[:-1]])
    prev_neg = np.concatenate([[0.0], tot_neg[:-1]])
    area = np.cumsum(np.abs(tot_neg - prev_neg) * (tot_pos + prev_pos) / 2.0)[-1]
    if tot_pos[-1] > 0 and tot_neg[-1] > 0:
        area = area / tot_pos[-1] / tot_neg[-1]
    return float(area)


def _histograms(pred: np.ndarray, label: np.ndarray, buckets: int) -> tuple[np.ndarray, ...]:
    score = pred[:, -1]  # the positive class's probability: the last column
    if score.size and not (score.min() >= 0 and score.max() <= 1):
        raise OpError(f"op 'auc': Predict's last column must hold probabilities in [0, 1], got "
                      f"values in [{score.min()}, {score.max()}]")
    bins = (score * score.dtype.type(buckets - 1)).astype(np.int64)
    label = label.reshape(-1)[: score.shape[0]]
    return (np.bincount(bins[label > 0], minlength=buckets),
            np.bincount(bins[label == 0], minlength=buckets))


def auc_step(pred, label, stat_pos, stat_neg, attrs, fake: bool = False) -> tuple:
    """One auc run on numpy arrays: (AUC, new StatPos, new StatNeg)."""
    buckets, steps = attrs["num_thresholds"] + 1, attrs["slide_steps"]
    shape = stat_shape(attrs["num_thresholds"], steps)
    size = int(np.prod(shape))
    pos, neg = (np.array(s, np.int64).reshape(-1)[:size] for s in (stat_pos, stat_neg))
    if not (steps == 0 and fake):
        batch_pos, batch_neg = _histograms(np.asarray(pred), np.asarray(label), buckets)
        if steps == 0:
            pos[:buckets] += batch_pos
            neg[:buckets] += batch_neg
        else:
            cur = int(pos[size - 1]) % steps * buckets
            total = slice(steps * buckets, (steps + 1) * buckets)
            for stat, batch in ((pos, batch_pos), (neg, batch_neg)):
                stat[total] -= stat[cur:cur + buckets]
                stat[cur:cur + buckets] = batch
                if not fake:
                    stat[total] += batch
    start = steps * buckets
    auc = _roc_area(pos[start:start + buckets], neg[start:start + buckets])
    if steps:
        pos[size - 1] += 1
        neg[size - 1] += 1
    return np.array(auc, np.float64), pos.reshape(shape), neg.reshape(shape)


def _is_fake(ins) -> bool:
    weight = ins.get("InsTagWeight")
    return bool(weight) and float(np.asarray(weight[0]).reshape(-1)[0]) == 0.0


def _auc_ref(ins, a):
    auc, pos, neg = auc_step(ins["Predict"][0], ins["Label"][0], ins["StatPos"][0],
                             ins["StatNeg"][0], a, _is_fake(ins))
    return {"AUC": [auc], "StatPosOut": [pos], "StatNegOut": [neg]}


def _auc_run(ins, outs, a, rng):
    # A few thousand counts per run: the histogram update runs on the host.
    host = {k: [t.detach().cpu().numpy() for t in v] for k, v in ins.items()}
    got = _auc_ref(host, a)
    for slot, (value,) in got.items():
        outs[slot][0].copy_(torch.from_numpy(value))


register(OpDef("auc", slots("Predict", "Label", "StatPos", "StatNeg", "InsTagWeight?"),
               slots("AUC", "StatPosOut", "StatNegOut"), AUC_ATTRS, _auc_infer, "extern",
               reference=_auc_ref, run=_auc_run))
