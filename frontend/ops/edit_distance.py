"""edit_distance (paddle.nn.functional.loss.edit_distance, fluid.layers.edit_distance): the
Levenshtein distance of each hypothesis sequence (Hyps) to its reference (Refs), as Paddle's
kernel: insertions, deletions and substitutions cost 1; an empty side gives the other's length.
With `normalized` each distance is divided by its reference's length (in float32), and an
empty reference is an error.

Two input forms, as Paddle's: LoD (Hyps / Refs [sum len, 1] int64, one sequence per LoD entry)
and padded (Hyps [B, max_len], Refs [B, max_ref_len] int64 with HypsLength / RefsLength [B]
int64). Outputs: Out [num_seq, 1] float32 and SequenceNum [1] int64.

The kernel takes a row of every pair's distance table at a time (an insertion run is a
cumulative minimum); the numpy reference is Paddle's cell-by-cell recurrence."""
from __future__ import annotations

import numpy as np
from fluidc.frontend.lazy_import import torch

from ..dtypes import VarType
from ..errors import OpError, ShapeError
from .registry import OpDef, VarInfo, register, slots
from .sequence import _known, _need

EDIT_ATTRS = {"normalized": False}


def _padded_form(ins) -> bool:
    return bool(ins.get("HypsLength"))


def _infer(ins, a):
    hyps, refs = ins["Hyps"][0], ins["Refs"][0]
    padded = _padded_form(ins)
    if padded != bool(ins.get("RefsLength")):
        raise OpError("op 'edit_distance': HypsLength and RefsLength come together (padded "
                      "input) or not at all (LoD input)")
    for slot in ("Hyps", "Refs", "HypsLength", "RefsLength"):
        if ins.get(slot) and ins[slot][0].dtype != VarType.INT64:
            raise OpError(f"op 'edit_distance': {slot} must be int64, got "
                          f"{ins[slot][0].dtype.name}")
    if len(hyps.shape) != 2 or len(refs.shape) != 2:
        raise ShapeError(f"op 'edit_distance': Hyps and Refs must be 2-D, got "
                         f"{list(hyps.shape)} and {list(refs.shape)}")
    if padded:
        if -1 not in (hyps.shape[0], refs.shape[0]) and hyps.shape[0] != refs.shape[0]:
            raise ShapeError(f"op 'edit_distance': Hyps {list(hyps.shape)} and Refs "
                             f"{list(refs.shape)} must hold as many sequences")
        n = hyps.shape[0]
    else:
        if hyps.shape[1] not in (1, -1) or refs.shape[1] not in (1, -1):
            raise ShapeError(f"op 'edit_distance': LoD Hyps and Refs must be [rows, 1], got "
                             f"{list(hyps.shape)} and {list(refs.shape)}")
        n = len(_need("edit_distance", a, "Hyps")[0]) - 1 if _known(a) else -1
    return {"Out": [VarInfo((n, 1), VarType.FP32)],
            "SequenceNum": [VarInfo((1,), VarType.INT64)]}


def _pairs(ins, a) -> list[tuple[np.ndarray, np.ndarray]]:
    """(hypothesis, reference) of each sequence, checked."""
    hyps, refs = (np.asarray(ins[s][0]) for s in ("Hyps", "Refs"))
    if _padded_form(ins):
        found = []
        for side, seqs, slot in (("Hyps", hyps, "HypsLength"), ("Refs", refs, "RefsLength")):
            lens = np.asarray(ins[slot][0]).reshape(-1)
            if len(lens) != seqs.shape[0] or (lens.size and (lens.min() < 0 or
                                                             lens.max() > seqs.shape[1])):
                raise OpError(f"op 'edit_distance': {slot} {lens.tolist()} must give one "
                              f"length in [0, {seqs.shape[1]}] per row of {side} "
                              f"{list(seqs.shape)}")
            found.append([seqs[b, :k] for b, k in enumerate(lens)])
        return list(zip(*found))
    offs = [_need("edit_distance", a, s)[0] for s in ("Hyps", "Refs")]
    if len(offs[0]) != len(offs[1]):
        raise OpError(f"op 'edit_distance': Hyps holds {len(offs[0]) - 1} sequences, Refs "
                      f"{len(offs[1]) - 1}")
    flat = [hyps.reshape(-1), refs.reshape(-1)]
    return [tuple(f[o[i]:o[i + 1]] for f, o in zip(flat, offs)) for i in range(len(offs[0]) - 1)]


def _levenshtein_cells(hyp, ref) -> int:
    """Paddle's recurrence, one cell at a time."""
    m, n = len(hyp), len(ref)
    if m == 0 or n == 0:
        return max(m, n)
    dist = np.zeros((m + 1, n + 1), np.int64)
    dist[:, 0], dist[0, :] = np.arange(m + 1), np.arange(n + 1)
    for i in range(1, m + 1):
        for j in range(1, n + 1):
            cost = int(hyp[i - 1] != ref[j - 1])
            dist[i, j] = min(dist[i - 1, j] + 1, dist[i, j - 1] + 1, dist[i - 1, j - 1] + cost)
    return int(dist[m, n])


def levenshtein_cells(pairs) -> list[int]:
    """The distance of each (hypothesis, reference) pair by Paddle's recurrence."""
    return [_levenshtein_cells(hyp, ref) for hyp, ref in pairs]


def levenshtein_rows(pairs) -> np.ndarray:
    """The same distances, every pair's table a row at a time together: deletions and
    substitutions from the row above, then insertion runs as a cumulative minimum of (cell -
    column) along the row. Rows past a pair's hypothesis stay as they are; columns past its
    reference never reach the cells read (insertions run rightwards only)."""
    hyp_len = np.array([len(h) for h, _ in pairs], np.int64)
    ref_len = np.array([len(r) for _, r in pairs], np.int64)
    width = int(ref_len.max()) if len(pairs) else 0
    hyps = np.full((len(pairs), int(hyp_len.max()) if len(pairs) else 0), -1, np.int64)
    refs = np.full((len(pairs), width), -1, np.int64)
    for b, (hyp, ref) in enumerate(pairs):
        hyps[b, :len(hyp)], refs[b, :len(ref)] = hyp, ref
    cols = np.arange(width + 1)
    row = np.tile(cols, (len(pairs), 1))
    for i in range(1, hyps.shape[1] + 1):
        cur = np.empty_like(row)
        cur[:, 0] = i
        cur[:, 1:] = np.minimum(row[:, 1:] + 1, row[:, :-1] + (refs != hyps[:, i - 1:i]))
        cur = np.minimum.accumulate(cur - cols, axis=1) + cols
        row = np.where((i <= hyp_len)[:, None], cur, row)
    return row[np.arange(len(pairs)), ref_len]


def _distances(ins, a, levenshtein) -> dict:
    pairs = _pairs({k: v for k, v in ins.items() if v}, a)
    ref_len = np.array([len(ref) for _, ref in pairs], np.float32).reshape(-1, 1)
    if a["normalized"] and (ref_len == 0).any():
        raise OpError(f"op 'edit_distance': reference {int(np.argmin(ref_len))} is empty, "
                      f"which normalized=True cannot divide by")
    out = np.asarray(levenshtein(pairs), np.float32).reshape(-1, 1)
    return {"Out": [out / ref_len if a["normalized"] else out],
            "SequenceNum": [np.array([len(pairs)], np.int64)]}


def _ref(ins, a):
    return _distances(ins, a, levenshtein_cells)


def _run(ins, outs, a, rng):
    host = {k: [t.detach().cpu().numpy() for t in v] for k, v in ins.items() if v}
    for slot, (value,) in _distances(host, a, levenshtein_rows).items():
        outs[slot][0].copy_(torch.from_numpy(value))


def _no_lod(lods, a, ins):
    return {"Out": [None], "SequenceNum": [None]}


register(OpDef("edit_distance", slots("Hyps", "Refs", "HypsLength?", "RefsLength?"),
               slots("SequenceNum", "Out"), EDIT_ATTRS, _infer, "extern", reference=_ref,
               run=_run, lod=_no_lod))
