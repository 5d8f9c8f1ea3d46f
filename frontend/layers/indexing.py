"""Variable.__getitem__: basic indexing of static Variables (ints, slices with steps, None,
Ellipsis), appended as Paddle appends it: one slice op (strided_slice when a step is not 1) whose
decrease_axis drops the int-indexed dims, then unsqueeze2 for the None axes."""
from __future__ import annotations

import numpy as np

from .. import unique_name
from ..framework import Variable
from ..dtypes import VarType, dtype_name
from .conv import squeeze, unsqueeze
from .tensor import cast, concat, fill_constant

# Paddle's bounds for an open slice end: "to the end" (or, stepping back, "to the front").
MAX_INTEGER = 2 ** 31 - 1
MIN_INTEGER = -(2 ** 31)


def _expand_ellipsis(x: Variable, items: list) -> list:
    """items with the Ellipsis replaced by as many full slices as dims it stands for."""
    count = sum(1 for it in items if it is Ellipsis)
    if count > 1:
        raise IndexError(f"an index of '{x.name}' can only have a single ellipsis ('...')")
    if not count:
        return items
    at = items.index(Ellipsis)
    used = len(items) - 1 - items.count(None)
    return items[:at] + [slice(None)] * (len(x.shape) - used) + items[at + 1:]


def _bounds(item: slice, size: int) -> tuple:
    """(start, end, step) of a slice as Paddle writes them into the op's attributes. A bound or
    the step may be an int Variable; with a Variable step an open bound has no known value."""
    step = 1 if item.step is None else item.step
    if isinstance(step, Variable):
        if item.start is None or item.stop is None:
            raise ValueError("slicing with a tensor step: the start or end is None; give both")
        return item.start, item.stop, step
    if step == 0:
        raise ValueError("slice step cannot be zero")
    start = item.start if item.start is not None else (0 if step > 0 else MAX_INTEGER)
    end = item.stop if item.stop is not None else (MAX_INTEGER if step > 0 else MIN_INTEGER)
    if size >= 0 and _is_int(end) and end >= size:
        end = MAX_INTEGER if step > 0 else size
    return start, end, step


def _is_int(v) -> bool:
    return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))


def _check_item(x: Variable, item) -> None:
    bounds = (item.start, item.stop, item.step) if isinstance(item, slice) else (item,)
    if not all(v is None or _is_int(v) for v in bounds) or item is None:
        raise IndexError(f"indexing Variable '{x.name}' with {item!r}: fluidc takes ints, "
                         f"slices of ints, None and Ellipsis (no tensor, list or bool indices)")


_INDEX_DTYPES = ("int32", "int64", "float16", "float32", "float64")


def _check_index_var(x: Variable, item: Variable) -> None:
    """A tensor index holds one number (a float one is truncated when read, as Paddle's slice
    kernel casts it); bool masks and index lists are not supported."""
    if dtype_name(item.dtype) not in _INDEX_DTYPES or int(np.prod(item.shape)) != 1:
        raise IndexError(f"indexing Variable '{x.name}' with Variable '{item.name}' (dtype "
                         f"{dtype_name(item.dtype)}, shape {list(item.shape)}): a tensor index "
                         f"must be one int or float value")


def _bound_tensors(x: Variable, axes, starts, ends, decrease) -> dict[str, list[Variable]]:
    """StartsTensorList / EndsTensorList for an index holding tensors (as Paddle appends it):
    the int bounds as fill_constants; every axis must be indexed by one value."""
    if set(axes) != set(decrease):
        raise IndexError(f"indexing Variable '{x.name}' with a tensor mixed with slices is not "
                         f"supported; index each dim by an int or a tensor")

    def as_tensor(v):
        return v if isinstance(v, Variable) else fill_constant([1], "int64", v)
    return {"StartsTensorList": [as_tensor(v) for v in starts],
            "EndsTensorList": [as_tensor(v) for v in ends]}


def int_tensor(values) -> Variable:
    """A 1-D int64 tensor of `values`, ints and one-value int Variables (slice bounds given as
    one StartsTensor / EndsTensor): each item as a [1] tensor, joined by concat."""
    def one(v):
        if not isinstance(v, Variable):
            return fill_constant([1], "int64", int(v))
        v = v if v.dtype == VarType.INT64 else cast(v, "int64")
        return v if len(v.shape) == 1 else unsqueeze(squeeze(v, []), [0])
    return concat([one(v) for v in values], 0)


def _tensor_bounds(x: Variable, item: slice) -> bool:
    """Whether item is a slice with an int Variable start, stop or step (read when the program
    runs: the op's StartsTensor / EndsTensor / StridesTensor)."""
    bounds = [b for b in (item.start, item.stop, item.step) if isinstance(b, Variable)]
    for b in bounds:
        _check_index_var(x, b)
    return bool(bounds)


def getitem(x: Variable, index) -> Variable:
    """x[index] for ints, slices (any step), None and Ellipsis, as Paddle's static indexing.
    A slice with an int Variable start, stop or step makes every bound a tensor (StartsTensor /
    EndsTensor, and StridesTensor for Variable steps), whose values fluidc folds in before a run
    (passes/shape_inputs.py)."""
    items = list(index) if isinstance(index, tuple) else [index]
    items = _expand_ellipsis(x, items)
    none_axes, kept = [], []
    for i, item in enumerate(items):
        if item is None:
            none_axes.append(i)
        else:
            kept.append(item)
    if len(kept) > len(x.shape):
        raise IndexError(f"too many indices for Variable '{x.name}' of shape {list(x.shape)}: "
                         f"{len(kept)} given")
    axes, starts, ends, steps, decrease = [], [], [], [], []
    tensor_bounds = False
    for dim, item in enumerate(kept):
        if isinstance(item, slice) and _tensor_bounds(x, item):
            tensor_bounds = True
            start, end, step = _bounds(item, x.shape[dim])
            axes.append(dim)
            starts.append(start)
            ends.append(end)
            steps.append(step)
            continue
        if isinstance(item, Variable):
            _check_index_var(x, item)
            axes.append(dim)
            starts.append(item)
            ends.append(item + 1)
            steps.append(1)
            decrease.append(dim)
            continue
        _check_item(x, item)
        size = x.shape[dim]
        if _is_int(item):
            item = int(item)
            if size >= 0 and not -size <= item < size:
                raise IndexError(f"index {item} is out of range for dim {dim} of Variable "
                                 f"'{x.name}' with size {size}")
            start, end, step = item, (item + 1 if item != -1 else MAX_INTEGER), 1
            decrease.append(dim)
        elif item == slice(None):
            continue
        else:
            start, end, step = _bounds(slice(*(None if v is None else int(v) for v in (
                item.start, item.stop, item.step))), size)
        axes.append(dim)
        starts.append(start)
        ends.append(end)
        steps.append(step)
    out = x
    if axes:
        strided = any(isinstance(s, Variable) or s != 1 for s in steps)
        op_type = "strided_slice" if strided else "slice"
        block = x.block.program.current_block()
        out = block.create_var(name=unique_name.generate_with_ignorable_key(f"{x.name}_{op_type}"),
                               dtype=x.dtype)
        inputs = {"Input": [x]}
        if tensor_bounds:  # starts / ends decide the output shape: folded before a run
            inputs.update(StartsTensor=[int_tensor(starts)], EndsTensor=[int_tensor(ends)])
            starts, ends = [-1] * len(axes), [-1] * len(axes)
        elif any(isinstance(s, Variable) for s in starts):
            inputs.update(_bound_tensors(x, axes, starts, ends, decrease))
            starts, ends = [-1] * len(axes), [-1] * len(axes)
        attrs = {"axes": axes, "starts": starts, "ends": ends, "decrease_axis": decrease,
                 "infer_flags": [-1 if tensor_bounds else 1] * len(axes)}
        if strided and tensor_bounds and any(isinstance(s, Variable) for s in steps):
            inputs["StridesTensor"] = [int_tensor(steps)]
            attrs["strides"] = [-1] * len(axes)
        elif strided:
            attrs["strides"] = steps
        block.append_op(op_type, inputs=inputs, outputs={"Out": [out]}, attrs=attrs)
    if none_axes:
        # as Paddle: a None's place in the index, less the int-indexed dims before it
        out = unsqueeze(out, [a - sum(1 for d in decrease if d < a) for a in none_axes])
    return out
