"""Tensor.__setitem__ in dygraph mode: x[index] = value as Paddle appends it, one set_value op
(frontend/ops/set_value.py) whose result becomes x's value. The op is recorded like any other,
so gradients flow to the value (and, for the positions not set, to x's earlier value); x
itself is written in place, which Paddle refuses for a leaf that needs a gradient."""
from __future__ import annotations

import numpy as np

from ..frontend import unique_name
from ..frontend.dtypes import dtype_name, to_numpy_dtype
from ..frontend.framework import Variable
from ..frontend.layers.indexing import MAX_INTEGER, _bounds, _expand_ellipsis, _is_int
from ..frontend.layers.tensor import cast
from . import autograd
from .tensor import Tensor

_VALUE_ATTRS = {"bool": "bool_values", "float16": "fp16_values", "float32": "fp32_values",
                "float64": "fp64_values", "int32": "int32_values", "int64": "int64_values"}


def _index_attrs(x: Tensor, index) -> dict:
    """set_value's axes/starts/ends/steps/decrease_axes for ints, slices and Ellipsis."""
    items = _expand_ellipsis(x, list(index) if isinstance(index, tuple) else [index])
    if len(items) > len(x.shape):
        raise IndexError(f"too many indices for tensor '{x.name}' of shape {x.shape}: "
                         f"{len(items)} given")
    attrs = {"axes": [], "starts": [], "ends": [], "steps": [], "decrease_axes": [],
             "none_axes": []}
    for dim, item in enumerate(items):
        size = x.shape[dim]
        if isinstance(item, Tensor) and item.size == 1 and \
                dtype_name(item.dtype) in ("int32", "int64"):
            item = int(item)
        if _is_int(item):
            item = int(item)
            if size >= 0 and not -size <= item < size:  # a static var's dim may be unknown
                raise IndexError(f"index {item} is out of range for dim {dim} of tensor "
                                 f"'{x.name}' with size {size}")
            bounds = (item, item + 1 if item != -1 else MAX_INTEGER, 1)
            attrs["decrease_axes"].append(dim)
        elif isinstance(item, slice) and all(v is None or _is_int(v) for v in
                                             (item.start, item.stop, item.step)):
            if item == slice(None):
                continue
            bounds = _bounds(slice(*(None if v is None else int(v) for v in
                                     (item.start, item.stop, item.step))), size)
        else:
            raise IndexError(f"assigning to tensor '{x.name}' indexed by {item!r}: fluidc takes "
                             f"ints, slices of ints, one-value int tensors and Ellipsis (no "
                             f"None, list, bool or multi-value tensor indices)")
        for key, v in zip(("axes", "starts", "ends", "steps"), (dim, *bounds)):
            attrs[key].append(v)
    return attrs


def set_value_args(x: Variable, index, value) -> tuple[dict, dict]:
    """(inputs, attrs) of the set_value op writing value at x[index]: value a number, a numpy
    array or list, or a Variable (cast to x's dtype), broadcast to the indexed region."""
    attrs = _index_attrs(x, index)
    dtype = dtype_name(x.dtype)
    inputs = {"Input": [x]}
    if isinstance(value, Variable):
        inputs["ValueTensor"] = [value if value.dtype == x.dtype else cast(value, dtype)]
    else:
        array = np.asarray(value)
        if array.dtype == object or array.dtype.kind not in "biuf":
            raise TypeError(f"assigning {type(value).__name__} to tensor '{x.name}': the value "
                            f"must be a number, a numpy array, a list of numbers or a Tensor")
        key = _VALUE_ATTRS.get(dtype)
        if key is None:
            raise TypeError(f"assigning to tensor '{x.name}' of dtype {dtype}: set_value holds "
                            f"constants of {sorted(_VALUE_ATTRS)}")
        attrs["shape"] = list(array.shape)
        attrs[key] = array.astype(to_numpy_dtype(x.dtype)).reshape(-1).tolist()
    attrs["dtype"] = int(x.dtype)
    return inputs, attrs


def setitem(x: Tensor, index, value) -> None:
    """x[index] = value (set_value_args)."""
    if autograd.grad_enabled() and x.is_leaf and not x.stop_gradient:
        raise ValueError(f"(InvalidArgument) Leaf Tensor ({x.name}) that doesn't stop gradient "
                         f"can't use inplace strategy.")
    inputs, attrs = set_value_args(x, index, value)
    block = x.block
    out = block.create_var(name=unique_name.generate_with_ignorable_key(f"{x.name}_set_value"),
                           dtype=x.dtype)
    block.append_op("set_value", inputs=inputs, outputs={"Out": [out]}, attrs=attrs)
    x._value = out._value
    if not x.persistable:  # a parameter stays a leaf (set under no_grad)
        x._node, x._stop_gradient = out._node, out.stop_gradient
