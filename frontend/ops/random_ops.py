"""randperm (paddle.randperm) and the random fills shaped like a batch
(uniform_random_batch_size_like, gaussian_random_batch_size_like: `shape` with dim
output_dim_idx taken from dim input_dim_idx of Input). They draw as the other random ops do
(tensor.py's _draw: a nonzero seed attribute repeats the values on every run, else the
program's generator); Paddle's generator is not reproduced bit for bit, only the distributions.
None has a grad (Paddle gives them none: no grad reaches Input)."""
from __future__ import annotations

import numpy as np
from fluidc.frontend.lazy_import import torch

from ..dtypes import VarType, convert_dtype, to_numpy_dtype
from ..errors import OpError
from .registry import OpDef, VarInfo, register, slots
from .shape import batch_size_like_shape
from .tensor import (UNIFORM_DIAGONAL, _draw, _gaussian_ref, _gaussian_run, _np_rng, _uniform_ref,
                     _uniform_run)

RANDPERM_DTYPES = (VarType.INT32, VarType.INT64, VarType.FP16, VarType.FP32, VarType.FP64)


def _randperm_infer(ins, a):
    if int(a["n"]) < 1:
        raise OpError(f"op 'randperm': n must be >= 1, got {a['n']}")
    dtype = convert_dtype(a["dtype"])
    if dtype not in RANDPERM_DTYPES:
        raise OpError(f"op 'randperm': dtype must be one of "
                      f"{[d.name.lower() for d in RANDPERM_DTYPES]}, got {dtype.name.lower()}")
    return {"Out": [VarInfo((int(a["n"]),), dtype)]}


def _randperm_run(ins, outs, a, rng):
    _draw(outs["Out"][0], a, rng,
          lambda t, g: t.copy_(torch.randperm(int(a["n"]), generator=g, device=t.device)))


def _randperm_ref(ins, a):
    return {"Out": [_np_rng(a).permutation(int(a["n"])).astype(to_numpy_dtype(a["dtype"]))]}


# seed: older Paddle wrote it (3.3.1 draws from the global generator only)
register(OpDef("randperm", slots(), slots("Out"), {"n": 0, "dtype": int(VarType.INT64), "seed": 0},
               _randperm_infer, "extern", reference=_randperm_ref, run=_randperm_run,
               stateful=True))

_LIKE = {"shape": [], "input_dim_idx": 0, "output_dim_idx": 0, "seed": 0,
         "dtype": int(VarType.FP32)}


def _like(op: str, draw_attrs: dict, run, reference) -> None:
    def infer(ins, a):
        return {"Out": [VarInfo(batch_size_like_shape(ins["Input"][0].shape, a, op),
                                convert_dtype(a["dtype"]))]}

    def ref(ins, a):
        return reference(ins, {**a, "shape": batch_size_like_shape(np.shape(ins["Input"][0]),
                                                                   a, op)})
    register(OpDef(op, slots("Input"), slots("Out"), {**_LIKE, **draw_attrs}, infer, "extern",
                   reference=ref, run=run, stateful=True, grad=lambda _: []))


_like("uniform_random_batch_size_like",
      {"min": -1.0, "max": 1.0, **UNIFORM_DIAGONAL}, _uniform_run, _uniform_ref)
_like("gaussian_random_batch_size_like", {"mean": 0.0, "std": 1.0}, _gaussian_run, _gaussian_ref)
