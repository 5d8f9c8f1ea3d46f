"""Concrete shape inference and lowering of composite ops into primitive ones."""
from __future__ import annotations

from ..frontend.errors import FluidcError, OpError, ShapeError, name_op
from ..frontend.ops import OpDesc, VarInfo, get_op_def
from .bfloat16 import in_float32
from .control_flow import BranchShapes, check_branch_shapes, infer_control


def infer_op(op: OpDesc, infos: dict[str, VarInfo]) -> None:
    """Record the concrete shapes and dtypes of op's outputs in `infos`."""
    opdef = get_op_def(op.type)
    for n in op.input_arg_names:
        if n not in infos:
            raise OpError(f"op '{op.type}' reads var '{n}', which nothing has set: feed it, or "
                          f"run the program that initializes it")
    if opdef.kind == "control":  # its outputs are what its block makes of its inputs
        try:
            infer_control(op, infos, infer_op)
        except BranchShapes as e:  # the op of this block holding the select
            e.op = op
            raise
        return
    if op.type == "select_input":
        check_branch_shapes(op, infos)
    try:
        ins = {k: [infos[n] for n in v] for k, v in op.inputs.items()}
        outs = opdef.infer(ins, op.attrs)
    except FluidcError as e:
        raise name_op(e, op, _input_list(op, infos)) from None
    except Exception as e:
        raise name_op(ShapeError(f"op '{op.type}' cannot take these inputs: {e}"), op,
                      _input_list(op, infos)) from e
    for slot, names in op.outputs.items():
        for name, info in zip(names, outs.get(slot, [])):
            if name != "@EMPTY@":
                infos[name] = info


def _input_list(op: OpDesc, infos: dict[str, VarInfo]) -> str:
    """The op's inputs by slot, var and shape, for an error: "X = 'x' [2, 5], ..."."""
    parts = [f"{slot} = '{n}' {list(infos[n].shape)}" for slot, names in op.inputs.items()
             for n in names if n in infos]
    return f" (inputs: {', '.join(parts)})" if parts else ""


class TempNamer:
    """Fresh names for the temporaries lowering creates; they never clash with user vars."""

    def __init__(self, infos: dict[str, VarInfo], prefix: str = "@tmp@") -> None:
        self.infos = infos
        self.prefix = prefix
        self.n = 0

    def __call__(self, info: VarInfo) -> str:
        name = f"{self.prefix}{self.n}"
        self.n += 1
        self.infos[name] = info
        return name


def lower_ops(ops: list[OpDesc], infos: dict[str, VarInfo]) -> list[OpDesc]:
    """Primitive ops (pointwise, reduction, extern, view) with every output's shape in infos."""
    namer = TempNamer(infos)
    out: list[OpDesc] = []
    work = list(reversed(ops))
    while work:
        op = work.pop()
        opdef = get_op_def(op.type)
        infer_op(op, infos)
        widened = in_float32(op, infos, namer)
        if widened is not None:  # bfloat16, computed in float32
            work.extend(reversed(widened))
        elif opdef.kind == "composite":
            subs = opdef.lower(op, infos, namer)
            for sub in subs:
                sub.attrs = get_op_def(sub.type).complete_attrs(sub.attrs)
                sub.origin, sub.callsite = op.origin or op.type, op.callsite
            work.extend(reversed(subs))
        else:
            out.append(op)
    return out
