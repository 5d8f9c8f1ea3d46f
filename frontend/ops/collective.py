"""Gradient all-reduce of data-parallel training: c_allreduce_sum and c_sync_comm_stream.

Paddle's ops, with one extension: c_allreduce_sum's X and Out are duplicable, so one op sums a
whole bucket of gradients as one flat buffer (Paddle coalesces a bucket into one var first).
c_allreduce_sum (Out is X, in place, as Paddle writes it) copies its inputs into a buffer and
*starts* the sum, so backward ops after it run while it travels; c_sync_comm_stream (X and Out
the reduced grads, before the optimizer ops) waits for every sum its run started and writes
them, and is what the optimizer ops depend on. With use_calc_stream (Paddle's synchronous
form, which has no sync op after it) c_allreduce_sum finishes its sum itself. Who the sum runs
over is the thread's communicator (fluidc.distributed.comm): a runner's places and trainers,
else the process group.
"""
from __future__ import annotations

import numpy as np
from fluidc.frontend.lazy_import import torch

from ..dtypes import dtype_name
from ..errors import OpError
from .registry import OpDef, VarInfo, register, slots

COMM_ATTRS = {"ring_id": 0, "use_calc_stream": False, "use_model_parallel": False}


def _comm():
    from ...distributed import comm  # the runtime side; frontend defines, distributed runs
    return comm.current()


def _one_bucket(ins: dict[str, list[VarInfo]], attrs: dict) -> dict[str, list[VarInfo]]:
    """Out is X; a bucket travels as one buffer, so its vars share one dtype."""
    dtypes = {x.dtype for x in ins["X"]}
    if len(dtypes) > 1:
        raise OpError(f"a bucket's vars must share one dtype, got "
                      f"{sorted(dtype_name(d) for d in dtypes)}")
    return {"Out": list(ins["X"])}


def _same_vars(ins: dict[str, list[VarInfo]], attrs: dict) -> dict[str, list[VarInfo]]:
    return {"Out": list(ins["X"])}


def _allreduce_run(ins, outs, attrs, rng) -> None:
    xs = ins["X"]
    flat = torch.cat([x.reshape(-1) for x in xs])
    targets = outs["Out"]

    def finish(total: torch.Tensor) -> None:
        offset = 0
        for out in targets:
            n = out.numel()
            out.copy_(total[offset:offset + n].view(out.shape))
            offset += n

    what = f"a bucket of {len(xs)} grads ({flat.numel() * flat.element_size()} bytes)"
    comm = _comm()
    comm.start(flat, finish, what)
    if attrs["use_calc_stream"]:  # Paddle's synchronous form: done when the op is
        comm.sync()


def _allreduce_reference(ins, attrs):
    outs = {"Out": [np.empty_like(np.asarray(x)) for x in ins["X"]]}
    _allreduce_run({"X": [torch.from_numpy(np.ascontiguousarray(x)) for x in ins["X"]]},
                   {"Out": [torch.from_numpy(o) for o in outs["Out"]]}, attrs, None)
    _comm().sync()
    return outs


def _sync_run(ins, outs, attrs, rng) -> None:
    _comm().sync()
    for x, out in zip(ins["X"], outs["Out"]):
        if out is not None and out.data_ptr() != x.data_ptr():
            out.copy_(x)


def _sync_reference(ins, attrs):
    _comm().sync()
    return {"Out": [np.array(x, copy=True) for x in ins["X"]]}


register(OpDef("c_allreduce_sum", slots("X*"), slots("Out*"), dict(COMM_ATTRS), _one_bucket,
               "extern", reference=_allreduce_reference, run=_allreduce_run, side_effect=True))
register(OpDef("c_sync_comm_stream", slots("X*"), slots("Out*"), {"ring_id": 0}, _same_vars,
               "extern", reference=_sync_reference, run=_sync_run, side_effect=True))
