"""x[index] = value for an index holding int lists, int numpy arrays or int tensors of more
than one value (numpy's advanced indexing), as Paddle 3.3.1 writes it: the basic part of the
index (ints, slices) selects a sub-tensor, whose advanced dims are transposed to the front and
written by index_put (frontend/ops/index_put.py), transposed back and set into x by set_value.
The value goes where numpy puts it: the indices' broadcast dims stand where the first advanced
index (ints included) stands when those are adjacent, else in front. Gradients flow to the
value and to x's other positions through the ops' own gradients."""
from __future__ import annotations

import numpy as np

from ..frontend import unique_name
from ..frontend.dtypes import dtype_name, to_numpy_dtype
from ..frontend.framework import Variable
from ..frontend.layers.api2 import transpose
from ..frontend.layers.api2.shaping import expand
from ..frontend.layers.indexing import _expand_ellipsis, _is_int, getitem
from ..frontend.layers.tensor import assign, cast

_INDEX_DTYPES = ("int32", "int64")


def is_advanced(item) -> bool:
    """Whether an index item is an int list / array / tensor of more than one value (a
    one-value int tensor indexes like an int, as set_value takes it)."""
    if isinstance(item, Variable):
        return dtype_name(item.dtype) in _INDEX_DTYPES and int(np.prod(item.shape)) != 1
    if isinstance(item, (list, tuple, np.ndarray)):
        array = np.asarray(item)
        return array.ndim > 0 and array.dtype.kind in "iu"
    return False


def _is_single(item) -> bool:
    """An int, or a one-value int tensor: numpy counts it among the advanced indices."""
    return _is_int(item) or (isinstance(item, Variable) and not is_advanced(item) and
                             dtype_name(item.dtype) in _INDEX_DTYPES)


def _index_tensor(item) -> Variable:
    return item if isinstance(item, Variable) else assign(np.asarray(item))


def value_array(x: Variable, value) -> np.ndarray:
    """A constant value written into x as Paddle takes it (a number as a [1] array); anything
    but numbers, and complex numbers for a real x, are a TypeError naming x."""
    array = np.array([value]) if np.isscalar(value) else np.asarray(value)
    if array.dtype == object or array.dtype.kind not in "biufc":
        raise TypeError(f"assigning {type(value).__name__} to tensor '{x.name}': the value "
                        f"must be a number, a numpy array, a list of numbers or a Tensor")
    if array.dtype.kind == "c" and to_numpy_dtype(x.dtype).kind != "c":
        raise TypeError(f"assigning a complex value to tensor '{x.name}' of dtype "
                        f"{dtype_name(x.dtype)}: its imaginary part would be lost")
    return array


def _value_var(x: Variable, value) -> Variable:
    """The value as a Variable of x's dtype (Paddle: paddle.assign(value).astype(x.dtype))."""
    if not isinstance(value, Variable):
        value = assign(value_array(x, value))
    return value if value.dtype == x.dtype else cast(value, dtype_name(x.dtype))


def _index_put(x: Variable, indices: list[Variable], value: Variable) -> Variable:
    block = x.block.program.current_block()
    out = block.create_var(name=unique_name.generate_with_ignorable_key(f"{x.name}_index_put"),
                           dtype=x.dtype)
    block.append_op("index_put", inputs={"x": [x], "indices": indices, "value": [value]},
                    outputs={"out": [out]}, attrs={"accumulate": False})
    return out


def _fronted(x: Variable, value: Variable, shapes: list, rest: list, pos: int):
    """The value, given for numpy's region (the other dims `rest` with the index dims, of the
    index `shapes` broadcast, at `pos`), as index_put takes it: expanded to that region, the
    index dims moved to the front. None when the region is empty (nothing is written; the
    value must still fit, as numpy checks)."""
    if any(d < 0 for d in rest + [d for s in shapes for d in s]):
        raise IndexError(f"assigning to tensor '{x.name}' through int-list indices apart from "
                         f"the first dims: the shapes must be known (index shapes "
                         f"{[list(s) for s in shapes]}, other dims {rest})")
    b = list(np.broadcast_shapes(*shapes))
    region = rest[:pos] + b + rest[pos:]
    if 0 in region:
        try:
            fits = np.broadcast_shapes(tuple(value.shape), tuple(region)) == tuple(region)
        except ValueError:
            fits = False
        if not fits:
            raise ValueError(f"assigning a value of shape {list(value.shape)} to tensor "
                             f"'{x.name}': it cannot be broadcast to the indexed region of "
                             f"shape {region}")
        return None
    if list(value.shape) != region:
        value = expand(value, region)
    nb = len(b)
    return transpose(value, list(range(pos, pos + nb)) + list(range(pos)) +
                     list(range(pos + nb, len(region))))


def written_advanced(x: Variable, items: list, value, set_basic) -> Variable:
    """A new Variable: x with value at x[items] (items holding an advanced index);
    set_basic(x, index, value_var) appends the set_value writing a basic index."""
    items = _expand_ellipsis(x, list(items))
    if any(item is None for item in items):
        raise IndexError(f"assigning to tensor '{x.name}' through an int-list index mixed with "
                         f"None: fluidc takes ints, slices, Ellipsis and int lists / tensors there")
    if len(items) > len(x.shape):
        raise IndexError(f"too many indices for tensor '{x.name}' of shape {x.shape}: "
                         f"{len(items)} given")
    items += [slice(None)] * (len(x.shape) - len(items))
    advanced = [k for k, item in enumerate(items) if is_advanced(item)]
    for k, item in enumerate(items):
        if not (k in advanced or _is_single(item) or isinstance(item, slice)):
            raise IndexError(f"assigning to tensor '{x.name}' indexed by {item!r} together with "
                             f"an int-list index: fluidc takes ints, slices and int lists / "
                             f"tensors there")
    basic = tuple(slice(None) if k in advanced else item for k, item in enumerate(items))
    trivial = all(isinstance(b, slice) and b == slice(None) for b in basic)
    sub = x if trivial else getitem(x, basic)
    # dims of sub: x's less the int-indexed ones
    at = {k: sum(1 for item in items[:k] if not _is_single(item)) for k in advanced}
    front = [at[k] for k in advanced]
    perm = front + [d for d in range(len(sub.shape)) if d not in front]
    moved = perm != sorted(perm)
    indices = [_index_tensor(items[k]) for k in advanced]
    value = _value_var(x, value)
    special = sorted(advanced + [k for k, item in enumerate(items) if _is_single(item)])
    pos = special[0] if special == list(range(special[0], special[-1] + 1)) else 0
    if pos:
        value = _fronted(x, value, [tuple(i.shape) for i in indices],
                         [sub.shape[d] for d in perm[len(front):]], pos)
        if value is None:
            return x
    put = _index_put(transpose(sub, perm) if moved else sub, indices, value)
    back = transpose(put, np.argsort(perm).tolist()) if moved else put
    return back if trivial else set_basic(x, basic, back)
