"""View ops (reshape2, squeeze2, flatten, ... and their grads) as aliases instead of copies.

The output of a view op is the input's memory under another shape. When nothing writes the
input afterwards, the op is dropped and its output named as an alias of the input: of its
storage (arena buffers) or of its scope tensor (state), which the runtime views with the
output's shape.
"""
from __future__ import annotations

from ..frontend.ops import OpDesc, get_op_def
from ..frontend.ops.define import present


def _data_slots(op: OpDesc) -> tuple[str, str] | None:
    """(source, target) of a view op: X -> Out forward, Out@GRAD -> X@GRAD backward."""
    for src, dst in (("X", "Out"), ("Out@GRAD", "X@GRAD")):
        if op.input(src) and present(op.output(dst)):
            return op.input(src)[0], op.output(dst)[0]
    return None


def alias_views(ops: list[OpDesc], feeds: set[str], live_out: set[str]
                ) -> tuple[list[OpDesc], dict[str, str]]:
    """The ops without the view ops that can alias, and {alias: the var it views}."""
    writes: dict[str, list[int]] = {}
    reads: dict[str, list[int]] = {}
    for i, op in enumerate(ops):
        for n in op.output_arg_names:
            writes.setdefault(n, []).append(i)
        for n in op.input_arg_names:
            reads.setdefault(n, []).append(i)
    aliases: dict[str, str] = {}
    out: list[OpDesc] = []
    for i, op in enumerate(ops):
        pair = _data_slots(op) if get_op_def(op.type).kind == "view" else None
        if pair is not None:
            src, dst = pair
            root = aliases.get(src, src)
            others = [n for n in op.output_arg_names if n != dst]
            if (root not in feeds and dst not in feeds and writes.get(dst) == [i]
                    and not any(w > i for w in writes.get(root, []))
                    and not any(n in live_out or reads.get(n) for n in others)
                    and not (dst in live_out and root in live_out)):
                aliases[dst] = root
                continue
        out.append(op)
    return out, aliases
