"""Programs and compiled steps as text, JSON and Graphviz DOT: what `fluidc inspect` prints."""
from __future__ import annotations

import json

from ..frontend.dtypes import dtype_name
from ..frontend.framework import Program
from .dot import program_graph, render, steps_graph
from .fuse import Extern, MatmulKernel, flat_steps
from .pipeline import LoweredProgram


def program_dot(program: Program) -> str:
    """The global block as one DOT graph (passes/dot.py draws it)."""
    return render(program_graph(program), "dot")


def steps_dot(lowered: LoweredProgram) -> str:
    """The compiled steps as one DOT graph (passes/dot.py draws it)."""
    return render(steps_graph(lowered), "dot")


def steps_summary(lowered: LoweredProgram) -> dict:
    """Steps, buffers and reuse as plain data (the JSON format)."""
    steps = []
    for group, step in flat_steps(lowered.steps):
        if isinstance(step, Extern):
            steps.append({"kind": "extern", "op": step.op.type,
                          "inputs": step.op.input_arg_names, "outputs": step.op.output_arg_names})
        else:
            kind = "matmul" if isinstance(step, MatmulKernel) else "kernel"
            steps.append({"kind": kind, "shape": list(step.shape), "reduce_axes": list(step.axes),
                          "ops": [op.type for op in step.ops], "inputs": step.inputs,
                          "outputs": step.outputs, "concurrent_group": group,
                          "not_fused_with_previous": step.split})
    buffers = {n: {"shape": list(i.shape), "dtype": dtype_name(i.dtype)}
               for n, i in lowered.infos.items()}
    arena = lowered.arena()
    return {"steps": steps, "buffers": buffers, "shared_storage": lowered.graph.shared(),
            "arena": {"bytes": arena.size, "unshared_bytes": arena.unshared,
                      "offsets": arena.offsets},
            "feeds": lowered.feeds, "fetches": lowered.fetches, "state": lowered.state}


def program_summary(program: Program) -> dict:
    """Vars and ops of the global block as plain data."""
    block = program.global_block()
    return {"vars": [{"name": v.name, "shape": list(v.shape), "dtype": dtype_name(v.dtype),
                      "persistable": v.persistable} for v in block.vars.values()],
            "ops": [{"type": op.type, "inputs": op.desc.inputs, "outputs": op.desc.outputs}
                    for op in block.ops]}


def steps_text(lowered: LoweredProgram) -> str:
    """One line per compiled step."""
    out = []
    for k, s in enumerate(steps_summary(lowered)["steps"]):
        if s["kind"] == "extern":
            out.append(f"  [{k}] extern {s['op']}: {s['inputs']} -> {s['outputs']}")
        else:
            red = f", reducing axes {s['reduce_axes']}" if s["reduce_axes"] else ""
            if s["concurrent_group"] is not None:
                red += f", in concurrent group {s['concurrent_group']}"
            out.append(f"  [{k}] {s['kind']} over {s['shape']}{red}: {' + '.join(s['ops'])}\n"
                       f"        reads {s['inputs']} writes {s['outputs']}")
            if s["not_fused_with_previous"]:
                out.append(f"        a kernel of its own: {s['not_fused_with_previous']}")
    shared = lowered.graph.shared()
    if shared:
        out.append("  shared storage (views, in-place outputs): "
                   + ", ".join(f"{v} <- {k}" for k, v in shared.items()))
    arena = lowered.arena()
    out.append(f"  arena: {arena.size} bytes planned, {arena.unshared} with no reuse")
    for s, target in arena.shares().items():
        out.append(f"    {s} reuses the bytes of {target} (live {lowered.graph.live_range(s)}, "
                   f"{target} {lowered.graph.live_range(target)})")
    return "\n".join(out)


_written: dict[str, int] = {}  # debug_graphviz_path prefix -> plans drawn so far


def write_graphs(prefix: str, program: Program, lowered: LoweredProgram) -> list[str]:
    """BuildStrategy.debug_graphviz_path: each plan built writes its program's dataflow and its
    compiled steps as two DOT files, <prefix>.<n>.program.dot and <prefix>.<n>.compiled.dot
    (n counts the plans drawn under the prefix in this process). Returns the paths."""
    import os

    n = _written[prefix] = _written.get(prefix, -1) + 1
    paths = []
    for what, text in (("program", program_dot(program)), ("compiled", steps_dot(lowered))):
        path = f"{prefix}.{n}.{what}.dot"
        os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
        with open(path, "w") as f:
            f.write(text + "\n")
        paths.append(path)
    return paths


def to_json(obj: dict) -> str:
    return json.dumps(obj, indent=2, sort_keys=True)
