"""Data-parallel runs: one program on several places of this process and on several trainers.

Each place runs the data-parallel copy of the program (distributed/collective.py: gradients
all-reduced in buckets, the loss gradient scaled) on its share of the batch, in its own
thread, through the executor's ordinary plans (one plan, one instance per place). Place 0
works in the caller's scope; the others in scopes of their own holding copies of the
persistables (parameters, optimizer state, batch_norm statistics), copied once from place 0
as Paddle broadcasts them: every place then applies the same summed gradients, so parameters
stay equal, while batch_norm statistics stay per place as in Paddle. With several trainers
(collective mode) trainer 0's persistables are broadcast over the process group first.
"""
from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from fluidc.frontend.lazy_import import torch

from ..distributed import comm
from ..distributed.collective import (CollectiveConfig, collective_config, data_parallel_program,
                                     parse_endpoints)
from ..frontend.errors import FeedError
from ..frontend.framework import Program, default_main_program
from .place import CUDAPlace, cpu_places, cuda_places
from .scope import Scope, global_scope
from .tensor import LoDTensor


class DataParallel:
    """What with_data_parallel / ParallelExecutor asked for; set up on the first run."""

    def __init__(self, program: Program, loss_name=None, build_strategy=None,
                 share_vars_from=None, places=None) -> None:
        if not isinstance(program, Program):
            raise TypeError(f"data-parallel runs take a Program, got {type(program).__name__}")
        if loss_name is not None and not isinstance(loss_name, str):
            raise TypeError(f"loss_name must be a var name (str), got {type(loss_name).__name__}")
        if share_vars_from is not None and not isinstance(share_vars_from, DataParallel):
            raise TypeError("share_vars_from must be a CompiledProgram made data-parallel "
                            "(with_data_parallel) or a ParallelExecutor")
        self.program, self.loss_name, self.strategy = program, loss_name, build_strategy
        self.share_vars_from, self.places = share_vars_from, places
        self.config = _collective(program, build_strategy)
        self._setup_lock = threading.Lock()
        self._ready = False
        self._scopes: list[Scope] | None = None

    # -- setup ----------------------------------------------------------------------------------
    def _setup(self, executor, scope: Scope) -> None:
        from ..passes.strategy import CompiledProgram
        places = self.places
        if places is None:
            places = cuda_places() if isinstance(executor.place, CUDAPlace) else cpu_places()
        self.n = len(places)
        if self.n < 1:
            raise ValueError("with_data_parallel: places is empty")
        other = self.share_vars_from
        if other is not None and not other._ready:
            raise ValueError("The shared Program is not compiled and executed, so there is no "
                             "variables to share.")
        if other is not None and other.n != self.n:
            raise ValueError(f"share_vars_from: that program runs on {other.n} places, this "
                             f"one on {self.n}")
        self.trainers = None
        if self.config is not None:
            gpu = isinstance(places[0], CUDAPlace) and torch.distributed.is_nccl_available()
            self.trainers = comm.Trainers(self.config.trainer_id, list(self.config.endpoints),
                                          "nccl" if gpu else "gloo")
        replicas = self.n * (self.trainers.size if self.trainers is not None else 1)
        copy = data_parallel_program(self.program, self.loss_name, self.strategy, replicas)
        self.compiled = CompiledProgram(copy, self.strategy)
        self.group = comm.Places(self.n, self.trainers) if self.n > 1 else None
        if self.trainers is not None:
            self.trainers.init()
            _broadcast_persistables(self.program, scope)
        if self.share_vars_from is not None:
            self._scopes = [scope] + self.share_vars_from._scopes[1:]
        else:
            self._scopes = [scope] + [_replica(self.program, scope) for _ in range(1, self.n)]
        # Places 1.. run in pool threads (not daemons: joined at exit, as they may be in torch
        # or generated code then), place 0 in the caller's.
        self._pool = ThreadPoolExecutor(self.n - 1, "fluidc-place") if self.n > 1 else None
        # a place other than the executor's (another GPU) runs on an executor of its own
        self._executors = [executor if p == executor.place else type(executor)(p)
                           for p in places]
        self._ready = True

    # -- one run --------------------------------------------------------------------------------
    def run(self, executor, feed=None, fetch_list=None, scope: Scope | None = None,
            return_numpy: bool = True) -> list:
        scope = scope if scope is not None else global_scope()
        with self._setup_lock:
            if not self._ready:
                self._setup(executor, scope)
        if scope is not self._scopes[0]:
            raise ValueError("a data-parallel program runs in the scope of its first run")
        feeds = split_feed(feed, self.n)
        fetch_list = fetch_list or []
        if self.n == 1:
            with comm.use(comm.Communicator(trainers=self.trainers)):
                return executor.run(self.compiled, feed=feeds[0], fetch_list=fetch_list,
                                    scope=scope, return_numpy=return_numpy)
        results: list = [None] * self.n
        errors: list = [None] * self.n

        def place(rank: int) -> None:
            try:
                with comm.use(comm.Communicator(self.group, rank, self.trainers)):
                    results[rank] = self._executors[rank].run(
                        self.compiled, feed=feeds[rank], fetch_list=fetch_list,
                        scope=self._scopes[rank], return_numpy=return_numpy)
            except BaseException as e:  # noqa: BLE001 - handed to the caller below
                errors[rank] = e
                self.group.abort()

        others = [self._pool.submit(place, rank) for rank in range(1, self.n)]
        place(0)
        for job in others:
            job.result()
        failed = [e for e in errors if e is not None]
        if failed:
            self.group = comm.Places(self.n, self.trainers)  # the aborted barrier is spent
            # the cause, rather than the places it left waiting
            raise next((e for e in failed if not isinstance(e, comm.CollectiveError)), failed[0])
        return merge_fetches(results, return_numpy)


def _collective(program: Program, strategy) -> CollectiveConfig | None:
    """The trainers: the transpiled program's, else BuildStrategy's num_trainers, trainer_id
    and trainers_endpoints (None: this process alone)."""
    config = collective_config(program)
    n = int(getattr(strategy, "num_trainers", 1) or 1)
    tid = int(getattr(strategy, "trainer_id", 0) or 0)
    if config is None:
        if n <= 1:
            return None
        endpoints = list(getattr(strategy, "trainers_endpoints", None) or ())
        if len(endpoints) != n:
            raise ValueError(f"num_trainers={n}: the program was not transpiled in nccl2 mode "
                             f"and BuildStrategy.trainers_endpoints lists {len(endpoints)} "
                             f"endpoints")
        return CollectiveConfig(tid, tuple(parse_endpoints(endpoints)))
    if n > 1 and n != len(config.endpoints):
        raise ValueError(f"num_trainers={n}, but the program was transpiled for "
                         f"{len(config.endpoints)} trainers {list(config.endpoints)}")
    if n > 1 and tid != config.trainer_id:
        raise ValueError(f"trainer_id={tid}, but the program was transpiled for trainer "
                         f"{config.trainer_id}")
    return config


def _persistables(program: Program, scope: Scope) -> list[tuple[str, LoDTensor]]:
    """The program's persistables the scope holds, by name."""
    out = []
    for name in sorted({v.name for v in program.list_vars() if v.persistable}):
        var = scope.find_var(name)
        if var is not None and var.is_initialized():
            out.append((name, var.get_tensor()))
    return out


def _replica(program: Program, scope: Scope) -> Scope:
    """A scope of its own holding copies of the program's persistables in `scope`."""
    replica = Scope()
    for name, tensor in _persistables(program, scope):
        held = replica.var(name).get_tensor()
        held._t = tensor.tensor.clone()
        held.set_lod(tensor.lod())
    return replica


def _broadcast_persistables(program: Program, scope: Scope) -> None:
    """Every trainer starts from trainer 0's persistables (as Paddle broadcasts them)."""
    import torch.distributed as dist
    for _, tensor in _persistables(program, scope):
        dist.broadcast(tensor.tensor, src=0)


# -- feeds and fetches -----------------------------------------------------------------------------

def split_feed(feed, n: int) -> list[dict]:
    """One feed dict per place: a list of them as given, or one dict split along the batch as
    Paddle splits it (ceil(batch / n) rows a place, the last place the rest)."""
    if feed is None:
        return [{} for _ in range(n)]
    if n == 1 and isinstance(feed, dict):
        return [feed]
    if isinstance(feed, (list, tuple)):
        if len(feed) != n or not all(isinstance(f, dict) for f in feed):
            raise FeedError(f"a list feed gives one dict per place: {n} places, got "
                            f"{len(feed)} items")
        return list(feed)
    if not isinstance(feed, dict):
        raise FeedError(f"feed must be a dict of var name -> array or a list of them (one per "
                        f"place), got {type(feed).__name__}")
    parts: list[dict] = [{} for _ in range(n)]
    for name, value in feed.items():
        lod = value.lod() if isinstance(value, LoDTensor) else []
        array = value.tensor if lod else np.asarray(value)
        # the samples: a LoD feed's top-level sequences, else its rows
        batch = len(lod[0]) - 1 if lod else (array.shape[0] if array.ndim else 0)
        step = -(-batch // n)
        if array.ndim == 0 or (batch and -(-batch // step) < n):
            raise FeedError(f"The number({batch}) of samples[{name}] of current batch is less "
                            f"than the count({n}) of devices, currently, it is not allowed.")
        for i in range(n):
            begin, end = min(i * step, batch), min((i + 1) * step, batch)
            parts[i][name] = _sequences(array, lod, begin, end) if lod else array[begin:end]
    return parts


def _sequences(data: torch.Tensor, lod: list[list[int]], begin: int, end: int) -> LoDTensor:
    """Top-level sequences [begin, end) of a LoD tensor: their rows, and their LoD rebased to
    start at 0 (each level's offsets select the next level's entries, the last level's rows)."""
    sub = []
    for level in lod:
        sub.append([x - level[begin] for x in level[begin:end + 1]])
        begin, end = level[begin], level[end]
    return LoDTensor(data[begin:end], sub)


def merge_fetches(results: list[list], return_numpy: bool) -> list:
    """Each fetch's values of every place, concatenated along the first axis (scalars
    stacked), as Paddle merges them; LoD fetches (return_numpy=False) get the places' LoDs
    one after the other."""
    merged = []
    for values in zip(*results):
        arrays = [np.asarray(v) for v in values]
        joined = np.stack(arrays) if arrays[0].ndim == 0 else np.concatenate(arrays)
        if return_numpy:
            merged.append(joined)
            continue
        lods = [v.lod() if isinstance(v, LoDTensor) else [] for v in values]
        lod = [[0] for _ in lods[0]]  # every place ran the same program: the same levels
        for part in lods:
            for level, offsets in zip(lod, part):
                level += [level[-1] + x - offsets[0] for x in offsets[1:]]
        merged.append(LoDTensor(torch.from_numpy(joined), lod))
    return merged


class ParallelExecutor:
    """fluid.ParallelExecutor: a program run data-parallel on every place of one kind (CPU_NUM
    CPU places, or every selected GPU), on `num_trainers` trainers in collective mode."""

    def __init__(self, use_cuda, loss_name=None, main_program=None, share_vars_from=None,
                 exec_strategy=None, build_strategy=None, num_trainers=1, trainer_id=0,
                 scope=None) -> None:
        from ..passes.strategy import BuildStrategy, CompiledProgram
        from .executor import Executor
        if share_vars_from is not None and not isinstance(share_vars_from, ParallelExecutor):
            raise TypeError(f"share_vars_from must be a ParallelExecutor, got "
                            f"{type(share_vars_from).__name__}")
        places = cuda_places() if use_cuda else cpu_places()
        build_strategy = build_strategy if build_strategy is not None else BuildStrategy()
        build_strategy.num_trainers, build_strategy.trainer_id = num_trainers, trainer_id
        program = main_program if main_program is not None else default_main_program()
        self._compiled = CompiledProgram(program, build_strategy).with_data_parallel(
            loss_name, build_strategy, exec_strategy,
            share_vars_from._compiled if share_vars_from is not None else None, places)
        self._scope = scope if scope is not None else global_scope()
        self._exe = Executor(places[0])

    @property
    def device_count(self) -> int:
        return len(self._compiled._data_parallel.places)

    def run(self, fetch_list, feed=None, feed_dict=None, return_numpy: bool = True) -> list:
        """The fetches of one step, each merged over the places; feed is one dict (split
        along the batch) or a list of one dict per place."""
        feed = feed if feed is not None else feed_dict
        return self._exe.run(self._compiled, feed=feed, fetch_list=fetch_list,
                             scope=self._scope, return_numpy=return_numpy)

    def drop_local_exe_scopes(self) -> None:
        """Paddle frees its places' temporaries here; fluidc's runs keep none."""
