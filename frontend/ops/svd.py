"""svd (paddle.linalg.svd; paddle.norm's matrix 2-norms and nuclear norms append it): X
[..., M, N] = U diag(S) VH, S [..., K] descending (K = min(M, N)); U [..., M, K] and VH
[..., K, N], or square with full_matrices. Singular vectors are unique only up to sign, so
both the run and the reference give each pair (U column, VH row) the sign that makes the U
column's largest-magnitude entry positive: the two agree, whichever LAPACK path ran. Forward
only (no svd_grad)."""
from __future__ import annotations

import numpy as np
from fluidc.frontend.lazy_import import torch

from ..dtypes import VarType
from ..errors import OpError, ShapeError
from .registry import OpDef, VarInfo, register, slots

ATTRS = {"full_matrices": False}


def _infer(ins, a):
    x = ins["X"][0]
    if x.dtype not in (VarType.FP32, VarType.FP64):
        raise OpError(f"op 'svd': X must be float32 or float64, got {x.dtype.name}")
    if len(x.shape) < 2:
        raise ShapeError(f"op 'svd': X must have rank >= 2, got shape {list(x.shape)}")
    *batch, m, n = x.shape
    k = -1 if m < 0 or n < 0 else min(m, n)
    u, v = (m, n) if a["full_matrices"] else (k, k)
    return {"U": [VarInfo((*batch, m, u), x.dtype)], "S": [VarInfo((*batch, k), x.dtype)],
            "VH": [VarInfo((*batch, v, n), x.dtype)]}


def _signs(u, lib):
    """+1 / -1 per U column: the sign of its largest-magnitude entry."""
    pick = lib.argmax(abs(u), -2) if lib is np else u.abs().argmax(-2)
    picked = (np.take_along_axis(u, pick[..., None, :], -2) if lib is np
              else u.gather(-2, pick.unsqueeze(-2)))
    return lib.where(picked < 0, -1.0, 1.0).astype(u.dtype) if lib is np else \
        torch.where(picked < 0, -1.0, 1.0).to(u.dtype)


def _canonical(u, s, vh, lib):
    k = s.shape[-1]
    sign = _signs(u[..., :k], lib)  # [..., 1, K]
    u = lib.concatenate([u[..., :k] * sign, u[..., k:]], -1) if lib is np else \
        torch.cat([u[..., :k] * sign, u[..., k:]], -1)
    flip = sign.swapaxes(-1, -2) if lib is np else sign.transpose(-1, -2)  # [..., K, 1]
    vh = lib.concatenate([vh[..., :k, :] * flip, vh[..., k:, :]], -2) if lib is np else \
        torch.cat([vh[..., :k, :] * flip, vh[..., k:, :]], -2)
    return u, s, vh


def _reference(ins, a):
    x = np.asarray(ins["X"][0])
    u, s, vh = np.linalg.svd(x, full_matrices=a["full_matrices"])
    u, s, vh = _canonical(u, s, vh, np)
    return {"U": [u.astype(x.dtype)], "S": [s.astype(x.dtype)], "VH": [vh.astype(x.dtype)]}


def _run(ins, outs, a, rng):
    x = ins["X"][0]
    u, s, vh = torch.linalg.svd(x, full_matrices=a["full_matrices"])
    u, s, vh = _canonical(u, s, vh, torch)
    for slot, value in (("U", u), ("S", s), ("VH", vh)):
        outs[slot][0].copy_(value)


register(OpDef("svd", slots("X"), slots("U", "S", "VH"), ATTRS, _infer, "extern",
               reference=_reference, run=_run))
