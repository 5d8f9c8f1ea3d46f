"""paddle.incubate.layers."""
from . import nn  # noqa: F401
from .nn import (batch_fc, partial_concat, partial_sum, rank_attention,  # noqa: F401
                 shuffle_batch)
