"""A compiled plan: the generated library, an arena of buffers, and the calls of one run."""
from __future__ import annotations

import functools
import sys

import numpy as np
import torch

from ..codegen import CModule, generate_c
from ..frontend.dtypes import to_numpy_dtype
from ..frontend.errors import FluidcError, UninitializedVarError
from ..frontend.ops import get_op_def
from ..frontend.ops.registry import EMPTY_VAR
from ..passes.fuse import Extern
from ..passes.pipeline import LoweredProgram
from ..passes.scheduler import step_accesses
from ..passes.prune import needed_inputs
from .scope import Scope
from .tensor import LoDTensor, torch_dtype


def _ops_of(lowered: LoweredProgram):
    for step in lowered.steps:
        yield from ([step.op] if isinstance(step, Extern) else step.ops)


class Plan:
    """Everything one (program, feed signature, fetches) needs to run with no graph work."""

    def __init__(self, lowered: LoweredProgram, random_seed: int = 0, generate=generate_c,
                 device: str = "cpu") -> None:
        self.lowered = lowered
        self.random_seed = random_seed
        self.device = torch.device(device)
        infos = lowered.infos
        self.module = generate(lowered.steps, infos, lowered.storage)
        state = set(lowered.state)
        names = {n for s in lowered.steps for n in sum(step_accesses(s), [])}
        names |= set(lowered.feeds) | set(lowered.fetches)
        self.on_cpu = self.device.type == "cpu"
        self._plan_direct_io(lowered, state)
        # Arena: every other var outside the scope, at its storage's offset in one buffer
        # allocated once and reused by every run.
        direct = {n for n, _ in self.direct_feeds} | {n for n, _, _, _ in self.fresh_fetches}
        self.arena_plan = lowered.arena(exclude=direct)
        self.arena = self._allocate(sorted(n for n in names - direct if n in infos
                                           and lowered.storage(n) not in state))
        self.table = self.module.new_table()
        for s, slot in self.module.slots.items():
            if s in self.arena:
                self.module.set_slot(self.table, slot, self.arena[s])
        self.state_read = set(needed_inputs(list(_ops_of(lowered)))) & state
        self.views_of_state = [n for n in names - state if lowered.storage(n) in state]
        self.feed_views = [(n, self.arena[n].numpy() if self.on_cpu else self.arena[n])
                           for n in lowered.feeds if n in self.arena]
        self.scope: Scope | None = None
        self.bound: list[tuple] = []
        self.calls: list = []
        self.fetchers: list = []
        self.fetch_views: list = []
        self._generators: dict[int, torch.Generator] = {}
        self.fetch_lods = [lowered.lods.get(n) for n in lowered.fetches]  # fixed per plan

    def _plan_direct_io(self, lowered: LoweredProgram, state: set[str]) -> None:
        """Feeds only C kernels read are used in place, and fetches only C kernels write go to
        arrays made per run and handed to the caller: no copy in, no copy out."""
        self.direct_feeds: list[tuple[str, int]] = []
        self.fresh_fetches: list[tuple[int, int, tuple, np.dtype]] = []
        self.spares: list[list[tuple]] = []  # per fresh fetch: (array, address) handed out before
        if not (self.on_cpu and isinstance(self.module, CModule)):
            return
        touched = {n for s in lowered.steps if isinstance(s, Extern)
                   for n in s.op.input_arg_names + s.op.output_arg_names}
        # Only a var alone in its storage may be given memory of the caller's.
        graph = lowered.graph
        slots = self.module.slots
        touched |= state | {n for n in lowered.feeds + lowered.fetches
                            if graph.storage(n) != n or len(graph.vars_on(n)) > 1}
        written = {n for op in _ops_of(lowered) for n in op.output_arg_names}
        fetches = lowered.fetches
        big = {n for n, i in lowered.infos.items()
               if int(np.prod(i.shape)) * to_numpy_dtype(i.dtype).itemsize >= DIRECT_MIN_BYTES}
        self.direct_feeds = [(n, slots[n]) for n in lowered.feeds if n in slots and n in big
                             and n not in touched | written and n not in fetches]
        for i, n in enumerate(fetches):
            if n in slots and n in big and n in written and n not in touched \
                    and fetches.count(n) == 1 and n not in lowered.feeds:
                info = lowered.infos[n]
                self.fresh_fetches.append((i, slots[n], tuple(info.shape),
                                           np.dtype(to_numpy_dtype(info.dtype))))
                self.spares.append([])

    def _allocate(self, names: list[str]) -> dict[str, torch.Tensor]:
        """Each var a view of the arena at its storage's offset, with its own shape and dtype."""
        infos, offsets = self.lowered.infos, self.arena_plan.offsets
        raw = torch.empty(max(self.arena_plan.size, 16), dtype=torch.uint8, device=self.device)
        out = {}
        for n in names:
            dt = torch_dtype(infos[n].dtype)
            numel = int(np.prod(infos[n].shape))
            start = offsets[self.lowered.storage(n)]
            nbytes = numel * torch.empty((), dtype=dt).element_size()
            out[n] = raw[start:start + nbytes].view(dt).view(tuple(infos[n].shape))
        return out

    # -- binding the scope's persistables ---------------------------------------------------
    def bind(self, scope: Scope) -> None:
        """Point the plan at the scope's tensors, creating those this plan initializes."""
        infos = self.lowered.infos
        tensors = dict(self.arena)
        bound = []
        for n in self.lowered.state:
            holder = scope.find_var(n)
            info = infos[n]
            want = (tuple(info.shape), torch_dtype(info.dtype))
            t = holder._tensor._t if holder is not None else None
            if t is not None and t.device != self.device:
                t = holder._tensor._t = t.to(self.device)
            if t is None or (tuple(t.shape), t.dtype) != want:
                if n in self.state_read:
                    if t is None:
                        raise UninitializedVarError(
                            f"persistable var '{n}' has no value in the scope: run the startup "
                            f"program (or load a checkpoint) before this program")
                    raise FluidcError(f"var '{n}' in the scope has shape {list(t.shape)} and "
                                      f"dtype {t.dtype}, but the program expects {list(want[0])} "
                                      f"{want[1]}")
                t = torch.empty(want[0], dtype=want[1], device=self.device)
                holder = holder or scope.var(n)
                holder._tensor._t = t
            tensors[n] = t
            bound.append((holder._tensor, t))
            slot = self.module.slots.get(n)
            if slot is not None:
                self.module.set_slot(self.table, slot, t)
        for n in self.views_of_state:  # views of scope tensors
            tensors[n] = tensors[self.lowered.storage(n)].view(tuple(infos[n].shape))
        self.calls = [self._call(s, tensors) for s in self.module.schedule]
        fresh = {i for i, _, _, _ in self.fresh_fetches}
        self.fetchers = [None if i in fresh else tensors[n]
                         for i, n in enumerate(self.lowered.fetches)]
        self.fetch_views = [None if t is None else t.numpy() for t in self.fetchers] \
            if self.on_cpu else []
        self.bound = bound
        self.scope = scope

    def _call(self, step, tensors):
        if isinstance(step, str):
            return self.module.segment(step, self.table)
        op = step.op
        opdef = get_op_def(op.type)
        ins = {k: [tensors[n] for n in v] for k, v in op.inputs.items()}
        # A gradient nobody needs is None inside its slot; a slot of only those is left out.
        outs = {k: [None if n == EMPTY_VAR else tensors[n] for n in v]
                for k, v in op.outputs.items() if any(n != EMPTY_VAR for n in v)}
        return functools.partial(opdef.run, ins, outs, op.attrs, self._generator(op))

    def _generator(self, op) -> torch.Generator | None:
        """The random stream of a stateful op: made once per plan, so re-binding keeps it."""
        if not get_op_def(op.type).stateful:
            return None
        g = self._generators.get(id(op))
        if g is None:
            g = self._generators[id(op)] = torch.Generator(device=self.device)
            seed = int(op.attrs.get("seed", 0) or 0) or self.random_seed
            g.manual_seed(seed if seed else int(torch.randint(0, 2**62, (1,)).item()))
        return g

    # -- one run ----------------------------------------------------------------------------
    def run(self, feed: dict[str, np.ndarray], scope: Scope, return_numpy: bool = True) -> list:
        """Copy feeds in, run every step, return copies of the fetches."""
        if scope is not self.scope:
            self.bind(scope)
        else:
            for holder, t in self.bound:
                if holder._t is not t:  # someone replaced a scope tensor: point at the new one
                    self.bind(scope)
                    break
        if self.on_cpu:
            table = self.table
            held = []  # keeps contiguous copies of odd feeds alive through the run
            for name, slot in self.direct_feeds:
                a = feed[name]
                if not a.flags.c_contiguous:
                    a = np.ascontiguousarray(a)
                    held.append(a)
                table[slot] = a.ctypes.data
            for name, view in self.feed_views:
                np.copyto(view, feed[name], casting="no")
            fresh = []
            for (i, slot, shape, dtype), spares in zip(self.fresh_fetches, self.spares):
                a, table[slot] = _reuse_or_new(spares, shape, dtype)
                fresh.append(a)
            for call in self.calls:
                call()
            out = [None if v is None else v.copy() for v in self.fetch_views]
            for (i, _, _, _), a in zip(self.fresh_fetches, fresh):
                out[i] = a
            if return_numpy:
                return out
            return [LoDTensor(torch.from_numpy(a), lod) for a, lod in zip(out, self.fetch_lods)]
        for name, t in self.feed_views:  # device buffers
            t.copy_(torch.from_numpy(np.ascontiguousarray(feed[name])))
        for call in self.calls:
            call()
        if return_numpy:
            return [t.cpu().numpy() for t in self.fetchers]
        return [LoDTensor(t.cpu(), lod) for t, lod in zip(self.fetchers, self.fetch_lods)]


SPARES = 2  # results kept for reuse per fetch: `out = exe.run(...)[0]` holds one while the next runs
# Below this size copying a feed in (or a fetch out) costs less than taking an array's address.
DIRECT_MIN_BYTES = 64 * 1024


def _reuse_or_new(spares: list[tuple[np.ndarray, int]], shape: tuple,
                  dtype: np.dtype) -> tuple[np.ndarray, int]:
    """(array, address): one the caller has let go of (only `spares` refers to it), else new.

    Fresh pages cost more than the kernels that fill them (page faults), so results the caller
    dropped are written again instead of allocating.
    """
    for spare in spares:
        if sys.getrefcount(spare[0]) == 2:  # the tuple's reference and the call's argument
            return spare
    a = np.empty(shape, dtype)
    new = (a, a.ctypes.data)
    if len(spares) < SPARES:
        spares.append(new)
    return new
