"""crop_tensor (paddle.crop): Out = X[offsets[i] : offsets[i] + shape[i]] along every dim.
shape -1 keeps the rest of the dim from its offset; no offsets means zeros. Paddle takes each
from a 1-D tensor (Shape / Offsets) over a list of one-value tensors (ShapeTensor /
OffsetsTensor) over the attribute: all are shape inputs, folded into the attributes before
shape inference (passes/shape_inputs.py); until then the dims they set are -1, as in Paddle. A
crop reaching past X is a ShapeError naming the dim. crop_tensor_grad puts dOut back at the
offsets in zeros of X's shape."""
from __future__ import annotations

import numpy as np

from ..errors import ShapeError
from .conv import _bound
from .registry import OpDef, OpDesc, VarInfo, grad_name, register, slots

CROP_ATTRS = {"shape": [], "offsets": []}
_WHOLE = {"shape": "Shape", "offsets": "Offsets"}  # attr: its 1-D tensor slot
_LISTED = {"shape": "ShapeTensor", "offsets": "OffsetsTensor"}  # attr: its one-value tensors
_TENSOR_SLOTS = (*_WHOLE.values(), *_LISTED.values())


def _fold(a, values):
    a = dict(a)
    for attr in ("shape", "offsets"):
        if values.get(_WHOLE[attr]):
            a[attr] = [int(v) for v in np.asarray(values[_WHOLE[attr]][0]).reshape(-1)]
        elif values.get(_LISTED[attr]):
            items = [np.asarray(v).reshape(-1) for v in values[_LISTED[attr]]]
            if any(v.size != 1 for v in items):
                raise ShapeError(f"op 'crop_tensor': each {_LISTED[attr]} tensor must hold "
                                 f"one value, got sizes {[v.size for v in items]}")
            a[attr] = [int(v[0]) for v in items]
    return a


def _unfolded(ins, attr: str) -> bool:
    return bool(ins.get(_WHOLE[attr]) or ins.get(_LISTED[attr]))


def _offsets(x_shape, a) -> list[int]:
    offsets = list(a["offsets"]) or [0] * len(x_shape)
    if len(offsets) != len(x_shape):
        raise ShapeError(f"op 'crop_tensor': offsets {offsets} must have one value per dim of "
                         f"X {list(x_shape)}")
    return offsets


def _window(x_shape, a) -> list[tuple[int, int]]:
    """(offset, size) per dim of a folded crop of X of `x_shape` (all dims known)."""
    shape, offsets = list(a["shape"]), _offsets(x_shape, a)
    if len(shape) != len(x_shape):
        raise ShapeError(f"op 'crop_tensor': shape {shape} must have one value per dim of X "
                         f"{list(x_shape)}")
    out = []
    for i, (d, o, s) in enumerate(zip(x_shape, offsets, shape)):
        s = d - o if s == -1 else s
        if o < 0 or s <= 0 or o + s > d:
            raise ShapeError(f"op 'crop_tensor': dim {i} cropped at offset {o} with size {s} "
                             f"must lie within X's {d} (X {list(x_shape)})")
        out.append((o, s))
    return out


def _infer(ins, a):
    x = ins["X"][0]
    if _unfolded(ins, "shape"):  # read when the program runs
        shape = (-1,) * len(x.shape)
    elif _unfolded(ins, "offsets") or -1 in x.shape:
        shape = tuple(-1 if s == -1 else s for s in a["shape"])
        if len(shape) != len(x.shape):
            _window(x.shape, a)  # the ShapeError naming both
    else:
        shape = tuple(s for _, s in _window(x.shape, a))
    return {"Out": [VarInfo(shape, x.dtype, x.lod_level)]}


def _folded(ins, a):
    """a with the tensors in ins folded in, as the pipeline folds them (the reference executor
    runs programs unfolded)."""
    return _fold(a, {s: ins[s] for s in _TENSOR_SLOTS if ins.get(s)})


def _index(x_shape, a):
    return tuple(slice(o, o + s) for o, s in _window(x_shape, a))


def _reference(ins, a):
    x = np.asarray(ins["X"][0])
    return {"Out": [x[_index(x.shape, _folded(ins, a))].copy()]}


def _run(ins, outs, a, rng):
    x = ins["X"][0]
    outs["Out"][0].copy_(x[_index(tuple(x.shape), a)])


def _grad(op: OpDesc) -> list[OpDesc]:
    tensors = {s: op.input(s) for s in _TENSOR_SLOTS if op.inputs.get(s)}
    return [OpDesc("crop_tensor_grad", {"X": op.input("X"), **tensors,
                                        "Out@GRAD": [grad_name(op.output("Out")[0])]},
                   {"X@GRAD": [grad_name(op.input("X")[0])]}, dict(op.attrs))]


def _grad_window(x_shape, dout_shape, a):
    """The dOut window in X: offsets from the attributes, sizes from dOut."""
    return tuple(slice(o, o + s) for o, s in zip(_offsets(x_shape, a), dout_shape))


def _grad_reference(ins, a):
    x, d = np.asarray(ins["X"][0]), np.asarray(ins["Out@GRAD"][0])
    dx = np.zeros(x.shape, d.dtype)
    dx[_grad_window(x.shape, d.shape, _folded(ins, a))] = d
    return {"X@GRAD": [dx]}


def _grad_run(ins, outs, a, rng):
    dx = _bound(outs, "X@GRAD")
    if dx is None:
        return
    d = ins["Out@GRAD"][0]
    dx.zero_()
    dx[_grad_window(tuple(dx.shape), tuple(d.shape), a)] = d


_INPUTS = ("X", "Shape?", "ShapeTensor*?", "Offsets?", "OffsetsTensor*?")
register(OpDef("crop_tensor", slots(*_INPUTS), slots("Out"), CROP_ATTRS, _infer, "extern",
               reference=_reference, grad=_grad, run=_run, shape_inputs=_TENSOR_SLOTS,
               fold=_fold))
register(OpDef("crop_tensor_grad", slots(*_INPUTS, "Out@GRAD"), slots("X@GRAD?"), CROP_ATTRS,
               lambda ins, a: {"X@GRAD": [ins["X"][0]]}, "extern", reference=_grad_reference,
               run=_grad_run, shape_inputs=_TENSOR_SLOTS, fold=_fold))
