"""The parameter server's transport: torch.distributed.rpc (TensorPipe) between the pservers
and the trainers of one job.

One process is one RPC worker: pserver i is rank i ("pserver<i>"), trainer t is rank
len(pservers) + t ("trainer<t>"); the first pserver's endpoint hosts the rendezvous store.
Workers connect when their first distributed op runs (the trainer's startup recv, the
pserver's listen_and_serv), and `init_rpc` returns once every worker has joined.

A peer that dies is noticed, never waited on forever: a call to a dead worker fails at once
(TensorPipe sees the connection close), servers ping their trainers every PING_S seconds, and a
worker that learns of a lost peer tells the pservers (`abort`), so every process ends with a
PeerLostError naming the peer.
"""
from __future__ import annotations

import atexit
import threading
import warnings

from ..frontend.env import env_number
from ..frontend.errors import FluidcError
from ..frontend.lazy_import import torch

PING_S = env_number("FLUIDC_PSERVER_PING_S", 1.0, "seconds", positive=True)  # how often servers ping
# A ping unanswered this long is a lost peer (a dead one fails at once: its socket closes).
PING_TIMEOUT_S = env_number("FLUIDC_PSERVER_PING_TIMEOUT_S", 30, "seconds", positive=True)
# How long the rendezvous waits for every worker of the job to start.
JOIN_TIMEOUT_S = env_number("FLUIDC_PSERVER_JOIN_TIMEOUT_S", 300, "seconds", positive=True)


class PeerLostError(FluidcError, RuntimeError):
    """A pserver or trainer of the job died or stopped answering; the message names it."""


class Cluster:
    """Who takes part: the pserver endpoints (in order) and the number of trainers."""

    def __init__(self, endpoints: list[str], trainers: int) -> None:
        if not endpoints or any(":" not in ep for ep in endpoints):
            raise ValueError(f"pserver endpoints must be 'ip:port' strings, got {endpoints!r}")
        if int(trainers) < 1:
            raise ValueError(f"the number of trainers must be at least 1, got {trainers!r}")
        self.endpoints = list(endpoints)
        self.trainers = int(trainers)

    def key(self) -> tuple:
        return tuple(self.endpoints), self.trainers

    def server_name(self, index: int) -> str:
        return f"pserver{index}"

    def trainer_name(self, trainer_id: int) -> str:
        return f"trainer{trainer_id}"

    def describe(self, worker: str) -> str:
        """A worker name as the user knows it: 'pserver 1 (127.0.0.1:6175)', 'trainer 0'."""
        if worker.startswith("pserver"):
            i = int(worker[len("pserver"):])
            return f"pserver {i} ({self.endpoints[i]})"
        return f"trainer {worker[len('trainer'):]}"


_lock = threading.Lock()
_joined: dict = {}  # "cluster", "name" once this process is a worker
_lost: list[str] = []  # the first lost-peer message this process learned, if any


def join(cluster: Cluster, name: str) -> None:
    """Make this process the worker `name` of `cluster` (once; later calls check they agree)."""
    with _lock:
        if _joined:
            if _joined["cluster"].key() != cluster.key() or _joined["name"] != name:
                raise ValueError(f"this process already takes part in a parameter-server job as "
                                 f"{_joined['name']} of pservers {_joined['cluster'].endpoints}; "
                                 f"it cannot also be {name} of {cluster.endpoints}")
            return
        rpc = torch.distributed.rpc
        n = len(cluster.endpoints)
        rank = int(name[len("pserver"):]) if name.startswith("pserver") else \
            n + int(name[len("trainer"):])
        options = rpc.TensorPipeRpcBackendOptions(
            init_method=f"tcp://{cluster.endpoints[0]}", rpc_timeout=JOIN_TIMEOUT_S,
            num_worker_threads=max(16, 4 * (n + cluster.trainers)))
        with warnings.catch_warnings():  # torch's own use of a deprecated gloo API
            warnings.simplefilter("ignore", UserWarning)
            try:
                rpc.init_rpc(name, rank=rank, world_size=n + cluster.trainers,
                             rpc_backend_options=options)
            except RuntimeError as e:
                raise PeerLostError(
                    f"{cluster.describe(name)} could not join the parameter-server job of "
                    f"pservers {cluster.endpoints} and {cluster.trainers} trainers (rendezvous "
                    f"at {cluster.endpoints[0]}, waited up to {JOIN_TIMEOUT_S:g} s): {e}") from e
        _joined.update(cluster=cluster, name=name)
        atexit.register(leave)


def joined() -> bool:
    return bool(_joined)


def cluster() -> Cluster:
    return _joined["cluster"]


def worker() -> str:
    """This process's worker name ('pserver0', 'trainer1')."""
    return _joined["name"]


def call(worker: str, fn, *args):
    """Start a call of `fn(*args)` on `worker` (no time limit: servers ping for liveness);
    `result` waits for it."""
    return worker, torch.distributed.rpc.rpc_async(worker, fn, args=args, timeout=0)


def result(pending):
    """The value of a call `call` started; a PeerLostError naming the worker if it died, or
    the one its server raised if the job lost a peer."""
    worker, fut = pending
    try:
        value = fut.wait()
    except PeerLostError as e:
        raise lost(str(e)) from None
    except RuntimeError as e:
        raise lost(f"lost {cluster().describe(worker)}: its connection closed ({e})") from None
    if isinstance(value, PeerLostError):  # how an async_execution handler's failure arrives
        raise lost(str(value))
    return value


def lost(message: str, tell: bool = True) -> PeerLostError:
    """Record that the job lost a peer (the first message wins) and, if `tell`, tell every
    other pserver, which stop with it; the error to raise."""
    with _lock:
        first = not _lost
        if first:
            _lost.append(message)
    if first and tell and _joined:
        from . import pserver
        me = _joined["name"]
        servers = [cluster().server_name(i) for i in range(len(cluster().endpoints))]
        pending = [torch.distributed.rpc.rpc_async(s, pserver.abort, args=(_lost[0], me),
                                                   timeout=PING_TIMEOUT_S)
                   for s in servers if s != me]
        for fut in pending:
            try:
                fut.wait()
            except RuntimeError:  # that one is gone too
                pass
    return PeerLostError(_lost[0])


def failed() -> str | None:
    """The lost-peer message this process learned, if any."""
    return _lost[0] if _lost else None


def ping() -> bool:
    """Answered by every worker: servers call it to see their trainers are alive."""
    return True


def leave() -> None:
    """Stop being a worker. Not torch's graceful shutdown (a barrier of every worker, which
    never ends when one is lost): each worker leaves once it needs no more calls, a trainer
    after every server acknowledged its `complete`, a server once all its trainers are done
    or the job failed."""
    with _lock:
        if not _joined:
            return
        _joined.clear()
    torch.distributed.rpc.shutdown(graceful=False)
