"""Attention as one generated kernel (C backend): the steps computing

    scores = q k^T                      matmul_v2(q, k, trans_y)        [b, h, sq, sk]
                                        (or matmul with transpose_Y and alpha; q may be a
                                        `scale` of the heads, as paddle.nn's attention)
    [scale, + mask, scale]              pointwise ops over the scores (joined to the softmax)
    p = softmax(scores) [* c]           softmax as lowered (max, exp, sum), identity dropout
    ctx = p v                           matmul_v2(p, v)                 [b, h, sq, dv]
    [transpose2 [0, 2, 1, 3]]           back to [b, sq, h, dv] for the output reshape

with q, k, v each [b, h, s, d] or the transpose2 [0, 2, 1, 3] of a [b, s, h, d] value (the
heads split off a projection by reshape2, a view), become one AttentionKernel when the scores
and weights are read by nothing else and not kept (inference, or any plan whose grads do not
read them) and the shapes fit `attention_fits`. It reads q, k and v through their strides
(the transposes' copies go), and stores ctx straight into the layout the steps stored (the
back-transpose's copy goes too). Computed per (batch, head, block of query rows): the scores
into a scratch row block, each row's softmax as the softmax kernel rounds it, then the rows
times v.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from ..frontend.dtypes import VarType
from ..frontend.ops import VarInfo, get_op_def
from ..frontend.ops.define import aligned_shapes
from ..frontend.ops.nn import SOFTMAX_FLOOR
from ..frontend.ops.tensor import _mm_flags
from .fuse import Extern, Fused, Kernel, MatmulKernel, Step
from .scheduler import step_accesses

FLOATS = (VarType.FP32, VarType.FP64)
MAX_KEYS = 4096  # a scratch row of scores per query row; the packed K and V per thread
MAX_HEAD_DIM = 256
HEADS_FIRST = [0, 2, 1, 3]  # [b, s, h, d] <-> [b, h, s, d]
SOFTMAX_TYPES = ["reduce_max", "elementwise_sub", "clip", "exp", "reduce_sum", "elementwise_div"]


@dataclass
class AttentionKernel(Fused):
    """softmax(q k^T with the score ops) v computed by generated code (codegen/c_attention.py).
    `ops` are the steps' ops it replaces (for its name); inputs are q, k, v [and the mask];
    outputs the one var it stores."""

    split: str = "generated attention"
    q: str = ""
    k: str = ""
    v: str = ""
    # Per q, k, v: whether the var is [b, s, h, d] (read through a folded transpose2) rather
    # than [b, h, s, d]; likewise for the stored output.
    heads_second: tuple[bool, bool, bool] = (False, False, False)
    q_scale: float | None = None  # a scale of q before the product (each element rounded)
    out_heads_second: bool = False
    # The pointwise ops on the scores before the softmax, in order: ("scale", c) or ("mask",).
    score_ops: tuple = ()
    mask: str | None = None
    mask_shape: tuple[int, ...] = ()  # the mask aligned to [b, h, sq, sk] (1 where broadcast)
    weight_scales: tuple[float, ...] = ()  # scales of the softmax's result

    @property
    def stored(self) -> str:
        return self.outputs[0]


def attention_fits(dtype, keys: int, head_dims: tuple[int, int]) -> bool:
    """Where the generated kernel applies: float32/float64, at most MAX_KEYS keys (a scratch
    row of scores per query row), head dims (q/k and v) at most MAX_HEAD_DIM."""
    return dtype in FLOATS and 1 <= keys <= MAX_KEYS and max(head_dims) <= MAX_HEAD_DIM \
        and min(head_dims) >= 1


def _plain_scale(op) -> float | None:
    """The factor of a `scale` op that only multiplies (no bias, no ScaleTensor), else None."""
    if op.type != "scale" or op.input("ScaleTensor") or float(op.attrs["bias"]) != 0.0:
        return None
    return float(op.attrs["scale"])


def _softmax_chain(ops, x: str, last_axis: int) -> str | None:
    """The output of the lowered softmax of x over its last axis that `ops` are, else None."""
    if [op.type for op in ops] != SOFTMAX_TYPES or any(op.origin != "softmax" for op in ops):
        return None
    mx, sub, clip, exp, sm, div = ops

    def out(op) -> str:
        return op.output("Out")[0]

    def red(op) -> bool:  # over the last axis, kept
        return list(op.attrs.get("dim", [])) in ([-1], [last_axis]) \
            and bool(op.attrs.get("keep_dim")) and not op.attrs.get("reduce_all")
    wired = (mx.input("X") == [x] and sub.input("X") == [x] and sub.input("Y") == [out(mx)]
             and clip.input("X") == [out(sub)] and exp.input("X") == [out(clip)]
             and sm.input("X") == [out(exp)] and div.input("X") == [out(exp)]
             and div.input("Y") == [out(sm)])
    clipped = float(clip.attrs.get("min")) == SOFTMAX_FLOOR \
        and float(clip.attrs.get("max")) == float("inf") \
        and not clip.input("Min") and not clip.input("Max")
    return out(div) if wired and clipped and red(mx) and red(sm) else None


class _Chain:
    """The steps' makers and readers, to find the chain starting at a product step."""

    def __init__(self, steps: list[Step], infos: dict[str, VarInfo], keep: set[str]) -> None:
        self.steps, self.infos, self.keep = steps, infos, keep
        self.maker: dict[str, int] = {}
        self.readers: dict[str, list[int]] = {}
        for i, s in enumerate(steps):
            reads, writes = step_accesses(s)
            for n in writes:
                self.maker[n] = i
            for n in dict.fromkeys(reads):
                self.readers.setdefault(n, []).append(i)

    def only_read_by(self, var: str, i: int) -> bool:
        return var not in self.keep and self.readers.get(var) == [i]

    def extern(self, i: int, *types: str):
        s = self.steps[i] if 0 <= i < len(self.steps) else None
        return s.op if isinstance(s, Extern) and s.op.type in types else None

    def product(self, i: int) -> tuple | None:
        """(the matmul op, the ops after it in its step, the step's one output) of a matmul
        or matmul_v2 at step i, a library call or a generated product with its epilogue."""
        op = self.extern(i, "matmul_v2", "matmul")
        if op is not None:
            return op, [], op.output("Out")[0]
        s = self.steps[i] if 0 <= i < len(self.steps) else None
        if isinstance(s, MatmulKernel) and s.matmul.type in ("matmul_v2", "matmul") \
                and len(s.outputs) == 1:
            return s.matmul, s.ops[1:], s.outputs[0]
        return None

    def scaled(self, var: str, reader: int) -> tuple[str, float | None, int | None]:
        """(the var scaled, the factor, its kernel step) when var is made by a kernel of one
        plain `scale` alone and read by `reader` alone, else (var, None, None)."""
        j = self.maker.get(var)
        s = self.steps[j] if j is not None else None
        if isinstance(s, Kernel) and len(s.ops) == 1 and s.outputs == [var] \
                and _plain_scale(s.ops[0]) is not None and self.only_read_by(var, reader):
            return s.ops[0].input("X")[0], _plain_scale(s.ops[0]), j
        return var, None, None

    def operand(self, var: str, reader: int) -> tuple[str, bool, int | None]:
        """(the var read, whether it is [b, s, h, d], the transpose step folded or None)."""
        j = self.maker.get(var)
        t = self.extern(j, "transpose2") if j is not None else None
        if t is not None and list(t.attrs["axis"]) == HEADS_FIRST \
                and self.only_read_by(var, reader) \
                and all(self.only_unread(n) for n in t.output("XShape")):
            return t.input("X")[0], True, j
        return var, False, None

    def only_unread(self, var: str) -> bool:
        return var not in self.keep and not self.readers.get(var)

    def find(self, i: int) -> tuple[AttentionKernel, set[int]] | None:
        """The kernel replacing the chain starting at step i and the steps it replaces."""
        first = self.product(i)
        if first is None or _mm_flags(first[0].attrs)[:2] != (False, True):
            return None
        mm1, score_epilogue, made1 = first
        alpha = _mm_flags(mm1.attrs)[2]
        infos = self.infos
        q4, k4 = mm1.input("X")[0], mm1.input("Y")[0]
        q4, q_scale, q_step = self.scaled(q4, i)
        scores = mm1.output("Out")[0]
        qi, ki, si = infos[q4], infos[k4], infos[scores]
        if len(qi.shape) != 4 or tuple(ki.shape[:2]) != tuple(qi.shape[:2]) \
                or len(ki.shape) != 4 or not (qi.dtype == ki.dtype == si.dtype):
            return None
        b, h, sq, dk = qi.shape
        sk = ki.shape[2]
        j = i + 1
        soft = self.steps[j] if j < len(self.steps) else None
        if not isinstance(soft, Kernel) or soft.axes != (3,) or len(soft.outputs) != 1 \
                or not self.only_read_by(made1, j):
            return None
        # the score ops, the softmax, the scales of its result
        score_ops: list = [("scale", alpha)] if alpha != 1.0 else []
        mask = mask_shape = None
        x = scores
        ops = score_epilogue + soft.ops  # a generated product's epilogue: its first score ops
        k = 0
        while k < len(ops) and ops[k].type in ("scale", "elementwise_add") \
                and ops[k].origin != "softmax":
            op = ops[k]
            if op.type == "scale":
                c = _plain_scale(op)
                if c is None or op.input("X") != [x]:
                    return None
                score_ops.append(("scale", c))
            else:
                if mask is not None or x not in op.input("X") + op.input("Y"):
                    return None
                slot = "Y" if op.input("X") == [x] else "X"
                mask = op.input(slot)[0]
                made = {scores} | {n for o in ops[:k] for n in o.output_arg_names}
                shapes = {s: [infos[op.input(s)[0]].shape] for s in ("X", "Y")}
                aligned = aligned_shapes(get_op_def(op.type), op.attrs, shapes, 4)[slot][0]
                if mask in made or infos[mask].dtype != si.dtype \
                        or tuple(infos[op.output("Out")[0]].shape) != tuple(si.shape):
                    return None
                mask_shape = tuple(aligned)
                score_ops.append(("mask",))
            x = op.output("Out")[0]
            k += 1
        p = _softmax_chain(ops[k:k + 6], x, 3)
        if p is None:
            return None
        weight_scales = []
        for op in ops[k + 6:]:
            c = _plain_scale(op)
            if c is None or op.input("X") != [p]:
                return None
            weight_scales.append(c)
            p = op.output("Out")[0]
        if soft.outputs != [p]:
            return None
        second = self.product(j + 1)
        if second is None or second[1]:
            return None
        mm2 = second[0]
        if mm2.input("X") != [p] or _mm_flags(mm2.attrs) != (False, False, 1.0) \
                or not self.only_read_by(p, j + 1):
            return None
        v4 = mm2.input("Y")[0]
        vi = infos[v4]
        if len(vi.shape) != 4 or tuple(vi.shape[:3]) != (b, h, sk) or vi.dtype != si.dtype:
            return None
        dv = vi.shape[3]
        if not attention_fits(si.dtype, sk, (dk, dv)) or sq < 1 or b * h < 1:
            return None
        ctx = mm2.output("Out")[0]
        last = j + 1
        out, out_second = ctx, False
        back = self.extern(j + 2, "transpose2")
        if back is not None and back.input("X") == [ctx] and self.only_read_by(ctx, j + 2) \
                and list(back.attrs["axis"]) == HEADS_FIRST \
                and all(self.only_unread(n) for n in back.output("XShape")):
            out, out_second, last = back.output("Out")[0], True, j + 2
        folded: set[int] = {i, j, j + 1, last} | ({q_step} if q_step is not None else set())
        reads, seconds = [], []
        for var, reader in ((q4, i if q_step is None else q_step), (k4, i), (v4, j + 1)):
            src, second, t = self.operand(var, reader)  # (k = v: read twice, not folded)
            reads.append(src)
            seconds.append(second)
            if t is not None:
                folded.add(t)
        inputs = list(dict.fromkeys(reads + ([mask] if mask else [])))
        # Nothing between the first and the last step replaced may write what it reads.
        first = min(folded)
        for s in range(first, last + 1):
            if s not in folded and set(step_accesses(self.steps[s])[1]) & set(inputs):
                return None
        replaced = [op for s in sorted(folded) for op in
                    ([self.steps[s].op] if isinstance(self.steps[s], Extern)
                     else self.steps[s].ops)]
        kernel = AttentionKernel(
            replaced, tuple(infos[out].shape), inputs, [out], q=reads[0], k=reads[1],
            v=reads[2], heads_second=tuple(seconds), q_scale=q_scale, out_heads_second=out_second,
            score_ops=tuple(score_ops), mask=mask, mask_shape=mask_shape or (),
            weight_scales=tuple(weight_scales))
        return kernel, folded


def fuse_attention(steps: list[Step], infos: dict[str, VarInfo], keep: set[str]) -> list[Step]:
    """The steps with each attention chain (module docstring) as one AttentionKernel, placed
    where the chain's last step was; `keep` names the vars that must be stored (fetched,
    persistable, read through views)."""
    out = list(steps)
    chain = _Chain(out, infos, keep)
    i = 0
    while i < len(out):
        found = chain.find(i)
        if found is None:
            i += 1
            continue
        kernel, folded = found
        last = max(folded)
        out = [kernel if s == last else step for s, step in enumerate(out) if s not in folded
               or s == last]
        chain = _Chain(out, infos, keep)
        i = min(folded)  # the steps before it are unchanged
    return out


def _swaps_heads(step) -> tuple[str, str] | None:
    """(A, B) of a transpose2 or transpose2_grad with axis [0, 2, 1, 3] over 4-D values: B is
    A with its dims 1 and 2 swapped (its own inverse: heads split off, or merged back)."""
    if not isinstance(step, Extern) or step.op.type not in ("transpose2", "transpose2_grad") \
            or list(step.op.attrs.get("axis", ())) != HEADS_FIRST:
        return None
    op = step.op
    a, b = (op.input("X"), op.output("Out")) if op.type == "transpose2" else \
        (op.input("Out@GRAD"), op.output("X@GRAD"))
    return (a[0], b[0]) if len(a) == 1 and len(b) == 1 else None


def _batched(step) -> bool:
    """Whether `step` is a generated product of 4-D X and W (a batch of [b, h] matrices)."""
    if not isinstance(step, MatmulKernel):
        return False
    mm = step.matmul
    return len(step.shape) == 4 and mm.input("X")[0] != mm.input("Y")[0] \
        and step.matmul.type == "matmul_v2"


def _operand_of(step, var: str) -> bool:
    """Whether batched product `step` reads `var` as its X or W only (not in its epilogue)."""
    if not _batched(step) or var in step.heads:
        return False
    mm = step.matmul
    epilogue = {n for op in step.ops[1:] for n in op.input_arg_names}
    return var in (mm.input("X")[0], mm.input("Y")[0]) and var not in epilogue


def fold_heads(steps: list[Step], infos: dict[str, VarInfo], keep: set[str]) -> list[Step]:
    """The head transposes of attention (transpose2 [0, 2, 1, 3] and its grad, copies of
    [b, s, h, d] <-> [b, h, s, d]) folded into the generated batched products next to them:
    - B = swap(A) read only by products, as their X or W, and not kept (fetched, persistable,
      read through a view): they read A in heads-second order (MatmulKernel.heads) and the
      copy goes, unless a step between the copy and the last of them writes A;
    - A made by a product alone (no epilogue), read only by the copy and not kept: the
      product stores B in heads-second order and the copy goes.
    A transpose2's XShape (zero elements: its grad reads only its shape) stays unwritten."""
    out = list(steps)
    chain = None  # the steps' makers and readers, made again after each fold
    i = 0
    while i < len(out):
        pair = _swaps_heads(out[i])
        if pair is None:
            i += 1
            continue
        a, b = pair
        chain = chain or _Chain(out, infos, keep)
        readers = chain.readers.get(b, [])
        if b not in keep and readers and all(_operand_of(out[r], b) for r in readers) \
                and not any(a in step_accesses(out[s])[1] for s in range(i + 1, max(readers))):
            for r in readers:
                k = out[r]
                out[r] = dataclasses.replace(k, heads={**k.heads, b: (a, infos[a].shape[2])},
                                             inputs=[a if n == b else n for n in k.inputs])
            del out[i]
            chain = None
            continue
        j = chain.maker.get(a)
        k = out[j] if j is not None else None
        if a not in keep and _batched(k) and len(k.ops) == 1 and k.outputs == [a] \
                and chain.readers.get(a) == [i]:
            out[j] = dataclasses.replace(k, heads={**k.heads, a: (b, infos[a].shape[1])},
                                         outputs=[b])
            del out[i]
            chain = None
            continue
        i += 1
    return out
