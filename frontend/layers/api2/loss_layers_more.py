"""The paddle.nn Layer classes of losses_more's functions (Paddle's constructor signatures and
constructor-time checks)."""
from __future__ import annotations

from ..helper import ArgumentValueError
from . import losses_more as F
from .functional import _check_reduction
from .layer import Layer


class SmoothL1Loss(Layer):
    """F.smooth_l1_loss with the constructor's reduction, delta and is_huber."""

    def __init__(self, reduction="mean", delta=1.0, is_huber=True, name=None) -> None:
        super().__init__()
        self.reduction, self.delta, self.is_huber, self.name = reduction, delta, is_huber, name

    def forward(self, input, label):
        return F.smooth_l1_loss(input, label, self.reduction, self.delta, self.is_huber,
                                self.name)


class MarginRankingLoss(Layer):
    """F.margin_ranking_loss with the constructor's margin and reduction."""

    def __init__(self, margin=0.0, reduction="mean", name=None) -> None:
        _check_reduction(reduction, "MarginRankingLoss")
        super().__init__()
        self.margin, self.reduction, self.name = margin, reduction, name

    def forward(self, input, other, label):
        return F.margin_ranking_loss(input, other, label, self.margin, self.reduction,
                                     self.name)


class HingeEmbeddingLoss(Layer):
    """F.hinge_embedding_loss with the constructor's margin and reduction."""

    def __init__(self, margin=1.0, reduction="mean", name=None) -> None:
        super().__init__()
        self.margin, self.reduction, self.name = margin, reduction, name

    def forward(self, input, label):
        return F.hinge_embedding_loss(input, label, self.margin, self.reduction, self.name)


class SoftMarginLoss(Layer):
    """F.soft_margin_loss with the constructor's reduction."""

    def __init__(self, reduction="mean", name=None) -> None:
        _check_reduction(reduction, "SoftMarginLoss")
        super().__init__()
        self.reduction, self.name = reduction, name

    def forward(self, input, label):
        return F.soft_margin_loss(input, label, self.reduction, self.name)


class PairwiseDistance(Layer):
    """F.pairwise_distance with the constructor's p, epsilon and keepdim."""

    def __init__(self, p=2.0, epsilon=1e-6, keepdim=False, name=None) -> None:
        super().__init__()
        self.p, self.epsilon, self.keepdim, self.name = p, epsilon, keepdim, name

    def forward(self, x, y):
        return F.pairwise_distance(x, y, self.p, self.epsilon, self.keepdim, self.name)


class TripletMarginLoss(Layer):
    """F.triplet_margin_loss with the constructor's margin, p, epsilon, swap and reduction."""

    def __init__(self, margin=1.0, p=2.0, epsilon=1e-06, swap=False, reduction="mean",
                 name=None) -> None:
        super().__init__()
        _check_reduction(reduction, "TripletMarginLoss")
        self.margin, self.p, self.epsilon, self.swap = margin, p, epsilon, swap
        self.reduction, self.name = reduction, name

    def forward(self, input, positive, negative):
        return F.triplet_margin_loss(input, positive, negative, self.margin, self.p,
                                     self.epsilon, self.swap, self.reduction, self.name)


class CosineEmbeddingLoss(Layer):
    """F.cosine_embedding_loss with the constructor's margin (in [-1, 1]) and reduction."""

    def __init__(self, margin=0, reduction="mean", name=None) -> None:
        if margin > 1 or margin < -1:
            raise ArgumentValueError(f"CosineEmbeddingLoss: the value of 'margin' should be in "
                                     f"the interval of [-1, 1], but received {margin}")
        _check_reduction(reduction, "CosineEmbeddingLoss")
        super().__init__()
        self.margin, self.reduction, self.name = margin, reduction, name

    def forward(self, input1, input2, label):
        return F.cosine_embedding_loss(input1, input2, label, self.margin, self.reduction,
                                       self.name)
