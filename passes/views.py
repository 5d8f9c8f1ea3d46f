"""View ops (reshape2, squeeze2, flatten, ... and their grads) as aliases instead of copies.

The output of a view op is the input's memory under another shape. When nothing writes the
input's storage afterwards, the op is dropped and its output lives in the input's storage (an
arena buffer, or a scope tensor for state), which the runtime views with the output's shape.
"""
from __future__ import annotations

from ..frontend.ops import OpDesc, VarInfo, get_op_def
from ..frontend.ops.define import present
from .scheduler import SchedulerGraph


def _data_slots(op: OpDesc) -> tuple[str, str] | None:
    """(source, target) of a view op: X -> Out forward, Out@GRAD -> X@GRAD backward."""
    for src, dst in (("X", "Out"), ("Out@GRAD", "X@GRAD")):
        if op.input(src) and present(op.output(dst)):
            return op.input(src)[0], op.output(dst)[0]
    return None


def alias_views(ops: list[OpDesc], graph: SchedulerGraph, infos: dict[str, VarInfo],
                feeds: set[str], live_out: set[str]) -> tuple[list[OpDesc], dict[str, str]]:
    """The ops without the view ops that can alias, and {alias: the var whose storage it views}.

    A view op aliases when its output is written by it alone and the graph (over `ops`) has no
    write of the viewed storage after it: a later value of the input is a new version, with a
    storage of its own, so the view keeps seeing the value it was made from. Its other outputs
    must be unused, but for zero-element ones (XShape): they hold no bytes, only a shape, so the
    grad op reading one does not stop the view in training.
    """
    def unused(n: str, i: int) -> bool:
        return n not in live_out and (graph.touches.get(n, [i]) == [i]
                                      or 0 in tuple(infos[n].shape))

    aliases: dict[str, str] = {}
    out: list[OpDesc] = []
    for i, op in enumerate(ops):
        pair = _data_slots(op) if get_op_def(op.type).kind == "view" else None
        if pair is not None:
            src, dst = pair
            root = aliases.get(src, graph.storage(src))
            others = [n for n in op.output_arg_names if n != dst]
            if (dst not in feeds and graph.writers(dst) == [i]
                    and not any(w > i for w in graph.writers(root))
                    and all(unused(n, i) for n in others)
                    and not (dst in live_out and root in live_out)):
                aliases[dst] = root
                continue
        out.append(op)
    return out, aliases
