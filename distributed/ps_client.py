"""The trainer's side of the parameter server: what the send, send_barrier and recv ops do when
they run, and what Executor.close() tells the servers.

Every op carries the job (`endpoints`, `trainers`, `trainer_id`) and the blocks it moves:
`epmap[i]` is the endpoint holding block `varnames[i]`, `sections[i]` its rows (a var not split
has one block, its own name). The first op to run joins the job (ps_rpc.join).

Sync mode counts rounds: send_barrier ends this trainer's round r, and a recv after it waits on
the server until the update of round r has been applied (the server sums the round's gradients
of every trainer first). Async mode has no rounds: the server applies each gradient on arrival
and recv takes the values it holds.
"""
from __future__ import annotations

import threading

from ..frontend.lazy_import import torch
from . import ps_rpc
from .ps_rpc import Cluster

_state = {"rounds": 0}  # barriers this trainer passed (sync mode)
_lock = threading.Lock()


def _join(attrs: dict) -> Cluster:
    cluster = Cluster(attrs["endpoints"], attrs["trainers"])
    ps_rpc.join(cluster, cluster.trainer_name(attrs["trainer_id"]))
    return cluster


def _server(cluster: Cluster, endpoint: str) -> str:
    return cluster.server_name(cluster.endpoints.index(endpoint))


def _blocks(attrs: dict, names_attr: str, rows: int) -> list[tuple[str, str, int, int]]:
    """(endpoint, block var, first row, end row) of each block of the op's var."""
    names, epmap = attrs[names_attr], attrs["epmap"]
    sections = attrs["sections"] or [rows]
    if len(names) != len(epmap) or len(names) != len(sections) or sum(sections) != rows:
        raise ValueError(f"op attributes do not describe the var's {rows} rows: {names_attr}="
                         f"{names}, epmap={epmap}, sections={attrs['sections']}")
    out, start = [], 0
    for name, ep, n in zip(names, epmap, sections):
        out.append((ep, name, start, start + n))
        start += n
    return out


def send(x: "torch.Tensor", attrs: dict) -> None:
    """Push the rows of each block of gradient `x` to its server."""
    from . import pserver
    cluster = _join(attrs)
    pending = [ps_rpc.call(_server(cluster, ep), pserver.push, attrs["trainer_id"], name,
                           x[a:b].detach().cpu().clone())
               for ep, name, a, b in _blocks(attrs, "send_varnames", _rows(x))]
    for p in pending:
        ps_rpc.result(p)


def barrier(attrs: dict) -> None:
    """End this trainer's round on every server (sync mode)."""
    from . import pserver
    cluster = _join(attrs)
    with _lock:
        _state["rounds"] += 1
    pending = [ps_rpc.call(cluster.server_name(i), pserver.barrier, attrs["trainer_id"])
               for i in range(len(cluster.endpoints))]
    for p in pending:
        ps_rpc.result(p)


def recv(out: "torch.Tensor", attrs: dict) -> None:
    """Fill parameter `out` with its blocks' values on the servers, after the update of this
    trainer's last round in sync mode."""
    from . import pserver
    cluster = _join(attrs)
    after = _state["rounds"] if attrs["sync_mode"] else 0
    blocks = _blocks(attrs, "recv_varnames", _rows(out))
    pending = [ps_rpc.call(_server(cluster, ep), pserver.pull, attrs["trainer_id"], name, after)
               for ep, name, _, _ in blocks]
    for (ep, name, a, b), p in zip(blocks, pending):
        value = ps_rpc.result(p)
        if tuple(value.shape) != tuple(out[a:b].shape):
            raise ValueError(f"recv: pserver {ep} holds '{name}' with shape "
                             f"{list(value.shape)}, which is not rows [{a}, {b}) of the "
                             f"trainer's var of shape {list(out.shape)}")
        out[a:b].copy_(value)


def prefetch(ids: "torch.Tensor", out: "torch.Tensor", attrs: dict) -> None:
    """Fill `out` with the rows of a server-held table the batch's ids name (zeros for the
    padding id), each fetched once, from the server holding it, after this trainer's last
    round in sync mode."""
    from . import pserver
    from ..frontend.ops.nn import _lookup_pad
    cluster = _join(attrs)
    vocab, width = attrs["shape"]
    flat = ids.long().reshape(-1)
    unique, inverse = torch.unique(flat, return_inverse=True)
    rows = torch.zeros((len(unique), width), dtype=out.dtype)
    after = _state["rounds"] if attrs["sync_mode"] else 0
    pending = []
    for ep, name, a, b in _blocks(attrs, "table_names", vocab):
        sel = (unique >= a) & (unique < b)
        if bool(sel.any()):
            pending.append((sel, ps_rpc.call(_server(cluster, ep), pserver.pull,
                                             attrs["trainer_id"], name, after, unique[sel] - a)))
    for sel, p in pending:
        rows[sel] = ps_rpc.result(p)
    view = out.view(-1, width)
    view.copy_(rows[inverse])
    view[flat == _lookup_pad(attrs, vocab)] = 0


def send_rows(ids: "torch.Tensor", grad: "torch.Tensor", attrs: dict) -> None:
    """Push the gradient of a server-held table as the summed rows of the batch's ids (the
    padding id's left out), to every server holding a block of it (blocks no id touches get
    no rows: their servers count this trainer's part of the round as zero)."""
    from . import pserver
    from ..frontend.ops.nn import _lookup_pad
    cluster = _join(attrs)
    vocab, width = attrs["shape"]
    flat = ids.long().reshape(-1)
    keep = flat != _lookup_pad(attrs, vocab)
    unique, inverse = torch.unique(flat[keep], return_inverse=True)
    summed = torch.zeros((len(unique), width), dtype=grad.dtype)
    summed.index_add_(0, inverse, grad.reshape(-1, width)[keep])
    pending = []
    for ep, name, a, b in _blocks(attrs, "send_varnames", vocab):
        sel = (unique >= a) & (unique < b)
        pending.append(ps_rpc.call(_server(cluster, ep), pserver.push, attrs["trainer_id"],
                                   name, summed[sel], unique[sel] - a))
    for p in pending:
        ps_rpc.result(p)


def close() -> None:
    """Tell every server this trainer is done (Executor.close), then leave the job (a server
    serves until all its trainers are done)."""
    if not ps_rpc.joined():
        return
    if ps_rpc.failed():  # the job is over: just stop answering
        ps_rpc.leave()
        return
    from . import pserver
    cluster = ps_rpc.cluster()
    me = ps_rpc.worker()
    if me.startswith("trainer"):
        pending = [ps_rpc.call(cluster.server_name(i), pserver.complete, int(me[len("trainer"):]))
                   for i in range(len(cluster.endpoints))]
        for p in pending:
            ps_rpc.result(p)
    ps_rpc.leave()
    _state["rounds"] = 0


def _rows(t: "torch.Tensor") -> int:
    if t.dim() == 0:
        raise ValueError("parameter-server vars are split by rows: a 0-d var cannot be sent")
    return t.shape[0]
