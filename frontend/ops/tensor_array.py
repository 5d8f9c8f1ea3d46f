"""Tensor arrays (Paddle's LOD_TENSOR_ARRAY vars): write_to_array, read_from_array,
lod_array_length, tensor_array_to_tensor, and the grads of the first two and the last.

An array's value is a Python list of numpy arrays (None where nothing was written yet), so its
length changes at run time; fluidc's compiled plans hold fixed shapes, so a program using
arrays runs on the reference executor (runtime/reference.py), which runs these ops (kind
'array') over lists. write_to_array updates its Out in place (OpDef.updates), as Paddle's does. An entry keeps the
LoD of what was written there (the reference executor's LoDs, see lod_rank.py), which a read
gives back.

Grads: read_from_array's adds Out@GRAD into entry I of the array's grad (an array too, updated
in place, so reads of one entry sum); write_to_array's reads entry I of Out@GRAD, zeros where
nothing reached it; tensor_array_to_tensor's cuts Out@GRAD into the entries' pieces and adds
them to the array's grad.
"""
from __future__ import annotations

import numpy as np

from ..dtypes import VarType
from ..errors import OpError
from .registry import LOD_ATTR, OpDef, OpDesc, VarInfo, grad_name, register, slots


def _index(i, op: str) -> int:
    i = np.asarray(i).reshape(-1)
    if i.size != 1:
        raise OpError(f"op '{op}': index I must hold one value, it holds {i.size}")
    k = int(i[0])
    if k < 0:
        raise OpError(f"op '{op}': index I is {k}; an array index must be >= 0")
    return k


def _entry(array, k: int, op: str) -> np.ndarray:
    if array is None or k >= len(array) or array[k] is None:
        size = 0 if array is None else len(array)
        raise OpError(f"op '{op}': index {k} is out of range of the tensor array (length "
                      f"{size}, or nothing written there)")
    return array[k]


def _written(array, k: int, value) -> list:
    """A copy of the array (a new one if None) with entry k set to value."""
    out = list(array or [])
    out += [None] * (k + 1 - len(out))
    out[k] = value
    return out


def add_values(a, b):
    """a + b for tensors or arrays (entrywise; a missing entry adds nothing); None is zero."""
    if a is None or b is None:
        return b if a is None else a
    if isinstance(a, list) or isinstance(b, list):
        a, b = list(a or []), list(b or [])
        n = max(len(a), len(b))
        a, b = a + [None] * (n - len(a)), b + [None] * (n - len(b))
        return [add_values(x, y) for x, y in zip(a, b)]
    return np.asarray(a) + np.asarray(b)


def zeros_of(value):
    """Zeros shaped like a tensor or (entrywise) an array."""
    if isinstance(value, list):
        return [None if v is None else np.zeros_like(v) for v in value]
    return np.zeros_like(np.asarray(value))


def copy_value(value):
    """A copy of a tensor, or of an array's list (its entries are never changed in place)."""
    return list(value) if isinstance(value, list) else np.array(value, copy=True)


def _element(ins: dict[str, list[VarInfo]], slot: str) -> VarInfo:
    x = ins[slot][0]
    return VarInfo(x.shape, x.dtype, x.lod_level)


# -- write_to_array: Out[I] = X --------------------------------------------------------------

def _lods(a: dict, slot: str):
    """The LoD the reference executor gives a slot's first var (an array's: its entries')."""
    return (a.get(LOD_ATTR, {}).get(slot) or [None])[0]


def _write_ref(ins, a, outs):
    k = _index(ins["I"][0], "write_to_array")
    return {"Out": [_written(outs["Out"][0], k, np.asarray(ins["X"][0]))],
            LOD_ATTR: {"Out": [_written(_lods(a, "Out"), k, _lods(a, "X"))]}}


def _write_grad(op: OpDesc) -> list[OpDesc]:
    return [OpDesc("write_to_array_grad", {"X": op.input("X"), "I": op.input("I"),
                                           "Out@GRAD": [grad_name(op.output("Out")[0])]},
                   {"X@GRAD": [grad_name(op.input("X")[0])]}, {})]


def _write_grad_ref(ins, a, outs):
    g = ins["Out@GRAD"][0] or []
    k = _index(ins["I"][0], "write_to_array_grad")
    x = np.asarray(ins["X"][0])
    got = g[k] if k < len(g) and g[k] is not None else np.zeros_like(x)
    return {"X@GRAD": [np.asarray(got, dtype=x.dtype).reshape(x.shape)]}


register(OpDef("write_to_array", slots("X", "I"), slots("Out"), {},
               lambda ins, a: {"Out": [_element(ins, "X")]}, "array", reference=_write_ref,
               grad=_write_grad, updates=("Out",)))
register(OpDef("write_to_array_grad", slots("X", "I", "Out@GRAD"), slots("X@GRAD"), {},
               lambda ins, a: {"X@GRAD": [_element(ins, "X")]}, "array",
               reference=_write_grad_ref))


# -- read_from_array: Out = X[I] -------------------------------------------------------------

def _read_ref(ins, a, outs):
    k = _index(ins["I"][0], "read_from_array")
    entry_lods = _lods(a, "X") or []
    return {"Out": [_entry(ins["X"][0], k, "read_from_array")],
            LOD_ATTR: {"Out": [entry_lods[k] if k < len(entry_lods) else None]}}


def _read_grad(op: OpDesc) -> list[OpDesc]:
    return [OpDesc("read_from_array_grad", {"I": op.input("I"),
                                            "Out@GRAD": [grad_name(op.output("Out")[0])]},
                   {"X@GRAD": [grad_name(op.input("X")[0])]}, {})]


def _read_grad_ref(ins, a, outs):
    k = _index(ins["I"][0], "read_from_array_grad")
    g = outs["X@GRAD"][0] or []
    prev = g[k] if k < len(g) else None
    return {"X@GRAD": [_written(g, k, add_values(prev, ins["Out@GRAD"][0]))]}


register(OpDef("read_from_array", slots("X", "I"), slots("Out"), {},
               lambda ins, a: {"Out": [_element(ins, "X")]}, "array", reference=_read_ref,
               grad=_read_grad))
register(OpDef("read_from_array_grad", slots("I", "Out@GRAD"), slots("X@GRAD"), {},
               lambda ins, a: {"X@GRAD": [_element(ins, "Out@GRAD")]}, "array",
               reference=_read_grad_ref, updates=("X@GRAD",)))


# -- lod_array_length: Out = [len(X)] (int64) ------------------------------------------------

register(OpDef("lod_array_length", slots("X"), slots("Out"), {},
               lambda ins, a: {"Out": [VarInfo((1,), VarType.INT64)]}, "array",
               reference=lambda ins, a, outs: {"Out": [np.asarray([len(ins["X"][0] or [])],
                                                                  np.int64)]}))


# -- tensor_array_to_tensor: the entries joined along axis (stacked if use_stack) ------------

TA2T_ATTRS = {"axis": 0, "use_stack": False}


def _ta2t_ref(ins, a, outs):
    array = ins["X"][0] or []
    if not array or any(v is None for v in array):
        raise OpError(f"op 'tensor_array_to_tensor': the tensor array has "
                      f"{'no entries' if not array else 'an entry never written'}")
    entries = [np.asarray(v) for v in array]
    axis = int(a["axis"])
    if a["use_stack"]:
        rank = entries[0].ndim + 1
        if not -rank <= axis < rank:
            raise OpError(f"op 'tensor_array_to_tensor': axis {axis} is out of range for "
                          f"stacking entries of rank {rank - 1}")
        return {"Out": [np.stack(entries, axis)],
                "OutIndex": [np.ones(len(entries), np.int32)]}
    rank = entries[0].ndim
    if not -rank <= axis < rank:
        raise OpError(f"op 'tensor_array_to_tensor': axis {axis} is out of range for entries "
                      f"of rank {rank}")
    try:
        out = np.concatenate(entries, axis)
    except ValueError as e:
        raise OpError(f"op 'tensor_array_to_tensor': entries of shapes "
                      f"{[list(v.shape) for v in entries]} do not join along axis {axis}: "
                      f"{e}") from None
    return {"Out": [out], "OutIndex": [np.asarray([v.shape[axis] for v in entries], np.int32)]}


def _ta2t_infer(ins, a):
    x = ins["X"][0]
    shape = list(x.shape)
    if shape:  # the entries' count is known at run time only
        axis = int(a["axis"])
        if a["use_stack"]:
            axis = axis % (len(shape) + 1)
            shape.insert(axis, -1)
        else:
            shape[axis % len(shape)] = -1
    return {"Out": [VarInfo(tuple(shape), x.dtype, x.lod_level)],
            "OutIndex": [VarInfo((-1,), VarType.INT32)]}


def _ta2t_grad(op: OpDesc) -> list[OpDesc]:
    return [OpDesc("tensor_array_to_tensor_grad",
                   {"X": op.input("X"), "Out@GRAD": [grad_name(op.output("Out")[0])]},
                   {"X@GRAD": [grad_name(op.input("X")[0])]}, dict(op.attrs))]


def _ta2t_grad_ref(ins, a, outs):
    """Out@GRAD cut back into the entries' pieces, added to the array's grad."""
    entries = [np.asarray(v) for v in ins["X"][0]]
    g = np.asarray(ins["Out@GRAD"][0])
    axis = int(a["axis"])
    if a["use_stack"]:
        pieces = [np.take(g, k, axis=axis % g.ndim) for k in range(len(entries))]
    else:
        cuts = np.cumsum([v.shape[axis] for v in entries])[:-1]
        pieces = np.split(g, cuts, axis=axis)
    return {"X@GRAD": [add_values(outs["X@GRAD"][0], list(pieces))]}


register(OpDef("tensor_array_to_tensor", slots("X"), slots("Out", "OutIndex"), TA2T_ATTRS,
               _ta2t_infer, "array", reference=_ta2t_ref, grad=_ta2t_grad))
register(OpDef("tensor_array_to_tensor_grad", slots("X", "Out@GRAD"), slots("X@GRAD"),
               TA2T_ATTRS, lambda ins, a: {"X@GRAD": [_element(ins, "X")]}, "array",
               reference=_ta2t_grad_ref, updates=("X@GRAD",)))
