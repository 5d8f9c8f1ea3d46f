"""StaticRNN's `recurrent` op for the compiler: the concrete shapes of its outputs, inferred
through its step block (each step input's slice, the memories as their initial states)."""
from __future__ import annotations

from ..frontend.errors import ShapeError
from ..frontend.ops import OpDesc, VarInfo


def step_infos(op: OpDesc, infos: dict[str, VarInfo], unversioned) -> dict[str, VarInfo]:
    """What the step block sees: the parameters, each input's [1:] slice under its name, each
    ex_state as its initial state."""
    inner = {unversioned(n): infos[n] for n in op.inputs.get("parameters", [])}
    for n in op.inputs.get("inputs", []):
        i = infos[n]
        inner[unversioned(n)] = VarInfo(tuple(i.shape[1:]), i.dtype, i.lod_level)
    inner.update(zip(op.attrs["ex_states"],
                     (infos[n] for n in op.inputs.get("initial_states", []))))
    return inner


def infer_recurrent(op: OpDesc, infos: dict[str, VarInfo], infer_step, unversioned) -> None:
    """Each output: [seq_len] + the step's value's shape; a memory must keep its shape."""
    inner = step_infos(op, infos, unversioned)
    infer_step(inner)
    for ex, st in zip(op.attrs["ex_states"], op.attrs["states"]):
        if inner[ex].shape != inner[st].shape:
            raise ShapeError(f"StaticRNN: memory '{ex}' starts with shape "
                             f"{list(inner[ex].shape)} and is updated to shape "
                             f"{list(inner[st].shape)}; a memory must keep its shape")
    seq_len = infos[op.input("inputs")[0]].shape[0]
    for n in op.outputs.get("outputs", []):
        o = inner[unversioned(n)]
        infos[n] = VarInfo((seq_len,) + tuple(o.shape), o.dtype, o.lod_level)
