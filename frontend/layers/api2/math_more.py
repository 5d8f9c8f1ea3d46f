"""More 2.x math layers: paddle.floor, sign, erf (their own ops), logsumexp (reduce_max, exp,
reduce_sum, log: max-shifted as Paddle's kernel), dot, outer, cross (elementwise products and
sums), unbind, chunk (split, squeeze) and take_along_axis (its own op, after Paddle's
broadcast)."""
from __future__ import annotations

import numpy as np

from ...dtypes import dtype_name
from ...framework import Variable
from .. import tensor as _tensor
from ..helper import (FLOAT_DTYPES, INT_DTYPES, ArgumentValueError, LayerHelper, append_unary,
                      check_type, check_variable_and_dtype)
from . import _reduce, add, concat, exp, log, multiply, reshape, subtract
from . import max as _max
from .elementwise_more import broadcast_to
from .manipulation import split
from .shaping import squeeze

_FLOOR_DTYPES = FLOAT_DTYPES + INT_DTYPES
_SIGN_DTYPES = FLOAT_DTYPES + INT_DTYPES
_AUTOCAST_DTYPES = FLOAT_DTYPES + ("int32", "int64")  # erf, logsumexp: ints become float32
_PRODUCT_DTYPES = ("float16", "bfloat16", "float32", "float64", "int32", "int64")
_SPLIT_DTYPES = ("bool", "float16", "bfloat16", "float32", "float64", "int32", "int64")
_TAKE_DTYPES = ("float16", "bfloat16", "float32", "float64", "int32", "int64", "uint8")


def floor(x: Variable, name: str | None = None) -> Variable:
    """paddle.floor: the largest integral value <= x, elementwise (zero gradient; integers are
    returned unchanged, as Paddle 3.3.1's)."""
    return append_unary("floor", x, name=name, dtypes=_FLOOR_DTYPES)


def sign(x: Variable, name: str | None = None) -> Variable:
    """paddle.sign: -1, 0 or 1 by the sign of x (NaN stays NaN; zero gradient)."""
    return append_unary("sign", x, name=name, dtypes=_SIGN_DTYPES)


def _float_input(x: Variable, api: str) -> Variable:
    """x checked; int32 / int64 x cast to float32, as Paddle 3.3.1's autocast gives it."""
    check_variable_and_dtype(x, "x", _AUTOCAST_DTYPES, api)
    return _tensor.cast(x, "float32") if dtype_name(x.dtype) in INT_DTYPES else x


def erf(x: Variable, name: str | None = None) -> Variable:
    """paddle.erf: the error function, elementwise (integers give float32)."""
    return append_unary("erf", _float_input(x, "erf"), name=name)


def logsumexp(x: Variable, axis=None, keepdim: bool = False, name: str | None = None) -> Variable:
    """paddle.logsumexp: log(sum(exp(x))) over axis (all when None, a 0-d result), computed as
    max + log(sum(exp(x - max))) with the max held constant for the gradient. As Paddle 3.3.1's,
    a row whose max is +-inf gives NaN."""
    x = _float_input(x, "logsumexp")
    if axis is not None:
        check_type(axis, "axis", (int, np.integer, list, tuple), "logsumexp")
    shift = _max(x, axis, keepdim=True)
    top = _max(x, axis, keepdim=keepdim)
    shift.stop_gradient = top.stop_gradient = True
    total = _reduce("reduce_sum", exp(subtract(x, shift)), axis, keepdim, None)
    return add(log(total), top, name=name)


def _same_shape(x: Variable, y: Variable, api: str) -> None:
    if x.dtype != y.dtype:
        raise TypeError(f"{api}: x and y must have one dtype, got {dtype_name(x.dtype)} and "
                        f"{dtype_name(y.dtype)}")
    if list(x.shape) != list(y.shape):
        raise ArgumentValueError(f"{api}: x and y must have one shape, got {list(x.shape)} and "
                                 f"{list(y.shape)}")


def dot(x: Variable, y: Variable, name: str | None = None) -> Variable:
    """paddle.dot: the inner product of 1-D x and y (a 0-d result), or of each row of 2-D x and
    y (shape [N])."""
    for arg, v in (("x", x), ("y", y)):
        check_variable_and_dtype(v, arg, _PRODUCT_DTYPES, "dot")
    _same_shape(x, y, "dot")
    if len(x.shape) not in (1, 2):
        raise ArgumentValueError(f"dot: x and y must be 1-D or 2-D, got shape {list(x.shape)}")
    return _reduce("reduce_sum", multiply(x, y), -1, False, name)


def outer(x: Variable, y: Variable, name: str | None = None) -> Variable:
    """paddle.outer: x and y flattened, out[i, j] = x[i] * y[j]."""
    for arg, v in (("x", x), ("y", y)):
        check_variable_and_dtype(v, arg, _PRODUCT_DTYPES, "outer")
    if x.dtype != y.dtype:
        raise TypeError(f"outer: x and y must have one dtype, got {dtype_name(x.dtype)} and "
                        f"{dtype_name(y.dtype)}")
    return multiply(reshape(x, [-1, 1]), reshape(y, [1, -1]), name=name)


def _cross_axis(shape: list[int], axis) -> int:
    rank = len(shape)
    if axis is None:
        for i, d in enumerate(shape):
            if d == 3:
                return i
        raise ArgumentValueError(f"cross: x has no dimension of size 3 (shape {shape}) to take "
                                 f"as the default axis")
    check_type(axis, "axis", (int, np.integer), "cross")
    if not -rank <= axis < rank:
        raise ArgumentValueError(f"cross: axis {axis} is out of range for rank {rank}")
    if shape[axis] != 3:
        raise ArgumentValueError(f"cross: dimension {axis} of x and y must have size 3, got "
                                 f"shape {shape}")
    return int(axis) % rank


def cross(x: Variable, y: Variable, axis=None, name: str | None = None) -> Variable:
    """paddle.cross: the 3-vector cross product of x and y along axis (the first dim of size 3
    when None)."""
    for arg, v in (("x", x), ("y", y)):
        check_variable_and_dtype(v, arg, _PRODUCT_DTYPES, "cross")
    _same_shape(x, y, "cross")
    axis = _cross_axis(list(x.shape), axis)
    a, b = split(x, 3, axis), split(y, 3, axis)
    parts = [subtract(multiply(a[i], b[j]), multiply(a[j], b[i]))
             for i, j in ((1, 2), (2, 0), (0, 1))]
    return concat(parts, axis=axis, name=name)


def _split_axis(x: Variable, axis, api: str) -> int:
    check_type(axis, "axis", (int, np.integer), api)
    rank = len(x.shape)
    if not -rank <= axis < rank:
        raise ArgumentValueError(f"{api}: axis {axis} is out of range for rank {rank}")
    return int(axis) % rank


def unbind(input: Variable, axis: int = 0) -> list[Variable]:  # noqa: A002 (Paddle's name)
    """paddle.unbind: input cut into its slices along axis, that dim removed from each."""
    check_variable_and_dtype(input, "input", _SPLIT_DTYPES, "unbind")
    axis = _split_axis(input, axis, "unbind")
    n = int(input.shape[axis])
    if n <= 0:
        raise ArgumentValueError(f"unbind: the size of dimension {axis} must be known and "
                                 f"positive, got shape {list(input.shape)}")
    return [squeeze(part, axis) for part in split(input, n, axis)]


def chunk(x: Variable, chunks: int, axis=0, name: str | None = None) -> list[Variable]:
    """paddle.chunk: x cut into `chunks` equal parts along axis (split)."""
    check_variable_and_dtype(x, "x", _SPLIT_DTYPES, "chunk")
    check_type(chunks, "chunks", int, "chunk")
    axis = _split_axis(x, axis, "chunk")
    n = int(x.shape[axis])
    if chunks <= 0 or (n > 0 and chunks > n):
        raise ArgumentValueError(f"chunk: chunks must be positive and at most the size of "
                                 f"dimension {axis} ({n}), got {chunks}")
    if n > 0 and n % chunks:
        raise ArgumentValueError(f"chunk: dimension {axis} of size {n} cannot be cut into "
                                 f"{chunks} equal chunks")
    return split(x, chunks, axis, name=name)


def take_along_axis(arr: Variable, indices: Variable, axis: int,
                    broadcast: bool = True) -> Variable:
    """paddle.take_along_axis: arr's values at `indices` along axis (numpy's take_along_axis;
    negative indices count from the end). With broadcast, indices and arr are first broadcast
    to each other in every other dim, as Paddle's; without, indices may be smaller there."""
    check_variable_and_dtype(arr, "x", _TAKE_DTYPES, "take_along_axis")
    check_variable_and_dtype(indices, "index", ("int32", "int64"), "take_along_axis")
    xs, js = list(arr.shape), list(indices.shape)
    if len(xs) != len(js):
        raise ArgumentValueError(f"take_along_axis: indices and arr must have the same number of "
                                 f"dimensions, got shapes {js} and {xs}")
    axis = _split_axis(arr, axis, "take_along_axis")
    if broadcast:
        shape = [0 if 0 in (n, m) else max(n, m) for n, m in zip(xs, js)]
        if any(min(n, m) < 0 for n, m in zip(xs, js)):
            raise ArgumentValueError(f"take_along_axis: broadcast needs shapes known when the "
                                     f"program is built, got {xs} and {js}")
        for i, (n, m) in enumerate(zip(xs, js)):
            if i != axis and 1 not in (n, m) and n != m:
                raise ArgumentValueError(f"take_along_axis: dim {i} of indices ({m}) and arr "
                                         f"({n}) cannot be broadcast; shapes {js} and {xs}")
        if js != shape[:axis] + [js[axis]] + shape[axis + 1:]:
            indices = broadcast_to(indices, shape[:axis] + [js[axis]] + shape[axis + 1:])
        if xs != shape[:axis] + [xs[axis]] + shape[axis + 1:]:
            arr = broadcast_to(arr, shape[:axis] + [xs[axis]] + shape[axis + 1:])
    else:
        for i, (n, m) in enumerate(zip(xs, js)):
            if i != axis and n >= 0 and m > n:
                raise ArgumentValueError(f"take_along_axis: indices' dim {i} ({m}) exceeds "
                                         f"arr's ({n}); shapes {js} and {xs}")
    helper = LayerHelper("take_along_axis")
    out = helper.create_variable_for_type_inference(arr.dtype)
    helper.append_op("take_along_axis", inputs={"Input": [arr], "Index": [indices]},
                     outputs={"Result": [out]}, attrs={"Axis": axis})
    return out
