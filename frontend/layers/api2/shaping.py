"""The 2.x layers that add, drop or repeat dims and pick the top k: paddle.stack, squeeze(_),
unsqueeze(_), expand, topk. Their int arguments take Variables as Paddle's do, passed as the op's
tensor inputs (K, Shape, AxesTensor, ...): fluidc folds their values, fed or fixed by the
program, into the op before planning a run (passes/shape_inputs.py)."""
from __future__ import annotations

import numpy as np

from ...dtypes import VarType
from ...framework import Variable
from .. import conv as _conv
from .. import nn as _nn
from .. import tensor as _tensor
from ..helper import (ArgumentValueError, LayerHelper, check_type, check_variable_and_dtype,
                      static_inplace)


def int_list_inputs(values, arg: str, layer: str) -> tuple[list[int], list[Variable] | None]:
    """A list argument of ints where Paddle also takes Variables (a shape, axes, sections), as
    Paddle passes it: (the ints, None) when no item is a Variable; otherwise (the attribute, -1
    for each Variable, and one tensor per item: the Variables, the ints as int32
    fill_constants), the op reading the tensors when the program runs (shape inputs)."""
    if not any(isinstance(v, Variable) for v in values):
        for i, v in enumerate(values):
            check_type(v, f"{arg}[{i}]", (int, np.integer), layer)
        return [int(v) for v in values], None
    attr, tensors = [], []
    for i, v in enumerate(values):
        if isinstance(v, Variable):
            check_variable_and_dtype(v, f"{arg}[{i}]", ("int32", "int64"), layer)
            attr.append(-1)
            tensors.append(v)
        else:
            check_type(v, f"{arg}[{i}]", (int, np.integer), layer)
            attr.append(int(v))
            tensors.append(_tensor.fill_constant([1], "int32", int(v)))
    return attr, tensors


_NUMERIC = ("bool", "float16", "bfloat16", "float32", "float64", "int8", "uint8", "int16",
            "int32", "int64", "complex64", "complex128")
_INT_OR_LIST = (int, np.integer, list, tuple, Variable)


def stack(x, axis: int = 0, name: str | None = None) -> Variable:
    """paddle.stack: tensors of one shape joined along a new axis; x must be a list or tuple (a
    lone Variable is a TypeError, as in Paddle's static mode)."""
    check_type(x, "x", (list, tuple), "stack", "(a lone Variable: pass [x])")
    for i, v in enumerate(x):
        check_variable_and_dtype(v, f"x[{i}]", _NUMERIC, "stack")
    check_type(axis, "axis", (int, np.integer), "stack")
    return _conv.stack(list(x), int(axis), name=name)


def squeeze(x: Variable, axis=None, name: str | None = None) -> Variable:
    """paddle.squeeze: x without the size-1 dims listed in axis (all of them when None); a listed
    dim of another size stays (squeeze2)."""
    check_variable_and_dtype(x, "x", _NUMERIC, "squeeze")
    if axis is not None:
        check_type(axis, "axis", (int, np.integer, list, tuple), "squeeze")
    axes = [] if axis is None else [axis] if isinstance(axis, (int, np.integer)) else list(axis)
    for i, a in enumerate(axes):
        check_type(a, f"axis[{i}]", (int, np.integer), "squeeze")
    return _conv.squeeze(x, [int(a) for a in axes], name=name)


def unsqueeze(x: Variable, axis, name: str | None = None) -> Variable:
    """paddle.unsqueeze: x with size-1 dims inserted at axis, in turn (unsqueeze2); an int
    Variable axis (AxesTensor) or Variables in the list (AxesTensorList) are read when the
    program runs."""
    check_variable_and_dtype(x, "x", _NUMERIC, "unsqueeze")
    check_type(axis, "axis", _INT_OR_LIST, "unsqueeze")
    if isinstance(axis, Variable):
        check_variable_and_dtype(axis, "axis", ("int32", "int64"), "unsqueeze")
        axes, tensors = [], {"AxesTensor": [axis]}
    else:
        axes, listed = int_list_inputs([axis] if isinstance(axis, (int, np.integer)) else axis,
                                       "axis", "unsqueeze")
        axes, tensors = (axes, {}) if listed is None else ([], {"AxesTensorList": listed})
    return _conv._out(LayerHelper("unsqueeze2", name=name), "unsqueeze2", {"X": [x], **tensors},
                      {"axes": axes}, xshape=True)


squeeze_ = static_inplace(squeeze, "squeeze")
unsqueeze_ = static_inplace(unsqueeze, "unsqueeze")

_EXPAND_DTYPES = ("bool", "float16", "bfloat16", "float32", "float64", "int32", "int64", "uint8",
                  "complex64", "complex128")


def expand(x: Variable, shape, name: str | None = None) -> Variable:
    """paddle.expand: x broadcast to shape (-1 keeps x's dim; new dims lead) by expand_v2. Bool x
    must have stop_gradient set, as Paddle requires."""
    check_variable_and_dtype(x, "x", _EXPAND_DTYPES, "expand")
    check_type(shape, "shape", (list, tuple, Variable), "expand")
    if x.dtype == VarType.BOOL and not x.stop_gradient:
        raise ArgumentValueError("When the data type of input 'x' for expand is bool, you must "
                                 "set its stop_gradient to be True (bool data has no gradient)")
    inputs, attrs = {"X": [x]}, {}
    if isinstance(shape, Variable):
        check_variable_and_dtype(shape, "shape", ("int32", "int64"), "expand")
        inputs["Shape"] = [shape]
    else:
        attrs["shape"], tensors = int_list_inputs(shape, "shape", "expand")
        if tensors is not None:
            inputs["expand_shapes_tensor"] = tensors
    helper = LayerHelper("expand_v2", name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op("expand_v2", inputs=inputs, outputs={"Out": [out]}, attrs=attrs)
    return out


_TOPK_DTYPES = ("float16", "bfloat16", "float32", "float64", "int32", "int64")


def topk(x: Variable, k, axis=None, largest: bool = True, sorted: bool = True,  # noqa: A002
         name: str | None = None) -> tuple[Variable, Variable]:
    """paddle.topk: the k largest (smallest when not largest) values along axis (the last when
    None) and their int64 indices, by top_k_v2. Ties keep the lower index first; sorted=False
    gets the same sorted order (any order is Paddle's contract then)."""
    check_variable_and_dtype(x, "x", _TOPK_DTYPES, "topk")
    check_type(k, "k", (int, np.integer, Variable), "topk")
    inputs, attrs = {"X": [x]}, {"axis": -1 if axis is None else int(axis),
                                 "largest": bool(largest), "sorted": bool(sorted)}
    if isinstance(k, Variable):  # the K input: its value is read when the program runs
        check_variable_and_dtype(k, "k", ("int32", "int64"), "topk")
        inputs["K"] = [k]
    elif k <= 0:
        raise ArgumentValueError(f"topk: k must be positive, got {k}")
    else:
        attrs["k"] = int(k)
    helper = LayerHelper("top_k_v2", name=name)
    values = helper.create_variable_for_type_inference(x.dtype)
    indices = helper.create_variable_for_type_inference(VarType.INT64, stop_gradient=True)
    helper.append_op("top_k_v2", inputs=inputs, outputs={"Out": [values], "Indices": [indices]},
                     attrs=attrs)
    return values, indices


def argsort(x: Variable, axis: int = -1, descending: bool = False, stable: bool = False,
            name: str | None = None) -> Variable:
    """paddle.argsort: the int64 indices that sort x along axis (stable; ties keep the lower
    index first)."""
    check_variable_and_dtype(x, "x", _nn.ARGSORT_DTYPES, "argsort")
    return _nn.argsort(x, axis, descending, name, stable)[1]


def sort(x: Variable, axis: int = -1, descending: bool = False, stable: bool = False,
         name: str | None = None) -> Variable:
    """paddle.sort: x's values sorted along axis (the argsort op's Out)."""
    check_variable_and_dtype(x, "x", _nn.ARGSORT_DTYPES, "sort")
    return _nn.argsort(x, axis, descending, name, stable)[0]


__all__ = ["argsort", "expand", "sort", "squeeze", "squeeze_", "stack", "topk", "unsqueeze",
           "unsqueeze_"]
