"""The LoD ops of fluid.layers.DynamicRNN (Paddle 1.x): lod_rank_table, max_sequence_len,
lod_tensor_to_array, array_to_lod_tensor, shrink_rnn_memory, reorder_lod_tensor_by_rank, and
the grads of the last four.

A rank table (Paddle's LOD_RANK_TABLE var) holds X's units of LoD level `level` (see
lod_split.units) as (index, length) items, longest first (a stable sort, empty units kept),
and the LoD levels above `level`. lod_tensor_to_array cuts X into time steps: entry t holds,
in rank order, step t of every unit longer than t (a row of X where `level` is X's last LoD
level, else a sub-sequence of the next level with its LoD); array_to_lod_tensor puts the
steps back into X's order and LoD. shrink_rnn_memory keeps the first units of X (rows without
LoD) that are still running at step I; reorder_lod_tensor_by_rank puts X's units (rows without
LoD) in the table's order.

Their outputs' rows depend on the LoD and values at run time, so they are host ops (kind
'array', run by the reference executor like the tensor-array ops); their references get the
inputs' LoD in attrs[LOD_ATTR] and give the outputs' (a list of entry LoDs for an array).
Grads (Paddle's makers): lod_tensor_to_array's is array_to_lod_tensor and the reverse;
shrink_rnn_memory_grad writes Out@GRAD into the first rows of zeros shaped like X;
reorder_lod_tensor_by_rank_grad (X: Out@GRAD, Out: X@GRAD, as Paddle's) puts the grad's units,
by its LoD, back into X's order. Paddle 3.3.1 has none of
these ops, so tests/fixtures/paddle/op_attrs.json cannot list them: their attrs are 1.x's.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..dtypes import VarType
from ..errors import OpError
from .lod_split import joined_lod, lod_of, units
from .registry import LOD_ATTR, OpDef, OpDesc, VarInfo, grad_name, register, slots


@dataclass(frozen=True)
class RankTable:
    """A lod_rank_table's value: (index, length) items longest first, and the LoD levels of X
    above the ranked level (the coarse LoD array_to_lod_tensor puts back)."""

    ranked: tuple[tuple[int, int], ...]
    coarse: tuple[tuple[int, ...], ...]

    def items(self) -> list[tuple[int, int]]:
        """(index, length) of each unit, longest first (Paddle's LoDRankTable.items())."""
        return list(self.ranked)

    def running(self, t: int) -> list[int]:
        """The indices of the units longer than t, in rank order."""
        return [i for i, n in self.ranked if n > t]

    def lengths(self) -> list[int]:
        """The units' lengths in X's order."""
        out = [0] * len(self.ranked)
        for i, n in self.ranked:
            out[i] = n
        return out

    def max_len(self) -> int:
        return max((n for _, n in self.ranked), default=0)

    def lod(self) -> tuple:
        """X's LoD levels down to the ranked one (offsets)."""
        return self.coarse + (tuple(np.cumsum([0] + self.lengths()).tolist()),)


def _table(value, op: str) -> RankTable:
    if not isinstance(value, RankTable):
        raise OpError(f"op '{op}': RankTable must be the output of a lod_rank_table op")
    return value


def _need_lod(lod, op: str):
    if not lod:
        raise OpError(f"op '{op}': X needs a LoD: feed a LoDTensor (fluid.create_lod_tensor) "
                      f"to a var declared with lod_level >= 1")
    return lod


def _rows(x) -> np.ndarray:
    x = np.asarray(x)
    return x.reshape(1) if x.ndim == 0 else x


# -- lod_rank_table / max_sequence_len -------------------------------------------------------

def _rank_ref(ins, a, outs):
    lod = _need_lod(lod_of(a, "X"), "lod_rank_table")
    level = int(a["level"])
    if not 0 <= level < len(lod):
        raise OpError(f"op 'lod_rank_table': level {level} is out of X's {len(lod)} LoD levels")
    offsets = lod[level]
    lengths = [offsets[i + 1] - offsets[i] for i in range(len(offsets) - 1)]
    items = sorted(enumerate(lengths), key=lambda item: -item[1])  # stable: ties keep order
    return {"Out": [RankTable(tuple(items), tuple(map(tuple, lod[:level])))]}


register(OpDef("lod_rank_table", slots("X"), slots("Out"), {"level": 0},
               lambda ins, a: {}, "array", reference=_rank_ref))
register(OpDef("max_sequence_len", slots("RankTable"), slots("Out"), {},
               lambda ins, a: {"Out": [VarInfo((1,), VarType.INT64)]}, "array",
               reference=lambda ins, a, outs: {"Out": [np.asarray(
                   [_table(ins["RankTable"][0], "max_sequence_len").max_len()], np.int64)]}))


# -- lod_tensor_to_array / array_to_lod_tensor -----------------------------------------------

def _steps(x, lod, level: int) -> list:
    """The time-step pieces of X: units of the level below the ranked one (rows at the
    last)."""
    if level + 1 < len(lod):
        return units(x, lod, level + 1, "lod_tensor_to_array")
    return [(r, r + 1, []) for r in range(x.shape[0])]


def _to_array_ref(ins, a, outs):
    table = _table(ins["RankTable"][0], "lod_tensor_to_array")
    x = _rows(ins["X"][0])
    lod = lod_of(a, "X") or table.lod()  # a grad without LoD has the table's
    level = len(table.coarse)
    steps = _steps(x, lod, level)
    array, lods = [], []
    for t in range(table.max_len()):
        pieces = [steps[lod[level][i] + t] for i in table.running(t)]
        array.append(np.concatenate([x[s:e] for s, e, _ in pieces]))
        lods.append(joined_lod(pieces))
    return {"Out": [array], LOD_ATTR: {"Out": [lods]}}


def _to_tensor_ref(ins, a, outs):
    table = _table(ins["RankTable"][0], "array_to_lod_tensor")
    array = ins["X"][0] or []
    entry_lods = (a.get(LOD_ATTR, {}).get("X") or [None])[0] or [None] * len(array)
    given = [np.asarray(v) for v in array if v is not None]
    if not given:
        raise OpError("op 'array_to_lod_tensor': the tensor array has no entries")
    like = given[0]
    pieces_at = []
    for t in range(table.max_len()):
        running = table.running(t)
        entry = array[t] if t < len(array) else None
        if entry is None:  # a grad array nothing wrote at step t: zeros, one row per unit
            entry = np.zeros((len(running),) + like.shape[1:], like.dtype)
        lod = entry_lods[t] if t < len(entry_lods) else None
        pieces = units(entry, lod, 0, "array_to_lod_tensor")
        if len(pieces) != len(running):
            raise OpError(f"op 'array_to_lod_tensor': entry {t} holds {len(pieces)} steps, "
                          f"but {len(running)} units of the rank table run at step {t}")
        pieces_at.append((entry, dict(zip(running, pieces))))
    rows, order = [], []
    for i, n in enumerate(table.lengths()):
        for t in range(n):
            entry, pieces = pieces_at[t]
            s, e, sub = pieces[i]
            rows.append(entry[s:e])
            order.append((s, e, sub))
    out = np.concatenate(rows) if rows else np.zeros((0,) + like.shape[1:], like.dtype)
    lod = table.lod() + (joined_lod(order) or ())
    return {"Out": [out], LOD_ATTR: {"Out": [lod]}}


def _to_array_grad(op: OpDesc) -> list[OpDesc]:
    return [OpDesc("array_to_lod_tensor", {"X": [grad_name(op.output("Out")[0])],
                                           "RankTable": op.input("RankTable")},
                   {"Out": [grad_name(op.input("X")[0])]}, {})]


def _to_tensor_grad(op: OpDesc) -> list[OpDesc]:
    return [OpDesc("lod_tensor_to_array", {"X": [grad_name(op.output("Out")[0])],
                                           "RankTable": op.input("RankTable")},
                   {"Out": [grad_name(op.input("X")[0])]}, {})]


def _same_rows(ins, slot, out, levels: int = 0):
    """X's row shape, with -1 rows, and X's LoD level changed by `levels`."""
    x = ins[slot][0]
    return {out: [VarInfo((-1,) + tuple(x.shape[1:]), x.dtype, max(x.lod_level + levels, 0))]}


# a time step of a sequence has one LoD level less; the sequences put back, one more
register(OpDef("lod_tensor_to_array", slots("X", "RankTable"), slots("Out"), {},
               lambda ins, a: _same_rows(ins, "X", "Out", -1), "array",
               reference=_to_array_ref, grad=_to_array_grad))
register(OpDef("array_to_lod_tensor", slots("X", "RankTable"), slots("Out"), {},
               lambda ins, a: _same_rows(ins, "X", "Out", 1), "array",
               reference=_to_tensor_ref, grad=_to_tensor_grad))


# -- shrink_rnn_memory -----------------------------------------------------------------------

def _shrink_ref(ins, a, outs):
    """X's first units (rows without LoD), as many as units of the table run at step I."""
    x = _rows(ins["X"][0])
    table = _table(ins["RankTable"][0], "shrink_rnn_memory")
    step = int(np.asarray(ins["I"][0]).reshape(-1)[0])
    kept = units(x, lod_of(a, "X"), 0, "shrink_rnn_memory")[:len(table.running(step))]
    return {"Out": [x[:kept[-1][1] if kept else 0]], LOD_ATTR: {"Out": [joined_lod(kept)]}}


def _shrink_grad(op: OpDesc) -> list[OpDesc]:
    return [OpDesc("shrink_rnn_memory_grad",
                   {"X": op.input("X"), "Out@GRAD": [grad_name(op.output("Out")[0])]},
                   {"X@GRAD": [grad_name(op.input("X")[0])]}, {})]


def _shrink_grad_ref(ins, a, outs):
    x = _rows(ins["X"][0])
    g = np.zeros_like(x)
    got = ins["Out@GRAD"][0]
    if got is not None:
        got = np.asarray(got)
        g[:got.shape[0]] = got
    return {"X@GRAD": [g]}


register(OpDef("shrink_rnn_memory", slots("X", "RankTable", "I"), slots("Out"), {},
               lambda ins, a: _same_rows(ins, "X", "Out"), "array", reference=_shrink_ref,
               grad=_shrink_grad))
register(OpDef("shrink_rnn_memory_grad", slots("X", "Out@GRAD?"), slots("X@GRAD"), {},
               lambda ins, a: {"X@GRAD": [ins["X"][0]]}, "array",
               reference=_shrink_grad_ref))


# -- reorder_lod_tensor_by_rank --------------------------------------------------------------

def _reordered(x, lod, order: list[int], op: str):
    pieces = units(x, lod, 0, op)
    if len(pieces) != len(order):
        raise OpError(f"op '{op}': X has {len(pieces)} units (sequences of its LoD level 0, or "
                      f"rows), the rank table {len(order)}")
    picked = [pieces[i] for i in order]
    out = (np.concatenate([x[s:e] for s, e, _ in picked]) if picked
           else np.zeros((0,) + x.shape[1:], x.dtype))
    return out, joined_lod(picked)


def _reorder_ref(ins, a, outs):
    table = _table(ins["RankTable"][0], "reorder_lod_tensor_by_rank")
    out, lod = _reordered(_rows(ins["X"][0]), lod_of(a, "X"), [i for i, _ in table.ranked],
                          "reorder_lod_tensor_by_rank")
    return {"Out": [out], LOD_ATTR: {"Out": [lod]}}


def _reorder_grad(op: OpDesc) -> list[OpDesc]:
    """Paddle's maker: the grad op's X is Out@GRAD, its Out is X@GRAD."""
    return [OpDesc("reorder_lod_tensor_by_rank_grad",
                   {"X": [grad_name(op.output("Out")[0])], "RankTable": op.input("RankTable")},
                   {"Out": [grad_name(op.input("X")[0])]}, {})]


def _reorder_grad_ref(ins, a, outs):
    """X's units (a grad, in rank order) put back in the order the forward's X had."""
    table = _table(ins["RankTable"][0], "reorder_lod_tensor_by_rank_grad")
    ranked = [i for i, _ in table.ranked]
    out, lod = _reordered(_rows(ins["X"][0]), lod_of(a, "X"),
                          [ranked.index(k) for k in range(len(ranked))],
                          "reorder_lod_tensor_by_rank_grad")
    return {"Out": [out], LOD_ATTR: {"Out": [lod]}}


register(OpDef("reorder_lod_tensor_by_rank", slots("X", "RankTable"), slots("Out"), {},
               lambda ins, a: _same_rows(ins, "X", "Out"), "array", reference=_reorder_ref,
               grad=_reorder_grad))
register(OpDef("reorder_lod_tensor_by_rank_grad", slots("X", "RankTable"), slots("Out"), {},
               lambda ins, a: {"Out": [ins["X"][0]]}, "array", reference=_reorder_grad_ref))
