"""Who a gradient all-reduce sums over: the places of one process (threads) and the trainers
(processes, a torch.distributed process group), and the state of the reductions in flight.

`c_allreduce_sum` (frontend/ops/collective.py) starts a reduction of one bucket of gradients
through the current thread's `Communicator` (`current()`) and returns at once;
`c_sync_comm_stream` waits for every reduction the run started and writes the sums. A run on
no data-parallel runner sums over the process group if one is initialised, else over itself.
"""
from __future__ import annotations

import atexit
import datetime
import threading

from fluidc.frontend.lazy_import import torch

from ..frontend.env import env_number
from ..frontend.errors import FluidcError


class CollectiveError(FluidcError, RuntimeError):
    """An all-reduce failed: a peer process or a place thread was lost, or timed out."""


def timeout_seconds() -> float:
    """How long a collective waits for its peers (FLUIDC_COLLECTIVE_TIMEOUT, default 300 s)."""
    return env_number("FLUIDC_COLLECTIVE_TIMEOUT", 300, "seconds", positive=True)


# -- trainers: one torch.distributed process group per process ---------------------------------

class Trainers:
    """The process group of the collective (nccl2) mode: rank `trainer_id` of the endpoints,
    rendezvous at the first endpoint (trainer 0 serves the store there)."""

    def __init__(self, trainer_id: int, endpoints: list[str], backend: str) -> None:
        self.rank, self.endpoints, self.backend = trainer_id, list(endpoints), backend

    @property
    def size(self) -> int:
        return len(self.endpoints)

    def init(self) -> None:
        """Join the group (once per process; a second group of other endpoints is an error)."""
        import torch.distributed as dist
        if dist.is_initialized():
            if dist.get_world_size() != self.size or dist.get_rank() != self.rank:
                raise CollectiveError(
                    f"this process already joined a collective group as trainer "
                    f"{dist.get_rank()} of {dist.get_world_size()}; it cannot also be trainer "
                    f"{self.rank} of {self.size}")
            return
        try:
            dist.init_process_group(self.backend, init_method=f"tcp://{self.endpoints[0]}",
                                    rank=self.rank, world_size=self.size,
                                    timeout=datetime.timedelta(seconds=timeout_seconds()))
        except (RuntimeError, ValueError) as e:
            raise CollectiveError(f"trainer {self.rank}: could not join the trainers "
                                  f"{self.endpoints} (rendezvous at {self.endpoints[0]}): "
                                  f"{e}") from e
        # Leave the group before the interpreter finalizes: a gloo group torn down by
        # finalization (its threads still joinable) may abort the process (SIGABRT).
        atexit.register(_leave_group)

    def all_reduce(self, flat: torch.Tensor, what: str):
        """Start summing `flat` over the trainers; the returned handle's wait() finishes it."""
        import torch.distributed as dist
        try:
            work = dist.all_reduce(flat, async_op=True)
        except RuntimeError as e:
            raise self.lost(what, e) from e
        return _Waiting(work, self, what)

    def lost(self, what: str, cause: Exception) -> CollectiveError:
        peers = [f"trainer {r}" + (f" ({ep})" if ep else "")
                 for r, ep in enumerate(self.endpoints) if r != self.rank]
        who = peers[0] if len(peers) == 1 else "one of " + ", ".join(peers)
        return CollectiveError(f"trainer {self.rank}: the all-reduce of {what} failed: lost "
                               f"{who} (or it timed out after {timeout_seconds():g} s): {cause}")


def _leave_group() -> None:
    import torch.distributed as dist
    if dist.is_initialized():
        dist.destroy_process_group()


class _Waiting:
    def __init__(self, work, trainers: Trainers, what: str) -> None:
        self.work, self.trainers, self.what = work, trainers, what

    def wait(self) -> None:
        try:
            self.work.wait()
        except RuntimeError as e:
            raise self.trainers.lost(self.what, e) from e


def trainers_group() -> Trainers | None:
    """The process group joined by this process, if any (for runs outside a runner)."""
    import torch.distributed as dist
    if not (dist.is_available() and dist.is_initialized()):
        return None
    return Trainers(dist.get_rank(), [""] * dist.get_world_size(), dist.get_backend())


# -- places: the threads of one process --------------------------------------------------------

class Places:
    """The n places of one process, each run by its own thread: a reduction sums the places'
    buckets in place order (so every place gets bit-identical sums), then over the trainers."""

    def __init__(self, n: int, trainers: Trainers | None) -> None:
        self.n, self.trainers = n, trainers
        self._barrier = threading.Barrier(n)
        self._parts: dict[int, list] = {}
        self._sums: dict[int, torch.Tensor] = {}

    def abort(self) -> None:
        """Release every place waiting on the others (one of them failed)."""
        self._barrier.abort()

    def _wait(self, rank: int, what: str) -> None:
        try:
            self._barrier.wait(timeout_seconds())
        except threading.BrokenBarrierError:
            raise CollectiveError(f"place {rank}: the all-reduce of {what} was abandoned: "
                                  f"another place failed or did not arrive within "
                                  f"{timeout_seconds():g} s") from None

    def reduce(self, rank: int, key: int, flat: torch.Tensor, what: str) -> torch.Tensor:
        """The sum of every place's `flat` for bucket `key` (and over the trainers)."""
        self._parts.setdefault(key, [None] * self.n)[rank] = flat
        self._wait(rank, what)
        if rank == 0:
            parts = self._parts[key]
            total = parts[0].clone()
            for p in parts[1:]:
                total += p
            if self.trainers is not None:
                self.trainers.all_reduce(total, what).wait()
            self._sums[key] = total
        self._wait(rank, what)
        total = self._sums[key]
        self._wait(rank, what)  # nobody starts the next step's bucket before all have read
        return total


# -- the communicator of the current thread ----------------------------------------------------

class Communicator:
    """One place's view: its rank among the places, and the reductions its run has started."""

    def __init__(self, places: Places | None = None, rank: int = 0,
                 trainers: Trainers | None = None) -> None:
        self.places, self.rank, self.trainers = places, rank, trainers
        self.pending: list = []
        self.own = False  # made by current() for a thread no runner set up

    def start(self, flat: torch.Tensor, finish, what: str) -> None:
        """Start summing `flat` (one bucket); finish(total) runs when the run syncs."""
        key = len(self.pending)  # every place starts the same buckets in the same order
        if self.places is not None:  # places meet at the sync (a barrier): no overlap there
            self.pending.append(lambda: finish(self.places.reduce(self.rank, key, flat, what)))
        elif self.trainers is not None:  # travels while the run goes on
            handle = self.trainers.all_reduce(flat, what)
            self.pending.append(lambda: (handle.wait(), finish(flat)))
        else:
            finish(flat)

    def sync(self) -> None:
        """Finish every reduction started since the last sync, in the order they started."""
        pending, self.pending = self.pending, []
        for done in pending:
            done()


_local = threading.local()


def current() -> Communicator:
    """The calling thread's communicator: a runner's place, else the process group's."""
    comm = getattr(_local, "comm", None)
    if comm is None or (comm.own and not comm.pending):  # the group may have been joined since
        comm = _local.comm = Communicator(trainers=trainers_group())
        comm.own = True
    return comm


class use:
    """Make `comm` the calling thread's communicator inside the block."""

    def __init__(self, comm: Communicator) -> None:
        self.comm = comm

    def __enter__(self) -> Communicator:
        self.old = getattr(_local, "comm", None)
        _local.comm = self.comm
        return self.comm

    def __exit__(self, *exc) -> None:
        _local.comm = self.old
