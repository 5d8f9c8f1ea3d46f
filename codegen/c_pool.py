"""C for pool kernels (templates/c/pool.c.j2): a max or average pool2d over its windows (and
pool2d_argmax, also storing each window's first maximum's plane index), X's layout and the
stored output's given by strides, so a transpose of the result folded into the kernel
(PoolKernel) is only other strides of the store."""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..frontend.dtypes import to_numpy_dtype
from ..frontend.ops import OpDesc, VarInfo
from ..frontend.ops.conv import MAX_POOL_FLOOR, pool_geometry, window_spans
from ..passes.fuse import PoolKernel, pool_reads
from .c import _ENV, PARALLEL_MIN, c_literal, c_type
from .dynamic_batch import BATCH
from .kernel import Storage, contiguous_strides

# The dims of a layout, in the kernel's order (n, c, h, w).
_DIMS = {"NCHW": (0, 1, 2, 3), "NHWC": (0, 3, 1, 2)}
CHANNEL_BLOCK = 64  # accumulators per (n, i, j) when channels are contiguous in X
MAX_VECTOR_COLUMNS = 1024  # accumulators per output row (on the stack) otherwise


@dataclass
class PoolSpec:
    """What the module needs of a pool kernel: its buffers (params: X, the output, then
    pool2d_argmax's indices) and its source."""

    buffers: list[str]
    dtypes: list[np.dtype]
    written: list[bool]
    source: str


def _out_strides(transpose: OpDesc | None, shape: tuple[int, ...]) -> list[int]:
    """Per dim of the pool's output (its own layout), the stride where the kernel stores it:
    contiguous, or the strides the folded `transpose` (a transpose2 of it) puts it at."""
    if transpose is None:
        return contiguous_strides(shape)
    perm = transpose.attrs["axis"]
    z = contiguous_strides(tuple(shape[p] for p in perm))
    out = [0] * len(shape)
    for i, p in enumerate(perm):
        out[p] = z[i]
    return out


def _whole_columns(a, cols, k: int, s: int, left: int) -> tuple[int, int]:
    """[j0, j1): the output columns whose windows are whole (k cells from j*s - left, inside
    the input), at most MAX_VECTOR_COLUMNS of them; the kernel walks those a vector of columns
    at a time (the others, at the edges, one by one). (0, 0) for adaptive windows."""
    if a["adaptive"]:
        return 0, 0
    whole = [j for j, (w0, w1, _) in enumerate(cols) if w0 == j * s - left and w1 - w0 == k]
    if not whole or len(whole) > MAX_VECTOR_COLUMNS or whole[-1] - whole[0] >= len(whole):
        return 0, 0
    return whole[0], whole[-1] + 1


def render_pool(step: PoolKernel, infos: dict[str, VarInfo], name: str,
                storage: Storage = str) -> PoolSpec:
    """The C function computing `step`: params are X, the stored output and, for
    pool2d_argmax, its indices (storages); a grad's are render_pool_grad's."""
    pool = step.pool
    if pool.type.endswith("_grad"):
        return render_pool_grad(pool, infos, name, storage)
    a = pool.attrs
    x, y = pool.input("X")[0], pool.output("Out")[0]
    xshape, yshape = tuple(infos[x].shape), tuple(infos[y].shape)
    fmt, k, s, pads, out = pool_geometry(pool.type, xshape, a)
    dims = _DIMS[fmt]
    hw = (xshape[dims[2]], xshape[dims[3]])
    rows, cols = window_spans(a, hw, k, s, pads, out)
    xs = [contiguous_strides(xshape)[d] for d in dims]
    ys_layout = _out_strides(step.transpose, yshape)
    ys = [ys_layout[d] for d in dims]
    dtype = to_numpy_dtype(infos[x].dtype)
    T = c_type(dtype)
    buffers = [storage(x), storage(step.stored)]
    dtypes = [dtype, dtype]
    params = [f"const int64_t {BATCH}", f"const {T} *restrict b0", f"{T} *restrict b1"]
    if pool.type == "pool2d_argmax":  # indices laid out as Out (never a folded transpose)
        buffers.append(storage(pool.output("Indices")[0]))
        dtypes.append(np.dtype(np.int64))
        params.append("int64_t *restrict b2")
    is_max = a["pooling_type"] == "max"
    c = xshape[dims[1]]
    j0, j1 = _whole_columns(a, cols, k[1], s[1], pads[2])
    source = _ENV.get_template("pool.c.j2").render(
        name=name, params=params, kind="max" if is_max else "average", T=T, x="b0", y="b1",
        ind="b2" if len(buffers) > 2 else "", width=hw[1],
        xs=xs, ys=ys, n=xshape[0], c=c, oh=out[0], ow=out[1],
        rows=[v for r in rows for v in r] if math.prod(yshape) else [],
        cols=[v for r in cols for v in r],
        channels_inner=xs[1] == 1, cb=min(c, CHANNEL_BLOCK),
        j0=j0, j1=j1, kw=k[1], sw=s[1], pl=pads[2],
        edges=[(lo, hi) for lo, hi in ((0, j0), (j1, out[1])) if hi > lo],
        parallel=int(math.prod(xshape) >= PARALLEL_MIN),
        init=c_literal(MAX_POOL_FLOOR, dtype) if is_max else f"({T})0")
    return PoolSpec(buffers, dtypes, [False] + [True] * (len(buffers) - 1), source)


def render_pool_grad(op: OpDesc, infos: dict[str, VarInfo], name: str,
                     storage: Storage = str) -> PoolSpec:
    """The C function computing X@GRAD of a pool2d_grad or pool2d_argmax_grad `op`
    (templates/c/pool_grad.c.j2): params are what it reads (pool_reads' order), then X@GRAD."""
    a = op.attrs
    x, d, dx = op.input("X")[0], op.input("Out@GRAD")[0], op.output("X@GRAD")[0]
    xshape, dshape = tuple(infos[x].shape), tuple(infos[d].shape)
    fmt, k, s, pads, out = pool_geometry(op.type, xshape, a)
    dims = _DIMS[fmt]
    hw = (xshape[dims[2]], xshape[dims[3]])
    rows, cols = window_spans(a, hw, k, s, pads, out)
    xs = [contiguous_strides(xshape)[i] for i in dims]
    ds = [contiguous_strides(dshape)[i] for i in dims]
    dtype = to_numpy_dtype(infos[x].dtype)
    T = c_type(dtype)
    kind = "indices" if op.type == "pool2d_argmax_grad" else \
        "max" if a["pooling_type"] == "max" else "average"
    reads = pool_reads(op)
    pointers = {x: "x", d: "d"}
    if kind == "indices":
        pointers[op.input("Indices")[0]] = "ind"
    params = [f"const int64_t {BATCH}"]
    dtypes = []
    for i, n in enumerate(reads):
        t = "int64_t" if pointers[n] == "ind" else T
        params.append(f"const {t} *restrict b{i}")
        dtypes.append(np.dtype(np.int64) if pointers[n] == "ind" else dtype)
    params.append(f"{T} *restrict b{len(reads)}")
    names = {pointers[n]: f"b{i}" for i, n in enumerate(reads)}
    source = _ENV.get_template("pool_grad.c.j2").render(
        name=name, params=params, kind=kind, T=T, x=names.get("x"), d=names["d"],
        ind=names.get("ind"), dx=f"b{len(reads)}", width=hw[1], xs=xs, ds=ds,
        n=xshape[0], c=xshape[dims[1]], h=hw[0], w=hw[1], oh=out[0], ow=out[1],
        rows=[v for r in rows for v in r] if math.prod(dshape) else [],
        cols=[v for r in cols for v in r],
        parallel=int(math.prod(xshape) >= PARALLEL_MIN), init=c_literal(MAX_POOL_FLOOR, dtype))
    return PoolSpec([storage(n) for n in reads] + [storage(dx)], dtypes + [dtype],
                    [False] * len(reads) + [True], source)
