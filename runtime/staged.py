"""Programs run in stages: where a value's shape is known only once a branch ran.

A select_input whose branches give different shapes (Paddle merges them, the dims they disagree
on -1) has the taken branch's value, so what reads it can be compiled only after the branch ran.
Such a program is split at that op (or at the control-flow op whose block holds it): the ops
before it run as a program of their own, the op runs on the host over their values, and the ops
after it run as another program fed with the values they read. Each is run by an executor of
the staged plan, so the program after the split is compiled per feed signature, that is per
shape the branch gave, and is itself staged again at the next such op.
"""
from __future__ import annotations

import numpy as np
from fluidc.frontend.lazy_import import torch

from ..frontend.dtypes import to_numpy_dtype
from ..frontend.errors import OpError
from ..frontend.framework import Program
from ..frontend.ops import OpDesc
from ..frontend.ops.control_flow import branch_taken
from ..passes.control_flow import attach_blocks, ops_program, read_kept_outputs, unversioned
from ..passes.prune import needed_inputs, prune_ops
from ..passes.strategy import BuildStrategy, CompiledProgram
from .control_flow import SubBlocks
from .tensor import LoDTensor


def _split_index(ops: list[OpDesc], split: OpDesc) -> int:
    """Where `split` (a lowered copy, its writes maybe versioned) is among the program's ops."""
    if split.type not in ("select_input", "conditional_block"):
        raise OpError(f"op '{split.type}': a branch in its block gives a value whose shape "
                      f"depends on the branch taken; fluidc runs such a value only in a cond, "
                      f"case or switch_case, not inside a '{split.type}'")
    outs = [unversioned(n) for n in split.outputs.get("Out", [])]
    for i, op in enumerate(ops):
        if op.type == split.type and op.outputs.get("Out", []) == outs and \
                op.attrs.get("sub_block") == split.attrs.get("sub_block"):
            return i
    raise OpError(f"op '{split.type}' writing {outs} is not an op of the program's global block")


class StagedPlan:
    """The plan of a program split at `split` (BranchShapes.op) for one feed signature. Like
    the reference plan's wrapper, every run may share it (the executor gives it a pool that
    always hands it out): its runs keep nothing but locals, and the plans of its stages lock
    the scope themselves where they write persistables."""

    locks = False

    def __init__(self, program: Program, split: OpDesc, feeds: list[str], fetches: list[str],
                 executor, strategy: BuildStrategy | None = None) -> None:
        block = program.global_block()
        descs = [op.desc for op in block.ops if op.type not in ("feed", "fetch")]
        persistable = {n for n, v in block.vars.items() if v.persistable}
        attached = read_kept_outputs(attach_blocks(descs, program), set(feeds) | persistable)
        original = {id(a): d for a, d in zip(attached, descs)}
        ops = prune_ops(attached, feeds, fetches, keep=persistable, run=True)
        j = _split_index(ops, split)
        head, self.op, tail = ops[:j], ops[j], ops[j + 1:]
        made = {n for op in head for n in op.output_arg_names} - persistable
        later = set(needed_inputs([self.op] + tail)) | set(fetches)
        self.head_fetches = sorted(later & made)
        head_program, _ = ops_program([block], [original[id(op)] for op in head])
        self.head = CompiledProgram(head_program, strategy)  # the stages build as the program
        self.outputs = [n for n in self.op.outputs.get("Out", []) if n not in persistable]
        available = set(feeds) | made | set(self.outputs)
        tail_feeds = [n for n in needed_inputs(tail) if n in available]
        tail_program, self.fed_as = ops_program([block], [original[id(op)] for op in tail],
                                                tail_feeds)
        self.tail = CompiledProgram(tail_program, strategy)
        written = {n for op in tail for n in op.output_arg_names}
        self.tail_fetches = [n for n in fetches if n in written or n not in available]
        self.fetches = fetches
        self.placeholders = {n: block.var(n) for n in self.outputs}
        self.executor = executor
        self.sub_blocks = SubBlocks(executor)
        self.scope = None
        self.last_lock = None

    def release(self) -> None:
        self.executor.close()

    def spawn(self) -> "StagedPlan":
        return self

    def run(self, feed: dict[str, np.ndarray], scope, return_numpy: bool = True) -> list:
        run = self.executor.run
        values = dict(feed)
        values.update(zip(self.head_fetches, run(self.head, feed=dict(feed),
                                                 fetch_list=self.head_fetches, scope=scope)))
        values.update(self._split_outputs(values, scope))
        got = dict(zip(self.tail_fetches, run(
            self.tail, feed={alias: values[n] for n, alias in self.fed_as.items()},
            fetch_list=self.tail_fetches, scope=scope)))
        out = [got[n] if n in got else values[n] for n in self.fetches]
        return out if return_numpy else [LoDTensor(torch.from_numpy(np.array(a))) for a in out]

    def _split_outputs(self, values: dict, scope) -> dict[str, np.ndarray]:
        """The split op's outputs: the taken branch's value (select_input), or the outputs of
        the conditional_block its branch runs in; where it is not taken, the values the vars held
        before, else placeholders of no elements (uninitialized in Paddle; only the
        select_input after it reads them)."""
        op = self.op
        if op.type == "select_input":
            xs = op.input("X")
            return {op.output("Out")[0]: values[xs[branch_taken(np.asarray(values[
                op.input("Mask")[0]]))]]}
        got = self.sub_blocks.branch_outputs(op, values, scope)
        return {n: got[n] if n in got else values[n] if n in values else np.zeros(
            [max(d, 0) for d in v.shape], to_numpy_dtype(v.dtype))
            for n, v in self.placeholders.items()}

