"""pad3d (nn.Pad1D / 2D / 3D, F.pad over the spatial dims, which Paddle appends as unsqueeze2
+ pad3d + squeeze2 for 3-D and 4-D input): X [N, C, D, H, W] (NCDHW, or NDHWC) padded by
paddings [left, right, top, bottom, front, back] in mode constant (value), reflect, replicate
or circular; the paddings may come from a Paddings tensor (6 values), a shape input folded
into the attribute before a run (passes/shape_inputs.py). Its grad sums each dOut cell into
the X cell it was copied from (zero for constant padding): one index map per shape, the numpy
pad of X's positions in the same mode."""
from __future__ import annotations

import functools

import numpy as np
from fluidc.frontend.lazy_import import torch

from ..errors import OpError, ShapeError
from .registry import OpDef, OpDesc, VarInfo, grad_name, register, slots

ATTRS = {"paddings": [0, 0, 0, 0, 0, 0], "mode": "constant", "value": 0.0,
         "data_format": "NCDHW"}
_NP_MODE = {"constant": "constant", "reflect": "reflect", "replicate": "edge",
            "circular": "wrap"}


def _layout(a) -> bool:
    """Whether the data is NCDHW (else NDHWC); refuses other formats and modes."""
    if a["data_format"] not in ("NCDHW", "NDHWC"):
        raise OpError(f"op 'pad3d': data_format must be 'NCDHW' or 'NDHWC', got "
                      f"{a['data_format']!r}")
    if a["mode"] not in _NP_MODE:
        raise OpError(f"op 'pad3d': mode must be one of {sorted(_NP_MODE)}, got {a['mode']!r}")
    return a["data_format"] == "NCDHW"


def _spatial_pads(a) -> list[tuple[int, int]]:
    """(before, after) for D, H, W."""
    p = list(a["paddings"])
    if len(p) != 6:
        raise OpError(f"op 'pad3d': paddings must hold 6 ints, got {p}")
    return [(p[4], p[5]), (p[2], p[3]), (p[0], p[1])]


def _spatial_axes(a) -> tuple[int, int, int]:
    return (2, 3, 4) if _layout(a) else (1, 2, 3)


def _out_shape(shape, a) -> tuple:
    if len(shape) != 5:
        raise ShapeError(f"op 'pad3d': X must be 5-D, got shape {list(shape)}")
    out = list(shape)
    for ax, (lo, hi) in zip(_spatial_axes(a), _spatial_pads(a)):
        if min(lo, hi) < 0:
            raise OpError(f"op 'pad3d': paddings must be non-negative, got {a['paddings']}")
        if a["mode"] == "reflect" and shape[ax] >= 0 and max(lo, hi) >= shape[ax]:
            raise ShapeError(f"op 'pad3d': reflect padding {max(lo, hi)} must be smaller than "
                             f"the padded dim {shape[ax]} (X shape {list(shape)})")
        if a["mode"] in ("circular", "replicate") and shape[ax] == 0 and max(lo, hi) > 0:
            raise ShapeError(f"op 'pad3d': {a['mode']} padding of an empty dim (X shape "
                             f"{list(shape)})")
        out[ax] = shape[ax] + lo + hi if shape[ax] >= 0 else -1
    return tuple(out)


def _fold(a, values):
    """paddings from the Paddings tensor (6 values), as Paddle prefers it to the attribute."""
    return {**a, "paddings": [int(v) for v in np.asarray(values["Paddings"][0]).reshape(-1)]}


def _infer(ins, a):
    x = ins["X"][0]
    if ins.get("Paddings"):  # read when the program runs: the padded dims are unknown until then
        shape = list(x.shape)
        for ax in _spatial_axes(a):
            shape[ax] = -1
        return {"Out": [VarInfo(tuple(shape), x.dtype, x.lod_level)]}
    return {"Out": [VarInfo(_out_shape(x.shape, a), x.dtype, x.lod_level)]}


def _np_pads(ndim, a):
    pads = [(0, 0)] * ndim
    for ax, p in zip(_spatial_axes(a), _spatial_pads(a)):
        pads[ax] = p
    return pads


@functools.lru_cache(maxsize=256)
def _sources(shape: tuple, mode: str, paddings: tuple, data_format: str) -> np.ndarray:
    """For each Out cell (flat), the flat X cell it copies, -1 for constant padding."""
    a = {"mode": mode, "paddings": list(paddings), "data_format": data_format, "value": 0.0}
    pos = np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape)
    kw = {"constant_values": -1} if mode == "constant" else {}
    return np.pad(pos, _np_pads(len(shape), a), mode=_NP_MODE[mode], **kw).reshape(-1)


def _folded(ins, a) -> dict:
    """a with the Paddings tensor folded in, as the pipeline folds it (the reference executor
    runs programs unfolded)."""
    return _fold(a, ins) if ins.get("Paddings") else a


def _reference(ins, a):
    x = np.asarray(ins["X"][0])
    a = _folded(ins, a)
    _out_shape(x.shape, a)
    kw = {"constant_values": x.dtype.type(a["value"])} if a["mode"] == "constant" else {}
    return {"Out": [np.pad(x, _np_pads(x.ndim, a), mode=_NP_MODE[a["mode"]], **kw)]}


def _run(ins, outs, a, rng):
    x = ins["X"][0]
    if a["mode"] == "circular" and any(max(p) > x.shape[ax] for ax, p in
                                       zip(_spatial_axes(a), _spatial_pads(a))):
        # wrapping more than once around a dim (np.pad's wrap, Paddle's kernel): torch's
        # circular pad takes at most one wrap, so gather by the index map
        src = torch.from_numpy(_sources(tuple(x.shape), "circular", tuple(a["paddings"]),
                                        a["data_format"])).to(x.device)
        outs["Out"][0].copy_(x.reshape(-1)[src].reshape(outs["Out"][0].shape))
        return
    pads = [p for pair in reversed(_spatial_pads(a)) for p in pair]  # W, H, D for torch
    if not _layout(a):
        x = x.permute(0, 4, 1, 2, 3)
    y = torch.nn.functional.pad(x, pads, mode=a["mode"],
                                value=a["value"] if a["mode"] == "constant" else None)
    outs["Out"][0].copy_(y if _layout(a) else y.permute(0, 2, 3, 4, 1))


def _grad(op: OpDesc) -> list[OpDesc]:
    paddings = {"Paddings": op.input("Paddings")} if op.inputs.get("Paddings") else {}
    return [OpDesc("pad3d_grad", {"X": op.input("X"), **paddings,
                                  "Out@GRAD": [grad_name(op.output("Out")[0])]},
                   {"X@GRAD": [grad_name(op.input("X")[0])]}, dict(op.attrs))]


def _grad_sources(shape, a) -> np.ndarray:
    _out_shape(shape, a)
    return _sources(tuple(shape), a["mode"], tuple(a["paddings"]), a["data_format"])


def _grad_reference(ins, a):
    x, d = np.asarray(ins["X"][0]), np.asarray(ins["Out@GRAD"][0])
    a = _folded(ins, a)
    src = _grad_sources(x.shape, a)
    keep = src >= 0
    dx = np.zeros(x.size, d.dtype)
    np.add.at(dx, src[keep], d.reshape(-1)[keep])
    return {"X@GRAD": [dx.reshape(x.shape)]}


def _grad_run(ins, outs, a, rng):
    x, d, dx = ins["X"][0], ins["Out@GRAD"][0], outs["X@GRAD"][0]
    src = torch.from_numpy(_grad_sources(tuple(x.shape), a)).to(d.device)
    keep = src >= 0
    flat = torch.zeros(x.numel(), dtype=d.dtype, device=d.device)
    flat.index_add_(0, src[keep], d.reshape(-1)[keep])
    dx.copy_(flat.reshape(dx.shape))


register(OpDef("pad3d", slots("X", "Paddings?"), slots("Out"), ATTRS, _infer, "extern",
               reference=_reference, grad=_grad, run=_run, shape_inputs=("Paddings",),
               fold=_fold))
register(OpDef("pad3d_grad", slots("X", "Paddings?", "Out@GRAD"), slots("X@GRAD"), ATTRS,
               lambda ins, a: {"X@GRAD": [VarInfo(ins["X"][0].shape, ins["Out@GRAD"][0].dtype)]},
               "extern", reference=_grad_reference, run=_grad_run, shape_inputs=("Paddings",),
               fold=_fold))
