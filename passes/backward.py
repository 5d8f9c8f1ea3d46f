"""append_backward and gradients: the reverse walk from the targets, grad ops from each op's
definition, sums where a var feeds several ops, no_grad_set and stop_gradient honoured."""
from __future__ import annotations

import networkx as nx
import numpy as np

from ..frontend.dtypes import VarType, is_float
from ..frontend.errors import FluidcError
from ..frontend.framework import Block, OpRole, Variable, op_role_guard
from ..frontend.ops import OpDesc, get_op_def, grad_name
from ..frontend.ops.registry import EMPTY_VAR, GRAD_SUFFIX
from .control_flow import read_kept_outputs, unversioned
from .graph import build_graph, op_node, var_node
from .int_grads import carries_grad, check_sums
from .version_grads import VersionGrads
from .while_grad import body_versions


def _names(xs, what: str = "no_grad_set") -> set[str]:
    if xs is None:
        return set()
    if not isinstance(xs, (set, list, tuple, frozenset)):
        raise TypeError(f"{what} must be a set, list or tuple of Variables or names, got "
                        f"{type(xs).__name__}")
    out = set()
    for x in xs:
        if not isinstance(x, (str, Variable)):
            raise TypeError(f"{what} holds a {type(x).__name__}; it takes Variables or names")
        out.add(x if isinstance(x, str) else x.name)
    return out


def _as_list(x) -> list:
    if x is None:
        return []
    return list(x) if isinstance(x, (list, tuple)) else [x]


def append_backward(loss: Variable, parameter_list=None, no_grad_set=None,
                    callbacks=None, checkpoints=None):
    """Append the grad ops of loss's program; return [(param, param@GRAD)] for the trainable
    params (or those of parameter_list, in its order) that get a gradient.

    callbacks are called as cb(block=block, context=grad_to_var) after each grad op is
    appended, as Paddle's are. Recompute checkpoints change only memory use in Paddle; here the
    gradients are computed without recomputation and, as Paddle does, the pair list is returned
    with the checkpoint names.
    """
    if not isinstance(loss, Variable):
        raise TypeError(f"append_backward: loss must be a Variable, got {type(loss).__name__}")
    if int(np.prod(loss.shape)) != 1:
        raise FluidcError(f"loss '{loss.name}' must hold one value, but its shape is "
                          f"{list(loss.shape)}; reduce it first (e.g. with mean)")
    if callbacks is not None and not isinstance(callbacks, (list, tuple)):
        raise TypeError(f"append_backward: callbacks must be a list or tuple of callables, got "
                        f"{type(callbacks).__name__}")
    block, params = loss.block, loss.block.program.global_block().all_parameters()
    dest, chain = _grad_destination(block)
    no_grad = _names(no_grad_set)
    if parameter_list is not None:
        if not isinstance(parameter_list, (list, tuple, set)):
            raise TypeError(f"append_backward: parameter_list must be a list, tuple or set, got "
                            f"{type(parameter_list).__name__}")
        for i, p in enumerate(parameter_list):
            if not isinstance(p, (str, Variable)):
                raise TypeError(f"append_backward: parameter_list[{i}] must be a Variable or a "
                                f"name, got {type(p).__name__}")
        wanted = [p if isinstance(p, str) else p.name for p in parameter_list]
        no_grad |= {p.name for p in params if p.name not in set(wanted)}
    else:
        wanted = [p.name for p in params if p.trainable]
    _mark_loss_op(block, loss)
    gname = grad_name(loss.name)
    with op_role_guard(OpRole.Backward | OpRole.Loss):
        _grad_var(dest, loss.name, gname)
        dest.append_op("fill_constant", outputs={"Out": [gname]},
                       attrs={"shape": list(loss.shape), "value": 1.0,
                              "dtype": int(loss.dtype)})
    grads, seeds = {}, {loss.name: gname}
    for each in chain:  # the grads of a block's outer vars seed its parent's grad ops
        made = {n for op in each.ops for n in op.output_arg_names}
        targets = [each._find_var_recursive(n) for n in seeds if n in made]
        if targets:
            grads.update(_append_grad_ops(each, targets, {t.name: seeds[t.name] for t in targets},
                                          no_grad, None, callbacks, dest))
            seeds = {**seeds, **grads}
    pairs = []
    for name in wanted:
        if name in grads and name not in no_grad:
            param, grad = dest.var(name), dest.var(grads[name])
            _record_role_var(dest, param.name, grad.name)
            pairs.append((param, grad))
    if isinstance(checkpoints, list) and checkpoints:
        return pairs, [c if isinstance(c, str) else c.name for c in checkpoints]
    return pairs


def _grad_destination(block: Block) -> tuple[Block, list[Block]]:
    """(the block append_backward appends to, the blocks whose ops it differentiates), as
    Paddle's: called in a sub-block (an optimizer minimizing in a cond branch), a new grad
    block, child of that block's parent and whose forward block it is, over that block and
    its ancestors (the conditional_block_grad that ConditionalBlock appends after the branch's
    conditional_block runs it, optimizer updates included); else the loss's block (a loss made
    in a sub-block, differentiated from outside: a grad block no op runs)."""
    program = block.program
    current = program.current_block()
    if current.idx != 0:
        chain = [current]
        while chain[-1].parent_idx >= 0:
            chain.append(program.block(chain[-1].parent_idx))
        return _new_grad_block(program.block(current.parent_idx), current), chain
    if block.idx == 0:
        return block, [block]
    return _new_grad_block(program.block(block.parent_idx), block), [block]


def calc_gradient(targets, inputs, target_gradients=None, no_grad_set=None):
    """The grads of `targets` w.r.t. `inputs` (one var, or a list with None where an input
    does not affect the targets); target_gradients seed the walk in place of ones."""
    targets, inputs = _as_list(targets), _as_list(inputs)
    seeds_given = _as_list(target_gradients) or [None] * len(targets)
    if not targets:
        raise ValueError("gradients: targets is empty")
    for what, xs in (("targets", targets), ("inputs", inputs), ("target_gradients", seeds_given)):
        bad = [x for x in xs if x is not None and not isinstance(x, Variable)]
        if bad:
            raise TypeError(f"gradients: {what} must be Variables, got {type(bad[0]).__name__}")
    if len(seeds_given) != len(targets):
        raise ValueError("Should have the same number of target_gradients as targets")
    program = targets[0].block.program
    block = program.global_block()
    for v in targets + inputs:
        if v.block.program is not program:
            raise ValueError(f"gradients: var '{v.name}' is not in the targets' program")
    seeds = {}
    with op_role_guard(OpRole.Backward):
        for target, given in zip(targets, seeds_given):
            if given is None:
                gname = grad_name(target.name)
                _grad_var(block, target.name, gname)
                block.append_op("fill_any_like", {"X": [target]}, {"Out": [gname]},
                                {"value": 1.0, "dtype": int(target.dtype)})
                seeds[target.name] = gname
            else:
                if tuple(given.shape) != tuple(target.shape):
                    raise ValueError(f"The shapes of target and grad are different: "
                                     f"{target.name} {list(target.shape)}, {given.name} "
                                     f"{list(given.shape)}")
                seeds[target.name] = given.name
    grads = _append_grad_ops(block, targets, seeds, _names(no_grad_set),
                             [v.name for v in inputs], None)
    out = [block.var(grads[v.name]) if v.name in grads else None for v in inputs]
    return out[0] if len(out) == 1 else out


def gradients(targets, inputs, target_gradients=None, no_grad_set=None) -> list:
    """fluid.gradients / paddle.static.gradients: calc_gradient's result as a list (an input no
    target depends on gives None; a single such input, as in Paddle, an empty list)."""
    return _as_list(calc_gradient(targets, inputs, target_gradients, no_grad_set))


def _mark_loss_op(block: Block, loss: Variable) -> None:
    """Tag the op computing the loss with the Loss role, as Paddle does."""
    for op in reversed(block.ops):
        if loss.name in op.output_arg_names:
            op._set_attr("op_role", int(op.desc.attrs.get("op_role", 0)) | OpRole.Loss)
            return


def _record_role_var(block: Block, param: str, grad: str) -> None:
    """op_role_var = [param, grad] on the op that last writes the grad (Paddle's bookkeeping)."""
    for op in reversed(block.ops):
        if grad in op.output_arg_names:
            op.desc.attrs["op_role_var"] = [param, grad] + list(op.desc.attrs.get("op_role_var", []))
            return


def _needs_grad(g: nx.DiGraph, block: Block, targets: list, no_grad: set[str],
                inputs: list[str] | None) -> set:
    """The var versions given a grad (float ones; int ones too in eager programs, int_grads.py):
    on the path to the targets (as Paddle's op path: back from the targets through the ops
    making each var, not past a no_grad var) and on a path from a differentiable source: the
    named inputs, or (inputs None) every leaf that is not stop_gradient. A var made by ops
    that read nothing (uniform_random, fill_constant) counts as a leaf, as in Paddle. With
    inputs None, a var whose stop_gradient the user cleared after it was made (`grad_asked`)
    gets one too, as Paddle's backward gives every var on the path that is not stop_gradient
    (its append_op marks vars made only from stop_gradient inputs, fluidc's reachability
    stands for that)."""
    on_path, stack = set(targets), list(targets)  # stack: var versions to walk back from
    while stack:
        for op in g.predecessors(stack.pop()):
            if op in on_path:
                continue
            on_path.add(op)
            for v in g.predecessors(op):
                if v not in on_path:
                    on_path.add(v)
                    if g.nodes[v]["name"] not in no_grad:
                        stack.append(v)
    sources = set(inputs) if inputs is not None else None
    needs = set()
    for node in nx.topological_sort(g):
        if node not in on_path or g.nodes[node]["kind"] != "var":
            continue
        name = g.nodes[node]["name"]
        producers = list(g.predecessors(node))
        if name in no_grad or not carries_grad(block.program, block.var(name).dtype,
                                               [g.nodes[p]["desc"].type for p in producers]):
            continue
        if sources is not None and name in sources:
            needs.add(node)
        elif all(g.in_degree(p) == 0 for p in producers):
            if sources is None and not block.var(name).stop_gradient:
                needs.add(node)
        elif any(v in needs for p in producers for v in g.predecessors(p)) or (
                sources is None and block.var(name).grad_asked):
            needs.add(node)
    return needs


def _append_grad_ops(block: Block, targets: list[Variable], seeds: dict[str, str],
                     no_grad: set[str], inputs: list[str] | None, callbacks,
                     dest: Block | None = None) -> dict[str, str]:
    """Append (to `dest`, else `block`) the grad ops of `block` from the targets (whose grads
    are the vars named by seeds) back to the sources; returns forward var name -> grad var
    name for every var given a grad."""
    program = block.program
    program._appending_grad_times += 1
    no_grad = no_grad | {n for n, v in block.vars.items() if v.stop_gradient}
    no_grad -= set(inputs or ())  # asked for explicitly: a data input still gets its grad
    no_grad -= set(seeds)
    return _grad_pass(block, dest or block, [t.name for t in targets], seeds, no_grad, inputs,
                      callbacks)


def _grad_pass(block: Block, dest: Block, targets: list[str], seeds: dict[str, str],
               no_grad: set[str], inputs: list[str] | None, callbacks) -> dict[str, str]:
    """Append to `dest` the grad ops of `block`'s ops from the targets back to the sources
    (dest is block itself, or the grad block of a conditional_block's block)."""
    # a control-flow op that may leave a var it writes as it was reads it, so its grad passes
    # that var's grad through (read_kept_outputs, as the runtime runs it)
    held = {n for op in block.ops for n in op.output_arg_names
            if not block.has_var(n) or block.vars[n].persistable or block.vars[n].is_data}
    ops = read_kept_outputs([op.desc for op in block.ops], held)
    g = build_graph(ops, {n: v.info() for n, v in block.vars.items()})
    final = g.graph["final_version"]
    target_nodes = []
    for t in targets:
        node = var_node(t, final.get(t, 0))
        if node not in g or not list(g.predecessors(node)):
            raise FluidcError(f"target '{t}' is not computed by any op of its program")
        target_nodes.append(node)
    needs = _needs_grad(g, block, target_nodes, no_grad, inputs)
    need_names = {g.nodes[n]["name"] for n in needs}
    versions = VersionGrads(g, block, needs, inputs)
    target_grads = {t: versions.name(t, final.get(t, 0)) for t in targets}
    # (grad op, the forward values it reads): a grad op of a grad op (double grad) reads
    # forward vars named like grads (y@GRAD); those are never renamed or zero-filled.
    grad_ops: list[tuple[OpDesc, frozenset[str]]] = []
    available = set(target_grads.values())
    last = max(next(iter(g.predecessors(n)))[1] for n in target_nodes)
    for i in range(last, -1, -1):
        op = ops[i]
        if _in_place_increment(op):  # kept below if a later grad op reads the var
            grad_ops.append((_restore(op), None))
        if not any(v in needs for v in g.successors(op_node(i))) or not any(
                v in needs for v in g.predecessors(op_node(i))):
            continue
        opdef = get_op_def(op.type)
        if opdef.grad is None:
            raise FluidcError(f"op '{op.type}' has no gradient, but the targets "
                              f"{list(targets)} depend through it on "
                              f"{sorted(need_names & set(op.input_arg_names))}")
        forward = frozenset(op.input_arg_names) | frozenset(op.output_arg_names)
        for gop in opdef.grad(op):
            grads_in = versions.rename(gop, i, forward, needs, need_names)
            if not gop.output_arg_names:
                continue
            missing = [n for n in grads_in if n not in available]
            if missing and len(missing) == len(grads_in):
                # As Paddle's backward: a grad op none of whose input grads is made (a loss
                # on lstm's Cell alone: lstm_grad reads Hidden@GRAD only) is dropped, and so
                # gives no grads; partly made input grads are zeros.
                continue
            for n in missing:
                grad_ops.append((_zeros_like(n), frozenset({_forward_name(n)})))
                available.add(n)
            available.update(gop.output_arg_names)
            if opdef.kind != "control":  # control-flow grads read the values their op kept
                forward = versions.read_kept_values(gop, i, op, forward)
            grad_ops.append((gop, forward))
    # a target's grad is its seed var, or, where ops after the target's write read it too (a
    # branch output the branch reads, a target another target is made from), its seed summed
    # with theirs (an array's grad is one var, updated in place from its seed)
    written = {n for gop, f in grad_ops if f is not None for n in gop.output_arg_names}
    summed = {t for t in seeds if target_grads[t] in written and t not in versions.arrays}
    grad_ops = [(OpDesc("assign", {"X": [seeds[t]]}, {"Out": [target_grads[t]]},
                        get_op_def("assign").complete_attrs({})), frozenset({seeds[t]}))
                for t in summed] + grad_ops
    grad_ops = [(gop, forward) for k, (gop, forward) in enumerate(grad_ops)
                if forward is not None or any(
                    gop.input("X")[0] in f and gop.input("X")[0] in later.input_arg_names
                    for later, f in grad_ops[k + 1:] if f is not None)]
    restores = {id(gop) for gop, forward in grad_ops if forward is None}
    renames = _renames(dest, [gop for gop, f in grad_ops if f is not None],
                       {target_grads[t]: s for t, s in seeds.items() if t not in summed})
    grad_to_var = {}  # grad var name (as appended) -> forward var name
    made = {n for gop, forward in grad_ops if forward is not None for n in gop.output_arg_names}
    firsts = {fwd: renames.get(n, n) for fwd, n in versions.first_grads(made).items()}
    for gop, forward in grad_ops:
        if forward is None:
            continue
        for n in gop.output_arg_names:
            grad_to_var[renames.get(n, n)] = _forward_name(n)
        _rename(gop, renames, forward)
    grad_ops = [gop for gop, _ in grad_ops]
    arrays = {n for n, fwd in grad_to_var.items()
              if block._find_var_recursive(fwd) is not None
              and block.var(fwd).type == VarType.LOD_TENSOR_ARRAY}
    restored = {n for gop in grad_ops if id(gop) in restores for n in gop.output_arg_names}
    grad_ops, parts = _accumulate(grad_ops, dest.idx, arrays | restored)
    if block.program._int_grads:
        check_sums([block.var(grad_to_var[n]).dtype for n in set(parts.values())])
    versions.keep_values()
    with op_role_guard(OpRole.Backward):
        for gop in grad_ops:
            for n in gop.output_arg_names if id(gop) not in restores else ():
                _grad_var(dest, grad_to_var[parts.get(n, n)], n)
            if gop.type in _GRAD_BLOCKS:
                gop.attrs["sub_block"] = _GRAD_BLOCKS[gop.type](dest, gop, no_grad)
            # a grad op's attrs are its forward op's: its role is the guard's (Backward), as
            # Paddle's backward sets it
            dest.append_op(gop.type, gop.inputs, gop.outputs,
                           {k: v for k, v in gop.attrs.items() if k != "op_role"})
            for cb in callbacks or ():
                if not callable(cb):
                    raise ValueError("'callback' must be a callable object.")
                cb(block=dest, context=grad_to_var)
    return firsts


def _in_place_increment(op: OpDesc) -> bool:
    return op.type == "increment" and op.input("X") == op.output("Out")


def _restore(op: OpDesc) -> OpDesc:
    """The increment undoing an in-place increment (a counter indexing arrays), placed where
    the backward walk passes it, so the grad ops of earlier ops read the value their forward
    op read, as Paddle's legacy backward does (its increment's grad maker)."""
    return OpDesc("increment", {"X": op.output("Out")}, {"Out": op.input("X")},
                  {"step": -float(op.attrs.get("step", 1.0))})


def _cond_grad_block(parent: Block, gop: OpDesc, no_grad: set[str]) -> int:
    """The grad block of a conditional_block_grad whose sub_block names its forward block, as
    Paddle's backward builds it: a child of `parent` whose forward_block_idx is the forward
    block; its ops take each Out's grad from the op's (outer) Out@GRAD var and leave x@GRAD
    in a var of the block for each Input x whose grad the op gives (Input@GRAD not @EMPTY@),
    which the op hands to its outer Input@GRAD var. Returns its index."""
    forward = parent.program.block(gop.attrs["sub_block"])
    grad_block = _new_grad_block(parent, forward)
    # the op may name versions (x@@v1, in a loop's grad block): the branch knows x
    wanted = [unversioned(x) for x in _wanted(gop, "Input")]
    outs = [unversioned(n) for n in gop.input("Out")]
    seeds = dict(zip(outs, gop.input("Out@GRAD")))
    grads = _grad_pass(forward, grad_block, outs, seeds,
                       _inner_no_grad(forward, no_grad, wanted, seeds), wanted, None)
    _zero_missing(grad_block, wanted, grads)
    return grad_block.idx


def _while_grad_block(parent: Block, gop: OpDesc, no_grad: set[str]) -> int:
    """The grad block of a while_grad: one iteration of the body, recomputed from the values
    the loop vars (and other inputs) had when it began, with each value named once
    (while_grad.body_versions), then its backward from the loop vars' exit values (seeded by
    their grads, `<exit>@GRAD`, which the op hands in) down to the wanted inputs, leaving each
    x@GRAD in the block (zeros where x does not reach the exits). A child of `parent` whose
    forward_block_idx is the body. Returns its index."""
    forward = parent.program.block(gop.attrs["sub_block"])
    grad_block = _new_grad_block(parent, forward)
    # the op may name versions (x@@v1, in an outer loop's grad block): the body knows x
    ops, exits = body_versions(forward, [unversioned(n) for n in gop.input("Out")])
    for op in ops:
        for n in op.output_arg_names:
            # a new version, or a var of the body: the block's own (an outer loop's grad
            # block may hold a version of the same name)
            if (unversioned(n) != n or forward.has_var(n)) and not grad_block.has_var(n):
                v = forward.var(unversioned(n))
                grad_block.create_var(name=n, shape=v.shape, dtype=v.dtype, type=v.type,
                                      lod_level=v.lod_level, stop_gradient=v.stop_gradient)
        grad_block.append_op(op.type, op.inputs, op.outputs, op.attrs)
    carried = [x for x, e in exits.items() if is_float(grad_block.var(e).dtype)]
    seeds = {exits[x]: grad_name(exits[x]) for x in carried}
    for e in seeds:
        _grad_var(grad_block, e, grad_name(e))
    # the loop vars' entry grads are wanted too: the iteration before takes them as its seeds
    wanted = list(dict.fromkeys([unversioned(x) for x in _wanted(gop, "X")] + carried))
    grads = _grad_pass(grad_block, grad_block, list(seeds), seeds,
                       _inner_no_grad(forward, no_grad, wanted, seeds), wanted, None)
    # an array's entry grad is its seed (one var, updated in place): never zeroed
    _zero_missing(grad_block, [x for x in wanted if exits.get(x) != x], grads)
    return grad_block.idx


def _recurrent_grad_block(parent: Block, gop: OpDesc, no_grad: set[str]) -> int:
    """The grad block of a recurrent_grad: one step, recomputed (the step block's ops, its vars
    declared here: the runtime feeds each step's input slices and memories), then its backward
    from the new memories (`states`) and the step outputs, seeded by their `@GRAD` vars (the
    next step's memory grads, the output grads' slices), down to the wanted step inputs and
    parameters and every float memory (`ex_states`, carried to the step before). A child of
    `parent` whose forward_block_idx is the step block. Returns its index."""
    forward = parent.program.block(gop.attrs["sub_block"])
    grad_block = _new_grad_block(parent, forward)
    for n, v in forward.vars.items():
        grad_block.create_var(name=n, shape=v.shape, dtype=v.dtype, type=v.type,
                              lod_level=v.lod_level, stop_gradient=v.stop_gradient)
    for op in forward.ops:
        grad_block.append_op(op.type, dict(op.desc.inputs), dict(op.desc.outputs),
                             dict(op.desc.attrs))
    ex_states = [x for x in gop.attrs["ex_states"] if is_float(grad_block.var(x).dtype)]
    outs = [unversioned(n) for n in gop.input("outputs")]
    targets = [t for t in gop.attrs["states"] + outs if is_float(grad_block.var(t).dtype)]
    seeds = {t: grad_name(t) for t in targets}
    for t in targets:
        _grad_var(grad_block, t, grad_name(t))
    wanted = list(dict.fromkeys([unversioned(x) for slot in ("inputs", "parameters")
                                 for x in _wanted(gop, slot)] + ex_states))
    grads = _grad_pass(grad_block, grad_block, targets, seeds,
                       _inner_no_grad(forward, no_grad, wanted, seeds), wanted, None)
    _zero_missing(grad_block, wanted, grads)
    return grad_block.idx


_GRAD_BLOCKS = {"conditional_block_grad": _cond_grad_block, "while_grad": _while_grad_block,
                "recurrent_grad": _recurrent_grad_block}


def _new_grad_block(parent: Block, forward: Block) -> Block:
    """A new block, child of `parent`, whose forward block is `forward`; the program's
    current block is left as it was."""
    program = parent.program
    current = program.current_block_idx
    grad_block = program._create_block(parent.idx)
    program.current_block_idx = current
    grad_block.forward_block_idx = forward.idx
    return grad_block


def _wanted(gop: OpDesc, slot: str) -> list[str]:
    """The inputs of a control-flow grad op whose grads it gives (slot@GRAD not @EMPTY@)."""
    return [x for x, gx in zip(gop.inputs.get(slot, []),
                               gop.outputs.get(slot + GRAD_SUFFIX, [])) if gx != EMPTY_VAR]


def _inner_no_grad(forward: Block, no_grad: set[str], wanted: list[str],
                   seeds: dict[str, str]) -> set[str]:
    return (no_grad | {n for n, v in forward.vars.items() if v.stop_gradient}) \
        - set(wanted) - set(seeds)


def _zero_missing(grad_block: Block, wanted: list[str], grads: dict[str, str]) -> None:
    """x@GRAD as zeros for each wanted x the grad pass gave no grad (no path to the outputs)."""
    with op_role_guard(OpRole.Backward):
        for x in wanted:
            if grads.get(x) != grad_name(x):
                _grad_var(grad_block, x, grad_name(x))
                grad_block.append_op("fill_zeros_like", {"X": [x]}, {"Out": [grad_name(x)]})


def _renames(block: Block, grad_ops: list[OpDesc], seeds: dict[str, str]) -> dict[str, str]:
    """New names for this pass's grads: a target's grad (seeds: its name -> the seed var) is
    its seed var; a grad var an earlier backward pass already made gets Paddle's 'grad/'
    prefix once per pass so far."""
    renames = dict(seeds)
    prefix = "grad/" * block.program._appending_grad_times
    for gop in grad_ops:
        for n in gop.output_arg_names:
            if n not in renames and n != EMPTY_VAR and block.has_var(n):
                renames[n] = prefix + n
    return renames


def _rename(op: OpDesc, renames: dict[str, str], forward: frozenset[str]) -> None:
    """Rename this pass's grads in op; its inputs that are forward values keep their names."""
    for slot, names in op.inputs.items():
        op.inputs[slot] = [n if n in forward else renames.get(n, n) for n in names]
    for slot, names in op.outputs.items():
        op.outputs[slot] = [renames.get(n, n) for n in names]


def _forward_name(grad: str) -> str:
    """The var a grad belongs to: x for x@GRAD, x@GRAD for x@GRAD@GRAD (a double grad)."""
    return grad[:grad.rindex(GRAD_SUFFIX)]


def _grad_var(block: Block, fwd: str, name: str) -> Variable:
    v = block.var(fwd)
    return block.create_var(name=name, shape=v.shape, dtype=v.dtype, lod_level=v.lod_level,
                            type=v.type)


def _zeros_like(gname: str) -> OpDesc:
    return OpDesc("fill_zeros_like", {"X": [_forward_name(gname)]}, {"Out": [gname]}, {})


def _accumulate(grad_ops: list[OpDesc], block_idx: int = 0,
                in_place: set[str] = frozenset()) -> tuple[list[OpDesc], dict[str, str]]:
    """Where several grad ops (or slots of one) write one @GRAD var, each write goes to a
    renamed copy (@RENAME@block<idx>@k, k counting the writes, idx the block appended to) and
    a sum joins them before the first reader; the `in_place` grads (of tensor arrays, which
    their grad ops update entry by entry) are left as they are. Returns the ops and each
    copy's summed var."""
    writes: dict[str, int] = {}
    for op in grad_ops:
        for n in op.output_arg_names:
            if n not in in_place:
                writes[n] = writes.get(n, 0) + 1
    out: list[OpDesc] = []
    pending: dict[str, list[str]] = {}
    parts: dict[str, str] = {}
    for op in grad_ops:
        for n in op.input_arg_names:
            if n in pending:
                out.append(OpDesc("sum", {"X": pending.pop(n)}, {"Out": [n]}, {}))
        for names in op.outputs.values():
            for j, n in enumerate(names):
                if writes.get(n, 0) > 1:
                    renamed = f"{n}@RENAME@block{block_idx}@{len(pending.setdefault(n, []))}"
                    names[j] = renamed
                    pending[n].append(renamed)
                    parts[renamed] = n
        out.append(op)
    for n, copies in pending.items():
        out.append(OpDesc("sum", {"X": copies}, {"Out": [n]}, {}))
    return out, parts
