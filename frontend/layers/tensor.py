"""Tensor-making layers: data, fill_constant/ones/zeros, full_like/zeros_like/ones_like, cast,
assign, concat, parameters."""
from __future__ import annotations

import numpy as np

from .. import unique_name
from ..dtypes import VarType, convert_dtype, default_float, dtype_name, to_numpy_dtype
from ..framework import (Variable, default_main_program, default_startup_program,
                         in_dygraph_mode)
from ..initializer import Constant
from ..ops import scalar_values
from ..ops.range import count as range_count
from ..ops.tensor import fill_constant_attrs
from .conv import squeeze, stack
from .tensor_array import tensor_array_to_tensor
from .helper import (ALL_DTYPES, ArgumentTypeError, ArgumentValueError, LayerHelper,
                     check_dtype, check_type, check_variable_and_dtype)


def _data_shape(name: str, shape) -> list[int]:
    """A data var's shape: ints, None or -1 for a size known only when fed; anything else is
    an error naming the var (as Paddle's)."""
    if not isinstance(shape, (list, tuple)):
        raise TypeError(f"data '{name}': shape must be a list or tuple, got "
                        f"{type(shape).__name__}")
    out = []
    for d in shape:
        if d is None:
            d = -1
        if not isinstance(d, (int, np.integer)) or isinstance(d, bool):
            raise TypeError(f"data '{name}': shape {list(shape)} holds {d!r}, not an int")
        if d < -1:
            raise ValueError(f"data '{name}': shape {list(shape)} holds {d}; only -1 (or None) "
                             f"stands for a size known when fed")
        out.append(int(d))
    return out


def _data_var(name: str, shape: list[int], dtype, **kw) -> Variable:
    """The data var; declaring a name twice with another shape or dtype is an error, as in
    Paddle."""
    block = default_main_program().global_block()
    if block.has_var(name):
        old = block.var(name)
        if list(old.shape) != shape or old.dtype != convert_dtype(dtype):
            raise ValueError(f"data '{name}' exists already with shape {list(old.shape)} and "
                             f"dtype {old.dtype.name}; it cannot be declared again with shape "
                             f"{shape} and dtype {convert_dtype(dtype).name}")
    return block.create_var(name=name, shape=shape, dtype=dtype, **kw)


def data(name: str, shape, dtype="float32", lod_level: int = 0, append_batch_size: bool = True,
         stop_gradient: bool = True, type=VarType.LOD_TENSOR) -> Variable:
    """Fluid 1.x data var: a batch dim is prepended unless shape already has -1; feeds are lax."""
    shape = _data_shape(name, shape)
    if append_batch_size and -1 not in shape:
        shape = [-1] + shape
    return _data_var(name=name, shape=shape, dtype=dtype, lod_level=lod_level,
                     stop_gradient=stop_gradient, is_data=True, need_check_feed=False)


def static_data(name: str, shape, dtype=None, lod_level: int = 0) -> Variable:
    """fluid.data / paddle.static.data: the shape as declared (None = -1), feeds checked against
    it; dtype None is the default dtype."""
    shape = _data_shape(name, shape)
    return _data_var(name=name, shape=shape, dtype=default_float(dtype), lod_level=lod_level,
                     stop_gradient=True, is_data=True, need_check_feed=True)


FILL_DTYPES = ("bool", "float16", "bfloat16", "float32", "float64", "int8", "uint8", "int16",
               "int32", "int64", "complex64", "complex128")


def _check_shape(shape, layer: str) -> None:
    """Paddle's check of a creation layer's shape: a list / tuple of ints >= 0 and int
    Variables, or an int Variable."""
    check_type(shape, "shape", (Variable, list, tuple), layer)
    if isinstance(shape, Variable):
        check_dtype(shape.dtype, "shape", ("int32", "int64"), layer)
        return
    for d in shape:
        if isinstance(d, Variable):
            check_dtype(d.dtype, "element of shape", ("int32", "int64"), layer)
        elif not isinstance(d, (int, np.integer)):
            raise ArgumentTypeError(f"{layer}: all elements in shape {list(shape)} must be "
                                    f"integers when it's a list or tuple, got {d!r}")
        elif d < 0:
            raise ValueError(f"{layer}: shape {list(shape)} must be sizes >= 0 (a batch-sized "
                             f"fill is fill_constant_batch_size_like)")


def _shape_inputs(shape) -> tuple[list[int], dict]:
    """A creation op's `shape` attribute and inputs, as Paddle writes them: an int Variable is
    its ShapeTensor (the attr empty); a list holding Variables (one int each) its
    ShapeTensorList (-1 in the attr where a Variable gives the dim, the ints as [1] constants).
    int64 Variables are cast to int32 first, as Paddle's layers do. The pipeline folds their
    values in before shape inference (passes/shape_inputs.py)."""
    if isinstance(shape, Variable):
        shape.stop_gradient = True
        return [], {"ShapeTensor": [_int32(shape)]}
    attr = [-1 if isinstance(d, Variable) else int(d) for d in shape]
    if not any(isinstance(d, Variable) for d in shape):
        return attr, {}
    return attr, {"ShapeTensorList": [_int32(d) if isinstance(d, Variable) else
                                      fill_constant([1], "int32", int(d), force_cpu=True)
                                      for d in shape]}


def _int32(v: Variable) -> Variable:
    return cast(v, "int32") if v.dtype == VarType.INT64 else v


def fill_constant(shape, dtype, value, force_cpu: bool = False, out: Variable | None = None,
                  name: str | None = None) -> Variable:
    """A tensor of `shape` filled with `value`. shape: ints, a 1-D int Variable or a list of
    ints and one-int Variables (dims known when the program runs); value: a number, or a
    Variable (cast to dtype) read when the program runs (ValueTensor)."""
    check_dtype(dtype, "dtype", FILL_DTYPES, "fill_constant")
    _check_shape(shape, "fill_constant")
    dtype = convert_dtype(dtype)
    if out is not None:
        check_variable_and_dtype(out, "out", (dtype_name(dtype),), "fill_constant")
    helper = LayerHelper("fill_constant", name=name)
    attr_shape, inputs = _shape_inputs(shape)
    if isinstance(value, Variable):
        inputs["ValueTensor"] = [value if value.dtype == dtype else cast(value, dtype)]
        value = 0.0
    out = out or helper.create_variable_for_type_inference(dtype, stop_gradient=True)
    helper.append_op("fill_constant", inputs=inputs, outputs={"Out": [out]},
                     attrs={**fill_constant_attrs(attr_shape, dtype, value),
                            "force_cpu": bool(force_cpu)})
    out.stop_gradient = True
    return out


def ones(shape, dtype="float32", force_cpu: bool = False, name: str | None = None) -> Variable:
    """fill_constant with 1."""
    return fill_constant(shape, dtype, 1.0, name=name)


def zeros(shape, dtype="float32", force_cpu: bool = False, name: str | None = None) -> Variable:
    """fill_constant with 0."""
    return fill_constant(shape, dtype, 0.0, name=name)


def full_like(x: Variable, fill_value, dtype=None, name: str | None = None) -> Variable:
    """paddle.full_like: a tensor of x's shape filled with fill_value (fill_any_like, as Paddle
    appends it); dtype None keeps x's. No gradient flows through it."""
    helper = LayerHelper("full_like", name=name)
    dtype = x.dtype if dtype is None else convert_dtype(dtype)
    out = helper.create_variable_for_type_inference(dtype, stop_gradient=True)
    helper.append_op("fill_any_like", inputs={"X": [x]}, outputs={"Out": [out]},
                     attrs={"value": float(fill_value), "dtype": int(dtype)})
    out.stop_gradient = True
    return out


def zeros_like(x: Variable, dtype=None, name: str | None = None) -> Variable:
    """paddle.zeros_like: full_like with 0."""
    return full_like(x, 0.0, dtype, name)


def ones_like(x: Variable, dtype=None, name: str | None = None) -> Variable:
    """paddle.ones_like: full_like with 1."""
    return full_like(x, 1.0, dtype, name)


def cast(x: Variable, dtype) -> Variable:
    """x converted to `dtype`."""
    check_variable_and_dtype(x, "x", ALL_DTYPES, "cast")
    helper = LayerHelper("cast")
    dtype = convert_dtype(dtype)
    out = helper.create_variable_for_type_inference(dtype)
    helper.append_op("cast", inputs={"X": [x]}, outputs={"Out": [out]},
                     attrs={"in_dtype": int(x.dtype), "out_dtype": int(dtype)})
    return out


# assign_value's attribute for each dtype of array it holds.
_ASSIGN_VALUE_KEYS = {"float32": "fp32_values", "float64": "fp64_values",
                      "int32": "int32_values", "int64": "int64_values", "bool": "bool_values"}


def assign(input, output: Variable | None = None) -> Variable:
    """paddle.assign: a copy of a Variable (assign), or a constant var holding a numpy array,
    a list / tuple or a Python scalar (assign_value; a scalar becomes a [1] array, so an int is
    int64 and a float float64, as in Paddle). `output`, when given, is written instead of a new
    var."""
    if input is output and isinstance(input, Variable):
        return input
    check_type(input, "input", (Variable, np.ndarray, list, tuple, float, int, bool,
                                np.number, np.bool_), "assign")
    helper = LayerHelper("assign")
    if isinstance(input, Variable):
        check_variable_and_dtype(input, "input", ALL_DTYPES, "assign",
                                 "(When the type of input in assign is Variable.)")
        if output is None:
            output = helper.create_variable_for_type_inference(input.dtype)
        helper.append_op("assign", inputs={"X": [input]}, outputs={"Out": [output]})
        return output
    if isinstance(input, (list, tuple)) and any(isinstance(x, Variable) for x in input):
        return _stacked(list(input))
    arr = np.array([input]) if np.isscalar(input) else np.asarray(input)
    if arr.dtype == object:  # Paddle's words
        raise ArgumentTypeError("The type of received input == `object`, it is not supported "
                                "to convert to tensor, such as [[Var], [Var], [3], [4]]")
    check_dtype(arr.dtype, "input", (*_ASSIGN_VALUE_KEYS, "complex64", "complex128"), "assign",
                "(When the type of input in assign is numpy array.)")
    dtype = convert_dtype(arr.dtype)
    if output is None:
        output = helper.create_variable_for_type_inference(dtype)
    helper.append_op("assign_value", outputs={"Out": [output]},
                     attrs={"shape": list(arr.shape), "dtype": int(dtype),
                            "values": scalar_values.as_scalars(arr)})
    return output



def clone(x: Variable, name: str | None = None) -> Variable:
    """paddle.clone: a copy of the Variable or Tensor x (the assign op), through which the
    gradient flows back to x."""
    check_type(x, "x", Variable, "clone")
    return assign(x)

def _stacked(items: list) -> Variable:
    """paddle.assign of a list of [1] Variables and numbers, as Paddle builds it: each number
    a [1] constant (assign), all stacked and squeezed to [n]. (Paddle writes no `output`
    here, nor does fluidc.)"""
    if not all(tuple(x.shape) == (1,) for x in items if isinstance(x, Variable)):
        raise ArgumentTypeError("Unsupported paddle.assign([Variable, Variable...]) with "
                                "non-scalar variable.")
    parts = [x if isinstance(x, Variable) else assign(x) for x in items]
    def item(i: int) -> str:
        return f"'{items[i].name}'" if isinstance(items[i], Variable) else repr(items[i])
    for i, x in enumerate(parts):
        if x.dtype != parts[0].dtype:  # Paddle's stack op refuses them (InvalidArgumentError)
            raise ArgumentValueError(
                f"assign: item {i} of the list ({item(i)}) is {dtype_name(x.dtype)}, item 0 "
                f"({item(0)}) {dtype_name(parts[0].dtype)}; stacking them needs one dtype")
    return squeeze(stack(parts), [-1])


# Paddle's concat list spells uint8 'unit8', so uint8 inputs are refused there: here too.
CONCAT_DTYPES = tuple(d for d in ALL_DTYPES if d != "uint8")


def concat(input, axis: int = 0, name: str | None = None) -> Variable:
    """The vars joined along `axis` (a lone Variable is a list of one)."""
    check_type(input, "input", (list, tuple, Variable), "concat")
    xs = [input] if isinstance(input, Variable) else list(input)
    if xs and isinstance(xs[0], Variable) and xs[0].type == VarType.LOD_TENSOR_ARRAY:
        if len(xs) != 1:  # an array's entries joined, as Paddle's concat does
            raise ArgumentTypeError(f"concat: a tensor array must be the only input, got "
                                    f"{len(xs)} inputs")
        return tensor_array_to_tensor(xs[0], int(axis), name=name)[0]
    for i, x in enumerate(xs):
        check_variable_and_dtype(x, f"input[{i}]", CONCAT_DTYPES, "concat")
        if x.dtype != xs[0].dtype:
            raise ArgumentTypeError(f"All the Tensors in the input of concat must have the same "
                                    f"data type: input[{i}] '{x.name}' is {dtype_name(x.dtype)}, "
                                    f"input[0] '{xs[0].name}' {dtype_name(xs[0].dtype)}")
    check_type(axis, "axis", (int, np.integer, Variable), "concat")
    inputs = {"X": xs}
    if isinstance(axis, Variable):  # read when the plan is built (passes/shape_inputs.py)
        check_dtype(axis.dtype, "axis", ("int32", "int64"), "concat")
        inputs["AxisTensor"], axis = [axis], 0
    helper = LayerHelper("concat", name=name)
    out = helper.create_variable_for_type_inference(xs[0].dtype)
    helper.append_op("concat", inputs=inputs, outputs={"Out": [out]}, attrs={"axis": int(axis)})
    return out


SUMS_DTYPES = ("float16", "float32", "float64", "int32", "int64")


def sums(input, out: Variable | None = None) -> Variable:
    """fluid.layers.sums (1.x): the elementwise sum of the vars (Paddle's `sum` op), into
    `out` when given."""
    check_type(input, "input", (Variable, tuple, list), "sums")
    xs = [input] if isinstance(input, Variable) else list(input)
    for x in xs:
        check_variable_and_dtype(x, "input", SUMS_DTYPES, "sums")
    helper = LayerHelper("sum")
    if out is None:
        out = helper.create_variable_for_type_inference(xs[0].dtype)
    else:
        check_variable_and_dtype(out, "out", SUMS_DTYPES[1:], "sums")
    helper.append_op("sum", inputs={"X": xs}, outputs={"Out": [out]})
    return out


def create_parameter(shape, dtype, name: str | None = None, attr=None, is_bias: bool = False,
                     default_initializer=None) -> Variable:
    """A free-standing parameter (fluid.layers.create_parameter / paddle.create_parameter)."""
    from ..param_attr import ParamAttr
    helper = LayerHelper("create_parameter")
    attr = ParamAttr.to_attr(attr)
    if name is not None:
        attr.name = name
    return helper.create_parameter(attr, shape, dtype, is_bias, default_initializer)


def create_tensor(dtype, name: str | None = None, persistable: bool = False) -> Variable:
    """An empty var of `dtype` in the current block, for a later op to write (Paddle 1.x's
    fluid.layers.create_tensor; assign(x, output=...) fills it)."""
    helper = LayerHelper("create_tensor", name=name)
    return helper.create_variable(name=helper.name, dtype=convert_dtype(dtype),
                                  persistable=persistable)


def create_global_var(shape, value, dtype, persistable: bool = False, force_cpu: bool = False,
                      name: str | None = None) -> Variable:
    """A var in the global block set to `value` by the startup program."""
    name = name or unique_name.generate("global_var")
    var = default_main_program().global_block().create_var(
        name=name, shape=shape, dtype=dtype, persistable=persistable, stop_gradient=True)
    startup = default_startup_program().global_block()
    sv = startup.create_var(name=name, shape=shape, dtype=dtype, persistable=persistable)
    Constant(float(value))(sv, startup)
    return var


def _random(op_type: str, shape, dtype, seed: int, **attrs) -> Variable:
    """A random op of `shape`: ints, or ints and Variables (one int each, e.g. a dim of
    paddle.shape(x)), or an int Variable (_shape_inputs)."""
    helper = LayerHelper(op_type)
    dtype = convert_dtype(dtype)
    out = helper.create_variable_for_type_inference(dtype, stop_gradient=True)
    attr_shape, inputs = _shape_inputs(shape)
    helper.append_op(op_type, inputs=inputs, outputs={"Out": [out]},
                     attrs={"shape": attr_shape, "dtype": int(dtype),
                            "seed": seed or default_main_program().random_seed, **attrs})
    return out


def uniform_random(shape, dtype="float32", min: float = -1.0, max: float = 1.0,
                   seed: int = 0, name: str | None = None) -> Variable:
    """A tensor drawn from U(min, max)."""
    return _random("uniform_random", shape, dtype, seed, min=float(min), max=float(max))


def gaussian_random(shape, mean: float = 0.0, std: float = 1.0, seed: int = 0,
                    dtype="float32", name: str | None = None) -> Variable:
    """A tensor drawn from N(mean, std^2)."""
    return _random("gaussian_random", shape, dtype, seed, mean=float(mean), std=float(std))


def _random_batch_size_like(op_type: str, input, shape, dtype, input_dim_idx: int,
                            output_dim_idx: int, seed: int, **attrs) -> Variable:
    """A random op of `shape` with dim output_dim_idx taken from dim input_dim_idx of input
    (when the program runs)."""
    check_variable_and_dtype(input, "Input", ALL_DTYPES, op_type)
    check_type(shape, "shape", (list, tuple), op_type)
    check_dtype(dtype, "dtype", ("float16", "bfloat16", "float32", "float64"), op_type)
    helper = LayerHelper(op_type)
    out = helper.create_variable_for_type_inference(convert_dtype(dtype), stop_gradient=True)
    helper.append_op(op_type, inputs={"Input": [input]}, outputs={"Out": [out]},
                     attrs={"shape": [int(d) for d in shape],
                            "input_dim_idx": int(input_dim_idx),
                            "output_dim_idx": int(output_dim_idx),
                            "dtype": int(convert_dtype(dtype)),
                            "seed": seed or default_main_program().random_seed, **attrs})
    return out


def uniform_random_batch_size_like(input, shape, dtype="float32", input_dim_idx: int = 0,
                                   output_dim_idx: int = 0, min: float = -1.0,  # noqa: A002
                                   max: float = 1.0, seed: int = 0) -> Variable:  # noqa: A002
    """U(min, max) draws of `shape`, its dim output_dim_idx input's dim input_dim_idx."""
    return _random_batch_size_like("uniform_random_batch_size_like", input, shape, dtype,
                                   input_dim_idx, output_dim_idx, seed, min=float(min),
                                   max=float(max))


def gaussian_random_batch_size_like(input, shape, input_dim_idx: int = 0,
                                    output_dim_idx: int = 0, mean: float = 0.0,
                                    std: float = 1.0, seed: int = 0,
                                    dtype="float32") -> Variable:
    """N(mean, std^2) draws of `shape`, its dim output_dim_idx input's dim input_dim_idx."""
    return _random_batch_size_like("gaussian_random_batch_size_like", input, shape, dtype,
                                   input_dim_idx, output_dim_idx, seed, mean=float(mean),
                                   std=float(std))


def shape(input: Variable) -> Variable:
    """paddle.shape / fluid.layers.shape: input's shape at run time, an int32 1-D tensor (the
    `shape` op), so dims unknown when the program is built (-1) are read from the fed data.
    In dygraph it is int64, as Paddle 3.3.1's eager shape (its shape64 kernel)."""
    check_variable_and_dtype(input, "input", ALL_DTYPES, "shape")
    helper = LayerHelper("shape")
    out = helper.create_variable_for_type_inference(VarType.INT32, stop_gradient=True)
    helper.append_op("shape", {"Input": [input]}, {"Out": [out]})
    if in_dygraph_mode():
        out = cast(out, VarType.INT64)
        out.stop_gradient = True
    return out


_LINSPACE_DTYPES = ("float32", "float64", "int32", "int64")

def linspace(start, stop, num, dtype=None, name=None):
    """paddle.linspace: `num` evenly spaced values from start to stop (the `linspace` op).
    start and stop: numbers or one-value Tensors; num: an int or a one-value int32 Tensor;
    dtype None is the default dtype. A float64 (int64) bound with a float32 or int32 (int32)
    dtype is refused, as Paddle refuses it (the values could overflow)."""
    dtype = default_float(dtype)
    check_dtype(dtype, "dtype", _LINSPACE_DTYPES, "linspace")
    out_dtype = dtype_name(convert_dtype(dtype))
    bounds = []
    for value, arg in ((start, "start"), (stop, "stop")):
        if isinstance(value, Variable):
            check_dtype(value.dtype, arg, _LINSPACE_DTYPES, "linspace")
            bounds.append(value)
        else:
            check_type(value, arg, (int, float, np.integer, np.floating), "linspace")
            bounds.append(fill_constant([1], out_dtype, value))
    kinds = {dtype_name(b.dtype) for b in bounds}
    if ("float64" in kinds and out_dtype in ("float32", "int32")) or \
            ("int64" in kinds and out_dtype == "int32"):
        raise ArgumentValueError(
            f"linspace: the dtypes of start/stop are "
            f"{'/'.join(dtype_name(b.dtype) for b in bounds)} "
            f"but dtype is {out_dtype}, which may overflow; give a wider dtype")
    if isinstance(num, Variable):
        check_dtype(num.dtype, "num", ("int32",), "linspace")
    else:
        check_type(num, "num", (int, np.integer), "linspace")
        num = fill_constant([1], "int32", num)
    helper = LayerHelper("linspace", name=name)
    out = helper.create_variable_for_type_inference(out_dtype)
    helper.append_op("linspace", inputs={"Start": [bounds[0]], "Stop": [bounds[1]], "Num": [num]},
                     outputs={"Out": [out]}, attrs={"dtype": int(convert_dtype(out_dtype))})
    return out


_RANGE_DTYPES = ("float16", "float32", "float64", "int32", "int64")


def range(start, end, step, dtype, name=None):  # noqa: A001 (Paddle's name)
    """fluid.layers.range (paddle.arange with its dtype given): the `range` op over start, end
    and step, each a number (a fill_constant of dtype) or a one-value Tensor (cast to dtype
    when it differs). Out's length is known at build time when all three are numbers."""
    check_dtype(dtype, "dtype", _RANGE_DTYPES, "range/arange")
    dtype = convert_dtype(dtype)
    bounds, numbers = [], []
    for value, arg in ((start, "start"), (end, "end"), (step, "step")):
        if isinstance(value, Variable):
            bounds.append(value if value.dtype == dtype else cast(value, dtype))
            continue
        check_type(value, arg, (int, float, np.integer, np.floating), "range/arange")
        if not np.isfinite(value):
            raise ArgumentValueError(f"range/arange: the value of {arg} must be finite, but "
                                     f"received: {value}.")
        numbers.append(value)
        bounds.append(fill_constant([1], dtype, value))
    if len(numbers) == 3 and numbers[2] == 0:
        raise ZeroDivisionError("range/arange: step must not be 0")
    helper = LayerHelper("range", name=name)
    out = helper.create_variable_for_type_inference(dtype, stop_gradient=True)
    helper.append_op("range", inputs=dict(zip(("Start", "End", "Step"), ([b] for b in bounds))),
                     outputs={"Out": [out]})
    if len(numbers) == 3:  # the kernel's count of the values as dtype holds them
        out.desc.set_shape([range_count(*np.asarray(numbers, to_numpy_dtype(dtype)))])
    return out
