"""affine_grid (F.affine_grid): the sampling grid of an affine transform. For output_shape
[N, C, H, W] and Theta [N, 2, 3], Out[n, h, w] = Theta[n] @ (x_w, y_h, 1) ([N, H, W, 2]); for
[N, C, D, H, W] and Theta [N, 3, 4], Out[n, d, h, w] = Theta[n] @ (x_w, y_h, z_d, 1). The
coordinates run from -1 to 1 as Paddle's kernel makes them, in Theta's dtype: step
(1 - -1) / (count - 1) from -1 with align_corners, else step 2 / count from -(count - 1) / count.
OutputShape (an int tensor) is a shape input, folded into output_shape before shape inference
(passes/shape_inputs.py). Its grad is Theta@GRAD[n] = dOut[n]^T @ the coordinates."""
from __future__ import annotations

import numpy as np
from fluidc.frontend.lazy_import import torch

from ..errors import ShapeError
from .define import input_grad_op
from .registry import OpDef, OpDesc, VarInfo, register, slots

ATTRS = {"output_shape": [], "align_corners": True}


def _fold(a, values):
    return {**a, "output_shape": [int(v) for v in np.asarray(values["OutputShape"][0]).reshape(-1)]}


def _dims(theta_shape, a) -> tuple[int, ...]:
    """The spatial dims of the output ((H, W) or (D, H, W)), checked against Theta."""
    shape = [int(v) for v in a["output_shape"]]
    if len(shape) not in (4, 5):
        raise ShapeError(f"op 'affine_grid': output_shape must be [N, C, H, W] or "
                         f"[N, C, D, H, W], got {shape}")
    k = len(shape) - 2
    if len(theta_shape) != 3 or tuple(theta_shape[1:]) not in ((k, k + 1), (-1, -1)):
        raise ShapeError(f"op 'affine_grid': Theta must be [N, {k}, {k + 1}] for an output "
                         f"shape of {len(shape)} dims, got {list(theta_shape)}")
    if min(shape[2:]) < 1:
        raise ShapeError(f"op 'affine_grid': output dims must be positive, got {shape}")
    return tuple(shape[2:])


def _infer(ins, a):
    theta = ins["Theta"][0]
    if ins.get("OutputShape"):  # known when the program runs
        k = theta.shape[1] if len(theta.shape) == 3 and theta.shape[1] > 0 else 2
        return {"Output": [VarInfo((theta.shape[0],) + (-1,) * k + (k,), theta.dtype)]}
    dims = _dims(theta.shape, a)
    return {"Output": [VarInfo((theta.shape[0],) + dims + (len(dims),), theta.dtype)]}


def _coords(count: int, align: bool, dtype) -> np.ndarray:
    t = np.dtype(dtype).type
    with np.errstate(divide="ignore", invalid="ignore"):
        start = t(-1)
        step = (t(1) - start) / t(count - 1)
        if not align:
            step = (t(1) - start) / t(count)
            start = start * (t(count - 1) / t(count))
        return (start + np.arange(count).astype(t) * step).astype(t)


def base_grid(dims: tuple[int, ...], align: bool, dtype) -> np.ndarray:
    """[prod(dims), k + 1]: each output cell's (x, y[, z], 1), x along the last dim."""
    axes = [_coords(n, align, dtype) for n in dims]
    mesh = np.meshgrid(*axes, indexing="ij")  # mesh[i] varies along dims[i]
    cols = [m.reshape(-1) for m in reversed(mesh)] + [np.ones(int(np.prod(dims)), dtype)]
    return np.stack(cols, axis=1).astype(dtype)


def _reference(ins, a):
    if ins.get("OutputShape"):
        a = _fold(a, ins)
    theta = np.asarray(ins["Theta"][0])
    dims = _dims(theta.shape, a)
    base = base_grid(dims, a["align_corners"], theta.dtype)
    out = np.einsum("pj,nij->npi", base, theta)
    return {"Output": [out.reshape((theta.shape[0],) + dims + (len(dims),)).astype(theta.dtype)]}


def _run(ins, outs, a, rng):
    theta, out = ins["Theta"][0], outs["Output"][0]
    dims = _dims(tuple(theta.shape), a)
    base = torch.from_numpy(base_grid(dims, a["align_corners"], _np_dtype(theta)))
    grid = torch.matmul(base.to(theta.device), theta.transpose(1, 2))
    out.copy_(grid.reshape(out.shape))


def _np_dtype(t) -> type:
    return np.float64 if t.dtype == torch.float64 else np.float32


def _grad(op: OpDesc) -> list[OpDesc]:
    return input_grad_op(op, "Theta", out="Output")


def _grad_reference(ins, a):
    theta, d = np.asarray(ins["Theta"][0]), np.asarray(ins["Output@GRAD"][0])
    dims = _dims(theta.shape, a)
    base = base_grid(dims, a["align_corners"], d.dtype)
    g = d.reshape(d.shape[0], -1, len(dims))
    return {"Theta@GRAD": [np.einsum("npi,pj->nij", g, base).astype(d.dtype)]}


def _grad_run(ins, outs, a, rng):
    theta, d = ins["Theta"][0], ins["Output@GRAD"][0]
    dims = _dims(tuple(theta.shape), a)
    base = torch.from_numpy(base_grid(dims, a["align_corners"], _np_dtype(d))).to(d.device)
    g = d.reshape(d.shape[0], -1, len(dims))
    outs["Theta@GRAD"][0].copy_(torch.matmul(g.transpose(1, 2), base))


register(OpDef("affine_grid", slots("Theta", "OutputShape?"), slots("Output"), ATTRS, _infer,
               "extern", reference=_reference, grad=_grad, run=_run,
               shape_inputs=("OutputShape",), fold=_fold))
register(OpDef("affine_grid_grad", slots("Theta", "Output@GRAD"), slots("Theta@GRAD?"), ATTRS,
               lambda ins, a: {"Theta@GRAD": [VarInfo(ins["Theta"][0].shape,
                                                      ins["Output@GRAD"][0].dtype)]},
               "extern", reference=_grad_reference, run=_grad_run))
