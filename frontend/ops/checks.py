"""check_index: the run-time check that the indices an op reads lie in its range (inserted by
passes/index_checks.py before the first reader, never in a Program). The test is two reductions
over the index tensor (its min and max); only a tensor outside the range, or holding the allowed
ignore/padding value, is searched for the offending value."""
from __future__ import annotations

import numpy as np
from fluidc.frontend.lazy_import import torch

from ..errors import IndexRangeError
from .registry import IndexBound, OpDef, register, slots

NO_UPPER = 2 ** 63 - 1
CHECK_ATTRS = {"op": "", "slot": "", "var": "", "lower": 0, "upper": NO_UPPER,
               "has_allowed": False, "allowed": 0}


def check_attrs(op_type: str, slot: str, var: str, bound: IndexBound) -> dict:
    """The attributes of the check_index op for one index input."""
    return {"op": op_type, "slot": slot, "var": var, "lower": bound.lower,
            "upper": NO_UPPER if bound.upper is None else bound.upper,
            "has_allowed": bound.allowed is not None,
            "allowed": 0 if bound.allowed is None else bound.allowed}


def check_index_values(x: torch.Tensor, a: dict) -> None:
    """Raise an IndexRangeError naming the op, slot, var and first bad value, if any."""
    if x.numel() == 0:
        return
    lo, hi = torch.aminmax(x.reshape(-1))
    if a["lower"] <= lo.item() and hi.item() < a["upper"]:
        return
    bad = (x < a["lower"]) | (x >= a["upper"])
    if a["has_allowed"]:
        bad &= x != a["allowed"]
    if not bool(bad.any()):
        return
    where = int(bad.reshape(-1).nonzero()[0, 0])
    value = int(x.reshape(-1)[where])
    rng = f">= {a['lower']}" if a["upper"] == NO_UPPER else f"in [{a['lower']}, {a['upper']})"
    also = f" (or {a['allowed']}, the ignored value)" if a["has_allowed"] else ""
    raise IndexRangeError(f"op '{a['op']}': input '{a['slot']}' (var '{a['var']}') holds "
                          f"{value} at flat position {where}; its values must be {rng}{also}")


def _run(ins, outs, a, rng):
    check_index_values(ins["X"][0], a)


def _reference(ins, a):
    check_index_values(torch.from_numpy(np.ascontiguousarray(ins["X"][0])), a)
    return {}


register(OpDef("check_index", slots("X"), (), CHECK_ATTRS, lambda ins, a: {}, "extern",
               reference=_reference, run=_run))
