"""fuse: group primitive ops into kernels — pointwise chains over one iteration space, a
reduction with its pointwise prologue — leaving library calls (extern) as their own steps."""
from __future__ import annotations

from dataclasses import dataclass, field

from ..frontend.ops import OpDesc, VarInfo, get_op_def


@dataclass
class Kernel:
    """One generated kernel: ops over `shape` (a reduction's input shape), reading `inputs`,
    writing `outputs` (the values used after it, fetched, or persistable)."""

    ops: list[OpDesc]
    shape: tuple[int, ...]
    inputs: list[str] = field(default_factory=list)
    outputs: list[str] = field(default_factory=list)

    @property
    def reduction(self) -> OpDesc | None:
        """The closing reduction op, if this is a reduction kernel."""
        last = self.ops[-1]
        return last if get_op_def(last.type).kind == "reduction" else None


@dataclass
class Extern:
    """A library call (matmul, gather, random, ...) run as its own step."""

    op: OpDesc


Step = Kernel | Extern


def group_ops(ops: list[OpDesc], infos: dict[str, VarInfo], fuse: bool = True) -> list[list[OpDesc] | OpDesc]:
    """Consecutive pointwise ops over one shape, closed by an optional reduction, form a group."""
    groups: list = []
    current: list[OpDesc] = []
    shape = None
    for op in ops:
        kind = get_op_def(op.type).kind
        if kind == "pointwise":
            out_shape = infos[op.output_arg_names[0]].shape
            if not (fuse and current and out_shape == shape):
                if current:
                    groups.append(current)
                current, shape = [], out_shape
            current.append(op)
        elif kind == "reduction":
            in_shape = infos[op.input("X")[0]].shape
            produced = {n for o in current for n in o.output_arg_names}
            if fuse and current and in_shape == shape and op.input("X")[0] in produced:
                groups.append(current + [op])
            else:
                if current:
                    groups.append(current)
                groups.append([op])
            current, shape = [], None
        else:
            if current:
                groups.append(current)
            current, shape = [], None
            groups.append(op)
    if current:
        groups.append(current)
    return groups


def build_steps(ops: list[OpDesc], infos: dict[str, VarInfo], live_out: set[str],
                fuse: bool = True) -> list[Step]:
    """Kernels and extern steps; a kernel outputs what later steps read or live_out names."""
    groups = group_ops(ops, infos, fuse)
    reads_after: list[set[str]] = [set() for _ in groups]
    seen: set[str] = set()
    for i in range(len(groups) - 1, -1, -1):
        reads_after[i] = set(seen)
        g = groups[i]
        for op in (g if isinstance(g, list) else [g]):
            seen.update(op.input_arg_names)
    steps: list[Step] = []
    for g, later in zip(groups, reads_after):
        if not isinstance(g, list):
            steps.append(Extern(g))
            continue
        written: list[str] = []
        inputs: list[str] = []
        for op in g:
            for n in op.input_arg_names:
                if n not in written and n not in inputs:
                    inputs.append(n)
            for n in op.output_arg_names:
                if n not in written:
                    written.append(n)
        red = g[-1] if get_op_def(g[-1].type).kind == "reduction" else None
        outputs = [n for n in written if n in later or n in live_out or (red and n in red.output_arg_names)]
        shape = infos[red.input("X")[0]].shape if red else infos[g[-1].output_arg_names[0]].shape
        steps.append(Kernel(g, tuple(shape), inputs, outputs))
    return steps
