"""More of paddle.nn.functional's losses and distances (Paddle 2.x / 3.x signatures), each a
composition of existing ops, so their gradients are those ops' gradients: smooth_l1_loss,
margin_ranking_loss, hinge_embedding_loss, soft_margin_loss, pairwise_distance,
triplet_margin_loss, sigmoid_focal_loss, cosine_embedding_loss."""
from __future__ import annotations

from ...dtypes import VarType
from ...framework import Variable
from .. import activation as _act
from .. import conv as _conv
from .. import nn as _nn
from .. import tensor as _tensor
from ..helper import ArgumentValueError, check_type, check_variable_and_dtype
from . import add, minimum, multiply, subtract
from .functional import _check_reduction, _op, _reduced, binary_cross_entropy_with_logits
from .linalg import _append
from .search import where

_FLOATS = ("float32", "float64")


def _check_floats(fn: str, dtypes=_FLOATS, **args) -> None:
    for what, value in args.items():
        check_variable_and_dtype(value, what, dtypes, fn)


def _equals(x: Variable, value) -> Variable:
    """The bool tensor x == value."""
    return _op("equal", {"X": [x], "Y": [_tensor.fill_constant([1], x.dtype, value)]},
               dtype=VarType.BOOL)


def _picked(label: Variable, value, loss: Variable) -> Variable:
    """loss where label == value, 0 elsewhere."""
    return where(_equals(label, value), loss, _tensor.zeros_like(loss))


def _same_shapes(message: str, first: Variable, *others: Variable) -> None:
    if any(list(o.shape) != list(first.shape) for o in others):
        shapes = ", ".join(str(list(v.shape)) for v in (first,) + others)
        raise ArgumentValueError(f"{message} (got shapes {shapes})")


def smooth_l1_loss(input, label, reduction="mean", delta=1.0, is_huber=True, name=None):
    """Paddle's Huber form: 0.5 r^2 where |r| <= delta, delta (|r| - 0.5 delta) elsewhere, for
    r = input - label (divided by delta when not is_huber), reduced. Built as c (|r| - 0.5 c)
    with c = min(|r|, delta)."""
    _check_floats("smooth_l1_loss", ("float16", "float32", "float64", "uint16"),
                  input=input, label=label)
    _check_reduction(reduction, "smooth_l1_loss")
    residual = _nn.abs(subtract(input, label))
    c = _conv.clip(residual, 0.0, float(delta))
    loss = multiply(c, subtract(residual, _nn.scale(c, 0.5)))
    if not is_huber:
        loss = _nn.scale(loss, 1.0 / float(delta))
    return _reduced(loss, reduction)


def margin_ranking_loss(input, other, label, margin=0.0, reduction="mean", name=None):
    """relu(-label * (input - other) + margin), reduced."""
    _check_reduction(reduction, "MarginRankingLoss")
    _check_floats("margin_rank_loss", input=input, other=other, label=label)
    out = multiply(_nn.scale(label, -1.0), subtract(input, other))
    if margin != 0.0:
        out = _nn.scale(out, 1.0, float(margin))
    return _reduced(_nn.relu(out), reduction)


def hinge_embedding_loss(input, label, margin=1.0, reduction="mean", name=None):
    """input where label == 1, relu(margin - input) where label == -1, 0 elsewhere, reduced."""
    _check_reduction(reduction, "hinge_embedding_loss")
    _check_floats("hinge_embedding_loss", input=input, label=label)
    below_margin = _nn.relu(_nn.scale(input, -1.0, float(margin)))
    return _reduced(add(_picked(label, 1.0, input), _picked(label, -1.0, below_margin)),
                    reduction)


def soft_margin_loss(input, label, reduction="mean", name=None):
    """log(1 + exp(-label * input)) (label cast to input's dtype), reduced; written as Paddle
    writes it (no softplus), so it overflows where Paddle's does."""
    _check_reduction(reduction, "soft_margin_loss")
    _check_floats("soft_margin_loss", input=input)
    _check_floats("soft_margin_loss", ("int32", "int64", "float32", "float64"), label=label)
    _same_shapes("soft_margin_loss: input's shape must equal to label's shape", input, label)
    label = _tensor.cast(label, input.dtype) if label.dtype != input.dtype else label
    exp = _nn.exp(_nn.scale(multiply(label, input), -1.0))
    return _reduced(_nn.log(_nn.scale(exp, 1.0, 1.0)), reduction)


def pairwise_distance(x, y, p=2.0, epsilon=1e-6, keepdim=False, name=None):
    """The p-norm of x - y + epsilon over the last axis (one p_norm op, as Paddle appends it:
    inf / -inf the largest / smallest |.|, 0 the count of nonzeros)."""
    check_type(p, "porder", (float, int), "PairwiseDistance")
    check_type(epsilon, "epsilon", (float, int), "PairwiseDistance")
    check_type(keepdim, "keepdim", bool, "PairwiseDistance")
    _check_floats("PairwiseDistance", ("float16", "float32", "float64"), x=x, y=y)
    sub = subtract(x, y)
    if epsilon != 0.0:
        sub = _nn.scale(sub, 1.0, float(epsilon))
    return _append("p_norm", sub, {"axis": -1, "porder": float(p), "keepdim": keepdim,
                                   "asvector": False, "epsilon": 0.0}, name)


def triplet_margin_loss(input, positive, negative, margin=1.0, p=2, epsilon=1e-06, swap=False,
                        reduction="mean", name=None):
    """relu(d(input, positive) - d(input, negative) + margin) with d the pairwise_distance
    (with swap, d(input, negative) is min'ed with d(positive, negative)), reduced."""
    _check_reduction(reduction, "triplet_margin_loss")
    if margin < 0:
        raise ArgumentValueError(f"triplet_margin_loss: the margin between positive samples "
                                 f"and negative samples should be greater than 0, got {margin}")
    _check_floats("triplet_margin_loss", input=input, positive=positive, negative=negative)
    _same_shapes("triplet_margin_loss: input's shape must equal to positive's shape and "
                 "negative's shape", input, positive, negative)
    positive_dist = pairwise_distance(input, positive, p, epsilon)
    negative_dist = pairwise_distance(input, negative, p, epsilon)
    if swap:
        negative_dist = minimum(negative_dist, pairwise_distance(positive, negative, p, epsilon))
    loss = _nn.relu(_nn.scale(subtract(positive_dist, negative_dist), 1.0, float(margin)))
    return _reduced(loss, reduction)


def sigmoid_focal_loss(logit, label, normalizer=None, alpha=0.25, gamma=2.0, reduction="sum",
                       name=None):
    """alpha_t (1 - p_t)^gamma bce_with_logits(logit, label), p = sigmoid(logit),
    p_t = p label + (1 - p)(1 - label), alpha_t = alpha label + (1 - alpha)(1 - label), divided
    by normalizer when given, reduced (by default summed)."""
    _check_reduction(reduction, "sigmoid_focal_loss")
    if normalizer is not None:
        _check_floats("sigmoid_focal_loss", normalizer=normalizer)
        if len(normalizer.shape) > 1:
            raise ArgumentValueError(f"Expected zero or one dimension of normalizer in "
                                     f"sigmoid_focal_loss but got {len(normalizer.shape)}.")
    _check_floats("sigmoid_focal_loss", logit=logit, label=label)
    loss = binary_cross_entropy_with_logits(logit, label, reduction="none")
    pred = _nn.sigmoid(logit)
    not_pred, not_label = _nn.scale(pred, -1.0, 1.0), _nn.scale(label, -1.0, 1.0)
    p_t = add(multiply(pred, label), multiply(not_pred, not_label))
    alpha_t = add(_nn.scale(label, float(alpha)), _nn.scale(not_label, 1.0 - float(alpha)))
    loss = multiply(alpha_t, loss)
    loss = multiply(_act.pow(_nn.scale(p_t, -1.0, 1.0), float(gamma)), loss)
    if normalizer is not None:
        loss = _nn.elementwise_div(loss, normalizer)
    return _reduced(loss, reduction)


def cosine_embedding_loss(input1, input2, label, margin=0, reduction="mean", name=None):
    """1 - cos(input1, input2) where label == 1, relu(cos - margin) where label == -1, 0
    elsewhere (cos over the last axis, each squared norm plus 1e-11, as in Paddle), reduced."""
    if len(label.shape) != 1:
        raise ArgumentValueError(f"cosine_embedding_loss: 1D target tensor expected, "
                                 f"multi-target not supported (label shape "
                                 f"{list(label.shape)})")
    _same_shapes("cosine_embedding_loss: the shape of input tensor 1 should be equal to input "
                 "tensor 2", input1, input2)
    if len(input1.shape) > 2:
        raise ArgumentValueError(f"cosine_embedding_loss: 1D target tensor expects 1D or 2D "
                                 f"input tensors, got shape {list(input1.shape)}")
    if input1.dtype not in (VarType.FP32, VarType.FP64):
        raise ArgumentValueError(f"cosine_embedding_loss: the data type of input Variable must "
                                 f"be 'float32' or 'float64', got {input1.dtype}")
    if label.dtype not in (VarType.INT32, VarType.INT64, VarType.FP32, VarType.FP64):
        raise ArgumentValueError(f"cosine_embedding_loss: the data type of label Variable must "
                                 f"be 'int32', 'int64', 'float32', 'float64', got {label.dtype}")
    _check_reduction(reduction, "cosine_embedding_loss")

    def squared_norm(x):
        return _nn.scale(_nn.reduce_sum(_nn.square(x), dim=[-1]), 1.0, 10e-12)

    prod_sum = _nn.reduce_sum(multiply(input1, input2), dim=[-1])
    cos = _nn.elementwise_div(prod_sum, _nn.sqrt(multiply(squared_norm(input1),
                                                          squared_norm(input2))))
    pos = _nn.scale(cos, -1.0, 1.0)
    neg = _nn.relu(_nn.scale(cos, 1.0, -float(margin)))
    return _reduced(add(_picked(label, 1, pos), _picked(label, -1, neg)), reduction)
