"""Tensor-making layers: data, fill_constant/ones/zeros, full_like/zeros_like/ones_like, cast,
assign, concat, parameters."""
from __future__ import annotations

import numpy as np

from .. import unique_name
from ..dtypes import VarType, convert_dtype, dtype_name
from ..framework import Variable, default_main_program, default_startup_program
from ..initializer import Constant
from ..ops.tensor import fill_constant_attrs
from .helper import (ALL_DTYPES, ArgumentTypeError, LayerHelper, check_type,
                     check_variable_and_dtype, one_constant_int)


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


def static_data(name: str, shape, dtype="float32", lod_level: int = 0) -> Variable:
    """fluid.data / paddle.static.data: the shape as declared (None = -1), feeds checked against it."""
    shape = _data_shape(name, shape)
    return _data_var(name=name, shape=shape, dtype=dtype or "float32", lod_level=lod_level,
                     stop_gradient=True, is_data=True, need_check_feed=True)


def fill_constant(shape, dtype, value, force_cpu: bool = False, out: Variable | None = None,
                  name: str | None = None) -> Variable:
    """A tensor of `shape` filled with `value`."""
    helper = LayerHelper("fill_constant", name=name)
    if any(int(d) < 0 for d in shape):
        raise ValueError(f"fill_constant: shape {list(shape)} must be sizes >= 0 (a batch-sized "
                         f"fill is fill_constant_batch_size_like)")
    dtype = convert_dtype(dtype)
    out = out or helper.create_variable_for_type_inference(dtype, stop_gradient=True)
    helper.append_op("fill_constant", outputs={"Out": [out]},
                     attrs=fill_constant_attrs(shape, dtype, value))
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
    helper = LayerHelper("cast")
    dtype = convert_dtype(dtype)
    out = helper.create_variable_for_type_inference(dtype)
    helper.append_op("cast", inputs={"X": [x]}, outputs={"Out": [out]},
                     attrs={"in_dtype": int(x.dtype), "out_dtype": int(dtype)})
    return out


def assign(input, output: Variable | None = None) -> Variable:
    """A copy of a var, or a constant var holding a numpy array."""
    helper = LayerHelper("assign")
    if isinstance(input, Variable):
        output = output or helper.create_variable_for_type_inference(input.dtype)
        helper.append_op("assign", inputs={"X": [input]}, outputs={"Out": [output]})
        return output
    arr = np.asarray(input)
    dtype = convert_dtype(arr.dtype)
    output = output or helper.create_variable_for_type_inference(dtype)
    key = "fp32_values" if arr.dtype.kind == "f" else "int32_values" if arr.dtype == np.int32 else \
        "int64_values" if arr.dtype.kind in "iu" else "bool_values"
    helper.append_op("assign_value", outputs={"Out": [output]},
                     attrs={"shape": list(arr.shape), "dtype": int(dtype),
                            key: [v.item() for v in arr.reshape(-1)]})
    return output


# Paddle's concat list spells uint8 'unit8', so uint8 inputs are refused there: here too.
CONCAT_DTYPES = tuple(d for d in ALL_DTYPES if d != "uint8")


def concat(input, axis: int = 0, name: str | None = None) -> Variable:
    """The vars joined along `axis` (a lone Variable is a list of one)."""
    check_type(input, "input", (list, tuple, Variable), "concat")
    xs = [input] if isinstance(input, Variable) else list(input)
    for i, x in enumerate(xs):
        check_variable_and_dtype(x, f"input[{i}]", CONCAT_DTYPES, "concat")
        if x.dtype != xs[0].dtype:
            raise ArgumentTypeError(f"All the Tensors in the input of concat must have the same "
                                    f"data type: input[{i}] '{x.name}' is {dtype_name(x.dtype)}, "
                                    f"input[0] '{xs[0].name}' {dtype_name(xs[0].dtype)}")
    check_type(axis, "axis", (int, np.integer, Variable), "concat")
    if isinstance(axis, Variable):
        axis = one_constant_int(axis, "axis", "concat")
    helper = LayerHelper("concat", name=name)
    out = helper.create_variable_for_type_inference(xs[0].dtype)
    helper.append_op("concat", inputs={"X": xs}, outputs={"Out": [out]},
                     attrs={"axis": int(axis)})
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
    helper = LayerHelper(op_type)
    dtype = convert_dtype(dtype)
    out = helper.create_variable_for_type_inference(dtype, stop_gradient=True)
    helper.append_op(op_type, outputs={"Out": [out]},
                     attrs={"shape": [int(d) for d in shape], "dtype": int(dtype),
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
