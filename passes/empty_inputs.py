"""Inputs that may name a var holding nothing (OpDef.empty_inputs): Paddle's kernel reads such a
slot only when its var is initialized, else takes its fallback (shuffle_batch seeds from
startup_seed). Where nothing has set the var when the op runs, the binding is dropped, so the
op runs as with the slot unbound."""
from __future__ import annotations

from typing import Callable

from ..frontend.ops import OpDesc, get_op_def


def unbind_empty_inputs(op: OpDesc, has_value: Callable[[str], bool]) -> OpDesc:
    """op, or a copy without its empty_inputs slots whose vars do not all have a value."""
    slots = get_op_def(op.type).empty_inputs
    empty = [s for s in slots if op.inputs.get(s) and not all(map(has_value, op.inputs[s]))]
    if not empty:
        return op
    op = op.copy()
    for s in empty:
        del op.inputs[s]
    return op


def drop_empty_inputs(ops: list[OpDesc], available) -> list[OpDesc]:
    """The ops of one block in order, each unbound from the empty-input vars that neither
    `available` (fed, or held by the scope) nor an earlier op has set."""
    have = set(available)
    out = []
    for op in ops:
        out.append(unbind_empty_inputs(op, have.__contains__))
        have.update(op.output_arg_names)
    return out
