"""split_lod_tensor and merge_lod_tensor (Paddle 1.x, the ops fluid.layers.IfElse appends):
split X's units by a bool Mask of one value per unit, and put two such parts back together in
the order of a reference X. A unit is a sequence of LoD level `level` of X (the rows it covers
at the lowest level), or a row where X has no LoD.

How many rows each part gets depends on Mask's values, so these ops run on the host by the
reference executor (kind 'array', as the tensor-array ops; a program holding one runs there,
see runtime/reference.py). Their references get the inputs' LoD in attrs[LOD_ATTR] and give
the outputs' LoD under LOD_ATTR: a part keeps the LoD levels from `level` down, restricted to
its units; merge's Out has X's LoD.

Grads (Paddle's makers): split's is merge_lod_tensor(X, Mask, OutTrue@GRAD, OutFalse@GRAD),
merge's is split_lod_tensor(Out@GRAD, Mask). Paddle 3.3.1 has neither op, so
tests/fixtures/paddle/op_attrs.json (generated from it) cannot list them: their attrs are
Paddle 1.x's.
"""
from __future__ import annotations

import numpy as np

from ..errors import OpError
from .registry import LOD_ATTR, OpDef, OpDesc, VarInfo, grad_name, register, slots

LEVEL_ATTRS = {"level": 0}


def lod_of(a: dict, slot: str):
    lods = a.get(LOD_ATTR, {}).get(slot) or [None]
    return lods[0]


def units(x: np.ndarray, lod, level: int, op: str) -> list[tuple[int, int, list]]:
    """Each unit's absolute row range and its LoD below (one list of lengths per level from
    `level` on, empty where X has no LoD)."""
    if not lod:
        return [(i, i + 1, []) for i in range(x.shape[0])]
    if not 0 <= level < len(lod):
        raise OpError(f"op '{op}': level {level} is out of X's {len(lod)} LoD levels")
    found = []
    for i in range(len(lod[level]) - 1):
        s, e = lod[level][i], lod[level][i + 1]
        lengths = [[e - s]]
        for k in range(level + 1, len(lod)):
            lengths.append([lod[k][j + 1] - lod[k][j] for j in range(s, e)])
            s, e = lod[k][s], lod[k][e]
        found.append((s, e, lengths))
    return found


def joined_lod(pieces: list) -> tuple | None:
    """The offset levels of the units' LoDs put one after another."""
    if not pieces or not pieces[0][2]:
        return None
    levels = []
    for k in range(len(pieces[0][2])):
        offsets = [0]
        for u in pieces:
            for n in u[2][k]:
                offsets.append(offsets[-1] + n)
        levels.append(tuple(offsets))
    return tuple(levels)


def _mask(m, n: int, lod, op: str) -> np.ndarray:
    mask = np.asarray(m).reshape(-1).astype(bool)
    if mask.size != n:
        raise OpError(f"op '{op}': Mask holds {mask.size} values but X has {n} units (one "
                      f"per {'sequence of the LoD level' if lod else 'row'})")
    return mask


def _split_ref(ins, a, outs=None):
    x = np.asarray(ins["X"][0])
    lod = lod_of(a, "X")
    found = units(x, lod, int(a["level"]), "split_lod_tensor")
    mask = _mask(ins["Mask"][0], len(found), lod, "split_lod_tensor")
    got, lods = {}, {}
    for slot, want in (("OutTrue", True), ("OutFalse", False)):
        part = [u for u, m in zip(found, mask) if m == want]
        rows = [x[s:e] for s, e, _ in part]
        got[slot] = [np.concatenate(rows) if rows else np.zeros((0,) + x.shape[1:], x.dtype)]
        lods[slot] = [joined_lod(part)]
    return {**got, LOD_ATTR: lods}


def _merge_ref(ins, a, outs=None):
    x = np.asarray(ins["X"][0])
    lod = lod_of(a, "X")
    found = units(x, lod, int(a["level"]), "merge_lod_tensor")
    mask = _mask(ins["Mask"][0], len(found), lod, "merge_lod_tensor")
    parts = {True: ins["InTrue"][0], False: ins["InFalse"][0]}
    given = [np.asarray(p) for p in parts.values() if p is not None]
    if not given:
        raise OpError("op 'merge_lod_tensor': neither InTrue nor InFalse has a value")
    like = given[0]
    taken = {True: 0, False: 0}
    rows = []
    for (s, e, _), m in zip(found, mask):
        part = parts[bool(m)]
        if part is None:  # a branch whose grad nothing gave: zeros
            rows.append(np.zeros((e - s,) + like.shape[1:], like.dtype))
            continue
        part = np.asarray(part)
        k = taken[bool(m)]
        if k + (e - s) > part.shape[0]:
            raise OpError(f"op 'merge_lod_tensor': {'InTrue' if m else 'InFalse'} has "
                          f"{part.shape[0]} rows, fewer than the units Mask gives it need")
        rows.append(part[k:k + e - s])
        taken[bool(m)] = k + e - s
    out = np.concatenate(rows) if rows else np.zeros((0,) + like.shape[1:], like.dtype)
    return {"Out": [out], LOD_ATTR: {"Out": [tuple(map(tuple, lod)) if lod else None]}}


def _split_infer(ins, a):
    x = ins["X"][0]
    part = VarInfo((-1,) + tuple(x.shape[1:]), x.dtype, x.lod_level)
    return {"OutTrue": [part], "OutFalse": [part]}


def _merge_infer(ins, a):
    x, t = ins["X"][0], (ins.get("InTrue") or ins["InFalse"])[0]
    return {"Out": [VarInfo((x.shape[0],) + tuple(t.shape[1:]), t.dtype, x.lod_level)]}


def _split_grad(op: OpDesc) -> list[OpDesc]:
    return [OpDesc("merge_lod_tensor",
                   {"X": op.input("X"), "Mask": op.input("Mask"),
                    "InTrue": [grad_name(op.output("OutTrue")[0])],
                    "InFalse": [grad_name(op.output("OutFalse")[0])]},
                   {"Out": [grad_name(op.input("X")[0])]}, dict(op.attrs))]


def _merge_grad(op: OpDesc) -> list[OpDesc]:
    return [OpDesc("split_lod_tensor",
                   {"X": [grad_name(op.output("Out")[0])], "Mask": op.input("Mask")},
                   {"OutTrue": [grad_name(op.input("InTrue")[0])],
                    "OutFalse": [grad_name(op.input("InFalse")[0])]}, dict(op.attrs))]


register(OpDef("split_lod_tensor", slots("X", "Mask"), slots("OutTrue", "OutFalse"),
               LEVEL_ATTRS, _split_infer, "array", reference=_split_ref, grad=_split_grad))
register(OpDef("merge_lod_tensor", slots("X", "Mask", "InTrue?", "InFalse?"), slots("Out"),
               LEVEL_ATTRS, _merge_infer, "array", reference=_merge_ref, grad=_merge_grad))
# merge_lod_tensor_infer: Paddle's merge_lod_tensor for inference programs (no grad)
register(OpDef("merge_lod_tensor_infer", slots("X", "Mask", "InTrue?", "InFalse?"),
               slots("Out"), LEVEL_ATTRS, _merge_infer, "array", reference=_merge_ref))
