"""Compiled plans on disk, found from the program itself: a new process runs a program it has
compiled before without lowering or rendering it again.

The key is a hash of everything a plan is made from: the program's desc (every block's vars
with their types, shapes and flags; every op's type, slots, attributes, origin and call site),
the feed signature (names, shapes, dtypes, LoD), the fetches, the shapes and dtypes of the
scope's persistables, the values of feeds that give shapes, the BuildStrategy's every setting,
what fluid.memory_optimize marked, the batch the code is rendered for, the compiler's identity,
target and flags, the core count, the cache format and the fluidc code itself (each source
file's size and mtime). The entry (`p_<key>.pkl`, beside the kernel libraries) holds the
lowered program, the C module without its library and the arena's memory plan; the library is
then found by its own key (load_c). Like a library, an entry is read only when its size and
SHA-256 match its sidecar (`p_<key>.meta`, which names the key), and only when what it holds is
a plan of these feeds and fetches; any mismatch, unreadable or unpicklable entry is rebuilt and
rewritten, never used. Plans of Triton kernels, of programs with sub-blocks, and plans run on
the reference executor are not kept.

An entry is as trusted as the kernel libraries of the same directory (it is code of ours the
process loads); the cache directory must be the user's own.
"""
from __future__ import annotations

import enum
import functools
import hashlib
import json
import os
import pickle
from pathlib import Path

import numpy as np

from ..codegen import CModule
from ..codegen.compiler import (CACHE_FORMAT, COMPILE_FLAGS, LINK_FLAGS, atomic_write, cache_dir,
                                compiler_id, find_compiler, target_isa, verified_bytes,
                                write_sidecar, wrote)
from ..codegen.product_choice import mode as product_mode
from ..frontend.framework import Parameter, Program
from ..frontend.logs import logger
from ..frontend.ops import VarInfo
from ..passes.pipeline import LoweredProgram
from ..passes.scheduler import Arena

_log = logger("cache")
PLAN_FORMAT = "2"  # bumped whenever what an entry holds changes


class Uncacheable(Exception):
    """The program holds an attribute whose value has no exact, stable encoding."""


def _plain(value):
    """An attribute value json cannot write itself as JSON-able data, equal exactly when the
    values are (json writes tuples as lists: an attribute is read the same either way)."""
    if isinstance(value, enum.Enum):
        return [type(value).__name__, value.value]
    if isinstance(value, np.ndarray):
        return ["ndarray", value.dtype.str, list(value.shape),
                hashlib.sha256(np.ascontiguousarray(value).tobytes()).hexdigest()]
    if isinstance(value, np.generic):
        return ["scalar", value.dtype.str, value.item()]
    if isinstance(value, (set, frozenset)):
        return ["set", sorted(map(repr, value))]
    raise Uncacheable(f"{type(value).__name__} attribute")


def program_digest(program: Program) -> str:
    """A hash of the program's desc: its random seed, blocks, vars and ops as the passes read
    them."""
    blocks = []
    for b in program.blocks:
        vars_ = [(n, int(v.type), int(v.dtype) if v.dtype is not None else None,
                  list(v.shape), v.lod_level, v.persistable, v.is_data, v.need_check_feed,
                  v.stop_gradient, isinstance(v, Parameter)) for n, v in b.vars.items()]
        ops = [(op.desc.type, op.desc.inputs, op.desc.outputs, op.desc.attrs, op.desc.origin,
                op.desc.callsite) for op in b.ops]
        blocks.append((b.idx, b.parent_idx, b.forward_block_idx, vars_, ops))
    data = json.dumps([program.random_seed, blocks], default=_plain, allow_nan=True)
    return hashlib.sha256(data.encode()).hexdigest()


@functools.lru_cache(maxsize=None)
def code_version() -> str:
    """fluidc's own code: every source and template file's path, size and mtime."""
    root = Path(__file__).resolve().parent.parent
    h = hashlib.sha256()
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames
                             if d not in ("tests", "bench", "__pycache__") and not d.startswith("."))
        for f in sorted(filenames):
            if f.endswith((".py", ".j2")):
                st = os.stat(os.path.join(dirpath, f))
                h.update(f"{os.path.relpath(os.path.join(dirpath, f), root)} {st.st_size} "
                         f"{st.st_mtime_ns}\n".encode())
    return h.hexdigest()


def _infos(infos: dict[str, VarInfo]) -> list:
    return sorted((n, list(i.shape), int(i.dtype), i.lod_level) for n, i in infos.items())


def plan_key(program: Program, feed_infos: dict[str, VarInfo], fetches: list[str],
             state_infos: dict[str, VarInfo], strategy, lods: dict | None,
             shape_values: dict[str, np.ndarray] | None, batch: int | None) -> str | None:
    """The entry key of the C plan these make; None when some part has no exact encoding."""
    cc = find_compiler()
    marked = getattr(program, "_memory_optimize", None)
    try:
        parts = [PLAN_FORMAT, CACHE_FORMAT, code_version(), cc, compiler_id(cc), target_isa(cc),
                 *COMPILE_FLAGS, *LINK_FLAGS, str(os.cpu_count()), product_mode(),
                 program_digest(program),
                 json.dumps([list(feed_infos), _infos(feed_infos), list(fetches),
                             _infos(state_infos), sorted((lods or {}).items()),
                             {n: _plain(np.asarray(v)) for n, v in (shape_values or {}).items()},
                             sorted(vars(strategy).items()) if strategy is not None else None,
                             sorted(marked.pinned(program.global_block()))
                             if marked is not None else None, batch],
                            default=_plain)]
    except (Uncacheable, TypeError, ValueError) as e:  # json: keys that are not str or int
        _log.debug("plan not cached on disk: %s", e)
        return None
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:32]


def load_plan(key: str, feeds: list[str], fetches: list[str]
              ) -> tuple[LoweredProgram, CModule, Arena] | None:
    """The (lowered program, module without library, arena plan) stored under `key`, if the
    entry is whole and holds a plan of these feeds and fetches; else None."""
    path = cache_dir() / f"p_{key}.pkl"
    data = verified_bytes(path, key)
    if data is None:
        return None
    try:
        lowered, module, arena = pickle.loads(data)
    except Exception as e:  # noqa: BLE001 - whatever a bad entry raises, it is rebuilt
        _log.debug("plan entry %s unreadable (%s): rebuilt", path, e)
        return None
    if not (isinstance(lowered, LoweredProgram) and isinstance(module, CModule)
            and isinstance(arena, Arena) and module.lib is None and lowered.feeds == feeds
            and lowered.fetches == fetches):
        _log.debug("plan entry %s holds another plan: rebuilt", path)
        return None
    try:
        os.utime(path)
    except OSError:
        pass
    _log.debug("plan found on disk: %s", path)
    return lowered, module, arena


def store_plan(key: str, lowered: LoweredProgram, module: CModule, arena: Arena) -> None:
    """Write the entry of `key` (the library is already in the cache under its own key)."""
    d = cache_dir()
    path = d / f"p_{key}.pkl"
    try:
        data = pickle.dumps((lowered, CModule(module.source, module.schedule, module.slots,
                                              units=module.units, batch=module.batch,
                                              pack=module.pack, family=module.family),
                             arena),
                            protocol=pickle.HIGHEST_PROTOCOL)
    except (pickle.PicklingError, TypeError, AttributeError) as e:
        _log.debug("plan not cached on disk: %s", e)
        return
    try:
        atomic_write(path, data)
        meta = write_sidecar(path, key, data)
    except OSError as e:  # a read-only or full cache dir costs the next process a build
        _log.debug("plan entry %s not written: %s", path, e)
        return
    wrote(d, len(data) + len(meta), keep=path.stem)
