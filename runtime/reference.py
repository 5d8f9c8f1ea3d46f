"""The reference executor: every op by its numpy reference. The tests' oracle, and the fallback
where no C compiler exists."""
from __future__ import annotations

import numpy as np
import torch

from ..frontend.errors import OpError, UninitializedVarError
from ..frontend.framework import Program
from ..frontend.ops import OpDesc, VarInfo, get_op_def
from ..frontend.ops.checks import check_attrs, check_index_values
from ..frontend.ops.control_flow import is_true
from ..passes.control_flow import (attach_blocks, forward_block, grad_block_outputs,
                                   has_sub_blocks, sub_block)
from ..passes.lower import TempNamer, infer_op
from ..passes.prune import prune_ops
from .scope import Scope
from .tensor import LoDTensor, to_torch


def run_op(op: OpDesc, values: dict[str, np.ndarray], rng: np.random.Generator) -> None:
    """Compute op's outputs into `values` by its reference (composites through their lowering)."""
    opdef = get_op_def(op.type)
    if opdef.kind == "control":
        _run_control(op, values, rng)
        return
    if opdef.reference is None and opdef.kind == "composite":
        infos = {n: VarInfo(a.shape, _var_type(a)) for n, a in values.items()}
        infer_op(op, infos)
        for sub in opdef.lower(op, infos, TempNamer(infos)):
            sub.attrs = get_op_def(sub.type).complete_attrs(sub.attrs)
            run_op(sub, values, rng)
        return
    ins = {k: [values[n] for n in v] for k, v in op.inputs.items()}
    if opdef.indices is not None:
        shapes = {k: [np.shape(a) for a in v] for k, v in ins.items()}
        for slot, bound in opdef.indices(shapes, op.attrs).items():
            for n, a in zip(op.input(slot), ins[slot]):
                check_index_values(torch.from_numpy(np.ascontiguousarray(a)),
                                   check_attrs(op.type, slot, n, bound))
    attrs = dict(op.attrs)
    if opdef.stateful or "seed" in attrs:
        attrs["__rng__"] = rng
    outs = opdef.reference(ins, attrs)
    for slot, names in op.outputs.items():
        for n, arr in zip(names, outs.get(slot, [])):
            if n != "@EMPTY@":
                values[n] = np.asarray(arr)


def _run_block(block, values: dict[str, np.ndarray], rng: np.random.Generator) -> None:
    for op in attach_blocks([o.desc for o in block.ops], block.program):
        run_op(op, values, rng)


def _run_control(op: OpDesc, values: dict[str, np.ndarray], rng: np.random.Generator) -> None:
    """Paddle's semantics over one value table: run the block while / if the condition holds;
    a conditional_block_grad runs its forward block, then its grad block (zeros if untaken)."""
    if op.type == "while":
        while is_true(values[op.input("Condition")[0]], True, "while"):
            _run_block(sub_block(op), values, rng)
        return
    scalar = bool(op.attrs.get("is_scalar_condition", False))
    taken = all(is_true(np.asarray(values[c]), scalar, op.type) for c in op.input("Cond"))
    if op.type == "conditional_block":
        if taken:
            _run_block(sub_block(op), values, rng)
        else:  # uninitialized, as in Paddle: only select_input (which skips it) reads it
            values.update((n, None) for n in op.outputs.get("Out", []) if n not in values)
        return
    if op.type != "conditional_block_grad":
        raise OpError(f"op '{op.type}' cannot run in fluidc (no gradient of while loops)")
    pairs = grad_block_outputs(op)
    if taken:
        _run_block(forward_block(op), values, rng)
        _run_block(sub_block(op), values, rng)
    for (outer, inner), x in zip(pairs, [n for n, g in zip(op.input("Input"),
                                                           op.output("Input@GRAD"))
                                         if g != "@EMPTY@"]):
        values[outer] = values[inner] if taken else np.zeros_like(values[x])


def _var_type(a: np.ndarray):
    from ..frontend.dtypes import convert_dtype
    return convert_dtype(a.dtype)


class ReferencePlan:
    """Runs a program's pruned ops one by one on numpy arrays, reading and writing the scope."""

    def __init__(self, program: Program, feeds: list[str], fetches: list[str]) -> None:
        block = program.global_block()
        self.persistable = {n for n, v in block.vars.items() if v.persistable}
        ops = [op.desc for op in block.ops if op.type not in ("feed", "fetch")]
        if has_sub_blocks(program):
            ops = attach_blocks(ops, program)
        self.ops = prune_ops(ops, feeds, fetches, keep=self.persistable, run=True)
        self.fetches = fetches
        self.rng = np.random.default_rng(program.random_seed or None)

    def run(self, feed: dict[str, np.ndarray], scope: Scope, return_numpy: bool = True) -> list:
        values: dict[str, np.ndarray] = dict(feed)
        for op in self.ops:
            for n in op.input_arg_names:
                if n not in values:
                    holder = scope.find_var(n)
                    if holder is None or holder._tensor._t is None:
                        raise UninitializedVarError(f"var '{n}' read by op '{op.type}' has no value")
                    values[n] = holder._tensor.numpy().copy()
            run_op(op, values, self.rng)
        for n in self.persistable:
            if n in values:
                scope.var(n)._tensor._t = to_torch(np.array(values[n], copy=True))
        out = []
        for n in self.fetches:
            arr = values[n] if n in values else scope.find_var(n)._tensor.numpy()
            out.append(np.array(arr) if return_numpy else LoDTensor(torch.from_numpy(np.array(arr))))
        return out


