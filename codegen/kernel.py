"""A fused group made concrete for printing: buffers, loop nest with strides, expression DAG."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..frontend.dtypes import to_numpy_dtype
from ..frontend.ops import VarInfo, get_op_def
from ..frontend.ops.define import aligned_shapes
from ..passes.fuse import Kernel
from .expr import ExprBuilder, Node


@dataclass
class Loop:
    """One loop of the nest: its trip count and each buffer's element stride along it."""

    size: int
    strides: dict[int, int]  # operand index -> stride
    reduce: bool = False


@dataclass
class KernelSpec:
    """What a printer needs: buffers (params), operands (buffer + strides), loops and outputs."""

    buffers: list[str]                 # var names, in parameter order
    dtypes: list[np.dtype]             # per buffer
    written: list[bool]                # per buffer
    operands: list[int] = field(default_factory=list)  # operand index -> buffer index
    loops: list[Loop] = field(default_factory=list)
    stores: list[tuple[int, Node]] = field(default_factory=list)   # (operand, value)
    builder: ExprBuilder = field(default_factory=ExprBuilder)
    combine: str | None = None         # reduction combine, if any
    reduce_value: Node | None = None
    reduce_out: int | None = None      # operand the reduction result goes to

    @property
    def numel(self) -> int:
        return int(np.prod([lp.size for lp in self.loops])) if self.loops else 1


def _strides(shape: tuple[int, ...]) -> list[int]:
    out, acc = [], 1
    for d in reversed(shape):
        out.append(acc)
        acc *= d
    return out[::-1]


def build_spec(kernel: Kernel, infos: dict[str, VarInfo]) -> KernelSpec:
    """Evaluate the group's exprs into a DAG and lay out its loop nest."""
    shape = tuple(kernel.shape)
    red = kernel.reduction
    buffers = list(dict.fromkeys(kernel.inputs + kernel.outputs))
    spec = KernelSpec(buffers, [to_numpy_dtype(infos[b].dtype) for b in buffers],
                      [b in kernel.outputs for b in buffers])
    operand_key: dict[tuple, int] = {}
    operand_strides: list[list[int]] = []

    def operand(name: str, aligned: tuple[int, ...]) -> int:
        key = (name, aligned)
        if key not in operand_key:
            st = _strides(aligned)
            operand_strides.append([0 if a == 1 and s != 1 else t
                                    for a, s, t in zip(aligned, shape, st)])
            operand_key[key] = len(spec.operands)
            spec.operands.append(buffers.index(name))
        return operand_key[key]

    b = spec.builder
    env: dict[str, Node] = {}
    for op in (kernel.ops[:-1] if red else kernel.ops):
        opdef = get_op_def(op.type)
        in_shapes = {k: [infos[n].shape for n in v] for k, v in op.inputs.items() if v}
        aligned = aligned_shapes(opdef, op.attrs, in_shapes, len(shape))
        ins: dict[str, list[Node]] = {}
        for slot, names in op.inputs.items():
            ins[slot] = [env[n] if n in env else
                         b.load(operand(n, tuple(aligned[slot][i])), to_numpy_dtype(infos[n].dtype))
                         for i, n in enumerate(names)]
        dup = {s.name for s in opdef.inputs if s.duplicable}
        res = opdef.expr(b, {k: (v if k in dup else v[0]) for k, v in ins.items()}, op.attrs)
        for slot, node in res.items():
            for n in op.output(slot):
                if n != "@EMPTY@":
                    env[n] = b.cast(node, to_numpy_dtype(infos[n].dtype))
    for n in kernel.outputs:
        if n in env:
            spec.stores.append((operand(n, shape), env[n]))
    if red is not None:
        x = red.input("X")[0]
        spec.reduce_value = env[x] if x in env else b.load(operand(x, shape),
                                                           to_numpy_dtype(infos[x].dtype))
        axes = get_op_def(red.type).reduce_axes(red.attrs, len(shape))
        out = red.output("Out")[0]
        kept = tuple(1 if i in axes else d for i, d in enumerate(shape))
        spec.reduce_out = operand(out, kept)
        spec.combine = get_op_def(red.type).combine
        order = [i for i in range(len(shape)) if i not in axes] + list(axes)
    else:
        order = list(range(len(shape)))
    for d in order:
        spec.loops.append(Loop(shape[d], {k: st[d] for k, st in enumerate(operand_strides)},
                               reduce=red is not None and d in axes))
    spec.loops = _collapse(spec.loops)
    return spec


def _collapse(loops: list[Loop]) -> list[Loop]:
    """Merge neighbouring loops every operand walks contiguously; drop trip-count-1 loops."""
    loops = [lp for lp in loops if lp.size != 1]
    out: list[Loop] = []
    for lp in loops:
        if out and out[-1].reduce == lp.reduce and all(
                out[-1].strides[k] == lp.strides[k] * lp.size for k in lp.strides):
            prev = out[-1]
            out[-1] = Loop(prev.size * lp.size, dict(lp.strides), lp.reduce)
        else:
            out.append(lp)
    return out
