"""Programs and compiled steps as Graphviz graphs, built with pydot, drawn as the program reads.

- Ops inside a kernel are drawn in execution order, with an edge for each value one makes and
  the next uses; inputs enter at the op that reads them, outputs leave the op that makes them.
- Each write of a var is a node of its own (w, then w after sgd), so an in-place update draws a
  chain, never a false cycle.
- Persistable state (parameters, optimizer moments) is listed in the label of the op or step
  that reads or updates it instead of drawn as nodes: a training graph stays as narrow as its
  forward and backward chains.
"""
from __future__ import annotations

from ..frontend.errors import FluidcError
from ..frontend.framework import Program
from .fuse import Extern, MatmulKernel, flat_steps

_STYLE = {"rankdir": "TB", "newrank": "true", "nodesep": "0.15", "ranksep": "0.3",
          "fontsize": "10"}
_OP = {"shape": "box", "style": "filled", "fillcolor": "lightgrey", "fontsize": "10"}
_VAR = {"shape": "ellipse", "fontsize": "9"}
_STATE_SHOWN = 4  # state names listed per step before "..."


def _pydot():
    try:
        import pydot
    except ImportError:
        raise FluidcError("graph output needs pydot: pip install 'fluidc[viz]'") from None
    return pydot


class _Vars:
    """Var nodes, one per value: reading takes the current version's node, writing makes a new
    one. `storage` (compiled steps): a var no step writes that lives in another's storage is
    a view of it, drawn with a dashed edge from that var's value."""

    def __init__(self, dot, pydot, storage=None) -> None:
        self.dot, self.pydot = dot, pydot
        self.storage = storage
        self.current: dict[str, str] = {}
        self.count = 0

    def read(self, name: str) -> str:
        if name not in self.current:
            node = self._new(name)
            root = self.storage(name) if self.storage else name
            if root in self.current and root != name:
                self.dot.add_edge(self.pydot.Edge(self.current[root], node, style="dashed"))
            return node
        return self.current[name]

    def write(self, name: str) -> str:
        return self._new(name)

    def _new(self, name: str) -> str:
        node = f"v{self.count}"
        self.count += 1
        self.current[name] = node
        self.dot.add_node(self.pydot.Node(node, label=name, **_VAR))
        return node


def program_graph(program: Program):
    """The global block's dataflow: ops as boxes, var values as ellipses, persistable vars
    named in the labels of the ops reading or updating them."""
    pydot = _pydot()
    dot = pydot.Dot("program", graph_type="digraph", **_STYLE)
    values = _Vars(dot, pydot)
    block = program.global_block()
    state = {n for n, v in block.vars.items() if v.persistable}
    for i, op in enumerate(block.ops):
        note = _state_note([n for n in op.input_arg_names if n in state],
                           [n for n in op.output_arg_names if n in state])
        dot.add_node(pydot.Node(f"op{i}", label=f"{op.type}{note}", **_OP))
        for n in op.input_arg_names:
            if n not in state:
                dot.add_edge(pydot.Edge(values.read(n), f"op{i}"))
        for n in op.output_arg_names:
            if n not in state:
                dot.add_edge(pydot.Edge(f"op{i}", values.write(n)))
    return dot


def _state_note(reads: list[str], writes: list[str]) -> str:
    def names(ns):
        return ", ".join(ns[:_STATE_SHOWN]) + (f" +{len(ns) - _STATE_SHOWN}"
                                              if len(ns) > _STATE_SHOWN else "")
    parts = ([f"reads {names(reads)}"] if reads else []) + \
        ([f"updates {names(writes)}"] if writes else [])
    return ("\\n" + "; ".join(parts)) if parts else ""


def steps_graph(lowered):
    """The compiled steps, numbered as inspect lists them: each kernel a cluster of its ops,
    library calls as boxes."""
    pydot = _pydot()
    dot = pydot.Dot("compiled", graph_type="digraph", compound="true", **_STYLE)
    values = _Vars(dot, pydot, lowered.storage)
    state = set(lowered.state)
    for k, (_, step) in enumerate(flat_steps(lowered.steps)):
        if isinstance(step, Extern):
            op = step.op
            ins = [n for n in op.input_arg_names if n not in state]
            outs = [n for n in op.output_arg_names if n not in state]
            note = _state_note([n for n in op.input_arg_names if n in state],
                               [n for n in op.output_arg_names if n in state])
            dot.add_node(pydot.Node(f"s{k}", label=f"[{k}] {op.type}{note}", shape="box",
                                    style="filled", fillcolor="lightblue", fontsize="10"))
            for n in ins:
                dot.add_edge(pydot.Edge(values.read(n), f"s{k}"))
            for n in outs:
                dot.add_edge(pydot.Edge(f"s{k}", values.write(n)))
            continue
        what = "matmul kernel" if isinstance(step, MatmulKernel) else "kernel"
        note = _state_note([n for n in step.inputs if n in state],
                           [n for n in step.outputs if n in state])
        cluster = pydot.Cluster(f"k{k}", label=f"[{k}] {what} over {list(step.shape)}{note}",
                                style="filled", fillcolor="lightyellow", fontsize="10")
        made: dict[str, str] = {}  # var -> the op node in this kernel that made it last
        entering = {n: values.read(n) for n in step.inputs if n not in state}
        for j, op in enumerate(step.ops):
            node = f"s{k}_{j}"
            cluster.add_node(pydot.Node(node, label=op.type, shape="box", fontsize="10"))
            for n in dict.fromkeys(op.input_arg_names):
                if n in made:
                    dot.add_edge(pydot.Edge(made[n], node))
                elif n in entering:
                    dot.add_edge(pydot.Edge(entering[n], node))
            for n in op.output_arg_names:
                made[n] = node
        dot.add_subgraph(cluster)
        for n in step.outputs:
            if n not in state and n in made:
                dot.add_edge(pydot.Edge(made[n], values.write(n)))
    return dot


def render(graph, fmt: str) -> str | bytes:
    """The graph as DOT text, or drawn by Graphviz ('svg' text, 'png' bytes)."""
    if fmt == "dot":
        return graph.to_string()
    try:
        data = graph.create(format=fmt)
    except FileNotFoundError:
        raise FluidcError(f"{fmt.upper()} output needs Graphviz's `dot` program on PATH (e.g. "
                          f"apt-get install graphviz); DOT output needs only pydot") from None
    return data.decode() if fmt == "svg" else data
