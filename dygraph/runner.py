"""Running ops eagerly: each distinct op signature (type, attributes, the shapes and dtypes of
what it reads) becomes one small Program, built once and kept; the Executor compiles it like
any program (its plan cache and the kernel cache on disk) and later calls with that signature
only feed and fetch. One place runs eager forward ops (one op a program) and backward passes.

The tracer asks for an op's entry by `signature` (computed from the call's tensors and raw
attributes, without building an OpDesc); a hit skips the op's checks and shape inference,
which the first call with that signature made (they depend on nothing the key leaves out)."""
from __future__ import annotations

from collections import OrderedDict
from typing import Callable

import numpy as np

from ..frontend.framework import Program
from ..frontend.ops import OpDesc, get_op_def
from ..frontend.ops.registry import EMPTY_VAR
from ..runtime.executor import Executor
from ..runtime.scope import Scope

MAX_PROGRAMS = 512  # distinct signatures kept (least recently used go first)
_seeding = [0]  # paddle.seed calls so far: random ops' programs are rebuilt after each


def reseed(value: int):
    """paddle.seed: torch's generator, and new plans (so new streams) for eager random ops."""
    from ..runtime.random import seed
    generator = seed(value)
    _seeding[0] += 1
    return generator


def frozen(value):
    """A hashable copy of an attribute value (lists become tuples, item by item)."""
    if isinstance(value, (list, tuple)):
        return tuple(frozen(v) for v in value)
    if isinstance(value, dict):
        return tuple(sorted((k, frozen(v)) for k, v in value.items()))
    if isinstance(value, np.ndarray):
        return (value.dtype.str, value.shape, value.tobytes())
    return value


class Unkeyable(Exception):
    """A call the signature cache cannot key (the op then takes the checked path)."""


_PLAIN = (bool, int, float, str, bytes, type(None), np.generic)


def _keyed(value):
    """A hashable copy of an attribute value made of plain data (a float by its bits: == would
    merge -0.0 with 0.0 and never match a NaN); Unkeyable for anything else (an object's
    identity is no key to its value)."""
    if isinstance(value, float):
        return ("float", value.hex())
    if isinstance(value, _PLAIN):
        return value
    if isinstance(value, (list, tuple)):
        return tuple([_keyed(v) for v in value])
    if isinstance(value, dict):
        return tuple(sorted((k, _keyed(v)) for k, v in value.items()))
    if isinstance(value, np.ndarray) and value.dtype != object:
        return frozen(value)
    raise Unkeyable(type(value).__name__)


def op_key(op: OpDesc) -> tuple:
    return (op.type, tuple((k, tuple(v)) for k, v in op.inputs.items()),
            tuple((k, tuple(v)) for k, v in op.outputs.items()),
            tuple(sorted((k, frozen(v)) for k, v in op.attrs.items() if k != "op_callstack")))


def _slot_items(v) -> tuple:
    if v is None:
        return ()
    return v if isinstance(v, (list, tuple)) else (v,)


def signature(op_type: str, inputs, outputs, attrs, tensor_type) -> tuple | None:
    """(key, input tensors, output tensors) of a call whose inputs and outputs are all tensors
    (`tensor_type`) with values: the inputs distinct and in order of first use,
    the outputs in slot order without the EMPTY_VAR ones, as `Prepared` orders them; None for
    any other call. The key: op type, each slot's tensors (a new one by shape and dtype, a
    repeat by its index), the attributes as given, and the seeding epoch of a random op.
    Inputs are told apart by identity, not name (two layers built under one
    unique_name.guard hold parameters of equal names); a call reading two different tensors of
    one name gives None (the checked path refuses it)."""
    named: dict = {}
    parts: list = [op_type]
    seen: dict[int, int] = {}
    ins: list = []
    for slot, v in (inputs or {}).items():
        items = _slot_items(v)
        if not items:
            continue
        parts.append(slot)
        for t in items:
            if not isinstance(t, tensor_type):
                return None
            i = seen.get(id(t))
            if i is None:
                a = t._value
                if a is None or named.setdefault(t.name, t) is not t:
                    return None
                seen[id(t)] = len(ins)
                ins.append(t)
                parts.append((a.shape, a.dtype))
            else:
                parts.append(i)
    parts.append(None)
    outs: list = []
    for slot, v in (outputs or {}).items():
        items = _slot_items(v)
        if not items:
            continue
        parts.append(slot)
        for t in items:
            if isinstance(t, tensor_type):
                outs.append(t)
                parts.append(True)
            elif isinstance(t, str) and t == EMPTY_VAR:
                parts.append(False)
            else:
                return None
    try:
        parts.append(tuple([(k, _keyed(v)) for k, v in attrs.items()]) if attrs else ())
    except Unkeyable:
        return None
    if get_op_def(op_type).stateful:
        parts.append(_seeding[0])
    return tuple(parts), ins, outs


def _canonical(op: OpDesc) -> tuple[OpDesc, list[str]]:
    """op with its vars renamed: inputs in0, in1, ... in order of first use, outputs out0, ...
    (an in-place output gets its own); and the input names in that order."""
    names: dict[str, str] = {}
    ins = {s: [names.setdefault(n, f"in{len(names)}") for n in v] for s, v in op.inputs.items()}
    outs, k = {}, 0
    for slot, vs in op.outputs.items():
        outs[slot] = []
        for n in vs:
            outs[slot].append(EMPTY_VAR if n == EMPTY_VAR else f"out{k}")
            k += 1
    attrs = {a: v for a, v in op.attrs.items() if a != "op_callstack"}
    return OpDesc(op.type, ins, outs, attrs), list(names.values())


def prepare(op: OpDesc, values: list[np.ndarray]) -> "Prepared":
    """The entry running `op` (checked and inferred) on arrays of these shapes and dtypes
    (`values`: its distinct inputs in order of first use), shared by every op that is the
    same up to var names."""
    canon, feeds = _canonical(op)
    key = ("op", op_key(canon), tuple((a.shape, a.dtype.str) for a in values))
    if get_op_def(op.type).stateful:
        key += (_seeding[0],)
    return PROGRAMS.get(key, lambda: Prepared(canon, feeds, values))


class Prepared:
    """One op signature ready to run: its canonical desc (_canonical), its key, and the
    one-op program that runs it."""

    __slots__ = ("desc", "key", "feeds", "fetches", "program", "grad")

    def __init__(self, canon: OpDesc, feeds: list[str], values: list[np.ndarray]) -> None:
        self.desc = canon
        self.key = op_key(canon)
        self.feeds = feeds
        self.fetches = [c for vs in canon.outputs.values() for c in vs if c != EMPTY_VAR]
        self.grad = get_op_def(canon.type).grad is not None
        self.program = Program()
        block = self.program.global_block()
        for c, a in zip(feeds, values):
            block.create_var(name=c, shape=a.shape, dtype=a.dtype, stop_gradient=True)
        for c in self.fetches:
            block.create_var(name=c)
        block.append_op(canon.type, canon.inputs, canon.outputs, canon.attrs)

    @staticmethod
    def order(op: OpDesc) -> tuple[list[str], list[str]]:
        """The op's distinct input var names and its output var names, in the entry's order."""
        return (list(dict.fromkeys(op.input_arg_names)),
                [n for vs in op.outputs.values() for n in vs if n != EMPTY_VAR])

    def named(self, ins: list, outs: list) -> OpDesc:
        """The desc with the vars of a call (its input and output tensors) for canonical names."""
        names = dict(zip(self.feeds, [t.name for t in ins]))
        names.update(zip(self.fetches, [t.name for t in outs]))
        names[EMPTY_VAR] = EMPTY_VAR
        return OpDesc(self.desc.type,
                      {s: [names[c] for c in vs] for s, vs in self.desc.inputs.items()},
                      {s: [names[c] for c in vs] for s, vs in self.desc.outputs.items()},
                      dict(self.desc.attrs))

    def run(self, values: list[np.ndarray]) -> list[np.ndarray]:
        """The op's outputs (new arrays, in `fetches` order) on these input arrays."""
        return PROGRAMS.execute(self.program, dict(zip(self.feeds, values)), self.fetches)


class Signature:
    """A cache of what is built per key (an op's Prepared, a backward's Program), least
    recently used first out, and one Executor, in a scope of its own, that runs the programs."""

    def __init__(self) -> None:
        self._entries: OrderedDict[tuple, object] = OrderedDict()
        self._executor = Executor()
        self._scope = Scope()

    def find(self, key: tuple):
        entry = self._entries.get(key)
        if entry is not None:
            self._entries.move_to_end(key)
        return entry

    def put(self, key: tuple, entry) -> None:
        self._entries[key] = entry
        if len(self._entries) > MAX_PROGRAMS:
            self._entries.popitem(last=False)

    def get(self, key: tuple, build: Callable[[], object]):
        """The entry `build` makes for `key`, built on first use."""
        entry = self.find(key)
        if entry is None:
            entry = build()
            self.put(key, entry)
        return entry

    def execute(self, program: Program, feed: dict[str, np.ndarray],
                fetches: list[str]) -> list[np.ndarray]:
        for value in feed.values():
            if type(value) is not np.ndarray:  # (a numpy scalar...): Executor.run converts it
                return self._executor.run(program, feed=feed, fetch_list=fetches,
                                          scope=self._scope)
        return self._executor.run_arrays(program, feed, fetches, self._scope)


PROGRAMS = Signature()
