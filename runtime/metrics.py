"""Evaluation metrics accumulated on the host over fetched numpy batches.

fluid.metrics (1.x: update/eval, states reset by MetricBase.reset) and paddle.metric (2.x:
update/accumulate/reset/name) count the same things: binary precision and recall over rounded
predictions, accuracy weighted by batch size or top-k, chunk and edit-distance counters, and
the ROC AUC of a bucketed histogram of positive-class scores.
"""
from __future__ import annotations

import copy

import numpy as np

from ..frontend.dtypes import VarType
from ..frontend.framework import Variable
from ..frontend.layers import conv as conv_layers
from ..frontend.layers import nn as nn_layers
from ..frontend.layers import tensor as tensor_layers
from ..frontend.layers.helper import LayerHelper


def _is_numpy(x) -> bool:
    return isinstance(x, (np.ndarray, np.generic))


def _is_number(x) -> bool:
    return (isinstance(x, (int, float, np.integer, np.floating)) and not isinstance(x, bool)) or \
        (isinstance(x, np.ndarray) and x.shape == (1,))


def _is_number_or_matrix(x) -> bool:
    return _is_number(x) or isinstance(x, np.ndarray)


def _host(x):
    """An eager tensor's value (paddle.metric's 2.x classes take tensors as Paddle's do);
    anything else as it is."""
    return x.numpy() if isinstance(x, Variable) and hasattr(x, "numpy") else x


def _arrays(preds, labels, what: str = "preds") -> tuple[np.ndarray, np.ndarray]:
    if not _is_numpy(preds):
        raise ValueError(f"The '{what}' must be a numpy ndarray.")
    if not _is_numpy(labels):
        raise ValueError("The 'labels' must be a numpy ndarray.")
    preds, labels = np.asarray(preds), np.asarray(labels)
    n = labels.shape[0] if labels.ndim else 1
    if (preds.shape[0] if preds.ndim else 1) < n:
        raise ValueError(f"'{what}' has {preds.shape[0] if preds.ndim else 1} rows but 'labels' "
                         f"has {n}")
    return preds, labels


def _binary_counts(preds, labels, rounding) -> tuple[int, int, int]:
    """(true positives, false positives, false negatives) of rounded predictions."""
    preds, labels = _arrays(preds, labels)
    n = labels.shape[0]
    pred = rounding(preds[:n].reshape(n, -1)[:, 0]).astype(np.int32)
    label = labels.reshape(n, -1)[:, 0]
    tp = int(np.sum((pred == 1) & (label == 1)))
    return tp, int(np.sum((pred == 1) & (label != 1))), int(np.sum((label == 1) & (pred != 1)))


def _round_half_up(x):
    return np.floor(x + 0.5)


class _AucHistogram:
    """Positive and negative counts of the positive-class score in num_thresholds + 1 buckets;
    the ROC area is the trapezoid sum from the top bucket down, normalized."""

    def __init__(self, num_thresholds: int) -> None:
        self.num_thresholds = int(num_thresholds)
        self.clear()

    def clear(self) -> None:
        self.pos = np.zeros(self.num_thresholds + 1)
        self.neg = np.zeros(self.num_thresholds + 1)

    def add(self, preds, labels) -> None:
        preds, labels = _arrays(preds, labels, "predictions")
        n = labels.shape[0]
        if preds.ndim != 2 or preds.shape[1] < 2:
            raise ValueError(f"Auc takes predictions of shape [N, 2] (the second column is the "
                             f"positive class's probability), got {list(preds.shape)}")
        bins = (preds[:n, 1] * self.num_thresholds).astype(np.int64)
        if bins.size and (bins.max() > self.num_thresholds or bins.min() < 0):
            raise ValueError("Auc: predictions must be probabilities in [0, 1]")
        positive = labels.reshape(n, -1)[:, 0].astype(bool)
        np.add.at(self.pos, bins[positive], 1.0)
        np.add.at(self.neg, bins[~positive], 1.0)

    def area(self) -> float:
        pos = np.cumsum(self.pos[::-1])
        neg = np.cumsum(self.neg[::-1])
        tot_pos, tot_neg = pos[-1], neg[-1]
        if tot_pos <= 0 or tot_neg <= 0:
            return 0.0
        prev_pos, prev_neg = np.concatenate([[0.0], pos[:-1]]), np.concatenate([[0.0], neg[:-1]])
        auc = np.sum(np.abs(neg - prev_neg) * (pos + prev_pos) / 2.0)
        return float(auc / tot_pos / tot_neg)


# -- fluid.metrics (1.x) ------------------------------------------------------------------------

class MetricBase:
    """A metric accumulated over mini-batches: update() per batch, eval() for the result.
    Its states are the attributes without a leading underscore; reset() zeroes them."""

    def __init__(self, name=None) -> None:
        self._name = str(name) if name is not None else self.__class__.__name__

    def __str__(self) -> str:
        return self._name

    def _states(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if not k.startswith("_")}

    def reset(self) -> None:
        """Set every state back to zero (None for states that are not numbers or arrays)."""
        for attr, value in self._states().items():
            if isinstance(value, bool) or not isinstance(value, (int, float, np.ndarray, np.generic)):
                setattr(self, attr, None)
            elif isinstance(value, int):
                setattr(self, attr, 0)
            elif isinstance(value, float):
                setattr(self, attr, 0.0)
            else:
                setattr(self, attr, np.zeros_like(value))

    def get_config(self) -> dict:
        """{'name': ..., 'states': a copy of the states}."""
        return {"name": self._name, "states": copy.deepcopy(self._states())}

    def update(self, preds, labels):
        raise NotImplementedError("Should not use it directly, please extend it.")

    def eval(self):
        raise NotImplementedError("Should not use it directly, please extend it.")


class CompositeMetric(MetricBase):
    """Several metrics updated together; eval() gives the list of their results."""

    def __init__(self, name=None) -> None:
        super().__init__(name)
        self._metrics: list[MetricBase] = []

    def add_metric(self, metric: MetricBase) -> None:
        if not isinstance(metric, MetricBase):
            raise ValueError("SubMetric should be inherit from MetricBase.")
        self._metrics.append(metric)

    def update(self, preds, labels) -> None:
        for m in self._metrics:
            m.update(preds, labels)

    def eval(self) -> list:
        return [m.eval() for m in self._metrics]


class Precision(MetricBase):
    """Binary precision: true positives over predicted positives (predictions rounded)."""

    def __init__(self, name=None) -> None:
        super().__init__(name)
        self.tp = 0
        self.fp = 0

    def update(self, preds, labels) -> None:
        tp, fp, _ = _binary_counts(preds, labels, np.rint)
        self.tp += tp
        self.fp += fp

    def eval(self) -> float:
        ap = self.tp + self.fp
        return float(self.tp) / ap if ap != 0 else 0.0


class Recall(MetricBase):
    """Binary recall: true positives over actual positives (predictions rounded)."""

    def __init__(self, name=None) -> None:
        super().__init__(name)
        self.tp = 0
        self.fn = 0

    def update(self, preds, labels) -> None:
        tp, _, fn = _binary_counts(preds, labels, np.rint)
        self.tp += tp
        self.fn += fn

    def eval(self) -> float:
        total = self.tp + self.fn
        return float(self.tp) / total if total != 0 else 0.0


class Accuracy(MetricBase):
    """The average of mini-batch accuracies weighted by their batch sizes."""

    def __init__(self, name=None) -> None:
        super().__init__(name)
        self.value = 0.0
        self.weight = 0.0

    def update(self, value, weight) -> None:
        if not _is_number_or_matrix(value):
            raise ValueError("The 'value' must be a number(int, float) or a numpy ndarray.")
        if not _is_number(weight):
            raise ValueError("The 'weight' must be a number(int, float).")
        self.value += value * weight
        self.weight += weight

    def eval(self):
        if self.weight == 0:
            raise ValueError("There is no data in Accuracy Metrics. Please check "
                             "layers.accuracy output has added to Accuracy.")
        return self.value / self.weight


class ChunkEvaluator(MetricBase):
    """Precision, recall and F1 of chunk detection from chunk_eval's three counters."""

    def __init__(self, name=None) -> None:
        super().__init__(name)
        self.num_infer_chunks = 0
        self.num_label_chunks = 0
        self.num_correct_chunks = 0

    def update(self, num_infer_chunks, num_label_chunks, num_correct_chunks) -> None:
        for what, v in (("num_infer_chunks", num_infer_chunks),
                        ("num_label_chunks", num_label_chunks),
                        ("num_correct_chunks", num_correct_chunks)):
            if not _is_number_or_matrix(v):
                raise ValueError(f"The '{what}' must be a number(int, float) or a numpy ndarray.")
        self.num_infer_chunks += num_infer_chunks
        self.num_label_chunks += num_label_chunks
        self.num_correct_chunks += num_correct_chunks

    def eval(self) -> tuple[float, float, float]:
        infer, label, correct = (float(np.sum(c)) for c in (
            self.num_infer_chunks, self.num_label_chunks, self.num_correct_chunks))
        precision = correct / infer if infer else 0
        recall = correct / label if label else 0
        f1 = 2 * precision * recall / (precision + recall) if correct else 0
        return precision, recall, f1


class EditDistance(MetricBase):
    """The average edit distance and the fraction of sequences with any error."""

    def __init__(self, name=None) -> None:
        super().__init__(name)
        self.total_distance = 0.0
        self.seq_num = 0
        self.instance_error = 0

    def update(self, distances, seq_num) -> None:
        if not _is_numpy(distances):
            raise ValueError("The 'distances' must be a numpy ndarray.")
        if not _is_number(seq_num):
            raise ValueError("The 'seq_num' must be a number(int, float).")
        self.seq_num += seq_num
        self.instance_error += seq_num - np.sum(distances == 0)
        self.total_distance += np.sum(distances)

    def eval(self) -> tuple:
        if self.seq_num == 0:
            raise ValueError("There is no data in EditDistance Metric. Please check "
                             "layers.edit_distance output has been added to EditDistance.")
        return self.total_distance / self.seq_num, self.instance_error / float(self.seq_num)


class Auc(MetricBase):
    """ROC AUC of binary predictions ([N, 2] probabilities), from a bucketed histogram."""

    def __init__(self, name=None, curve: str = "ROC", num_thresholds: int = 4095) -> None:
        super().__init__(name)
        if curve != "ROC":
            raise ValueError(f"Auc computes the ROC curve only, got curve={curve!r}")
        self._curve = curve
        self._hist = _AucHistogram(num_thresholds)

    def reset(self) -> None:
        self._hist.clear()

    def update(self, preds, labels) -> None:
        self._hist.add(preds, labels)

    def eval(self) -> float:
        return self._hist.area()


# -- paddle.metric (2.x) ------------------------------------------------------------------------

class Metric:
    """2.x metric: update() per batch, accumulate() for the result, reset(), name()."""

    def reset(self):
        raise NotImplementedError(f"function 'reset' not implemented in {self.__class__.__name__}.")

    def update(self, *args):
        raise NotImplementedError(f"function 'update' not implemented in {self.__class__.__name__}.")

    def accumulate(self):
        raise NotImplementedError(
            f"function 'accumulate' not implemented in {self.__class__.__name__}.")

    def name(self):
        raise NotImplementedError(f"function 'name' not implemented in {self.__class__.__name__}.")

    def compute(self, *args):
        """What update() takes, from the fetched outputs (by default, the outputs as they are)."""
        return args


class TopkAccuracy(Metric):
    """paddle.metric.Accuracy: top-k accuracy for each k in topk."""

    def __init__(self, topk=(1,), name=None, *args, **kwargs) -> None:
        self.topk = tuple(topk)
        self.maxk = max(self.topk)
        name = name or "acc"
        self._name = [f"{name}_top{k}" for k in self.topk] if self.maxk != 1 else [name]
        self.reset()

    def compute(self, pred, label, *args):
        """[N, maxk] float32: 1 where the i-th highest score is the label's class. On Variables
        (a static program, or eager tensors: a tensor, as Paddle's) the ops computing it,
        whose value update() takes."""
        if isinstance(pred, Variable):
            return _static_topk_correct(pred, label, self.maxk)
        pred, label = np.asarray(pred), np.asarray(label)
        top = np.argsort(-pred, axis=-1, kind="stable")[..., :self.maxk]
        if label.ndim == 1 or (label.ndim == 2 and label.shape[-1] == 1):
            label = label.reshape(-1, 1)
        elif label.shape[-1] != 1:
            label = np.argmax(label, axis=-1)[..., None]
        return (top == label.astype(top.dtype)).astype(np.float32)

    def update(self, correct, *args):
        correct = np.asarray(correct)
        num_samples = int(np.prod(correct.shape[:-1]))
        accs = []
        for i, k in enumerate(self.topk):
            hits = correct[..., :k].sum()
            accs.append(float(hits) / num_samples)
            self.total[i] += hits
            self.count[i] += num_samples
        return accs[0] if len(self.topk) == 1 else accs

    def reset(self) -> None:
        self.total = [0.0] * len(self.topk)
        self.count = [0] * len(self.topk)

    def accumulate(self):
        res = [float(t) / c if c > 0 else 0.0 for t, c in zip(self.total, self.count)]
        return res[0] if len(self.topk) == 1 else res

    def name(self) -> list[str]:
        return self._name


def _static_topk_correct(pred: Variable, label: Variable, maxk: int) -> Variable:
    """The ops of TopkAccuracy.compute: top-k indices compared with the label (a class index,
    or the argmax of a one-hot row), as float32."""
    _, top = nn_layers.topk(pred, maxk)
    if len(label.shape) == 1 or (len(label.shape) == 2 and label.shape[-1] == 1):
        label = nn_layers.reshape(label, [-1, 1])
    else:  # one-hot
        label = nn_layers.reshape(conv_layers.argmax(label, axis=-1), [-1, 1])
    helper = LayerHelper("accuracy_correct")
    correct = helper.create_variable_for_type_inference(VarType.BOOL, stop_gradient=True)
    helper.append_op("equal", inputs={"X": [top], "Y": [tensor_layers.cast(label, top.dtype)]},
                     outputs={"Out": [correct]}, attrs={"axis": -1})
    return tensor_layers.cast(correct, "float32")


class BinaryPrecision(Metric):
    """paddle.metric.Precision (predictions rounded half up)."""

    def __init__(self, name: str = "precision", *args, **kwargs) -> None:
        self._name = name
        self.reset()

    def update(self, preds, labels) -> None:
        tp, fp, _ = _binary_counts(_host(preds), _host(labels), _round_half_up)
        self.tp += tp
        self.fp += fp

    def reset(self) -> None:
        self.tp, self.fp = 0, 0

    def accumulate(self) -> float:
        ap = self.tp + self.fp
        return float(self.tp) / ap if ap != 0 else 0.0

    def name(self) -> str:
        return self._name


class BinaryRecall(Metric):
    """paddle.metric.Recall."""

    def __init__(self, name: str = "recall", *args, **kwargs) -> None:
        self._name = name
        self.reset()

    def update(self, preds, labels) -> None:
        tp, _, fn = _binary_counts(_host(preds), _host(labels), np.rint)
        self.tp += tp
        self.fn += fn

    def reset(self) -> None:
        self.tp, self.fn = 0, 0

    def accumulate(self) -> float:
        total = self.tp + self.fn
        return float(self.tp) / total if total != 0 else 0.0

    def name(self) -> str:
        return self._name


class RocAuc(Metric):
    """paddle.metric.Auc."""

    def __init__(self, curve: str = "ROC", num_thresholds: int = 4095, name: str = "auc",
                 *args, **kwargs) -> None:
        if curve != "ROC":
            raise ValueError(f"Auc computes the ROC curve only, got curve={curve!r}")
        self._name = name
        self._hist = _AucHistogram(num_thresholds)

    def update(self, preds, labels) -> None:
        self._hist.add(_host(preds), _host(labels))

    def reset(self) -> None:
        self._hist.clear()

    def accumulate(self) -> float:
        return self._hist.area()

    def name(self) -> str:
        return self._name
