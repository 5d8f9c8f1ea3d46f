"""C for direct convolutions (templates/c/conv.c.j2): a conv2d_fused with few input cells per
output (C * KH * KW, the first layer of an image model) computed with its bias and activation;
X's layout and the output's are only strides, so a transpose2 making its Input folded into the
kernel (ConvKernel) is only other strides of the loads."""
from __future__ import annotations

import math

from ..frontend.dtypes import to_numpy_dtype
from ..frontend.ops import VarInfo
from ..frontend.ops.conv import conv_geometry
from ..passes.fuse import ConvKernel
from .c import _ENV, PARALLEL_MIN, c_type
from .c_pool import PoolSpec
from .dynamic_batch import BATCH
from .kernel import Storage, _strides

_DIMS = {"NCHW": (0, 1, 2, 3), "NHWC": (0, 3, 1, 2)}  # a layout's (n, c, h, w) dims


def _in_strides(step: ConvKernel, infos: dict[str, VarInfo]) -> list[int]:
    """Per dim of the conv's Input (its own layout), the stride of that element in the var
    the kernel reads: Input itself, or the transpose2's X it was made from."""
    src = _strides(tuple(infos[step.source].shape))
    if step.transpose is None:
        return src
    return [src[p] for p in step.transpose.attrs["axis"]]  # Input dim i is X dim axis[i]


def render_conv(step: ConvKernel, infos: dict[str, VarInfo], name: str,
                storage: Storage = str) -> PoolSpec:
    """The C function computing `step`: params are X (the Input or the folded transpose's X),
    the Filter, the Bias if any, then the output (storages)."""
    conv = step.conv
    a = conv.attrs
    x, w, y = conv.input("Input")[0], conv.input("Filter")[0], conv.output("Output")[0]
    xshape, wshape, yshape = (tuple(infos[v].shape) for v in (x, w, y))
    fmt, (pt, _, pl, _), (sh, sw), (dh, dw) = conv_geometry(conv.type, xshape, wshape, a)
    dims = _DIMS[fmt]
    xs_layout, ys_layout = _in_strides(step, infos), _strides(yshape)
    xs, ys = [xs_layout[d] for d in dims], [ys_layout[d] for d in dims]
    dtype = to_numpy_dtype(infos[x].dtype)
    T = c_type(dtype)
    bias = conv.inputs.get("Bias", [])
    buffers = [storage(step.source), storage(w)] + [storage(b) for b in bias] + [storage(y)]
    params = [f"const int64_t {BATCH}", f"const {T} *restrict b0", f"const {T} *restrict b1"]
    if bias:
        params.append(f"const {T} *restrict b2")
    out = f"b{len(buffers) - 1}"
    params.append(f"{T} *restrict {out}")
    o, c, kh, kw = wshape
    ow, w_in = yshape[dims[3]], xshape[dims[3]]
    # The output columns whose windows lie inside X's row: q*sw - pl >= 0 and
    # q*sw - pl + (kw - 1)*dw < w_in.
    inside = [q for q in range(ow) if q * sw - pl >= 0 and q * sw - pl + (kw - 1) * dw < w_in]
    q_lo, q_hi = (inside[0], inside[-1] + 1) if inside else (0, 0)
    source = _ENV.get_template("conv.c.j2").render(
        name=name, params=params, T=T, x="b0", w="b1", bias="b2" if bias else "", y=out,
        act=a["act"], xs=xs, ys=ys, n=xshape[0], c=c, h=xshape[dims[2]], w_in=w_in,
        oh=yshape[dims[2]], ow=ow, q_lo=q_lo, q_hi=q_hi, o=o, kh=kh, kw=kw, k=c * kh * kw,
        sh=sh, sw=sw, dh=dh, dw=dw, pt=pt, pl=pl,
        parallel=int(math.prod(yshape) >= PARALLEL_MIN))
    return PoolSpec(buffers, [dtype] * len(buffers), [False] * (len(buffers) - 1) + [True],
                    source)
