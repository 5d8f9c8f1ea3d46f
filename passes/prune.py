"""prune: keep the ops the fetches (and, for runs, the persistable updates) need."""
from __future__ import annotations

from ..frontend.framework import Operator, Program, Variable
from ..frontend.ops import OpDesc, get_op_def
from .graph import build_graph, op_node, var_node


def prune_ops(ops: list[OpDesc], feeds, fetches, keep: set[str] = frozenset(),
              target_ops=(), run: bool = False) -> list[OpDesc]:
    """The ops needed for `fetches`, for the final values of the vars in `keep`, and the ops
    at the indices `target_ops` with what they need. For a run (run=True), ops with a side
    effect (print) are needed too, as a run of the whole program executes them; a pruned copy
    of a program (an inference model, use_prune) drops them unless the targets need them, as
    Paddle's pruning does.

    Fed vars cut the graph: an op that only produced a fed var is not needed; one that updates
    it (reads and writes it: a while loop over it) is.
    """
    g = build_graph(ops)
    final = g.graph["final_version"]
    feeds = set(feeds)
    targets = [var_node(n, final.get(n, 0)) for n in set(fetches) | set(keep) if n in final]
    if run:
        target_ops = list(target_ops) + [i for i, op in enumerate(ops)
                                         if get_op_def(op.type).side_effect]
    needed: set = {op_node(i) for i in target_ops}
    stack = [t for t in targets if t in g] + list(needed)
    while stack:
        node = stack.pop()
        for pred in g.predecessors(node):
            if pred in needed:
                continue
            name = g.nodes[node].get("name")
            if g.nodes[node]["kind"] == "var" and name in feeds and \
                    name not in g.nodes[pred]["desc"].input_arg_names:
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



def prune_program(program: Program, feeded_var_names, targets) -> Program:
    """Program._prune_with_input: a copy holding only the ops the targets need, fed vars cut.

    A target is an Operator (kept with what it needs) or a var (Variable or name): the last op
    writing it that is not an optimizer update (unless that op is a target too) is kept. Vars no
    kept op uses are dropped, except the feeds and the persistables.
    """
    feed_names = list(feeded_var_names) if isinstance(feeded_var_names, (list, tuple, set)) \
        else [feeded_var_names]
    for name in feed_names:
        if not isinstance(name, str):
            raise ValueError(f"All feeded_var_names of Program._prune_with_input() can only be "
                             f"str, but received {type(name)}.")
    targets = list(targets) if isinstance(targets, (list, tuple)) else [targets]
    block = program.global_block()
    index = {id(op): i for i, op in enumerate(block.ops)}
    target_ops = {index[id(t)] for t in targets if isinstance(t, Operator) and id(t) in index}
    for t in targets:
        if isinstance(t, Operator):
            if id(t) not in index:
                raise ValueError(f"target op '{t.type}' is not an op of the program's global block")
            continue
        if not isinstance(t, (Variable, str)):
            raise ValueError(f"All targets of Program._prune_with_input() can only be Variable "
                             f"or Operator, but received {type(t)}.")
        name = t if isinstance(t, str) else t.name
        writers = [i for i, op in enumerate(block.ops) if name in op.output_arg_names
                   and (i in target_ops or not op._is_optimize_op())]
        if writers and name not in feed_names:
            target_ops.add(writers[-1])
    pruned = program.clone()
    pblock = pruned.global_block()
    kept = {id(d) for d in prune_ops([op.desc for op in pblock.ops], feed_names, [],
                                     target_ops=sorted(target_ops))}
    pblock.ops = [op for op in pblock.ops if id(op.desc) in kept]
    used = set(feed_names) | {n for op in pblock.ops for n in op.input_arg_names + op.output_arg_names}
    for name in [n for n, v in pblock.vars.items() if n not in used and not v.persistable]:
        del pblock.vars[name]
    pruned._bump()
    return pruned
