"""Index checks: where an index input (a label, an embedding id, a gather position) gets its
value, a check_index op tests the values against the bound the consuming op's
definition declares (OpDef.indices), so a bad index raises an error naming the op, the var and
the value instead of reading past a buffer or training on a wrong loss. Taken from the ops as
the program states them (before rewrites such as the fused cross entropy hide the label's
role) and inserted into the final op list where the var gets its value."""
from __future__ import annotations

from ..frontend.ops import OpDesc, VarInfo, get_op_def
from ..frontend.ops.checks import check_attrs


def index_checks(ops: list[OpDesc], infos: dict[str, VarInfo]) -> dict[str, list[dict]]:
    """The check_index attributes for each index var the ops read, deduplicated."""
    checks: dict[str, list[dict]] = {}
    for op in ops:
        opdef = get_op_def(op.type)
        if opdef.indices is None:
            continue
        shapes = {slot: [infos[n].shape for n in names] for slot, names in op.inputs.items()}
        for slot, bound in opdef.indices(shapes, op.attrs).items():
            for var in op.input(slot):
                attrs = check_attrs(op.type, slot, var, bound)
                same = [c for c in checks.setdefault(var, [])
                        if (c["lower"], c["upper"], c["allowed"]) ==
                        (attrs["lower"], attrs["upper"], attrs["allowed"])]
                if not same:
                    checks[var].append(attrs)
    return checks


def insert_index_checks(ops: list[OpDesc], checks: dict[str, list[dict]]) -> list[OpDesc]:
    """`ops` with each index var's checks first (a fed or stored var) or right after each op
    that writes it, where they split no kernel; a var no op reads any more needs none."""
    read = {n for op in ops for n in op.input_arg_names}
    written = {n for op in ops for n in op.output_arg_names}

    def checks_of(names) -> list[OpDesc]:
        return [OpDesc("check_index", {"X": [var]}, {},
                       get_op_def("check_index").complete_attrs(dict(a)))
                for var in names if var in checks and var in read for a in checks[var]]

    out = checks_of(n for n in checks if n not in written)
    for op in ops:
        out.append(op)
        out.extend(checks_of(op.output_arg_names))
    return out
