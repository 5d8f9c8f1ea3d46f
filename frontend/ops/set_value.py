"""set_value: x[index] = value, as Paddle's Tensor.__setitem__ appends it. Out is Input with
the strided positions (axes/starts/ends/steps, Python slice semantics; decrease_axes are the
int-indexed dims, of size 1) replaced by the value broadcast to that region less the
decreased dims. The value is ValueTensor or, for constants, one of the *_values attributes
(flat) with its `shape`. set_value_grad: Input@GRAD is Out@GRAD with the region zeroed,
ValueTensor@GRAD the region summed back to the value's shape."""
from __future__ import annotations

import numpy as np

from ..dtypes import to_numpy_dtype
from ..errors import ShapeError
from .define import grad_like
from .registry import OpDef, OpDesc, VarInfo, grad_name, register, slots

# attribute holding the constant value -> its numpy dtype (Paddle's names)
VALUE_ATTRS = {"bool_values": np.bool_, "fp32_values": np.float32, "int32_values": np.int32,
               "int64_values": np.int64, "fp64_values": np.float64, "fp16_values": np.float16}
ATTRS = {"axes": [], "starts": [], "ends": [], "steps": [], "decrease_axes": [],
         "none_axes": [], "dtype": 5, "shape": [], **{k: [] for k in VALUE_ATTRS}}


def _region(shape, a) -> tuple[tuple, tuple[int, ...], tuple[int, ...]]:
    """(index, the region's shape, that shape less the decreased dims)."""
    axes, starts, ends = list(a["axes"]), list(a["starts"]), list(a["ends"])
    steps = list(a["steps"]) or [1] * len(axes)
    if not len(axes) == len(starts) == len(ends) == len(steps):
        raise ShapeError(f"op 'set_value': axes {axes}, starts {starts}, ends {ends} and steps "
                         f"{steps} differ in length")
    if a.get("none_axes"):
        raise ShapeError("op 'set_value': none_axes (None in the index) are not supported")
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
    return tuple(index), full, tuple(d for i, d in enumerate(full) if i not in dec)


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


def _infer(ins, a):
    x = ins["Input"][0]
    _, _, target = _region(x.shape, a)
    value = _value_shape(ins, a, target)
    try:
        fits = np.broadcast_shapes(value, target) == target
    except ValueError:
        fits = False
    if not fits:
        raise ShapeError(f"op 'set_value': the value of shape {list(value)} cannot be broadcast "
                         f"to the indexed region of shape {list(target)} (Input "
                         f"{list(x.shape)})")
    return {"Out": [VarInfo(tuple(x.shape), x.dtype, x.lod_level)]}


def _value(ins, a, dtype, target) -> np.ndarray:
    shape = _value_shape(ins, a, target)
    if ins.get("ValueTensor"):
        return np.asarray(ins["ValueTensor"][0]).astype(dtype, copy=False).reshape(shape)
    for key, kind in VALUE_ATTRS.items():
        if len(a.get(key) or ()):
            return np.asarray(a[key], kind).reshape(shape).astype(dtype)
    raise ShapeError("op 'set_value' has no value: neither ValueTensor nor a *_values "
                     "attribute holds one")


def _ref(ins, a):
    x = np.asarray(ins["Input"][0])
    index, full, target = _region(x.shape, a)
    out = x.copy()
    out[index] = np.broadcast_to(_value(ins, a, x.dtype, target), target).reshape(full)
    return {"Out": [out]}


def _grad(op: OpDesc) -> list[OpDesc]:
    ins = {"Out@GRAD": [grad_name(op.output("Out")[0])]}
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


register(OpDef("set_value", slots("Input", "ValueTensor?"), slots("Out"), ATTRS, _infer,
               "extern", reference=_ref, grad=_grad))
register(OpDef("set_value_grad", slots("Out@GRAD", "ValueTensor?"),
               slots("Input@GRAD?", "ValueTensor@GRAD?"), ATTRS, _grad_infer, "extern",
               reference=_grad_ref))
