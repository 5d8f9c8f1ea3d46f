"""Variable attributes: Paddle's static API writes some attributes as vars read when the op runs
(conv2d_transpose's output_size given as a Tensor): AttrType VAR, one var holding the whole
value, printed `name = Var['v']`, or VARS, one var per item, printed `name = Vars['a','b']`.
fluidc binds such vars to input slots named `<attr>@VAR` / `<attr>@VARS`, so pruning, the
scheduler and the backward see what the op reads; the op declares them as shape inputs, folded
into the attribute before a run (passes/shape_inputs.py). Programs print them, and ProgramDesc
files hold them, as Paddle's attributes."""
from __future__ import annotations

import numpy as np

from ..errors import ShapeError
from .registry import Slot

VAR, VARS = "@VAR", "@VARS"


def var_slots(attr: str) -> tuple[Slot, Slot]:
    """The two input slots an attribute that may hold vars is bound through."""
    return Slot(attr + VAR, dispensable=True), Slot(attr + VARS, duplicable=True, dispensable=True)


def slot_attr(slot: str) -> tuple[str, bool] | None:
    """(attribute, holds one var per item) for a var attribute's slot, else None."""
    for suffix, many in ((VARS, True), (VAR, False)):
        if slot.endswith(suffix):
            return slot[:-len(suffix)], many
    return None


def attr_slot(attr: str, many: bool) -> str:
    return attr + (VARS if many else VAR)


def var_attrs(inputs: dict[str, list[str]]) -> dict[str, tuple[bool, list[str]]]:
    """attribute -> (VARS?, var names) for the var attributes bound among an op's inputs."""
    out = {}
    for slot, names in inputs.items():
        found = slot_attr(slot)
        if found is not None and names:
            out[found[0]] = (found[1], list(names))
    return out


def given(attr: str, inputs) -> bool:
    """Whether the op binds attribute `attr` to vars (its value is known only at run time)."""
    return bool(inputs.get(attr + VAR) or inputs.get(attr + VARS))


def fold_ints(op: str, attr: str, values: dict[str, list], count: int) -> list[int] | None:
    """The `count` ints a var attribute's values hold (a VAR: one var of `count` values; VARS:
    one value per var), None if the op does not bind it; a ShapeError names op and attribute
    for any other count or a non-integer value."""
    arrays = values.get(attr + VARS) or values.get(attr + VAR)
    if not arrays:
        return None
    arrays = [np.asarray(a) for a in arrays]
    many = bool(values.get(attr + VARS))
    if many and any(a.size != 1 for a in arrays):
        raise ShapeError(f"op '{op}': each var of attribute '{attr}' must hold one value, got "
                         f"sizes {[a.size for a in arrays]}")
    flat = np.concatenate([a.reshape(-1) for a in arrays])
    if flat.dtype.kind not in "iu":
        raise ShapeError(f"op '{op}': attribute '{attr}' must be held by int32 / int64 vars, got "
                         f"{flat.dtype}")
    if flat.size != count:
        raise ShapeError(f"op '{op}': attribute '{attr}' must hold {count} values, its var(s) "
                         f"hold {flat.tolist()}")
    return [int(v) for v in flat]
