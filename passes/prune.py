"""prune: keep the ops the fetches (and, for runs, the persistable updates) need."""
from __future__ import annotations

from ..frontend.ops import OpDesc
from .graph import build_graph, op_node, var_node


def prune_ops(ops: list[OpDesc], feeds, fetches, keep: set[str] = frozenset()) -> list[OpDesc]:
    """The ops needed for `fetches` and for the final values of the vars in `keep`.

    Fed vars cut the graph: an op that only produced a fed var is not needed.
    """
    g = build_graph(ops)
    final = g.graph["final_version"]
    feeds = set(feeds)
    targets = [var_node(n, final.get(n, 0)) for n in set(fetches) | set(keep) if n in final]
    needed: set = set()
    stack = [t for t in targets if t in g]
    while stack:
        node = stack.pop()
        for pred in g.predecessors(node):
            if pred in needed:
                continue
            if g.nodes[node]["kind"] == "var" and g.nodes[node]["name"] in feeds:
                continue
            needed.add(pred)
            stack.append(pred)
    return [op for i, op in enumerate(ops) if op_node(i) in needed]


def needed_inputs(ops: list[OpDesc]) -> list[str]:
    """Vars the ops read before any of them writes it, in first-read order."""
    written: set[str] = set()
    out: list[str] = []
    for op in ops:
        for n in op.input_arg_names:
            if n not in written and n not in out:
                out.append(n)
        written.update(op.output_arg_names)
    return out

