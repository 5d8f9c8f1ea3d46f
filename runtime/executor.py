"""Executor: validate the feed, find or build the compiled plan, run it over a scope."""
from __future__ import annotations

import contextlib
import ctypes
import gc
import logging
import threading
import time
import warnings
import weakref
from collections import OrderedDict

import numpy as np

from ..codegen import generate_c
from ..codegen.c_matmul import prefetch_helpers
from ..codegen.compiler import find_compiler
from ..codegen.product_choice import choose_products
from ..codegen.triton_plan import generate_triton, triton_device
from ..frontend.callsite import user_stacklevel
from ..frontend.dtypes import VarType, to_numpy_dtype
from ..frontend.errors import FeedError, FetchError, did_you_mean
from ..frontend.framework import Operator, Program, Variable, default_main_program, static_input
from ..frontend.logs import logger
from ..frontend.ops import VarInfo
from ..frontend.ops.distributed import TRAINER_OPS
from ..passes.control_flow import BranchShapes
from ..passes.export import write_graphs
from ..passes.pipeline import lowering
from ..passes.shape_inputs import shape_input_names
from ..passes.prune import prune_program
from ..passes.strategy import BuildStrategy
from .place import CUDAPlace, expected_place
from .control_flow import SubBlocks
from .plan import Plan, scope_lock
from .plan_cache import load_plan, plan_key, store_plan
from .tiered import Build, enabled as tiering_enabled, lower_products, tiered_plan
from .reference import ReferencePlan, uses_tensor_arrays
from .scope import Scope, global_scope
from .staged import StagedPlan
from .tensor import LoDTensor

_warned_no_compiler = False
# Plans kept per executor, least recently used dropped first: a plan is per feed signature
# (every batch size, every LoD has its own), and each holds an arena and a loaded library.
_MAX_PLANS = 128
_log = logger("plans")
_MAX_PRUNED = 32  # pruned copies of programs kept for use_prune runs
# Plans are built one at a time: the passes and the compiler cache are not reentrant, and two
# threads missing the same plan build it once.
_build_lock = threading.RLock()


class Executor:
    """Runs programs on a place; compiled plans are cached per program version and feed shapes.

    One executor may run programs from several threads at once: a run takes an instance of the
    plan no other thread is running (each has its own buffers), and runs that write persistables
    (training steps) are serialized per scope, as Paddle's executor leaves them.
    """

    def __init__(self, place=None) -> None:
        self.place = place if place is not None else expected_place()
        self._plans: OrderedDict[tuple, Plan | _Serialized] = OrderedDict()  # LRU order
        self._mru = None  # the plan at the end of _plans: hits on it need no reordering
        self._pruned_programs: OrderedDict[tuple, Program] = OrderedDict()  # use_prune's copies
        self._program_keys: dict[int, dict[tuple, None]] = {}  # program serial -> its plan keys
        self._finalizers: dict[int, weakref.finalize] = {}  # program serial -> its finalizer
        # Program fingerprint -> the fed vars whose values shape its plans (reshape2's Shape
        # input): only such programs are listed, so other runs never look their feeds' values up.
        self._shape_feeds: dict[tuple, list[str]] = {}
        self._trainer = False  # ran ops of a parameter-server job (close() leaves it)
        # An executor dropped without close() takes its programs' finalizers with it.
        weakref.finalize(self, _detach_all, self._finalizers).atexit = False

    def close(self) -> None:
        """Drop every cached plan (their arenas, and the libraries no other plan uses). An
        executor that ran a parameter-server trainer program tells the servers this trainer
        is done, as Paddle's does."""
        if self._trainer:
            from ..distributed import ps_client
            self._trainer = False
            ps_client.close()
        with _build_lock:
            _detach_all(self._finalizers)
            self._program_keys.clear()
            self._shape_feeds.clear()
            self._pruned_programs.clear()
            plans = list(self._plans.values())
            self._plans.clear()
            self._mru = None
            while plans:
                plans.pop().release()
            _give_back_memory()

    def run(self, program=None, feed=None, fetch_list=None, feed_var_name: str = "feed",
            fetch_var_name: str = "fetch", scope: Scope | None = None, return_numpy: bool = True,
            use_program_cache: bool = True, use_prune: bool = False, **_):
        """Run `program` with `feed`, returning the values of `fetch_list`.

        use_prune (or optimizer ops in fetch_list, as minimize() returns them) runs only the
        ops the fetches and those updates need, as Paddle does; pruned programs are cached.
        """
        program = program if program is not None else default_main_program()
        parallel = getattr(program, "_data_parallel", None)
        if parallel is not None:  # with_data_parallel: a run per place (runtime/data_parallel.py)
            return parallel.run(self, feed, fetch_list, scope, return_numpy)
        strategy = getattr(program, "_build_strategy", None)
        program = getattr(program, "_program", program)
        if not isinstance(program, Program):
            raise TypeError(f"Executor.run takes a Program or CompiledProgram, got "
                            f"{type(program).__name__}")
        ops = program.global_block().ops
        if ops and ops[-1].type == "listen_and_serv":  # a pserver program: serve it
            from ..distributed.pserver import serve
            return serve(self, program, scope if scope is not None else global_scope())
        fetch_list = fetch_list or ()
        if isinstance(fetch_list, (str, Variable)):  # Paddle takes one target unlisted too
            fetch_list = [fetch_list]
        fetch_list = [static_input(program.global_block(), f) for f in _flat(fetch_list)]
        fetch_names = [f if type(f) is str else f.name if isinstance(f, Variable) else None
                       for f in fetch_list]
        if use_prune or None in fetch_names:
            fetch_names, optimize_ops = self._split_optimize_ops_in_fetch_list(fetch_list)
            program = self._pruned(program, feed, fetch_names, optimize_ops)
        scope = scope if scope is not None else global_scope()
        if not isinstance(scope, Scope):
            raise TypeError(f"Executor.run: scope must be a Scope, got {type(scope).__name__}")
        schedule = getattr(program, "lr_scheduler", None)
        if schedule is not None:  # paddle.optimizer.lr: the rate this run uses
            _set_learning_rate(schedule, scope)
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
        arrays, lods = feed, None
        for value in feed.values():
            if type(value) is not np.ndarray:  # lists, LoDTensors: convert (the common case skips)
                block = program.global_block()
                arrays = {name: _as_array(name, v, block) for name, v in feed.items()}
                lods = _feed_lods(feed)
                break
        return self.run_arrays(program, arrays, fetch_names, scope, strategy, lods,
                               return_numpy)

    def run_arrays(self, program: Program, arrays: dict[str, np.ndarray],
                   fetch_names: list[str], scope: Scope, strategy=None, lods=None,
                   return_numpy: bool = True):
        """Run with checked arguments: feeds as numpy arrays (their LoDs apart), fetches by
        name, a Scope (what `run` makes of its arguments; eager ops call it directly)."""
        key = (program.fingerprint, tuple([(n, a.shape, a.dtype) for n, a in arrays.items()]),
               tuple(fetch_names), id(strategy) if strategy is not None else None, lods)
        shaping = self._shape_feeds.get(program.fingerprint) if self._shape_feeds else None
        if shaping:
            key += (_values_key(arrays, shaping),)
        plan = self._plans.get(key)
        if plan is None and shaping is None:
            shaping = [n for n in shape_input_names([op.desc for op in program.global_block().ops])
                       if n in arrays]
            if shaping:  # first seen: its plans are per value of those feeds
                self._shape_feeds[program.fingerprint] = shaping
                key += (_values_key(arrays, shaping),)
                plan = self._plans.get(key)
        if plan is None:
            plan = self._plan(key, program, arrays, fetch_names, scope, strategy, lods,
                              {n: arrays[n] for n in shaping or ()})
        elif plan is not self._mru:
            self._touch(key, plan)
        if plan.locks:  # it writes persistables: one run at a time per scope
            result = _run_locked(plan, arrays, scope, return_numpy)
        else:
            result = _run_instance(plan, arrays, scope, return_numpy)
        if plan.kept_feeds:
            _keep_feeds(plan.kept_feeds, arrays, dict(lods or ()), scope)
        return result

    @classmethod
    def _split_optimize_ops_in_fetch_list(cls, fetch_list) -> tuple[list[str], list[Operator]]:
        """(fetch names, optimizer ops) of a fetch list that may hold minimize()'s ops, lists
        of them, or its (ops, params_grads) tuple."""
        names, ops = [], []

        def take(item):
            if isinstance(item, Operator):
                if not item._is_optimize_op():
                    raise TypeError("The operator in fetch_list is not an optimize_op")
                ops.append(item)
            elif isinstance(item, (str, Variable)):
                names.append(_fetch_name(item))
            else:
                raise FetchTypeError(f"The item in fetch_list should be str, variable or "
                                     f"optimize_op, but received {type(item)}.")

        for i, item in enumerate(fetch_list):
            if isinstance(item, list):
                for x in item:
                    take(x)
            elif isinstance(item, tuple):
                if not isinstance(item[0], (list, tuple)):
                    raise TypeError(f"Requires fetch_list[{i}][0] shall be one of (list, tuple) "
                                    f"when type(fetch_list[{i}]) is `tuple`, but received "
                                    f"fetch_list[{i}][0]'s type is `{type(item[0]).__name__}`.")
                for x in item[0]:
                    take(x)
            else:
                take(item)
        return names, ops

    @classmethod
    def _prune_program(cls, program: Program, feed, fetch_names: list[str],
                       optimize_ops: list[Operator]) -> Program:
        """The program cut to the fetches and the optimizer ops (all of them when none are
        named), fed vars cutting it."""
        if not optimize_ops:
            optimize_ops = [op for op in program.global_block().ops if op._is_optimize_op()]
        return prune_program(program, _feed_names(feed), list(fetch_names) + list(optimize_ops))

    def _pruned(self, program: Program, feed, fetch_names: list[str],
                optimize_ops: list[Operator]) -> Program:
        """The cached pruned copy of `program` for these feeds, fetches and optimizer ops."""
        key = (program.fingerprint, tuple(_feed_names(feed)), tuple(fetch_names),
               tuple(id(op) for op in optimize_ops))
        pruned = self._pruned_programs.get(key)
        if pruned is None:
            pruned = self._prune_program(program, feed, fetch_names, optimize_ops)
            self._pruned_programs[key] = pruned
            while len(self._pruned_programs) > _MAX_PRUNED:
                self._pruned_programs.popitem(last=False)
        return pruned

    def _touch(self, key: tuple, plan) -> None:
        """Make `plan` the most recently used."""
        try:
            self._plans.move_to_end(key)
        except KeyError:  # evicted or closed by another thread meanwhile
            return
        self._mru = plan

    def _plan(self, key: tuple, program: Program, arrays: dict, fetches: list[str], scope: Scope,
              strategy, lods, shape_values: dict[str, np.ndarray]):
        """Build the plan of `key` (once, whichever threads ask), drop the least recently used
        beyond _MAX_PLANS, and have the program's plans dropped when it is collected."""
        with _build_lock:
            plan = self._plans.get(key)
            if plan is None:
                start = time.perf_counter()
                with _no_cycle_collection():
                    plan = self._build(program, arrays, fetches, scope, strategy,
                                       dict(lods or ()), shape_values)
                plan.strategy = strategy  # its id is in the key: keep it from being reused
                plan.kept_feeds = _kept_feeds(program, arrays)
                serial = key[0][0]
                if _log.isEnabledFor(logging.DEBUG):
                    _log.debug("program %d: plan built in %.1f ms (%s): feeds %s, fetches %s",
                               serial, 1e3 * (time.perf_counter() - start),
                               _why_built(key, self._program_keys.get(serial, ())),
                               {n: list(a.shape) for n, a in arrays.items()}, fetches)
                self._plans[key] = plan
                self._program_keys.setdefault(serial, {})[key] = None
                if serial not in self._finalizers:
                    f = weakref.finalize(program, _forget_program, weakref.ref(self), serial)
                    f.atexit = False
                    self._finalizers[serial] = f
                while len(self._plans) > max(1, _MAX_PLANS):
                    old, dropped = self._plans.popitem(last=False)
                    dropped.release()
                    keys = self._program_keys.get(old[0][0])
                    if keys is not None:
                        keys.pop(old, None)
            else:
                self._touch(key, plan)
            self._mru = plan
            return plan

    def _build(self, program: Program, arrays: dict[str, np.ndarray], fetches: list[str],
               scope: Scope, strategy: BuildStrategy | None, lods: dict | None = None,
               shape_values: dict[str, np.ndarray] | None = None):
        block = program.global_block()
        self._trainer = self._trainer or any(op.type in TRAINER_OPS for op in block.ops)
        feed_infos = {}
        for name, arr in arrays.items():
            if not isinstance(name, str):
                raise FeedError(f"feed keys are var names (str), got {type(name).__name__} "
                                f"{getattr(name, 'name', name)!r:.60}")
            if not block.has_var(name):  # Paddle ignores it too; a missing var still raises
                data = [v.name for v in block.vars.values() if v.is_data]
                warnings.warn(f"feed '{name}' is not a var of the program; it is ignored"
                              f"{did_you_mean(name, data)}", stacklevel=user_stacklevel())
                continue
            feed_infos[name] = _check_feed(block.var(name), arr, bool(lods and name in lods))
            if lods and name in lods:
                _check_lod(name, lods[name], arr)
        written = {n for op in block.ops for n in op.output_arg_names}
        for name in fetches:
            if not block.has_var(name):
                raise FetchError(f"fetch target '{name}' is not a var of the program"
                                 f"{did_you_mean(name, block.vars)}")
            if name not in written and name not in feed_infos and (
                    not block.var(name).persistable or scope.find_var(name) is None):
                raise FetchError(f"fetch target '{name}' has no value: no op of the program "
                                 f"writes it, it is not fed and it is not a persistable var "
                                 f"of the scope")
        # As Paddle's interpreter, make the program's persistable vars in the scope before any
        # op runs: they exist (uninitialized) even if building or running then fails.
        persistable = {n for n, v in block.vars.items() if v.persistable}
        for op in block.ops:
            for n in op.desc.input_arg_names + op.desc.output_arg_names:
                if n in persistable and scope.find_var(n) is None:
                    scope.var(n)
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
        if uses_tensor_arrays(program):
            return _Serialized(ReferencePlan(program, list(arrays), fetches, lods))
        batch = _batch(block, feed_infos, dict(lods or ()))
        # A plan of C kernels alone is kept on disk, found by a key from the program itself
        # (not where lowering must run to write the strategy's debug graphs).
        cacheable = not triton and program.num_blocks == 1 and find_compiler() is not None \
            and not (strategy is not None and strategy.debug_graphviz_path)
        disk_key = plan_key(program, feed_infos, fetches, state_infos, strategy, lods,
                            shape_values, batch) if cacheable else None
        found = load_plan(disk_key, list(feed_infos), fetches) if disk_key else None
        if found is not None:
            lowered, module, arena = found
            return Plan(lowered, program.random_seed, module=module.load(), arena_plan=arena)
        if not triton:
            prefetch_helpers([op.type for op in block.ops])
        lower = lowering(program, feed_infos, fetches, state_infos, strategy, feed_lods=lods,
                         target="triton" if triton else "c", shape_values=shape_values,
                         choose_products=choose_products)
        tier0 = None  # tier 0's module, where the plan has one (tiered.lower_products)
        try:
            if triton or program.num_blocks > 1:
                lowered = lower(written_products=True)
            else:
                lowered, tier0 = lower_products(lower)
        except BranchShapes as e:  # a value's shape is the taken branch's: run in stages
            staged = StagedPlan(program, e.op, list(feed_infos), fetches, Executor(self.place),
                                strategy)
            staged._free = _Always(staged)
            return staged
        if strategy is not None and strategy.debug_graphviz_path:
            write_graphs(strategy.debug_graphviz_path, program, lowered)
        # Each sub-block is a program of its own, its plans cached by an executor of this plan.
        sub_blocks = SubBlocks(Executor(self.place)) if program.num_blocks > 1 else None
        if triton:  # Triton kernels, on the GPU or its interpreter
            return Plan(lowered, program.random_seed, generate=generate_triton,
                        device=triton_device(self.place.device_id), sub_blocks=sub_blocks)
        if find_compiler() is None:
            _warn_no_compiler()
            return _Serialized(ReferencePlan(program, list(arrays), fetches, lods))
        module = generate_c(lowered.steps, lowered.infos, lowered.storage, load=False,
                            batch=batch)

        seed = program.random_seed  # not the program: a compile under way must not keep it

        def compiled() -> Plan:
            # The compiler runs while the plan is made (its arena planned): a plan needs its
            # library only when it binds a scope.
            loading = Build(module.load)
            try:
                plan = Plan(lowered, seed, sub_blocks=sub_blocks, module=module)
            finally:
                loading.thread.join()
            loading.result()
            if disk_key:
                store_plan(disk_key, lowered, plan.module, plan.arena_plan)
            return plan

        if sub_blocks is not None or not tiering_enabled():
            return compiled()
        # The compiler starts now; meanwhile, where the library is not built yet, the first
        # runs are made ready so as not to wait for it (tiered.py).
        build = Build(compiled)
        tiered = tiered_plan(lowered, program.random_seed, module, build, tier0)
        if tiered is not None:
            tiered._free = _Always(tiered)
            return tiered
        return build.result()


@contextlib.contextmanager
def _no_cycle_collection():
    """The cycle collector paused while a plan is built: the passes make many small objects
    that live until the build ends, and collections over them (and every object of the
    process) took 40% of lowering a 760-op program. Builds hold _build_lock, so only the
    outermost one resumes it."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


class FetchTypeError(FetchError, TypeError):
    """A fetch_list entry that is neither a var, a name nor an optimizer op."""


class _Serialized:
    """A plan whose runs all hold the scope's run lock (the numpy reference executor: it reads
    and writes back every persistable it touches). Runs in different scopes share it."""

    locks = True

    def __init__(self, plan: ReferencePlan) -> None:
        self.plan = plan
        self._free = _Always(self)
        self.scope = None
        self.last_lock = None

    def release(self) -> None:
        pass

    def __getattr__(self, name):
        return getattr(self.plan, name)

    def spawn(self) -> "_Serialized":
        return self

    def run(self, feed, scope, return_numpy=True):
        return self.plan.run(feed, scope, return_numpy)


class _Always:
    """The pool of a plan every run may share: always hands out that plan."""

    def __init__(self, plan) -> None:
        self.plan = weakref.ref(plan)  # no cycle: the plan goes when the cache drops it

    def pop(self):
        return self.plan()

    def append(self, _plan) -> None:
        pass

    def __bool__(self) -> bool:
        return False


def _run_locked(plan, arrays: dict, scope: Scope, return_numpy: bool) -> list:
    """Run a plan that writes persistables under its scope's run lock, taken before an instance
    is: runs into one scope then share one instance instead of each waiting with its own."""
    last = plan.last_lock  # (scope, lock), read at once
    if last is not None and last[0] is scope:
        lock = last[1]
    else:
        lock = scope_lock(scope)
        plan.last_lock = (scope, lock)
    with lock:
        return _run_instance(plan, arrays, scope, return_numpy)


def _kept_feeds(program: Program, arrays: dict) -> tuple[str, ...]:
    """The fed vars a run leaves in the scope as fed: persistable ones no op overwrites (those
    the plan writes back itself)."""
    block = program.global_block()
    fed = [n for n in arrays if isinstance(n, str) and block.has_var(n)
           and block.var(n).persistable]
    if not fed:
        return ()
    written = {n for op in block.ops for n in op.output_arg_names}
    return tuple(n for n in fed if n not in written)


def _keep_feeds(names: tuple, arrays: dict, lods: dict, scope: Scope) -> None:
    """As Paddle's feed ops write them, persistable fed vars keep the fed value (and LoD) in
    the scope after the run."""
    for name in names:
        t = scope.var(name).get_tensor()
        t.set(arrays[name])
        t.set_lod(lods.get(name, ()))


def _set_learning_rate(schedule, scope: Scope) -> None:
    """Write the schedule's current rate into its var, as Paddle's Executor does before each
    run; skipped while the scope lacks the var (the startup program has not run)."""
    holder = scope.find_var(schedule._var_name)
    t = holder._tensor._t if holder is not None else None
    if t is not None:
        t.fill_(schedule())


def _run_instance(plan, arrays, scope: Scope, return_numpy: bool):
    """Run on an instance of `plan` no other thread is running (list ops are atomic), one
    already bound to `scope` if an idle one is; it goes back to the pool after."""
    free = plan._free
    try:
        inst = free.pop()
    except IndexError:
        inst = plan.spawn()
    if inst.scope is not scope and free:
        inst = _swap(free, inst, scope)
    try:
        return inst.run(arrays, scope, return_numpy)
    finally:
        free.append(inst)


def _swap(free: list, inst, scope: Scope):
    """An idle instance already bound to `scope` in place of `inst`, if there is one (threads
    with a scope each then do not re-bind on every run). Only atomic list operations."""
    for other in reversed(free[:]):
        if other.scope is scope:
            try:
                free.remove(other)
            except ValueError:  # another thread took it
                continue
            free.append(inst)
            return other
    return inst


_malloc_trim = None


def _give_back_memory() -> None:
    """Hand the heap pages freed plans leave to the OS. glibc keeps them: after a large block is
    freed it raises its mmap threshold, so later arenas come from the heap and stay in the
    process when freed (measured: 400 batch sizes, +67 MB RSS kept after close() without this)."""
    global _malloc_trim
    if _malloc_trim is None:
        try:
            _malloc_trim = ctypes.CDLL(None).malloc_trim  # glibc only
            _malloc_trim.argtypes = [ctypes.c_size_t]
        except (OSError, AttributeError):
            _malloc_trim = False
    if _malloc_trim:
        _malloc_trim(0)


def _detach_all(finalizers: dict) -> None:
    for f in list(finalizers.values()):
        f.detach()
    finalizers.clear()


def _batch(block, feed_infos: dict[str, VarInfo], lods: dict) -> int | None:
    """The batch size of a run: the leading dim of the feeds whose vars declare it -1, when
    they agree; where they do not, that of the feeds with a LoD when those agree (a batch of
    sequences: the row count, which changes every batch, is tried as the batch, the sequence
    count stays a number of the source); else None. Plans of different sizes may share a
    library (codegen.dynamic_batch, which checks every size's source, so this only picks
    which number is tried as the batch)."""
    dynamic = {n: info.shape[0] for n, info in feed_infos.items()
               if info.shape and tuple(block.var(n).shape[:1]) == (-1,)}
    for names in (dynamic, [n for n in dynamic if lods.get(n)]):
        sizes = {dynamic[n] for n in names}
        if len(sizes) == 1:
            return sizes.pop()
    return None


def _values_key(arrays: dict[str, np.ndarray], names: list[str]) -> tuple:
    """The values of the feeds that shape a plan (tiny int vectors), as part of its key."""
    return tuple(arrays[n].tobytes() if n in arrays else None for n in names)


# What each part of a plan key is (Executor.run builds the key), for the plans log.
_KEY_PARTS = ("the program changed", "new feed shapes or dtypes", "new fetch list",
              "another BuildStrategy", "new LoD", "new values of feeds that give shapes")


def _why_built(key: tuple, keys_of_program) -> str:
    """Why the plan of `key` was built: what differs from the program's latest plan."""
    prev = next(reversed(keys_of_program), None)
    if prev is None:
        return "first run of this program"
    diff = [text for text, a, b in zip(_KEY_PARTS, key, prev) if a != b]
    return ", ".join(diff) or "the plan had been dropped (least recently used)"


def _forget_program(executor_ref, serial: int) -> None:
    """A program was collected: drop its plans from the executor (atomic dict operations only:
    this runs wherever the collector happens to run)."""
    exe = executor_ref()
    if exe is None:
        return
    exe._finalizers.pop(serial, None)
    for fingerprint in [f for f in list(exe._shape_feeds) if f[0] == serial]:
        exe._shape_feeds.pop(fingerprint, None)
    keys = exe._program_keys.pop(serial, None)
    exe._mru = None
    for key in list(keys or ()):
        plan = exe._plans.pop(key, None)
        if plan is not None:
            plan.release()


def _warn_no_compiler() -> None:
    global _warned_no_compiler
    if not _warned_no_compiler:
        warnings.warn("fluidc found no C compiler: programs run on the numpy reference "
                      "executor, correct but slow", RuntimeWarning, stacklevel=3)
        _warned_no_compiler = True


def _flat(fetch_list) -> list:
    """fetch_list with each entry that is a list or tuple of vars / names replaced by them (a
    layer's tuple of outputs), as Paddle's _check_fetch_list; other entries as they are."""
    flat = []
    for f in fetch_list:
        if isinstance(f, (list, tuple)) and f and all(isinstance(x, (str, Variable)) for x in f):
            flat.extend(f)
        else:
            flat.append(f)
    return flat


def _fetch_name(f) -> str:
    if isinstance(f, str):
        return f
    if isinstance(f, Variable):
        return f.name
    raise FetchError(f"fetch_list entries are Variables or names, got {type(f).__name__}")


def _feed_names(feed) -> list[str]:
    """The var names a feed dict (or a reader's list of them) feeds."""
    if isinstance(feed, (list, tuple)):
        return [n for part in feed for n in part]
    return list(feed or {})


def _as_array(name: str, value, block) -> np.ndarray:
    """A feed value as an array: LoDTensors give theirs; lists and scalars are read with the
    var's dtype, as Paddle reads them."""
    if isinstance(value, LoDTensor):
        return value.numpy()
    if isinstance(value, np.ndarray):
        return value
    if value is None:
        raise FeedError(f"feed '{name}' is None")
    dtype = to_numpy_dtype(block.var(name).dtype) if isinstance(name, str) and \
        block.has_var(name) else None
    try:
        arr = np.asarray(value, dtype=dtype)
    except Exception as e:
        raise FeedError(f"feed '{name}' ({type(value).__name__}) cannot be read as an array of "
                        f"{dtype or 'numbers'}: {e}") from e
    if arr.dtype == object:
        raise FeedError(f"feed '{name}' ({type(value).__name__}) holds Python objects, not "
                        f"numbers")
    return arr


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


def _check_feed(var: Variable, arr: np.ndarray, has_lod: bool = False) -> VarInfo:
    """The feed's info, after checking dtype (always) and shape (for fluid.data vars), with
    Paddle's rule and messages: each dim the feed has must match the declared one (-1 matches
    any); a LoD tensor's dim 0 (its sequences' items, not a batch) is not checked and reads -1.
    As in Paddle, a feed with fewer dims than declared passes ([N] labels for [-1, 1]); unlike
    Paddle (which reads past the declared shape), one with more dims does not."""
    want = to_numpy_dtype(var.dtype)
    if arr.dtype != want:  # (bfloat16's feed is its bits: Paddle asks for 'uint16')
        raise FeedError(f"The data type of fed Variable {var.name!r} must be "
                        f"{want.name!r}, but received {arr.dtype.name!r}")
    if var.need_check_feed:
        got = [-1 if i == 0 and has_lod else int(a) for i, a in enumerate(arr.shape)]
        if (len(got) > len(var.shape) or (not got and len(var.shape))
                or any(d not in (-1, a) and a != -1 for d, a in zip(var.shape, got))):
            raise FeedError(f"The fed Variable {var.name!r} should have dimensions = "
                            f"{len(var.shape)}, shape = {tuple(var.shape)!r}, but received fed "
                            f"shape {got!r} on each device")
    return VarInfo(tuple(arr.shape), var.dtype, var.lod_level)
