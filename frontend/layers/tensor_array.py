"""Tensor arrays (Paddle's LOD_TENSOR_ARRAY vars): create_array, array_write, array_read,
array_length, tensor_array_to_tensor (fluid.layers.* and paddle.tensor.*).

An array var's shape records its entries' shape (that of the first write), so a read's output
has a shape when the program is built; its length is known at run time only (see
frontend/ops/tensor_array.py for how such programs run)."""
from __future__ import annotations

from .. import unique_name
from ..dtypes import VarType, convert_dtype
from ..framework import Variable, default_main_program
from .helper import ArgumentTypeError, LayerHelper, check_type, check_variable_and_dtype


def _check_array(array, arg: str, layer: str) -> None:
    if not isinstance(array, Variable) or array.type != VarType.LOD_TENSOR_ARRAY:
        raise ArgumentTypeError(f"{layer}: '{arg}' must be a tensor array (a Variable made by "
                                f"create_array or array_write), got "
                                f"{getattr(array, 'name', type(array).__name__)!r}")


def _check_index(i, layer: str) -> None:
    check_variable_and_dtype(i, "i", ("int64",), layer)
    if tuple(i.shape) not in ((1,), ()):
        raise ArgumentTypeError(f"{layer}: index 'i' ({i.name}) must hold one int64 value, its "
                                f"shape is {list(i.shape)}")


def create_array(dtype, initialized_list=None) -> Variable:
    """An empty tensor array of `dtype` (with the vars of initialized_list written at 0, 1,
    ...)."""
    items = list(initialized_list) if initialized_list is not None else []
    check_type(items, "initialized_list", list, "create_array")
    for k, v in enumerate(items):
        if not isinstance(v, Variable):
            raise ArgumentTypeError(f"All values in `initialized_list` should be Variable, but "
                                    f"received {type(v).__name__} at {k}.")
    block = default_main_program().current_block()
    array = block.create_var(name=unique_name.generate("array") + ".out",
                             type=VarType.LOD_TENSOR_ARRAY, dtype=convert_dtype(dtype))
    if items:
        from .tensor import fill_constant
        for k, v in enumerate(items):
            array_write(v, fill_constant([1], "int64", k), array)
    return array


def array_write(x: Variable, i: Variable, array: Variable | None = None) -> Variable:
    """array[i] = x (the array grows to i + 1 entries if shorter); a new array if None."""
    check_variable_and_dtype(x, "x", ("bool", "float16", "float32", "float64", "int32",
                                      "int64", "uint8"), "array_write")
    _check_index(i, "array_write")
    if array is None:
        array = create_array(x.dtype)
    _check_array(array, "array", "array_write")
    if not array.shape:
        array.shape = tuple(x.shape)
    LayerHelper("array_write").append_op("write_to_array", {"X": [x], "I": [i]},
                                         {"Out": [array]})
    return array


def array_read(array: Variable, i: Variable) -> Variable:
    """array[i]."""
    _check_array(array, "array", "array_read")
    _check_index(i, "array_read")
    helper = LayerHelper("array_read")
    out = helper.create_variable_for_type_inference(array.dtype)
    helper.append_op("read_from_array", {"X": [array], "I": [i]}, {"Out": [out]})
    return out


def array_length(array: Variable) -> Variable:
    """The array's length, an int64 [1] tensor."""
    _check_array(array, "array", "array_length")
    helper = LayerHelper("array_length")
    out = helper.create_variable_for_type_inference(VarType.INT64, stop_gradient=True)
    helper.append_op("lod_array_length", {"X": [array]}, {"Out": [out]})
    return out


def tensor_array_to_tensor(input: Variable, axis: int = 1, name: str | None = None,
                           use_stack: bool = False) -> tuple[Variable, Variable]:
    """The array's entries concatenated (stacked if use_stack) along axis, and the int32 sizes
    each gave along it."""
    _check_array(input, "input", "tensor_array_to_tensor")
    check_type(axis, "axis", int, "tensor_array_to_tensor")
    helper = LayerHelper("tensor_array_to_tensor", name=name)
    out = helper.create_variable_for_type_inference(input.dtype)
    index = helper.create_variable_for_type_inference(VarType.INT32, stop_gradient=True)
    helper.append_op("tensor_array_to_tensor", {"X": [input]},
                     {"Out": [out], "OutIndex": [index]},
                     {"axis": int(axis), "use_stack": bool(use_stack)})
    return out, index
