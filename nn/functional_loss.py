"""paddle.nn.functional.loss: the loss functions, as Paddle's module holds them (edit_distance
is only here, not in paddle.nn.functional itself)."""
from ..frontend.layers.api2.ctc import ctc_loss  # noqa: F401
from ..frontend.layers.api2.functional import (  # noqa: F401
    binary_cross_entropy, binary_cross_entropy_with_logits, cross_entropy, kl_div, l1_loss,
    mse_loss, nll_loss, softmax_with_cross_entropy, square_error_cost)
from ..frontend.layers.api2.sequence_metric import edit_distance  # noqa: F401
from ..frontend.layers.api2.losses_more import (  # noqa: F401
    cosine_embedding_loss, hinge_embedding_loss, margin_ranking_loss, sigmoid_focal_loss,
    smooth_l1_loss, soft_margin_loss, triplet_margin_loss)
