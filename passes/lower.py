"""Concrete shape inference and lowering of composite ops into primitive ones."""
from __future__ import annotations

from ..frontend.errors import FluidcError, OpError, ShapeError, name_op
from ..frontend.ops import OpDesc, VarInfo, get_op_def
from .control_flow import infer_control


def infer_op(op: OpDesc, infos: dict[str, VarInfo]) -> None:
    """Record the concrete shapes and dtypes of op's outputs in `infos`."""
    opdef = get_op_def(op.type)
    for n in op.input_arg_names:
        if n not in infos:
            raise OpError(f"op '{op.type}' reads var '{n}', which nothing has set: feed it, or "
                          f"run the program that initializes it")
    if opdef.kind == "control":  # its outputs are what its block makes of its inputs
        infer_control(op, infos, infer_op)
        return
    try:
        ins = {k: [infos[n] for n in v] for k, v in op.inputs.items()}
        outs = opdef.infer(ins, op.attrs)
    except FluidcError as e:
        raise name_op(e, op.type) from None
    except Exception as e:
        shapes = {k: [infos[n].shape for n in v if n in infos] for k, v in op.inputs.items()}
        raise ShapeError(f"op '{op.type}' cannot take inputs of shapes {shapes}: {e}") from e
    for slot, names in op.outputs.items():
        for name, info in zip(names, outs.get(slot, [])):
            if name != "@EMPTY@":
                infos[name] = info


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
        if opdef.kind == "composite":
            subs = opdef.lower(op, infos, namer)
            for sub in subs:
                sub.attrs = get_op_def(sub.type).complete_attrs(sub.attrs)
            work.extend(reversed(subs))
        else:
            out.append(op)
    return out
