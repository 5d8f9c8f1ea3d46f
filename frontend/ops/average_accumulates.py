"""average_accumulates: ModelAverage's sums of a parameter over a sliding window of steps.

Paddle's kernel, with its accumulators updated in place (ModelAverage binds each in_X and
out_X to one var, so the later sums read the earlier ones' results, as its documentation
writes it):
    num_updates += 1; num_accumulates += 1; sum_1 += param
    if num_updates % 16384 == 0: sum_2 += sum_1; sum_1 = 0     (precision: a second buffer)
    if num_accumulates >= min_average_window and
       num_accumulates >= min(max_average_window, int64(float32(num_updates) * average_window)):
        sum_3 = sum_1 + sum_2; sum_1 = sum_2 = 0
        old_num_accumulates = num_accumulates; num_accumulates = 0
The window bound is C's: the update count times the float32 rate in float32, truncated. The
three counters are int64 [1] tensors read on the host; the sums are tensor additions (an
extern: no kernel to fuse into, one step of bookkeeping per parameter and run). No grad.
"""
from __future__ import annotations

import numpy as np
from fluidc.frontend.lazy_import import torch

from ..dtypes import VarType
from ..errors import OpError
from .registry import OpDef, VarInfo, register, slots

MAX_NUM_ACCUMULATES = 16384  # Paddle's kMaxNumAccumulates
SUMS = ("sum_1", "sum_2", "sum_3")
COUNTERS = ("num_accumulates", "old_num_accumulates", "num_updates")


def _check_windows(attrs) -> None:
    if attrs["min_average_window"] > attrs["max_average_window"]:
        raise OpError(f"op 'average_accumulates': The min_average_window > max_average_window "
                      f"is not right, min_average_window is {attrs['min_average_window']}, "
                      f"max_average_window is {attrs['max_average_window']}.")


def _infer(ins, attrs):
    _check_windows(attrs)
    param = ins["param"][0]
    for s in SUMS:
        if tuple(ins[f"in_{s}"][0].shape) != tuple(param.shape):
            raise OpError(f"op 'average_accumulates': in_{s} has shape "
                          f"{list(ins[f'in_{s}'][0].shape)}, param {list(param.shape)}")
    return {**{f"out_{s}": [VarInfo(param.shape, param.dtype)] for s in SUMS},
            **{f"out_{c}": [VarInfo((1,), VarType.INT64)] for c in COUNTERS}}


def _step(counts: dict[str, int], attrs) -> tuple[dict[str, int], bool, bool]:
    """The new counters, whether sum_1 moves into sum_2, and whether the window restarts."""
    _check_windows(attrs)
    updates, accumulates = counts["num_updates"] + 1, counts["num_accumulates"] + 1
    spill = updates % MAX_NUM_ACCUMULATES == 0
    bound = int(np.float32(updates) * np.float32(attrs["average_window"]))
    restart = accumulates >= attrs["min_average_window"] and \
        accumulates >= min(int(attrs["max_average_window"]), bound)
    old = accumulates if restart else counts["old_num_accumulates"]
    return ({"num_updates": updates, "num_accumulates": 0 if restart else accumulates,
             "old_num_accumulates": old}, spill, restart)


def _sums(param, s1, s2, s3, spill: bool, restart: bool, zeros):
    s1 = s1 + param
    if spill:
        s2, s1 = s2 + s1, zeros(s1)
    if restart:
        s3, s1, s2 = s1 + s2, zeros(s1), zeros(s2)
    return s1, s2, s3


def _reference(ins, attrs):
    counts = {c: int(np.asarray(ins[f"in_{c}"][0]).reshape(-1)[0]) for c in COUNTERS}
    counts, spill, restart = _step(counts, attrs)
    sums = _sums(*(np.asarray(ins[k][0]) for k in ("param", "in_sum_1", "in_sum_2", "in_sum_3")),
                 spill, restart, np.zeros_like)
    return {**{f"out_{s}": [v] for s, v in zip(SUMS, sums)},
            **{f"out_{c}": [np.array([v], np.int64)] for c, v in counts.items()}}


def _run(ins, outs, attrs, rng):
    counts = {c: int(ins[f"in_{c}"][0].reshape(-1)[0]) for c in COUNTERS}
    counts, spill, restart = _step(counts, attrs)
    # every new value is computed before any is stored: outs may be the ins' own buffers
    sums = _sums(*(ins[k][0] for k in ("param", "in_sum_1", "in_sum_2", "in_sum_3")),
                 spill, restart, torch.zeros_like)
    for s, v in zip(SUMS, sums):
        outs[f"out_{s}"][0].copy_(v)
    for c, v in counts.items():
        outs[f"out_{c}"][0].fill_(v)


register(OpDef("average_accumulates",
               slots("param", *(f"in_{s}" for s in SUMS), *(f"in_{c}" for c in COUNTERS)),
               slots(*(f"out_{s}" for s in SUMS), *(f"out_{c}" for c in COUNTERS)),
               {"average_window": 0.0, "max_average_window": 9223372036854775807,
                "min_average_window": 10000},
               _infer, "extern", reference=_reference, run=_run))
