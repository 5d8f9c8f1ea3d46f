"""Which matrix products are generated C and which stay library calls (torch's: MKL or
oneDNN): measured on this machine, once per product shape.

A generated product applies its epilogue to each tile in registers (one store of the result)
and costs no library call; a library product may still be faster for some shapes on some
machines (MKL on Intel cores: 5-30% on the bench transformer's products, most with a
transposed W) or much slower (MKL's paths on AMD cores: 7-10x on the same transformer's FFN
grads). So the choice is measured rather than assumed:
- a product of fewer than MEASURE_MIN_FMAS multiply-adds is generated without measuring (the
  library call's fixed cost dominates it);
- the first plan needing a larger shape compiles the bare generated products of its new shapes
  into one module, times each against the library call on random data (alternating, best of
  ROUNDS; its rows rounded up to a power of two, at most MEASURE_MAX_ROWS: measured_shape),
  and generates it only where it is faster outright (LIBRARY_MARGIN 1.0). The library then
  pays its epilogue's separate pass over the result, but bare timings favour the generated
  product more than that: inside a plan its input was just written by the kernels before it
  (on an Intel Xeon, 1024x1024 @ 1024x256 timed 1.72 ms generated against 1.66 ms alone, and
  ran 2.7 against 1.7 ms plus a 0.1 ms epilogue in the transformer training step; the
  margin of 1.08 this rule replaced chose it generated).
The choices are kept in the kernel cache (m_<key>.json, the key naming the compiler, the
instruction set it targets and torch's version), so each shape is measured once per machine;
an unreadable file is measured again and replaced. A measurement whose samples were not steady
(the cores busy with other work: STEADY) serves only the process that made it.

FLUIDC_PRODUCTS pins the choice: `generated` (every product the C backend can compute) or
`library` (none), the same on every machine; `measured` (the default) may choose differently on
another machine, where results then differ in the last bits (both are checked against the
reference executor).
"""
from __future__ import annotations

import dataclasses
import functools
import json
import os
import statistics
import threading
import time

import numpy as np

from ..frontend.dtypes import convert_dtype, to_numpy_dtype
from ..frontend.lazy_import import torch
from ..frontend.logs import logger
from ..frontend.ops import OpDesc, VarInfo, get_op_def
from ..passes.fuse import Extern, MatmulKernel
from ..passes.matmul import ProductShape
from .c_plan import generate_c
from .compiler import atomic_write, cache_dir, compiler_id, find_compiler, source_key, target_isa

MEASURE_MIN_FMAS = 1 << 24
MEASURE_MAX_ROWS = 4096  # taller products are timed on this many rows (see measured_shape)
LIBRARY_MARGIN = 1.0
ROUNDS = 5
SAMPLE_SECONDS = 2e-3  # each timed sample repeats a product for about this long
STEADY = 1.25  # samples whose median exceeds their best by more are not kept on disk
MODES = ("measured", "generated", "library")
FORMAT = 2  # (1: choices made with LIBRARY_MARGIN 1.08)

_log = logger("codegen")
_lock = threading.Lock()  # one measurement at a time: two would slow each other down
_known: dict[str, dict[str, dict]] = {}  # this process's view of each cache file's choices


def mode() -> str:
    """FLUIDC_PRODUCTS: measured (default), generated or library."""
    raw = os.environ.get("FLUIDC_PRODUCTS", "").strip().lower() or "measured"
    if raw not in MODES:
        raise ValueError(f"FLUIDC_PRODUCTS must be one of {', '.join(MODES)}, got {raw!r}")
    return raw


def choose_products(shapes: set[ProductShape]) -> set[ProductShape]:
    """The shapes to generate (passes.matmul.generated_products' `choose`)."""
    how = mode()
    if how == "generated" or find_compiler() is None:
        return set(shapes)
    if how == "library":
        return set()
    big = {s: _name(measured_shape(s)) for s in shapes
           if s.batch * s.m * s.n * s.k >= MEASURE_MIN_FMAS}
    known: dict[str, dict] = {}
    if big:
        path = _path()
        with _lock:
            known = _known.setdefault(str(path), {})
            if not all(n in known for n in big.values()):
                known.update(_read(path))
            todo = list({measured_shape(s): 0 for s, n in big.items() if n not in known})
            if todo:  # unsteady measurements serve this process only: later ones measure again
                known.update(measure(todo))
                kept = {n: e for n, e in known.items() if e.get("steady", True)}
                atomic_write(path, json.dumps({"format": FORMAT, "products": kept}, indent=1,
                                              sort_keys=True))
    return {s for s in shapes if s not in big or known[big[s]]["generated"]}


def measured_shape(s: ProductShape) -> ProductShape:
    """The shape a product's choice is measured and kept under: its rows (the batch's dim: of
    a transposed X, a weight's gradient, the k summed over; of a batched product, its count
    of matrices) rounded up to a power of two, at most MEASURE_MAX_ROWS. Past a few hundred
    rows the choice barely moves with them, and a plan serving every batch size then
    measures a few shapes, not one per size."""
    if s.batch > 1:
        return dataclasses.replace(s, batch=_rounded(s.batch))
    if s.x_transposed:
        return dataclasses.replace(s, k=_rounded(s.k))
    return dataclasses.replace(s, m=_rounded(s.m))


def _rounded(rows: int) -> int:
    return min(1 << (rows - 1).bit_length(), MEASURE_MAX_ROWS)


def recorded() -> dict[str, dict]:
    """The choices measured on this machine so far (for `fluidc cache`): name -> entry."""
    return _read(_path()) if find_compiler() is not None else {}


def measure(shapes: list[ProductShape]) -> dict[str, dict]:
    """Each shape's best time (seconds) generated and by the library, and the choice."""
    steps, infos, ops = [], {}, []
    for i, s in enumerate(shapes):
        dtype, m, b = convert_dtype(s.dtype), s.m, (s.batch,) if s.batch > 1 else ()
        x, w, out = f"x{i}", f"w{i}", f"out{i}"
        infos[x] = VarInfo(b + ((s.k, m) if s.x_transposed else (m, s.k)), dtype)
        infos[w] = VarInfo(b + ((s.n, s.k) if s.transposed else (s.k, s.n)), dtype)
        infos[out] = VarInfo(b + (m, s.n), dtype)
        op = OpDesc("matmul_v2", {"X": [x], "Y": [w]}, {"Out": [out]},
                    {"trans_x": s.x_transposed, "trans_y": s.transposed})
        ops.append(op)
        steps += [MatmulKernel([op], b + (m, s.n), [x, w], [out]), Extern(op)]
    module = generate_c(steps, infos)
    rng = np.random.default_rng(0)
    tensors = {n: torch.from_numpy(rng.random(v.shape, dtype=to_numpy_dtype(v.dtype)))
               for n, v in infos.items()}
    table = module.new_table()
    for n, slot in module.slots.items():
        module.set_slot(table, slot, tensors[n])
    segments = [s for s in module.schedule if isinstance(s, str)]
    run = get_op_def("matmul_v2").run
    found = {}
    for s, op, segment in zip(shapes, ops, segments):
        generated = module.segment(segment, table)
        library = functools.partial(run, {k: [tensors[n] for n in v] for k, v in op.inputs.items()},
                                    {"Out": [tensors[op.output("Out")[0]]]}, op.attrs, None)
        (g, lib), steady = _best_of(generated, library)
        found[_name(s)] = {"generated_s": g, "library_s": lib, "steady": steady,
                           "generated": bool(g <= lib * LIBRARY_MARGIN)}
        _log.info("product %s: generated %.3f ms, library %.3f ms: %s", _name(s), g * 1e3,
                  lib * 1e3, "generated" if found[_name(s)]["generated"] else "library")
    return found


def _best_of(*fns) -> tuple[list[float], bool]:
    """The best per-call time of each function, sampled alternately ROUNDS times, and whether
    the samples were steady: each function's median within STEADY of its best (on cores busy
    with other work a sample can take a scheduler slice longer: 8 ms for a 0.6 ms product)."""
    reps = []
    for f in fns:
        f()
        t = time.perf_counter()
        f()
        reps.append(max(1, int(SAMPLE_SECONDS / max(time.perf_counter() - t, 1e-7))))
    samples: list[list[float]] = [[] for _ in fns]
    for _ in range(ROUNDS):
        for f, n, times in zip(fns, reps, samples):
            t = time.perf_counter()
            for _ in range(n):
                f()
            times.append((time.perf_counter() - t) / n)
    return [min(t) for t in samples], all(statistics.median(t) <= STEADY * min(t)
                                          for t in samples)


def _name(s: ProductShape) -> str:
    x = f"[k,m]^T m={s.m} k={s.k}" if s.x_transposed else f"{s.m}x{s.k}"
    if s.batch > 1:
        x = f"{s.batch} x {x}"
    return f"{s.dtype} {x} @ {'[n,k]^T' if s.transposed else '[k,n]'} n={s.n}"


def _path():
    cc = find_compiler()
    key = source_key("products", str(FORMAT), compiler_id(cc), target_isa(cc),
                     torch.version.__version__)
    return cache_dir() / f"m_{key}.json"


def _read(path) -> dict[str, dict]:
    """The choices in the cache file; {} where it is missing or not ours."""
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError, UnicodeDecodeError):
        return {}
    products = data.get("products") if isinstance(data, dict) and data.get("format") == FORMAT \
        else None
    if not isinstance(products, dict):
        return {}
    return {k: v for k, v in products.items()
            if isinstance(v, dict) and isinstance(v.get("generated"), bool)}
