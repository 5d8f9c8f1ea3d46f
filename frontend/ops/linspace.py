"""linspace (paddle.linspace): Num evenly spaced values from Start to Stop (one value each), of
the `dtype` attribute, as Paddle 3.3.1's CPU kernel computes them: Start and Stop cast to dtype
first, the step (Stop - Start) / (Num - 1), the first half Start + step * i and the second half
Stop - step * (Num - 1 - i), in the dtype for floats, in double cast back (truncated) for ints.
Num is a shape input, folded into the internal `num` attribute before shape inference
(passes/shape_inputs.py)."""
from __future__ import annotations

import numpy as np

from ..dtypes import VarType, convert_dtype, to_numpy_dtype
from ..errors import OpError, ShapeError
from .registry import OpDef, VarInfo, register, slots

ATTRS = {"dtype": int(VarType.FP32), "num": -1}
DTYPES = (VarType.FP32, VarType.FP64, VarType.INT32, VarType.INT64)


def _one(name: str, value) -> np.ndarray:
    v = np.asarray(value).reshape(-1)
    if v.size != 1:
        raise ShapeError(f"op 'linspace': {name} must hold one value, got {v.size}")
    return v


def _fold(a, values):
    num = int(_one("Num", values["Num"][0])[0])
    if num < 0:
        raise OpError(f"op 'linspace': Num must be >= 0, got {num}")
    return {**a, "num": num}


def _dtype(a) -> VarType:
    dt = convert_dtype(a["dtype"])
    if dt not in DTYPES:
        raise OpError(f"op 'linspace': dtype must be one of "
                      f"{[d.name.lower() for d in DTYPES]}, got {dt.name.lower()}")
    return dt


def _infer(ins, a):
    return {"Out": [VarInfo((-1 if ins.get("Num") else int(a["num"]),), _dtype(a))]}


def _values(start, stop, num: int, dtype) -> np.ndarray:
    t = np.dtype(dtype)
    start, stop = _one("Start", start).astype(t)[0], _one("Stop", stop).astype(t)[0]
    if num <= 1:
        return np.full(num, start, t)
    # float dtypes: the step and the values in the dtype; ints: in double, then truncated
    # toward zero by the cast (what Paddle 3.3.1's kernel computes, checked against it)
    w = t if t.kind == "f" else np.dtype(np.float64)
    with np.errstate(over="ignore"):
        step = (stop.astype(w) - start.astype(w)) / w.type(num - 1)
        i = np.arange(num, dtype=w)
        out = np.where(i < num // 2, start.astype(w) + step * i,
                       stop.astype(w) - step * (w.type(num - 1) - i))
    return out.astype(t)


def _reference(ins, a):
    if ins.get("Num"):
        a = _fold(a, ins)
    return {"Out": [_values(ins["Start"][0], ins["Stop"][0], int(a["num"]),
                            to_numpy_dtype(_dtype(a)))]}


def _run(ins, outs, a, rng):
    out = outs["Out"][0]
    values = _values(ins["Start"][0].cpu().numpy(), ins["Stop"][0].cpu().numpy(),
                     out.shape[0], to_numpy_dtype(_dtype(a)))
    out.copy_(out.new_tensor(values))


register(OpDef("linspace", slots("Start", "Stop", "Num?"), slots("Out"), ATTRS, _infer, "extern",
               reference=_reference, run=_run, shape_inputs=("Num",), fold=_fold))
