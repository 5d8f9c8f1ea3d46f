"""prune: keep the ops the fetches (and, for runs, the persistable updates) need."""
from __future__ import annotations

from ..frontend.framework import Operator, Program, Variable
from ..frontend.ops import OpDesc, get_op_def, has_op_def


def prune_ops(ops: list[OpDesc], feeds, fetches, keep: set[str] = frozenset(),
              target_ops=(), run: bool = False) -> list[OpDesc]:
    """The ops needed for `fetches`, for the final values of the vars in `keep`, and the ops
    at the indices `target_ops` with what they need. For a run (run=True), ops with a side
    effect (print) are needed too, as a run of the whole program executes them; a pruned copy
    of a program (an inference model, use_prune) drops them unless the targets need them, as
    Paddle's pruning does. A run that fetches nothing keeps every op: Paddle's executor runs
    the whole program then, and an op's errors (a value that does not fit set_value's region)
    are the run's.

    In a pruned copy, fed vars cut the graph: an op that only produced a fed var is not needed;
    one that updates it (reads and writes it: a while loop over it) is. A run executes the
    program after its feeds, as Paddle's executor does: an op writing a fed var runs when its
    value is needed, and what it writes replaces the fed value.

    One backward sweep over the versioned dataflow (graph.build_graph's: each write a new
    version, an in-place update reading the version before it): `wanted` holds the vars whose
    value at that point a needed op or a target reads.
    """
    if run and not fetches:  # a run fetching nothing executes every op, as Paddle's does
        return list(ops)
    feeds = set() if run else set(feeds)
    written: set[str] = set()
    updated: list[list[str]] = []  # per op: the earlier values its in-place updates read
    for op in ops:
        slots = get_op_def(op.type).updates if has_op_def(op.type) else ()
        updated.append([n for s in slots for n in op.outputs.get(s, []) if n in written])
        written.update(op.output_arg_names)
    wanted = {n for n in set(fetches) | set(keep) if n in written}
    targets = set(target_ops)
    if run:
        targets |= {i for i, op in enumerate(ops) if get_op_def(op.type).side_effect}
    needed = [False] * len(ops)
    for i in range(len(ops) - 1, -1, -1):
        op = ops[i]
        inputs = op.input_arg_names
        outs = op.output_arg_names
        need = i in targets or any(n in wanted and (n not in feeds or n in inputs)
                                   for n in outs)
        wanted.difference_update(outs)
        if need:
            needed[i] = True
            wanted.update(inputs)
            wanted.update(updated[i])
    return [op for op, keep_op in zip(ops, needed) if keep_op]


def needed_inputs(ops: list[OpDesc]) -> list[str]:
    """Vars the ops read before any of them writes it, in first-read order."""
    written: set[str] = set()
    out: dict[str, None] = {}  # ordered, with set lookups
    for op in ops:
        for n in op.input_arg_names:
            if n not in written:
                out[n] = None
        written.update(op.output_arg_names)
    return list(out)



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
