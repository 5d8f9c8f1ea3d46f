"""The parameter server: what `exe.run(pserver_program)` does.

The program's listen_and_serv op names one optimize block per gradient block it receives.
Each block runs as a program of its own on the executor, over the caller's scope (which the
pserver startup initialized). The main thread does all the running; RPC handlers (push,
barrier, pull, complete, abort, called by trainers through ps_rpc) only record and queue.

Sync mode: a round's gradients are kept until every trainer has passed send_barrier; then the
learning-rate schedule's block runs (if the program has one) and each block runs (summing the
trainers' gradients and scaling by 1/trainers first, as the program says) and the trainers'
pulls waiting on that round are answered. Async mode: each gradient
runs its block when it arrives; pulls answer at once.

The server serves until every trainer has called Executor.close(). Lost peers end it: a
trainer that stops answering pings, or an `abort` from a worker that lost a peer. It then
answers every call with the PeerLostError for a few seconds, so the live trainers learn which
peer was lost, and raises it.
"""
from __future__ import annotations

import queue
import threading
import time

import numpy as np
import torch
import torch.distributed.rpc as rpc

from ..frontend.errors import OpError
from ..frontend.framework import Program
from . import ps_rpc
from .ps_rpc import Cluster, PeerLostError
from .transpiler import trainer_grad_name

GRACE_S = 5.0  # how long a failed server keeps telling trainers what was lost
_current: list["Server"] = []  # the server of this process while it serves


class Server:
    """One listen_and_serv op being served over `scope`."""

    def __init__(self, executor, program: Program, scope) -> None:
        ops = program.global_block().ops
        if len(ops) != 1:
            raise OpError(f"listen_and_serv must be the only op of its program's global "
                          f"block (a pserver program), found {[op.type for op in ops]}")
        attrs = ops[0].desc.attrs
        self.executor, self.scope = executor, scope
        self.sync, self.fanin = bool(attrs["sync_mode"]), int(attrs["Fanin"])
        self.cluster = Cluster(attrs["endpoints"], self.fanin)
        self.name = self.cluster.server_name(int(attrs["pserver_id"]))
        self.runs: dict[str, tuple[Program, list[str]]] = {}
        for entry in attrs["grad_to_block_id"]:
            grad, idx = entry.rsplit(":", 1)
            self.runs[grad] = _block_program(program, int(idx))
        # the learning-rate schedule, run once a round: what it computes is fed to the blocks
        lr = int(attrs.get("lr_decay_block_id", -1))
        self.lr = _block_program(program, lr)[0] if lr >= 0 else None
        made = {n for op in self.lr.global_block().ops for n in op.output_arg_names} \
            if self.lr is not None else set()
        self.lr_names = sorted(made & {n for _, feeds in self.runs.values() for n in feeds})
        gb = program.global_block()
        self.shapes = {g: tuple(gb.var(g).shape) for g in self.runs}  # of sparse pushes
        self.lock = threading.Lock()  # the state below
        self.run_lock = threading.Lock()  # updates vs. reads of the scope (async pulls)
        self.grads: dict[str, np.ndarray] = {}  # this round's gradients, by feed name
        self.arrived: set[int] = set()  # trainers past this round's barrier
        self.done = 0  # rounds applied
        self.waiting: list[tuple] = []  # (round, name, rows, future) of parked pulls
        self.completed: set[int] = set()
        self.told: set[int] = set()  # trainers that got the failure
        self.lost: set[int] = set()  # trainers this server found dead
        self.failure: str | None = None
        self.events: queue.Queue = queue.Queue()

    # -- handlers (RPC threads) -------------------------------------------------------------
    def _refuse(self, trainer: int) -> None:
        if self.failure is not None:
            self.told.add(trainer)
            raise PeerLostError(self.failure)

    def push(self, trainer: int, grad: str, value: torch.Tensor,
             rows: torch.Tensor | None = None) -> None:
        """A gradient block, or (`rows` given) the rows of a sparse one: the rest is zero."""
        if rows is not None and grad in self.shapes:
            dense = torch.zeros(self.shapes[grad], dtype=value.dtype)
            value = dense.index_add_(0, rows, value)
        with self.lock:
            self._refuse(trainer)
            if grad not in self.runs:
                raise OpError(f"{self.cluster.describe(self.name)} holds no gradient block "
                              f"'{grad}' (its blocks: {sorted(self.runs)})")
            feed = trainer_grad_name(grad, trainer) if self.sync and self.fanin > 1 else grad
            if self.sync:
                self.grads[feed] = value.numpy()
                return
        self.events.put(("apply", grad, feed, value.numpy()))

    def barrier(self, trainer: int) -> None:
        with self.lock:
            self._refuse(trainer)
            self.arrived.add(trainer)
        self.events.put(("barrier",))

    def pull(self, trainer: int, name: str, after: int,
             rows: torch.Tensor | None = None) -> torch.futures.Future:
        """The value of `name` (its `rows` only, if given) once round `after` is applied."""
        fut = torch.futures.Future()
        with self.lock:
            if self.failure is not None:
                self.told.add(trainer)
                fut.set_exception(PeerLostError(self.failure))
                return fut
            if self.sync and self.done < after:
                self.waiting.append((after, name, rows, fut))
                return fut
        fut.set_result(self._value(name, rows))
        return fut

    def complete(self, trainer: int) -> None:
        self.events.put(("complete", trainer))

    # -- the main thread --------------------------------------------------------------------
    def _value(self, name: str, rows: torch.Tensor | None = None) -> torch.Tensor:
        holder = self.scope.find_var(name)
        if holder is None or not holder.is_initialized():
            raise OpError(f"{self.cluster.describe(self.name)} has no value of '{name}': run "
                          f"its startup program before the pserver program")
        with self.run_lock:
            value = torch.from_numpy(np.array(holder.get_tensor()))
        return value if rows is None else value[rows]

    def _run(self, grad: str, feed: dict[str, np.ndarray]) -> None:
        program, _ = self.runs[grad]
        with self.run_lock:
            self.executor.run(program, feed=feed, scope=self.scope)

    def _step(self) -> None:
        """Apply this round: the learning-rate schedule, then every block over the gradients
        of every trainer."""
        rates = {}
        if self.lr is not None:
            with self.run_lock:
                values = self.executor.run(self.lr, fetch_list=self.lr_names, scope=self.scope)
            rates = dict(zip(self.lr_names, values))
        for grad, (_, feeds) in self.runs.items():
            missing = [n for n in feeds if n not in self.grads and n not in rates]
            if missing:
                raise OpError(f"{self.cluster.describe(self.name)}: the round ended without "
                              f"gradients {missing}")
            self._run(grad, {n: rates[n] if n in rates else self.grads.pop(n) for n in feeds})
        with self.lock:
            self.done += 1
            self.arrived.clear()
            ready = [w for w in self.waiting if w[0] <= self.done]
            self.waiting = [w for w in self.waiting if w[0] > self.done]
        for _, name, rows, fut in ready:
            fut.set_result(self._value(name, rows))

    def fail(self, message: str, tell: bool = True) -> None:
        """Stop with `message`: pending and later calls get it."""
        ps_rpc.lost(message, tell=tell)
        with self.lock:
            if self.failure is None:
                self.failure = message
            waiting, self.waiting = self.waiting, []
        for *_, fut in waiting:
            fut.set_exception(PeerLostError(self.failure))

    def serve(self) -> None:
        ps_rpc.join(self.cluster, self.name)
        pings: dict[int, tuple[float, object]] = {}
        last_ping = 0.0
        try:
            while self.failure is None and len(self.completed) < self.fanin:
                try:
                    event = self.events.get(timeout=ps_rpc.PING_S / 2)
                except queue.Empty:
                    event = None
                if event is not None:
                    self._handle(event)
                if time.monotonic() - last_ping >= ps_rpc.PING_S:
                    self._ping(pings)
                    last_ping = time.monotonic()
        except Exception as e:  # a block that failed to run: the trainers learn why
            self.fail(f"{self.cluster.describe(self.name)} failed: {type(e).__name__}: {e}")
            self._tell_and_leave()
            raise
        if self.failure is None:
            self._outlive_trainers()
            ps_rpc.leave()
            return
        self._tell_and_leave()
        raise PeerLostError(self.failure)

    def _outlive_trainers(self) -> None:
        """Leave only once every trainer has (GRACE_S at most): the reply to a trainer's last
        `complete` is sent after the handler returns, and leaving first would cut it off."""
        end = time.monotonic() + GRACE_S
        while time.monotonic() < end:
            pings = [rpc.rpc_async(self.cluster.trainer_name(t), ps_rpc.ping, timeout=GRACE_S)
                     for t in range(self.fanin)]
            alive = 0
            for fut in pings:
                try:
                    fut.wait()
                    alive += 1
                except RuntimeError as e:  # gone (its connection closed), or just slow
                    alive += "timed out" in str(e).lower() or "timeout" in str(e).lower()
            if not alive:
                return
            time.sleep(0.05)

    def _tell_and_leave(self) -> None:
        """Keep answering with the failure until every live trainer got it (GRACE_S at most),
        then stop."""
        end = time.monotonic() + GRACE_S
        while time.monotonic() < end and \
                not (self.told | self.completed | self.lost) >= set(range(self.fanin)):
            time.sleep(0.05)
        ps_rpc.leave()

    def _handle(self, event: tuple) -> None:
        kind = event[0]
        if kind == "barrier":
            with self.lock:
                full = len(self.arrived) == self.fanin
            if full:
                self._step()
        elif kind == "apply":
            _, grad, feed, value = event
            self._run(grad, {feed: value})
        elif kind == "complete":
            self.completed.add(event[1])
        with self.lock:
            waiting = sorted(self.arrived)
        if self.sync and waiting and len(waiting) < self.fanin and \
                set(waiting) | self.completed == set(range(self.fanin)):
            self.fail(f"trainers {sorted(self.completed)} finished (Executor.close) while "
                      f"trainers {waiting} wait at the barrier of round {self.done + 1}: in "
                      f"sync mode every trainer must run the same number of steps")
        if kind == "abort":
            self.fail(event[1], tell=False)

    def _ping(self, pings: dict) -> None:
        """Check the answers to the last pings, and ping the trainers still at work."""
        now = time.monotonic()
        for t in range(self.fanin):
            if t in self.completed:
                continue
            sent = pings.get(t)
            if sent is not None:
                started, fut = sent
                if fut.done():
                    try:
                        fut.wait()
                    except RuntimeError as e:
                        self.lost.add(t)
                        return self.fail(f"lost trainer {t}: it stopped answering "
                                         f"{self.cluster.describe(self.name)} ({e})")
                elif now - started > ps_rpc.PING_TIMEOUT_S:
                    self.lost.add(t)
                    return self.fail(f"lost trainer {t}: no answer to "
                                     f"{self.cluster.describe(self.name)} for "
                                     f"{ps_rpc.PING_TIMEOUT_S:g} s")
                else:
                    continue
            pings[t] = (now, rpc.rpc_async(self.cluster.trainer_name(t), ps_rpc.ping,
                                           timeout=ps_rpc.PING_TIMEOUT_S))


def _block_program(program: Program, idx: int) -> tuple[Program, list[str]]:
    """Optimize block `idx` as a program of its own, and the gradient vars it is fed."""
    block = program.block(idx)
    out = Program()
    gb = out.global_block()
    made: set[str] = set()
    reads: list[str] = []
    for op in block.ops:
        for n in op.desc.input_arg_names + op.desc.output_arg_names:
            if not gb.has_var(n):
                v = block._find_var_recursive(n)
                gb.create_var(name=n, shape=v.shape, dtype=v.dtype, persistable=v.persistable)
        reads += [n for n in op.desc.input_arg_names
                  if n not in made and not gb.var(n).persistable]
        made.update(op.desc.output_arg_names)
        gb.append_op(op.type, inputs={k: list(v) for k, v in op.desc.inputs.items()},
                     outputs={k: list(v) for k, v in op.desc.outputs.items()},
                     attrs=dict(op.desc.attrs))
    return out, list(dict.fromkeys(reads))


def _server() -> Server:
    if not _current:
        raise RuntimeError("this process serves no pserver program")
    return _current[0]


def serve(executor, program: Program, scope) -> list:
    """Run a pserver program: serve its blocks until every trainer is done."""
    server = Server(executor, program, scope)
    _current.append(server)  # before joining: trainers may call as soon as the job is up
    try:
        server.serve()
    finally:
        _current.remove(server)
    return []


# -- RPC entry points (module functions: the caller names them) -----------------------------
def push(trainer: int, grad: str, value, rows=None) -> None:
    _server().push(trainer, grad, value, rows)


def barrier(trainer: int) -> None:
    _server().barrier(trainer)


@rpc.functions.async_execution
def pull(trainer: int, name: str, after: int, rows=None):
    return _server().pull(trainer, name, after, rows)


def complete(trainer: int) -> None:
    _server().complete(trainer)


def abort(message: str, worker: str) -> None:
    """`worker` lost a peer (`message`): this server stops with it."""
    ps_rpc.lost(message, tell=False)
    if _current:
        server = _current[0]
        if worker.startswith("trainer"):
            server.told.add(int(worker[len("trainer"):]))
        server.events.put(("abort", message))
