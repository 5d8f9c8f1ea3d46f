"""unique_consecutive: runs of equal consecutive elements (or slices along `axis`) collapsed
to one, as Paddle's op.

With `axis` empty, X is flattened: Out is 1-D, Index has one entry per element of X (the
position of its run in Out) and Counts one per run. With axis [k], the slices of X along k
are compared whole: Out is X with dim k shortened to the runs, Index has X.shape[k] entries.
Index and Counts are of the int type `dtype` (Paddle's default, float32, is refused at run
time by Paddle's kernel; here when the op is appended). Out's length depends on X's values,
so this is a host op (kind 'array', run by the reference executor); it has no grad (Paddle's
has none).
"""
from __future__ import annotations

import numpy as np

from ..dtypes import VarType, to_numpy_dtype
from ..errors import OpError
from .registry import OpDef, VarInfo, register, slots

INDEX_DTYPES = (VarType.INT32, VarType.INT64)


def _axis(attrs, rank: int) -> int | None:
    """The axis the slices are taken along (None: X flattened), checked against X's rank."""
    axis = list(attrs["axis"])
    if not axis:
        return None
    if len(axis) != 1 or not -rank <= axis[0] < max(rank, 1):
        raise OpError(f"op 'unique_consecutive': axis {axis} must hold one axis in "
                      f"[{-rank}, {rank}) for X of rank {rank}")
    return axis[0] % max(rank, 1)


def _index_dtype(attrs) -> VarType:
    dtype = VarType(int(attrs["dtype"]))
    if dtype not in INDEX_DTYPES:
        raise OpError(f"op 'unique_consecutive': dtype {dtype.name} is not supported for "
                      f"Index and Counts; give int32 or int64")
    return dtype


def _infer(ins, attrs):
    x = ins["X"][0]
    dtype = _index_dtype(attrs)
    axis = _axis(attrs, len(x.shape))
    if axis is None:
        numel = -1 if any(d < 0 for d in x.shape) else int(np.prod(x.shape, dtype=np.int64))
        out, index = (-1,), (numel,)
    else:
        out = tuple(-1 if i == axis else d for i, d in enumerate(x.shape))
        index = (x.shape[axis],)
    return {"Out": [VarInfo(out, x.dtype)], "Index": [VarInfo(index, dtype)],
            "Counts": [VarInfo((-1,), dtype)]}


def _reference(ins, attrs, outs):
    x = np.asarray(ins["X"][0])
    dtype = to_numpy_dtype(_index_dtype(attrs))
    axis = _axis(attrs, x.ndim)
    rows = x.reshape(-1, 1) if axis is None else \
        np.moveaxis(x, axis, 0).reshape(x.shape[axis], x.size // max(x.shape[axis], 1))
    # a run starts where a slice differs from the one before it; NaN equals nothing, so each
    # is a run of its own (Paddle 3.3.1's CPU kernel aborts on NaN input)
    starts = np.ones(len(rows), bool)
    starts[1:] = np.any(rows[1:] != rows[:-1], axis=1)
    first = np.flatnonzero(starts)
    index = (np.cumsum(starts) - 1).astype(dtype)
    counts = np.diff(np.append(first, len(rows))).astype(dtype)
    out = x.reshape(-1)[first] if axis is None else np.take(x, first, axis=axis)
    return {"Out": [out], "Index": [index], "Counts": [counts]}


register(OpDef("unique_consecutive", slots("X"), slots("Out", "Index?", "Counts?"),
               {"return_inverse": False, "return_counts": False, "axis": [],
                "dtype": int(VarType.FP32)},
               _infer, "array", reference=_reference))
