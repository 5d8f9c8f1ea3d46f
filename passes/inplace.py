"""enable_inplace: a kernel output takes the buffer of an input that dies in the same kernel.

Pointwise and row kernels read an element before they store the element of the same index, so
an output of the kernel's whole shape may overwrite an input of that shape whose last reader is
this kernel. The output is renamed to the input (one buffer, read then written: no aliasing of
restrict pointers), in this kernel and in every later step. Matmul kernels read their operands
whole before storing, so they take no donors.
"""
from __future__ import annotations

from ..frontend.ops import OpDesc, VarInfo
from .fuse import Extern, Kernel, MatmulKernel, Step


def _rename(op: OpDesc, mapping: dict[str, str]) -> OpDesc:
    if not any(n in mapping for n in op.input_arg_names + op.output_arg_names):
        return op
    op = op.copy()  # never touch the descs the Program holds
    for slots in (op.inputs, op.outputs):
        for slot, names in slots.items():
            slots[slot] = [mapping.get(n, n) for n in names]
    return op


def _names(step: Step) -> list[str]:
    ops = [step.op] if isinstance(step, Extern) else step.ops
    return [n for op in ops for n in op.input_arg_names + op.output_arg_names]


def write_in_place(steps: list[Step], infos: dict[str, VarInfo], protected: set[str]) -> list[Step]:
    """Steps where kernel outputs reuse dying inputs' buffers; `protected` vars keep theirs."""
    last: dict[str, int] = {}
    for k, step in enumerate(steps):
        for n in _names(step):
            last[n] = k
    mapping: dict[str, str] = {}
    out: list[Step] = []
    for k, step in enumerate(steps):
        if isinstance(step, Extern):
            out.append(Extern(_rename(step.op, mapping)))
            continue
        ops = [_rename(op, mapping) for op in step.ops]
        inputs = [mapping.get(n, n) for n in step.inputs]
        outputs = [mapping.get(n, n) for n in step.outputs]
        if isinstance(step, MatmulKernel):
            out.append(MatmulKernel(ops, step.shape, inputs, outputs))
            continue
        taken: set[str] = set()
        for o in outputs:
            if o in protected or o in inputs or tuple(infos[o].shape) != tuple(step.shape):
                continue
            donor = next((i for i in inputs if i not in protected and i not in outputs
                          and i not in taken and last.get(i) == k and infos[i] == infos[o]), None)
            if donor is not None:
                taken.add(donor)
                mapping[o] = donor
        if taken:
            ops = [_rename(op, mapping) for op in ops]
            outputs = [mapping.get(n, n) for n in outputs]
        out.append(Kernel(ops, step.shape, inputs, outputs, step.axes))
    return out
