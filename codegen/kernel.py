"""A fused group made concrete for printing: buffers, loop nest with strides, expression DAG."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from ..frontend.dtypes import to_numpy_dtype
from ..frontend.ops import VarInfo, get_op_def
from ..frontend.ops.define import aligned_shapes
from ..passes.fuse import Concurrent, Extern, Fused, Kernel, flat_steps, kernel_label
from ..frontend.ops.expr import ExprBuilder, Node, reachable

Storage = Callable[[str], str]  # var -> the var whose memory it lives in


@dataclass
class Loop:
    """One loop of the nest: its trip count and each buffer's element stride along it."""

    size: int
    strides: dict[int, int]  # operand index -> stride
    reduce: bool = False


@dataclass
class KernelSpec:
    """What a printer needs: buffers (params), operands (buffer + strides), loops and outputs."""

    buffers: list[str]                 # storages (named by their owning var), in parameter order
    dtypes: list[np.dtype]             # per buffer
    written: list[bool]                # per buffer
    operands: list[int] = field(default_factory=list)  # operand index -> buffer index
    loops: list[Loop] = field(default_factory=list)
    # (operand, value): values over the whole shape, or per row (reduce nodes and what uses
    # only them) when the operand does not move along the reduced loops.
    stores: list[tuple[int, Node]] = field(default_factory=list)
    builder: ExprBuilder = field(default_factory=ExprBuilder)
    # Set only for the classic single-reduction kernel (then `stores` is empty): its combine,
    # the value reduced, and the operand the result goes to.
    combine: str | None = None
    reduce_value: Node | None = None
    reduce_out: int | None = None

    @property
    def numel(self) -> int:
        return int(np.prod([lp.size for lp in self.loops])) if self.loops else 1


def contiguous_strides(shape: tuple[int, ...]) -> list[int]:
    """A row-major array's strides, in elements."""
    out, acc = [], 1
    for d in reversed(shape):
        out.append(acc)
        acc *= d
    return out[::-1]


def build_spec(kernel: Kernel, infos: dict[str, VarInfo], storage: Storage = str,
               collapse: bool = True) -> KernelSpec:
    """Evaluate the group's exprs into a DAG and lay out its loop nest (kept dims outside);
    collapse=False keeps one loop per dim of the shape. Buffers are storages (`storage` maps a
    var to the one it lives in): vars sharing one, a view or an in-place output and its donor,
    are one pointer, so no two restrict pointers alias."""
    shape = tuple(kernel.shape)
    axes = tuple(kernel.axes)
    buffers = list(dict.fromkeys(storage(n) for n in kernel.inputs + kernel.outputs))
    written = {storage(n) for n in kernel.outputs}
    spec = KernelSpec(buffers, [to_numpy_dtype(infos[b].dtype) for b in buffers],
                      [b in written for b in buffers])
    operand_key: dict[tuple, int] = {}
    operand_strides: list[list[int]] = []

    def operand(name: str, aligned: tuple[int, ...]) -> int:
        key = (name, aligned)
        if key not in operand_key:
            st = contiguous_strides(aligned)
            operand_strides.append([0 if a == 1 and s != 1 else t
                                    for a, s, t in zip(aligned, shape, st)])
            operand_key[key] = len(spec.operands)
            spec.operands.append(buffers.index(storage(name)))
        return operand_key[key]

    kept = tuple(1 if i in axes else d for i, d in enumerate(shape))
    b = spec.builder
    env: dict[str, Node] = {}
    row_vars: set[str] = set()
    for op in kernel.ops:
        opdef = get_op_def(op.type)
        if opdef.kind == "reduction":
            x = op.input("X")[0]
            value = env[x] if x in env else b.load(operand(x, shape), to_numpy_dtype(infos[x].dtype))
            out = op.output("Out")[0]
            env[out] = b.reduce(opdef.combine, value, to_numpy_dtype(infos[out].dtype))
            row_vars.add(out)
            continue
        in_shapes = {k: [infos[n].shape for n in v] for k, v in op.inputs.items() if v}
        aligned = aligned_shapes(opdef, op.attrs, in_shapes, len(shape))
        ins: dict[str, list[Node]] = {}
        for slot, names in op.inputs.items():
            # An input the kernel does not read (used for its shape only) gets a stand-in
            # constant, which no stored value reaches.
            ins[slot] = [env[n] if n in env else
                         b.load(operand(n, tuple(aligned[slot][i])), to_numpy_dtype(infos[n].dtype))
                         if storage(n) in buffers else
                         b.constant(0, to_numpy_dtype(infos[n].dtype))
                         for i, n in enumerate(names)]
        dup = {s.name for s in opdef.inputs if s.duplicable}
        res = opdef.expr(b, {k: (v if k in dup else v[0]) for k, v in ins.items()}, op.attrs)
        row = tuple(infos[op.output_arg_names[0]].shape) != shape
        for slot, node in res.items():
            for n in op.output(slot):
                if n != "@EMPTY@":
                    env[n] = b.cast(node, to_numpy_dtype(infos[n].dtype))
                    if row:
                        row_vars.add(n)
    for n in kernel.outputs:
        if n in env:
            spec.stores.append((operand(n, kept if n in row_vars else shape), env[n]))
    reduces = [n for n in b.nodes if n.op == "reduce"]
    stored = [v for _, v in spec.stores]
    if len(reduces) == 1 and stored.count(reduces[0]) == 1 and not any(
            reduces[0] in reachable([v]) for v in stored if v is not reduces[0]):
        # The classic shape (one reduction closing a pointwise prologue), for simpler printers.
        k = stored.index(reduces[0])
        spec.reduce_out = spec.stores.pop(k)[0]
        spec.combine, spec.reduce_value = reduces[0].args
    order = [i for i in range(len(shape)) if i not in axes] + list(axes)
    for d in order:
        spec.loops.append(Loop(shape[d], {k: st[d] for k, st in enumerate(operand_strides)},
                               reduce=d in axes))
    if collapse:
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


def kernel_names(steps: list) -> dict[int, str]:
    """id(kernel step) -> its function name, 'kernel_5_softmax': its step number as inspect
    prints it, and what it computes (op types only: no var name reaches generated source)."""
    return {id(s): f"kernel_{k}_{kernel_label(s)}" for k, (_, s) in enumerate(flat_steps(steps))
            if not isinstance(s, Extern)}


def kernel_header(step) -> str:
    """The comment text opening a kernel: its source ops in order and its iteration space."""
    return (f"{' + '.join(op.type for op in step.ops)} over {list(step.shape)}"
            + (f", reducing axes {list(step.axes)}" if step.axes else ""))


def segments(steps: list) -> list:
    """The steps as the runtime calls them: extern steps, and runs of consecutive kernels (one
    call each, whatever the backend)."""
    out: list = []
    for step in steps:
        if isinstance(step, (Fused, Concurrent)):  # every generated kind
            if out and isinstance(out[-1], list):
                out[-1].append(step)
            else:
                out.append([step])
        else:
            out.append(step)
    return out


_LEVEL = {"const": 0, "row": 1, "elem": 2}


def node_levels(order: list[Node], moves: dict[int, bool]) -> dict[int, str]:
    """Where each node varies: 'const', per 'row' (kept index), or per 'elem' (reduced loops too).

    `moves[operand]` says whether an operand's address changes along the reduced loops.
    """
    levels: dict[int, str] = {}
    for n in order:
        if n.op == "constant":
            levels[n.id] = "const"
        elif n.op == "load":
            levels[n.id] = "elem" if moves[n.args[0]] else "row"
        elif n.op == "reduce":
            levels[n.id] = "row"
        else:
            levels[n.id] = max((levels[a.id] for a in n.args if isinstance(a, Node)),
                               key=_LEVEL.get, default="const")
    return levels


def kernel_stores(spec: KernelSpec) -> list[tuple[int, Node]]:
    """Every (operand, value) the kernel stores, the classic reduction's result included."""
    stores = list(spec.stores)
    if spec.combine is not None:
        out_dtype = spec.dtypes[spec.operands[spec.reduce_out]]
        stores.append((spec.reduce_out,
                       spec.builder.reduce(spec.combine, spec.reduce_value, out_dtype)))
    return stores


@dataclass
class RowPass:
    """One walk over the reduced loops: it computes the element values `values` need, then
    folds them into `reduce` (a reduce node) or, the last pass, stores them (`stores`)."""

    values: list[Node]
    reduce: Node | None = None
    stores: list[tuple[int, Node]] = field(default_factory=list)


@dataclass
class RowSchedule:
    """How a kernel computes each row (kept index), decided once for every printer: constants
    first, then in order row values (once per row) and passes over the reduced loops, then the
    per-row stores. `multi_pass` holds the element values more than one pass needs (a printer
    may keep them between passes, as C's scratch rows do, or recompute them). `recips` holds
    the row values element values are divided by: the C multiplies by their reciprocal, taken
    once a row (within 1 ulp of numpy's division), and tier 0 computes the same."""

    stores: list[tuple[int, Node]]
    order: list[Node]
    levels: dict[int, str]
    moves: dict[int, bool]  # operand -> whether its address moves along the reduced loops
    steps: list[Node | RowPass]
    row_stores: list[tuple[int, Node]]
    multi_pass: set[int]
    recips: set[int]


def row_schedule(spec: KernelSpec) -> RowSchedule:
    """The passes of a kernel over its reduced loops (none for a pointwise kernel)."""
    stores = kernel_stores(spec)
    moves = {o: any(lp.strides[o] != 0 for lp in spec.loops if lp.reduce)
             for o in range(len(spec.operands))}
    order = reachable([v for _, v in stores])
    levels = node_levels(order, moves)
    steps: list[Node | RowPass] = []
    for n in order:
        if levels[n.id] == "row":
            steps.append(RowPass([n.args[1]], reduce=n) if n.op == "reduce" else n)
    elem = [(o, v) for o, v in stores if moves[o]]
    if elem:
        steps.append(RowPass([v for _, v in elem], stores=elem))
    uses: dict[int, int] = {}
    for p in steps:
        if isinstance(p, RowPass):
            for n in reachable(p.values):
                uses[n.id] = uses.get(n.id, 0) + 1
    multi = {i for i, k in uses.items() if k > 1 and levels[i] == "elem"}
    recips = {n.args[1].id for n in order if n.op == "truediv" and n.dtype.kind == "f"
              and levels[n.id] == "elem" and levels[n.args[1].id] == "row"}
    return RowSchedule(stores, order, levels, moves, steps,
                       [(o, v) for o, v in stores if not moves[o]], multi, recips)
