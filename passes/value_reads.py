"""Which inputs of an op its computation reads as values, not only for their shape.

The answer is the compiler's own: the op lowered into primitives (as a plan lowers it), each
primitive reading all its inputs but a pointwise one, whose expression may use an input for
its shape alone (define.value_inputs: elementwise_add_grad's X and Y). A value a later
derivative reads counts too: paddle.grad(create_graph=True) differentiates the grad ops
(through their grad maker, or the primitives a composite without one lowers into), whose
grad ops may read what the first ones read for its shape. to_static records a stand-in for a
value no grad op reads (dygraph/jit_program.py)."""
from __future__ import annotations

from typing import Callable

from ..frontend.ops import OpDesc, VarInfo, get_op_def
from ..frontend.ops.define import value_inputs
from ..frontend.ops.registry import EMPTY_VAR, GRAD_SUFFIX
from .lower import lower_ops

# Derivatives followed past the op itself; an input still read only for its shape there
# counts as read (a stand-in could reach a value of a higher order).
ORDERS = 3


def values_read(op: OpDesc, info_of: Callable[[str], VarInfo | None]) -> set[str]:
    """The inputs of `op` whose values it, or a derivative of it up to ORDERS, reads.
    `info_of(name)`: a var's concrete shape and dtype, or None when unknown (a grad var,
    `x@GRAD`, is asked as `x`); an op with an input of unknown info reads every input.
    Ops alike but for their var names (a model's repeated layers) are analysed once."""
    inputs = [(slot, i, n) for slot, vs in op.inputs.items() for i, n in enumerate(vs)
              if n != EMPTY_VAR]
    first = {}
    for k, (_, _, n) in enumerate(inputs):
        first.setdefault(n, k)
    infos = [_info(n, info_of) for _, _, n in inputs]
    key = (op.type, repr(sorted(op.attrs.items())),
           tuple((slot, i, first[n], None if info is None else (tuple(info.shape), info.dtype))
                 for (slot, i, n), info in zip(inputs, infos)),
           tuple((slot, len(vs)) for slot, vs in op.outputs.items()))
    slots = _MEMO.get(key)
    if slots is None:
        read = _values_read(op, info_of, 0)
        slots = _MEMO[key] = frozenset((slot, i) for slot, i, n in inputs if n in read)
        if len(_MEMO) > MEMO_SIZE:
            _MEMO.pop(next(iter(_MEMO)))
    return {n for slot, i, n in inputs if (slot, i) in slots}


# analysed op signatures -> the (slot, index) of the inputs read, oldest first
_MEMO: dict[tuple, frozenset] = {}
MEMO_SIZE = 4096


def _values_read(op: OpDesc, info_of, order: int) -> set[str]:
    names = {n for n in op.input_arg_names if n != EMPTY_VAR}
    infos = {n: _info(n, info_of) for n in names}
    if order > ORDERS or any(i is None for i in infos.values()):
        return names
    opdef = get_op_def(op.type)
    try:
        prims = lower_ops([OpDesc(op.type, dict(op.inputs), dict(op.outputs),
                                  opdef.complete_attrs(op.attrs))], infos)
    except Exception:  # noqa: BLE001 - what cannot be lowered here counts as read: the safe
        return names   # answer (the value is then recorded), never a failed trace
    read = names & {n for p in prims for n in value_inputs(p, infos)}
    rest = names - read
    if not rest:
        return read
    try:
        if opdef.grad is not None:
            nexts = opdef.grad(op)
        else:  # create_graph replays a composite without a grad as its primitives
            nexts = [g for p in prims if get_op_def(p.type).grad is not None
                     for g in get_op_def(p.type).grad(p)] if opdef.kind == "composite" else []
    except Exception:  # noqa: BLE001 - a grad maker refusing this form: counted as read
        return names

    def known(n: str) -> VarInfo | None:
        return infos.get(n) or info_of(n)
    for g in nexts:
        read |= rest & _values_read(g, known, order + 1)
    return read


def _info(name: str, info_of) -> VarInfo | None:
    """A var's info; a grad var's is its forward var's."""
    info = info_of(name)
    while info is None and name.endswith(GRAD_SUFFIX):
        name = name[:-len(GRAD_SUFFIX)]
        info = info_of(name)
    return info
