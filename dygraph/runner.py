"""Running op lists eagerly: each distinct op signature (types, attributes, the shapes and dtypes
of what is fed) becomes one small Program, built once and kept; the Executor compiles it like any
program (its plan cache and the kernel cache on disk) and later calls with that signature only
feed and fetch. One place runs eager forward ops (one op a program) and backward passes."""
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


def op_key(op: OpDesc) -> tuple:
    return (op.type, tuple((k, tuple(v)) for k, v in op.inputs.items()),
            tuple((k, tuple(v)) for k, v in op.outputs.items()),
            tuple(sorted((k, frozen(v)) for k, v in op.attrs.items() if k != "op_callstack")))


class Signature:
    """A cache of Programs by key, run by one Executor in a scope of their own."""

    def __init__(self) -> None:
        self._programs: OrderedDict[tuple, tuple[Program, list[str]]] = OrderedDict()
        self._executor = Executor()
        self._scope = Scope()

    def get(self, key: tuple, build: Callable[[], tuple[Program, list[str]]]
            ) -> tuple[Program, list[str]]:
        """The program (and its fetch names) `build` makes for `key`, built on first use."""
        entry = self._programs.get(key)
        if entry is None:
            entry = self._programs[key] = build()
            if len(self._programs) > MAX_PROGRAMS:
                self._programs.popitem(last=False)
        else:
            self._programs.move_to_end(key)
        return entry

    def execute(self, program: Program, feed: dict[str, np.ndarray],
                fetches: list[str]) -> list[np.ndarray]:
        return self._executor.run(program, feed=feed, fetch_list=fetches, scope=self._scope)


PROGRAMS = Signature()


def _canonical(op: OpDesc) -> tuple[OpDesc, dict[str, str]]:
    """op with its vars renamed in0, in1, ... / out0, ... (an in-place output gets its own)."""
    names: dict[str, str] = {}
    ins = {s: [names.setdefault(n, f"in{len(names)}") for n in v] for s, v in op.inputs.items()}
    outs, k = {}, 0
    for slot, vs in op.outputs.items():
        outs[slot] = []
        for n in vs:
            outs[slot].append(EMPTY_VAR if n == EMPTY_VAR else f"out{k}")
            k += 1
    return OpDesc(op.type, ins, outs, dict(op.attrs)), names


def run_op(op: OpDesc, values: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Run one op on arrays (input var name -> array): its output var name -> array, by the
    op's single definition, compiled once per signature."""
    canon, names = _canonical(op)
    feed = {names[n]: values[n] for n in names}
    outs = [(n, c) for s, vs in op.outputs.items() for n, c in zip(vs, canon.outputs[s])
            if n != EMPTY_VAR]
    key = (op_key(canon),) + tuple((c, a.shape, a.dtype.str) for c, a in feed.items())
    if get_op_def(op.type).stateful:
        key += (_seeding[0],)

    def build():
        program = Program()
        block = program.global_block()
        for c, a in feed.items():
            block.create_var(name=c, shape=a.shape, dtype=a.dtype, stop_gradient=True)
        for _, c in outs:
            block.create_var(name=c)
        block.append_op(canon.type, canon.inputs, canon.outputs, canon.attrs)
        return program, [c for _, c in outs]

    program, fetches = PROGRAMS.get(key, build)
    results = PROGRAMS.execute(program, feed, fetches)
    return {n: np.asarray(r) for (n, _), r in zip(outs, results)}
