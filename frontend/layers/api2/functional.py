"""paddle.nn.functional: the 2.x activations, losses and layers-with-given-weights, appending the
ops Paddle 3.x's static mode saves for them."""
from __future__ import annotations

import numpy as np

from ...dtypes import VarType, convert_dtype
from ...errors import FluidcError
from ...framework import Variable, default_main_program
from .. import activation as _act
from .. import conv as _conv
from .. import loss as _loss
from .. import nn as _nn
from .. import tensor as _tensor
from ..helper import (FLOAT_DTYPES, INT_DTYPES, ArgumentTypeError, ArgumentValueError,
                      LayerHelper, check_dtype, check_type, check_variable_and_dtype,
                      static_inplace)
from . import _reduce, add, multiply, reshape, subtract, transpose
from ...ops.layout import CHANNEL_FIRST, CHANNEL_LAST

# The activations whose 2.x signature is the 1.x one.
relu, sigmoid, tanh = _nn.relu, _nn.sigmoid, _nn.tanh
relu6, softsign, selu, silu, swish = _act.relu6, _act.softsign, _act.selu, _conv.silu, _conv.swish
square_error_cost = _nn.square_error_cost
softmax_with_cross_entropy = _nn.softmax_with_cross_entropy

REDUCTIONS = ("mean", "sum", "none")


def _op(op_type: str, inputs: dict, attrs: dict | None = None, dtype=None, name=None,
        slot: str = "Out") -> Variable:
    helper = LayerHelper(op_type, name=name)
    x = next(iter(inputs.values()))[0]
    out = helper.create_variable_for_type_inference(dtype if dtype is not None else x.dtype)
    helper.append_op(op_type, inputs=inputs, outputs={slot: [out]}, attrs=attrs or {})
    return out


def _check_reduction(reduction: str, fn: str) -> None:
    """Paddle's ValueError for a reduction other than 'sum', 'mean' or 'none'."""
    if reduction not in REDUCTIONS:
        raise ArgumentValueError(f"The value of 'reduction' in {fn} should be 'sum', 'mean' or "
                                 f"'none', but received {reduction}, which is not allowed.")


def _reduced(loss: Variable, reduction: str) -> Variable:
    if reduction == "mean":
        return _reduce("reduce_mean", loss, None, False, None)
    if reduction == "sum":
        return _reduce("reduce_sum", loss, None, False, None)
    return loss


# --- activations ---------------------------------------------------------------------------

def elu(x, alpha: float = 1.0, name=None):
    """x if x > 0 else alpha * (exp(x) - 1)."""
    return _act.elu(x, alpha, name)


def softplus(x, beta: float = 1.0, threshold: float = 20.0, name=None):
    """log(1 + exp(beta * x)) / beta, x itself where beta * x > threshold."""
    return _act.softplus(x, beta, threshold, name)


def mish(x, name=None):
    """x * tanh(softplus(x)) (Paddle's mish op, threshold 20)."""
    return _act.mish(x, name=name)


def log_sigmoid(x, name=None):
    """log(sigmoid(x))."""
    return _act.logsigmoid(x, name)


def hardsigmoid(x, slope: float = 0.1666667, offset: float = 0.5, name=None):
    """max(0, min(1, slope * x + offset)) with 2.x's slope of 1/6."""
    return _act.hard_sigmoid(x, slope, offset, name)


def hardswish(x, name=None):
    """x * relu6(x + 3) / 6."""
    return _conv.hard_swish(x, name=name)


def leaky_relu(x, negative_slope: float = 0.01, name=None):
    """x if x >= 0 else negative_slope * x."""
    return _nn.leaky_relu(x, negative_slope, name)


def gelu(x, approximate: bool = False, name=None):
    """Gaussian error linear unit."""
    return _nn.gelu(x, approximate, name)


def _as_dtype(x, dtype):
    return x if dtype is None or convert_dtype(dtype) == x.dtype else _tensor.cast(x, dtype)


def softmax(x, axis: int = -1, dtype=None, name=None):
    """exp(x) / sum(exp(x)) along axis (x cast to dtype first when given)."""
    check_type(x, "x", Variable, "softmax")
    return _nn.softmax(_as_dtype(x, dtype), axis=axis, name=name)


softmax_ = static_inplace(softmax, "softmax")


def log_softmax(x, axis: int = -1, dtype=None, name=None):
    """log(softmax(x)) along axis, one log_softmax op (x cast to dtype first when given). As in
    Paddle, x must be a float Variable unless a float dtype is given."""
    if dtype is None:
        check_variable_and_dtype(x, "x", FLOAT_DTYPES, "log_softmax")
    else:
        check_type(x, "x", Variable, "log_softmax")
        check_dtype(convert_dtype(dtype), "dtype", ("float32", "float64"), "log_softmax",
                    "If dtype is not None, it only support float32 or float64.")
    return _op("log_softmax", {"X": [_as_dtype(x, dtype)]}, {"axis": int(axis)}, name=name)


# --- layers with given weights -------------------------------------------------------------

def linear(x, weight, bias=None, name=None):
    """x @ weight (+ bias): matmul_v2 and elementwise_add."""
    out = _op("matmul_v2", {"X": [x], "Y": [weight]}, {"trans_x": False, "trans_y": False},
              name=name)
    return out if bias is None else add(out, bias)


def bilinear(x1, x2, weight, bias=None, name=None):
    """out[n, k] = x1[n] @ weight[k] @ x2[n] (+ bias[k]), weight [K, I, J]: one matmul of x1 by
    the weights side by side ([I, K * J]), then each block times x2 summed over J."""
    check_variable_and_dtype(x1, "x", ("float32", "float64"), "bilinear")
    check_variable_and_dtype(x2, "y", ("float32", "float64"), "bilinear")
    k, i, j = weight.shape
    if x1.shape[-1] != i or x2.shape[-1] != j:
        raise ArgumentValueError(f"bilinear: inputs {list(x1.shape)} and {list(x2.shape)} do "
                                 f"not fit weight {list(weight.shape)}")
    side = reshape(transpose(weight, [1, 0, 2]), [i, k * j])
    blocks = reshape(linear(x1, side), [0, k, j])
    out = _reduce("reduce_sum", multiply(blocks, reshape(x2, [0, 1, j])), [2], False, None)
    return out if bias is None else add(out, reshape(bias, [1, k]))


def embedding(x, weight, padding_idx=None, max_norm=None, norm_type=2.0, sparse=False,
              scale_grad_by_freq=False, name=None):
    """Rows of weight [vocab, dim] picked by ids of any shape: ids.shape + [dim]."""
    check_variable_and_dtype(x, "input", INT_DTYPES, "embedding")
    if max_norm is not None or scale_grad_by_freq:
        raise FluidcError("embedding: max_norm and scale_grad_by_freq are not supported")
    vocab = weight.shape[0]
    if padding_idx is not None and not -vocab <= padding_idx < vocab:
        raise FluidcError(f"embedding: padding_idx {padding_idx} is outside [-{vocab}, {vocab})")
    pad = -1 if padding_idx is None else padding_idx % vocab
    return _op("lookup_table_v2", {"Ids": [x], "W": [weight]},
               {"padding_idx": pad, "is_sparse": bool(sparse)}, dtype=weight.dtype, name=name)


_PAD_FORMATS = {3: ("NCL", "NLC"), 4: ("NCHW", "NHWC"), 5: ("NCDHW", "NDHWC")}
# rank -> (the dims a 3-D / 4-D x is unsqueezed at to pad it as 5-D: channels first, last)
_PAD_UNSQUEEZED = {3: ([3, 4], [2, 3]), 4: ([2], [1]), 5: ([], [])}


def pad(x, pad, mode="constant", value=0.0, data_format=None, pad_from_left_axis=True,
        name=None):
    """paddle.nn.functional.pad, as Paddle 3.3.1 appends it: a constant pad whose list is not
    2 * (rank - 2) long pads every dim (the `pad` op; the list, zero-filled to 2 * rank, runs
    from the last dim unless it covers every dim and pad_from_left_axis); otherwise the
    spatial dims of a 3-D / 4-D / 5-D x by [left, right(, top, bottom(, front, back))] (a list
    or an int Variable) in mode constant / reflect / replicate / circular: the pad3d op, a 3-D
    or 4-D x unsqueezed to 5-D around it."""
    assert mode in ("reflect", "replicate", "constant", "circular"), (
        f"mode should be one of constant, reflect, replicate, circular, but got {mode}.")
    if not isinstance(x, Variable):
        raise ArgumentValueError(f"pad: x must be a Tensor, got {type(x).__name__}")
    ndim = len(x.shape)
    if mode == "constant" and isinstance(pad, (list, tuple)) and len(pad) != (ndim - 2) * 2:
        return _pad_every_dim(x, [int(p) for p in pad], value, pad_from_left_axis, name)
    assert ndim in _PAD_FORMATS, f"input tensor dimension must be in [3, 4, 5] but got {ndim}"
    if data_format is None:
        data_format = _PAD_FORMATS[ndim][0]
    data_format = data_format.upper()
    assert data_format in ("NCL", "NCHW", "NCDHW", "NLC", "NHWC", "NDHWC"), (
        f"data_format should be in one of [NCL, NCHW, NCDHW, NLC, NHWC, NDHWC], but got "
        f"{data_format}")
    assert data_format in _PAD_FORMATS[ndim], (
        f"input tensor dimension is {ndim}, it's data format should be in "
        f"{list(_PAD_FORMATS[ndim])} but got {data_format}")
    check_variable_and_dtype(x, "x", ("float16", "bfloat16", "float32", "float64", "int32",
                                      "int64"), "pad")
    channels_last = data_format in ("NLC", "NHWC", "NDHWC")
    unsqueezed = _PAD_UNSQUEEZED[ndim][channels_last]
    inputs, attrs = {}, {"mode": mode, "value": float(np.float32(value)),
                         "data_format": "NDHWC" if channels_last else "NCDHW"}
    if isinstance(pad, Variable):  # Paddle's: zeros for the dims added, joined to pad
        pad.stop_gradient = True
        if ndim == 3:
            pad = _tensor.concat([_tensor.fill_constant([4], "int32", 0), pad], 0)
        elif ndim == 4:
            pad = _tensor.concat([pad, _tensor.fill_constant([2], "int32", 0)], 0)
        inputs["Paddings"], attrs["paddings"] = [pad], []
    else:
        pads = [int(p) for p in pad]
        if len(pads) != 2 * (ndim - 2):
            raise ArgumentValueError(f"pad: a {mode} pad of a {ndim}-D input takes "
                                     f"{2 * (ndim - 2)} values (its spatial dims), got {pad!r}")
        attrs["paddings"] = [0, 0, 0, 0] + pads if ndim == 3 else pads + [0, 0] * (ndim == 4)
    if unsqueezed:
        x = _conv.unsqueeze(x, unsqueezed)
    helper = LayerHelper("pad3d", name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op("pad3d", inputs={"X": [x], **inputs}, outputs={"Out": [out]}, attrs=attrs)
    return _conv.squeeze(out, unsqueezed) if unsqueezed else out


def _pad_every_dim(x, pad: list[int], value, pad_from_left_axis: bool, name) -> Variable:
    """F.pad's constant pad of every dim: the `pad` op."""
    ndim = len(x.shape)
    paddings = pad + [0] * (2 * ndim - len(pad))
    if not (len(pad) == 2 * ndim and pad_from_left_axis):  # the last dim's pair first
        paddings = [paddings[i - 1] if i % 2 == 1 else paddings[i + 1]
                    for i in range(2 * ndim - 1, -1, -1)]
    check_variable_and_dtype(x, "x", ("float16", "float32", "float64", "int32", "int64",
                                      "complex64", "complex128", "uint16"), "pad")
    check_type(value, "pad_value", (float, int), "pad")
    helper = LayerHelper("pad", name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op("pad", inputs={"X": [x]}, outputs={"Out": [out]},
                     attrs={"paddings": paddings, "pad_value": float(value)})
    return out


def kl_div(input, label, reduction="mean", log_target=False, name=None):
    """Kullback-Leibler divergence of log-probabilities `input` from `label` (Paddle's
    kldiv_loss op): label * (log(label) - input), reduced by none / batchmean / mean / sum."""
    if reduction not in ("none", "batchmean", "mean", "sum"):
        raise ArgumentValueError(f"The value of 'reduction' in kl_div should be 'none', "
                                 f"'batchmean', 'mean' or 'sum', but received {reduction}.")
    check_variable_and_dtype(input, "input", ("float32", "float64"), "kl_div")
    check_variable_and_dtype(label, "label", ("float32", "float64"), "kl_div")
    helper = LayerHelper("kldiv_loss", name=name)
    loss = helper.create_variable_for_type_inference(input.dtype)
    helper.append_op("kldiv_loss", inputs={"X": [input], "Target": [label]},
                     outputs={"Loss": [loss]},
                     attrs={"reduction": reduction, "log_target": bool(log_target)})
    return loss


def _check_upscale_factor(upscale_factor) -> None:
    """Paddle's pixel_shuffle checks: an int (TypeError), larger than 0 (ValueError)."""
    if isinstance(upscale_factor, bool) or not isinstance(upscale_factor, int):
        raise ArgumentTypeError(f"upscale factor must be int type, got "
                                f"{type(upscale_factor).__name__}")
    if upscale_factor <= 0:
        raise ArgumentValueError(f"upscale_factor should be larger than 0, but received "
                                 f"{upscale_factor}")


def _check_pixel_shuffle_format(data_format) -> None:
    if data_format not in ("NCHW", "NHWC"):
        raise ArgumentValueError(f"Attr(data_format) should be 'NCHW' or 'NHWC'. Received "
                                 f"Attr(data_format): {data_format}.")


def pixel_shuffle(x, upscale_factor, data_format="NCHW", name=None):
    """[N, C * r^2, H, W] -> [N, C, H * r, W * r] (Paddle's pixel_shuffle op)."""
    _check_pixel_shuffle_format(data_format)
    check_variable_and_dtype(x, "x", ("float16", "bfloat16", "float32", "float64"),
                             "pixel_shuffle")
    _check_upscale_factor(upscale_factor)
    helper = LayerHelper("pixel_shuffle", name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op("pixel_shuffle", inputs={"X": [x]}, outputs={"Out": [out]},
                     attrs={"upscale_factor": upscale_factor, "data_format": data_format})
    return out


def unfold(x, kernel_sizes, strides=1, paddings=0, dilations=1, name=None):
    """paddle.nn.functional.unfold (im2col): [N, C, H, W] -> [N, C * kh * kw, L]."""
    return _nn.unfold(x, kernel_sizes, strides, paddings, dilations, name)


def affine_grid(theta, out_shape, align_corners=True, name=None):
    """paddle.nn.functional.affine_grid: the [N, H, W, 2] (or [N, D, H, W, 3]) grid of the
    affine transforms theta ([N, 2, 3] or [N, 3, 4]) over out_shape ([N, C, H, W] or
    [N, C, D, H, W]: ints, or an int32 Tensor read when the program runs)."""
    return _nn.affine_grid(theta, out_shape, name, align_corners)


def label_smooth(label, prior_dist=None, epsilon=0.1, name=None):
    """(1 - epsilon) * label + epsilon / K, or + epsilon * prior_dist ([1, K])."""
    return _loss.label_smooth(label, prior_dist, epsilon, name=name)


def one_hot(x, num_classes, name=None):
    """float32 one-hot vectors: x.shape + [num_classes] (an int, or an int Variable)."""
    return _loss.one_hot_op("one_hot_v2", x, num_classes, "num_classes", name=name)


def _conv_bias(out, bias, data_format: str):
    """out + bias along the channel dim of data_format (NCHW, NHWC, NCDHW, NDHWC)."""
    if bias is None:
        return out
    shape = [1] * len(data_format)
    shape[data_format.index("C")] = bias.shape[0]
    return add(out, reshape(bias, shape))


def conv2d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1,
           data_format="NCHW", name=None):
    """2-D convolution of x by a given [out, in / groups, kh, kw] weight (+ bias)."""
    _conv._check_format(data_format, "conv2d")
    paddings, algo = _conv._padding(padding, "conv2d", data_format)
    helper = LayerHelper("conv2d", name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op("conv2d", inputs={"Input": [x], "Filter": [weight]}, outputs={"Output": [out]},
                     attrs={"strides": _conv._pair(stride, "stride", "conv2d"),
                            "paddings": paddings, "padding_algorithm": algo,
                            "dilations": _conv._pair(dilation, "dilation", "conv2d"),
                            "groups": int(groups), "data_format": data_format})
    return _conv_bias(out, bias, data_format)


def _ints(v, n: int, what: str, fn: str) -> list[int]:
    """An int or n ints, as n ints."""
    v = list(v) if isinstance(v, (list, tuple)) else [v] * n
    if len(v) != n:
        raise ArgumentValueError(f"{fn}: {what} must be an int or {n} ints, got {v}")
    return [int(d) for d in v]


def _padding_nd(padding, n: int, fn: str, data_format: str) -> tuple[list[int], str]:
    """(paddings, padding_algorithm) of an n-D conv: an int, n ints, 2n ints (before, after per
    dim), one [before, after] pair per dim of the data_format input (those of the batch and
    channel dims [0, 0]) or 'SAME' / 'VALID'."""
    if isinstance(padding, str):
        if padding.upper() not in ("SAME", "VALID"):
            raise ArgumentValueError(f"{fn}: padding {padding!r} must be 'SAME', 'VALID' or "
                                     f"ints")
        return [0] * n, padding.upper()
    p = list(padding) if isinstance(padding, (list, tuple)) else [padding] * n
    if len(p) == n + 2 and all(isinstance(d, (list, tuple)) for d in p):
        spatial = [i for i, c in enumerate(data_format) if c not in "NC"]
        if any(list(d) != [0, 0] for i, d in enumerate(p) if i not in spatial):
            raise ArgumentValueError(f"{fn}: non-zero padding {padding} in the batch or channel "
                                     f"dims of {data_format} data")
        p = [d for i in spatial for d in p[i]]
    if len(p) not in (n, 2 * n) or not all(isinstance(d, int) and d >= 0 for d in p):
        raise ArgumentValueError(f"{fn}: padding must be an int or {n} or {2 * n} non-negative "
                                 f"ints, got {padding!r}")
    return p, "EXPLICIT"


_CHANNEL_FIRST, _CHANNEL_LAST = CHANNEL_FIRST, CHANNEL_LAST


def _conv_nd_input(x, n: int, data_format: str, fn: str) -> None:
    check_variable_and_dtype(x, "input", ("float16", "float32", "float64"), fn)
    if data_format not in (_CHANNEL_FIRST[n], _CHANNEL_LAST[n]):
        raise ArgumentValueError(f"{fn}: data_format must be {_CHANNEL_FIRST[n]!r} or "
                                 f"{_CHANNEL_LAST[n]!r}, got {data_format!r}")
    if len(x.shape) != n + 2:
        raise ArgumentValueError(f"{fn}: input must be {n + 2}-D ({data_format}), got shape "
                                 f"{list(x.shape)}")


def conv3d_op(x, weight, stride, padding, dilation, groups, data_format, fn: str, attrs=None):
    """The conv3d op of x (NCDHW or NDHWC) by weight [out, in / groups, kd, kh, kw], arguments
    checked."""
    _conv_nd_input(x, 3, data_format, fn)
    paddings, algo = _padding_nd(padding, 3, fn, data_format)
    helper = LayerHelper("conv3d")
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op("conv3d", inputs={"Input": [x], "Filter": [weight]},
                     outputs={"Output": [out]},
                     attrs={"strides": _ints(stride, 3, "stride", fn), "paddings": paddings,
                            "padding_algorithm": algo,
                            "dilations": _ints(dilation, 3, "dilation", fn),
                            "groups": int(groups), "data_format": data_format, **(attrs or {})})
    return out


def conv3d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1,
           data_format="NCDHW", name=None):
    """3-D convolution of x (NCDHW or NDHWC) by a given [out, in / groups, kd, kh, kw] weight
    (+ bias)."""
    out = conv3d_op(x, weight, stride, padding, dilation, groups, data_format, "conv3d")
    return _conv_bias(out, bias, data_format)


def conv_transpose_op(x, weight, n: int, stride, padding, output_padding, groups, dilation,
                      data_format, output_size, fn: str, attrs=None):
    """The conv{n}d_transpose op of x (channel-first or -last) by weight [in, out / groups,
    *kernel]."""
    _conv_nd_input(x, n, data_format, fn)
    paddings, algo = _padding_nd(padding, n, fn, data_format)
    if output_size is not None and output_padding:
        raise ArgumentValueError(f"{fn}: output_padding and output_size cannot both be given")
    helper = LayerHelper(f"conv{n}d_transpose")
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op(f"conv{n}d_transpose", inputs={"Input": [x], "Filter": [weight]},
                     outputs={"Output": [out]},
                     attrs={"strides": _ints(stride, n, "stride", fn), "paddings": paddings,
                            "padding_algorithm": algo,
                            "dilations": _ints(dilation, n, "dilation", fn),
                            "output_padding": (_ints(output_padding, n, "output_padding", fn)
                                               if output_padding else []),
                            "output_size": _output_size(output_size, n, fn),
                            "groups": int(groups), "data_format": data_format, **(attrs or {})})
    return out


def _output_size(size, n: int, fn: str):
    """A transposed conv's output_size attribute as Paddle's layers write it: [] (none), n
    ints, or for conv2d_transpose given Tensors a variable attribute (var_attrs.py): a [2]
    int Tensor as is (VAR), a [1] one for both dims, or a list holding Tensors, its ints as
    [1] int32 constants (VARS)."""
    if size is None:
        return []
    if isinstance(size, (list, tuple)) and any(isinstance(d, Variable) for d in size):
        if n != 2:
            raise ArgumentValueError(f"{fn}: output_size should be int, or list, tuple of ints")
        vars_ = [d if isinstance(d, Variable) else
                 _tensor.fill_constant([1], "int32", int(d), force_cpu=True) for d in size]
        for v in vars_:
            v.stop_gradient = True
        return vars_
    if not isinstance(size, Variable):
        return _ints(size, n, "output_size", fn)
    if n != 2:
        raise ArgumentValueError(f"{fn}: output_size should be int, or list, tuple of ints")
    check_dtype(size.dtype, "output_size", ("int32", "int64"), fn)
    if len(size.shape) != 1 or size.shape[0] not in (1, 2):
        raise ArgumentValueError(f"{fn}: output_size must contain one or two integers, got a "
                                 f"Tensor of shape {list(size.shape)}")
    return [size, size] if size.shape[0] == 1 else size


def conv2d_transpose(x, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1, data_format="NCHW", output_size=None, name=None):
    """Transposed 2-D convolution of x (NCHW or NHWC) by a given [in, out / groups, kh, kw]
    weight (+ bias)."""
    out = conv_transpose_op(x, weight, 2, stride, padding, output_padding, groups, dilation,
                            data_format, output_size, "conv2d_transpose")
    return _conv_bias(out, bias, data_format)


def conv3d_transpose(x, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1, data_format="NCDHW", output_size=None, name=None):
    """Transposed 3-D convolution of x (NCDHW or NDHWC) by a given [in, out / groups, kd, kh,
    kw] weight (+ bias)."""
    out = conv_transpose_op(x, weight, 3, stride, padding, output_padding, groups, dilation,
                            data_format, output_size, "conv3d_transpose")
    return _conv_bias(out, bias, data_format)


def _pool_attrs(kind: str, kernel_size, stride, padding, ceil_mode, exclusive,
                data_format) -> dict:
    """pool2d's attributes, the arguments checked in Paddle's order (each bad one a ValueError)."""
    fn = f"{kind}_pool2d"
    _conv._check_format(data_format, fn)
    k = _conv._pair(kernel_size, "kernel_size", fn)
    s = k if stride is None else _conv._pair(stride, "stride", fn)
    if min(k + s) <= 0:
        raise ArgumentValueError(f"{fn}: kernel_size {k} and stride {s} must be positive")
    paddings, algo = _conv._padding(padding, fn, data_format)
    if algo == "VALID" and ceil_mode:
        raise ArgumentValueError(f"{fn}: padding 'VALID' takes no ceil_mode (got True)")
    return {"pooling_type": kind, "ksize": k, "strides": s, "paddings": paddings,
            "padding_algorithm": algo, "global_pooling": False, "adaptive": False,
            "ceil_mode": bool(ceil_mode), "exclusive": bool(exclusive),
            "data_format": data_format, "use_cudnn": True}


def max_pool2d(x, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False,
               data_format="NCHW", name=None):
    """Max over kernel_size windows (stride defaults to kernel_size). With return_mask, also
    each maximum's position h * W + w in its input plane (max_pool2d_with_index, NCHW only;
    Paddle's op takes symmetric explicit paddings, 'SAME' / 'VALID' as zero padding)."""
    attrs = _pool_attrs("max", kernel_size, stride, padding, ceil_mode, True, data_format)
    if not return_mask:
        return _op("pool2d", {"X": [x]}, attrs, name=name)
    if data_format == "NHWC":
        raise ArgumentValueError("max_pool2d: return_mask=True takes NCHW data only")
    p = attrs["paddings"] if attrs["padding_algorithm"] == "EXPLICIT" else [0, 0]
    if len(p) == 4:
        if p[0] != p[1] or p[2] != p[3]:
            raise ArgumentValueError(f"max_pool2d: return_mask=True takes the same padding "
                                     f"before and after each dim, got {p}")
        p = [p[0], p[2]]
    helper = LayerHelper("max_pool2d_with_index", name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    mask = helper.create_variable_for_type_inference(VarType.INT32, stop_gradient=True)
    helper.append_op("max_pool2d_with_index", inputs={"X": [x]},
                     outputs={"Out": [out], "Mask": [mask]},
                     attrs={"ksize": attrs["ksize"], "strides": attrs["strides"], "paddings": p,
                            "global_pooling": False, "adaptive": False,
                            "ceil_mode": bool(ceil_mode)})
    return out, mask


def avg_pool2d(x, kernel_size, stride=None, padding=0, ceil_mode=False, exclusive=True,
               divisor_override=None, data_format="NCHW", name=None):
    """Average over kernel_size windows (padding excluded from the count when exclusive); with
    divisor_override, that average times kh * kw / divisor_override, as Paddle computes it."""
    attrs = _pool_attrs("avg", kernel_size, stride, padding, ceil_mode, exclusive, data_format)
    out = _op("pool2d", {"X": [x]}, attrs, name=None if divisor_override else name)
    if divisor_override is None:
        return out
    check_type(divisor_override, "divisor_override", (int, float), "avg_pool2d")
    if divisor_override <= 0:
        raise ArgumentValueError(f"avg_pool2d: divisor_override must be positive, got "
                                 f"{divisor_override}")
    kh, kw = attrs["ksize"]
    return _nn.scale(out, float(kh * kw) / divisor_override, name=name)


def lp_pool2d(x, norm_type, kernel_size, stride=None, padding=0, ceil_mode=False,
              data_format="NCHW", name=None):
    """(sum of x ** norm_type over each window) ** (1 / norm_type): the window sums are an
    inclusive average pool of x ** norm_type with divisor 1; norm_type inf is max pooling."""
    check_type(norm_type, "norm_type", (int, float), "lp_pool2d")
    if norm_type == float("inf"):
        return max_pool2d(x, kernel_size, stride, padding, ceil_mode=ceil_mode,
                          data_format=data_format, name=name)
    if norm_type == 0:
        raise ArgumentValueError("lp_pool2d: norm_type must not be 0")
    total = avg_pool2d(_act.pow(x, float(norm_type)), kernel_size, stride, padding, ceil_mode,
                       exclusive=False, divisor_override=1, data_format=data_format)
    return _act.pow(total, 1.0 / norm_type, name=name)


def adaptive_avg_pool2d(x, output_size, data_format="NCHW", name=None):
    """Average pooling to an output_size map, windows spread evenly."""
    _conv._check_format(data_format, "adaptive_avg_pool2d")
    size = _conv._pair(output_size, "output_size", "adaptive_avg_pool2d")
    return _op("pool2d", {"X": [x]}, {
        "pooling_type": "avg", "ksize": size, "strides": [1, 1], "paddings": [0, 0],
        "padding_algorithm": "EXPLICIT", "global_pooling": False, "adaptive": True,
        "ceil_mode": False, "exclusive": True, "data_format": data_format}, name=name)


def dropout(x, p=0.5, axis=None, training=True, mode="upscale_in_train", name=None):
    """Zero elements with probability p while training (whole slices along `axis` when given)."""
    # Paddle's checks, in its order (p == 0 returns x before x is looked at).
    check_type(p, "p", (int, float), "dropout")
    if p == 0:
        return x
    if not 0 <= p <= 1:
        raise ArgumentValueError(f"dropout: p must be in [0, 1], got {p!r}")
    if mode not in ("upscale_in_train", "downscale_in_infer"):
        raise ArgumentValueError(f"dropout: mode must be 'upscale_in_train' or "
                                 f"'downscale_in_infer', got {mode!r}")
    if axis is not None:
        check_type(axis, "axis", (int, list, tuple), "dropout")
    check_variable_and_dtype(x, "x", ("float16", "bfloat16", "float32", "float64"), "dropout")
    if axis is None:
        seed = default_main_program().random_seed or None
        impl = "downgrade_in_infer" if mode == "downscale_in_infer" else mode
        helper = LayerHelper("dropout", name=name)
        out = helper.create_variable_for_type_inference(x.dtype)
        mask = helper.create_variable_for_type_inference(VarType.UINT8, stop_gradient=True)
        helper.append_op("dropout", inputs={"X": [x]}, outputs={"Out": [out], "Mask": [mask]},
                         attrs={"dropout_prob": float(p), "is_test": not training,
                                "fix_seed": seed is not None, "seed": seed or 0,
                                "dropout_implementation": impl})
        return out
    return _dropout_along(x, float(p), axis, training, mode)


def _dropout_along(x, p: float, axis, training: bool, mode: str):
    """Dropout of whole slices: one uniform draw per index of the `axis` dims."""
    if not training:
        return _nn.scale(x, 1.0 - p) if mode == "downscale_in_infer" else x
    if p == 1.0:
        return _nn.scale(x, 0.0)
    axes = [axis] if isinstance(axis, int) else list(axis)
    if len(axes) > len(x.shape) or min(axes) < 0 or max(axes) >= len(x.shape):
        raise ArgumentValueError(f"dropout: axis {axis} must be at most {len(x.shape)} axes "
                                 f"in [0, {len(x.shape)})")
    mask_shape = [x.shape[i] if i in axes else 1 for i in range(len(x.shape))]
    if any(d < 0 for d in mask_shape):  # dims known when the program runs, as Paddle takes them
        dims = _tensor.shape(x)
        mask_shape = [dims[i] if d < 0 else d for i, d in enumerate(mask_shape)]
    scaled = _nn.scale(x, 1.0 / (1.0 - p)) if mode == "upscale_in_train" else x
    return multiply(scaled, _tensor.cast(_keep_mask(mask_shape, p), x.dtype))


def _keep_mask(shape, p: float) -> Variable:
    """A bool tensor of `shape`, each element True with probability 1 - p (uniform >= p)."""
    draw = _tensor.uniform_random(shape, "float32", 0.0, 1.0)
    return _op("greater_equal", {"X": [draw], "Y": [_tensor.fill_constant([1], "float32", p)]},
               dtype=VarType.BOOL)


def _channel_dropout(fn: str, rank: int, formats: dict):
    def dropout_nd(x, p=0.5, training=True, data_format=next(iter(formats)), name=None):
        if len(x.shape) != rank:
            raise ArgumentValueError(f"{fn}: x must be {rank}-D, but '{x.name}' has shape "
                                     f"{list(x.shape)}")
        if data_format not in formats:
            raise ArgumentValueError(f"{fn}: data_format must be one of {list(formats)}, got "
                                     f"{data_format!r}")
        return dropout(x, p, axis=formats[data_format], training=training,
                       mode="upscale_in_train", name=name)
    dropout_nd.__name__ = fn
    dropout_nd.__doc__ = (f"paddle.nn.functional.{fn}: whole channels of a {rank}-D x zeroed "
                          f"with probability p while training (dropout over batch and channel).")
    return dropout_nd


dropout2d = _channel_dropout("dropout2d", 4, {"NCHW": [0, 1], "NHWC": [0, 3]})
dropout3d = _channel_dropout("dropout3d", 5, {"NCDHW": [0, 1], "NDHWC": [0, 4]})

# SELU's constants: alpha_dropout keeps a SELU network's zero mean and unit variance.
_SELU_ALPHA, _SELU_SCALE = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946


def alpha_dropout(x, p=0.5, training=True, name=None):
    """paddle.nn.functional.alpha_dropout: dropped elements take SELU's negative saturation,
    then an affine map (a, b) restores the mean and variance."""
    check_type(p, "p", (int, float), "alpha_dropout")
    if not 0 <= p <= 1:
        raise ArgumentValueError(f"alpha_dropout: p must be in [0, 1], got {p!r}")
    check_variable_and_dtype(x, "x", ("float16", "float32", "float64"), "alpha_dropout")
    if not training:
        return x
    if p == 1:
        return _nn.scale(x, 0.0)
    if any(d < 0 for d in x.shape):
        raise FluidcError(f"alpha_dropout: the dims of x {list(x.shape)} must be known")
    alpha_p = -_SELU_ALPHA * _SELU_SCALE
    a = ((1 - p) * (1 + p * alpha_p ** 2)) ** -0.5
    b = -a * alpha_p * p
    keep = _tensor.cast(_keep_mask(list(x.shape), float(p)), x.dtype)
    dropped = _nn.scale(keep, -alpha_p, bias=alpha_p)  # alpha_p where dropped, 0 where kept
    return _nn.scale(add(multiply(x, keep), dropped), a, bias=b, name=name)


# --- losses --------------------------------------------------------------------------------

def mse_loss(input, label, reduction="mean", name=None):
    """(input - label)^2, reduced."""
    _check_reduction(reduction, "mse_loss")
    check_variable_and_dtype(input, "input", ("float32", "float64"), "mse_loss")
    check_variable_and_dtype(label, "label", ("float32", "float64"), "mse_loss")
    return _reduced(_nn.square(subtract(input, label)), reduction)


def l1_loss(input, label, reduction="mean", name=None):
    """|input - label|, reduced."""
    _check_reduction(reduction, "l1_loss")
    return _reduced(_nn.abs(subtract(input, label)), reduction)


def binary_cross_entropy(input, label, weight=None, reduction="mean", name=None):
    """-(label log(input) + (1 - label) log(1 - input)) on probabilities (bce_loss)."""
    _check_reduction(reduction, "binary_cross_entropy")
    loss = _op("bce_loss", {"X": [input], "Label": [label]})
    return _reduced(loss if weight is None else multiply(loss, weight), reduction)


def binary_cross_entropy_with_logits(logit, label, weight=None, reduction="mean",
                                     pos_weight=None, name=None):
    """The logistic loss of logits (sigmoid_cross_entropy_with_logits), reduced."""
    _check_reduction(reduction, "binary_cross_entropy_with_logits")
    for value, what in ((logit, "logit"), (label, "label"), (pos_weight, "pos_weight")):
        if value is not None:
            check_variable_and_dtype(value, what, ("float32", "float64"),
                                     "binary_cross_entropy_with_logits")
    ins = {"X": [logit], "Label": [label]}
    if pos_weight is not None:  # the op's weight of a positive label: as Paddle forms it
        one = _tensor.fill_constant([1], logit.dtype, 1.0)
        ins["pos_weight"] = [add(multiply(label, subtract(pos_weight, one)), one)]
    loss = _op("sigmoid_cross_entropy_with_logits", ins,
               {"ignore_index": -100, "normalize": False})
    return _reduced(loss if weight is None else multiply(loss, weight), reduction)


def nll_loss(input, label, weight=None, ignore_index=-100, reduction="mean", name=None):
    """-input[label] (log-probabilities), weighted; mean divides by the total weight."""
    _check_reduction(reduction, "nll_loss")
    rank = len(input.shape)
    if rank < 2:
        raise ArgumentValueError(f"Expected 2 or more dimensions (got {rank}): nll_loss's input "
                                 f"is [N, C, ...], got {list(input.shape)}")
    if input.shape[1] == 0:
        raise ArgumentValueError(f"Expected 1 or more classes (got num classes "
                                 f"{input.shape[1]})")
    spatial = list(label.shape)
    if rank > 2:  # classes last, rows flattened: the op is [N, C]
        input = reshape(_nn.transpose(input, [0] + list(range(2, rank)) + [1]),
                        [-1, input.shape[1]])
        label = reshape(label, [-1])
    helper = LayerHelper("nll_loss", name=name)
    out = helper.create_variable_for_type_inference(input.dtype)
    total = helper.create_variable_for_type_inference(input.dtype, stop_gradient=True)
    ins = {"X": [input], "Label": [label]}
    if weight is not None:
        ins["Weight"] = [weight]
    helper.append_op("nll_loss", inputs=ins, outputs={"Out": [out], "Total_weight": [total]},
                     attrs={"ignore_index": int(ignore_index), "reduction": reduction})
    return reshape(out, spatial) if rank > 2 and reduction == "none" else out


def cross_entropy(input, label=None, weight=None, ignore_index=-100, reduction="mean",
                  soft_label=False, axis=-1, use_softmax=True, label_smoothing=0.0, name=None,
                  *, target=None):
    """2.x cross entropy: softmax_with_cross_entropy, class weights and Paddle's reductions.
    `target` is Paddle's alias of label. With label_smoothing eps the labels (one-hot vectors
    along a new last axis when given as class ids, as Paddle makes them) become soft:
    (1 - eps) * label + eps / classes."""
    label = _label_or_target(label, target, "cross_entropy")
    _check_reduction(reduction, "cross_entropy")
    if label_smoothing:
        label, soft_label = _smoothed(input, label, axis, float(label_smoothing)), True
    if soft_label and ignore_index > 0:
        raise FluidcError(f"cross_entropy: ignore_index must be -100 with soft labels, got "
                          f"{ignore_index}")
    rank = len(input.shape)
    axis = axis % rank
    squeezed = len(label.shape) == rank - 1
    if squeezed:
        label = _conv.unsqueeze(label, [axis])
    elif len(label.shape) != rank:
        raise FluidcError(f"cross_entropy: label {list(label.shape)} must have the rank of input "
                          f"{list(input.shape)} or one less")
    helper = LayerHelper("softmax_with_cross_entropy", name=None)
    sm = helper.create_variable_for_type_inference(input.dtype)
    loss = helper.create_variable_for_type_inference(input.dtype)
    helper.append_op("softmax_with_cross_entropy", inputs={"Logits": [input], "Label": [label]},
                     outputs={"Softmax": [sm], "Loss": [loss]},
                     attrs={"soft_label": soft_label, "ignore_index": int(ignore_index),
                            "numeric_stable_mode": True, "axis": axis,
                            "use_softmax": use_softmax})
    w = None
    if weight is not None:
        w = _class_weights(weight, label, input, axis, soft_label, ignore_index)
        loss = multiply(loss, w)
    if reduction == "sum":
        return _reduce("reduce_sum", loss, None, False, name)
    if reduction == "mean":
        return _weighted_mean(loss, label, w, soft_label, ignore_index, name)
    return _conv.squeeze(loss, [axis]) if squeezed else loss


def _label_or_target(label, target, layer: str):
    """The label argument, also accepted under Paddle's alias `target` (not both)."""
    if (label is None) == (target is None):
        raise ArgumentTypeError(f"{layer}() takes the labels as 'label' or as 'target' (one "
                                f"of them)")
    return target if label is None else label


def _smoothed(input, label, axis: int, epsilon: float):
    """Paddle's label smoothing: class ids (label of one rank less than input) as one-hot
    vectors over input's classes, then (1 - epsilon) * label + epsilon / classes in input's
    dtype."""
    if not 0.0 <= epsilon <= 1.0:
        raise ArgumentValueError(f"cross_entropy: label_smoothing must be in [0, 1], got "
                                 f"{epsilon}")
    classes = input.shape[axis]
    if len(label.shape) == len(input.shape) - 1:
        label = _op("one_hot_v2", {"X": [label]}, {"depth": classes, "dtype": int(input.dtype),
                                                   "allow_out_of_range": False},
                    dtype=input.dtype)
    elif label.dtype != input.dtype:
        label = _tensor.cast(label, input.dtype)
    return _nn.scale(label, 1.0 - epsilon, epsilon / classes)


def _class_weights(weight, label, input, axis: int, soft_label: bool, ignore_index: int):
    """Each example's weight, shaped like the loss: weight[label] (0 where ignored), or for
    soft labels the label-weighted sum of the class weights."""
    if soft_label:
        return _nn.reduce_sum(multiply(_tensor.cast(label, weight.dtype), weight), dim=[axis],
                              keep_dim=True)
    classes = input.shape[axis]
    if weight.shape[-1] != classes:
        raise ArgumentValueError(f"cross_entropy: weight has {weight.shape[-1]} classes, "
                                 f"input {classes} along axis {axis}")
    onehot = _op("one_hot_v2", {"X": [_conv.squeeze(label, [axis])]},
                 {"depth": classes, "dtype": int(weight.dtype), "allow_out_of_range": True},
                 dtype=weight.dtype)
    picked = _conv.unsqueeze(_nn.reduce_sum(multiply(onehot, weight), dim=[-1]), [axis])
    return multiply(picked, _kept(label, ignore_index, weight.dtype))


def _kept(label, ignore_index: int, dtype):
    """1 where label != ignore_index, else 0, in dtype."""
    ignore = _tensor.fill_constant([1], label.dtype, ignore_index)
    return _tensor.cast(_op("not_equal", {"X": [label], "Y": [ignore]}, dtype=VarType.BOOL), dtype)


def _weighted_mean(loss, label, w, soft_label: bool, ignore_index: int, name):
    """Paddle's 'mean': over examples, by kept labels when ignore_index >= 0, or by total
    weight when weighted (a zero denominator counts as 1)."""
    if w is None and (soft_label or ignore_index < 0):
        return _reduce("reduce_mean", loss, None, False, name)
    total = _reduce("reduce_sum", loss, None, False, None)
    if w is None:
        w = _kept(label, ignore_index, loss.dtype)
    denom = _reduce("reduce_sum", w, None, False, None)
    is_zero = _tensor.cast(_op("equal", {"X": [denom], "Y": [_tensor.fill_constant(
        [], loss.dtype, 0.0)]}, dtype=VarType.BOOL), loss.dtype)
    return _nn.elementwise_div(total, add(denom, is_zero), name=name)


# --- similarity and normalization ----------------------------------------------------------

def cosine_similarity(x1, x2, axis: int = 1, eps: float = 1e-8):
    """<x1, x2> / max(|x1| |x2|, eps) along axis."""
    w12 = _nn.reduce_sum(multiply(x1, x2), dim=[axis])
    w1 = _nn.reduce_sum(multiply(x1, x1), dim=[axis])
    w2 = _nn.reduce_sum(multiply(x2, x2), dim=[axis])
    n12 = _nn.sqrt(_conv.clip(multiply(w1, w2), eps * eps, float("inf")))
    return _nn.elementwise_div(w12, n12)


def normalize(x, p=2, axis: int = 1, epsilon: float = 1e-12, name=None):
    """x / max(||x||_p along axis, epsilon)."""
    if p == 2:
        norm = _nn.sqrt(_nn.reduce_sum(_nn.square(x), dim=[axis], keep_dim=True))
    else:
        powered = _act.pow(_nn.abs(x), float(p))
        norm = _act.pow(_nn.reduce_sum(powered, dim=[axis], keep_dim=True), 1.0 / float(p))
    return _nn.elementwise_div(x, _conv.clip(norm, epsilon, float("inf")), name=name)


# --- normalization with given parameters ----------------------------------------------------

def batch_norm(x, running_mean, running_var, weight=None, bias=None, training=False,
               momentum=0.9, epsilon=1e-05, data_format="NCHW", use_global_stats=None,
               name=None, *, trainable_statistics=False):
    """Per-channel normalization: batch statistics while training (updating the running ones
    in place), the running statistics otherwise. trainable_statistics (nn.BatchNorm's, not an
    argument of Paddle's F.batch_norm) takes batch statistics when not training too."""
    check_variable_and_dtype(x, "input", ("float16", "bfloat16", "float32", "float64"),
                             "BatchNorm")
    if data_format not in ("NCHW", "NHWC", "NC", "NCL", "NLC", "NCDHW", "NDHWC"):
        raise ArgumentValueError(f"batch_norm: data_format {data_format!r} is not supported")
    layout = "NHWC" if data_format in ("NHWC", "NLC", "NDHWC") else "NCHW"
    helper = LayerHelper("batch_norm", name=name)
    saved_mean = helper.create_variable_for_type_inference(x.dtype, stop_gradient=True)
    saved_var = helper.create_variable_for_type_inference(x.dtype, stop_gradient=True)
    out = helper.create_variable_for_type_inference(x.dtype)
    inputs = {"X": [x], "Mean": [running_mean], "Variance": [running_var]}
    if weight is not None:
        inputs["Scale"] = [weight]
    if bias is not None:
        inputs["Bias"] = [bias]
    helper.append_op("batch_norm", inputs=inputs,
                     outputs={"Y": [out], "MeanOut": [running_mean],
                              "VarianceOut": [running_var], "SavedMean": [saved_mean],
                              "SavedVariance": [saved_var]},
                     attrs={"momentum": float(momentum), "epsilon": float(epsilon),
                            "is_test": not training, "data_layout": layout,
                            "use_global_stats": bool(use_global_stats),
                            "trainable_statistics": bool(trainable_statistics)})
    return out


def _group_normalize(x, groups, epsilon, weight, bias, data_format: str, fn: str):
    """Channel-first x normalized over each of `groups` blocks of channels (None: one per
    channel), a layer_norm of x viewed as [N, groups, rest]; then the per-channel weight and
    bias."""
    check_variable_and_dtype(x, "input", ("float16", "float32", "float64"), fn)
    if data_format not in ("NCL", "NCHW", "NCDHW"):
        raise ArgumentValueError(f"{fn}: data_format must be channel-first (NCL / NCHW / "
                                 f"NCDHW) in fluidc, got {data_format!r}")
    if len(x.shape) < 2 or any(d < 0 for d in x.shape[1:]):
        raise ArgumentValueError(f"{fn}: input needs known dims after the batch dim, got "
                                 f"shape {list(x.shape)}")
    channels = x.shape[1]
    groups = channels if groups is None else groups
    if groups <= 0 or channels % groups:
        raise ArgumentValueError(f"{fn}: {channels} channels do not split into {groups} groups")
    helper = LayerHelper("layer_norm")
    grouped = reshape(x, [0, groups, -1])
    out = helper.create_variable_for_type_inference(x.dtype)
    stats = [helper.create_variable_for_type_inference(x.dtype, stop_gradient=True)
             for _ in range(2)]
    helper.append_op("layer_norm", inputs={"X": [grouped]},
                     outputs={"Y": [out], "Mean": stats[:1], "Variance": stats[1:]},
                     attrs={"epsilon": float(epsilon), "begin_norm_axis": 2})
    out = reshape(out, [0] + list(x.shape[1:]))
    per_channel = [1, channels] + [1] * (len(x.shape) - 2)
    if weight is not None:
        out = multiply(out, reshape(weight, per_channel))
    if bias is not None:
        out = add(out, reshape(bias, per_channel))
    return out


def group_norm(x, num_groups, epsilon=1e-05, weight=None, bias=None, data_format="NCHW",
               name=None):
    """Normalization over groups of channels (each group's mean and variance per example)."""
    return _group_normalize(x, num_groups, epsilon, weight, bias, data_format, "group_norm")


def instance_norm(x, running_mean=None, running_var=None, weight=None, bias=None,
                  use_input_stats=True, momentum=0.9, eps=1e-05, data_format="NCHW", name=None):
    """Normalization of each channel of each example over its spatial dims."""
    if not use_input_stats or running_mean is not None or running_var is not None:
        raise ArgumentValueError("instance_norm: running statistics are not supported "
                                 "(Paddle's static instance_norm uses the input's)")
    return _group_normalize(x, None, eps, weight, bias, data_format, "InstanceNorm")


def layer_norm(x, normalized_shape, weight=None, bias=None, epsilon=1e-05, name=None):
    """Normalization over the trailing normalized_shape dims, then weight and bias."""
    check_variable_and_dtype(x, "input", ("float16", "bfloat16", "float32", "float64"),
                             "LayerNorm")
    shape = [normalized_shape] if isinstance(normalized_shape, int) else list(normalized_shape)
    if list(x.shape[len(x.shape) - len(shape):]) != shape:
        raise ArgumentValueError(f"layer_norm: normalized_shape {shape} is not the trailing "
                                 f"shape of x {list(x.shape)}")
    helper = LayerHelper("layer_norm", name=name)
    inputs = {"X": [x]}
    if weight is not None:
        inputs["Scale"] = [weight]
    if bias is not None:
        inputs["Bias"] = [bias]
    out = helper.create_variable_for_type_inference(x.dtype)
    mean = helper.create_variable_for_type_inference(x.dtype, stop_gradient=True)
    var = helper.create_variable_for_type_inference(x.dtype, stop_gradient=True)
    helper.append_op("layer_norm", inputs=inputs,
                     outputs={"Y": [out], "Mean": [mean], "Variance": [var]},
                     attrs={"epsilon": float(epsilon),
                            "begin_norm_axis": len(x.shape) - len(shape)})
    return out
