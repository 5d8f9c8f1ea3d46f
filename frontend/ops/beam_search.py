"""Beam search for sequence generation (Paddle 1.x's decoder ops): beam_search, one step of the
search, and beam_search_decode, the backtrace of all steps into sentences.

beam_search: scores (and ids, or the column index where ids is missing) hold each prefix's
candidates, one row per prefix; the LoD of scores at level `level` (in rows) groups the
prefixes by source sentence. Per source, the beam_size best (prefix, id, score) items are
kept, Paddle's way: a prefix whose pre_id is end_id offers one item (end_id, its pre_score)
instead of its candidates; a score is the candidate's own (is_accumulated) or
pre_score + log(score); items are ranked by score, ties by the larger prefix offset, and a
tie with the last kept item replaces it (Paddle's insertion into its top-beam array).
The kept items, grouped by prefix in prefix order, are the outputs ([n, 1] ids and scores,
parent_idx the prefix row of each); a source all of whose items are end_id after an end_id
prefix is pruned (no items). The outputs' LoD is [the source level in rows, the items per
prefix].

beam_search_decode: Ids / Scores are arrays of such steps (entry 0 the start ids, LoD
[sources, prefixes]); walking the steps last to first, each source's hypotheses are traced
back through the prefixes (a source that ended earlier starts from its last step), end_id
kept once per hypothesis; the hypotheses (beam_size per source, as Paddle's decoder allots:
one with no step stays empty) are sorted by their last score, best first (stable), and put
out as 1-D ids / scores with LoD [hypotheses per source, words per hypothesis].

Both depend on values and LoD at run time, so they are host ops (kind 'array', run by the
reference executor like the LoD-rank ops); neither has a grad (Paddle's have none). Paddle
3.3.1 still registers both; tests/fixtures/make_beam_search_fixtures.py records its outputs.
Layers: frontend/layers/decoding.py.
"""
from __future__ import annotations

import numpy as np

from ..dtypes import VarType
from ..errors import OpError
from .lod_split import lod_of
from .registry import LOD_ATTR, OpDef, VarInfo, register, slots


def _need_lod(lod, op: str, slot: str, levels: int = 1):
    if not lod or len(lod) < levels:
        raise OpError(f"op '{op}': {slot} needs a LoD of at least {levels} level(s) (got "
                      f"{len(lod or ())}): feed a LoDTensor (fluid.create_lod_tensor) or pass "
                      f"a var that carries one")
    return lod


def _rows_offsets(lod, level: int) -> list[int]:
    """LoD level `level` as row offsets (Paddle's ToAbsOffset)."""
    offsets = list(lod[level])
    for k in range(level + 1, len(lod)):
        offsets = [lod[k][o] for o in offsets]
    return offsets


def _less(a, b) -> bool:
    """Paddle's Item order: by score, ties by prefix offset. Items are (score, offset, id)."""
    return a[0] < b[0] or (a[0] == b[0] and a[1] < b[1])


def _insert(beam: list, item, size: int) -> None:
    """Paddle's insertion into a top-`size` array kept best first."""
    if len(beam) < size:
        beam.append(item)
    elif _less(item, beam[size - 1]):
        return
    for k in range(len(beam) - 2, -1, -1):
        if _less(beam[k], item):
            beam[k + 1] = beam[k]
        else:
            beam[k + 1] = item
            return
    beam[0] = item


def _flat(x, name: str, rows: int, op: str) -> np.ndarray:
    flat = np.asarray(x).reshape(-1)
    if flat.size < rows:
        raise OpError(f"op '{op}': {name} has {flat.size} values but scores has {rows} prefix "
                      f"rows (one {name} value per row)")
    return flat


def _search_ref(ins, a, outs):
    op = "beam_search"
    scores = np.asarray(ins["scores"][0])
    level, size, end_id = int(a["level"]), int(a["beam_size"]), int(a["end_id"])
    lod = _need_lod(lod_of(a, "scores"), op, "scores")
    if not 0 <= level < len(lod):
        raise OpError(f"op '{op}': level {level} is out of scores' {len(lod)} LoD levels")
    if size <= 0:
        raise OpError(f"op '{op}': beam_size must be positive, got {size}")
    rows = scores.shape[0] if scores.ndim else 1
    width = int(np.prod(scores.shape[1:], dtype=np.int64))
    ids = (ins.get("ids") or [None])[0]
    if ids is not None and np.size(ids) != scores.size:
        raise OpError(f"op '{op}': ids has shape {list(np.shape(ids))} but scores "
                      f"{list(scores.shape)}; they must hold the same candidates")
    ids = None if ids is None else np.asarray(ids).reshape(rows, width)
    cand = scores.reshape(rows, width)
    pre_ids = _flat(ins["pre_ids"][0], "pre_ids", rows, op)
    pre_scores = _flat(ins["pre_scores"][0], "pre_scores", rows, op)
    high = _rows_offsets(lod, level)
    if high[-1] != rows:
        raise OpError(f"op '{op}': scores' LoD covers {high[-1]} rows, scores has {rows}")
    by_prefix: list[list] = [[] for _ in range(rows)]
    for src in range(len(high) - 1):
        beam: list = []
        for off in range(high[src], high[src + 1]):
            if pre_ids[off] == end_id:
                _insert(beam, (float(pre_scores[off]), off, end_id), size)
                continue
            # log in float64 rounded once: the correctly rounded logf Paddle's C++ calls
            own = cand[off] if a["is_accumulated"] else pre_scores[off].astype(cand.dtype) + \
                np.log(cand[off].astype(np.float64)).astype(cand.dtype)
            for d in range(width):
                _insert(beam, (float(own[d]), off, int(ids[off, d]) if ids is not None else d),
                        size)
        for item in beam:
            by_prefix[item[1]].append(item)
    for src in range(len(high) - 1):  # prune sources whose every branch ended a step ago
        span = range(high[src], high[src + 1])
        if all(it[2] == end_id and pre_ids[off] == end_id for off in span for it in by_prefix[off]):
            for off in span:
                by_prefix[off] = []
    items = [it for group in by_prefix for it in group]
    low = np.cumsum([0] + [len(g) for g in by_prefix]).tolist()
    out_lod = (tuple(high), tuple(low))
    return {"selected_ids": [np.asarray([[it[2]] for it in items], np.int64).reshape(-1, 1)],
            "selected_scores": [np.asarray([[it[0]] for it in items],
                                           cand.dtype).reshape(-1, 1)],
            "parent_idx": [np.asarray([it[1] for it in items], np.int32)],
            LOD_ATTR: {"selected_ids": [out_lod], "selected_scores": [out_lod],
                       "parent_idx": [None]}}


def _search_infer(ins, a):
    scores = ins["scores"][0]
    return {"selected_ids": [VarInfo((-1, 1), VarType.INT64, 2)],
            "selected_scores": [VarInfo((-1, 1), scores.dtype, 2)],
            "parent_idx": [VarInfo((-1,), VarType.INT32)]}


register(OpDef("beam_search", slots("pre_ids", "pre_scores", "ids?", "scores"),
               slots("selected_ids", "selected_scores", "parent_idx?"),
               {"level": 0, "beam_size": 1, "end_id": 0, "is_accumulated": True},
               _search_infer, "array", reference=_search_ref))


# -- beam_search_decode ------------------------------------------------------------------------

def _steps(ins, a):
    op = "beam_search_decode"
    ids, scores = ins["Ids"][0] or [], ins["Scores"][0] or []
    if not ids:
        raise OpError(f"op '{op}': Ids is an empty tensor array (no beam_search step written)")
    if len(ids) != len(scores):
        raise OpError(f"op '{op}': Ids has {len(ids)} steps but Scores {len(scores)}")
    lods = (a.get(LOD_ATTR, {}).get("Ids") or [None])[0] or [None] * len(ids)
    steps = []
    for t, (i, s) in enumerate(zip(ids, scores)):
        if i is None or s is None:
            raise OpError(f"op '{op}': step {t} of Ids / Scores was never written")
        lod = lods[t] if t < len(lods) else None
        if not lod or len(lod) != 2:
            raise OpError(f"op '{op}': step {t} of Ids needs a 2-level LoD [sources, prefixes] "
                          f"(as beam_search gives), got {len(lod or ())} level(s)")
        i, s = np.asarray(i).reshape(-1), np.asarray(s).reshape(-1)
        if i.size != s.size or i.size != lod[1][-1]:
            raise OpError(f"op '{op}': step {t} has {i.size} ids, {s.size} scores and a LoD "
                          f"of {lod[1][-1]} rows")
        steps.append((i, s, lod))
    return steps


def _decode_ref(ins, a, outs):
    op, size, end_id = "beam_search_decode", int(a["beam_size"]), int(a["end_id"])
    steps = _steps(ins, a)
    sources = len(steps[0][2][0]) - 1
    if sources == 0:
        raise OpError(f"op '{op}': the first step of Ids has no source sentence")
    hyps = [[([], []) for _ in range(size)] for _ in range(sources)]
    prefixes: list[list[int]] = [[] for _ in range(sources)]
    for t in range(len(steps) - 1, -1, -1):
        ids, scores, (src_lod, pre_lod) = steps[t]
        for src in range(sources):
            found = prefixes[src]
            start, end = src_lod[src], src_lod[src + 1]
            if not found:  # the last step, or the step before this source was pruned
                for p in range(start, end):
                    for c in range(pre_lod[p], pre_lod[p + 1]):
                        if len(found) == size:
                            raise OpError(f"op '{op}': source {src} has more than beam_size="
                                          f"{size} candidates at step {t}")
                        found.append(p)
                        hyps[src][len(found) - 1][0].append(int(ids[c]))
                        hyps[src][len(found) - 1][1].append(scores[c])
                continue
            for k, c in enumerate(found):
                words, marks = hyps[src][k]
                if ids[c] != end_id or not words:  # one end_id per hypothesis
                    words.append(int(ids[c]))
                    marks.append(scores[c])
                p = start
                while pre_lod[p + 1] <= c:
                    p += 1
                found[k] = p
    out_ids, out_scores, per_src, per_hyp = [], [], [0], [0]
    dtype = steps[0][1].dtype
    for src in range(sources):
        ranked = sorted(hyps[src], key=lambda h: -h[1][0] if h[1] else np.inf)
        for words, marks in ranked:
            out_ids.extend(reversed(words))
            out_scores.extend(reversed(marks))
            per_hyp.append(per_hyp[-1] + len(words))
        per_src.append(per_src[-1] + len(ranked))
    lod = (tuple(per_src), tuple(per_hyp))
    return {"SentenceIds": [np.asarray(out_ids, np.int64)],
            "SentenceScores": [np.asarray(out_scores, dtype)],
            LOD_ATTR: {"SentenceIds": [lod], "SentenceScores": [lod]}}


register(OpDef("beam_search_decode", slots("Ids", "Scores"), slots("SentenceIds", "SentenceScores"),
               {"beam_size": 1, "end_id": 0},
               lambda ins, a: {"SentenceIds": [VarInfo((-1,), VarType.INT64, 2)],
                               "SentenceScores": [VarInfo((-1,), ins["Scores"][0].dtype, 2)]},
               "array", reference=_decode_ref))
