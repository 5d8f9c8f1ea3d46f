"""spectral_norm (paddle.static.nn.spectral_norm, nn.SpectralNorm): Out = Weight / sigma, sigma
estimated by power iteration on Weight viewed as a matrix W [h, w] (dim `dim` first, the other
dims flattened): power_iters times v = W^T u / (|W^T u| + eps), u = W v / (|W v| + eps), from
copies of U [h] and V [w] (Paddle does not update them); sigma = u . W v. spectral_norm_grad is
Paddle's rule: dW = dOut * (1 - u v^T * sum(W / sigma)) / sigma, in W's matrix view. Weight
has rank 2 to 5 and dim is 0 or 1, as Paddle's kernels require."""
from __future__ import annotations

import numpy as np
from fluidc.frontend.lazy_import import torch

from ..errors import OpError, ShapeError
from .conv import _bound
from .registry import OpDef, OpDesc, VarInfo, grad_name, register, slots

SPECTRAL_NORM_ATTRS = {"dim": 0, "power_iters": 1, "eps": 1e-12}


def _infer(ins, a):
    w, u, v = (ins[s][0] for s in ("Weight", "U", "V"))
    if not 2 <= len(w.shape) <= 5:
        raise ShapeError(f"op 'spectral_norm': Weight must have rank 2 to 5, got {list(w.shape)}")
    if a["dim"] not in (0, 1):
        raise OpError(f"op 'spectral_norm': dim must be 0 or 1, got {a['dim']}")
    if a["power_iters"] < 0:
        raise OpError(f"op 'spectral_norm': power_iters must be >= 0, got {a['power_iters']}")
    h = w.shape[a["dim"]]
    rest = [d for i, d in enumerate(w.shape) if i != a["dim"]]
    width = -1 if -1 in rest else int(np.prod(rest))
    for name, info, want in (("U", u, h), ("V", v, width)):
        if want != -1 and tuple(info.shape) not in ((want,), (-1,)):
            raise ShapeError(f"op 'spectral_norm': {name} must be [{want}] for Weight "
                             f"{list(w.shape)} with dim {a['dim']}, got {list(info.shape)}")
    return {"Out": [VarInfo(w.shape, w.dtype, w.lod_level)]}


def _matrix(x, dim: int, move):
    """x as [h, w] with `dim` first (move: np.moveaxis or torch.movedim)."""
    x = move(x, dim, 0)
    return x.reshape(x.shape[0], -1)


def _unmatrix(m, shape, dim: int, move):
    """The inverse of _matrix to an array of `shape`."""
    moved = [shape[dim]] + [d for i, d in enumerate(shape) if i != dim]
    return move(m.reshape(moved), 0, dim)


def _sigma(w, u, v, a, norm):
    """(sigma, u, v) after the power iterations on matrix w (numpy or torch by `norm`)."""
    for _ in range(a["power_iters"]):
        v = w.T @ u
        v = v / (norm(v) + a["eps"])
        u = w @ v
        u = u / (norm(u) + a["eps"])
    return (u * (w @ v)).sum(), u, v


def _reference(ins, a):
    w, u, v = (np.asarray(ins[s][0]) for s in ("Weight", "U", "V"))
    m = _matrix(w, a["dim"], np.moveaxis)
    sigma, _, _ = _sigma(m, u, v, a, np.linalg.norm)
    return {"Out": [(w / sigma).astype(w.dtype)]}


def _run(ins, outs, a, rng):
    w, u, v = (ins[s][0] for s in ("Weight", "U", "V"))
    sigma, _, _ = _sigma(_matrix(w, a["dim"], torch.movedim), u, v, a, torch.linalg.vector_norm)
    torch.div(w, sigma, out=outs["Out"][0])


def _grad(op: OpDesc) -> list[OpDesc]:
    return [OpDesc("spectral_norm_grad", {"Weight": op.input("Weight"), "U": op.input("U"),
                                          "V": op.input("V"),
                                          "Out@GRAD": [grad_name(op.output("Out")[0])]},
                   {"Weight@GRAD": [grad_name(op.input("Weight")[0])]}, dict(op.attrs))]


def _weight_grad(w, u, v, d, a, move, norm, outer):
    """Paddle's dWeight (numpy or torch by move / norm / outer)."""
    m = _matrix(w, a["dim"], move)
    sigma, u, v = _sigma(m, u, v, a, norm)
    dm = _matrix(d, a["dim"], move)
    return _unmatrix(dm * (1 - outer(u, v) * (m / sigma).sum()) / sigma, w.shape, a["dim"], move)


def _grad_reference(ins, a):
    w, u, v, d = (np.asarray(ins[s][0]) for s in ("Weight", "U", "V", "Out@GRAD"))
    dw = _weight_grad(w, u, v, d, a, np.moveaxis, np.linalg.norm, np.outer)
    return {"Weight@GRAD": [dw.astype(w.dtype)]}


def _grad_run(ins, outs, a, rng):
    dw = _bound(outs, "Weight@GRAD")
    if dw is None:
        return
    w, u, v, d = (ins[s][0] for s in ("Weight", "U", "V", "Out@GRAD"))
    dw.copy_(_weight_grad(w, u, v, d, a, torch.movedim, torch.linalg.vector_norm, torch.outer))


register(OpDef("spectral_norm", slots("Weight", "U", "V"), slots("Out"), SPECTRAL_NORM_ATTRS,
               _infer, "extern", reference=_reference, grad=_grad, run=_run))
register(OpDef("spectral_norm_grad", slots("Weight", "U", "V", "Out@GRAD"),
               slots("Weight@GRAD?"), SPECTRAL_NORM_ATTRS,
               lambda ins, a: {"Weight@GRAD": [ins["Weight"][0]]}, "extern",
               reference=_grad_reference, run=_grad_run))
