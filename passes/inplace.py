"""enable_inplace: a kernel output lives in the storage of an input that dies in the same kernel.

Pointwise and row kernels read an element before they store the element of the same index, so
an output of the kernel's whole shape may take the storage of an input of that shape whose last
touch, in the scheduler graph, is this kernel. Nothing is renamed: the output stays a var of
its own (the kernel's values stay one per name) that lives in the donor's storage, and codegen
gives the kernel one pointer for that storage, read and written, never two restrict ones.
Matmul kernels read their product's operands (X and W) whole, so those give no storage; their
epilogue reads its other operands element by element before storing the same element, as a
pointwise kernel does, so those may (a residual add's input, a grad summed into the product)
to the epilogue's outputs. The product itself takes no storage: codegen reads a var in the
product's storage as the product's tile (an epilogue operand there would read as the product).
"""
from __future__ import annotations

from ..frontend.ops import VarInfo
from .fuse import Kernel, MatmulKernel, Step
from .scheduler import SchedulerGraph


def write_in_place(steps: list[Step], infos: dict[str, VarInfo], graph: SchedulerGraph,
                   keep: set[str] = frozenset()) -> dict[str, str]:
    """{output: the storage it takes over}; `keep` vars keep storage of their own."""
    moved: dict[str, str] = {}
    last: dict[str, int] = {}  # storage -> last touch, grown as outputs move in

    def storage(n: str) -> str:
        return moved.get(n) or graph.storage(n)

    def last_touch(s: str) -> int:
        return last.get(s, graph.last_touch(s))

    fixed = graph.live_in | graph.live_out
    for k, step in enumerate(steps):
        if type(step) is not Kernel and type(step) is not MatmulKernel:
            continue
        taken: set[str] = {storage(n) for n in step.outputs}
        if type(step) is MatmulKernel:  # X and W are read whole
            taken |= {storage(step.held(n)[0]) for n in step.matmul.input_arg_names}
        product = step.held(step.product)[0] if type(step) is MatmulKernel else None
        for o in step.outputs:
            if o in keep or o == product or storage(o) in fixed or graph.vars_on(o) != [o] \
                    or tuple(infos[o].shape) != tuple(step.shape):
                continue
            for i in step.inputs:
                s = storage(i)
                # Every read of the donor's storage in this kernel must walk it as `o` does.
                if s in fixed or s in taken or last_touch(s) != k or any(
                        infos[n] != infos[o] for n in step.inputs if storage(n) == s):
                    continue
                taken.add(s)
                moved[o] = s
                last[s] = last_touch(o)
                break
    return moved
