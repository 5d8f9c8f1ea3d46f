"""index_put: out is x with `value` written at x[indices] (numpy's advanced indexing: the int
index tensors, one per leading dim of x, broadcast together to a shape B; value broadcast to
B + x.shape[len(indices):]; negative indices count from the end). With `accumulate` the value
is added there instead (np.add.at: a repeated position adds each time); without it a repeated
position takes the last value, as numpy. Paddle 3.3.1 writes Tensor.__setitem__ with an
int-list or int-tensor index as this op (dygraph/indexing.py).

index_put_grad: x@GRAD is out@GRAD with the written positions zeroed (unchanged with
accumulate); value@GRAD is out@GRAD at those positions, summed back to value's shape."""
from __future__ import annotations

import numpy as np

from ..dtypes import dtype_name
from ..errors import ShapeError
from .define import grad_like
from .registry import OpDef, OpDesc, VarInfo, grad_name, register, slots

_INDEX_DTYPES = ("int32", "int64")


def _region(x_shape, index_shapes) -> tuple[int, ...]:
    """The shape value is broadcast to: the indices' broadcast shape, then x's other dims."""
    if not index_shapes or len(index_shapes) > len(x_shape):
        raise ShapeError(f"op 'index_put': {len(index_shapes)} index tensors for x of shape "
                         f"{list(x_shape)} (1 to {len(x_shape)} are taken)")
    try:
        b = np.broadcast_shapes(*(tuple(s) for s in index_shapes))
    except ValueError:
        raise ShapeError(f"op 'index_put': the index shapes {[list(s) for s in index_shapes]} "
                         f"do not broadcast together") from None
    return tuple(b) + tuple(x_shape[len(index_shapes):])


def _check_value(value_shape, region, x_shape) -> None:
    try:
        fits = np.broadcast_shapes(tuple(value_shape), region) == region
    except ValueError:
        fits = False
    if not fits:
        raise ShapeError(f"op 'index_put': the value of shape {list(value_shape)} cannot be "
                         f"broadcast to the indexed region of shape {list(region)} (x "
                         f"{list(x_shape)})")


def _infer(ins, a):
    x, value, indices = ins["x"][0], ins["value"][0], ins["indices"]
    for i in indices:
        if dtype_name(i.dtype) not in _INDEX_DTYPES:
            raise ShapeError(f"op 'index_put': index tensors must be int32 or int64, got "
                             f"{dtype_name(i.dtype)}")
    if value.dtype != x.dtype:
        raise ShapeError(f"op 'index_put': value is {dtype_name(value.dtype)}, x "
                         f"{dtype_name(x.dtype)}")
    shapes = [tuple(i.shape) for i in indices]
    if all(d >= 0 for s in shapes + [tuple(x.shape), tuple(value.shape)] for d in s):
        _check_value(value.shape, _region(x.shape, shapes), x.shape)
    return {"out": [VarInfo(tuple(x.shape), x.dtype, x.lod_level)]}


def _index(x_shape, indices) -> tuple:
    """The numpy index, every position checked to lie in [-size, size) of its dim."""
    for dim, i in enumerate(indices):
        size = x_shape[dim]
        if i.size and (i.min() < -size or i.max() >= size):
            bad = i[(i < -size) | (i >= size)].reshape(-1)[0]
            raise IndexError(f"op 'index_put': index {int(bad)} is out of range for dim {dim} "
                             f"of size {size}")
    return tuple(np.asarray(i) for i in indices)


def _ref(ins, a):
    x = np.asarray(ins["x"][0])
    indices = [np.asarray(i) for i in ins["indices"]]
    region = _region(x.shape, [i.shape for i in indices])
    value = np.asarray(ins["value"][0])
    _check_value(value.shape, region, x.shape)
    index = _index(x.shape, indices)
    out = x.copy()
    if a["accumulate"]:
        np.add.at(out, index, np.broadcast_to(value, region))
    else:
        out[index] = np.broadcast_to(value, region)
    return {"out": [out]}


def _grad(op: OpDesc) -> list[OpDesc]:
    ins = {"x": op.input("x"), "indices": op.input("indices"), "value": op.input("value"),
           "out@GRAD": [grad_name(op.output("out")[0])]}
    return [OpDesc("index_put_grad", ins, grad_like(op, "x", "value"), dict(op.attrs))]


def _grad_infer(ins, a):
    x, v = ins["x"][0], ins["value"][0]
    return {"x@GRAD": [VarInfo(tuple(x.shape), x.dtype)],
            "value@GRAD": [VarInfo(tuple(v.shape), v.dtype)]}


def _grad_ref(ins, a):
    d = np.asarray(ins["out@GRAD"][0])
    indices = [np.asarray(i) for i in ins["indices"]]
    value = np.asarray(ins["value"][0])
    index = _index(d.shape, indices)
    dx = d.copy()
    if not a["accumulate"]:
        dx[index] = 0
    dv = d[index]  # the region's shape
    lead = dv.ndim - value.ndim
    dv = dv.sum(axis=tuple(range(lead))) if lead else dv
    ones = tuple(k for k, n in enumerate(value.shape) if n == 1 and dv.shape[k] != 1)
    dv = dv.sum(axis=ones, keepdims=True) if ones else dv
    return {"x@GRAD": [dx], "value@GRAD": [dv.astype(value.dtype).reshape(value.shape)]}


ATTRS = {"accumulate": False}
register(OpDef("index_put", slots("x", "indices*", "value"), slots("out"), ATTRS, _infer,
               "extern", reference=_ref, grad=_grad))
register(OpDef("index_put_grad", slots("x", "indices*", "value", "out@GRAD"),
               slots("x@GRAD?", "value@GRAD?"), ATTRS, _grad_infer, "extern",
               reference=_grad_ref))
