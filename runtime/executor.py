"""Executor: validate the feed, find or build the compiled plan, run it over a scope."""
from __future__ import annotations

import warnings

import numpy as np

from ..codegen.compiler import find_compiler
from ..codegen.triton_plan import generate_triton, triton_device
from ..frontend.dtypes import VarType, dtype_name, to_numpy_dtype
from ..frontend.errors import FeedError, FetchError
from ..frontend.framework import Program, Variable, default_main_program
from ..frontend.ops import VarInfo
from ..passes.pipeline import lower_program
from ..passes.strategy import BuildStrategy
from .place import CPUPlace, CUDAPlace
from .plan import Plan
from .reference import ReferencePlan
from .scope import Scope, global_scope
from .tensor import LoDTensor

_warned_no_compiler = False
_MAX_PLANS = 128  # plans kept per executor once feeds carry LoD (each LoD has its own plan)


class Executor:
    """Runs programs on a place; compiled plans are cached per program version and feed shapes."""

    def __init__(self, place=None) -> None:
        self.place = place if place is not None else CPUPlace()
        self._plans: dict[tuple, Plan | ReferencePlan] = {}

    def close(self) -> None:
        """Drop every cached plan."""
        self._plans.clear()

    def run(self, program=None, feed=None, fetch_list=None, feed_var_name: str = "feed",
            fetch_var_name: str = "fetch", scope: Scope | None = None, return_numpy: bool = True,
            use_program_cache: bool = True, **_):
        """Run `program` with `feed`, returning the values of `fetch_list`."""
        program = program if program is not None else default_main_program()
        strategy = getattr(program, "_build_strategy", None)
        program = getattr(program, "_program", program)
        if not isinstance(program, Program):
            raise TypeError(f"Executor.run takes a Program or CompiledProgram, got "
                            f"{type(program).__name__}")
        scope = scope if scope is not None else global_scope()
        feed = feed or {}
        if not isinstance(feed, dict):
            # A reader's batch: one feed dict per place (fluidc runs on one).
            if not (isinstance(feed, list) and len(feed) == 1 and isinstance(feed[0], dict)):
                raise FeedError(f"feed must be a dict of var name -> array, got "
                                f"{type(feed).__name__}")
            feed = feed[0]
        readers = getattr(program, "_py_readers", None)
        if readers:  # non-iterable readers feed their vars themselves
            feed = _read_feeds(readers, feed)
        fetch_names = [_fetch_name(f) for f in (fetch_list or [])]
        arrays, lods = feed, None
        for value in feed.values():
            if type(value) is not np.ndarray:  # lists, LoDTensors: convert (the common case skips)
                arrays = {name: _as_array(name, v) for name, v in feed.items()}
                lods = _feed_lods(feed)
                break
        key = (program.fingerprint, tuple([(n, a.shape, a.dtype) for n, a in arrays.items()]),
               tuple(fetch_names), id(strategy) if strategy is not None else None, lods)
        plan = self._plans.get(key)
        if plan is None:
            if lods is not None and len(self._plans) >= _MAX_PLANS:  # one plan per LoD: bound them
                del self._plans[next(iter(self._plans))]
            plan = self._plans[key] = self._build(program, arrays, fetch_names, scope, strategy,
                                                  dict(lods or ()))
        return plan.run(arrays, scope, return_numpy)

    def _build(self, program: Program, arrays: dict[str, np.ndarray], fetches: list[str],
               scope: Scope, strategy: BuildStrategy | None, lods: dict | None = None):
        block = program.global_block()
        feed_infos = {}
        for name, arr in arrays.items():
            if not block.has_var(name):
                raise FeedError(f"feed '{name}' is not a var of the program")
            feed_infos[name] = _check_feed(block.var(name), arr)
            if lods and name in lods:
                _check_lod(name, lods[name], arr)
        for name in fetches:
            if not block.has_var(name):
                raise FetchError(f"fetch target '{name}' is not a var of the program")
        state_infos = {}
        for name, v in block.vars.items():
            if not v.persistable or v.type != VarType.LOD_TENSOR:
                continue
            holder = scope.find_var(name)
            t = holder._tensor._t if holder is not None else None
            if t is not None:
                lt = LoDTensor(t)
                state_infos[name] = VarInfo(tuple(t.shape), lt._dtype())
            else:
                state_infos[name] = v.info()
        triton = isinstance(self.place, CUDAPlace)
        lowered = lower_program(program, feed_infos, fetches, state_infos, strategy,
                                feed_lods=lods, target="triton" if triton else "c")
        if triton:  # Triton kernels, on the GPU or its interpreter
            return Plan(lowered, program.random_seed, generate=generate_triton,
                        device=triton_device(self.place.device_id))
        if find_compiler() is None:
            _warn_no_compiler()
            return ReferencePlan(program, list(arrays), fetches)
        return Plan(lowered, program.random_seed)


def _warn_no_compiler() -> None:
    global _warned_no_compiler
    if not _warned_no_compiler:
        warnings.warn("fluidc found no C compiler: programs run on the numpy reference "
                      "executor, correct but slow", RuntimeWarning, stacklevel=3)
        _warned_no_compiler = True


def _fetch_name(f) -> str:
    if isinstance(f, str):
        return f
    if isinstance(f, Variable):
        return f.name
    raise FetchError(f"fetch_list entries are Variables or names, got {type(f).__name__}")


def _as_array(name: str, value) -> np.ndarray:
    if isinstance(value, LoDTensor):
        return value.numpy()
    if isinstance(value, np.ndarray):
        return value
    try:
        return np.asarray(value)
    except Exception as e:
        raise FeedError(f"feed '{name}' cannot be read as an array: {e}") from e


def _feed_lods(feed: dict) -> tuple | None:
    """(name, LoD) of each LoDTensor feed that has a LoD, hashable; None when none has one."""
    lods = None
    for name, value in feed.items():
        if isinstance(value, LoDTensor) and value._lod:
            lods = (lods or ()) + ((name, tuple(tuple(level) for level in value._lod)),)
    return lods


def _check_lod(name: str, lod: tuple, arr: np.ndarray) -> None:
    """A fed LoD must be offsets from 0, non-decreasing, each level covering the next and the
    last covering the rows."""
    ok = all(level and level[0] == 0 and all(b >= a for a, b in zip(level, level[1:]))
             for level in lod)
    ok = ok and all(upper[-1] == len(lower) - 1 for upper, lower in zip(lod, lod[1:]))
    rows = arr.shape[0] if arr.ndim else 1
    if not ok or lod[-1][-1] != rows:
        raise FeedError(f"feed '{name}': LoD (offsets) {[list(v) for v in lod]} does not cover "
                        f"its {rows} rows; each level must run from 0 to the number of entries "
                        f"of the next, the last to the number of rows")


def _read_feeds(readers, feed: dict) -> dict:
    """`feed` with the next batch of each of the program's non-iterable readers merged in."""
    feed = dict(feed)
    for reader in readers:
        if not all(n in feed for n in reader.feed_names):
            feed.update(reader.next_feed())
    return feed


def _check_feed(var: Variable, arr: np.ndarray) -> VarInfo:
    """The feed's info, after checking dtype (always) and shape (for fluid.data vars)."""
    want = to_numpy_dtype(var.dtype)
    if arr.dtype != want:
        raise FeedError(f"feed '{var.name}' has dtype {arr.dtype}, but the var is "
                        f"{dtype_name(var.dtype)}; convert it with .astype('{dtype_name(var.dtype)}')")
    if var.need_check_feed:
        ok = len(arr.shape) == len(var.shape) and all(
            d == -1 or d == a for d, a in zip(var.shape, arr.shape))
        if not ok:
            raise FeedError(f"feed '{var.name}' has shape {list(arr.shape)}, but the var is "
                            f"declared {list(var.shape)} (-1 matches any size)")
    return VarInfo(tuple(arr.shape), var.dtype, var.lod_level)
