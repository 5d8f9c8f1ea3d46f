"""shard_index (paddle.shard_index): ids in [0, index_num) split into nshards shards of
shard_size = ceil(index_num / nshards) ids each; an id in shard `shard_id` becomes its position
in the shard (id - shard_id * shard_size), any other id `ignore_value`. X is int32 / int64 with a
last dim of 1, as Paddle requires. Ids outside [0, index_num) are an error when the program
runs (declared as `indices`, checked by passes/index_checks.py), as Paddle's kernel raises.
No gradient: the op works on integer ids."""
from __future__ import annotations

import numpy as np

from ..dtypes import VarType
from ..errors import OpError, ShapeError
from .registry import IndexBound, OpDef, register, slots

SHARD_INDEX_ATTRS = {"index_num": 0, "nshards": 0, "shard_id": 0, "ignore_value": -1}


def _shard_size(a) -> int:
    if a["index_num"] <= 0 or a["nshards"] <= 0:
        raise OpError(f"op 'shard_index': index_num and nshards must be positive, got "
                      f"index_num={a['index_num']}, nshards={a['nshards']}")
    if not 0 <= a["shard_id"] < a["nshards"]:
        raise OpError(f"op 'shard_index': shard_id must be in [0, nshards={a['nshards']}), "
                      f"got {a['shard_id']}")
    return (a["index_num"] + a["nshards"] - 1) // a["nshards"]


def _infer(ins, a):
    x = ins["X"][0]
    _shard_size(a)
    if x.dtype not in (VarType.INT32, VarType.INT64):
        raise OpError(f"op 'shard_index': X must be int32 or int64, got {x.dtype.name.lower()}")
    if not x.shape or x.shape[-1] not in (1, -1):
        raise ShapeError(f"op 'shard_index': X must end in a dim of 1, got {list(x.shape)}")
    return {"Out": [x]}


def _shard(x, a):
    """Out for ids x (numpy or torch alike)."""
    size = _shard_size(a)
    lo = a["shard_id"] * size
    inside = (x >= lo) & (x < lo + size)
    return inside, x - lo


def _reference(ins, a):
    x = np.asarray(ins["X"][0])
    inside, pos = _shard(x, a)
    return {"Out": [np.where(inside, pos, a["ignore_value"]).astype(x.dtype)]}


def _run(ins, outs, a, rng):
    x = ins["X"][0]
    inside, pos = _shard(x, a)
    outs["Out"][0].copy_(pos.masked_fill(~inside, a["ignore_value"]))


register(OpDef("shard_index", slots("X"), slots("Out"), SHARD_INDEX_ATTRS, _infer, "extern",
               reference=_reference, run=_run,
               indices=lambda shapes, a: {"X": IndexBound(0, a["index_num"])}))
