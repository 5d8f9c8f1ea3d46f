"""More 2.x tensor functions: unstack, diagonal, meshgrid, broadcast_shape, broadcast_tensors,
masked_fill, nan_to_num, nansum, lerp, mv, inner, logical_xor, isclose, allclose, equal_all,
cumprod and diff, composed of existing layers (so their gradients come from the ops they use)
except diagonal and cumprod, whose ops are in frontend/ops/tensor_more.py."""
from __future__ import annotations

import math

import numpy as np

from ...dtypes import VarType, to_numpy_dtype
from ...framework import Variable
from .. import compare as _compare
from .. import tensor as _tensor
from ..helper import (ArgumentTypeError, ArgumentValueError, LayerHelper,
                      check_type, check_variable_and_dtype)
from . import abs as _abs
from . import (add, all as _all, cast, concat, full, matmul, multiply, reshape, scale, subtract,
               sum as _sum)
from .elementwise_more import isnan
from .indexing_more import plane_op
from .math_more import _SPLIT_DTYPES, _split_axis, unbind
from .manipulation import slice as slice_
from .search import where
from .shaping import expand

_FLOATS = ("float16", "bfloat16", "float32", "float64")
_FLOAT_TYPES = (VarType.FP16, VarType.BF16, VarType.FP32, VarType.FP64)


def unstack(x: Variable, axis: int = 0, num: int | None = None) -> list[Variable]:
    """paddle.unstack: x cut into its x.shape[axis] slices along axis (that dim removed);
    num, when given, must be that size."""
    check_variable_and_dtype(x, "x", _SPLIT_DTYPES, "unstack")
    dim = _split_axis(x, axis, "unstack")
    if num is not None and num != x.shape[dim]:
        raise ArgumentValueError(f"unstack: num ({num}) must equal the size of dimension "
                                 f"{axis} ({x.shape[dim]})")
    if x.shape[dim] == 0:
        return []
    return unbind(x, dim)


_DIAGONAL_DTYPES = ("bool", "int32", "int64", "float16", "bfloat16", "float32", "float64")


def diagonal(x: Variable, offset: int = 0, axis1: int = 0, axis2: int = 1,
             name: str | None = None) -> Variable:
    """paddle.diagonal: x's offset-th diagonals of its (axis1, axis2) planes, those dims removed
    and the diagonal appended as the last dim."""
    check_variable_and_dtype(x, "Input", _DIAGONAL_DTYPES, "diagonal")
    for arg, value in (("offset", offset), ("axis1", axis1), ("axis2", axis2)):
        check_type(value, arg, int, "diagonal")
    return plane_op("diagonal", x, offset, axis1, axis2, name)


_MESHGRID_DTYPES = ("float16", "bfloat16", "float32", "float64", "int32", "int64")


def meshgrid(*args, **kwargs) -> list[Variable]:
    """paddle.meshgrid: N 0-D or 1-D tensors (or one list of them) as N grids of shape
    [n_0, ..., n_{N-1}] ("ij" indexing): grid i repeats tensor i along the other dims."""
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        args = tuple(args[0])
    if not args:
        raise ArgumentValueError("meshgrid needs at least one tensor")
    sizes = []
    for i, x in enumerate(args):
        check_variable_and_dtype(x, f"x[{i}]", _MESHGRID_DTYPES, "meshgrid")
        if len(x.shape) > 1:
            raise ArgumentValueError(f"meshgrid: each input must be 0-D or 1-D, got shape "
                                     f"{list(x.shape)} for input {i}")
        n = x.shape[0] if x.shape else 1
        if n < 0:
            raise ArgumentValueError(f"meshgrid: the size of input {i} must be known")
        sizes.append(int(n))
    if len({x.dtype for x in args}) > 1:
        raise ArgumentTypeError(f"meshgrid: all inputs must have one dtype, got "
                                f"{[x.dtype.name for x in args]}")
    return [expand(reshape(x, [n if j == i else 1 for j, n in enumerate(sizes)]), sizes)
            for i, x in enumerate(args)]


def broadcast_shape(x_shape, y_shape) -> list[int]:
    """paddle.broadcast_shape: the shape x_shape and y_shape broadcast to (numpy's rules)."""
    check_type(x_shape, "x_shape", (list, tuple), "broadcast_shape")
    check_type(y_shape, "y_shape", (list, tuple), "broadcast_shape")
    n = max(len(x_shape), len(y_shape))
    xs = [1] * (n - len(x_shape)) + [int(d) for d in x_shape]
    ys = [1] * (n - len(y_shape)) + [int(d) for d in y_shape]
    out = []
    for i, (a, b) in enumerate(zip(xs, ys)):
        if a != b and 1 not in (a, b):
            raise ArgumentValueError(
                f"(InvalidArgument) Broadcast dimension mismatch. Operands could not be "
                f"broadcast together with the shape of X = {list(x_shape)} and the shape of "
                f"Y = {list(y_shape)}. Received [{a}] in X is not equal to [{b}] in Y at i:{i}.")
        out.append(b if a == 1 else a)
    return out


_BROADCAST_DTYPES = ("bool", "float16", "bfloat16", "float32", "float64", "int32", "int64")


def broadcast_tensors(input, name: str | None = None) -> list[Variable]:  # noqa: A002
    """paddle.broadcast_tensors: the tensors of the list `input` each broadcast to their common
    shape (all dims known)."""
    check_type(input, "input", (list, tuple), "broadcast_tensors")
    if not input:
        raise ArgumentValueError("broadcast_tensors: input must hold at least one tensor")
    for i, x in enumerate(input):
        check_variable_and_dtype(x, f"input[{i}]", _BROADCAST_DTYPES, "broadcast_tensors")
        if any(d < 0 for d in x.shape):
            raise ArgumentValueError(f"broadcast_tensors: input[{i}]'s shape {list(x.shape)} "
                                     f"has unknown dims; fluidc broadcasts known shapes only")
    shape = []
    for x in input:
        shape = broadcast_shape(shape, x.shape)
    return [x if list(x.shape) == shape else expand(x, shape) for x in input]


def masked_fill(x: Variable, mask: Variable, value, name: str | None = None) -> Variable:
    """paddle.masked_fill: value (a number or a tensor) where the bool mask is True, x elsewhere
    (x, mask and value broadcast together)."""
    check_type(x, "x", Variable, "masked_fill")
    check_variable_and_dtype(mask, "mask", ("bool",), "masked_fill")
    if not isinstance(value, Variable):
        check_type(value, "value", (bool, int, float, np.number), "masked_fill")
        value = full([], value, x.dtype)
    return where(_compare.logical_not(mask), x, value, name=name)


def nan_to_num(x: Variable, nan: float = 0.0, posinf: float | None = None,
               neginf: float | None = None, name: str | None = None) -> Variable:
    """paddle.nan_to_num: x with NaN replaced by nan, +inf by posinf and -inf by neginf (by
    default the largest and lowest finite values of x's dtype); the gradient flows where x is
    finite."""
    check_variable_and_dtype(x, "x", ("float32", "float64"), "nan_to_num")
    info = np.finfo(to_numpy_dtype(x.dtype))
    posinf = float(info.max) if posinf is None else posinf
    neginf = float(info.min) if neginf is None else neginf
    for value, limit in ((nan, "nan"), (posinf, "posinf"), (neginf, "neginf")):
        check_type(value, limit, (int, float, np.number), "nan_to_num")
    def const(value):  # paddle.full keeps float64 values exact (full_like's attr is float32)
        return full([], float(value), x.dtype)

    out = where(isnan(x), const(nan), x)
    for limit, value in ((np.inf, posinf), (-np.inf, neginf)):
        out = where(_compare.equal(x, const(limit)), const(value), out)
    return out


def nansum(x: Variable, axis=None, dtype=None, keepdim: bool = False,
           name: str | None = None) -> Variable:
    """paddle.nansum: paddle.sum with NaNs counted as zero."""
    check_variable_and_dtype(x, "x", ("float16", "bfloat16", "float32", "float64", "int32",
                                      "int64"), "nansum")
    if x.dtype in _FLOAT_TYPES:
        x = where(isnan(x), _tensor.zeros_like(x), x)
    return _sum(x, axis=axis, dtype=dtype, keepdim=keepdim, name=name)


def lerp(x: Variable, y: Variable, weight, name: str | None = None) -> Variable:
    """paddle.lerp: x + weight * (y - x), weight a float or a tensor (broadcast together)."""
    if isinstance(weight, float):
        weight = full([], weight, x.dtype)
    for arg, v in (("x", x), ("y", y), ("weight", weight)):
        check_variable_and_dtype(v, arg, _FLOATS, "lerp")
    return add(x, multiply(weight, subtract(y, x)), name=name)


def mv(x: Variable, vec: Variable, name: str | None = None) -> Variable:
    """paddle.mv: the product of the matrix x [m, n] and the vector vec [n]: [m]."""
    check_variable_and_dtype(x, "x", _FLOATS, "mv")
    check_variable_and_dtype(vec, "vec", _FLOATS, "mv")
    if len(x.shape) != 2:
        raise ArgumentValueError(f"x should be 2 dimensional. But received x's dimension: "
                                 f"{len(x.shape)}")
    if len(vec.shape) != 1:
        raise ArgumentValueError(f"vec should be 1 dimensional. But received vec's "
                                 f"dimension: {len(vec.shape)}")
    if x.shape[1] >= 0 and vec.shape[0] >= 0 and x.shape[1] != vec.shape[0]:
        raise ArgumentValueError(f"X's second dimension is expected to be equal to Vec's first "
                                 f"dimension, but received X'shape = {list(x.shape)}, Vec's "
                                 f"shape = {list(vec.shape)}")
    return matmul(x, vec, name=name)


def inner(x: Variable, y: Variable, name: str | None = None) -> Variable:
    """paddle.inner: sums of products over the last dims of x and y, shape x.shape[:-1] +
    y.shape[:-1]; a one-element operand multiplies instead."""
    check_variable_and_dtype(x, "x", _FLOATS, "inner")
    check_variable_and_dtype(y, "y", _FLOATS, "inner")
    if math.prod(x.shape) == 1 or math.prod(y.shape) == 1:
        return multiply(x, y, name=name)
    xs, ys = list(x.shape), list(y.shape)
    if -1 in xs[:-1] + ys[:-1] or xs[-1] != ys[-1]:
        raise ArgumentValueError(f"After performing an optional transpose, Input X's last dim "
                                 f"should be equal to Y's last dim for multiplication "
                                 f"prerequisites. But received X's shape: {xs}, Y's shape: "
                                 f"{ys}.")
    out = matmul(reshape(x, [-1, xs[-1]]), reshape(y, [-1, ys[-1]]), transpose_y=True)
    return reshape(out, xs[:-1] + ys[:-1], name=name)


def logical_xor(x: Variable, y: Variable, out: Variable | None = None,
                name: str | None = None) -> Variable:
    """paddle.logical_xor: exactly one of x and y nonzero, elementwise (bool)."""
    either = _compare.logical_or(x, y)
    return _compare.logical_and(either, _compare.logical_not(_compare.logical_and(x, y)),
                                out=out, name=name)


def _close(x: Variable, y: Variable, rtol, atol, equal_nan, api: str) -> Variable:
    """|x - y| <= atol + rtol * |y| (Paddle's kernel: infinities of one sign, and an infinite y,
    count as close; its 1e-15 slack kept), NaNs equal where equal_nan."""
    check_type(rtol, "rtol", float, api)
    check_type(atol, "atol", float, api)
    check_type(equal_nan, "equal_nan", bool, api)
    if x.dtype != y.dtype:
        raise ArgumentTypeError(f"{api}: x and y must have one dtype, got {x.dtype.name} and "
                                f"{y.dtype.name}")
    if x.dtype not in _FLOAT_TYPES:
        x, y = cast(x, "float64"), cast(y, "float64")
    bound = scale(_abs(y), rtol, atol + 1e-15)
    close = _compare.logical_or(_compare.equal(x, y),
                                _compare.less_equal(_abs(subtract(x, y)), bound))
    if equal_nan:
        close = _compare.logical_or(close, _compare.logical_and(isnan(x), isnan(y)))
    return close


def isclose(x: Variable, y: Variable, rtol: float = 1e-05, atol: float = 1e-08,
            equal_nan: bool = False, name: str | None = None) -> Variable:
    """paddle.isclose: |x - y| <= atol + rtol * |y| elementwise (bool)."""
    check_variable_and_dtype(x, "input", ("float16", "float32", "float64"), "isclose")
    check_variable_and_dtype(y, "input", ("float16", "float32", "float64"), "isclose")
    return _close(x, y, rtol, atol, equal_nan, "isclose")


def allclose(x: Variable, y: Variable, rtol: float = 1e-05, atol: float = 1e-08,
             equal_nan: bool = False, name: str | None = None) -> Variable:
    """paddle.allclose: whether isclose holds everywhere (0-D bool); ints compared as float64."""
    dtypes = ("float16", "float32", "float64", "int32", "int64")
    check_variable_and_dtype(x, "input", dtypes, "allclose")
    check_variable_and_dtype(y, "input", dtypes, "allclose")
    return _all(_close(x, y, rtol, atol, equal_nan, "allclose"), name=name)


def equal_all(x: Variable, y: Variable, name: str | None = None) -> Variable:
    """paddle.equal_all: whether x and y have one shape and equal elements (0-D bool; False
    for known shapes that differ)."""
    dtypes = ("bool", "float16", "float32", "float64", "int32", "int64")
    check_variable_and_dtype(x, "x", dtypes, "equal_all")
    check_variable_and_dtype(y, "y", dtypes, "equal_all")
    if x.dtype != y.dtype:
        raise ArgumentTypeError(f"equal_all: x and y must have one dtype, got {x.dtype.name} "
                                f"and {y.dtype.name}")
    if len(x.shape) != len(y.shape) or any(a != b and a >= 0 and b >= 0
                                           for a, b in zip(x.shape, y.shape)):
        return full([], False, "bool", name=name)
    return _all(_compare.equal(x, y), name=name)


_CUMPROD_DTYPES = ("float32", "float64", "int32", "int64")


def cumprod(x: Variable, dim: int | None = None, dtype=None, name: str | None = None) -> Variable:
    """paddle.cumprod: the running products of x along dim (None: of x flattened), x cast to
    dtype first when given."""
    check_variable_and_dtype(x, "x", _CUMPROD_DTYPES, "cumprod")
    if dtype is not None:
        x = cast(x, dtype)
        check_variable_and_dtype(x, "dtype", _CUMPROD_DTYPES, "cumprod")
    if dim is None:
        x, dim = reshape(x, [-1]), 0
    check_type(dim, "dim", int, "cumprod")
    rank = max(len(x.shape), 1)
    if not -rank <= dim < rank:
        raise ArgumentValueError(f"(InvalidArgument) Attr(axis) value should be in range "
                                 f"[-R, R-1], R is the rank of Input(X); got dim {dim} for rank "
                                 f"{len(x.shape)}")
    helper = LayerHelper("cumprod", name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op("cumprod", inputs={"X": [x]}, outputs={"Out": [out]}, attrs={"dim": dim})
    return out


_DIFF_DTYPES = ("bool", "float16", "float32", "float64", "int32", "int64")


def diff(x: Variable, n: int = 1, axis: int = -1, prepend: Variable | None = None,
         append: Variable | None = None, name: str | None = None) -> Variable:
    """paddle.diff: the n-th forward differences of x along axis (xor for bool), prepend and
    append joined to x along axis first."""
    check_variable_and_dtype(x, "x", _DIFF_DTYPES, "diff")
    check_type(n, "n", int, "diff")
    if n < 1:
        raise ArgumentValueError(f"diff: n must be a positive int, got {n}")
    if not x.shape:
        raise ArgumentValueError("Diff expects input to be at least one-dimensional but got 0")
    dim = _split_axis(x, axis, "diff")
    parts = [p for p in (prepend, x, append) if p is not None]
    for arg, p in (("prepend", prepend), ("append", append)):
        if p is not None:
            check_type(p, arg, Variable, "diff")
            if p.dtype != x.dtype:
                raise ArgumentTypeError(f"diff: {arg} must have x's dtype {x.dtype.name}, got "
                                        f"{p.dtype.name}")
    out = concat(parts, axis=dim) if len(parts) > 1 else x
    length = out.shape[dim]
    if length < 0:
        raise ArgumentValueError(f"diff: the size of dimension {axis} must be known, got shape "
                                 f"{list(out.shape)}")
    if n >= length:
        raise ArgumentValueError(f"diff: n ({n}) must be less than the size of dimension {axis} "
                                 f"({length}); fluidc does not make empty tensors")
    step = logical_xor if x.dtype == VarType.BOOL else subtract
    for k in range(n):
        size = length - k
        out = step(slice_(out, [dim], [1], [size]), slice_(out, [dim], [0], [size - 1]))
    return out
