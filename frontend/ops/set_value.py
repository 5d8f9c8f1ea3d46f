"""set_value: x[index] = value, as Paddle's Tensor.__setitem__ appends it. Out is Input with
the strided positions (axes/starts/ends/steps, Python slice semantics; decrease_axes are the
int-indexed dims, of size 1) replaced by the value broadcast to that region less the
decreased dims (with a 1 for each None of the index: none_axes). The value is ValueTensor
or, for constants, `values` (Paddle 3.3.1's Scalars, complex ones included) or one of older
Paddle's *_values attributes (flat: scalar_values.py) with its `shape`. Bounds given as
tensors (StartsTensorList / EndsTensorList / StepsTensorList: static indices and slices
holding int Variables, such as a while_loop's counter) are read when the op runs: Out's
shape does not depend on them. set_value_grad: Input@GRAD is Out@GRAD with the region zeroed,
ValueTensor@GRAD the region summed back to the value's shape."""
from __future__ import annotations

import numpy as np

from ..errors import ShapeError
from . import scalar_values
from .define import grad_like
from .registry import OpDef, OpDesc, VarInfo, grad_name, register, slots

ATTRS = {"axes": [], "starts": [], "ends": [], "steps": [], "decrease_axes": [],
         "none_axes": [], "dtype": 5, "shape": [], "values": [],
         **{k: [] for k in scalar_values.LEGACY}}


def _region(shape, a) -> tuple[tuple, tuple[int, ...], tuple[int, ...]]:
    """(index, the region's shape, the shape the value is broadcast to: the region less the
    decreased dims, with the index's Nones)."""
    axes, starts, ends = list(a["axes"]), list(a["starts"]), list(a["ends"])
    steps = list(a["steps"]) or [1] * len(axes)
    if not len(axes) == len(starts) == len(ends) == len(steps):
        raise ShapeError(f"op 'set_value': axes {axes}, starts {starts}, ends {ends} and steps "
                         f"{steps} differ in length")
    index = [slice(None)] * len(shape)
    for ax, s, e, k in zip(axes, starts, ends, steps):
        if not -len(shape) <= ax < len(shape) or k == 0:
            raise ShapeError(f"op 'set_value': axis {ax} (step {k}) does not index Input of "
                             f"shape {list(shape)}")
        index[ax % len(shape)] = slice(int(s), int(e), int(k))
    full = tuple(len(range(d)[i]) for d, i in zip(shape, index))
    dec = {d % len(shape) for d in a["decrease_axes"]}
    if any(full[d] != 1 for d in dec):
        raise ShapeError(f"op 'set_value': decrease_axes {list(a['decrease_axes'])} name a dim "
                         f"of the region {list(full)} whose size is not 1")
    return tuple(index), full, _with_nones(full, dec, sorted(a.get("none_axes") or ()))


def _with_nones(full: tuple[int, ...], dec: set[int], nones: list[int]) -> tuple[int, ...]:
    """The shape the value is broadcast to: the region less the decreased dims, with a 1 for
    each None of the index (none_axes: its position in the index), placed as Paddle's kernel
    places them (before region dim i for each position <= i, the rest at the end)."""
    shape, k = [], 0
    for i, d in enumerate(full):
        while k < len(nones) and nones[k] <= i:
            shape.append(1)
            k += 1
        if i not in dec:
            shape.append(d)
    return tuple(shape) + (1,) * (len(nones) - k)


def _value_shape(ins, a, target: tuple[int, ...]) -> tuple[int, ...]:
    """The value's shape less the leading 1s beyond the region's rank (Paddle ignores them:
    a [1] value sets one element)."""
    if ins.get("ValueTensor"):
        shape = tuple(ins["ValueTensor"][0].shape)
    else:
        shape = tuple(int(d) for d in a["shape"])
    while len(shape) > len(target) and shape[0] == 1:
        shape = shape[1:]
    return shape


_BOUNDS = {"starts": "StartsTensorList", "ends": "EndsTensorList", "steps": "StepsTensorList"}


def _fold(a, values):
    """starts / ends / steps from their tensor lists (one value each), as Paddle prefers them
    to the attributes; an index tensor's (-1, 0) bounds stand for the last entry, as in
    slice (x[i] appends i and i + 1)."""
    a = dict(a)
    for attr, slot in _BOUNDS.items():
        if values.get(slot):
            items = [np.asarray(v).reshape(-1) for v in values[slot]]
            if any(v.size != 1 for v in items):
                raise ShapeError(f"op 'set_value': each {slot} tensor must hold one value, got "
                                 f"sizes {[v.size for v in items]}")
            a[attr] = [int(v[0]) for v in items]
    a["ends"] = [2 ** 31 - 1 if (s, e) == (-1, 0) else e for s, e in zip(a["starts"], a["ends"])]
    return a


def _folded(ins, a) -> tuple[dict, dict]:
    """(ins, a) with the bound tensors folded into a, as the pipeline folds them (the reference
    executor runs programs unfolded)."""
    given = {s: ins[s] for s in _BOUNDS.values() if ins.get(s)}
    if not given:
        return ins, a
    return {k: v for k, v in ins.items() if k not in given}, _fold(a, given)


def _infer(ins, a):
    """Out is Input's shape. A value that does not fit the region is refused when the op runs
    (_value), as Paddle's kernel refuses it: its InferShape does not look at the value."""
    x = ins["Input"][0]
    return {"Out": [VarInfo(tuple(x.shape), x.dtype, x.lod_level)]}


def _fitting(shape, target, x_shape) -> None:
    try:
        fits = np.broadcast_shapes(shape, target) == target
    except ValueError:
        fits = False
    if not fits:
        raise ShapeError(f"op 'set_value': the value of shape {list(shape)} cannot be broadcast "
                         f"to the indexed region of shape {list(target)} (Input "
                         f"{list(x_shape)})")


def _value(ins, a, dtype, target, x_shape) -> np.ndarray:
    """The value, checked to broadcast to the region's `target` shape."""
    shape = _value_shape(ins, a, target)
    _fitting(shape, target, x_shape)
    if ins.get("ValueTensor"):
        return np.asarray(ins["ValueTensor"][0]).astype(dtype, copy=False).reshape(shape)
    if not scalar_values.held(a) and np.prod(shape, dtype=np.int64) != 0:  # an empty array
        raise ShapeError("op 'set_value' has no value: neither ValueTensor nor `values` (or a "
                         "*_values attribute) holds one")
    try:
        return scalar_values.as_array(a, dtype).reshape(shape)
    except (TypeError, ValueError) as e:
        raise ShapeError(f"op 'set_value': {e}") from None


def _ref(ins, a):
    x = np.asarray(ins["Input"][0])
    ins, a = _folded(ins, a)
    index, full, target = _region(x.shape, a)
    out = x.copy()
    out[index] = np.broadcast_to(_value(ins, a, x.dtype, target, x.shape),
                                 target).reshape(full)
    return {"Out": [out]}


def _grad(op: OpDesc) -> list[OpDesc]:
    ins = {"Out@GRAD": [grad_name(op.output("Out")[0])],
           **{s: op.input(s) for s in _BOUNDS.values() if op.inputs.get(s)}}
    if op.input("ValueTensor"):
        ins["ValueTensor"] = op.input("ValueTensor")
    return [OpDesc("set_value_grad", ins, grad_like(op, "Input", "ValueTensor"), dict(op.attrs))]


def _grad_infer(ins, a):
    d = ins["Out@GRAD"][0]
    out = {"Input@GRAD": [VarInfo(tuple(d.shape), d.dtype)]}
    if ins.get("ValueTensor"):
        v = ins["ValueTensor"][0]
        out["ValueTensor@GRAD"] = [VarInfo(tuple(v.shape), v.dtype)]
    return out


def _grad_ref(ins, a):
    d = np.asarray(ins["Out@GRAD"][0])
    ins, a = _folded(ins, a)
    index, full, target = _region(d.shape, a)
    dx = d.copy()
    dx[index] = 0
    out = {"Input@GRAD": [dx]}
    if ins.get("ValueTensor"):
        shape = _value_shape(ins, a, target)
        dv = d[index].reshape(target)
        lead = len(target) - len(shape)
        dv = dv.sum(axis=tuple(range(lead))) if lead else dv
        ones = tuple(i for i, n in enumerate(shape) if n == 1 and dv.shape[i] != 1)
        dv = dv.sum(axis=ones, keepdims=True) if ones else dv
        value = np.asarray(ins["ValueTensor"][0])
        out["ValueTensor@GRAD"] = [dv.astype(value.dtype).reshape(value.shape)]
    return out


_BOUND_SLOTS = [s + "*?" for s in _BOUNDS.values()]
register(OpDef("set_value", slots("Input", "ValueTensor?", *_BOUND_SLOTS), slots("Out"), ATTRS,
               _infer, "extern", reference=_ref, grad=_grad))
register(OpDef("set_value_grad", slots("Out@GRAD", "ValueTensor?", *_BOUND_SLOTS),
               slots("Input@GRAD?", "ValueTensor@GRAD?"), ATTRS, _grad_infer, "extern",
               reference=_grad_ref))
