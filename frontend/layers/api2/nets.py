"""fluid.nets: small networks composed of layers (conv + pool, conv groups, sequence conv +
pool, gated linear units, scaled dot-product attention)."""
from __future__ import annotations

from ...errors import FluidcError
from .. import conv as _conv
from .. import nn as _nn
from .. import sequence as _seq
from . import functional as F
from . import matmul, multiply, reshape, transpose


def simple_img_conv_pool(input, num_filters, filter_size, pool_size, pool_stride, pool_padding=0,
                         pool_type="max", global_pooling=False, conv_stride=1, conv_padding=0,
                         conv_dilation=1, conv_groups=1, param_attr=None, bias_attr=None,
                         act=None, use_cudnn=True):
    """conv2d (+ act) followed by max or average pooling."""
    conv_out = _conv.conv2d(input, num_filters, filter_size, conv_stride, conv_padding,
                            conv_dilation, conv_groups, param_attr, bias_attr, use_cudnn, act)
    pool = F.max_pool2d if pool_type == "max" else F.avg_pool2d
    return pool(conv_out, pool_size, pool_stride, pool_padding)


def _per_conv(value, n: int, what: str) -> list:
    if isinstance(value, (list, tuple)):
        if len(value) != n:
            raise FluidcError(f"img_conv_group: {what} has {len(value)} entries for {n} convs")
        return list(value)
    return [value] * n


def img_conv_group(input, conv_num_filter, pool_size, conv_padding=1, conv_filter_size=3,
                   conv_act=None, param_attr=None, conv_with_batchnorm=False,
                   conv_batchnorm_drop_rate=0.0, pool_stride=1, pool_type="max",
                   use_cudnn=True):
    """A stack of conv2d (each optionally with batch_norm and dropout), then one pooling."""
    if not isinstance(conv_num_filter, (list, tuple)):
        raise FluidcError("img_conv_group: conv_num_filter must be a list of filter counts")
    n = len(conv_num_filter)
    padding = _per_conv(conv_padding, n, "conv_padding")
    size = _per_conv(conv_filter_size, n, "conv_filter_size")
    attrs = _per_conv(param_attr, n, "param_attr")
    with_bn = _per_conv(conv_with_batchnorm, n, "conv_with_batchnorm")
    drop = _per_conv(conv_batchnorm_drop_rate, n, "conv_batchnorm_drop_rate")
    tmp = input
    for i in range(n):
        tmp = _conv.conv2d(tmp, conv_num_filter[i], size[i], padding=padding[i],
                           param_attr=attrs[i], act=None if with_bn[i] else conv_act,
                           use_cudnn=use_cudnn)
        if with_bn[i]:
            tmp = _nn.batch_norm(tmp, act=conv_act)
            if abs(drop[i]) > 1e-5:
                tmp = F.dropout(tmp, p=drop[i])
    pool = F.max_pool2d if pool_type == "max" else F.avg_pool2d
    return pool(tmp, pool_size, pool_stride)


def sequence_conv_pool(input, num_filters, filter_size, param_attr=None, act="sigmoid",
                       pool_type="max", bias_attr=None):
    """sequence_conv (+ act) then sequence_pool: one row per sequence."""
    conv_out = _seq.sequence_conv(input, num_filters, filter_size, param_attr=param_attr,
                                  bias_attr=bias_attr, act=act)
    return _seq.sequence_pool(conv_out, pool_type)


def glu(input, dim=-1):
    """Gated linear unit: a * sigmoid(b) for the two halves a, b of input along dim."""
    a, b = _conv.split(input, 2, dim)
    return multiply(a, _nn.sigmoid(b))


def scaled_dot_product_attention(queries, keys, values, num_heads=1, dropout_rate=0.0):
    """Multi-head attention: softmax(q k^T / sqrt(d_k)) v, heads projected by fc when > 1."""
    if not len(queries.shape) == len(keys.shape) == len(values.shape) == 3:
        raise FluidcError("scaled_dot_product_attention: queries, keys and values must be 3-D, "
                          f"got {list(queries.shape)}, {list(keys.shape)}, {list(values.shape)}")
    if queries.shape[-1] != keys.shape[-1]:
        raise FluidcError(f"scaled_dot_product_attention: queries' hidden size "
                          f"{queries.shape[-1]} differs from keys' {keys.shape[-1]}")
    if keys.shape[-2] != values.shape[-2]:
        raise FluidcError(f"scaled_dot_product_attention: keys have {keys.shape[-2]} steps, "
                          f"values {values.shape[-2]}")
    for what, v in (("keys", keys), ("values", values)):
        if v.shape[-1] % num_heads:
            raise FluidcError(f"scaled_dot_product_attention: the hidden size of {what} "
                              f"({v.shape[-1]}) is not divisible by num_heads={num_heads}")
    if num_heads > 1:
        queries, keys, values = (_nn.fc(v, v.shape[-1], num_flatten_dims=2)
                                 for v in (queries, keys, values))

    def split_heads(x):
        if num_heads == 1:
            return x
        hidden = x.shape[-1]
        return transpose(reshape(x, [0, 0, num_heads, hidden // num_heads]), [0, 2, 1, 3])

    q, k, v = split_heads(queries), split_heads(keys), split_heads(values)
    scaled = _nn.scale(q, (keys.shape[-1] // num_heads) ** -0.5)
    product = matmul(scaled, k, transpose_y=True)
    weights = _nn.softmax(product)
    if dropout_rate:
        weights = F.dropout(weights, p=dropout_rate)
    ctx = matmul(weights, v)
    if num_heads == 1:
        return ctx
    merged = transpose(ctx, [0, 2, 1, 3])
    return reshape(merged, [0, 0, merged.shape[2] * merged.shape[3]])
