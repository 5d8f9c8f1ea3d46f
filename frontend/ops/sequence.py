"""Sequence ops over LoD tensors: sequence_pool, sequence_softmax, sequence_expand,
sequence_concat, sequence_reshape and their grads.

A LoD is a tuple of offset levels; these ops work on the last level (the one indexing rows) unless
said otherwise. Output shapes depend on the LoD, so the pipeline lowers each op with its inputs'
LoD in attrs[LOD_ATTR] (plans are per LoD) and `lod` says which LoD each output carries.
"""
from __future__ import annotations

import functools
import math

import numpy as np
from fluidc.frontend.lazy_import import torch

from ..dtypes import VarType
from ..errors import OpError, ShapeError
from .registry import LOD_ATTR, OpDef, OpDesc, VarInfo, grad_name, register, slots

Lod = tuple  # tuple of levels, each a tuple of offsets


def _extern(type, inputs, outputs, attrs, infer, run, reference, lod, grad=None):
    register(OpDef(type, slots(*inputs), slots(*outputs), attrs, infer, "extern",
                   reference=reference, grad=grad, run=run, lod=lod))


def _lod(a: dict, slot: str, i: int = 0) -> Lod | None:
    """The LoD of the i-th var of an input slot, or None (unknown before a run, or no LoD)."""
    lods = a.get(LOD_ATTR, {}).get(slot) or ()
    return tuple(tuple(int(o) for o in lvl) for lvl in lods[i]) if i < len(lods) and lods[i] else None


def _need(op: str, a: dict, slot: str, i: int = 0) -> Lod:
    lod = _lod(a, slot, i)
    if lod is None:
        raise OpError(f"op '{op}' needs a LoD on input {slot}: feed a LoDTensor "
                      f"(fluid.create_lod_tensor) to a var declared with lod_level >= 1")
    return lod


def _known(a: dict) -> bool:
    return LOD_ATTR in a


def _check_rows(op: str, slot: str, lod: Lod, rows: int) -> None:
    if rows != -1 and lod[-1][-1] != rows:
        raise ShapeError(f"op '{op}': the LoD of {slot} covers {lod[-1][-1]} rows, but {slot} "
                         f"has {rows}")


def _lengths(offsets) -> np.ndarray:
    return np.diff(np.asarray(offsets, dtype=np.int64))


@functools.lru_cache(maxsize=512)
def _seg_ids(offsets: tuple) -> torch.Tensor:
    """Row -> sequence index for one LoD level."""
    lens = torch.as_tensor(_lengths(offsets))
    return torch.repeat_interleave(torch.arange(len(offsets) - 1), lens)


@functools.lru_cache(maxsize=512)
def _seg_info(offsets: tuple):
    """(lengths as float64 column, starts, ends-1, mask of non-empty) for one level."""
    lens = _lengths(offsets)
    starts = np.asarray(offsets[:-1], np.int64)
    nonempty = lens > 0
    return (torch.as_tensor(lens, dtype=torch.float64), torch.as_tensor(starts),
            torch.as_tensor(starts + lens - 1), torch.as_tensor(nonempty))


def _rows(t: torch.Tensor) -> torch.Tensor:
    return t.reshape(t.shape[0], -1) if t.dim() != 1 else t.reshape(-1, 1)


# ---------------------------------------------------------------------------------------------
# sequence_pool: one row per sequence of the last level; empty sequences get pad_value.

POOL_ATTRS = {"pooltype": "AVERAGE", "is_test": False, "pad_value": 0.0}
POOL_TYPES = ("AVERAGE", "SUM", "SQRT", "MAX", "LAST", "FIRST")


def _pooltype(a) -> str:
    p = str(a["pooltype"]).upper()
    if p not in POOL_TYPES:
        raise OpError(f"op 'sequence_pool': pooltype {a['pooltype']!r} is not one of {POOL_TYPES}")
    return p


def _pool_infer(ins, a):
    x = ins["X"][0]
    _pooltype(a)
    rows = -1
    if _known(a):
        lod = _need("sequence_pool", a, "X")
        _check_rows("sequence_pool", "X", lod, x.shape[0])
        rows = len(lod[-1]) - 1
    shape = (rows,) + tuple(x.shape[1:])
    level = max(x.lod_level - 1, 0)
    return {"Out": [VarInfo(shape, x.dtype, level)],
            "MaxIndex": [VarInfo(shape, VarType.INT32, level)]}


def _pool_lod(lods, a, ins):
    lod = (lods.get("X") or [None])[0]
    return {"Out": [lod[:-1] if lod and len(lod) > 1 else None], "MaxIndex": [None]}


def _pool_ref(ins, a):
    x = np.asarray(ins["X"][0])
    offs = _need("sequence_pool", a, "X")[-1]
    kind = _pooltype(a)
    out = np.full((len(offs) - 1,) + x.shape[1:], a["pad_value"], dtype=x.dtype)
    idx = np.full(out.shape, -1, dtype=np.int32)
    for i, (s, e) in enumerate(zip(offs, offs[1:])):
        if e == s:
            continue
        seg = x[s:e].astype(np.float64)
        if kind == "MAX":
            idx[i] = seg.argmax(axis=0) + s
            out[i] = seg.max(axis=0)
        else:
            out[i] = {"SUM": lambda: seg.sum(0), "AVERAGE": lambda: seg.mean(0),
                      "SQRT": lambda: seg.sum(0) / math.sqrt(e - s), "FIRST": lambda: seg[0],
                      "LAST": lambda: seg[-1]}[kind]()
    return {"Out": [out], "MaxIndex": [idx]}


def _seg_max(xr: torch.Tensor, offs: tuple) -> tuple[torch.Tensor, torch.Tensor]:
    """Per-sequence max of the rows and the first row reaching it (absolute row numbers)."""
    ids = _seg_ids(offs)
    shape = (len(offs) - 1, xr.shape[1])
    where = ids[:, None].expand_as(xr)
    best = torch.full(shape, -math.inf, dtype=xr.dtype).scatter_reduce_(0, where, xr, "amax")
    pos = torch.arange(xr.shape[0])[:, None].expand_as(xr)
    first = torch.full(shape, xr.shape[0], dtype=torch.int64).scatter_reduce_(
        0, where, torch.where(xr == best[ids], pos, xr.shape[0]), "amin")
    return best, first


def _pool_run(ins, outs, a, rng):
    x, out = ins["X"][0], outs["Out"][0]
    offs = _need("sequence_pool", a, "X")[-1]
    kind = _pooltype(a)
    lens, starts, lasts, nonempty = _seg_info(offs)
    xr, o = _rows(x), _rows(out)
    if kind in ("FIRST", "LAST"):
        o.fill_(a["pad_value"])
        pick = (starts if kind == "FIRST" else lasts)[nonempty]
        o[nonempty] = xr[pick]
        return
    ids = _seg_ids(offs)
    if kind == "MAX":
        best, first = _seg_max(xr, offs)
        o.copy_(torch.where(nonempty[:, None], best, torch.tensor(a["pad_value"], dtype=x.dtype)))
        if outs.get("MaxIndex"):
            _rows(outs["MaxIndex"][0]).copy_(torch.where(nonempty[:, None], first, -1))
        return
    acc = torch.zeros(o.shape, dtype=torch.float64).index_add_(0, ids, xr.to(torch.float64))
    if kind == "AVERAGE":
        acc /= lens.clamp(min=1)[:, None]
    elif kind == "SQRT":
        acc /= lens.clamp(min=1).sqrt()[:, None]
    o.copy_(torch.where(nonempty[:, None], acc, a["pad_value"]))


def _pool_grad(op: OpDesc) -> list[OpDesc]:
    ins = {"X": op.input("X"), "Out@GRAD": [grad_name(op.output("Out")[0])]}
    if op.output("MaxIndex"):
        ins["MaxIndex"] = op.output("MaxIndex")
    return [OpDesc("sequence_pool_grad", ins, {"X@GRAD": [grad_name(op.input("X")[0])]},
                   dict(op.attrs))]


def _pool_grad_ref(ins, a):
    x, dout = np.asarray(ins["X"][0]), np.asarray(ins["Out@GRAD"][0])
    offs = _need("sequence_pool_grad", a, "X")[-1]
    kind = _pooltype(a)
    dx = np.zeros_like(x)
    for i, (s, e) in enumerate(zip(offs, offs[1:])):
        n = e - s
        if n == 0:
            continue
        if kind == "MAX":
            idx = np.asarray(ins["MaxIndex"][0])[i] if ins.get("MaxIndex") else \
                x[s:e].argmax(axis=0) + s
            np.put_along_axis(dx, idx[None].astype(np.int64), dout[i][None], axis=0)
        elif kind in ("FIRST", "LAST"):
            dx[s if kind == "FIRST" else e - 1] = dout[i]
        else:
            scale = {"SUM": 1.0, "AVERAGE": 1.0 / n, "SQRT": 1.0 / math.sqrt(n)}[kind]
            dx[s:e] = dout[i] * scale
    return {"X@GRAD": [dx]}


def _pool_grad_run(ins, outs, a, rng):
    dout = ins["Out@GRAD"][0]
    dx = outs["X@GRAD"][0]
    offs = _need("sequence_pool_grad", a, "X")[-1]
    kind = _pooltype(a)
    lens, starts, lasts, nonempty = _seg_info(offs)
    dxr, do = _rows(dx), _rows(dout)
    if kind in ("FIRST", "LAST", "MAX"):
        dxr.zero_()
        if kind == "MAX":
            idx = (_rows(ins["MaxIndex"][0]).long() if ins.get("MaxIndex") else
                   _seg_max(_rows(ins["X"][0]), offs)[1])[nonempty]
            dxr.scatter_(0, idx, do[nonempty])
        else:
            dxr[(starts if kind == "FIRST" else lasts)[nonempty]] = do[nonempty]
        return
    ids = _seg_ids(offs)
    scale = {"SUM": torch.ones_like(lens), "AVERAGE": 1.0 / lens.clamp(min=1),
             "SQRT": 1.0 / lens.clamp(min=1).sqrt()}[kind]
    dxr.copy_(do[ids] * scale[ids][:, None].to(do.dtype))


def _keep_x_lod(slot_out: str):
    return lambda lods, a, ins: {slot_out: [(lods.get("X") or [None])[0]]}


def _same_as_x(ins, a):
    x = ins["X"][0]
    return {"X@GRAD": [VarInfo(x.shape, x.dtype, x.lod_level)]}


_extern("sequence_pool", ["X"], ["Out", "MaxIndex?"], POOL_ATTRS, _pool_infer, _pool_run,
        _pool_ref, _pool_lod, _pool_grad)
_extern("sequence_pool_grad", ["X", "Out@GRAD", "MaxIndex?"], ["X@GRAD?"], POOL_ATTRS,
        _same_as_x, _pool_grad_run, _pool_grad_ref, _keep_x_lod("X@GRAD"))


# ---------------------------------------------------------------------------------------------
# sequence_softmax: a softmax within each sequence of a [N] or [N, 1] input.

def _softmax_infer(ins, a):
    x = ins["X"][0]
    if len(x.shape) not in (1, 2) or (len(x.shape) == 2 and x.shape[1] not in (1, -1)):
        raise ShapeError(f"op 'sequence_softmax': X must be [N] or [N, 1], got {list(x.shape)}")
    if _known(a):
        _check_rows("sequence_softmax", "X", _need("sequence_softmax", a, "X"), x.shape[0])
    return {"Out": [VarInfo(x.shape, x.dtype, x.lod_level)]}


def _softmax_ref(ins, a):
    x = np.asarray(ins["X"][0])
    flat, out = x.reshape(-1), np.empty(x.size, x.dtype)
    offs = _need("sequence_softmax", a, "X")[-1]
    for s, e in zip(offs, offs[1:]):
        if e > s:
            z = np.exp(flat[s:e] - flat[s:e].max())
            out[s:e] = z / z.sum()
    return {"Out": [out.reshape(x.shape)]}


def _seg_sum(v: torch.Tensor, ids: torch.Tensor, n: int) -> torch.Tensor:
    return torch.zeros(n, dtype=v.dtype).index_add_(0, ids, v)


def _softmax_run(ins, outs, a, rng):
    x = ins["X"][0].reshape(-1)
    offs = _need("sequence_softmax", a, "X")[-1]
    ids, n = _seg_ids(offs), len(offs) - 1
    m = torch.full((n,), -math.inf, dtype=x.dtype).scatter_reduce_(0, ids, x, "amax")
    e = torch.exp(x - m[ids])
    outs["Out"][0].reshape(-1).copy_(e / _seg_sum(e, ids, n)[ids])


def _softmax_grad(op: OpDesc) -> list[OpDesc]:
    return [OpDesc("sequence_softmax_grad",
                   {"X": op.input("X"), "Out": op.output("Out"),
                    "Out@GRAD": [grad_name(op.output("Out")[0])]},
                   {"X@GRAD": [grad_name(op.input("X")[0])]}, dict(op.attrs))]


def _softmax_grad_ref(ins, a):
    y, dy = np.asarray(ins["Out"][0]).reshape(-1), np.asarray(ins["Out@GRAD"][0]).reshape(-1)
    dx = np.zeros_like(y)
    offs = _need("sequence_softmax_grad", a, "X")[-1]
    for s, e in zip(offs, offs[1:]):
        dx[s:e] = y[s:e] * (dy[s:e] - (dy[s:e] * y[s:e]).sum())
    return {"X@GRAD": [dx.reshape(np.asarray(ins["X"][0]).shape)]}


def _softmax_grad_run(ins, outs, a, rng):
    y, dy = ins["Out"][0].reshape(-1), ins["Out@GRAD"][0].reshape(-1)
    offs = _need("sequence_softmax_grad", a, "X")[-1]
    ids, n = _seg_ids(offs), len(offs) - 1
    outs["X@GRAD"][0].reshape(-1).copy_(y * (dy - _seg_sum(dy * y, ids, n)[ids]))


_extern("sequence_softmax", ["X"], ["Out"], {"use_cudnn": False}, _softmax_infer, _softmax_run,
        _softmax_ref, _keep_x_lod("Out"), _softmax_grad)
_extern("sequence_softmax_grad", ["X", "Out", "Out@GRAD"], ["X@GRAD?"], {"use_cudnn": False},
        _same_as_x, _softmax_grad_run, _softmax_grad_ref, _keep_x_lod("X@GRAD"))


# ---------------------------------------------------------------------------------------------
# sequence_expand: repeat each row (X without LoD) or sequence (X with a 1-level LoD) of X as
# many times as the matching sequence of Y's level ref_level has elements.

def _ref_offsets(op: str, y: Lod, ref_level: int) -> tuple:
    if not -len(y) <= ref_level < len(y):
        raise OpError(f"op '{op}': ref_level {ref_level} is out of range for Y's "
                      f"{len(y)}-level LoD")
    return y[ref_level]


@functools.lru_cache(maxsize=512)
def _expand_plan(x_offs: tuple | None, ref: tuple, x_rows: int):
    """(gather index into X's rows, output LoD) for sequence_expand."""
    repeats = _lengths(ref)
    if x_offs is None:
        if len(repeats) != x_rows:
            raise ShapeError(f"op 'sequence_expand': X has {x_rows} rows but Y's ref level has "
                             f"{len(repeats)} sequences")
        idx = np.repeat(np.arange(x_rows), repeats)
        return torch.as_tensor(idx), (tuple(int(o) for o in ref),)
    if len(x_offs) != len(ref):
        raise ShapeError(f"op 'sequence_expand': X has {len(x_offs) - 1} sequences but Y's ref "
                         f"level has {len(ref) - 1}")
    parts, out = [], [0]
    for (s, e), r in zip(zip(x_offs, x_offs[1:]), repeats):
        for _ in range(int(r)):
            parts.append(np.arange(s, e))
            out.append(out[-1] + e - s)
    idx = np.concatenate(parts) if parts else np.zeros(0, np.int64)
    return torch.as_tensor(idx.astype(np.int64)), (tuple(out),)


def _expand_plan_of(op: str, a: dict, x_rows: int):
    x = _lod(a, "X")
    if x is not None and len(x) > 1:
        raise OpError(f"op '{op}': X may have at most a 1-level LoD, got {len(x)} levels")
    ref = _ref_offsets(op, _need(op, a, "Y"), a["ref_level"])
    if x is not None:
        _check_rows(op, "X", x, x_rows)
    return _expand_plan(x[0] if x else None, ref, x_rows)


def _expand_infer(ins, a):
    x = ins["X"][0]
    rows = len(_expand_plan_of("sequence_expand", a, x.shape[0])[0]) if _known(a) else -1
    return {"Out": [VarInfo((rows,) + tuple(x.shape[1:]), x.dtype, 1)]}


def _expand_lod(lods, a, ins):
    """Out shares X's LoD (Paddle's ShareLoD): none for an X without one, else the expanded
    sequences' offsets."""
    ref = _ref_offsets("sequence_expand", lods["Y"][0], a["ref_level"]) if lods.get("Y") and \
        lods["Y"][0] else None
    x = (lods.get("X") or [None])[0]
    if ref is None or x is None:
        return {"Out": [None]}
    return {"Out": [_expand_plan(tuple(x[-1]), tuple(ref), x[-1][-1])[1]]}


def _expand_ref(ins, a):
    x = np.asarray(ins["X"][0])
    idx, _ = _expand_plan_of("sequence_expand", a, x.shape[0])
    return {"Out": [x[idx.numpy()]]}


def _expand_run(ins, outs, a, rng):
    x = ins["X"][0]
    idx, _ = _expand_plan_of("sequence_expand", a, x.shape[0])
    torch.index_select(x, 0, idx, out=outs["Out"][0])


def _expand_grad(op: OpDesc) -> list[OpDesc]:
    return [OpDesc("sequence_expand_grad",
                   {"X": op.input("X"), "Y": op.input("Y"),
                    "Out@GRAD": [grad_name(op.output("Out")[0])]},
                   {"X@GRAD": [grad_name(op.input("X")[0])]}, dict(op.attrs))]


def _expand_grad_ref(ins, a):
    x, dout = np.asarray(ins["X"][0]), np.asarray(ins["Out@GRAD"][0])
    idx, _ = _expand_plan_of("sequence_expand_grad", a, x.shape[0])
    dx = np.zeros_like(x)
    np.add.at(dx, idx.numpy(), dout)
    return {"X@GRAD": [dx]}


def _expand_grad_run(ins, outs, a, rng):
    x = ins["X"][0]
    idx, _ = _expand_plan_of("sequence_expand_grad", a, x.shape[0])
    outs["X@GRAD"][0].zero_().index_add_(0, idx, ins["Out@GRAD"][0])


_extern("sequence_expand", ["X", "Y"], ["Out"], {"ref_level": -1}, _expand_infer, _expand_run,
        _expand_ref, _expand_lod, _expand_grad)
_extern("sequence_expand_grad", ["X", "Y", "Out@GRAD"], ["X@GRAD?"], {"ref_level": -1},
        _same_as_x, _expand_grad_run, _expand_grad_ref, _keep_x_lod("X@GRAD"))


# ---------------------------------------------------------------------------------------------
# sequence_concat: sequence i of Out is sequence i of every X, joined in order.

@functools.lru_cache(maxsize=512)
def _concat_plan(offsets: tuple):
    """(index into the rows of cat(X), output offsets) for per-sequence concatenation."""
    bases = np.cumsum([0] + [o[-1] for o in offsets[:-1]])
    parts, out = [], [0]
    for i in range(len(offsets[0]) - 1):
        for base, o in zip(bases, offsets):
            parts.append(np.arange(o[i], o[i + 1]) + base)
        out.append(out[-1] + sum(o[i + 1] - o[i] for o in offsets))
    idx = np.concatenate(parts).astype(np.int64) if parts else np.zeros(0, np.int64)
    return torch.as_tensor(idx), tuple(out)


def _concat_offsets(op: str, a: dict, rows: list[int]) -> tuple:
    offs = []
    for i, r in enumerate(rows):
        lod = _need(op, a, "X", i)
        _check_rows(op, f"X[{i}]", lod, r)
        offs.append(lod[-1])
    if len({len(o) for o in offs}) != 1:
        raise ShapeError(f"op '{op}': every X needs the same number of sequences, got "
                         f"{[len(o) - 1 for o in offs]}")
    return tuple(offs)


def _concat_infer(ins, a):
    xs = ins["X"]
    tail = tuple(xs[0].shape[1:])
    for x in xs[1:]:
        if tuple(x.shape[1:]) != tail:
            raise ShapeError(f"op 'sequence_concat': inputs differ past dim 0: "
                             f"{[list(v.shape) for v in xs]}")
    rows = -1
    if _known(a):
        rows = _concat_plan(_concat_offsets("sequence_concat", a, [x.shape[0] for x in xs]))[1][-1]
    return {"Out": [VarInfo((rows,) + tail, xs[0].dtype, max(x.lod_level for x in xs))]}


def _concat_lod(lods, a, ins):
    xs = lods.get("X") or []
    if not xs or any(lod is None for lod in xs):
        return {"Out": [None]}
    return {"Out": [(_concat_plan(tuple(lod[-1] for lod in xs))[1],)]}


def _concat_ref(ins, a):
    xs = [np.asarray(x) for x in ins["X"]]
    idx, _ = _concat_plan(_concat_offsets("sequence_concat", a, [x.shape[0] for x in xs]))
    return {"Out": [np.concatenate(xs)[idx.numpy()]]}


def _concat_run(ins, outs, a, rng):
    xs = ins["X"]
    idx, _ = _concat_plan(_concat_offsets("sequence_concat", a, [x.shape[0] for x in xs]))
    torch.index_select(torch.cat(xs), 0, idx, out=outs["Out"][0])


def _concat_grad(op: OpDesc) -> list[OpDesc]:
    return [OpDesc("sequence_concat_grad",
                   {"X": op.input("X"), "Out@GRAD": [grad_name(op.output("Out")[0])]},
                   {"X@GRAD": [grad_name(n) for n in op.input("X")]}, dict(op.attrs))]


def _concat_grad_parts(a, xs_rows: list[int], dout):
    idx, _ = _concat_plan(_concat_offsets("sequence_concat_grad", a, xs_rows))
    if isinstance(dout, torch.Tensor):
        full = dout.new_empty((sum(xs_rows),) + tuple(dout.shape[1:]))
    else:
        full, idx = np.empty((sum(xs_rows),) + dout.shape[1:], dout.dtype), idx.numpy()
    full[idx] = dout  # the inverse of the forward gather
    bounds = np.cumsum([0] + xs_rows)
    return [full[s:e] for s, e in zip(bounds, bounds[1:])]


def _concat_grad_infer(ins, a):
    return {"X@GRAD": [VarInfo(x.shape, x.dtype, x.lod_level) for x in ins["X"]]}


def _concat_grad_ref(ins, a):
    rows = [np.asarray(x).shape[0] for x in ins["X"]]
    return {"X@GRAD": _concat_grad_parts(a, rows, np.asarray(ins["Out@GRAD"][0]))}


def _concat_grad_run(ins, outs, a, rng):
    rows = [x.shape[0] for x in ins["X"]]
    names = outs.get("X@GRAD", [])
    for t, part in zip(names, _concat_grad_parts(a, rows, ins["Out@GRAD"][0])):
        t.copy_(part)


def _concat_grad_lod(lods, a, ins):
    return {"X@GRAD": list(lods.get("X") or [])}


register(OpDef("sequence_concat", slots("X*"), slots("Out"), {}, _concat_infer, "extern",
               reference=_concat_ref, grad=_concat_grad, run=_concat_run, lod=_concat_lod))
register(OpDef("sequence_concat_grad", slots("X*", "Out@GRAD"), slots("X@GRAD*?"), {},
               _concat_grad_infer, "extern", reference=_concat_grad_ref, run=_concat_grad_run,
               lod=_concat_grad_lod))


# ---------------------------------------------------------------------------------------------
# sequence_reshape: each sequence's L x D elements become L * D / new_dim rows of new_dim.

def _reshape_lod_of(op: str, lod: Lod, width: int, new_dim: int) -> Lod:
    offs = lod[-1]
    for s, e in zip(offs, offs[1:]):
        if (e - s) * width % new_dim:
            raise ShapeError(f"op '{op}': a sequence of {e - s} rows of width {width} cannot be "
                             f"reshaped to rows of width {new_dim}")
    return lod[:-1] + (tuple(o * width // new_dim for o in offs),)


def _reshape_infer(ins, a):
    x = ins["X"][0]
    if len(x.shape) != 2:
        raise ShapeError(f"op 'sequence_reshape': X must be 2-D, got {list(x.shape)}")
    new_dim = int(a["new_dim"])
    rows = -1
    if _known(a):
        lod = _need("sequence_reshape", a, "X")
        _check_rows("sequence_reshape", "X", lod, x.shape[0])
        rows = _reshape_lod_of("sequence_reshape", lod, x.shape[1], new_dim)[-1][-1]
    elif x.shape[0] != -1 and x.shape[1] != -1:
        rows = x.shape[0] * x.shape[1] // new_dim
    return {"Out": [VarInfo((rows, new_dim), x.dtype, x.lod_level)]}


def _reshape_lod(lods, a, ins):
    lod = (lods.get("X") or [None])[0]
    width = ins["X"][0].shape[1]
    return {"Out": [None if lod is None or width == -1 else
                    _reshape_lod_of("sequence_reshape", lod, width, int(a["new_dim"]))]}


def _reshape_ref(ins, a):
    x = np.asarray(ins["X"][0])
    return {"Out": [x.reshape(-1, int(a["new_dim"]))]}


def _reshape_run(ins, outs, a, rng):
    outs["Out"][0].copy_(ins["X"][0].reshape(outs["Out"][0].shape))


def _reshape_grad(op: OpDesc) -> list[OpDesc]:
    return [OpDesc("sequence_reshape_grad",
                   {"X": op.input("X"), "Out@GRAD": [grad_name(op.output("Out")[0])]},
                   {"X@GRAD": [grad_name(op.input("X")[0])]}, dict(op.attrs))]


def _reshape_grad_ref(ins, a):
    x = np.asarray(ins["X"][0])
    return {"X@GRAD": [np.asarray(ins["Out@GRAD"][0]).reshape(x.shape)]}


def _reshape_grad_run(ins, outs, a, rng):
    if outs.get("X@GRAD"):
        outs["X@GRAD"][0].copy_(ins["Out@GRAD"][0].reshape(outs["X@GRAD"][0].shape))


RESHAPE_ATTRS = {"new_dim": 1}
_extern("sequence_reshape", ["X"], ["Out"], RESHAPE_ATTRS, _reshape_infer, _reshape_run,
        _reshape_ref, _reshape_lod, _reshape_grad)
_extern("sequence_reshape_grad", ["X", "Out@GRAD"], ["X@GRAD?"], RESHAPE_ATTRS, _same_as_x,
        _reshape_grad_run, _reshape_grad_ref, _keep_x_lod("X@GRAD"))
