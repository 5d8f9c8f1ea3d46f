"""append_backward: the reverse walk from the loss, grad ops from each op's definition."""
from __future__ import annotations

import networkx as nx
import numpy as np

from ..frontend.dtypes import is_float
from ..frontend.errors import FluidcError
from ..frontend.framework import OpRole, Parameter, Variable, op_role_guard
from ..frontend.ops import OpDesc, get_op_def, grad_name
from ..frontend.ops.registry import EMPTY_VAR
from .graph import op_node, to_graph, var_node


def _names(xs) -> set[str]:
    return {x if isinstance(x, str) else x.name for x in (xs or [])}


def append_backward(loss: Variable, parameter_list=None, no_grad_set=None,
                    callbacks=None, checkpoints=None) -> list[tuple[Parameter, Variable]]:
    """Append the grad ops of loss's program; return [(param, param@GRAD)] for trainable params."""
    if int(np.prod(loss.shape)) != 1:
        raise FluidcError(f"loss '{loss.name}' must hold one value, but its shape is "
                          f"{list(loss.shape)}; reduce it first (e.g. with mean)")
    program = loss.block.program
    block = program.global_block()
    g = to_graph(program)
    final = g.graph["final_version"]
    loss_node = var_node(loss.name, final.get(loss.name, 0))
    if loss_node not in g:
        raise FluidcError(f"loss '{loss.name}' is not computed by any op of its program")
    ops = [op.desc for op in block.ops]
    no_grad = _names(no_grad_set) | {n for n, v in block.vars.items() if v.stop_gradient}
    if parameter_list is not None:
        wanted = _names(parameter_list)
        no_grad |= {p.name for p in block.all_parameters() if p.name not in wanted}

    # A var version needs a gradient if it lies on a path from a differentiable source to the loss.
    on_loss_path = nx.ancestors(g, loss_node) | {loss_node}
    needs = set()
    for node in nx.topological_sort(g):
        if node not in on_loss_path or g.nodes[node]["kind"] != "var":
            continue
        name = g.nodes[node]["name"]
        if name in no_grad or not is_float(block.var(name).dtype):
            continue
        producers = list(g.predecessors(node))
        if not producers:
            if not block.var(name).stop_gradient:
                needs.add(node)
        elif any(v in needs for p in producers for v in g.predecessors(p)):
            needs.add(node)
    need_names = {g.nodes[n]["name"] for n in needs}

    with op_role_guard(OpRole.Backward | OpRole.Loss):
        gname = grad_name(loss.name)
        _grad_var(block, loss.name, gname)
        block.append_op("fill_constant", outputs={"Out": [gname]},
                        attrs={"shape": list(loss.shape), "value": 1.0, "dtype": int(loss.dtype)})
    grad_ops: list[OpDesc] = []
    available = {gname}
    loss_op = max(i for i in range(len(ops)) if op_node(i) in g.predecessors(loss_node))
    for i in range(loss_op, -1, -1):
        op = ops[i]
        outs = [v for v in g.successors(op_node(i))]
        if not any(v in needs for v in outs) or not any(
                v in needs for v in g.predecessors(op_node(i))):
            continue
        opdef = get_op_def(op.type)
        if opdef.grad is None:
            raise FluidcError(f"op '{op.type}' has no gradient, but the loss '{loss.name}' "
                              f"depends through it on {sorted(need_names & set(op.input_arg_names))}")
        for gop in opdef.grad(op):
            _drop_unneeded_outputs(gop, need_names)
            if not gop.output_arg_names:
                continue
            for slot, names in gop.inputs.items():
                for n in names:
                    if n.endswith("@GRAD") and n not in available:
                        grad_ops.append(_zeros_like(n))
                        available.add(n)
            available.update(gop.output_arg_names)
            grad_ops.append(gop)
    grad_ops = _accumulate(grad_ops)
    with op_role_guard(OpRole.Backward):
        for gop in grad_ops:
            for n in gop.output_arg_names:
                _grad_var(block, _forward_name(n), n)
            block.append_op(gop.type, gop.inputs, gop.outputs, gop.attrs)
    params = [p for p in block.all_parameters() if p.trainable and p.name not in no_grad]
    return [(p, block.var(grad_name(p.name))) for p in params if block.has_var(grad_name(p.name))]


def _forward_name(grad: str) -> str:
    return grad[:grad.index("@GRAD")]


def _grad_var(block, fwd: str, name: str) -> Variable:
    v = block.var(fwd)
    return block.create_var(name=name, shape=v.shape, dtype=v.dtype, lod_level=v.lod_level)


def _drop_unneeded_outputs(gop: OpDesc, need_names: set[str]) -> None:
    for slot, names in list(gop.outputs.items()):
        kept = [n if (not n.endswith("@GRAD") or _forward_name(n) in need_names) else EMPTY_VAR
                for n in names]
        if all(n == EMPTY_VAR for n in kept):
            del gop.outputs[slot]
        else:
            gop.outputs[slot] = kept


def _zeros_like(gname: str) -> OpDesc:
    return OpDesc("fill_zeros_like", {"X": [_forward_name(gname)]}, {"Out": [gname]}, {})


def _accumulate(grad_ops: list[OpDesc]) -> list[OpDesc]:
    """Where several grad ops write one @GRAD var, each writes a renamed copy and a sum joins them."""
    writers: dict[str, list[int]] = {}
    for i, op in enumerate(grad_ops):
        for n in op.output_arg_names:
            writers.setdefault(n, []).append(i)
    out: list[OpDesc] = []
    pending: dict[str, list[str]] = {}
    for i, op in enumerate(grad_ops):
        for n in op.input_arg_names:
            if n in pending:
                out.append(OpDesc("sum", {"X": pending.pop(n)}, {"Out": [n]}, {}))
        for slot, names in op.outputs.items():
            for j, n in enumerate(names):
                if len(writers.get(n, [])) > 1:
                    k = writers[n].index(i)
                    renamed = f"{n}@RENAME@block0@{k}"
                    names[j] = renamed
                    pending.setdefault(n, []).append(renamed)
        out.append(op)
    for n, parts in pending.items():
        out.append(OpDesc("sum", {"X": parts}, {"Out": [n]}, {}))
    return out
