"""Tensor.__setitem__ in dygraph mode: x[index] = value as Paddle appends it, one set_value op
(frontend/ops/set_value.py; a where op for a bool mask index, index_put for an int-list one)
whose result becomes x's value. The op is recorded like any other, so gradients flow to the
value (and, for the positions not set, to x's earlier value); x itself is written in place,
which Paddle refuses for a leaf that needs a gradient."""
from __future__ import annotations

import numpy as np

from ..frontend import unique_name
from ..frontend.dtypes import dtype_name, to_numpy_dtype
from ..frontend.framework import Variable
from ..frontend.ops import scalar_values
from ..frontend.layers.indexing import MAX_INTEGER, _bounds, _expand_ellipsis, _is_int
from ..frontend.layers.api2 import reshape
from ..frontend.layers.api2.search import where
from ..frontend.layers.tensor import assign, cast, fill_constant
from .advanced_setitem import is_advanced, value_array, written_advanced
from .tensor import Tensor

# x's dtypes a constant value is written for (in set_value's `values`, as Paddle 3.3.1 does)
_CONSTANT_DTYPES = ("bool", "float16", "float32", "float64", "int32", "int64", "complex64",
                    "complex128")


def _index_attrs(x: Tensor, index) -> dict:
    """set_value's axes/starts/ends/steps/decrease_axes for ints, slices and Ellipsis."""
    items = _expand_ellipsis(x, list(index) if isinstance(index, tuple) else [index])
    nones = [i for i, item in enumerate(items) if item is None]  # Paddle's none_axes
    items = [item for item in items if item is not None]
    if len(items) > len(x.shape):
        raise IndexError(f"too many indices for tensor '{x.name}' of shape {x.shape}: "
                         f"{len(items)} given")
    attrs = {"axes": [], "starts": [], "ends": [], "steps": [], "decrease_axes": [],
             "none_axes": nones}
    for dim, item in enumerate(items):
        size = x.shape[dim]
        if isinstance(item, Tensor) and item.size == 1 and \
                dtype_name(item.dtype) in ("int32", "int64"):
            item = int(item)  # a dygraph tensor's value is known
        elif isinstance(item, slice):
            item = slice(*(int(v) if isinstance(v, Tensor) else v
                           for v in (item.start, item.stop, item.step)))
        if _is_int(item):
            item = int(item)
            if size >= 0 and not -size <= item < size:  # a static var's dim may be unknown
                raise IndexError(f"index {item} is out of range for dim {dim} of tensor "
                                 f"'{x.name}' with size {size}")
            bounds = (item, item + 1 if item != -1 else MAX_INTEGER, 1)
            attrs["decrease_axes"].append(dim)
        elif _is_bound(item):  # a static one-value int Variable: its value is read at run time
            bounds = (item, item + 1, 1)
            attrs["decrease_axes"].append(dim)
        elif isinstance(item, slice) and all(v is None or _is_int(v) or _is_bound(v) for v in
                                             (item.start, item.stop, item.step)):
            if item == slice(None):
                continue
            bounds = _bounds(slice(*(int(v) if _is_int(v) else v for v in
                                     (item.start, item.stop, item.step))), size)
        else:
            raise IndexError(f"assigning to tensor '{x.name}' indexed by {item!r}: fluidc takes "
                             f"ints, slices of ints, int tensors and lists, one bool mask, "
                             f"None and Ellipsis")
        for key, v in zip(("axes", "starts", "ends", "steps"), (dim, *bounds)):
            attrs[key].append(v)
    return attrs


def _is_bound(v) -> bool:
    """Whether v is a one-value int Variable (a static index or slice bound)."""
    return isinstance(v, Variable) and dtype_name(v.dtype) in ("int32", "int64") and \
        int(np.prod(v.shape)) == 1


_BOUND_SLOTS = {"starts": "StartsTensorList", "ends": "EndsTensorList",
                "steps": "StepsTensorList"}


def _bound_inputs(attrs: dict) -> dict:
    """The tensor lists for starts / ends / steps holding Variables (as Paddle appends them:
    the ints as [1] int64 fill_constants), their attributes then left empty; set_value folds
    their values in before a run."""
    inputs = {}
    for attr, slot in _BOUND_SLOTS.items():
        if any(isinstance(v, Variable) for v in attrs[attr]):
            inputs[slot] = [v if isinstance(v, Variable) else fill_constant([1], "int64", v)
                            for v in attrs[attr]]
            attrs[attr] = []
    return inputs


def set_value_args(x: Variable, index, value) -> tuple[dict, dict]:
    """(inputs, attrs) of the set_value op writing value at x[index]: value a number, a numpy
    array or list, or a Variable (cast to x's dtype), broadcast to the indexed region."""
    attrs = _index_attrs(x, index)
    dtype = dtype_name(x.dtype)
    inputs = {"Input": [x], **_bound_inputs(attrs)}
    if isinstance(value, Variable):
        inputs["ValueTensor"] = [value if value.dtype == x.dtype else cast(value, dtype)]
    else:
        array = value_array(x, value)
        if dtype not in _CONSTANT_DTYPES:
            raise TypeError(f"assigning to tensor '{x.name}' of dtype {dtype}: set_value holds "
                            f"constants of {list(_CONSTANT_DTYPES)}")
        attrs["shape"] = list(array.shape)
        attrs["values"] = scalar_values.as_scalars(array.astype(to_numpy_dtype(x.dtype)))
    attrs["dtype"] = int(x.dtype)
    return inputs, attrs


def _bool_mask(x: Variable, index) -> Variable | None:
    """The bool mask `index` is (a bool Variable, list or numpy array over x's leading dims,
    as Paddle's index_put takes it), checked against x's shape; None for other indices."""
    items = list(index) if isinstance(index, tuple) else [index]

    def is_mask(item):
        if isinstance(item, Variable):
            return dtype_name(item.dtype) == "bool"
        return isinstance(item, (list, np.ndarray)) and len(item) and \
            np.asarray(item).dtype == np.bool_
    masks = [(dim, item) for dim, item in enumerate(items) if is_mask(item)]
    for dim, item in masks:
        n = item.shape[0] if isinstance(item, Variable) else len(item)
        if dim < len(x.shape) and x.shape[dim] >= 0 and n >= 0 and n != x.shape[dim]:
            raise IndexError(f"The shape of boolean index {n} did not match indexed tensor "
                             f"{x.shape[dim]} along axis {dim}")
    if not masks:
        return None
    if len(items) != 1:
        raise IndexError(f"assigning to tensor '{x.name}' through a bool index mixed with other "
                         f"indices: fluidc takes one bool mask over the leading dims")
    mask = items[0] if isinstance(items[0], Variable) else assign(np.asarray(items[0]))
    k = len(mask.shape)
    if k > len(x.shape) or any(a != b for a, b in zip(mask.shape, x.shape) if a >= 0 and b >= 0):
        raise IndexError(f"The shape of boolean index {list(mask.shape)} did not match indexed "
                         f"tensor {list(x.shape)}")
    return mask


def _masked(x: Variable, mask: Variable, value) -> Variable:
    """x with value where mask (over x's leading dims) holds: a where op. The value must
    broadcast to the dims after the mask (then every masked row takes it, as index_put)."""
    rest = len(x.shape) - len(mask.shape)
    if not isinstance(value, Variable):
        array = np.asarray(value)
        if array.dtype == object or array.dtype.kind not in "biuf":
            raise TypeError(f"assigning {type(value).__name__} to tensor '{x.name}': the value "
                            f"must be a number, a numpy array or a Tensor")
        value = assign(array.astype(to_numpy_dtype(x.dtype)))
    elif value.dtype != x.dtype:
        value = cast(value, dtype_name(x.dtype))
    if len(value.shape) > rest:
        after = list(x.shape[len(mask.shape):])
        raise IndexError(f"assigning a value of shape {list(value.shape)} to tensor '{x.name}' "
                         f"through a bool mask of shape {list(mask.shape)}: fluidc takes values "
                         f"that broadcast to the dims after the mask {after}")
    mask = reshape(mask, list(mask.shape) + [1] * rest) if rest else mask
    return where(mask, value, x)


def written(x: Variable, index, value) -> Variable:
    """A new Variable: x with value at x[index], appended to the current block as Paddle
    appends it (one set_value op; a where op for a bool mask index; index_put for int lists
    and tensors: advanced_setitem.py)."""
    mask = _bool_mask(x, index)
    if mask is not None:
        return _masked(x, mask, value)
    items = list(index) if isinstance(index, tuple) else [index]
    if any(is_advanced(item) for item in items):
        return written_advanced(x, items, value, _set_value)
    return _set_value(x, index, value)


def _set_value(x: Variable, index, value) -> Variable:
    """x with value at x[index] (a basic index): one set_value op."""
    inputs, attrs = set_value_args(x, index, value)
    block = x.block.program.current_block()
    out = block.create_var(name=unique_name.generate_with_ignorable_key(f"{x.name}_set_value"),
                           dtype=x.dtype)
    block.append_op("set_value", inputs=inputs, outputs={"Out": [out]}, attrs=attrs)
    return out


def setitem(x: Tensor, index, value) -> None:
    """x[index] = value: x takes the value of written(x, index, value) (Tensor._write)."""
    x._write(written(x, index, value))
