"""sequence_conv: a 1-D convolution along each sequence of a LoD tensor. Row t of a sequence
sees rows t + contextStart ... t + contextStart + contextLength - 1 of its own sequence (rows
outside it are zeros), concatenated, times Filter [contextLength * D, M]. Out keeps X's LoD."""
from __future__ import annotations

import functools

import numpy as np
from fluidc.frontend.lazy_import import torch

from ..errors import OpError, ShapeError
from .define import input_grad_op
from .registry import OpDef, OpDesc, VarInfo, register, slots
from .sequence import _check_rows, _keep_x_lod, _known, _need

SEQ_CONV_ATTRS = {"contextLength": 3, "paddingTrainable": False, "contextStart": 0,
                  "contextStride": 1}


def _check_attrs(op: str, a) -> None:
    if a["contextStride"] != 1:
        raise OpError(f"op '{op}': contextStride must be 1 (Paddle's only one), got "
                      f"{a['contextStride']}")
    if a["paddingTrainable"]:
        raise OpError(f"op '{op}': paddingTrainable (learned padding rows) is not supported")
    if a["contextLength"] < 1:
        raise OpError(f"op '{op}': contextLength must be positive, got {a['contextLength']}")


def _infer(ins, a):
    x, w = ins["X"][0], ins["Filter"][0]
    _check_attrs("sequence_conv", a)
    if len(x.shape) != 2 or len(w.shape) != 2:
        raise ShapeError(f"op 'sequence_conv': X {list(x.shape)} and Filter {list(w.shape)} "
                         f"must be 2-D")
    if x.shape[1] != -1 and w.shape[0] != a["contextLength"] * x.shape[1]:
        raise ShapeError(f"op 'sequence_conv': Filter {list(w.shape)} must have contextLength "
                         f"* D = {a['contextLength']} * {x.shape[1]} rows")
    if _known(a):
        _check_rows("sequence_conv", "X", _need("sequence_conv", a, "X"), x.shape[0])
    return {"Out": [VarInfo((x.shape[0], w.shape[1]), x.dtype, x.lod_level)]}


@functools.lru_cache(maxsize=512)
def _context(offsets: tuple, start: int, length: int) -> tuple[np.ndarray, np.ndarray]:
    """(source row of each [row, window position], whether it lies inside the row's sequence)."""
    rows = offsets[-1]
    seq_start = np.repeat(np.asarray(offsets[:-1]), np.diff(offsets))
    seq_end = np.repeat(np.asarray(offsets[1:]), np.diff(offsets))
    src = np.arange(rows)[:, None] + start + np.arange(length)[None, :]
    inside = (src >= seq_start[:, None]) & (src < seq_end[:, None])
    return np.where(inside, src, 0).astype(np.int64), inside


def _columns(x, a, xp):
    """The [T, contextLength * D] matrix of context windows (im2col along the sequence)."""
    offs = _need("sequence_conv", a, "X")[-1]
    src, inside = _context(offs, int(a["contextStart"]), int(a["contextLength"]))
    if xp is torch:
        src, inside = torch.as_tensor(src), torch.as_tensor(inside)
    cols = x[src] * inside[:, :, None]
    return cols.reshape(x.shape[0], -1), src, inside


def _ref(ins, a):
    x, w = np.asarray(ins["X"][0]), np.asarray(ins["Filter"][0])
    cols, _, _ = _columns(x, a, np)
    return {"Out": [(cols @ w).astype(x.dtype)]}


def _run(ins, outs, a, rng):
    cols, _, _ = _columns(ins["X"][0], a, torch)
    torch.matmul(cols, ins["Filter"][0], out=outs["Out"][0])


def _grad(op: OpDesc) -> list[OpDesc]:
    return input_grad_op(op, "X", "Filter")


def _grad_infer(ins, a):
    return {"X@GRAD": [ins["X"][0]], "Filter@GRAD": [ins["Filter"][0]]}


def _grad_ref(ins, a):
    x, w = np.asarray(ins["X"][0]), np.asarray(ins["Filter"][0])
    d = np.asarray(ins["Out@GRAD"][0])
    cols, src, inside = _columns(x, a, np)
    dcols = (d @ w.T).reshape(x.shape[0], -1, x.shape[1]) * inside[:, :, None]
    dx = np.zeros_like(x)
    np.add.at(dx, src.reshape(-1), dcols.reshape(-1, x.shape[1]))
    return {"X@GRAD": [dx], "Filter@GRAD": [(cols.T @ d).astype(w.dtype)]}


def _grad_run(ins, outs, a, rng):
    x, w, d = ins["X"][0], ins["Filter"][0], ins["Out@GRAD"][0]
    cols, src, inside = _columns(x, a, torch)
    if outs.get("Filter@GRAD"):
        torch.matmul(cols.T, d, out=outs["Filter@GRAD"][0])
    if outs.get("X@GRAD"):
        dcols = (d @ w.T).reshape(x.shape[0], -1, x.shape[1]) * inside[:, :, None]
        outs["X@GRAD"][0].zero_().index_add_(0, src.reshape(-1), dcols.reshape(-1, x.shape[1]))


register(OpDef("sequence_conv", slots("X", "PaddingData?", "Filter"), slots("Out"),
               SEQ_CONV_ATTRS, _infer, "extern", reference=_ref, grad=_grad, run=_run,
               lod=_keep_x_lod("Out")))
register(OpDef("sequence_conv_grad", slots("X", "Filter", "Out@GRAD"),
               slots("X@GRAD?", "Filter@GRAD?"), SEQ_CONV_ATTRS, _grad_infer, "extern",
               reference=_grad_ref, run=_grad_run, lod=_keep_x_lod("X@GRAD")))
