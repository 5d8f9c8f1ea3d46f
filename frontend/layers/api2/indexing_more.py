"""The 2.x matrix and indexing layers: paddle.tril, paddle.triu, paddle.gather_nd,
paddle.index_select, paddle.roll, paddle.eye, paddle.diag, paddle.trace and paddle.kron (ops in
frontend/ops/indexing_more.py)."""
from __future__ import annotations

import numpy as np

from ...dtypes import convert_dtype, default_float
from ...framework import Variable, in_dygraph_mode
from ..helper import (ArgumentTypeError, ArgumentValueError, LayerHelper, ShapeAssertionError,
                      check_dtype, check_type, check_variable_and_dtype)

_TRIL_DTYPES = ("float16", "bfloat16", "float32", "float64", "int32", "int64", "bool",
                "complex64", "complex128")
_GATHER_ND_DTYPES = ("bool", "float16", "bfloat16", "float32", "float64", "int16", "int32",
                     "int64")
_SELECT_DTYPES = ("bool", "bfloat16", "float16", "float32", "float64", "int32", "int64",
                  "complex64", "complex128")
_INDEX_DTYPES = ("int32", "int64")


def _one_op(op: str, layer: str, inputs: dict, attrs: dict, dtype, name) -> Variable:
    helper = LayerHelper(layer, name=name)
    out = helper.create_variable_for_type_inference(dtype)
    helper.append_op(op, inputs=inputs, outputs={"Out": [out]}, attrs=attrs)
    return out


def _tril_triu(layer: str, x: Variable, diagonal, name) -> Variable:
    check_variable_and_dtype(x, "x", _TRIL_DTYPES, layer)
    if len(x.shape) < 2:
        raise ArgumentValueError(f"x shape in {layer} must be at least 2-D, got "
                                 f"{list(x.shape)}")
    if not isinstance(diagonal, int) or isinstance(diagonal, bool):
        raise ArgumentTypeError(f"diagonal in {layer} must be a python Int, got "
                                f"{type(diagonal).__name__}")
    return _one_op("tril_triu", layer, {"X": [x]},
                   {"diagonal": diagonal, "lower": layer == "tril"}, x.dtype, name)


def tril(x: Variable, diagonal: int = 0, name: str | None = None) -> Variable:
    """paddle.tril: x's last two dims kept on and below the diagonal-th diagonal, 0 above."""
    return _tril_triu("tril", x, diagonal, name)


def triu(x: Variable, diagonal: int = 0, name: str | None = None) -> Variable:
    """paddle.triu: x's last two dims kept on and above the diagonal-th diagonal, 0 below."""
    return _tril_triu("triu", x, diagonal, name)


def gather_nd(x: Variable, index: Variable, name: str | None = None) -> Variable:
    """paddle.gather_nd: out[i...] = x[index[i..., :]], index's last dim naming x's first dims
    (negative positions count from the end)."""
    check_variable_and_dtype(x, "x", _GATHER_ND_DTYPES, "gather_nd")
    check_variable_and_dtype(index, "index", _INDEX_DTYPES, "gather_nd")
    return _one_op("gather_nd", "gather_nd", {"X": [x], "Index": [index]}, {}, x.dtype, name)


def index_select(x: Variable, index: Variable, axis: int = 0,
                 name: str | None = None) -> Variable:
    """paddle.index_select: the slices of x along axis at the positions of a 1-D index."""
    check_variable_and_dtype(x, "x", _SELECT_DTYPES, "paddle.tensor.search.index_select")
    check_variable_and_dtype(index, "index", _INDEX_DTYPES, "paddle.tensor.search.index_select")
    check_type(axis, "axis", int, "index_select")
    return _one_op("index_select", "index_select", {"X": [x], "Index": [index]}, {"dim": axis},
                   x.dtype, name)


def _int_list(value, arg: str) -> list[int]:
    check_type(value, arg, (int, list, tuple), "roll")
    values = [value] if isinstance(value, int) else list(value)
    for v in values:
        check_type(v, arg, int, "roll")
    return values


def roll(x: Variable, shifts, axis=None, name: str | None = None) -> Variable:
    """paddle.roll: x's elements shifted (circularly) by shifts along axis; with no axis, along
    x flattened (then one shift)."""
    check_type(x, "x", Variable, "roll")
    shifts = _int_list(shifts, "shifts")
    axes = [] if axis is None else _int_list(axis, "axis")
    rank = len(x.shape)
    for a in axes:
        if not -rank <= a < rank:
            raise ArgumentValueError(f"roll: axis is out of range, it should be in range "
                                     f"[{-rank}, {rank}), but received {a}")
    return _one_op("roll", "roll", {"X": [x]}, {"axis": axes, "shifts": shifts}, x.dtype, name)


_EYE_DTYPES = ("float16", "float32", "float64", "bfloat16", "int32", "int64", "complex64",
               "complex128")


def _size(value, arg: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
        raise ArgumentTypeError(f"{arg} should be a non-negative int.")
    return int(value)


def eye(num_rows: int, num_columns: int | None = None, dtype=None,
        name: str | None = None) -> Variable:
    """paddle.eye: a [num_rows, num_columns] (default num_rows) matrix with ones on the
    diagonal, of dtype (default: the default float dtype)."""
    rows = _size(num_rows, "num_rows")
    cols = rows if num_columns is None else _size(num_columns, "num_columns")
    dtype = default_float(dtype)
    check_dtype(dtype, "dtype", _EYE_DTYPES, "eye")
    helper = LayerHelper("eye", name=name)
    out = helper.create_variable_for_type_inference(convert_dtype(dtype), stop_gradient=True)
    helper.append_op("eye", inputs={}, outputs={"Out": [out]},
                     attrs={"num_rows": rows, "num_columns": cols,
                            "dtype": int(convert_dtype(dtype))})
    return out


_DIAG_DTYPES = ("float16", "bfloat16", "float32", "float64", "int32", "int64", "complex64",
                "complex128")


def diag(x: Variable, offset: int = 0, padding_value=0, name: str | None = None) -> Variable:
    """paddle.diag: a 1-D x put on the offset-th diagonal of a square matrix (padding_value
    elsewhere), or a 2-D x's offset-th diagonal. In static mode Paddle marks the result
    stop_gradient (no gradient flows back through it); in dygraph it has one."""
    check_type(x, "x", Variable, "diag_v2")
    check_dtype(x.dtype, "x", _DIAG_DTYPES, "diag_v2")
    check_type(offset, "offset", int, "diag_v2")
    check_type(padding_value, "padding_value", (int, float), "diag_v2")
    if len(x.shape) not in (1, 2):
        raise ArgumentValueError(f"The dimension of input x must be either 1 or 2, but "
                                 f"received {len(x.shape)}")
    out = _one_op("diag_v2", "diag_v2", {"X": [x]},
                  {"offset": offset, "padding_value": float(padding_value)}, x.dtype, name)
    if not in_dygraph_mode():
        out.stop_gradient = True
    return out


def trace(x: Variable, offset: int = 0, axis1: int = 0, axis2: int = 1,
          name: str | None = None) -> Variable:
    """paddle.trace: the sums of x's offset-th diagonals over its (axis1, axis2) planes."""
    check_dtype(x.dtype, "Input", ("int32", "int64", "float16", "float32", "float64"), "trace")
    return plane_op("trace", x, offset, axis1, axis2, name)


def plane_op(op: str, x: Variable, offset: int, axis1: int, axis2: int, name) -> Variable:
    """An op over x's offset-th diagonals of its (axis1, axis2) planes (trace, diagonal), after
    Paddle's checks of the planes."""
    rank = len(x.shape)
    if rank < 2:
        raise ShapeAssertionError(f"The x must be at least 2-dimensional, But received Input "
                                  f"x's dimensional: {rank}.")
    for arg, axis in (("axis1", axis1), ("axis2", axis2)):
        if not -rank <= axis < rank:
            raise ShapeAssertionError(f"The argument {arg} is out of range (expected to be in "
                                      f"range of [{-rank}, {rank - 1}], but got {axis}).")
    if axis1 % rank == axis2 % rank:
        raise ShapeAssertionError(f"axis1 and axis2 cannot be the same axis.But received "
                                  f"axis1 = {axis1}, axis2 = {axis2}")
    return _one_op(op, op, {"Input": [x]}, {"offset": offset, "axis1": axis1, "axis2": axis2},
                   x.dtype, name)


_KRON_DTYPES = ("float16", "float32", "float64", "int32", "int64", "bfloat16")


def kron(x: Variable, y: Variable, name: str | None = None) -> Variable:
    """paddle.kron: the Kronecker product of x and y (the lower-rank one padded with leading
    1-dims)."""
    check_variable_and_dtype(x, "x", _KRON_DTYPES, "kron")
    check_variable_and_dtype(y, "y", _KRON_DTYPES, "kron")
    return _one_op("kron", "kron", {"X": [x], "Y": [y]}, {}, x.dtype, name)
