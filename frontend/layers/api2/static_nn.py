"""paddle.static.nn: the layers that create their own parameters, under 2.x names and rules."""
from __future__ import annotations

from ...dtypes import convert_dtype
from ...errors import FluidcError
from ...framework import Variable
from ...initializer import Constant, Normal
from ...param_attr import ParamAttr
from .. import nn as _nn
from . import functional as F
from ..helper import (FLOAT_DTYPES, ArgumentValueError, LayerHelper, check_dtype,
                      check_variable_and_dtype)


def fc(x, size, num_flatten_dims=1, weight_attr=None, bias_attr=None, activation=None, name=None):
    """Fully connected layer (2.x names for fluid.layers.fc)."""
    return _nn.fc(x, size, num_flatten_dims, weight_attr, bias_attr, activation, name)


def embedding(input, size, is_sparse=False, is_distributed=False, padding_idx=None,
              param_attr=None, dtype="float32"):
    """Rows of a [vocab, dim] table looked up by ids of any shape: ids.shape + [dim]
    (lookup_table_v2; 1.x's fluid.layers.embedding wants ids ending in 1)."""
    check_variable_and_dtype(input, "input", ("int64",), "embedding")
    check_dtype(convert_dtype(dtype), "dtype", FLOAT_DTYPES, "embedding")
    helper = LayerHelper("embedding")
    vocab = int(size[0])
    if padding_idx is not None and not -vocab <= padding_idx < vocab:
        raise FluidcError(f"embedding: padding_idx {padding_idx} is outside [-{vocab}, {vocab})")
    w = helper.create_parameter(ParamAttr.to_attr(param_attr), [int(d) for d in size], dtype)
    out = helper.create_variable_for_type_inference(w.dtype)
    helper.append_op("lookup_table_v2", inputs={"Ids": [input], "W": [w]}, outputs={"Out": [out]},
                     attrs={"is_sparse": is_sparse, "is_distributed": is_distributed,
                            "padding_idx": -1 if padding_idx is None else padding_idx % vocab})
    return out


def batch_norm(input, act=None, is_test=False, momentum=0.9, epsilon=1e-05, param_attr=None,
               bias_attr=None, data_layout="NCHW", in_place=False, name=None,
               moving_mean_name=None, moving_variance_name=None,
               do_model_average_for_mean_and_var=True, use_global_stats=False):
    """Batch normalization with running statistics (the 1.x layer under 2.x's signature)."""
    return _nn.batch_norm(input, act, is_test, momentum, epsilon, param_attr, bias_attr,
                          data_layout, name, moving_mean_name, moving_variance_name,
                          use_global_stats)


def _norm_params(helper: LayerHelper, channels: int, dtype, param_attr, bias_attr):
    """The [channels] scale (ones) and bias (zeros) of group_norm / instance_norm; an attr of
    False leaves that one out (None)."""
    scale = None if param_attr is False else helper.create_parameter(
        ParamAttr.to_attr(param_attr), [channels], dtype, default_initializer=Constant(1.0))
    bias = None if bias_attr is False else helper.create_parameter(
        ParamAttr.to_attr(bias_attr), [channels], dtype, is_bias=True)
    return scale, bias


def group_norm(input, groups, epsilon=1e-05, param_attr=None, bias_attr=None, act=None,
               data_layout="NCHW", name=None):
    """Group normalization with its own scale and bias parameters."""
    check_variable_and_dtype(input, "input", FLOAT_DTYPES, "group_norm")
    helper = LayerHelper("group_norm", name=name)
    scale, bias = _norm_params(helper, input.shape[1], input.dtype, param_attr, bias_attr)
    out = F.group_norm(input, groups, epsilon, scale, bias, data_layout)
    return helper.append_activation(out, act)


def instance_norm(input, epsilon=1e-05, param_attr=None, bias_attr=None, name=None):
    """Instance normalization with its own scale and bias parameters."""
    check_variable_and_dtype(input, "input", FLOAT_DTYPES, "instance_norm")
    helper = LayerHelper("instance_norm", name=name)
    scale, bias = _norm_params(helper, input.shape[1], input.dtype, param_attr, bias_attr)
    return F.instance_norm(input, weight=scale, bias=bias, eps=epsilon)


def conv3d(input, num_filters, filter_size, stride=1, padding=0, dilation=1, groups=None,
           param_attr=None, bias_attr=None, use_cudnn=True, act=None, name=None,
           data_format="NCDHW"):
    """3-D convolution (+ bias, activation); the filter is [num_filters, C / groups, *k]."""
    check_variable_and_dtype(input, "input", FLOAT_DTYPES, "conv3d")
    helper = LayerHelper("conv3d", name=name)
    F._conv_nd_input(input, 3, data_format, "conv3d")
    _check_use_cudnn(use_cudnn, "conv3d")
    c, groups = _channels(input, groups, "conv3d", data_format)
    k = F._ints(filter_size, 3, "filter_size", "conv3d")
    if min(k) <= 0 or num_filters <= 0:
        raise ArgumentValueError(f"conv3d: filter_size {k} and num_filters {num_filters} must "
                                 f"be positive")
    std = (2.0 / (k[0] * k[1] * k[2] * c)) ** 0.5
    w = helper.create_parameter(ParamAttr.to_attr(param_attr), [num_filters, c // groups] + k,
                                input.dtype, default_initializer=Normal(0.0, std))
    pre_bias = F.conv3d_op(input, w, stride, padding, dilation, groups, data_format, "conv3d",
                           {"use_cudnn": bool(use_cudnn)})
    pre_act = helper.append_bias_op(pre_bias, bias_attr, num_filters,
                                    dim_start=data_format.index("C"))
    return helper.append_activation(pre_act, act)


def _check_use_cudnn(use_cudnn, fn: str) -> None:
    if not isinstance(use_cudnn, bool):  # Paddle's words
        raise ArgumentValueError(f"{fn}: use_cudnn should be True or False, got {use_cudnn!r}")


def _channels(input, groups, fn: str, data_format: str = "NCHW") -> tuple[int, int]:
    """(input channels, groups) with the channels (where data_format puts them) known and
    split by groups."""
    c = input.shape[1 if data_format[1] == "C" else -1] if len(input.shape) >= 2 else -1
    groups = 1 if groups is None else groups
    if c <= 0 or groups <= 0 or c % groups:
        raise ArgumentValueError(f"{fn}: input {list(input.shape)} needs known channels that "
                                 f"split into groups={groups}")
    return c, groups


def _conv_transpose(n: int, input, num_filters, output_size, filter_size, padding, stride,
                    dilation, groups, param_attr, bias_attr, use_cudnn, act, name, data_format):
    fn = f"conv{n}d_transpose"
    check_variable_and_dtype(input, "input", FLOAT_DTYPES, fn)
    F._conv_nd_input(input, n, data_format, fn)
    _check_use_cudnn(use_cudnn, fn)
    if num_filters == 0:
        raise ArgumentValueError(f"{fn}: num of filters should not be 0.")
    helper = LayerHelper(fn, name=name)
    c, groups = _channels(input, groups, fn, data_format)
    stride, dilation = F._ints(stride, n, "stride", fn), F._ints(dilation, n, "dilation", fn)
    if filter_size is None:  # the filter that makes output_size (Paddle's rule)
        if output_size is None:
            raise ArgumentValueError(f"{fn}: output_size must be set when filter_size is None")
        if isinstance(output_size, Variable) or (isinstance(output_size, (list, tuple)) and any(
                isinstance(d, Variable) for d in output_size)):
            raise ArgumentValueError(f"{fn}: filter_size should not be None when output_size is "
                                     f"Tensor or contain Tensor in static graph mode.")
        pads, algo = F._padding_nd(padding, n, fn, data_format)
        spatial = [d for d, c in zip(input.shape, data_format) if c not in "NC"]
        if algo != "EXPLICIT" or min(spatial) < 0:
            raise ArgumentValueError(f"{fn}: filter_size from output_size needs explicit "
                                     f"paddings and known input dims")
        pairs = [(p, p) for p in pads] if len(pads) == n else list(zip(pads[::2], pads[1::2]))
        size = F._ints(output_size, n, "output_size", fn)
        filter_size = [(o - (d - 1) * s + lo + hi - 1) // dl + 1 for o, d, s, dl, (lo, hi)
                       in zip(size, spatial, stride, dilation, pairs)]
    k = F._ints(filter_size, n, "filter_size", fn)
    w = helper.create_parameter(ParamAttr.to_attr(param_attr), [c, num_filters // groups] + k,
                                input.dtype)
    pre_bias = F.conv_transpose_op(input, w, n, stride, padding, 0, groups, dilation,
                                   data_format, output_size, fn, {"use_cudnn": bool(use_cudnn)})
    pre_act = helper.append_bias_op(pre_bias, bias_attr, num_filters,
                                    dim_start=data_format.index("C"))
    return helper.append_activation(pre_act, act)


def conv2d_transpose(input, num_filters, output_size=None, filter_size=None, padding=0,
                     stride=1, dilation=1, groups=None, param_attr=None, bias_attr=None,
                     use_cudnn=True, act=None, name=None, data_format="NCHW"):
    """Transposed 2-D convolution (+ bias, activation); the filter is [C, num_filters / groups,
    kh, kw], from output_size when filter_size is None."""
    return _conv_transpose(2, input, num_filters, output_size, filter_size, padding, stride,
                           dilation, groups, param_attr, bias_attr, use_cudnn, act, name,
                           data_format)


def conv3d_transpose(input, num_filters, output_size=None, filter_size=None, padding=0,
                     stride=1, dilation=1, groups=None, param_attr=None, bias_attr=None,
                     use_cudnn=True, act=None, name=None, data_format="NCDHW"):
    """Transposed 3-D convolution (+ bias, activation); the filter is [C, num_filters / groups,
    kd, kh, kw], from output_size when filter_size is None."""
    return _conv_transpose(3, input, num_filters, output_size, filter_size, padding, stride,
                           dilation, groups, param_attr, bias_attr, use_cudnn, act, name,
                           data_format)


def bilinear_tensor_product(x, y, size, act=None, name=None, param_attr=None, bias_attr=None):
    """act(x W_k y^T + b_k) for k < size, with its own [size, I, J] weight and [1, size] bias."""
    helper = LayerHelper("bilinear_tensor_product", name=name)
    check_variable_and_dtype(x, "x", ("float32", "float64"), "bilinear_tensor_product")
    w = helper.create_parameter(ParamAttr.to_attr(param_attr), [size, x.shape[-1], y.shape[-1]],
                                x.dtype)
    b = helper.create_parameter(ParamAttr.to_attr(bias_attr), [1, size], x.dtype, is_bias=True)
    return helper.append_activation(F.bilinear(x, y, w, b), act)
