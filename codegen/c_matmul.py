"""C for matmul kernels: a packed, register-tiled product with its pointwise epilogue applied
to each tile before the store (see templates/c/gemm.c.j2 and matmul.c.j2)."""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np

from ..frontend.dtypes import to_numpy_dtype
from ..frontend.ops import VarInfo
from ..passes.fuse import Kernel, MatmulKernel, PackKernel
from ..passes.matmul import gemm_layout
from .c import _ENV, CPrinter, c_type, render_module
from .compiler import HELPERS_MARK, prefetch_object
from .dynamic_batch import BATCH
from .kernel import Storage, build_spec

# Products below this many multiply-adds run on one thread: starting the others costs more.
PARALLEL_MIN_FMAS = 1 << 20
PARALLEL_MIN_PACK = 1 << 16  # and weights below this many elements are packed on one
SUFFIX = {"float32": "f32", "float64": "f64"}


@dataclass
class MatmulSpec:
    """What the module needs of a matmul kernel: its buffers (params), its source and the
    dtype of its product (whose packing and tile functions it calls: those of a transposed X
    where x_transposed)."""

    buffers: list[str]
    dtypes: list[np.dtype]
    written: list[bool]
    dtype: np.dtype
    source: str
    x_transposed: bool = False


def _row_offset(m_dims: tuple[int, ...], strides: list[int]) -> str:
    """The offset of row `m` of the product (its leading dims flattened) in an operand with
    these per-dim strides (0 where it broadcasts)."""
    if not any(strides):
        return "0"
    inner = [math.prod(m_dims[j + 1:]) for j in range(len(m_dims))]
    if all(st == strides[-1] * size for st, size in zip(strides, inner)):
        return f"m * {strides[-1]}" if strides[-1] != 1 else "m"
    terms = [f"(m / {size} % {d}) * {st}" for d, size, st in zip(m_dims, inner, strides) if st]
    return " + ".join(terms)


def _matrix_at(heads: int, rows: int, cols: int) -> tuple[str, int]:
    """(the offset of matrix `mat` of a batched operand of [rows, cols] matrices, its row
    stride): one matrix after another, or, heads > 1, the matrices of [b, heads, rows, cols]
    stored as [b, rows, heads, cols] (a head's rows one token of all heads apart)."""
    if heads == 1:
        return f"mat * {rows * cols}", cols
    return f"mat / {heads} * {rows * heads * cols} + mat % {heads} * {cols}", heads * cols


def render_matmul(step: MatmulKernel, infos: dict[str, VarInfo], name: str,
                  storage: Storage = str) -> MatmulSpec:
    """The C function computing `step`: params are X, W, then the epilogue's buffers (storages,
    as in build_spec)."""
    layout = gemm_layout(step.matmul, infos)
    product = storage(step.product)
    dtype = to_numpy_dtype(infos[product].dtype)
    epilogue = step.ops[1:]
    made = {n for op in epilogue for n in op.output_arg_names}
    ep_inputs = list(dict.fromkeys(n for op in epilogue for n in op.input_arg_names
                                   if n not in made and (n in step.inputs or n == step.product)))
    stored, out_heads = step.held(step.product)
    ep_outputs = [n for n in step.outputs if n not in (step.product, stored)]
    spec = build_spec(Kernel(epilogue, step.shape, ep_inputs, ep_outputs), infos, storage,
                      collapse=False)
    folded_out = step.product in step.heads
    stores_product = step.product in step.outputs or folded_out
    (x, x_heads), (w, w_heads) = step.held(layout.x), step.held(layout.w)
    x, w, stored = storage(x), storage(step.packed or w), storage(stored)
    buffers = list(dict.fromkeys([x, w] + [b for b in spec.buffers if b != product]
                                 + ([stored] if stores_product else [])))
    outputs = {storage(n) for n in step.outputs}
    written = [b in outputs for b in buffers]
    dtypes = [to_numpy_dtype(infos[b].dtype) for b in buffers]
    params = [f"const int64_t {BATCH}"] + [
        f"{'' if w else 'const '}{c_type(d)} *restrict b{i}"
        for i, (d, w) in enumerate(zip(dtypes, written))]

    m_dims = tuple(step.shape[:-1])
    index, ref, row_lines = {}, {}, []
    for o, buf in enumerate(spec.operands):
        name_o = spec.buffers[buf]
        if name_o == product:
            index[o], ref[o] = "c", "tile"
            continue
        strides = [lp.strides[o] for lp in spec.loops]
        row_lines.append(f"const int64_t ro{o} = {_row_offset(m_dims, strides[:-1])};")
        col = {0: "", 1: " + col"}.get(strides[-1], f" + col * {strides[-1]}")
        index[o], ref[o] = f"ro{o}{col}", f"b{buffers.index(name_o)}"
    printer = CPrinter(index, ref)
    body, names = printer.lines([v for _, v in spec.stores])
    body += [f"{ref[o]}[{index[o]}] = {names[v.id]};" for o, v in spec.stores]
    m, k, n = layout.m, layout.k, layout.n
    if folded_out:  # no epilogue (fold_heads): the product alone, stored heads-second
        at, ld = _matrix_at(out_heads, m, n)
        body.append(f"b{buffers.index(stored)}[{at} + r * {ld} + col] = tile[c];")
    elif stores_product:
        body.append(f"b{buffers.index(stored)}[m * {n} + col] = tile[c];")
    x_at, lda = _matrix_at(x_heads, *((k, m) if layout.x_transposed else (m, k)))
    w_at, ldw = _matrix_at(w_heads, *((n, k) if layout.shape.transposed else (k, n)))
    sk, sn = (1, ldw) if layout.shape.transposed else (ldw, 1)
    source = _ENV.get_template("matmul.c.j2").render(
        name=name, params=params, s=SUFFIX[dtype.name], T=c_type(dtype), m=m, n=n, k=k,
        x=f"b{buffers.index(x)}", w=f"b{buffers.index(w)}", x_transposed=layout.x_transposed,
        sk=sk, sn=sn, lda=lda, x_at=x_at, w_at=w_at, batch=layout.batch, packed=bool(step.packed),
        parallel=int(layout.batch * m * n * k >= PARALLEL_MIN_FMAS),
        row_lines=row_lines, body=body)
    return MatmulSpec(buffers, dtypes, written, dtype, source, layout.x_transposed)


def render_pack(step: PackKernel, infos: dict[str, VarInfo], name: str,
                storage: Storage = str) -> MatmulSpec:
    """The C function packing a weight for the products over it: params are W, the packed var."""
    w, packed = storage(step.weight), storage(step.outputs[0])
    dtype = to_numpy_dtype(infos[w].dtype)
    k, n = step.shape
    sk, sn = (1, k) if step.ops[0].attr("transposed") else (n, 1)
    params = [f"const int64_t {BATCH}", f"const {c_type(dtype)} *restrict b0",
              f"{c_type(dtype)} *restrict b1"]
    source = _ENV.get_template("pack.c.j2").render(
        name=name, params=params, s=SUFFIX[dtype.name], k=k, n=n, sk=sk, sn=sn,
        transposed=step.ops[0].attr("transposed"), size=infos[packed].shape[0], batch=BATCH,
        parallel=int(k * n >= PARALLEL_MIN_PACK))
    return MatmulSpec([w, packed], [dtype, dtype], [False, True], dtype, source)


def render_gemm_helpers(specs: list[MatmulSpec]) -> list[str]:
    """The packing and tile functions for each dtype that has a matmul kernel (the tiles of a
    transposed X too where one has it), static: a library compiled as one unit."""
    transposed: dict[np.dtype, bool] = {}
    for spec in specs:
        transposed[spec.dtype] = transposed.get(spec.dtype, False) or spec.x_transposed
    return [_helpers(d, "static ", True, ("", "_t") if t else ("",))
            for d, t in transposed.items()]


def declared_helpers(dtypes) -> list[str]:
    """What the kernel units of a library compiled in pieces declare of the helpers: each
    dtype's are defined once, in its helpers unit (helpers_unit)."""
    return [_helpers(d, HIDDEN, False) for d in dtypes]


@functools.lru_cache(maxsize=None)
def helpers_unit(dtype) -> str:
    """The helpers of `dtype` as a translation unit of their own (all tiles, hidden in the
    library): its text is the same in every library, so the compiler caches its object once per
    machine (compiler.HELPERS_MARK) and prefetch_helpers builds it while a program lowers."""
    return HELPERS_MARK + render_module([], [], [_helpers(np.dtype(dtype), HIDDEN, True)])


# Programs of this many ops make libraries compiled in pieces (the 10-block MLP's training
# step, ~160 ops, is one unit; 25 blocks, ~390 ops, several).
PREFETCH_MIN_OPS = 200
PRODUCT_OPS = ("mul", "matmul", "matmul_v2")


def prefetch_helpers(op_types: list[str]) -> None:
    """Before a program with products that its library will compile in pieces is lowered: the
    float32 helpers' object built in the background where the cache lacks it, so the
    library's kernel units do not wait for it (the lowering takes a core, the compiler the
    other)."""
    if len(op_types) >= PREFETCH_MIN_OPS and any(t in PRODUCT_OPS for t in op_types):
        prefetch_object(helpers_unit(np.float32))


def _helpers(dtype: np.dtype, linkage: str, bodies: bool, tiles=("", "_t")) -> str:
    return _ENV.get_template("gemm.c.j2").render(
        s=SUFFIX[dtype.name], T=c_type(dtype), I=f"int{8 * dtype.itemsize}_t", tiles=tiles,
        linkage=linkage, bodies=bodies)


# Functions of one library's units that other units call: not exported by the library.
HIDDEN = '__attribute__((visibility("hidden"))) '
