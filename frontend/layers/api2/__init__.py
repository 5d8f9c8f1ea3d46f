"""The 2.x tensor functions (paddle.matmul, paddle.add, ...) over the same ops."""
from __future__ import annotations

import builtins  # this module defines Paddle's all, any, max, min and sum
import numbers

import numpy as np

from ...dtypes import VarType, convert_dtype, default_float
from ...framework import Variable
from .. import activation as _activation
from .. import conv as _nn_conv
from .. import nn as _nn
from .. import tensor as _tensor
from ..helper import (FLOAT_DTYPES, ArgumentValueError, LayerHelper, append_unary, check_dtype,
                      check_type, check_variable_and_dtype, static_inplace)
from ..nn import _binary


def matmul(x: Variable, y: Variable, transpose_x: bool = False, transpose_y: bool = False,
           name=None) -> Variable:
    """Matrix product with numpy's batching rules (matmul_v2)."""
    helper = LayerHelper("matmul_v2", name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op("matmul_v2", inputs={"X": [x], "Y": [y]}, outputs={"Out": [out]},
                     attrs={"trans_x": transpose_x, "trans_y": transpose_y})
    return out


def add(x, y, name=None): return _binary("elementwise_add", x, y, name=name)  # noqa: E704
def subtract(x, y, name=None): return _binary("elementwise_sub", x, y, name=name)  # noqa: E704
def multiply(x, y, name=None): return _binary("elementwise_mul", x, y, name=name)  # noqa: E704
def divide(x, y, name=None): return _binary("elementwise_div", x, y, name=name)  # noqa: E704
def maximum(x, y, name=None): return _binary("elementwise_max", x, y, name=name)  # noqa: E704
def minimum(x, y, name=None): return _binary("elementwise_min", x, y, name=name)  # noqa: E704
def remainder(x, y, name=None): return _binary("elementwise_mod", x, y, name=name)  # noqa: E704
def floor_divide(x, y, name=None): return _binary("elementwise_floordiv", x, y, name=name)  # noqa: E501,E704
mod = floor_mod = remainder  # Paddle's aliases


def _reduce(op_type: str, x: Variable, axis, keepdim: bool, name, dtype=None) -> Variable:
    """A 2.x reduction: axis None, or a list of every axis, is dim [] with reduce_all, whose
    result is 0-d (shape []), as Paddle 3.x gives it."""
    check_type(x, "x", Variable, op_type)
    helper = LayerHelper(op_type, name=name)
    dims = [] if axis is None else [int(a) for a in (axis if isinstance(axis, (list, tuple))
                                                     else [axis])]
    rank = len(x.shape)
    if rank and builtins.all(-rank <= d < rank for d in dims) and \
            sorted({d % rank for d in dims}) == list(range(rank)):
        dims = []
    if dtype is not None and convert_dtype(dtype) != x.dtype:
        x = _tensor.cast(x, dtype)
    out = helper.create_variable_for_type_inference(
        VarType.BOOL if op_type in ("reduce_all", "reduce_any") else x.dtype)
    attrs = {"dim": dims, "keep_dim": bool(keepdim),
             "reduce_all": not dims or len(dims) == len(x.shape)}
    helper.append_op(op_type, inputs={"X": [x]}, outputs={"Out": [out]}, attrs=attrs)
    return out


def mean(x: Variable, axis=None, keepdim: bool = False, name=None) -> Variable:
    """Mean over axis (all when None, giving a 0-d result): reduce_mean."""
    return _reduce("reduce_mean", x, axis, keepdim, name)




# -- 2.x names and argument orders over the same layers -------------------------------------------

def reshape(x, shape, name=None):
    """x with a new shape (0 copies a dim, -1 is inferred)."""
    return _nn.reshape(x, shape, name=name)


def transpose(x, perm, name=None):
    """x with its dims permuted."""
    return _nn.transpose(x, perm, name=name)


def concat(x, axis=0, name=None):
    """The tensors joined along axis."""
    return _tensor.concat(x, axis, name=name)


def _flatten_axes(x, start_axis, stop_axis) -> tuple[int, int]:
    """Paddle's flatten checks, each a ValueError: x a Tensor; the axes ints in [-rank, rank)
    (0 or -1 for a 0-d x), start_axis not after stop_axis."""
    if not isinstance(x, Variable):
        raise ArgumentValueError("The input x should be a Tensor")
    rank = len(x.shape)
    ints = builtins.all(isinstance(a, int) and not isinstance(a, bool)
                        for a in (start_axis, stop_axis))
    if rank == 0:
        for n, a in (("start_axis", start_axis), ("stop_axis", stop_axis)):
            if not ints or a not in (0, -1):
                raise ArgumentValueError(f"The {n} should be int, and should be 0 or -1 when "
                                         f"the input tensor is a 0-D-Tensor, got {a!r}")
        return start_axis, stop_axis
    for n, a in (("start_axis", start_axis), ("stop_axis", stop_axis)):
        if not ints or not -rank <= a < rank:
            raise ArgumentValueError(f"The {n} should be a int, and in range [-rank(x), "
                                     f"rank(x)) = [{-rank}, {rank}), got {a!r}")
    if start_axis % rank > stop_axis % rank:
        raise ArgumentValueError(f"The stop_axis should be larger than stat_axis, got "
                                 f"start_axis {start_axis}, stop_axis {stop_axis}")
    return start_axis, stop_axis


def flatten(x, start_axis=0, stop_axis=-1, name=None):
    """Dims start_axis..stop_axis merged into one (flatten_contiguous_range)."""
    start_axis, stop_axis = _flatten_axes(x, start_axis, stop_axis)
    helper = LayerHelper("flatten_contiguous_range", name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    xshape = helper.create_variable_for_type_inference(x.dtype, stop_gradient=True)
    helper.append_op("flatten_contiguous_range", inputs={"X": [x]},
                     outputs={"Out": [out], "XShape": [xshape]},
                     attrs={"start_axis": start_axis, "stop_axis": stop_axis})
    return out


flatten_ = static_inplace(flatten, "flatten")


def sum(x, axis=None, dtype=None, keepdim=False, name=None):  # noqa: A001 (Paddle's name)
    """Sum over axis (all when None, giving a 0-d result), in dtype when given; bool and int32
    data sum to int64 by default, as in Paddle."""
    check_type(x, "x", Variable, "sum")
    if dtype is None and x.dtype in (VarType.BOOL, VarType.INT32):
        dtype = "int64"
    return _reduce("reduce_sum", x, axis, keepdim, name, dtype)


def max(x, axis=None, keepdim=False, name=None):  # noqa: A001 (Paddle's name)
    """Max over axis (all when None)."""
    return _reduce("reduce_max", x, axis, keepdim, name)


def min(x, axis=None, keepdim=False, name=None):  # noqa: A001 (Paddle's name)
    """Min over axis (all when None)."""
    return _reduce("reduce_min", x, axis, keepdim, name)


def clip(x, min=None, max=None, name=None):  # noqa: A002 (Paddle's names)
    """x limited to [min, max]; a bound left None is the extreme of x's float dtype (float32's
    for other dtypes), as Paddle's."""
    check_variable_and_dtype(x, "x", ("float16", "bfloat16", "float32", "float64", "int32",
                                      "int64"), "clip")
    info = np.finfo(np.float64 if x.dtype == VarType.FP64 else np.float32)
    return _nn_conv.clip(x, float(info.min) if min is None else min,
                         float(info.max) if max is None else max, name=name)


def prod(x, axis=None, keepdim=False, dtype=None, name=None):
    """Product over axis (all when None), in dtype when given."""
    check_variable_and_dtype(x, "x", ("float32", "float64", "int32", "int64"), "prod")
    return _reduce("reduce_prod", x, axis, keepdim, name, dtype)


_LOGICAL_DTYPES = ("bool", "float32", "float64", "int32", "int64")


def all(x, axis=None, keepdim=False, name=None):  # noqa: A001 (Paddle's name)
    """Whether every element over axis (all when None) is nonzero: bool."""
    check_variable_and_dtype(x, "x", _LOGICAL_DTYPES, "all")
    return _reduce("reduce_all", x, axis, keepdim, name)


def any(x, axis=None, keepdim=False, name=None):  # noqa: A001 (Paddle's name)
    """Whether any element over axis (all when None) is nonzero: bool."""
    check_variable_and_dtype(x, "x", _LOGICAL_DTYPES, "any")
    return _reduce("reduce_any", x, axis, keepdim, name)


def full(shape, fill_value, dtype=None, name=None):
    """A tensor of shape (an int, a list of ints / int Variables, or an int Variable) filled
    with fill_value (a number or a Variable); dtype None is bool for a bool, complex128 for a
    complex, else the default dtype (paddle.get_default_dtype), as in Paddle."""
    check_type(fill_value, "fill_value", (numbers.Number, str, Variable), "full")
    if dtype is None:
        dtype = "bool" if isinstance(fill_value, bool) else \
            "complex128" if isinstance(fill_value, complex) else default_float(None)
    if isinstance(shape, (int, np.integer)):
        shape = [shape]
    return _tensor.fill_constant(shape, dtype, fill_value, name=name)


def ones(shape, dtype=None, name=None):
    """A tensor of ones (dtype None: the default dtype)."""
    return _tensor.fill_constant(shape, default_float(dtype), 1.0, name=name)


def zeros(shape, dtype=None, name=None):
    """A tensor of zeros (dtype None: the default dtype)."""
    return _tensor.fill_constant(shape, default_float(dtype), 0.0, name=name)


def _random_shape(shape, layer: str):
    """A random layer's shape as Paddle takes it: ints and one-value int Variables, or an int
    Variable (read when the program runs)."""
    _tensor._check_shape(shape, layer)
    return shape if isinstance(shape, Variable) else list(shape)


def _int_shape(shape):
    """paddle.rand / randn take an int n for the shape [n] too (Paddle 3.x)."""
    return [shape] if isinstance(shape, (int, np.integer)) and not isinstance(shape, bool) \
        else shape


def rand(shape, dtype=None, name=None):
    """paddle.rand: uniform draws in [0, 1) (uniform_random); dtype None is the default
    dtype."""
    shape, dtype = _int_shape(shape), default_float(dtype)
    check_dtype(convert_dtype(dtype), "dtype", FLOAT_DTYPES, "rand")
    return _tensor.uniform_random(_random_shape(shape, "rand"), dtype, 0.0, 1.0, name=name)


def randn(shape, dtype=None, name=None):
    """paddle.randn: standard normal draws (gaussian_random); dtype None is the default
    dtype."""
    shape, dtype = _int_shape(shape), default_float(dtype)
    check_dtype(convert_dtype(dtype), "dtype", FLOAT_DTYPES, "randn")
    return _tensor.gaussian_random(_random_shape(shape, "randn"), 0.0, 1.0, dtype=dtype,
                                   name=name)


def standard_normal(shape, dtype=None, name=None):
    """paddle.standard_normal: randn's draws."""
    return randn(shape, dtype, name)


def randint(low=0, high=None, shape=(1,), dtype=None, name=None):
    """paddle.randint: ints drawn uniformly from [low, high) ([0, low) when high is None);
    dtype None is int64."""
    low, high = (0, low) if high is None else (low, high)
    if low >= high:
        raise ArgumentValueError(f"randint: low {low} must be less than high {high}")
    dtype = "int64" if dtype is None else dtype
    check_dtype(convert_dtype(dtype), "dtype", ("int32", "int64"), "randint")
    return _tensor._random("randint", _random_shape(shape, "randint"), dtype, 0, low=int(low),
                           high=int(high))


def scale(x, scale=1.0, bias=0.0, bias_after_scale=True, act=None, name=None):
    """scale * x + bias (scale a number or a Variable)."""
    return _nn.scale(x, scale, bias, bias_after_scale, act, name)


scale_ = static_inplace(scale, "scale")


def cast(x, dtype):
    """x converted to dtype."""
    return _tensor.cast(x, dtype)


def exp(x, name=None): return _nn.exp(x, name)  # noqa: E704
def log(x, name=None): return _nn.log(x, name)  # noqa: E704
def sqrt(x, name=None): return _nn.sqrt(x, name)  # noqa: E704
def tanh(x, name=None): return _nn.tanh(x, name)  # noqa: E704
def abs(x, name=None): return _nn.abs(x, name)  # noqa: E704,A001
def square(x, name=None): return _nn.square(x, name)  # noqa: E704


def pow(x, y, name=None):  # noqa: A001 (Paddle's name)
    """x ** y: the pow op for a number y, elementwise_pow for a Variable."""
    if isinstance(y, Variable):
        return _binary("elementwise_pow", x, y, name=name)
    return _activation.pow(x, float(y), name)


def cumsum(x, axis=None, dtype=None, name=None):
    """Running sums along axis (over the flattened x when axis is None)."""
    if dtype is not None and convert_dtype(dtype) != x.dtype:
        x = _tensor.cast(x, dtype)
    return _activation.cumsum(x, axis, name=name)


def stanh(x, scale_a: float = 0.67, scale_b: float = 1.7159, name=None):
    """scale_b * tanh(scale_a * x)."""
    return append_unary("stanh", x, name, scale_a=float(scale_a), scale_b=float(scale_b))


def add_n(inputs, name=None):
    """The elementwise sum of a Variable or a list of them (Paddle's `sum` op)."""
    inputs = [inputs] if isinstance(inputs, Variable) else list(inputs)
    for i, x in enumerate(inputs):
        check_variable_and_dtype(x, f"inputs[{i}]", FLOAT_DTYPES + ("int32", "int64"), "add_n")
    helper = LayerHelper("sum", name=name)
    out = helper.create_variable_for_type_inference(inputs[0].dtype)
    helper.append_op("sum", inputs={"X": inputs}, outputs={"Out": [out]})
    return out


def uniform(shape, dtype=None, min=-1.0, max=1.0, seed=0, name=None):  # noqa: A002
    """paddle.uniform: draws from U(min, max) (uniform_random); dtype None is the default
    dtype."""
    dtype = default_float(dtype)
    check_dtype(convert_dtype(dtype), "dtype", FLOAT_DTYPES, "uniform")
    return _tensor.uniform_random(_random_shape(shape, "uniform"), dtype, min, max, seed,
                                  name=name)


def gaussian(shape, mean=0.0, std=1.0, seed=0, dtype=None, name=None):
    """paddle.tensor.random.gaussian: draws from N(mean, std^2) (gaussian_random); dtype None
    is the default dtype."""
    dtype = default_float(dtype)
    check_dtype(convert_dtype(dtype), "dtype", FLOAT_DTYPES, "gaussian")
    return _tensor.gaussian_random(_random_shape(shape, "gaussian"), mean, std, seed, dtype,
                                   name=name)


def normal(mean=0.0, std=1.0, shape=None, name=None):
    """paddle.normal: N(mean, std^2) draws of `shape`; a Tensor mean or std gives the shape
    (its own; mean's when both) and is broadcast in, elementwise."""
    tensors = [v for v in (mean, std) if isinstance(v, Variable)]
    if not tensors:
        return gaussian(shape, float(mean), float(std), name=name)
    like = tensors[0]
    check_variable_and_dtype(like, "mean" if like is mean else "std", ("float32", "float64"),
                             "normal")
    dims = list(like.shape)
    draw = _tensor.gaussian_random(dims if builtins.min(dims, default=0) >= 0
                                   else _tensor.shape(like), 0.0, 1.0, dtype=like.dtype)
    return draw * std + mean


def randperm(n, dtype="int64", name=None):
    """paddle.randperm: a random permutation of 0 .. n-1 (the randperm op)."""
    check_type(n, "n", (int, np.integer), "randperm")
    if n < 1:
        raise ArgumentValueError(f"randperm: n must be greater than 0, got {n}")
    check_dtype(convert_dtype(dtype), "dtype", ("int32", "int64", "float32", "float64"),
                "randperm")
    helper = LayerHelper("randperm", name=name)
    out = helper.create_variable_for_type_inference(convert_dtype(dtype), stop_gradient=True)
    helper.append_op("randperm", outputs={"Out": [out]},
                     attrs={"n": int(n), "dtype": int(convert_dtype(dtype))})
    return out
