"""row_conv (lookahead convolution, DeepSpeech 2): Out[t] = sum_k X[t + k] * Filter[k] over
k in [0, Filter rows), element-wise per feature, each sequence on its own (rows past its end are
zeros). X is a LoD tensor [T, D] (sequences by its LoD) or a padded [B, T, D] tensor (each batch
row one sequence of T steps); Filter is [future_context + 1, D]; Out has X's shape and LoD."""
from __future__ import annotations

import functools

import numpy as np
from fluidc.frontend.lazy_import import torch

from ..errors import ShapeError
from .conv import _bound
from .define import input_grad_op
from .registry import OpDef, OpDesc, VarInfo, register, slots
from .sequence import _check_rows, _keep_x_lod, _known, _lod, _need


def _infer(ins, a):
    x, w = ins["X"][0], ins["Filter"][0]
    if len(x.shape) not in (2, 3) or len(w.shape) != 2:
        raise ShapeError(f"op 'row_conv': X must be [T, D] (LoD) or [B, T, D] and Filter "
                         f"[future_context + 1, D], got X {list(x.shape)}, Filter "
                         f"{list(w.shape)}")
    if -1 not in (x.shape[-1], w.shape[1]) and x.shape[-1] != w.shape[1]:
        raise ShapeError(f"op 'row_conv': Filter {list(w.shape)} must have X's width "
                         f"{x.shape[-1]} columns")
    if len(x.shape) == 2 and _known(a):
        _check_rows("row_conv", "X", _need("row_conv", a, "X"), x.shape[0])
    return {"Out": [VarInfo(x.shape, x.dtype, x.lod_level)]}


def _offsets(x_shape, a) -> tuple:
    """Sequence start offsets over the rows of X flattened to [rows, D]."""
    if len(x_shape) == 3:
        return tuple(range(0, x_shape[0] * x_shape[1] + 1, x_shape[1]))
    return (_lod(a, "X") or _need("row_conv", a, "X"))[-1]


@functools.lru_cache(maxsize=512)
def _window(offsets: tuple, context: int) -> tuple[np.ndarray, np.ndarray]:
    """(source row of each [row, k], whether row + k lies inside the row's sequence)."""
    rows = offsets[-1]
    seq_end = np.repeat(np.asarray(offsets[1:]), np.diff(offsets))
    src = np.arange(rows)[:, None] + np.arange(context)[None, :]
    inside = src < seq_end[:, None]
    return np.where(inside, src, 0).astype(np.int64), inside


def _gather(x, w, a, xp):
    """(X flattened to rows, the [rows, K, D] windows of it with rows past a sequence zeroed,
    source rows, inside mask)."""
    rows = x.reshape(-1, x.shape[-1])
    src, inside = _window(_offsets(tuple(x.shape), a), int(w.shape[0]))
    if xp is torch:
        src, inside = torch.as_tensor(src), torch.as_tensor(inside)
    return rows, rows[src] * inside[:, :, None], src, inside


def _ref(ins, a):
    x, w = np.asarray(ins["X"][0]), np.asarray(ins["Filter"][0])
    _, win, _, _ = _gather(x, w, a, np)
    return {"Out": [(win * w[None]).sum(1).reshape(x.shape).astype(x.dtype)]}


def _run(ins, outs, a, rng):
    x, w = ins["X"][0], ins["Filter"][0]
    _, win, _, _ = _gather(x, w, a, torch)
    outs["Out"][0].copy_((win * w[None]).sum(1).reshape(x.shape))


def _grad(op: OpDesc) -> list[OpDesc]:
    return input_grad_op(op, "X", "Filter")


def _grad_infer(ins, a):
    return {"X@GRAD": [ins["X"][0]], "Filter@GRAD": [ins["Filter"][0]]}


def _grads(ins, a, xp):
    """(dX, dFilter): dFilter[k] = sum_t dOut[t] * X[t + k]; dX[t + k] += dOut[t] * Filter[k]."""
    x, w, d = ins["X"][0], ins["Filter"][0], ins["Out@GRAD"][0]
    rows, win, src, inside = _gather(x, w, a, xp)
    d = d.reshape(rows.shape)
    dw = (win * d[:, None, :]).sum(0)
    contrib = (d[:, None, :] * w[None]) * inside[:, :, None]
    if xp is torch:
        dx = torch.zeros_like(rows).index_add_(0, src.reshape(-1), contrib.reshape(-1, w.shape[1]))
    else:
        dx = np.zeros_like(rows)
        np.add.at(dx, src.reshape(-1), contrib.reshape(-1, w.shape[1]))
    return dx.reshape(x.shape), dw


def _grad_ref(ins, a):
    ins = {k: [np.asarray(v[0])] for k, v in ins.items()}
    dx, dw = _grads(ins, a, np)
    return {"X@GRAD": [dx], "Filter@GRAD": [dw.astype(ins["Filter"][0].dtype)]}


def _grad_run(ins, outs, a, rng):
    dx, dw = _grads(ins, a, torch)
    for slot, value in (("X@GRAD", dx), ("Filter@GRAD", dw)):
        out = _bound(outs, slot)
        if out is not None:
            out.copy_(value)


register(OpDef("row_conv", slots("X", "Filter"), slots("Out"), {}, _infer, "extern",
               reference=_ref, grad=_grad, run=_run, lod=_keep_x_lod("Out")))
register(OpDef("row_conv_grad", slots("X", "Filter", "Out@GRAD"),
               slots("X@GRAD?", "Filter@GRAD?"), {}, _grad_infer, "extern",
               reference=_grad_ref, run=_grad_run, lod=_keep_x_lod("X@GRAD")))
