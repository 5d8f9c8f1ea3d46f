"""The 2.x tensor-manipulation layers: paddle.split, paddle.slice, paddle.strided_slice,
paddle.multiplex, paddle.scatter, paddle.t, paddle.moveaxis, paddle.reshape_, paddle.gather,
paddle.flip."""
from __future__ import annotations

from ...framework import Variable
from .. import conv as _conv
from .. import nn as _nn
from .. import tensor as _tensor
from ..indexing import int_tensor
from ..helper import (ALL_DTYPES, ArgumentValueError, LayerHelper, ShapeAssertionError,
                      check_type, check_variable_and_dtype, static_inplace)
from .shaping import int_list_inputs

# Paddle's gather takes no int8 data.
_GATHER_DTYPES = ("bool", "float16", "bfloat16", "float32", "float64", "int16", "int32", "int64",
                  "uint8", "complex64", "complex128")


_SPLIT_DTYPES = ("bool", "bfloat16", "float16", "float32", "float64", "int8", "uint8", "int32",
                 "int64")


def split(x: Variable, num_or_sections, axis=0, name: str | None = None) -> list[Variable]:
    """paddle.split: x cut along axis into num equal parts or parts of the given sizes (one may
    be -1); the axis (AxisTensor) and sizes (SectionsTensorList) may be int Variables, read
    when the program runs."""
    check_variable_and_dtype(x, "x", _SPLIT_DTYPES, "split")
    check_type(num_or_sections, "num_or_sections", (int, list, tuple), "split")
    check_type(axis, "axis", (int, Variable), "split")
    inputs, attrs = {"X": [x]}, {"num": 0, "sections": []}
    if isinstance(axis, Variable):  # AxisTensor: read when the program runs
        check_variable_and_dtype(axis, "axis", ("int32", "int64"), "split")
        inputs["AxisTensor"], attrs["axis"] = [axis], 0
    else:
        attrs["axis"] = axis
    if isinstance(num_or_sections, int):
        if num_or_sections <= 0:
            raise ArgumentValueError(f"split: num_or_sections must be positive, got "
                                     f"{num_or_sections}")
        attrs["num"], n = num_or_sections, num_or_sections
    else:
        attrs["sections"], tensors = int_list_inputs(num_or_sections, "num_or_sections", "split")
        n = len(attrs["sections"])
        if tensors is not None:
            inputs["SectionsTensorList"] = tensors
    helper = LayerHelper("split", name=name)
    outs = [helper.create_variable_for_type_inference(x.dtype) for _ in range(n)]
    helper.append_op("split", inputs=inputs, outputs={"Out": outs}, attrs=attrs)
    return outs


def _slice_bounds(bounds, arg: str, n: int) -> tuple[list[int], Variable | None]:
    """paddle.slice's starts / ends: (the ints, None), or, for an int Variable or a list holding
    Variables, (-1s, one 1-D int64 tensor of the bounds: StartsTensor / EndsTensor), read when
    the program runs."""
    if isinstance(bounds, Variable):
        check_variable_and_dtype(bounds, arg, ("int32", "int64"), "slice")
        return [-1] * n, bounds
    ints, tensors = int_list_inputs(bounds, arg, "slice")
    return (ints, None) if tensors is None else ([-1] * len(ints), int_tensor(tensors))


def slice(input: Variable, axes, starts, ends, name: str | None = None) -> Variable:  # noqa: A001
    """paddle.slice: input[starts:ends] along axes. starts / ends may be int Variables or lists
    holding some (StartsTensor / EndsTensor, read when the program runs: the sliced dims are -1
    until then, as Paddle's infer_flags -1)."""
    check_type(axes, "axes", (list, tuple), "slice")
    check_type(starts, "starts", (list, tuple, Variable), "slice")
    check_type(ends, "ends", (list, tuple, Variable), "slice")
    (s, s_tensor), (e, e_tensor) = (_slice_bounds(b, arg, len(axes)) for arg, b in
                                    (("starts", starts), ("ends", ends)))
    if s_tensor is None and e_tensor is None:
        return _conv.slice(input, axes, s, e)
    tensors = {slot: [t] for slot, t in (("StartsTensor", s_tensor), ("EndsTensor", e_tensor))
               if t is not None}
    helper = LayerHelper("slice", name=name)
    out = helper.create_variable_for_type_inference(input.dtype)
    helper.append_op("slice", inputs={"Input": [input], **tensors}, outputs={"Out": [out]},
                     attrs={"axes": list(axes), "starts": s, "ends": e, "decrease_axis": [],
                            "infer_flags": [-1] * len(axes)})
    return out


def scatter(x, index, updates, overwrite: bool = True, name: str | None = None) -> Variable:
    """paddle.scatter: x with rows index replaced by updates' rows (overwrite: the last of
    duplicate ids wins), or zeroed and summed into (overwrite=False); Paddle's scatter op."""
    check_variable_and_dtype(x, "dtype", ("float16", "bfloat16", "float32", "float64", "int32",
                                          "int64"), "scatter")
    check_type(overwrite, "overwrite", (bool,), "scatter")
    helper = LayerHelper("scatter", name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op("scatter", inputs={"X": [x], "Ids": [index], "Updates": [updates]},
                     outputs={"Out": [out]}, attrs={"overwrite": overwrite})
    return out


scatter_ = static_inplace(scatter, "scatter")


def multiplex(inputs, index, name: str | None = None) -> Variable:
    """paddle.multiplex: row i of the output is row i of inputs[index[i]] (index int32 / int64
    of shape [N, 1]; Paddle's multiplex op)."""
    check_type(inputs, "inputs", (list,), "multiplex")
    if len(inputs) < 2:
        raise ArgumentValueError("inputs should be a list object with at least 2 elements.")
    for i, x in enumerate(inputs):
        check_variable_and_dtype(x, f"input[{i}]", ("float32", "float64", "int32", "int64"),
                                 "multiplex")
    check_variable_and_dtype(index, "index", ("int32", "int64"), "multiplex")
    helper = LayerHelper("multiplex", name=name)
    out = helper.create_variable_for_type_inference(inputs[0].dtype)
    helper.append_op("multiplex", inputs={"X": list(inputs), "Ids": [index]},
                     outputs={"Out": [out]})
    return out


_STRIDED_DTYPES = ("bool", "float16", "float32", "float64", "int32", "int64")


def strided_slice(x: Variable, axes, starts, ends, strides, name: str | None = None) -> Variable:
    """paddle.strided_slice: x[starts:ends:strides] along axes (a negative stride walks
    backwards), Paddle's strided_slice op. starts / ends / strides are int lists, 1-D int
    Variables (StartsTensor, ...) or lists mixing ints and one-value Variables (StartsTensorList,
    ..., the ints as int32 fill_constants, -1 in the attribute where a Variable stands), as
    Paddle appends them; the op folds their values before planning a run."""
    check_variable_and_dtype(x, "x", _STRIDED_DTYPES, "strided_slice")
    check_type(axes, "axes", (list, tuple), "strided_slice")
    inputs, attrs = {"Input": [x]}, {"axes": [int(a) for a in axes]}
    infer_flags = [1] * len(axes)
    for arg, value, whole, listed in (("starts", starts, "StartsTensor", "StartsTensorList"),
                                      ("ends", ends, "EndsTensor", "EndsTensorList"),
                                      ("strides", strides, "StridesTensor", "StridesTensorList")):
        check_type(value, arg, (list, tuple, Variable), "strided_slice")
        if isinstance(value, Variable):
            value.stop_gradient = True
            inputs[whole] = [value]
            infer_flags = [-1] * len(axes)
            continue
        if len(value) != len(axes):
            raise ArgumentValueError(f"strided_slice: {arg} must have one value per axis of "
                                     f"axes {list(axes)}, got {len(value)}")
        if not any(isinstance(v, Variable) for v in value):
            attrs[arg] = [int(v) for v in value]
            continue
        attrs[arg], tensors = [], []
        for i, v in enumerate(value):
            if isinstance(v, Variable):
                v.stop_gradient = True
                attrs[arg].append(-1)
                infer_flags[i] = -1
                tensors.append(v)
            else:
                attrs[arg].append(int(v))
                tensors.append(_tensor.fill_constant([1], "int32", int(v)))
        inputs[listed] = tensors
    attrs["infer_flags"] = infer_flags
    helper = LayerHelper("strided_slice", name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op("strided_slice", inputs=inputs, outputs={"Out": [out]}, attrs=attrs)
    return out


def t(input: Variable, name: str | None = None) -> Variable:
    """paddle.t: a 2-D tensor transposed (transpose2 with axis [1, 0]); 0-D and 1-D ones are
    returned as they are, as Paddle's."""
    if isinstance(input, Variable) and len(input.shape) > 2:
        raise ValueError(f"paddle.t takes tensors of at most 2 dims; '{input.name}' has shape "
                         f"{list(input.shape)} (paddle.transpose permutes any rank)")
    check_variable_and_dtype(input, "input", ("float16", "bfloat16", "float32", "float64",
                                              "int32", "int64"), "t")
    return input if len(input.shape) <= 1 else _nn.transpose(input, [1, 0], name=name)


def _axes(axes, what: str, ndim: int) -> list[int]:
    """source/destination as non-negative ints (Paddle asserts they are ints in range)."""
    for a in axes:
        if not isinstance(a, int):
            raise ShapeAssertionError(f"moveaxis: each element of '{what}' must be an int, got "
                                      f"{a!r}")
        if not -ndim <= a < ndim:
            raise ShapeAssertionError(f"moveaxis: '{what}' {a} is outside [-{ndim}, {ndim})")
    return [a % ndim for a in axes]


def moveaxis(x: Variable, source, destination, name: str | None = None) -> Variable:
    """x with its axes `source` moved to positions `destination`, the others keeping their
    order (numpy.moveaxis): one transpose2."""
    src = [source] if isinstance(source, int) else list(source)
    dst = [destination] if isinstance(destination, int) else list(destination)
    if len(src) != len(dst):
        raise ShapeAssertionError(f"moveaxis: 'source' {src} and 'destination' {dst} must have "
                                  f"the same length")
    if len(set(src)) != len(src):
        raise ValueError(f"moveaxis: each element of 'source' must be unique, got {src}")
    if len(set(dst)) != len(dst):
        raise ValueError(f"moveaxis: each element of 'destination' must be unique, got {dst}")
    check_variable_and_dtype(x, "x", ALL_DTYPES, "moveaxis")
    ndim = len(x.shape)
    src, dst = _axes(src, "source", ndim), _axes(dst, "destination", ndim)
    rest = iter([a for a in range(ndim) if a not in src])
    moved = dict(zip(dst, src))
    perm = [moved[i] if i in moved else next(rest) for i in range(ndim)]
    return _nn.transpose(x, perm, name=name)


reshape_ = static_inplace(_nn.reshape, "reshape")


def gather(x: Variable, index: Variable, axis=None, name: str | None = None) -> Variable:
    """paddle.gather: the slices of x along axis (0 when None) at the positions of a 1-D index;
    axis may be an int Variable (fed: the plan is per its value)."""
    check_variable_and_dtype(x, "x", _GATHER_DTYPES, "gather")
    check_variable_and_dtype(index, "index", ("int32", "int64"), "gather")
    check_type(axis, "axis", (int, Variable, type(None)), "gather")
    inputs, attrs = {"X": [x], "Index": [index]}, {"overwrite": False}
    if isinstance(axis, Variable):
        check_variable_and_dtype(axis, "axis", ("int32", "int64"), "gather")
        inputs["Axis"] = [axis]
    else:
        attrs["axis"] = 0 if axis is None else axis
    helper = LayerHelper("gather", name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op("gather", inputs=inputs, outputs={"Out": [out]}, attrs=attrs)
    return out


_FLIP_DTYPES = ("bool", "float16", "bfloat16", "float32", "float64", "int32", "int64",
                "complex64", "complex128")


def flip(x: Variable, axis, name: str | None = None) -> Variable:
    """paddle.flip: x reversed along the dims in axis (an int or a list of ints)."""
    check_variable_and_dtype(x, "x", _FLIP_DTYPES, "flip")
    check_type(axis, "axis", (int, list, tuple), "flip")
    axes = [axis] if isinstance(axis, int) else list(axis)
    for a in axes:
        check_type(a, "axis", int, "flip")
    helper = LayerHelper("flip", name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op("flip", inputs={"X": [x]}, outputs={"Out": [out]}, attrs={"axis": axes})
    return out
