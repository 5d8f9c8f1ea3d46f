"""paddle.nn.functional.ctc_loss and paddle.nn.CTCLoss: warpctc over padded log_probs
[max_T, B, C], reduced as Paddle does ('mean' divides each loss by its label length first)."""
from __future__ import annotations

from .. import tensor as _tensor
from ..compare import equal
from ..ctc import warpctc
from . import divide, mean, sum as _sum
from .functional import REDUCTIONS
from .layer import Layer
from .search import where
from .shaping import squeeze


def ctc_loss(log_probs, labels, input_lengths, label_lengths, blank=0, reduction="mean",
             norm_by_times=False, zero_infinity=False):
    """The CTC loss of each batch row ([B] with reduction 'none'), its mean after dividing by
    the label lengths ('mean') or its sum ('sum'); zero_infinity: infinite losses become 0."""
    if reduction not in REDUCTIONS:  # Paddle asserts it
        raise AssertionError(f"ctc_loss: reduction must be one of {REDUCTIONS}, got "
                             f"{reduction!r}")
    loss = squeeze(warpctc(log_probs, labels, blank, norm_by_times, input_lengths,
                           label_lengths), [-1])
    if zero_infinity:
        infinite = equal(loss, _tensor.full_like(loss, float("inf")))  # a loss is >= 0
        loss = where(infinite, _tensor.zeros_like(loss), loss)
    if reduction == "mean":
        return mean(divide(loss, _tensor.cast(label_lengths, loss.dtype)))
    if reduction == "sum":
        return _sum(loss)
    return loss


class CTCLoss(Layer):
    """paddle.nn.CTCLoss: ctc_loss with blank, reduction and zero_infinity fixed."""

    def __init__(self, blank=0, reduction="mean", zero_infinity=False) -> None:
        super().__init__()
        self.blank, self.reduction, self.zero_infinity = blank, reduction, zero_infinity

    def forward(self, log_probs, labels, input_lengths, label_lengths, norm_by_times=False):
        return ctc_loss(log_probs, labels, input_lengths, label_lengths, self.blank,
                        self.reduction, norm_by_times=norm_by_times,
                        zero_infinity=self.zero_infinity)
