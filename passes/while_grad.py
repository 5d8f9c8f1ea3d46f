"""Gradients through while loops (Paddle's while_grad): the loop body with a name for each value,
from which passes/backward.py builds the grad block, and the names the runtime hands each
iteration's values by (runtime/control_flow.py)."""
from __future__ import annotations

from ..frontend.dtypes import VarType
from ..frontend.framework import Block
from ..frontend.ops import OpDesc, get_op_def
from .control_flow import read_kept_outputs
from .pipeline import version_writes


def body_versions(body: Block, loop_vars: list[str]) -> tuple[list[OpDesc], dict[str, str]]:
    """The body's ops, then an assign of each loop var to itself, with every new value under a
    name of its own (x@@vK, as pipeline.version_writes names them; the loop vars' entry values
    keep their names). Returns them and each loop var's exit name, a value no op of the body
    reads, so an iteration's grad block takes the exit grads and gives the entry grads under
    names of their own. Tensor arrays keep one name (their grads are arrays updated in place
    entry by entry, by name, as Paddle's): an array's exit is its entry name."""
    arrays = {n for op in body.ops for n in op.output_arg_names if _is_array(body, n)} | {
        x for x in loop_vars if _is_array(body, x)}
    tensors = [x for x in loop_vars if x not in arrays]
    assign = get_op_def("assign")
    ends = [OpDesc("assign", {"X": [x]}, {"Out": [x]}, assign.complete_attrs({}))
            for x in tensors]
    # a branch that may not run leaves an outer var as it was: it reads it (under the
    # version it has there once versioned)
    outer = {n for op in body.ops for n in op.output_arg_names if not body.has_var(n)}
    body_ops = read_kept_outputs([op.desc for op in body.ops], outer)
    ops, _, final = version_writes(body_ops + ends, arrays, frozenset(tensors))
    return ops, {x: final.get(x, x) for x in loop_vars}


def _is_array(block: Block, name: str) -> bool:
    v = block._find_var_recursive(name)
    return v is not None and v.type == VarType.LOD_TENSOR_ARRAY

