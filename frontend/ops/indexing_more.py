"""Paddle 2.x's matrix and indexing ops: tril_triu, gather_nd, index_select, roll, eye,
diag_v2, trace and kron, each run by a torch function, with Paddle's grad ops (masked, scattered
back, rolled back, put on the diagonal, or kron's sums). Index values are checked when the
program runs: index_select's through OpDef.indices as gather's, gather_nd's per column of Index
(its bound differs per dim of X) inside the op, each in [-dim, dim), negative ones counting from
the end (Paddle 3.3.1's kernels)."""
from __future__ import annotations

import math

import numpy as np
from fluidc.frontend.lazy_import import torch

from ..dtypes import VarType, convert_dtype, to_numpy_dtype
from ..errors import IndexRangeError, OpError, ShapeError
from .define import input_grad_op
from .registry import OpDef, OpDesc, VarInfo, grad_name, register, slots
from .shape import _axis, _gather_grad_ref, _gather_grad_run, _gather_indices, _gather_ref, \
    _gather_run, _index_len

_INT_INDEX = (VarType.INT32, VarType.INT64)


def _define(type, inputs, outputs, attrs, infer, run, reference, grad=None, **kw):
    return register(OpDef(type, slots(*inputs), slots(*outputs), attrs, infer, "extern",
                          reference=reference, grad=grad, run=run, **kw))


def _like(slot: str, out: str = "Out"):
    """Infer for an op whose `out` has the shape and dtype of input `slot`."""
    def infer(ins, a):
        x = ins[slot][0]
        return {out: [VarInfo(x.shape, x.dtype)]}
    return infer


def _grad_like(slot: str):
    """Infer for a grad op whose slot@GRAD has `slot`'s shape and Out@GRAD's dtype."""
    def infer(ins, a):
        return {slot + "@GRAD": [VarInfo(ins[slot][0].shape, ins["Out@GRAD"][0].dtype)]}
    return infer


def _int_index(op: str, idx: VarInfo) -> None:
    if idx.dtype not in _INT_INDEX:
        raise OpError(f"op '{op}': Index must be int32 or int64, got {idx.dtype.name}")


# ---------------------------------------------------------------------------------------------
# tril_triu: X's last two dims kept on and below (lower) or on and above the `diagonal`-th
# diagonal, zero elsewhere; the grad masks Out@GRAD the same way (tril_triu_grad).

TRIL_ATTRS = {"diagonal": 0, "lower": True}


def _tril_infer(ins, a):
    x = ins["X"][0]
    if len(x.shape) < 2:
        raise ShapeError(f"op 'tril_triu': X must have rank >= 2, got shape {list(x.shape)}")
    return {"Out": [VarInfo(x.shape, x.dtype, x.lod_level)]}


def _tril_ref_of(slot):
    def ref(ins, a):
        x = np.asarray(ins[slot][0])
        keep = (np.tril if a["lower"] else np.triu)(np.ones(x.shape[-2:], bool), a["diagonal"])
        return {"Out" if slot == "X" else "X@GRAD": [np.where(keep, x, np.zeros((), x.dtype))]}
    return ref


def _tril_run_of(slot):
    def run(ins, outs, a, rng):
        out = outs["Out" if slot == "X" else "X@GRAD"][0]
        out.copy_((torch.tril if a["lower"] else torch.triu)(ins[slot][0], a["diagonal"]))
    return run


def _tril_grad(op: OpDesc) -> list[OpDesc]:
    return [OpDesc("tril_triu_grad", {"Out@GRAD": [grad_name(op.output("Out")[0])]},
                   {"X@GRAD": [grad_name(op.input("X")[0])]}, dict(op.attrs))]


_define("tril_triu", ["X"], ["Out"], TRIL_ATTRS, _tril_infer, _tril_run_of("X"),
        _tril_ref_of("X"), _tril_grad)
_define("tril_triu_grad", ["Out@GRAD"], ["X@GRAD?"], TRIL_ATTRS,
        lambda ins, a: {"X@GRAD": [VarInfo(ins["Out@GRAD"][0].shape, ins["Out@GRAD"][0].dtype)]},
        _tril_run_of("Out@GRAD"), _tril_ref_of("Out@GRAD"))


# ---------------------------------------------------------------------------------------------
# gather_nd: Out[i...] = X[Index[i..., :]] (Index's last dim k <= rank(X) picks the first k
# dims); the grad adds Out@GRAD back at the picked positions.

def _nd_infer(ins, a):
    x, idx = ins["X"][0], ins["Index"][0]
    _int_index("gather_nd", idx)
    if not idx.shape:
        raise ShapeError("op 'gather_nd': Index must have rank >= 1, got a 0-D tensor")
    k = idx.shape[-1]
    if k > len(x.shape):
        raise ShapeError(f"op 'gather_nd': Index.shape[-1] ({k}) must be no greater than "
                         f"X's rank ({len(x.shape)})")
    return {"Out": [VarInfo(tuple(idx.shape[:-1]) + tuple(x.shape[k:]), x.dtype)]}


def _nd_rows(idx, dims):
    """Index ([..., k], numpy or torch) as flat positions in X viewed [prod(dims[:k]), ...],
    each column checked to lie in [-dims[j], dims[j])."""
    k = idx.shape[-1]
    idx = idx.reshape(math.prod(idx.shape[:-1]), k)
    rows = idx.sum(-1) * 0
    for j in range(k):
        col, d = idx[:, j], dims[j]
        bad = (col < -d) | (col >= d)
        if bad.any():
            value = int(col[bad][0])
            raise IndexRangeError(f"op 'gather_nd': Index value {value} at column {j} is out "
                                  f"of range [{-d}, {d}) for X's dim {j}")
        rows = rows * d + col % d
    return rows


def _nd_view(shape, k: int):
    return (math.prod(shape[:k]), *shape[k:])


def _nd_ref(ins, a):
    x, idx = np.asarray(ins["X"][0]), np.asarray(ins["Index"][0]).astype(np.int64)
    k = idx.shape[-1]
    out = x.reshape(_nd_view(x.shape, k))[_nd_rows(idx, x.shape)]
    return {"Out": [out.reshape(idx.shape[:-1] + x.shape[k:])]}


def _nd_run(ins, outs, a, rng):
    x, idx = ins["X"][0], ins["Index"][0].long()
    k = idx.shape[-1]
    rows = _nd_rows(idx, tuple(x.shape))
    outs["Out"][0].copy_(x.reshape(_nd_view(x.shape, k))[rows].reshape(outs["Out"][0].shape))


def _nd_grad_ref(ins, a):
    x, idx = np.asarray(ins["X"][0]), np.asarray(ins["Index"][0]).astype(np.int64)
    d = np.asarray(ins["Out@GRAD"][0])
    k = idx.shape[-1]
    dx = np.zeros(_nd_view(x.shape, k), d.dtype)
    rows = _nd_rows(idx, x.shape)
    np.add.at(dx, rows, d.reshape(rows.shape + dx.shape[1:]))
    return {"X@GRAD": [dx.reshape(x.shape)]}


def _nd_grad_run(ins, outs, a, rng):
    x, idx, d = ins["X"][0], ins["Index"][0].long(), ins["Out@GRAD"][0]
    dx = outs["X@GRAD"][0].zero_()
    view = dx.view(_nd_view(x.shape, idx.shape[-1]))
    rows = _nd_rows(idx, tuple(x.shape))
    view.index_add_(0, rows, d.reshape(tuple(rows.shape) + tuple(view.shape[1:])))


_define("gather_nd", ["X", "Index"], ["Out"], {}, _nd_infer, _nd_run, _nd_ref,
        lambda op: input_grad_op(op, "X", "Index"))
_define("gather_nd_grad", ["X", "Index", "Out@GRAD"], ["X@GRAD?"], {}, _grad_like("X"),
        _nd_grad_run, _nd_grad_ref)


# ---------------------------------------------------------------------------------------------
# index_select: gather along `dim` (Paddle's name for gather's axis), with gather's kernels.

def _as_gather(a) -> dict:
    return {"axis": a["dim"]}


def _select_infer(ins, a):
    x, idx = ins["X"][0], ins["Index"][0]
    _int_index("index_select", idx)
    n = _index_len("index_select", idx)
    dim = _axis(a["dim"], len(x.shape), "index_select")
    return {"Out": [VarInfo(tuple(n if i == dim else d for i, d in enumerate(x.shape)),
                            x.dtype)]}


_define("index_select", ["X", "Index"], ["Out"], {"dim": 0}, _select_infer,
        lambda ins, outs, a, rng: _gather_run(ins, outs, _as_gather(a), rng),
        lambda ins, a: _gather_ref(ins, _as_gather(a)),
        lambda op: input_grad_op(op, "X", "Index"),
        indices=lambda shapes, a: _gather_indices(shapes, _as_gather(a)))
_define("index_select_grad", ["X", "Index", "Out@GRAD"], ["X@GRAD?"], {"dim": 0},
        _grad_like("X"),
        lambda ins, outs, a, rng: _gather_grad_run(ins, outs, _as_gather(a), rng),
        lambda ins, a: _gather_grad_ref(ins, _as_gather(a)),
        indices=lambda shapes, a: _gather_indices(shapes, _as_gather(a)))


# ---------------------------------------------------------------------------------------------
# roll: X's elements shifted by `shifts` along the `axis` dims (no axis: along X flattened);
# the grad rolls Out@GRAD back (roll_grad).

ROLL_ATTRS = {"shifts": [], "axis": []}


def _roll_plan(shape, a) -> tuple[list[int], list[int]]:
    """(shifts, axes) checked against X's shape, as Paddle's infer meta."""
    shifts, axes = list(a["shifts"]), [_axis(d, len(shape), "roll") for d in a["axis"]]
    if axes and len(axes) != len(shifts):
        raise ShapeError(f"op 'roll': axis {list(a['axis'])} and shifts {shifts} must have "
                         f"the same length")
    if not axes and len(shifts) != 1:
        raise ShapeError(f"op 'roll': without axis, shifts must hold one value, got {shifts}")
    return shifts, axes


def _roll_infer(ins, a):
    x = ins["X"][0]
    if ins.get("ShiftsTensor"):
        raise OpError("op 'roll': a ShiftsTensor input is not supported; pass shifts as an "
                      "attribute")
    _roll_plan(x.shape, a)
    return {"Out": [VarInfo(x.shape, x.dtype, x.lod_level)]}


def _rolled(x, a, lib, sign: int):
    shifts, axes = _roll_plan(tuple(x.shape), a)
    shifts = [sign * s for s in shifts]
    if not axes:
        return lib.roll(x.reshape(-1), shifts[0], 0).reshape(x.shape)
    return lib.roll(x, tuple(shifts), tuple(axes))


def _roll_ref_of(slot, out, sign):
    return lambda ins, a: {out: [_rolled(np.asarray(ins[slot][0]), a, np, sign)]}


def _roll_run_of(slot, out, sign):
    def run(ins, outs, a, rng):
        outs[out][0].copy_(_rolled(ins[slot][0], a, torch, sign))
    return run


_define("roll", ["X", "ShiftsTensor?"], ["Out"], ROLL_ATTRS, _roll_infer,
        _roll_run_of("X", "Out", 1), _roll_ref_of("X", "Out", 1),
        lambda op: [OpDesc("roll_grad", {"X": op.input("X"),
                                         "Out@GRAD": [grad_name(op.output("Out")[0])]},
                           {"X@GRAD": [grad_name(op.input("X")[0])]}, dict(op.attrs))])
_define("roll_grad", ["X", "ShiftsTensor?", "Out@GRAD"], ["X@GRAD?"], ROLL_ATTRS,
        _grad_like("X"), _roll_run_of("Out@GRAD", "X@GRAD", -1),
        _roll_ref_of("Out@GRAD", "X@GRAD", -1))


# ---------------------------------------------------------------------------------------------
# eye: a [num_rows, num_columns] (-1: num_rows) matrix of `dtype`, ones on the diagonal.

def _eye_shape(a) -> tuple[int, int]:
    rows, cols = a["num_rows"], a["num_columns"]
    cols = rows if cols == -1 else cols
    if rows < 0 or cols < 0:
        raise ShapeError(f"op 'eye': num_rows and num_columns must be non-negative, got "
                         f"{rows} and {cols}")
    return rows, cols


_define("eye", [], ["Out"], {"num_rows": 0, "num_columns": -1, "dtype": 5},
        lambda ins, a: {"Out": [VarInfo(_eye_shape(a), convert_dtype(a["dtype"]))]},
        lambda ins, outs, a, rng: outs["Out"][0].copy_(torch.eye(*_eye_shape(a))),
        lambda ins, a: {"Out": [np.eye(*_eye_shape(a), dtype=to_numpy_dtype(a["dtype"]))]})


# ---------------------------------------------------------------------------------------------
# diag_v2: a 1-D X put on the offset-th diagonal of a square matrix (padding_value elsewhere),
# or a 2-D X's offset-th diagonal taken; each one's grad is the other (padding 0).

DIAG_ATTRS = {"offset": 0, "padding_value": 0.0}


def _diag_len(rows: int, cols: int, off: int) -> int:
    if -1 in (rows, cols):
        return -1
    return max(0, min(rows, cols - off) if off >= 0 else min(rows + off, cols))


def _diag_infer(ins, a):
    x, off = ins["X"][0], a["offset"]
    if len(x.shape) == 1:
        n = x.shape[0] + abs(off) if x.shape[0] >= 0 else -1
        return {"Out": [VarInfo((n, n), x.dtype)]}
    if len(x.shape) == 2:
        return {"Out": [VarInfo((_diag_len(*x.shape, off),), x.dtype)]}
    raise ShapeError(f"op 'diag_v2': X must be 1-D or 2-D, got shape {list(x.shape)}")


def _diag_positions(n: int, off: int) -> tuple[np.ndarray, np.ndarray]:
    """(rows, cols) of the first n elements of the offset-th diagonal."""
    i = np.arange(n)
    return i + max(-off, 0), i + max(off, 0)


def _diag_ref_of(slot, out_slot):
    def ref(ins, a):
        x, off = np.asarray(ins[slot][0]), a["offset"]
        if slot == "X" and x.ndim == 2:
            return {out_slot: [np.diagonal(x, off).copy()]}
        if slot == "X":
            n = x.shape[0] + abs(off)
            out = np.full((n, n), a["padding_value"], x.dtype)
        else:  # diag_v2_grad: dOut back to X's shape
            shape = np.asarray(ins["X"][0]).shape
            if len(shape) == 1:
                return {out_slot: [np.diagonal(x, off).copy()]}
            out = np.zeros(shape, x.dtype)
        out[_diag_positions(x.shape[0], off)] = x
        return {out_slot: [out]}
    return ref


def _diag_run_of(slot, out_slot):
    def run(ins, outs, a, rng):
        x, out, off = ins[slot][0], outs[out_slot][0], a["offset"]
        if out.dim() == 1:
            out.copy_(torch.diagonal(x, off))
        else:
            out.fill_(a["padding_value"] if slot == "X" else 0)
            torch.diagonal(out, off).copy_(x)
    return run


_define("diag_v2", ["X"], ["Out"], DIAG_ATTRS, _diag_infer, _diag_run_of("X", "Out"),
        _diag_ref_of("X", "Out"), lambda op: input_grad_op(op, "X"))
_define("diag_v2_grad", ["X", "Out@GRAD"], ["X@GRAD?"], DIAG_ATTRS, _grad_like("X"),
        _diag_run_of("Out@GRAD", "X@GRAD"), _diag_ref_of("Out@GRAD", "X@GRAD"))


# ---------------------------------------------------------------------------------------------
# trace: the sums of Input's offset-th diagonals over the (axis1, axis2) planes; the grad puts
# Out@GRAD on those diagonals.

TRACE_ATTRS = {"offset": 0, "axis1": 0, "axis2": 1}


def plane_axes(rank: int, a, op: str = "trace") -> tuple[int, int]:
    """The (axis1, axis2) plane of a rank-`rank` Input for op (trace, diagonal), checked."""
    if rank < 2:
        raise ShapeError(f"op '{op}': Input must have rank >= 2, got rank {rank}")
    a1, a2 = _axis(a["axis1"], rank, op), _axis(a["axis2"], rank, op)
    if a1 == a2:
        raise ShapeError(f"op '{op}': axis1 ({a['axis1']}) and axis2 ({a['axis2']}) name the "
                         f"same dimension")
    return a1, a2


def _trace_infer(ins, a):
    x = ins["Input"][0]
    axes = plane_axes(len(x.shape), a)
    return {"Out": [VarInfo(tuple(d for i, d in enumerate(x.shape) if i not in axes),
                            x.dtype)]}


def _trace_ref(ins, a):
    x = np.asarray(ins["Input"][0])
    a1, a2 = plane_axes(x.ndim, a)
    return {"Out": [np.asarray(np.trace(x, a["offset"], a1, a2)).astype(x.dtype)]}


def _trace_run(ins, outs, a, rng):
    x = ins["Input"][0]
    a1, a2 = plane_axes(x.dim(), a)
    outs["Out"][0].copy_(torch.diagonal(x, a["offset"], a1, a2).sum(-1))


def _trace_grad_ref(ins, a):
    x, d = np.asarray(ins["Input"][0]), np.asarray(ins["Out@GRAD"][0])
    a1, a2 = plane_axes(x.ndim, a)
    plane = np.eye(x.shape[a1], x.shape[a2], a["offset"], dtype=d.dtype)
    return {"Input@GRAD": [np.moveaxis(d[..., None, None] * plane, (-2, -1), (a1, a2))]}


def _trace_grad_run(ins, outs, a, rng):
    x, d = ins["Input"][0], ins["Out@GRAD"][0]
    a1, a2 = plane_axes(x.dim(), a)
    diag = torch.diagonal(outs["Input@GRAD"][0].zero_(), a["offset"], a1, a2)
    diag.copy_(d.unsqueeze(-1).expand(diag.shape))


_define("trace", ["Input"], ["Out"], TRACE_ATTRS, _trace_infer, _trace_run, _trace_ref,
        lambda op: input_grad_op(op, "Input"))
_define("trace_grad", ["Input", "Out@GRAD"], ["Input@GRAD?"], TRACE_ATTRS, _grad_like("Input"),
        _trace_grad_run, _trace_grad_ref)


# ---------------------------------------------------------------------------------------------
# kron: the Kronecker product (the lower-rank operand padded with leading 1-dims); its grads
# sum Out@GRAD, viewed with X's and Y's dims interleaved, weighted by the other operand.

def _kron_infer(ins, a):
    x, y = ins["X"][0], ins["Y"][0]
    if x.dtype != y.dtype:
        raise OpError(f"op 'kron': X and Y must have one dtype, got {x.dtype.name} and "
                      f"{y.dtype.name}")
    n = max(len(x.shape), len(y.shape))
    xs, ys = _padded(x.shape, n), _padded(y.shape, n)
    return {"Out": [VarInfo(tuple(-1 if -1 in (p, q) else p * q for p, q in zip(xs, ys)),
                            x.dtype)]}


def _padded(shape, n: int) -> tuple[int, ...]:
    return (1,) * (n - len(shape)) + tuple(shape)


def _kron_grads(x, y, d):
    """(dX, dY) of kron for numpy or torch arrays."""
    n = max(x.ndim, y.ndim)
    xs, ys = _padded(x.shape, n), _padded(y.shape, n)
    d = d.reshape(tuple(s for pair in zip(xs, ys) for s in pair))
    xb = x.reshape(tuple(s for p in xs for s in (p, 1)))
    yb = y.reshape(tuple(s for q in ys for s in (1, q)))
    dx = (d * yb).sum(tuple(range(1, 2 * n, 2))).reshape(x.shape)
    dy = (d * xb).sum(tuple(range(0, 2 * n, 2))).reshape(y.shape)
    return dx, dy


def _kron_grad_ref(ins, a):
    dx, dy = _kron_grads(*(np.asarray(ins[s][0]) for s in ("X", "Y", "Out@GRAD")))
    return {"X@GRAD": [dx], "Y@GRAD": [dy]}


def _kron_grad_run(ins, outs, a, rng):
    grads = _kron_grads(ins["X"][0], ins["Y"][0], ins["Out@GRAD"][0])
    for slot, g in zip(("X@GRAD", "Y@GRAD"), grads):
        if outs.get(slot):
            outs[slot][0].copy_(g)


_define("kron", ["X", "Y"], ["Out"], {}, _kron_infer,
        lambda ins, outs, a, rng: outs["Out"][0].copy_(torch.kron(ins["X"][0], ins["Y"][0])),
        lambda ins, a: {"Out": [np.kron(np.asarray(ins["X"][0]), np.asarray(ins["Y"][0]))]},
        lambda op: input_grad_op(op, "X", "Y"))
_define("kron_grad", ["X", "Y", "Out@GRAD"], ["X@GRAD?", "Y@GRAD?"], {},
        lambda ins, a: {"X@GRAD": [VarInfo(ins["X"][0].shape, ins["Out@GRAD"][0].dtype)],
                        "Y@GRAD": [VarInfo(ins["Y"][0].shape, ins["Out@GRAD"][0].dtype)]},
        _kron_grad_run, _kron_grad_ref)
