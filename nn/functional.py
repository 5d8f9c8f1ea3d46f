"""paddle.nn.functional, re-exported from the layers."""
from ..frontend.layers.nn import (dropout, gelu, leaky_relu, relu,  # noqa: F401
                                  sigmoid, softmax, softmax_with_cross_entropy,
                                  square_error_cost, tanh)
