"""paddle.nn.functional's 1-D convolution and pooling, built as Paddle builds them: the length
dim unsqueezed to a size-1 H dim ([N, C, 1, L] for NCL, [N, 1, L, C] for NLC), the 2-D op run
with kernel / stride / padding / dilation [1, k], and the H dim squeezed back, so the gradients
are those of conv2d / pool2d."""
from __future__ import annotations

from ..helper import ArgumentValueError, check_variable_and_dtype
from . import functional as F
from .shaping import squeeze, unsqueeze

_FLOATS = ("float16", "float32", "float64")


def _check_input(x, fn: str) -> None:
    check_variable_and_dtype(x, "x", _FLOATS, fn)
    if len(x.shape) != 3:
        raise ArgumentValueError(f"{fn}: input x must be a 3-D tensor, got shape "
                                 f"{list(x.shape)}")


def _one(v, what: str, fn: str) -> list[int]:
    """An int or one int, as the 2-D [1, v] (the H dim of size 1 untouched)."""
    return [1] + F._ints(v, 1, what, fn)


def _padding_2d(padding, channel_last: bool, fn: str):
    """A 1-D padding (an int, 1 or 2 ints, three [before, after] pairs with those of the batch
    and channel dims [0, 0], or 'SAME' / 'VALID') as the 2-D one: 4 ints, H unpadded."""
    if isinstance(padding, str):
        if padding.upper() not in ("SAME", "VALID"):
            raise ArgumentValueError(f"{fn}: unknown padding {padding!r}; it can only be "
                                     f"'SAME' or 'VALID'")
        return padding.upper()
    p = list(padding) if isinstance(padding, (list, tuple)) else [padding]
    if len(p) == 3 and isinstance(p[0], (list, tuple)):
        others = (p[0], p[2]) if channel_last else (p[0], p[1])
        if any(list(d) != [0, 0] for d in others):
            raise ArgumentValueError(f"{fn}: non-zero padding {padding} in the batch or channel "
                                     f"dimensions is not supported")
        p = list(p[1] if channel_last else p[2])
    if len(p) not in (1, 2) or not all(isinstance(d, int) for d in p):
        raise ArgumentValueError(f"{fn}: invalid padding {padding!r}")
    return [0, 0] + (p * 2 if len(p) == 1 else p)


def _format(data_format: str, fn: str) -> bool:
    """Whether data_format ('NCL' or 'NLC') is channel-last."""
    if data_format not in ("NCL", "NLC"):
        raise ArgumentValueError(f"{fn}: data_format should be 'NCL' or 'NLC', got "
                                 f"{data_format!r}")
    return data_format == "NLC"


def conv1d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, data_format="NCL",
           name=None):
    """1-D convolution of x (NCL or NLC) by a given [out, in / groups, k] weight (+ bias)."""
    last = _format(data_format, "conv1d")
    _check_input(x, "conv1d")
    channels, filters = x.shape[-1 if last else 1], weight.shape[0]
    if groups == 0:
        raise ArgumentValueError("conv1d: groups should not be zero")
    if channels != -1 and channels % groups:
        raise ArgumentValueError(f"conv1d: the {channels} input channels do not divide into "
                                 f"{groups} groups")
    if filters != -1 and filters % groups:
        raise ArgumentValueError(f"conv1d: the {filters} filters do not divide into {groups} "
                                 f"groups")
    pad = _padding_2d(padding, last, "conv1d")
    if not isinstance(pad, str) and min(pad) < 0:
        raise ArgumentValueError(f"conv1d: padding must be non-negative, got {padding!r}")
    axis = -3 if last else -2
    out = F.conv2d(unsqueeze(x, [axis]), unsqueeze(weight, [-2]), bias,
                   _one(stride, "stride", "conv1d"), pad, _one(dilation, "dilation", "conv1d"),
                   groups, "NHWC" if last else "NCHW")
    return squeeze(out, [axis], name=name)


def max_pool1d(x, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False,
               name=None):
    """Max over kernel_size windows of x [N, C, L] (stride defaults to kernel_size); with
    return_mask, also each maximum's position along L."""
    _check_input(x, "max_pool1d")
    k = _one(kernel_size, "kernel_size", "max_pool1d")
    s = None if stride is None else _one(stride, "stride", "max_pool1d")
    out = F.max_pool2d(unsqueeze(x, [2]), k, s, _padding_2d(padding, False, "max_pool1d"),
                       return_mask, ceil_mode)
    if return_mask:
        return squeeze(out[0], [2], name=name), squeeze(out[1], [2])
    return squeeze(out, [2], name=name)


def avg_pool1d(x, kernel_size, stride=None, padding=0, exclusive=True, ceil_mode=False,
               name=None):
    """Average over kernel_size windows of x [N, C, L] (padding left out of the count when
    exclusive)."""
    _check_input(x, "avg_pool1d")
    k = _one(kernel_size, "kernel_size", "avg_pool1d")
    s = None if stride is None else _one(stride, "stride", "avg_pool1d")
    out = F.avg_pool2d(unsqueeze(x, [2]), k, s, _padding_2d(padding, False, "avg_pool1d"),
                       ceil_mode, exclusive)
    return squeeze(out, [2], name=name)


def adaptive_avg_pool1d(x, output_size, name=None):
    """Average pooling of x [N, C, L] to output_size evenly spread windows."""
    _check_input(x, "adaptive_avg_pool1d")
    out = F.adaptive_avg_pool2d(unsqueeze(x, [2]),
                                _one(output_size, "output_size", "adaptive_avg_pool1d"))
    return squeeze(out, [2], name=name)


def adaptive_max_pool1d(x, output_size, return_mask=False, name=None):
    """Max pooling of x [N, C, L] to output_size evenly spread windows: the pool2d op, adaptive.
    (The mask, Paddle's max_pool2d_with_index output, is not built.)"""
    _check_input(x, "adaptive_max_pool1d")
    if return_mask:
        raise ArgumentValueError("adaptive_max_pool1d: return_mask=True is not supported")
    size = _one(output_size, "output_size", "adaptive_max_pool1d")
    if size[1] <= 0:
        raise ArgumentValueError(f"adaptive_max_pool1d: output_size must be positive, got "
                                 f"{output_size!r}")
    attrs = dict(F._pool_attrs("max", size, 1, 0, False, True, "NCHW"), adaptive=True)
    return squeeze(F._op("pool2d", {"X": [unsqueeze(x, [2])]}, attrs), [2], name=name)
