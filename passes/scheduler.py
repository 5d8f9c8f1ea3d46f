"""The scheduler graph: steps, the vars they read and write, and the storage each var lives in.

One networkx DiGraph holds step nodes (ops before fusion, kernels and library calls after),
var nodes and storage nodes, with `read` (var -> step), `write` (step -> var) and `lives_in` /
`view_of` (var -> storage) edges. A view, an in-place output and the var it reuses are
different vars on one storage node. Every question about memory is asked here, by storage and
never by name: which steps may run in which order (read-after-write, write-after-read,
write-after-write), whether two steps conflict, when a storage is last touched, and which
storages may share bytes of the plan's arena (`plan_arena`).
"""
from __future__ import annotations

import functools
from dataclasses import dataclass, field

import networkx as nx

from ..frontend.ops import OpDesc
from .fuse import Concurrent, Extern, Step


def step_accesses(step: Step | OpDesc) -> tuple[list[str], list[str]]:
    """(vars read, vars written) by an op or a compiled step."""
    if isinstance(step, OpDesc):
        return step.input_arg_names, step.output_arg_names
    if isinstance(step, Extern):
        return step.op.input_arg_names, step.op.output_arg_names
    if isinstance(step, Concurrent):
        return ([n for k in step.parts for n in k.inputs],
                [n for k in step.parts for n in k.outputs])
    return list(step.inputs), list(step.outputs)


_DERIVED = ("accesses", "reads", "writes", "touches")  # SchedulerGraph._index's


class SchedulerGraph:
    """Steps in program order over storages; `storage` maps a var to the var whose memory it
    lives in (views, in-place outputs); `live_in` vars hold values before the first step (feeds,
    state), `live_out` vars must hold theirs after the last (fetches, state)."""

    def __init__(self, steps: list, storage: dict[str, str] | None = None,
                 live_in=(), live_out=()) -> None:
        self.steps = list(steps)
        self._storage = dict(storage or {})
        self._index()
        self.live_in = {self.storage(v) for v in live_in}
        self.live_out = {self.storage(v) for v in live_out}
        self._on: dict[str, list[str]] = {}  # storage -> vars living in it
        for v in dict.fromkeys([n for r, w in self.accesses for n in r + w]
                               + list(live_in) + list(live_out)):
            self._on.setdefault(self.storage(v), []).append(v)

    def _index(self) -> None:
        """What each step reads and writes, and the steps touching each storage."""
        self.accesses = [step_accesses(step) for step in self.steps]
        self.reads: list[set[str]] = []
        self.writes: list[set[str]] = []
        self.touches: dict[str, list[int]] = {}  # storage -> steps touching it, in order
        for k, (reads, writes) in enumerate(self.accesses):
            self.reads.append({self.storage(v) for v in reads})
            self.writes.append({self.storage(v) for v in writes})
            for s in self.reads[-1] | self.writes[-1]:
                self.touches.setdefault(s, []).append(k)

    def __getstate__(self) -> dict:
        """Pickled without what _index and `graph` derive (a plan kept on disk rarely needs
        them: they are made again when first asked for)."""
        return {k: v for k, v in vars(self).items() if k not in _DERIVED and k != "graph"}

    def __getattr__(self, name: str):
        if name in _DERIVED and "steps" in vars(self):  # unpickled: index when first used
            self._index()
            return vars(self)[name]
        raise AttributeError(name)

    @functools.cached_property
    def graph(self) -> nx.DiGraph:
        """The graph itself: step, var and storage nodes; read, write, lives_in and view_of
        edges (the queries below answer from indexes of it)."""
        g = nx.DiGraph()
        for s, names in self._on.items():
            g.add_node(("storage", s), kind="storage")
            for v in names:
                g.add_edge(("var", v), ("storage", s), kind="lives_in" if v == s else "view_of")
        for k, (reads, writes) in enumerate(self.accesses):
            g.add_node(("step", k), kind="step", index=k)
            g.add_edges_from(((("var", v), ("step", k)) for v in reads), kind="read")
            g.add_edges_from(((("step", k), ("var", v)) for v in writes), kind="write")
        return g

    def storage(self, var: str) -> str:
        """The storage a var lives in (named by the var that owns it)."""
        while var in self._storage and self._storage[var] != var:
            var = self._storage[var]
        return var

    def shared(self) -> dict[str, str]:
        """var -> storage, for every var living in another var's storage."""
        return {v: self.storage(v) for v in self._storage if self.storage(v) != v}

    def vars_on(self, storage: str) -> list[str]:
        """Every var living in a storage."""
        return list(self._on.get(storage, []))

    def may_alias(self, a: str, b: str) -> bool:
        """Whether two vars may touch the same memory."""
        return self.storage(a) == self.storage(b)

    def conflict(self, a: int, b: int) -> bool:
        """Whether steps a and b touch one storage and at least one of them writes it."""
        return bool(self.writes[a] & (self.reads[b] | self.writes[b])
                    or self.reads[a] & self.writes[b])

    def writers(self, storage: str) -> list[int]:
        """The steps writing a storage, in order."""
        return [k for k in self.touches.get(storage, []) if storage in self.writes[k]]

    def last_touch(self, storage: str) -> int:
        """The last step reading or writing a storage; past the end when it is live out."""
        if storage in self.live_out:
            return len(self.steps)
        return max(self.touches.get(storage, [-1]))

    def live_range(self, storage: str) -> tuple[int, int]:
        """(first, last) step between which a storage's bytes are in use, -1 when live in."""
        first = -1 if storage in self.live_in else min(self.touches.get(storage, [-1]))
        return first, self.last_touch(storage)

    def dependencies(self) -> nx.DiGraph:
        """Step -> step edges every order must keep: RAW, WAR and WAW on each storage."""
        dep = nx.DiGraph()
        dep.add_nodes_from(range(len(self.steps)))
        for s, ks in self.touches.items():
            writer, readers = None, []
            for k in ks:
                if s in self.writes[k]:
                    dep.add_edges_from((r, k) for r in readers if r != k)
                    if writer is not None and not readers:
                        dep.add_edge(writer, k)
                    writer, readers = k, []
                if s in self.reads[k] and s not in self.writes[k]:
                    if writer is not None:
                        dep.add_edge(writer, k)
                    readers.append(k)
        return dep


@dataclass
class Arena:
    """Byte offsets of storages in one arena buffer, and its size."""

    offsets: dict[str, int] = field(default_factory=dict)
    size: int = 0
    unshared: int = 0  # the size with every storage in bytes of its own

    def shares(self) -> dict[str, str]:
        """storage -> the first storage placed at the same offset, for reports."""
        first: dict[int, str] = {}
        out = {}
        for s, off in sorted(self.offsets.items(), key=lambda kv: kv[1]):
            if off in first:
                out[s] = first[off]
            else:
                first[off] = s
        return out


ALIGN = 64


def plan_arena(graph: SchedulerGraph, nbytes: dict[str, int], reuse: bool = True,
               pinned: set[str] = frozenset()) -> Arena:
    """Offsets for storages (`nbytes`: storage -> bytes) so that two whose live ranges overlap
    never overlap in bytes. `pinned` storages, or all without `reuse`, keep bytes of their own.

    Greedy by size, largest first, each at the lowest offset free over its whole live range.
    """
    whole = (-1, len(graph.steps))
    ranges = {s: whole if not reuse or s in pinned else graph.live_range(s) for s in nbytes}
    placed: list[tuple[int, int, int, int]] = []  # (offset, end, first, last)
    arena = Arena()
    for s in sorted(nbytes, key=lambda s: (-nbytes[s], s)):
        size = -(-max(nbytes[s], 1) // ALIGN) * ALIGN
        first, last = ranges[s]
        offset = 0
        for o, e, f, l in sorted(p for p in placed if not (p[3] < first or last < p[2])):
            if o - offset >= size:
                break
            offset = max(offset, e)
        placed.append((offset, offset + size, first, last))
        arena.offsets[s] = offset
        arena.size = max(arena.size, offset + size)
        arena.unshared += size
    return arena
