"""The parameter server's ops, under Paddle 1.x's names (Paddle 3.x has none of them, so their
attribute sets are read from 1.x's op makers, plus `endpoints`/`trainers`: the job, which the
first op to run joins, ps_rpc.join).

send, send_barrier and recv are extern ops of the transpiled trainer program with an effect
beyond their outputs (never pruned, folded or run twice): send pushes a gradient's blocks to
their servers, send_barrier ends the trainer's round, recv fills a parameter from its servers.
Their `Out`/`X` control vars (Paddle's dummy vars) order them: every send before the barrier,
every recv after it. listen_and_serv is the whole pserver program's one op: the Executor hands
a program holding it to distributed.pserver.serve, which runs its optimize blocks as gradients
arrive (kind 'serve': no plan ever holds it).
"""
from __future__ import annotations

from ..dtypes import VarType
from .nn import _lookup_ids_shape, _lookup_pad
from .registry import IndexBound, OpDef, VarInfo, register, slots

# The job every trainer-side op carries.
_JOB = {"endpoints": [], "trainers": 1, "trainer_id": 0}
# A var's blocks: block var names (send_varnames / recv_varnames), their servers, their rows.
_BLOCKS = {"epmap": [], "sections": []}
_CONTROL = VarInfo((1,), VarType.FP32)
# an executor running them is a trainer's
TRAINER_OPS = ("send", "send_barrier", "recv", "distributed_lookup_table", "send_sparse")


def _control_out(ins: dict[str, list[VarInfo]], attrs: dict) -> dict[str, list[VarInfo]]:
    return {"Out": [_CONTROL]}


def _received(ins: dict[str, list[VarInfo]], attrs: dict) -> dict[str, list[VarInfo]]:
    """recv's Out: the parameter it fills, whose shape and dtype it records."""
    return {"Out": [VarInfo(tuple(attrs["shape"]), VarType(attrs["dtype"]))]}


def _served(ins: dict[str, list[VarInfo]], attrs: dict) -> dict[str, list[VarInfo]]:
    return {}


def _send(ins, outs, attrs, rng) -> None:
    from ...distributed import ps_client
    ps_client.send(ins["X"][0], attrs)
    for t in outs.get("Out", ()):
        t.zero_()


def _send_barrier(ins, outs, attrs, rng) -> None:
    from ...distributed import ps_client
    ps_client.barrier(attrs)
    for t in outs.get("Out", ()):
        t.zero_()


def _recv(ins, outs, attrs, rng) -> None:
    from ...distributed import ps_client
    ps_client.recv(outs["Out"][0], attrs)


register(OpDef("send", slots("X"), slots("Out*?"),
               {**_JOB, **_BLOCKS, "send_varnames": [], "sync_mode": True},
               _control_out, "extern", run=_send, side_effect=True))
register(OpDef("send_barrier", slots("X*?"), slots("Out*?"), dict(_JOB),
               _control_out, "extern", run=_send_barrier, side_effect=True))
register(OpDef("recv", slots("X*?"), slots("Out"),
               {**_JOB, **_BLOCKS, "recv_varnames": [], "sync_mode": True, "shape": [0],
                "dtype": int(VarType.FP32)},
               _received, "extern", run=_recv, side_effect=True))
register(OpDef("listen_and_serv", slots("X*?"), (),
               {"endpoint": "", "pserver_id": 0, "Fanin": 1, "sync_mode": True,
                "endpoints": [], "optimize_blocks": [], "grad_to_block_id": [],
                "lr_decay_block_id": -1},
               _served, "serve", side_effect=True))


# A table kept on the servers (embedding is_distributed=True): distributed_lookup_table takes
# the place of the lookup (fetching the batch's rows from the servers holding them), send_sparse
# that of its grad op (pushing the summed rows of the batch's ids). `shape`/`dtype`: the
# table's; `lookup`: the op replaced (lookup_table's Ids end in a dim of 1).
_TABLE = {**_JOB, **_BLOCKS, "shape": [0, 0], "dtype": int(VarType.FP32), "padding_idx": -1,
          "lookup": "lookup_table_v2", "sync_mode": True}


def _table_rows(ins: dict[str, list[VarInfo]], attrs: dict) -> dict[str, list[VarInfo]]:
    ids = ins["Ids"][0]
    lead = _lookup_ids_shape(attrs["lookup"], ids.shape)
    return {"Out": [VarInfo(lead + (attrs["shape"][1],), VarType(attrs["dtype"]),
                            ids.lod_level)]}


def _table_ids(shapes, attrs) -> dict:
    vocab = attrs["shape"][0]
    pad = _lookup_pad(attrs, vocab)
    return {"Ids": IndexBound(0, vocab, pad if pad < 0 else None)}


def _prefetch(ins, outs, attrs, rng) -> None:
    from ...distributed import ps_client
    ps_client.prefetch(ins["Ids"][0], outs["Out"][0], attrs)


def _send_sparse(ins, outs, attrs, rng) -> None:
    from ...distributed import ps_client
    ps_client.send_rows(ins["Ids"][0], ins["Grad"][0], attrs)
    for t in outs.get("Out", ()):
        t.zero_()


register(OpDef("distributed_lookup_table", slots("Ids"), slots("Out"),
               {**_TABLE, "table_names": []}, _table_rows, "extern", run=_prefetch,
               indices=_table_ids, side_effect=True))
register(OpDef("send_sparse", slots("Ids", "Grad"), slots("Out*?"),
               {**_TABLE, "send_varnames": []}, _control_out, "extern", run=_send_sparse,
               indices=_table_ids, side_effect=True))
