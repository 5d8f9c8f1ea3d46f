"""C for direct convolutions (templates/c/conv.c.j2): a conv2d_fused computed with its bias
and activation, and with the pool of its result when the ConvKernel holds one (its rows
pooled as they are made). X's layout and the stored output's are only strides, so a transpose2
making the Input, or one of the pool's result, folded into the kernel is only other strides of
the loads or the stores."""
from __future__ import annotations

import math

from ..frontend.dtypes import to_numpy_dtype
from ..frontend.ops import VarInfo
from ..frontend.ops.conv import MAX_POOL_FLOOR, conv_geometry
from ..passes.conv_fusion import pool_window
from ..passes.fuse import ConvKernel
from .c import _ENV, c_literal, c_type
from .c_matmul import PARALLEL_MIN_FMAS
from .c_pool import PoolSpec, _out_strides
from .dynamic_batch import BATCH
from .kernel import Storage, contiguous_strides

_DIMS = {"NCHW": (0, 1, 2, 3), "NHWC": (0, 3, 1, 2)}  # a layout's (n, c, h, w) dims
_INT = {"float": "int32_t", "double": "int64_t"}  # the lanes of a comparison's result


def _in_strides(step: ConvKernel, infos: dict[str, VarInfo]) -> list[int]:
    """Per dim of the conv's Input (its own layout), the stride of that element in the var
    the kernel reads: Input itself, or the transpose2's X it was made from."""
    src = contiguous_strides(tuple(infos[step.source].shape))
    if step.transpose is None:
        return src
    return [src[p] for p in step.transpose.attrs["axis"]]  # Input dim i is X dim axis[i]


def render_conv(step: ConvKernel, infos: dict[str, VarInfo], name: str,
                storage: Storage = str) -> PoolSpec:
    """The C function computing `step`: params are X (the Input or the folded transpose's X),
    the Filter, the Bias if any, then the stored output (storages)."""
    conv, pool = step.conv, step.pool
    a = conv.attrs
    x, w = conv.input("Input")[0], conv.input("Filter")[0]
    xshape, wshape = tuple(infos[x].shape), tuple(infos[w].shape)
    yshape = tuple(infos[conv.output("Output")[0]].shape)
    fmt, (pt, _, pl, _), (sh, sw), (dh, dw) = conv_geometry(conv.type, xshape, wshape, a)
    dims = _DIMS[fmt]
    stored = tuple(infos[pool.output("Out")[0] if pool else step.stored].shape)
    xs_layout = _in_strides(step, infos)
    ys_layout = _out_strides(step.out_transpose, stored)
    xs, ys = [xs_layout[d] for d in dims], [ys_layout[d] for d in dims]
    dtype = to_numpy_dtype(infos[x].dtype)
    T = c_type(dtype)
    bias = conv.inputs.get("Bias", [])
    buffers = [storage(step.source), storage(w)] + [storage(b) for b in bias] \
        + [storage(step.stored)]
    params = [f"const int64_t {BATCH}", f"const {T} *restrict b0", f"const {T} *restrict b1"]
    if bias:
        params.append(f"const {T} *restrict b2")
    out = f"b{len(buffers) - 1}"
    params.append(f"{T} *restrict {out}")
    o, c, kh, kw = wshape
    oh, ow = yshape[dims[2]], yshape[dims[3]]
    window = None
    if pool is not None:
        ph, pw = pool_window(pool, infos)
        window = {"kh": ph, "kw": pw, "oh": stored[dims[2]], "ow": stored[dims[3]],
                  "kind": pool.attrs["pooling_type"]}
        oh, ow = window["oh"] * ph, window["ow"] * pw  # the conv rows and columns pooled
    wb = max(ow - 1, 0) * sw + (kw - 1) * dw + 1  # padded row: input columns -pl .. wb - pl - 1
    source = _ENV.get_template("conv.c.j2").render(
        name=name, params=params, T=T, I=_INT[T], x="b0", w="b1", bias="b2" if bias else "",
        y=out, act=a["act"], xs=xs, ys=ys, n=xshape[0], c=c, h=xshape[dims[2]],
        w_in=xshape[dims[3]], o=o, kh=kh, kw=kw, sh=sh, sw=sw, dh=dh, dw=dw, pt=pt, pl=pl,
        cols=ow, wb=wb, lo=min(pl, wb), hi=max(min(pl + xshape[dims[3]], wb), min(pl, wb)),
        groups_h=window["oh"] if window else oh, pool=window,
        floor=c_literal(MAX_POOL_FLOOR, dtype),
        parallel=int(math.prod(yshape) * c * kh * kw >= PARALLEL_MIN_FMAS))
    return PoolSpec(buffers, [dtype] * len(buffers), [False] * (len(buffers) - 1) + [True],
                    source)
