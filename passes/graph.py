"""Program <-> networkx graph: op nodes and versioned var nodes (each write is a new version)."""
from __future__ import annotations

import networkx as nx

from ..frontend.framework import Program
from ..frontend.ops import OpDesc, VarInfo, get_op_def, has_op_def


def op_node(i: int) -> tuple:
    return ("op", i)


def var_node(name: str, version: int) -> tuple:
    return ("var", name, version)


def build_graph(ops: list[OpDesc], infos: dict[str, VarInfo] | None = None) -> nx.DiGraph:
    """The dataflow graph of an op list: var(name, v) -> op -> var(name, v+1)."""
    g = nx.DiGraph(infos=dict(infos or {}))
    version: dict[str, int] = {}
    for i, op in enumerate(ops):
        g.add_node(op_node(i), kind="op", desc=op, index=i)
        slots = get_op_def(op.type).updates if has_op_def(op.type) else ()
        # an in-place update reads the value it updates
        updated = [n for s in slots for n in op.outputs.get(s, []) if version.get(n, 0)]
        for name in op.input_arg_names + updated:
            v = var_node(name, version.get(name, 0))
            g.add_node(v, kind="var", name=name)
            g.add_edge(v, op_node(i))
        for name in op.output_arg_names:
            version[name] = version.get(name, 0) + 1
            v = var_node(name, version[name])
            g.add_node(v, kind="var", name=name)
            g.add_edge(op_node(i), v)
    g.graph["final_version"] = version
    return g


def to_graph(program: Program, block_idx: int = 0) -> nx.DiGraph:
    """The graph of one block of a program, var infos attached."""
    block = program.block(block_idx)
    return build_graph([op.desc for op in block.ops],
                       {n: v.info() for n, v in block.vars.items()})


def graph_ops(g: nx.DiGraph) -> list[OpDesc]:
    """The graph's ops in a topological order that keeps the original order where it can."""
    order = nx.lexicographical_topological_sort(
        g, key=lambda n: (g.nodes[n].get("index", -1), str(n)))
    return [g.nodes[n]["desc"] for n in order if g.nodes[n]["kind"] == "op"]


def to_program(g: nx.DiGraph, like: Program | None = None) -> Program:
    """A Program holding the graph's ops (vars from `like`, or from the graph's infos)."""
    prog = Program()
    block = prog.global_block()
    src = like.global_block().vars if like is not None else {}
    ops = graph_ops(g)
    names = {n for op in ops for n in op.input_arg_names + op.output_arg_names}
    for name in sorted(names, key=lambda n: list(src).index(n) if n in src else len(src)):
        if name in src:
            v = src[name]
            block.create_var(name=name, shape=v.shape, dtype=v.dtype, lod_level=v.lod_level,
                             persistable=v.persistable, stop_gradient=v.stop_gradient,
                             is_data=v.is_data, need_check_feed=v.need_check_feed)
        else:
            info = g.graph["infos"].get(name)
            block.create_var(name=name, shape=info.shape if info else (),
                             dtype=info.dtype if info else None)
    from ..frontend.framework import Operator
    for op in ops:
        block.ops.append(Operator(block, op.copy()))
    if like is not None:
        prog.random_seed = like.random_seed
    return prog
