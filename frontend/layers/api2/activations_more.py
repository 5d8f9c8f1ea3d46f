"""More of paddle.nn.functional's activations (Paddle 2.x / 3.x signatures): hardtanh,
hardshrink, softshrink, tanhshrink, thresholded_relu, celu, glu, prelu and maxout, and the
losses log_loss and dice_loss. Each is a composition of existing ops (comparisons, where, elu,
tanh, sigmoid, chunk, reshape, reduce_max, one_hot, ...), so their gradients are those ops'.

Paddle keeps the thresholds in float32 op attributes, so they are compared here at float32
precision too (a float64 x of 0.3 is below hardshrink's threshold 0.3, as in Paddle)."""
from __future__ import annotations

import numpy as np

from ...framework import Variable
from .. import activation as _act
from .. import compare as _cmp
from .. import nn as _nn
from .. import tensor as _tensor
from ..helper import ArgumentValueError, check_variable_and_dtype
from . import _reduce, add, divide, multiply, reshape, subtract
from .functional import one_hot as _one_hot
from .math_more import chunk, sign, take_along_axis
from .search import argmax, where
from .shaping import squeeze

_HALF_AND_FLOATS = ("float16", "uint16", "float32", "float64")


def _attr(value) -> float:
    """value as Paddle's float32 attribute holds it."""
    return float(np.float32(value))


def _threshold(x: Variable, value) -> Variable:
    """A [1] tensor of x's dtype holding the float32 attribute value (compared by broadcast)."""
    return _tensor.fill_constant([1], x.dtype, _attr(value))


def _filled(x: Variable, value) -> Variable:
    return _tensor.full_like(x, _attr(value))


def hardtanh(x, min: float = -1.0, max: float = 1.0, name=None):  # noqa: A002 (Paddle's names)
    """min where x <= min, max where x >= max, x between; the gradient passes strictly inside
    (min, max), as Paddle's brelu grad."""
    check_variable_and_dtype(x, "x", ("float16", "float32", "float64"), "hardtanh")
    inside = where(_cmp.less_equal(x, _threshold(x, min)), _filled(x, min), x)
    return where(_cmp.greater_equal(x, _threshold(x, max)), _filled(x, max), inside)


def hardshrink(x, threshold: float = 0.5, name=None):
    """x where |x| >= threshold, 0 elsewhere (Paddle 3.3.1 keeps |x| == threshold)."""
    check_variable_and_dtype(x, "x", _HALF_AND_FLOATS, "hardshrink")
    kept = _cmp.greater_equal(_nn.abs(x), _threshold(x, threshold))
    return where(kept, x, _tensor.zeros_like(x))


def softshrink(x, threshold: float = 0.5, name=None):
    """x - threshold where x > threshold, x + threshold where x < -threshold, 0 elsewhere."""
    if threshold < 0:
        raise ArgumentValueError(
            f"The threshold must be no less than zero. Received: {threshold}.")
    check_variable_and_dtype(x, "x", _HALF_AND_FLOATS, "softshrink")
    outside = _cmp.greater_than(_nn.abs(x), _threshold(x, threshold))
    shrunk = subtract(x, _nn.scale(sign(x), _attr(threshold)))
    return where(outside, shrunk, _tensor.zeros_like(x))


def tanhshrink(x, name=None):
    """x - tanh(x)."""
    check_variable_and_dtype(x, "x", _HALF_AND_FLOATS, "tanhshrink")
    return subtract(x, _nn.tanh(x))


def thresholded_relu(x, threshold: float = 1.0, value: float = 0.0, name=None):
    """x where x > threshold, value elsewhere (gradient 1 where x > threshold)."""
    check_variable_and_dtype(x, "x", _HALF_AND_FLOATS, "thresholded_relu")
    return where(_cmp.greater_than(x, _threshold(x, threshold)), x, _filled(x, value))


def celu(x, alpha: float = 1.0, name=None):
    """max(0, x) + min(0, alpha * (exp(x / alpha) - 1)). For alpha > 0 that is
    alpha * elu(x / alpha); for alpha < 0, relu(x) + alpha * (exp(min(x, 0) / alpha) - 1)."""
    if alpha == 0:
        raise ZeroDivisionError("alpha cannot be 0 for celu")
    check_variable_and_dtype(x, "x", _HALF_AND_FLOATS, "celu")
    alpha = _attr(alpha)
    if alpha > 0:
        return _nn.scale(_act.elu(_nn.scale(x, 1.0 / alpha), 1.0), alpha)
    negative = where(_cmp.greater_than(x, _threshold(x, 0.0)), _tensor.zeros_like(x), x)
    tail = _nn.scale(_nn.exp(_nn.scale(negative, 1.0 / alpha)), alpha, -alpha)
    return add(_nn.relu(x), tail)


def glu(x, axis: int = -1, name=None):
    """a * sigmoid(b), a and b the two halves of x along axis."""
    check_variable_and_dtype(x, "input", ("float16", "float32", "float64"), "glu")
    rank = len(x.shape)
    if not -rank <= axis < rank:
        raise ArgumentValueError(f"Expected value range of `axis` is [{-rank}, {rank}), but "
                                 f"received axis: {axis}")
    size = int(x.shape[axis])
    if size > 0 and size % 2:
        raise ArgumentValueError(
            f"glu: the size of x along axis {axis} must be even to split it in two halves, "
            f"but x's shape is {list(x.shape)}")
    a, b = chunk(x, 2, axis=axis)
    return multiply(a, _nn.sigmoid(b))


_PRELU_FORMATS = ("NC", "NCL", "NCHW", "NCDHW", "NLC", "NHWC", "NDHWC")


def _prelu_slopes(x: Variable, weight: Variable, data_format: str) -> Variable:
    """weight shaped to broadcast against x: [1] for one slope, else [C, 1, ...] (channels
    first) or [C] (channels last)."""
    if len(weight.shape) not in (0, 1):
        raise ArgumentValueError("The dim count of weight shape should be 0 or 1 in prelu().")
    if len(weight.shape) == 0 or weight.shape[0] == 1:
        return reshape(weight, [1])
    if data_format not in _PRELU_FORMATS:
        raise ArgumentValueError(
            "data_format must be one of 'NC', 'NCL', 'NCHW', 'NCDHW', 'NLC', 'NHWC', "
            f"'NDHWC' but receive {data_format}")
    if len(x.shape) < 2:
        raise ArgumentValueError("The dim count of x should be equal or larger than 2 in "
                                 "prelu() when weight shape is not [1].")
    channels_first = data_format[1] == "C"
    if weight.shape[0] != x.shape[1 if channels_first else -1]:
        raise ArgumentValueError(
            "The weight size should be equal to x input channel in prelu() when weight shape "
            f"is not [1] (weight {list(weight.shape)}, x {list(x.shape)}, {data_format}).")
    if not channels_first:
        return weight
    return reshape(weight, [weight.shape[0]] + [1] * (len(x.shape) - 2))


def prelu(x, weight, data_format: str = "NCHW", name=None):
    """x where x > 0, weight * x elsewhere; weight is one slope ([1] or 0-D) or one per
    channel (axis 1, or the last axis for the channels-last formats)."""
    check_variable_and_dtype(x, "x", _HALF_AND_FLOATS, "prelu")
    check_variable_and_dtype(weight, "weight", _HALF_AND_FLOATS, "prelu")
    slopes = _prelu_slopes(x, weight, data_format)
    return where(_cmp.greater_than(x, _threshold(x, 0.0)), x, multiply(x, slopes))


def maxout(x, groups: int, axis: int = 1, name=None):
    """The max over each run of `groups` consecutive channels: channels C become C / groups,
    out[c] = max(x[c * groups], ..., x[c * groups + groups - 1]). axis 1 (NCHW) or -1 / 3
    (NHWC). Taken at the first maximal input of each run (argmax, take_along_axis), so at ties
    the gradient goes to that one only, as Paddle's maxout kernel gives it."""
    check_variable_and_dtype(x, "x", ("float16", "float32", "float64"), "maxout")
    if axis not in (1, -1, 3):
        raise ArgumentValueError(
            "Attr(axis) should be 1 when data format is NCHW, -1 or 3 when data format is "
            f"NHWC. Received Attr(axis): {axis}.")
    if len(x.shape) != 4:
        raise ArgumentValueError(f"maxout: x must be 4-D, but its shape is {list(x.shape)}")
    axis = 3 if axis == -1 else axis
    channels = int(x.shape[axis])
    if groups <= 0 or channels < 0 or channels % groups:
        raise ArgumentValueError(
            "The number of input channels for Op(maxout) should be divisible by Attr(groups). "
            f"But received: the input's channels is [{channels}], the shape of input is "
            f"{list(x.shape)}, the Attr(groups) is [{groups}].")
    split_shape = [0] + [int(d) for d in x.shape[1:]]  # 0: the batch dim as it is
    split_shape[axis:axis + 1] = [channels // groups, groups]
    runs = reshape(x, split_shape)
    first = argmax(runs, axis=axis + 1, keepdim=True)
    return squeeze(take_along_axis(runs, first, axis + 1), [axis + 1], name=name)


# --- the losses of the same list -------------------------------------------------------------

def log_loss(input, label, epsilon: float = 0.0001, name=None):  # noqa: A002 (Paddle's name)
    """-label * log(input + epsilon) - (1 - label) * log(1 - input + epsilon), elementwise."""
    check_variable_and_dtype(input, "input", ("float32",), "log_loss")
    check_variable_and_dtype(label, "label", ("float32",), "log_loss")
    eps = _attr(epsilon)
    hit = multiply(label, _nn.log(_nn.scale(input, 1.0, eps)))
    miss = multiply(_nn.scale(label, -1.0, 1.0), _nn.log(_nn.scale(input, -1.0, 1.0 + eps)))
    return _nn.scale(add(hit, miss), -1.0)


def _check_dice_shapes(input, label) -> None:
    if len(input.shape) < 2:
        raise ArgumentValueError("The rank of input should be greater than or equal to 2.")
    if len(input.shape) != len(label.shape):
        raise ArgumentValueError("The rank of input and label should be equal, but received "
                                 f"input: {len(input.shape)}, label: {len(label.shape)}.")
    if label.shape[-1] != 1:
        raise ArgumentValueError(
            f"The last dimension of label should be 1, but received {label.shape[-1]}.")
    if list(input.shape[:-1]) != list(label.shape[:-1]):
        raise ArgumentValueError("All dimensions should be equal except the last one.")


def dice_loss(input, label, epsilon: float = 1e-05, name=None):  # noqa: A002 (Paddle's name)
    """mean over the batch of 1 - 2 |input * one_hot(label)| / (|input| + |one_hot(label)| +
    epsilon), the sums over all but the batch dim; input [N, ..., D] probabilities, label
    [N, ..., 1] class ids."""
    check_variable_and_dtype(input, "input", ("float32", "float64"), "dice_loss")
    check_variable_and_dtype(label, "label", ("int32", "int64"), "dice_loss")
    _check_dice_shapes(input, label)
    one_hot = _tensor.cast(_one_hot(squeeze(label, [-1]), int(input.shape[-1])), input.dtype)
    dims = list(range(1, len(input.shape)))
    inse = _reduce("reduce_sum", multiply(input, one_hot), dims, False, None)
    denominator = add(_reduce("reduce_sum", input, dims, False, None),
                      _reduce("reduce_sum", one_hot, dims, False, None))
    score = divide(_nn.scale(inse, 2.0), _nn.scale(denominator, 1.0, float(epsilon)))
    return _reduce("reduce_mean", _nn.scale(score, -1.0, 1.0), None, False, name)
