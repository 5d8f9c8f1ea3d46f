"""Convolution epilogues, the channels-last layout and kept pool indices, for C-backend plans.

fuse_conv_epilogues: conv2d -> [elementwise_add of a per-channel bias] -> [batch_norm_infer]
-> [relu], adjacent and each intermediate read only by the next, becomes one `conv2d_fused`
library call (oneDNN's convolution with bias and activation as post-ops). batch_norm on running
statistics is folded into the conv's weights and bias by small pointwise ops that run with the
plan every time, so the plan never goes stale when the scope's parameters change:
    k = Scale / sqrt(Variance + eps),  W' = W * k (per output channel),
    b' = (b - Mean) * k + Bias         (b = 0 without a conv bias).
Exact in real arithmetic; in floating point it differs from the unfolded chain by rounding.

channels_last: a connected chain of at least two convolutions and pools over NCHW (the output
of one the data input of the next, read by nothing else and not kept) runs in NHWC: one
transpose into NHWC where it starts, one back where it ends (or where an inner value is
fetched), so the layout is invisible to the user. torch's NCHW max pool and conv kernels were
measured 2-10x slower than their channels-last forms on the bench CNN; a lone conv or pool is
left as it is (its two transposes would cost more than the change gains).

keep_pool_indices (training): a max pool whose grad is in the plan keeps its argmax indices
for it (pool2d_argmax / pool2d_argmax_grad), so the grad does not pool X again.

generated_pool: which pools the C backend generates (PoolKernel, codegen/c_pool.py) rather
than calling torch's; generated_convs: which conv2d_fused (ConvKernel, codegen/c_conv.py),
with which pools taken in.
"""
from __future__ import annotations

import math

from ..frontend.dtypes import VarType, to_numpy_dtype
from ..frontend.ops import OpDesc, VarInfo, get_op_def
from ..frontend.ops.conv import (conv_geometry, native_max_pool, pool_geometry,
                                   window_spans)
from ..frontend.ops.registry import EMPTY_VAR
from .fuse import CONVS as CONVS_FUSED, POOLS

CONVS = ("conv2d", "depthwise_conv2d")
FLOATS = (VarType.FP32, VarType.FP64)


class _Vars:
    """New temporaries: unique names derived from a base, with their infos recorded."""

    def __init__(self, infos: dict[str, VarInfo]) -> None:
        self.infos = infos

    def __call__(self, base: str, info: VarInfo) -> str:
        k = 0
        while f"{base}@{k}" in self.infos:
            k += 1
        name = f"{base}@{k}"
        self.infos[name] = info
        return name


def _op(type_: str, ins: dict, outs: dict, attrs: dict) -> OpDesc:
    """An op made after lowering: its attrs completed with the op's defaults."""
    return OpDesc(type_, ins, outs, get_op_def(type_).complete_attrs(attrs))


def _readers(ops: list[OpDesc]) -> dict[str, int]:
    n: dict[str, int] = {}
    for op in ops:
        for v in op.input_arg_names:
            n[v] = n.get(v, 0) + 1
    return n


def _channel_axis(op: OpDesc) -> int:
    return 3 if op.attrs.get("data_format") == "NHWC" else 1


def _next_reads(ops, j: int, t: str, type_: str, slot: str = "X") -> bool:
    return j < len(ops) and ops[j].type == type_ and ops[j].input(slot) == [t]


def _epilogue(ops, i, infos, readers, keep):
    """(bias, batch_norm_infer op, act, index after the chain, final output) of the chain
    starting at the conv ops[i]; bias/bn None and act '' where absent."""
    conv = ops[i]
    t = conv.output("Output")[0]
    axis = _channel_axis(conv)
    c = infos[t].shape[axis]
    bias = bn = None
    act = ""
    j = i + 1

    def inner(v):  # an intermediate the next op alone reads
        return readers.get(v) == 1 and v not in keep

    if _next_reads(ops, j, t, "elementwise_add") and inner(t):
        y = ops[j].input("Y")[0]
        yi = infos[y]
        if tuple(yi.shape) == (c,) and ops[j].attrs.get("axis", -1) in (axis, axis - 4) \
                and yi.dtype == infos[t].dtype:
            bias, t, j = y, ops[j].output("Out")[0], j + 1
    if _next_reads(ops, j, t, "batch_norm_infer") and inner(t) \
            and (3 if ops[j].attrs.get("data_layout") == "NHWC" else 1) == axis \
            and all(infos[ops[j].input(s)[0]].dtype == infos[t].dtype
                    for s in ("Scale", "Bias", "Mean", "Variance")):
        bn, t, j = ops[j], ops[j].output("Y")[0], j + 1
    if _next_reads(ops, j, t, "relu") and inner(t):
        act, t, j = "relu", ops[j].output("Out")[0], j + 1
    return bias, bn, act, j, t


def _fold(conv: OpDesc, bias, bn: OpDesc, infos, new) -> tuple[list[OpDesc], str, str]:
    """The ops computing the folded filter and bias, and their names."""
    w = conv.input("Filter")[0]
    wi = infos[w]
    vec = VarInfo((wi.shape[0],), wi.dtype)
    ops: list[OpDesc] = []

    def emit(type_, ins, info, attrs=None):
        out = new(f"{w}.fold", info)
        ops.append(_op(type_, {k: [v] for k, v in ins.items()}, {"Out": [out]}, attrs or {}))
        return out

    scale, shift, mean, var = (bn.input(s)[0] for s in ("Scale", "Bias", "Mean", "Variance"))
    std = emit("sqrt", {"X": emit("scale", {"X": var}, vec,
                                  {"scale": 1.0, "bias": float(bn.attrs["epsilon"])})}, vec)
    k = emit("elementwise_div", {"X": scale, "Y": std}, vec)
    w2 = emit("elementwise_mul", {"X": w, "Y": k}, VarInfo(tuple(wi.shape), wi.dtype),
              {"axis": 0})
    if bias is None:
        b2 = emit("elementwise_sub", {"X": shift, "Y": emit("elementwise_mul",
                                                            {"X": mean, "Y": k}, vec)}, vec)
    else:
        centred = emit("elementwise_sub", {"X": bias, "Y": mean}, vec)
        b2 = emit("elementwise_add", {"X": emit("elementwise_mul", {"X": centred, "Y": k}, vec),
                                      "Y": shift}, vec)
    return ops, w2, b2


def fuse_conv_epilogues(ops: list[OpDesc], infos: dict[str, VarInfo],
                        keep: set[str]) -> list[OpDesc]:
    """The ops with each conv chain (bias, batch_norm_infer, relu) as one conv2d_fused; new
    temporaries are added to `infos`."""
    readers = _readers(ops)
    new = _Vars(infos)
    out: list[OpDesc] = []
    i = 0
    while i < len(ops):
        op = ops[i]
        if op.type not in CONVS or infos[op.output("Output")[0]].dtype not in FLOATS:
            out.append(op)
            i += 1
            continue
        bias, bn, act, j, y = _epilogue(ops, i, infos, readers, keep)
        if j == i + 1:
            out.append(op)
            i += 1
            continue
        w, b = op.input("Filter")[0], bias
        if bn is not None:
            fold, w, b = _fold(op, bias, bn, infos, new)
            out += fold
        ins = {"Input": op.input("Input"), "Filter": [w], "Bias": [b] if b else []}
        # the conv's own attributes (a Paddle-saved conv also carries is_test, use_cudnn, ...,
        # which loading already checked for meaning nothing here)
        fused = get_op_def("conv2d_fused").attrs
        attrs = {k: v for k, v in op.attrs.items() if k in fused}
        out.append(_op("conv2d_fused", ins, {"Output": [y]}, {**attrs, "act": act}))
        i = j
    return out


# -- generated pools -----------------------------------------------------------------------------
def generated_pool(op: OpDesc, infos: dict[str, VarInfo]) -> bool:
    """Whether the C backend computes this op as generated code (a PoolKernel): every max or
    average pool2d, pool2d_argmax and their grads (those writing X@GRAD), over float32 or
    float64; each measured faster than torch's (docs/architecture.md, "Fusion beyond
    pointwise chains")."""
    return op.type in POOLS and infos[op.input("X")[0]].dtype in FLOATS \
        and op.attrs.get("pooling_type") in ("max", "avg") \
        and (not op.type.endswith("_grad") or op.output("X@GRAD") not in ([], [EMPTY_VAR]))


# -- generated convolutions ---------------------------------------------------------------------
# A direct kernel beats the library call (oneDNN through torch, with its zeroed output and
# per-call weight reorder) or ties with it on every shape measured (docs/architecture.md), while
# its packed W, a thread's padded input rows and its output row stay small (bytes; all sit on
# stacks).
SMALL_CONV_OUT = 256  # output channels at most
PACKED_W_BYTES = 256 << 10
ROW_BYTES = 64 << 10


def _conv_fits(op: OpDesc, infos: dict[str, VarInfo]) -> bool:
    """One group, float32 or float64 Input and Filter, at most SMALL_CONV_OUT output channels,
    W packed in at most PACKED_W_BYTES (channels rounded up to 16), the padded input rows of
    one output row and that row in at most ROW_BYTES each."""
    if op.type not in CONVS_FUSED or int(op.attrs.get("groups") or 1) != 1:
        return False
    x, w = infos[op.input("Input")[0]], infos[op.input("Filter")[0]]
    if x.dtype not in FLOATS or w.dtype not in FLOATS or w.shape[0] > SMALL_CONV_OUT:
        return False
    fmt, _, (_, sw), (_, dw) = conv_geometry(op.type, x.shape, w.shape, op.attrs)
    ow = infos[op.output("Output")[0]].shape[3 if fmt == "NCHW" else 2]
    o, c, kh, kw = w.shape
    padded = (max(ow - 1, 0) * sw + (kw - 1) * dw + 1) * c * kh
    itemsize = to_numpy_dtype(x.dtype).itemsize
    lanes = -(-o // 16) * 16
    return lanes * c * kh * kw * itemsize <= PACKED_W_BYTES \
        and max(padded, ow * lanes) * itemsize <= ROW_BYTES


def pool_window(op: OpDesc, infos: dict[str, VarInfo]) -> tuple[int, int] | None:
    """(kh, kw) when `op` is a max or average pool2d whose windows tile its input from the top
    left corner, kh x kw each at strides of their size (no padding, no partial window, so an
    average divides by kh * kw), which a generated conv takes as it makes its rows; else None."""
    if op.type != "pool2d" or op.attrs.get("pooling_type") not in ("max", "avg"):
        return None
    a = op.attrs
    xshape = infos[op.input("X")[0]].shape
    fmt, k, s, pads, out = pool_geometry(op.type, xshape, a)
    hw = xshape[2:] if fmt == "NCHW" else xshape[1:3]
    spans = window_spans(a, hw, k, s, pads, out)
    size = [d[0][1] - d[0][0] if d else 0 for d in spans]
    if min(size) < 1 or any(span != (i * z, i * z + z, z) for d, z in zip(spans, size)
                            for i, span in enumerate(d)):
        return None
    return size[0], size[1]


def generated_convs(ops: list[OpDesc], infos: dict[str, VarInfo],
                    keep: set[str]) -> tuple[set[str], set[str]]:
    """(the outputs of the conv2d_fused ops the C backend computes as generated code, a
    ConvKernel: those that fit, `_conv_fits`; the outputs of the pools taken in those kernels:
    a generated max or average pool whose windows tile the conv's result (`pool_window`), in
    its layout, when it alone reads that result)."""
    readers = _readers(ops)
    pools = {op.input("X")[0]: op for op in ops
             if generated_pool(op, infos) and pool_window(op, infos) is not None}
    convs: set[str] = set()
    conv_pools: set[str] = set()
    for op in ops:
        if not _conv_fits(op, infos):
            continue
        y = op.output("Output")[0]
        convs.add(y)
        pool = pools.get(y)
        if pool is not None and readers.get(y) == 1 and y not in keep \
                and _channel_axis(pool) == _channel_axis(op):
            conv_pools.add(pool.output("Out")[0])
    return convs, conv_pools


# -- max pool indices kept for the grad ----------------------------------------------------------
def keep_pool_indices(ops: list[OpDesc], infos: dict[str, VarInfo]) -> list[OpDesc]:
    """Max pools whose pool2d_grad is in the plan (training) keep their argmax indices for it:
    pool2d -> pool2d_argmax (Out and Indices), the grad -> pool2d_argmax_grad reading them,
    where torch pools natively (the indices then address X itself)."""
    pool_attrs = get_op_def("pool2d").attrs
    grads = {(op.input("X")[0], op.input("Out")[0]): op for op in ops if op.type == "pool2d_grad"}
    indices: dict[int, str] = {}  # id of a rewritten grad -> the indices it reads
    new = _Vars(infos)
    out: list[OpDesc] = []
    for op in ops:
        if op.type == "pool2d":
            x, y = op.input("X")[0], op.output("Out")[0]
            grad = grads.get((x, y))
            a = get_op_def("pool2d").complete_attrs(
                {k: v for k, v in op.attrs.items() if k in pool_attrs})
            same = grad is not None and all(grad.attrs.get(k, v) == a[k] for k, v in
                                            pool_attrs.items())
            if same and native_max_pool(infos[x].shape, a):
                ind = new(f"{y}.argmax", VarInfo(tuple(infos[y].shape), VarType.INT64))
                indices[id(grad)] = ind
                out.append(_op("pool2d_argmax", {"X": [x]}, {"Out": [y], "Indices": [ind]}, a))
                continue
        elif op.type == "pool2d_grad" and id(op) in indices:
            out.append(_op("pool2d_argmax_grad", {"X": op.input("X"), "Indices": [indices[id(op)]],
                                                  "Out@GRAD": op.input("Out@GRAD")},
                           {"X@GRAD": op.output("X@GRAD")},
                           {k: v for k, v in op.attrs.items() if k in pool_attrs}))
            continue
        out.append(op)
    return out


# -- channels-last ------------------------------------------------------------------------------
LAYOUT_OPS = {"conv2d": ("Input", "Output"), "depthwise_conv2d": ("Input", "Output"),
              "conv2d_fused": ("Input", "Output"), "pool2d": ("X", "Out")}
TO_NHWC, TO_NCHW = [0, 2, 3, 1], [0, 3, 1, 2]


def _nchw_op(op: OpDesc, infos) -> bool:
    slots = LAYOUT_OPS.get(op.type)
    return slots is not None and op.attrs.get("data_format", "NCHW") in ("NCHW", "AnyLayout") \
        and len(infos[op.input(slots[0])[0]].shape) == 4


def _components(ops, infos, keep) -> tuple[dict[int, int], set[str]]:
    """({index of a layout op: its chain's size}, the values linking them): layout ops are
    linked through a value one makes and the next alone reads as its data input."""
    producer = {op.output(LAYOUT_OPS[op.type][1])[0]: i for i, op in enumerate(ops)
                if _nchw_op(op, infos)}
    readers = _readers(ops)
    parent = {i: i for i in producer.values()}
    links: set[str] = set()

    def root(i):
        while parent[i] != i:
            i = parent[i]
        return i
    for i, op in enumerate(ops):
        if i in parent:
            x = op.input(LAYOUT_OPS[op.type][0])[0]
            if x in producer and readers.get(x) == 1 and x not in keep:
                parent[root(i)] = root(producer[x])
                links.add(x)
    size: dict[int, int] = {}
    for i in parent:
        size[root(i)] = size.get(root(i), 0) + 1
    return {i: size[root(i)] for i in parent}, links


def _nhwc_info(info: VarInfo) -> VarInfo:
    n, c, h, w = info.shape
    return VarInfo((n, h, w, c), info.dtype, info.lod_level)


def channels_last(ops: list[OpDesc], infos: dict[str, VarInfo], keep: set[str]) -> list[OpDesc]:
    """The ops with chains of two or more NCHW convs and pools run in NHWC between one
    transpose in and one out; new temporaries are added to `infos`."""
    chains, links = _components(ops, infos, keep)
    if not any(n >= 2 for n in chains.values()):
        return ops
    new = _Vars(infos)
    nhwc: dict[str, str] = {}  # NCHW var -> its NHWC copy or replacement
    out: list[OpDesc] = []

    def transpose(x: str, perm, y: str) -> None:
        out.append(_op("transpose2", {"X": [x]}, {"Out": [y]}, {"axis": list(perm)}))

    for i, op in enumerate(ops):
        if chains.get(i, 0) < 2:
            out.append(op)
            continue
        src, dst = LAYOUT_OPS[op.type]
        x, y = op.input(src)[0], op.output(dst)[0]
        if x not in nhwc:
            nhwc[x] = new(f"{x}.nhwc", _nhwc_info(infos[x]))
            transpose(x, TO_NHWC, nhwc[x])
        op = op.copy()
        op.inputs[src] = [nhwc[x]]
        op.attrs["data_format"] = "NHWC"
        nhwc[y] = new(f"{y}.nhwc", _nhwc_info(infos[y]))
        op.outputs[dst] = [nhwc[y]]
        out.append(op)
        if y not in links:  # the NCHW value back for what else reads it (or keeps it)
            transpose(nhwc[y], TO_NCHW, y)
    return out
