"""paddle.where: elements of x where a condition holds, of y elsewhere (the `where` op);
paddle.argmax / argmin (the arg_max / arg_min ops)."""
from __future__ import annotations

import numpy as np

from ...dtypes import convert_dtype
from ...errors import FluidcError
from ...framework import Variable
from .. import tensor as _tensor
from ..helper import (ArgumentTypeError, ArgumentValueError, LayerHelper, check_dtype,
                      check_variable_and_dtype)
from . import add

_WHERE_DTYPES = ("bfloat16", "float16", "float32", "float64", "int32", "int64")


def _as_tensor(v):
    """A Python / numpy scalar as paddle.to_tensor makes it in a static program: a 0-d constant,
    float32 for a float (Paddle's default dtype), int64 for an int."""
    if not np.isscalar(v):
        return v
    kind = np.asarray(v).dtype.kind
    dtype = "bool" if kind == "b" else "float32" if kind == "f" else "int64"
    return _tensor.assign(np.array(v, dtype))


def where(condition, x=None, y=None, name=None):
    """x where condition is True, y elsewhere. condition, x and y broadcast as Paddle does it
    in a static program: each is added to zeros of the other two's shapes (then the one `where`
    op sees three tensors of one shape)."""
    if x is None and y is None:
        raise FluidcError("paddle.where(condition) without x and y is paddle.nonzero, whose "
                          "output size depends on the data; fluidc plans need static shapes")
    if x is None or y is None:
        raise ValueError("either both or neither of x and y should be given")
    x, y = _as_tensor(x), _as_tensor(y)
    check_variable_and_dtype(condition, "condition", ("bool",), "where")
    check_variable_and_dtype(x, "x", _WHERE_DTYPES, "where")
    check_variable_and_dtype(y, "y", _WHERE_DTYPES, "where")
    if not (list(x.shape) == list(y.shape) == list(condition.shape)):
        zeros = add(add(_tensor.zeros_like(x), _tensor.zeros_like(y)),
                    _tensor.cast(_tensor.zeros_like(condition), x.dtype))
        x, y = add(x, zeros), add(y, zeros)
        condition = _tensor.cast(add(_tensor.cast(condition, x.dtype), zeros), "bool")
    helper = LayerHelper("where", name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op("where", inputs={"Condition": [condition], "X": [x], "Y": [y]},
                     outputs={"Out": [out]})
    return out


_ARG_DTYPES = ("float16", "float32", "float64", "int16", "int32", "int64", "uint8", "uint16")


def _arg_best(op_type: str, fn: str, x, axis, keepdim: bool, dtype, name):
    """Paddle's argmax / argmin: axis None flattens x (a 0-d index, or all-1 dims with
    keepdim), the index dtype int32 or int64; the output stops gradients."""
    if axis is not None and (isinstance(axis, bool) or not isinstance(axis, (int, np.integer))):
        raise ArgumentTypeError(f"The type of 'axis'  must be int or None in {fn}, but "
                                f"received {type(axis)}.")
    if dtype is None:
        raise ArgumentValueError(f"the value of 'dtype' in {fn} could not be None, but "
                                 f"received None")
    check_variable_and_dtype(x, "x", _ARG_DTYPES, f"paddle.{fn}")
    check_dtype(dtype, "dtype", ("int32", "int64"), fn)
    var_dtype = convert_dtype(dtype)
    helper = LayerHelper(fn, name=name)
    out = helper.create_variable_for_type_inference(var_dtype, stop_gradient=True)
    helper.append_op(op_type, inputs={"X": [x]}, outputs={"Out": [out]},
                     attrs={"axis": 0 if axis is None else int(axis), "keepdims": bool(keepdim),
                            "flatten": axis is None, "dtype": int(var_dtype)})
    return out


def argmax(x: Variable, axis=None, keepdim: bool = False, dtype="int64", name=None) -> Variable:
    """The index of the largest value along axis (of the flattened x when axis is None)."""
    return _arg_best("arg_max", "argmax", x, axis, keepdim, dtype, name)


def argmin(x: Variable, axis=None, keepdim: bool = False, dtype="int64", name=None) -> Variable:
    """The index of the smallest value along axis (of the flattened x when axis is None)."""
    return _arg_best("arg_min", "argmin", x, axis, keepdim, dtype, name)
