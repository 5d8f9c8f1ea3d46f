"""paddle.nn.functional, re-exported from the layers."""
from ..frontend.layers.api2.functional import (  # noqa: F401
    adaptive_avg_pool2d, affine_grid, alpha_dropout, avg_pool2d, bilinear, binary_cross_entropy,
    binary_cross_entropy_with_logits, conv2d, conv2d_transpose, conv3d, conv3d_transpose,
    cosine_similarity, cross_entropy, dropout, dropout2d,
    dropout3d, elu, embedding, gelu, group_norm, hardsigmoid, hardswish, instance_norm, l1_loss,
    kl_div, label_smooth, leaky_relu, linear, mish,
    log_sigmoid, log_softmax, lp_pool2d, max_pool2d, mse_loss, nll_loss, normalize, one_hot,
    pad, pixel_shuffle, relu, relu6, selu, sigmoid, silu, softmax, softmax_, batch_norm,
    layer_norm, softmax_with_cross_entropy, softplus, softsign, square_error_cost, swish, tanh,
    unfold)
from ..frontend.layers.api2.ctc import ctc_loss  # noqa: F401
from ..frontend.layers.api2.losses_more import (  # noqa: F401
    cosine_embedding_loss, hinge_embedding_loss, margin_ranking_loss, pairwise_distance,
    sigmoid_focal_loss, smooth_l1_loss, soft_margin_loss, triplet_margin_loss)
from . import functional_loss as loss  # noqa: F401,E402 (paddle.nn.functional.loss.edit_distance)
from ..frontend.layers.api2.activations_more import (  # noqa: F401
    celu, dice_loss, glu, hardshrink, hardtanh, log_loss, maxout, prelu, softshrink, tanhshrink,
    thresholded_relu)
from ..frontend.layers.api2.conv1d import (  # noqa: F401
    adaptive_avg_pool1d, adaptive_max_pool1d, avg_pool1d, conv1d, max_pool1d)


from fluidc.frontend.errors import missing_attribute as _missing_attribute  # noqa: E402

__getattr__ = _missing_attribute("fluidc.nn.functional", globals())  # an unknown name: close names, not a bare error
