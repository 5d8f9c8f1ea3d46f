"""One C translation unit per compiled plan: a function per kernel, a segment per run of kernels."""
from __future__ import annotations

import ctypes
import functools
import logging
from dataclasses import dataclass, field

from ..frontend.logs import logger
from ..frontend.ops import VarInfo
from ..passes.fuse import Concurrent, Extern, MatmulKernel, Step
from .c import c_type, render_kernel, render_module
from .c_matmul import render_gemm_helpers, render_matmul
from .compiler import load_c
from .kernel import Storage, build_spec, kernel_header, kernel_names, segments

_log = logger("codegen")


@dataclass
class CModule:
    """Generated source; `schedule` is the plan's step order: a segment name or an Extern step.

    The runtime drives every backend's module the same way: new_table() once, set_slot() per
    bound buffer, segment(name, table) for a callable that runs that segment.
    """

    source: str
    schedule: list[str | Extern]
    slots: dict[str, int]  # storage -> index in the segments' pointer table
    lib: ctypes.CDLL | None = field(default=None, repr=False)

    def load(self) -> "CModule":
        """Compile (or find in the cache) and load the library, if there is any kernel."""
        if any(isinstance(s, str) for s in self.schedule):
            self.lib = load_c(self.source)
        return self

    def new_table(self):
        """The pointer table the segments read their buffers from."""
        return (ctypes.c_void_p * max(1, len(self.slots)))()

    @staticmethod
    def set_slot(table, slot: int, tensor) -> None:
        """Point a slot at a (CPU, contiguous) tensor."""
        table[slot] = tensor.data_ptr()

    def segment(self, name: str, table):
        """A no-argument callable running segment `name` over `table`."""
        fn = getattr(self.lib, name)
        fn.argtypes = [ctypes.c_void_p]
        fn.restype = None
        return functools.partial(fn, ctypes.addressof(table))


def generate_c(steps: list[Step], infos: dict[str, VarInfo], storage: Storage = str,
               load: bool = True) -> CModule:
    """Render every kernel; consecutive kernels share one segment (one call from Python).
    Slots are storages: `storage` maps each var to the one it lives in. load=False: the
    source only, nothing compiled (inspection)."""
    slots: dict[str, int] = {}
    kernels: list[str] = []
    rendered: list[dict] = []
    schedule: list[str | Extern] = []
    gemm_dtypes: list = []
    names = kernel_names(steps)
    for part in segments(steps):
        if isinstance(part, Extern):
            schedule.append(part)
            continue
        calls = []

        def call(step, orphan: bool = False) -> str:
            name = names[id(step)]
            if isinstance(step, MatmulKernel):
                spec = render_matmul(step, infos, name, storage)
                source = spec.source
                gemm_dtypes.append(spec.dtype)
            else:
                spec = build_spec(step, infos, storage)
                source = render_kernel(spec, name, orphan)
            kernels.append(f"/* {name}: {kernel_header(step)} */\n{source}")
            if _log.isEnabledFor(logging.DEBUG):
                _log.debug("%s: %s, %d lines of C", name, kernel_header(step),
                           kernels[-1].count("\n") + 1)
            args = [f"({'' if w else 'const '}{c_type(d)} *)s[{slots.setdefault(b, len(slots))}]"
                    for b, d, w in zip(spec.buffers, spec.dtypes, spec.written)]
            return f"{name}({', '.join(args)});"

        for step in part:
            if isinstance(step, Concurrent):
                # One parallel region; each kernel's loop is an orphaned `omp for nowait`.
                calls += ["#pragma omp parallel", "{"]
                calls += ["    " + call(k, orphan=True) for k in step.parts] + ["}"]
            else:
                calls.append(call(step))
        rendered.append({"name": f"segment_{len(rendered)}", "calls": calls})
        schedule.append(rendered[-1]["name"])
    helpers = render_gemm_helpers(list(dict.fromkeys(gemm_dtypes)))
    source = render_module(kernels, rendered, helpers)
    if _log.isEnabledFor(logging.DEBUG):
        _log.debug("module: %d kernels in %d segments, %d library calls, %d lines of C",
                   len(kernels), len(rendered), len(schedule) - len(rendered),
                   source.count("\n") + 1)
    module = CModule(source, schedule, slots)
    return module.load() if load else module
