"""range (paddle.arange, fluid.layers.range): the values Start, Start + Step, ... short of End
(one value each, all of Out's dtype), as Paddle's CPU kernel makes them: the count is
ceil(|End - Start| / |Step|) (0 when Step points away from End), and each value is the previous
one plus Step, accumulated in the dtype (so float32 values drift as Paddle's do). No grad
(Paddle's range has none: arange's output is a constant). Start / End / Step are shape inputs
(Out's length is their function), folded into the internal `start` / `end` / `step` / `dtype`
attributes before shape inference (passes/shape_inputs.py)."""
from __future__ import annotations

import math

import numpy as np

from ..dtypes import convert_dtype, to_numpy_dtype
from ..errors import OpError, ShapeError
from .registry import OpDef, VarInfo, register, slots

BOUNDS = ("Start", "End", "Step")
ATTRS = {"start": 0, "end": 0, "step": 1, "dtype": -1}  # internal: the folded bounds


def _one(name: str, value) -> np.ndarray:
    v = np.asarray(value).reshape(-1)
    if v.size != 1:
        raise ShapeError(f"op 'range': {name} must hold one value, got {v.size}")
    return v[0]


def count(start, end, step) -> int:
    """How many values Paddle's range makes from start to end by step."""
    if step == 0:
        raise OpError("op 'range': Step must not be 0")
    if (start < end and step < 0) or (start > end and step > 0):
        return 0
    if isinstance(start, (int, np.integer)):
        return int((abs(int(end) - int(start)) + abs(int(step)) - 1) // abs(int(step)))
    return int(math.ceil(abs((end - start) / step)))


def _fold(a, ins):
    got = [_one(n, ins[n][0]) for n in BOUNDS]
    dtypes = {v.dtype for v in got}
    if len(dtypes) != 1:
        raise OpError(f"op 'range': Start, End and Step must share a dtype, got "
                      f"{sorted(map(str, dtypes))}")
    return {**a, **{n.lower(): v.item() for n, v in zip(BOUNDS, got)},
            "dtype": int(convert_dtype(got[0].dtype))}


def values(a) -> np.ndarray:
    """Out of the folded op."""
    dtype = to_numpy_dtype(a["dtype"])
    start, end, step = (np.asarray(a[n], dtype)[()] for n in ("start", "end", "step"))
    n = count(start, end, step)
    terms = np.full(n, step, dtype)
    if n:
        terms[0] = start
    return np.add.accumulate(terms, dtype=dtype)  # sequential: the kernel's value += step


def _infer(ins, a):
    if not ins.get("Start"):  # folded
        return {"Out": [VarInfo((len(values(a)),), convert_dtype(a["dtype"]))]}
    dtypes = {ins[n][0].dtype for n in BOUNDS}
    if len(dtypes) != 1:
        raise ShapeError(f"op 'range': Start, End and Step must share a dtype, got "
                         f"{sorted(d.name.lower() for d in dtypes)}")
    return {"Out": [VarInfo((-1,), ins["Start"][0].dtype)]}


def _reference(ins, a):
    return {"Out": [values(_fold(a, ins) if ins.get("Start") else a)]}


def _run(ins, outs, a, rng):
    out = outs["Out"][0]
    out.copy_(out.new_tensor(values(a)))


register(OpDef("range", slots(*BOUNDS), slots("Out"), ATTRS, _infer, "extern",
               reference=_reference, run=_run, shape_inputs=BOUNDS, fold=_fold))
