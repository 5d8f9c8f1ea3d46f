"""Matrix products fluidc computes with its own code: which ops qualify and how they multiply.

A qualifying product becomes a MatmulKernel (see fuse.py): the pointwise ops that use its
result element by element (bias add, activation, residual add, scale) are applied to each tile
of the result while it is still in registers and cache, so the product is written once, final.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..frontend.dtypes import to_numpy_dtype
from ..frontend.ops import OpDesc, VarInfo


@dataclass(frozen=True)
class GemmLayout:
    """out[M, N] = x[M, K] @ w[K, N], x and out row-major; w element (k, n) at
    w[k * w_strides[0] + n * w_strides[1]] (a transposed Y is only other strides)."""

    x: str
    w: str
    out: str
    m: int
    n: int
    k: int
    w_strides: tuple[int, int]


GEMM_DTYPES = (np.float32, np.float64)


def gemm_layout(op: OpDesc, infos: dict[str, VarInfo]) -> GemmLayout | None:
    """How `op` multiplies, when it is a product of a row-major X by a 2-D Y in float32/64:
    mul with y_num_col_dims 1, matmul (alpha 1) and matmul_v2 without a transposed X."""
    if op.type not in ("mul", "matmul", "matmul_v2"):
        return None
    x, y, out = op.input("X")[0], op.input("Y")[0], op.output("Out")[0]
    if not all(n in infos for n in (x, y, out)):
        return None
    xs, ys = tuple(infos[x].shape), tuple(infos[y].shape)
    dtype = to_numpy_dtype(infos[x].dtype)
    if (len(ys) != 2 or len(xs) < 2 or dtype not in GEMM_DTYPES
            or to_numpy_dtype(infos[y].dtype) != dtype or any(d <= 0 for d in xs + ys)):
        return None
    if op.type == "mul":
        xn = op.attr("x_num_col_dims")
        if op.attr("y_num_col_dims") != 1:
            return None
        m, k = math.prod(xs[:xn]), math.prod(xs[xn:])
        transposed = False
    else:
        if "trans_x" in op.attrs:
            tx, transposed, alpha = op.attr("trans_x"), op.attr("trans_y"), 1.0
        else:
            tx, transposed, alpha = op.attr("transpose_X"), op.attr("transpose_Y"), op.attr("alpha")
        if tx or float(alpha) != 1.0:
            return None
        m, k = math.prod(xs[:-1]), xs[-1]
    n = ys[0] if transposed else ys[1]
    if (ys[1] if transposed else ys[0]) != k:
        return None
    return GemmLayout(x, y, out, m, n, k, (1, k) if transposed else (n, 1))


def generated_product(op: OpDesc, infos: dict[str, VarInfo], written: set[str]) -> bool:
    """Whether the C backend computes `op` itself: gemm_layout takes it and its W is not
    written by the program (training). Where the optimizer rewrites W every step, the
    library's product measured faster (MLP step at batch 256: 7.6 vs 8.3 ms): W then sits
    in the cache of whichever core updated it, split by rows, while the kernel's threads
    each read a block of columns of every row."""
    layout = gemm_layout(op, infos)
    return layout is not None and layout.w not in written
