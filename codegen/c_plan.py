"""One C translation unit per compiled plan: a function per kernel, a segment per run of kernels."""
from __future__ import annotations

import ctypes
import functools
import logging
import os
from dataclasses import dataclass, field

from ..frontend.logs import logger
from ..frontend.ops import VarInfo
from ..passes.attention import AttentionKernel
from ..passes.fuse import (Concurrent, ConvKernel, Extern, MatmulKernel, PackKernel, PoolKernel,
                           Step)
from .c import c_type, render_kernel, render_module
from .c_attention import render_attention
from .c_matmul import (HIDDEN, declared_helpers, helpers_unit, render_gemm_helpers,
                       render_matmul, render_pack)
from .c_conv import render_conv
from .c_pool import render_pool
from .compiler import is_built
from .dynamic_batch import BATCH, family, library_source, load_library
from .kernel import Storage, build_spec, kernel_header, kernel_names, segments
from .kernel_key import structure

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
    # The translation units compiled (concurrently) and linked into the library: `source` cut
    # into pieces (split_units); empty when `source` is compiled whole.
    units: tuple[str, ...] = ()
    # The batch size the source is rendered for (slot 0 of the table holds it, read as `nb`);
    # None where the plan has no batch dim. Libraries are shared across sizes (dynamic_batch).
    batch: int | None = None
    # The segment packing the weights the products read packed (prepack.py): run when a plan
    # is bound and when a packed weight may have changed, never in the schedule; None if none.
    pack: str | None = None
    # The source's family of batch sizes (dynamic_batch.family), found when first needed.
    family: str | None = None

    def load(self) -> "CModule":
        """Compile (or find in the cache) and load the library, if there is any kernel."""
        if self.pack or any(isinstance(s, str) for s in self.schedule):
            self.lib = load_library(self.source, self.batch, self._family(), self.units)
        return self

    def built(self) -> bool:
        """Whether load() has its library without compiling (a template's, or its own)."""
        return is_built(*library_source(self.source, self.batch, self._family(), self.units))

    def _family(self) -> str | None:
        if self.family is None and self.batch:
            self.family = family(self.source)
        return self.family

    def new_table(self):
        """The pointer table the segments read their buffers from (slot 0: the batch size)."""
        table = (ctypes.c_void_p * (len(self.slots) + 1))()
        table[0] = self.batch or 0
        return table

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
               load: bool = True, batch: int | None = None, memo: bool = True) -> CModule:
    """Render every kernel; consecutive kernels share one segment (one call from Python).
    Slots are storages: `storage` maps each var to the one it lives in. load=False: the
    source only, nothing compiled (inspection). `batch`: the plan's batch size (the leading
    dim of its feeds), whose library may then be shared with other sizes. memo: a kernel of
    a structure rendered before takes its code (kernel_key.py); False renders every kernel
    (the same module: a test's reference)."""
    slots: dict[str, int] = {}
    kernels: list[str] = []  # the code of each distinct kernel
    runners: list[str] = []  # for each, the function a step table calls it through
    defined: dict[str, str] = {}  # a kernel's code (its name left out) -> the kernel defining it
    rendered: list[dict] = []
    schedule: list[str | Extern] = []
    gemms: list = []  # the specs of kernels calling the product helpers
    names = kernel_names(steps)
    by_structure: dict[tuple, tuple] = {}  # a kernel structure -> (it, its spec, its code)

    def render(step, orphan: bool) -> tuple:
        """(spec, code) of a kernel step, its name left as _NAME."""
        if isinstance(step, MatmulKernel):
            spec = render_matmul(step, infos, _NAME, storage)
        elif isinstance(step, PoolKernel):
            spec = render_pool(step, infos, _NAME, storage)
        elif isinstance(step, ConvKernel):
            spec = render_conv(step, infos, _NAME, storage)
        elif isinstance(step, AttentionKernel):
            spec = render_attention(step, infos, _NAME, storage)
        elif isinstance(step, PackKernel):
            spec = render_pack(step, infos, _NAME, storage)
        else:
            spec = build_spec(step, infos, storage)
            return spec, render_kernel(spec, _NAME, orphan)
        return spec, spec.source

    def call(step, orphan: bool = False) -> tuple[str, str, list[int]]:
        """(the kernel whose code runs the step, the step's own kernel name, the slots of its
        buffers)."""
        name = names[id(step)]
        struct = structure(step, infos, storage, orphan) if memo else None
        seen = by_structure.get(struct.key) if struct is not None else None
        buffers = struct.buffers(seen[0], seen[1].buffers) if seen is not None else None
        if buffers is not None:  # a structure rendered before: its code, these buffers
            _, spec, source = seen
        else:
            spec, source = render(step, orphan)
            buffers = spec.buffers
            if struct is not None:
                by_structure.setdefault(struct.key, (struct, spec, source))
        if isinstance(step, (MatmulKernel, AttentionKernel, PackKernel)):
            gemms.append(spec)
        # Kernels of equal code (repeated layers) are compiled once, run under each name.
        first = defined.setdefault(source, name)
        if first == name:
            kernels.append(f"/* {name}: {kernel_header(step)} */\n"
                           f"{source.replace(_NAME, name)}")
            runners.append(_runner(name, spec))
        if _log.isEnabledFor(logging.DEBUG):
            _log.debug("%s: %s, %s", name, kernel_header(step),
                       f"{kernels[-1].count(chr(10)) + 1} lines of C" if first == name
                       else f"the code of {first}")
        return first, name, [slots.setdefault(b, len(slots) + 1)  # slot 0: the batch
                             for b in buffers]

    def segment(part: list) -> str:
        """The name of a new segment running the kernels of `part` in order: a table of
        (runner, slot indices) per kernel, run in ranges (a Concurrent step's kernels in one
        parallel region, each kernel's loop an orphaned `omp for nowait`)."""
        name = f"segment_{len(rendered)}"
        table, args = [], []
        calls = [f"const int64_t {BATCH} = (int64_t)(intptr_t)s[0];"]
        run = f"fluidc_steps({BATCH}, s, {name}_steps, {name}_args, %d, %d);"
        begin = 0  # the first step of the range of plain steps not yet run
        for step in part:
            parallel = isinstance(step, Concurrent)
            if parallel and begin < len(table):
                calls.append(run % (begin, len(table)))
            start = len(table)
            for kernel in step.parts if parallel else [step]:
                first, own, slot_ids = call(kernel, orphan=parallel)
                table.append(f"{{run_{first}, {len(args)}}}, /* {own} */")
                args += slot_ids
            if parallel:
                calls += ["#pragma omp parallel", run % (start, len(table))]
                begin = len(table)
        if begin < len(table):
            calls.append(run % (begin, len(table)))
        rendered.append({"name": name, "table": table, "args": ", ".join(map(str, args)) or "0",
                         "calls": calls})
        return name

    packs = [s for s in steps if isinstance(s, PackKernel)]  # run once per binding: CModule.pack
    pack = segment(packs) if packs else None
    for part in segments([s for s in steps if not isinstance(s, PackKernel)]):
        schedule.append(part if isinstance(part, Extern) else segment(part))
    helpers = render_gemm_helpers(gemms)
    source = render_module(kernels + runners, rendered, helpers)
    if _log.isEnabledFor(logging.DEBUG):
        _log.debug("module: %d kernels (%d distinct) in %d segments, %d library calls, %d lines "
                   "of C", len(names), len(kernels), len(rendered),
                   len(schedule) - len(rendered), source.count("\n") + 1)
    dtypes = list(dict.fromkeys(spec.dtype for spec in gemms))
    module = CModule(source, schedule, slots,
                     units=split_units(kernels, runners, rendered, dtypes),
                     batch=batch, pack=pack)
    return module.load() if load else module


# Where a kernel's name goes in its rendered code, until it is known whether the code is new.
_NAME = "fluidc_kernel_name_"
# Each unit holds at least this many bytes of kernel code (a module with less is one unit):
# a compiler process's start (~80 ms) costs more than sharing less work saves.
UNIT_MIN_BYTES = 32_000
MAX_UNITS = 8
# The segments' unit holds runners, step tables and the ranges run: -O1 gives the same code
# at less gcc time (when it held written-out calls: 0.16-0.18 s against 0.26-0.48 s at -O3
# for the 50-block MLP's plan; as tables 0.09 s at -O1).
SEGMENTS_PRAGMA = '#pragma GCC optimize ("O1")\n'


def split_units(kernels: list[str], runners: list[str], segments: list[dict],
                gemm_dtypes: list) -> tuple[str, ...]:
    """The module as translation units to compile at once: the product helpers of each dtype
    the kernels use (helpers_unit: the same text in every library, so its object is built once
    per machine), the kernels dealt into one unit per core (by size), made extern but hidden in
    the library, and a last unit declaring them with their runners and the segments. () where
    one unit is as fast (little code, one core).
    (The segments' unit is compiled at -O1, SEGMENTS_PRAGMA: it holds tables and calls.)"""
    n = min(os.cpu_count() or 1, MAX_UNITS, len(kernels), sum(map(len, kernels)) // UNIT_MIN_BYTES)
    if n < 2:
        return ()
    parts: list[list[str]] = [[] for _ in range(n)]
    sizes = [0] * n
    for k in sorted(kernels, key=len, reverse=True):  # largest first, each to the lightest unit
        i = sizes.index(min(sizes))
        parts[i].append(k.replace("\nstatic void ", "\n" + HIDDEN + "void ", 1))
        sizes[i] += len(k)
    protos = [HIDDEN + _signature(k) + ";" for k in kernels]
    helpers = declared_helpers(gemm_dtypes)
    return tuple([helpers_unit(d) for d in gemm_dtypes]
                 + [render_module(p, [], helpers) for p in parts]
                 + [SEGMENTS_PRAGMA + render_module(protos + runners, segments, [])])


def _runner(name: str, spec) -> str:
    """The function a segment's table runs kernel `name` through: its buffers are the slots
    at the step's indices `a`, cast to the kernel's parameter types."""
    params = "".join(f", ({'' if w else 'const '}{c_type(d)} *)s[a[{i}]]"
                     for i, (d, w) in enumerate(zip(spec.dtypes, spec.written)))
    return (f"static void run_{name}(int64_t {BATCH}, void **restrict s, "
            f"const int32_t *restrict a)\n{{\n    {name}({BATCH}{params});\n}}")


def _signature(kernel: str) -> str:
    """`void name(params)` of a rendered kernel (its parameters hold no parentheses)."""
    start = kernel.index("\nstatic void ") + len("\nstatic ")
    return kernel[start:kernel.index(")", start) + 1]
