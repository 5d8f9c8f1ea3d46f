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
from ..frontend.ops.registry import EMPTY_VAR
from ..frontend.ops.tensor import _mm_flags
from .conv_fusion import _op
from .lower import TempNamer


@dataclass(frozen=True)
class ProductShape:
    """What a product's speed depends on: out[m, n] = x[m, k] @ w, w [k, n] or, transposed,
    [n, k]; in `dtype` (a numpy name); x [m, k] or, x_transposed, [k, m]; `batch` such
    products of as many matrices each (a batched product: attention's)."""

    m: int
    n: int
    k: int
    transposed: bool
    dtype: str
    x_transposed: bool = False
    batch: int = 1


@dataclass(frozen=True)
class GemmLayout:
    """out[M, N] = x[M, K] @ w[K, N], out row-major; w element (k, n) at
    w[k * w_strides[0] + n * w_strides[1]] (a transposed Y is only other strides); x row-major
    [M, K] or, x_transposed, [K, M] (a transposed X: a weight's gradient). `batch` > 1: X, W
    and out are that many matrices each, one after the other (X and Y of equal batch dims)."""

    x: str
    w: str
    out: str
    m: int
    n: int
    k: int
    w_strides: tuple[int, int]
    dtype: str  # a numpy dtype name
    x_transposed: bool = False
    batch: int = 1

    @property
    def shape(self) -> ProductShape:
        return ProductShape(self.m, self.n, self.k, self.w_strides != (self.n, 1), self.dtype,
                            self.x_transposed, self.batch)


GEMM_DTYPES = (np.float32, np.float64)


def gemm_layout(op: OpDesc, infos: dict[str, VarInfo]) -> GemmLayout | None:
    """How `op` multiplies, when it is a product in float32/64 of X by a 2-D Y (X's leading
    dims are rows) or of equal batch dims (a batched product): mul with y_num_col_dims 1,
    matmul (alpha 1) and matmul_v2, a transposed X only where it is 2-D or batched."""
    if op.type not in ("mul", "matmul", "matmul_v2"):
        return None
    x, y, out = op.input("X")[0], op.input("Y")[0], op.output("Out")[0]
    if not all(n in infos for n in (x, y, out)):
        return None
    xs, ys = tuple(infos[x].shape), tuple(infos[y].shape)
    dtype = to_numpy_dtype(infos[x].dtype)
    batched = len(ys) > 2
    if (len(xs) < 2 or len(ys) < 2 or batched and xs[:-2] != ys[:-2] or dtype not in GEMM_DTYPES
            or to_numpy_dtype(infos[y].dtype) != dtype or any(d <= 0 for d in xs + ys)):
        return None
    if op.type == "mul":
        xn = op.attr("x_num_col_dims")
        if op.attr("y_num_col_dims") != 1 or batched:
            return None
        m, k = math.prod(xs[:xn]), math.prod(xs[xn:])
        tx = transposed = False
    else:
        if "trans_x" in op.attrs:
            tx, transposed, alpha = op.attr("trans_x"), op.attr("trans_y"), 1.0
        else:
            tx, transposed, alpha = op.attr("transpose_X"), op.attr("transpose_Y"), op.attr("alpha")
        if (tx and len(xs) != 2 and not batched) or float(alpha) != 1.0:
            return None
        rows = xs[-2] if batched else math.prod(xs[:-1])
        m, k = (xs[-1], xs[-2]) if tx else (rows, xs[-1])
    n = ys[-2] if transposed else ys[-1]
    if (ys[-1] if transposed else ys[-2]) != k:
        return None
    return GemmLayout(x, y, out, m, n, k, (1, k) if transposed else (n, 1),
                      np.dtype(dtype).name, bool(tx), math.prod(ys[:-2]))


def generated_products(ops: list[OpDesc], infos: dict[str, VarInfo], written: set[str],
                       choose=None) -> dict[str, GemmLayout]:
    """The products the C backend computes itself, by output: those gemm_layout takes whose W
    is not in `written` and, given `choose` (a set of ProductShapes -> the subset to generate:
    the executor's measured choice, codegen/product_choice.py), whose shape it picks; the rest
    stay library calls. lower_program passes the vars the program writes (training's weights)
    unless asked to generate those products too (`written_products`): a product kernel has no
    tier-0 form, so the executor generates them only where the plan would not run on tier 0
    anyway (runtime/tiered.py `lower_products`)."""
    layouts = {}
    for op in ops:
        layout = gemm_layout(op, infos)
        if layout is not None and layout.w not in written:
            layouts[layout.out] = layout
    if choose is not None and layouts:
        picked = choose({lay.shape for lay in layouts.values()})
        layouts = {o: lay for o, lay in layouts.items() if lay.shape in picked}
    return layouts


def split_product_grads(ops: list[OpDesc], infos: dict[str, VarInfo]) -> list[OpDesc]:
    """The two products of mul_grad and matmul(_v2)_grad as matmul_v2 ops of their own, each then a generated one where
    generated_products says so, with the grad ops after it as its epilogue:
    - dX = dOut @ Y^T (trans_y: only other strides of Y), where dOut and dX are the product's
      shapes as they are (X has one dim past x_num_col_dims). MKL's product of that shape
      measured 11-16 ms for the bench transformer's FFN grads ([1024, 1024] @ [1024, 256]^T)
      on this machine's AMD cores, the generated one 1.5 ms;
    - dY = X^T @ dOut over X and dOut viewed as matrices (reshape2 views: no copy), where Y
      is one (trans_x: X read down its columns, no transposed copy; a transpose2 copy of X
      measured 0.89x the step but a bigger arena peak, docs/architecture.md).
    What neither takes stays the mul_grad, left with those outputs alone.
    A matmul_v2_grad (or matmul_grad of alpha 1) of operands of equal batch dims, attention's,
    becomes its two products (_matmul_grad_products) whatever their choice: a library product
    of each computes what the grad op computes."""
    namer = TempNamer(infos, "@mul_grad@")
    out: list[OpDesc] = []
    for op in ops:
        if op.type in ("matmul_v2_grad", "matmul_grad"):
            out += _matmul_grad_products(op, infos)
            continue
        if op.type != "mul_grad" or op.attr("y_num_col_dims") != 1:
            out.append(op)
            continue
        x, y, dout = op.input("X")[0], op.input("Y")[0], op.input("Out@GRAD")[0]
        dx, dy = (op.outputs.get(slot, [EMPTY_VAR])[0] for slot in ("X@GRAD", "Y@GRAD"))
        rest = dict(op.outputs)
        known = all(n in infos for n in (x, y, dout))
        if known and dx in infos and len(infos[x].shape) == op.attr("x_num_col_dims") + 1:
            out.append(_op("matmul_v2", {"X": [dout], "Y": [y]}, {"Out": [dx]},
                           {"trans_y": True}))
            del rest["X@GRAD"]
        if known and dy in infos and len(infos[y].shape) == 2 \
                and to_numpy_dtype(infos[x].dtype) in GEMM_DTYPES:
            xs, xn = tuple(infos[x].shape), op.attr("x_num_col_dims")
            rows = math.prod(xs[:xn])
            matrices = [_as_matrix(v, (rows, cols), infos, namer, out)
                        for v, cols in ((x, math.prod(xs[xn:])), (dout, infos[y].shape[1]))]
            out.append(_op("matmul_v2", {"X": matrices[:1], "Y": matrices[1:]}, {"Out": [dy]},
                           {"trans_x": True}))
            del rest["Y@GRAD"]
        if any(n != EMPTY_VAR for v in rest.values() for n in v):
            out.append(OpDesc(op.type, dict(op.inputs), rest, dict(op.attrs)))
    return out


def _matmul_grad_products(op: OpDesc, infos: dict[str, VarInfo]) -> list[OpDesc]:
    """dX and dY of a matmul's grad op as matmul_v2 ops, where X and Y are at least 2-D with
    equal batch dims (nothing broadcast, nothing summed) and alpha is 1; else [op]. With
    x2 = X^T if trans_x else X and y2 likewise, out = x2 @ y2 gives dx2 = dOut @ y2^T and
    dy2 = x2^T @ dOut, each transposed back where its operand was."""
    x, y, dout = op.input("X")[0], op.input("Y")[0], op.input("Out@GRAD")[0]
    if not all(n in infos for n in (x, y, dout)):
        return [op]
    xs, ys = tuple(infos[x].shape), tuple(infos[y].shape)
    tx, ty, alpha = _mm_flags(op.attrs)
    if len(xs) < 2 or len(xs) != len(ys) or xs[:-2] != ys[:-2] or alpha != 1.0:
        return [op]
    grads = []
    dx, dy = (op.outputs.get(slot, [EMPTY_VAR])[0] for slot in ("X@GRAD", "Y@GRAD"))
    if dx != EMPTY_VAR:
        a, b, flags = (y, dout, (ty, True)) if tx else (dout, y, (False, not ty))
        grads.append(_op("matmul_v2", {"X": [a], "Y": [b]}, {"Out": [dx]},
                         {"trans_x": flags[0], "trans_y": flags[1]}))
    if dy != EMPTY_VAR:
        a, b, flags = (dout, x, (True, tx)) if ty else (x, dout, (not tx, False))
        grads.append(_op("matmul_v2", {"X": [a], "Y": [b]}, {"Out": [dy]},
                         {"trans_x": flags[0], "trans_y": flags[1]}))
    return grads


def _as_matrix(name: str, shape: tuple[int, int], infos: dict[str, VarInfo], namer,
               out: list[OpDesc]) -> str:
    """`name` itself where it has `shape`, else a reshape2 of it (appended to `out`)."""
    if tuple(infos[name].shape) == shape:
        return name
    view = namer(VarInfo(shape, infos[name].dtype))
    out.append(_op("reshape2", {"X": [name]}, {"Out": [view]}, {"shape": list(shape)}))
    return view
