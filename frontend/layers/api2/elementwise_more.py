"""More 2.x elementwise and broadcasting layers: paddle.isnan, isinf, isfinite, ceil,
reciprocal (their own ops), expand_as, broadcast_to, tile (unsqueeze, expand_v2, reshape) and
mm, bmm (matmul_v2 after Paddle's shape checks)."""
from __future__ import annotations

import numpy as np

from ...dtypes import VarType, dtype_name
from ...framework import Variable
from .. import nn as _nn
from .. import tensor as _tensor
from ..helper import (FLOAT_DTYPES, INT_DTYPES, ArgumentValueError, LayerHelper, append_unary,
                      check_type, check_variable_and_dtype)
from . import matmul as _matmul
from .shaping import expand, unsqueeze

# Paddle's isnan / isinf / isfinite take float16 (uint16: bfloat16) and int32 / int64 data.
_NAN_TEST_DTYPES = ("float16", "bfloat16", "float32", "float64", "int32", "int64")
_RECIPROCAL_DTYPES = FLOAT_DTYPES + INT_DTYPES
_CEIL_DTYPES = FLOAT_DTYPES + ("int32", "int64")
_REPEAT_DTYPES = ("bool", "float16", "bfloat16", "float32", "float64", "int32", "int64")


def _bool_test(op_type: str, api: str, x: Variable, name: str | None) -> Variable:
    check_variable_and_dtype(x, "x", _NAN_TEST_DTYPES, api)
    helper = LayerHelper(op_type, name=name)
    out = helper.create_variable_for_type_inference("bool")
    helper.append_op(op_type, inputs={"X": [x]}, outputs={"Out": [out]})
    return out


def isnan(x: Variable, name: str | None = None) -> Variable:
    """paddle.isnan: elementwise x != x (bool; integers are never NaN), the isnan_v2 op."""
    return _bool_test("isnan_v2", "isnan", x, name)


def isinf(x: Variable, name: str | None = None) -> Variable:
    """paddle.isinf: elementwise |x| == inf (bool; integers never are), the isinf_v2 op."""
    return _bool_test("isinf_v2", "isinf", x, name)


def isfinite(x: Variable, name: str | None = None) -> Variable:
    """paddle.isfinite: elementwise neither NaN nor +-inf (bool; integers always are), the
    isfinite_v2 op."""
    return _bool_test("isfinite_v2", "isfinite", x, name)


def ceil(x: Variable, name: str | None = None) -> Variable:
    """paddle.ceil: the smallest integral value >= x, elementwise (zero gradient; integers are
    returned unchanged, as Paddle 3.3.1's)."""
    return append_unary("ceil", x, name=name, dtypes=_CEIL_DTYPES)


def reciprocal(x: Variable, name: str | None = None) -> Variable:
    """paddle.reciprocal: 1 / x elementwise. Integer x is cast to float32 first and the result
    is float32, as Paddle 3.3.1's autocast gives it (its static int kernel is missing)."""
    check_variable_and_dtype(x, "x", _RECIPROCAL_DTYPES, "reciprocal")
    if dtype_name(x.dtype) in INT_DTYPES:
        x = _tensor.cast(x, "float32")
    return append_unary("reciprocal", x, name=name)


def _bool_needs_stop_gradient(x: Variable, api: str) -> None:
    if x.dtype == VarType.BOOL and not x.stop_gradient:
        raise ArgumentValueError(f"When the data type of input 'x' for {api} is bool, you must "
                                 f"set its stop_gradient to be True (bool data has no gradient)")


def broadcast_to(x: Variable, shape, name: str | None = None) -> Variable:
    """paddle.broadcast_to: x broadcast to shape, as Paddle's (paddle.expand itself)."""
    return expand(x, shape, name=name)


def expand_as(x: Variable, y: Variable, name: str | None = None) -> Variable:
    """paddle.expand_as: x broadcast to y's shape (y's values unused). Dims of y unknown when
    the program is built (-1) are read from y's run-time shape."""
    check_variable_and_dtype(x, "x", _REPEAT_DTYPES, "expand_as")
    check_type(y, "y", Variable, "expand_as")
    _bool_needs_stop_gradient(x, "expand_as")
    target = [int(d) for d in y.shape]
    if len(target) < len(x.shape):
        raise ArgumentValueError(f"expand_as: y's rank ({len(target)}, shape {target}) must be at "
                                 f"least x's ({len(x.shape)}, shape {list(x.shape)})")
    shape = _tensor.shape(y) if any(d < 0 for d in target) else target
    return expand(x, shape, name=name)


def _repeat_list(repeat_times) -> list[int]:
    check_type(repeat_times, "repeat_times", (list, tuple), "tile")
    reps = []
    for r in repeat_times:
        if not isinstance(r, (int, np.integer)) or isinstance(r, bool):
            raise TypeError(f"tile: elements of repeat_times must be ints, got "
                            f"{type(r).__name__} (Variables are not supported here)")
        if r <= 0:
            raise ArgumentValueError(f"tile: all elements of repeat_times must be positive, got "
                                     f"{list(repeat_times)}")
        reps.append(int(r))
    return reps


def tile(x: Variable, repeat_times, name: str | None = None) -> Variable:
    """paddle.tile: x repeated repeat_times[i] times along dim i (the shorter of x's shape and
    repeat_times padded with leading 1s). Built as unsqueeze (a size-1 dim before each repeated
    dim), expand_v2 (that dim to its count) and reshape (each pair merged), so the gradient
    sums back. Dims unknown when the program is built (-1) may stand anywhere before the first
    repeated dim; at most one may stand at or after it."""
    check_variable_and_dtype(x, "x", _REPEAT_DTYPES, "tile")
    _bool_needs_stop_gradient(x, "tile")
    reps = _repeat_list(repeat_times)
    rank = max(len(reps), len(x.shape))
    reps = [1] * (rank - len(reps)) + reps
    stop = x.stop_gradient  # the unsqueezed copies keep it (expand checks it of bool data)
    if len(x.shape) < rank:
        x = unsqueeze(x, list(range(rank - len(x.shape))))
        x.stop_gradient = stop
    dims = [int(d) for d in x.shape]
    repeated = [i for i in range(rank) if reps[i] > 1]
    if not repeated:
        return _nn.reshape(x, [0] * rank, name=name)
    spread = unsqueeze(x, [i + k for k, i in enumerate(repeated)])
    spread.stop_gradient = stop
    grown = []
    for i in range(rank):
        grown += ([reps[i], -1] if reps[i] > 1 else [-1])
    spread = expand(spread, grown)
    # The merged shape: known dims as numbers; an unknown dim before the first repeated one
    # keeps its index (0 copies it); any other unknown dim is the one -1.
    final = [d * r if d >= 0 else (0 if i < repeated[0] else -1)
             for i, (d, r) in enumerate(zip(dims, reps))]
    if final.count(-1) > 1:
        raise ArgumentValueError(f"tile: x of shape {dims} has more than one dim unknown until "
                                 f"the program runs at or after its first repeated dim "
                                 f"(repeat_times {reps}); fluidc infers only one")
    return _nn.reshape(spread, final, name=name)


def _known_mismatch(a: int, b: int) -> bool:
    return a >= 0 and b >= 0 and a != b


def mm(input: Variable, mat2: Variable, name: str | None = None) -> Variable:  # noqa: A002
    """paddle.mm: the matrix product of input and mat2 (numpy's matmul batching), after
    Paddle's checks; matmul_v2."""
    for arg, v in (("x", input), ("y", mat2)):
        check_variable_and_dtype(v, arg, ("float16", "float32", "float64"), "mm")
    xs, ys = list(input.shape), list(mat2.shape)
    xs, ys = ([1] + xs if len(xs) == 1 else xs), (ys + [1] if len(ys) == 1 else ys)
    if _known_mismatch(xs[-1], ys[-2]):
        raise ArgumentValueError(f"mm: input's width must equal mat2's height for the product, "
                                 f"but input's shape is {list(input.shape)} and mat2's is "
                                 f"{list(mat2.shape)}")
    if len(xs) > 2 and len(ys) > 2:
        for i, (a, b) in enumerate(zip(xs[:-2], ys[:-2])):
            if _known_mismatch(a, b):
                raise ArgumentValueError(f"mm: the batch dims of input and mat2 must be equal, "
                                         f"but dim {i} differs: {xs} and {ys}")
    return _matmul(input, mat2, name=name)


def bmm(x: Variable, y: Variable, name: str | None = None) -> Variable:
    """paddle.bmm: batched matrix product of 3-D x [b, m, k] and y [b, k, n] -> [b, m, n]."""
    for arg, v in (("x", x), ("y", y)):
        check_variable_and_dtype(v, arg, ("float16", "bfloat16", "float32", "float64"), "bmm")
    xs, ys = list(x.shape), list(y.shape)
    if len(xs) != 3 or len(ys) != 3:
        raise ArgumentValueError(f"bmm: x and y must be 3-D, but x's shape is {xs} and y's is "
                                 f"{ys}")
    if _known_mismatch(xs[2], ys[1]):
        raise ArgumentValueError(f"bmm: x's width must equal y's height, but x's shape is {xs} "
                                 f"and y's is {ys}")
    if _known_mismatch(xs[0], ys[0]):
        raise ArgumentValueError(f"bmm: x's batch size must equal y's, but x's shape is {xs} "
                                 f"and y's is {ys}")
    return _matmul(x, y, name=name)
