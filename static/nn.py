"""paddle.static.nn: layers with 2.x argument names."""
from ..frontend.layers import nn as _nn
from ..frontend.layers.nn import batch_norm, embedding  # noqa: F401


def fc(x, size, num_flatten_dims=1, weight_attr=None, bias_attr=None, activation=None, name=None):
    """Fully connected layer (2.x names for fluid.layers.fc)."""
    return _nn.fc(x, size, num_flatten_dims, weight_attr, bias_attr, activation, name)
