"""chunk_eval (fluid.layers.chunk_eval): precision, recall and F1 of the chunks (named-entity
spans) found in tagged sequences, Inference against Label, as Paddle's kernel counts them.

A tag t encodes tag kind t % num_tag_types and chunk type t / num_tag_types (C's truncating
division); chunk type num_chunk_types is "outside" (O). The schemes: IOB (B=0, I=1), IOE (I=0,
E=1), IOBES (B=0, I=1, E=2, S=3) and plain (a tag is its chunk type: a run of one type is
one chunk). A chunk ends and begins by Paddle's ChunkEnd / ChunkBegin rules; a
chunk is correct when both sequences have it with the same begin, end and type. Chunks of
excluded_chunk_types count nowhere. Tags above num_chunk_types * num_tag_types are an error;
negative ones are read as Paddle reads them (no lower bound), where a kind of -1 also matches the
tag kinds a scheme lacks, so the rules are tested in Paddle's order.

Two input forms, as Paddle's: LoD (Inference / Label [sum T, 1] int64 with one equal LoD
level) and padded (Inference / Label [B, max_T] or [B, max_T, 1], SeqLength [B] int64: row b's
first SeqLength[b] tags). Outputs: Precision, Recall, F1-Score [1] float32 (0 where their
denominator is 0; F1 0 when nothing is correct) and NumInferChunks, NumLabelChunks,
NumCorrectChunks [1] int64. Run on the host: the work is a scan over the tags."""
from __future__ import annotations

import numpy as np
from fluidc.frontend.lazy_import import torch

from ..dtypes import VarType
from ..errors import OpError, ShapeError
from .registry import OpDef, VarInfo, register, slots
from .sequence import _lod, _need

# num_chunk_types has no default in Paddle (a required attribute): 0 is refused at inference.
CHUNK_ATTRS = {"num_chunk_types": 0, "chunk_scheme": "IOB", "excluded_chunk_types": []}
# scheme -> (num_tag_types, begin, inside, end, single); -1: the scheme has no such tag
SCHEMES = {"IOB": (2, 0, 1, -1, -1), "IOE": (2, -1, 0, 1, -1), "IOBES": (4, 0, 1, 2, 3),
           "plain": (1, -1, -1, -1, -1)}
COUNTS = ("NumInferChunks", "NumLabelChunks", "NumCorrectChunks")


def _scheme(a) -> tuple[int, ...]:
    if a["chunk_scheme"] not in SCHEMES:
        raise OpError(f"op 'chunk_eval': unknown chunk_scheme {a['chunk_scheme']!r}; Paddle's "
                      f"are {sorted(SCHEMES)}")
    if a["num_chunk_types"] < 1:
        raise OpError(f"op 'chunk_eval': num_chunk_types must be >= 1 (a required attribute), "
                      f"got {a['num_chunk_types']}")
    return SCHEMES[a["chunk_scheme"]]


def _infer(ins, a):
    _scheme(a)
    x, label = ins["Inference"][0], ins["Label"][0]
    for slot, v in (("Inference", x), ("Label", label)):
        if v.dtype != VarType.INT64:
            raise OpError(f"op 'chunk_eval': {slot} must be int64 tags, got {v.dtype.name}")
    if tuple(x.shape) != tuple(label.shape):
        raise ShapeError(f"op 'chunk_eval': Inference {list(x.shape)} and Label "
                         f"{list(label.shape)} must have the same shape")
    if ins.get("SeqLength"):
        if not (len(x.shape) == 2 or (len(x.shape) == 3 and x.shape[2] in (1, -1))):
            raise ShapeError(f"op 'chunk_eval': with SeqLength, Inference must be [batch, "
                             f"max_len] or [batch, max_len, 1], got {list(x.shape)}")
        if len(ins["SeqLength"][0].shape) > 2:
            raise ShapeError(f"op 'chunk_eval': SeqLength's rank must be <= 2, got "
                             f"{list(ins['SeqLength'][0].shape)}")
    metric, count = VarInfo((1,), VarType.FP32), VarInfo((1,), VarType.INT64)
    return {"Precision": [metric], "Recall": [metric], "F1-Score": [metric],
            **{slot: [count] for slot in COUNTS}}


def segments(tags: np.ndarray, num_chunk_types: int, scheme: tuple[int, ...]) -> list[tuple]:
    """The chunks (begin, end, type) of one sequence of tags, by Paddle's GetSegments."""
    num_tag_types, begin, inside, end, single = scheme
    other = num_chunk_types

    def chunk_end(prev_tag, prev_type, tag, type_):
        if prev_type == other:
            return False
        if type_ == other or type_ != prev_type:
            return True
        if prev_tag in (begin, inside):
            return tag in (begin, single)
        return prev_tag in (end, single)

    def chunk_begin(prev_tag, prev_type, tag, type_):
        if prev_type == other:
            return type_ != other
        if type_ == other:
            return False
        if type_ != prev_type or tag == begin:
            return True
        if tag in (inside, end):  # before `single`: a scheme's absent tags are all -1
            return prev_tag in (end, single)
        return tag == single

    found, start, in_chunk, tag, type_ = [], 0, False, -1, other
    for i, t in enumerate(int(v) for v in tags):
        prev_tag, prev_type = tag, type_
        tag, type_ = int(np.fmod(t, num_tag_types)), int(t / num_tag_types)  # C's / and %
        if in_chunk and chunk_end(prev_tag, prev_type, tag, type_):
            found.append((start, i - 1, prev_type))
            in_chunk = False
        if chunk_begin(prev_tag, prev_type, tag, type_):
            start, in_chunk = i, True
    if in_chunk:
        found.append((start, len(tags) - 1, type_))
    return found


def _sequences(ins, a) -> list[tuple[np.ndarray, np.ndarray]]:
    """(inference tags, label tags) of each sequence."""
    x, label = (np.asarray(ins[s][0]) for s in ("Inference", "Label"))
    if ins.get("SeqLength"):
        lengths = np.asarray(ins["SeqLength"][0]).reshape(-1)
        x, label = x.reshape(x.shape[0], -1), label.reshape(label.shape[0], -1)
        if len(lengths) > x.shape[0] or (lengths.size and (lengths.min() < 0 or
                                                           lengths.max() > x.shape[1])):
            raise OpError(f"op 'chunk_eval': SeqLength {lengths.tolist()} must give one length "
                          f"in [0, {x.shape[1]}] per row of Inference {list(x.shape)}")
        return [(x[b, :n], label[b, :n]) for b, n in enumerate(lengths)]
    lod = _need("chunk_eval", a, "Label")
    if len(lod) != 1:
        raise OpError(f"op 'chunk_eval': only one LoD level is supported, Label has {len(lod)}")
    if _lod(a, "Inference") != lod:
        raise OpError(f"op 'chunk_eval': Inference and Label must have the same LoD, got "
                      f"{_lod(a, 'Inference')} and {lod}")
    x, label = x.reshape(-1), label.reshape(-1)
    offs = lod[0]
    return [(x[s:e], label[s:e]) for s, e in zip(offs[:-1], offs[1:])]


def chunk_counts(ins, a) -> tuple[int, int, int]:
    """(inferred, labelled, correct) chunks over all sequences, as Paddle's EvalOneSeq."""
    scheme = _scheme(a)
    n, limit = a["num_chunk_types"], a["num_chunk_types"] * scheme[0]
    excluded = set(a["excluded_chunk_types"])
    infer = label = correct = 0
    for x, y in _sequences(ins, a):
        for slot, tags in (("Inference", x), ("Label", y)):
            if tags.size and tags.max() > limit:
                raise OpError(f"op 'chunk_eval': {slot} holds tag {int(tags.max())}, above "
                              f"num_chunk_types {n} * {scheme[0]} tag kinds of "
                              f"{a['chunk_scheme']} = {limit}")
        found, wanted = segments(x, n, scheme), segments(y, n, scheme)
        correct += sum(s[2] not in excluded for s in set(found) & set(wanted))
        infer += sum(s[2] not in excluded for s in found)
        label += sum(s[2] not in excluded for s in wanted)
    return infer, label, correct


def _ref(ins, a):
    infer, label, correct = chunk_counts({k: v for k, v in ins.items() if v}, a)
    f32 = np.float32
    precision = f32(0) if not infer else f32(correct) / f32(infer)
    recall = f32(0) if not label else f32(correct) / f32(label)
    f1 = f32(0) if not correct else f32(2) * precision * recall / (precision + recall)
    metrics = {"Precision": precision, "Recall": recall, "F1-Score": f1}
    counts = dict(zip(COUNTS, (infer, label, correct)))
    return {**{k: [np.array([v], np.float32)] for k, v in metrics.items()},
            **{k: [np.array([v], np.int64)] for k, v in counts.items()}}


def _run(ins, outs, a, rng):
    host = {k: [t.detach().cpu().numpy() for t in v] for k, v in ins.items() if v}
    for slot, (value,) in _ref(host, a).items():
        if outs.get(slot):
            outs[slot][0].copy_(torch.from_numpy(value))


def _no_lod(lods, a, ins):
    return {slot: [None] for slot in ("Precision", "Recall", "F1-Score", *COUNTS)}


register(OpDef("chunk_eval", slots("Inference", "Label", "SeqLength?"),
               slots("Precision", "Recall", "F1-Score", *COUNTS), CHUNK_ATTRS, _infer, "extern",
               reference=_ref, run=_run, lod=_no_lod))
