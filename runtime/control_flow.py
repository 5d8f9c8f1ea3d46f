"""Control-flow ops at run time: the host evaluates the condition and runs the sub-block's own
compiled plan (built and cached per feed signature by an executor of the program's), reading
the op's input tensors and writing its output tensors in the parent plan."""
from __future__ import annotations

import numpy as np
import torch

from ..frontend.errors import OpError
from ..frontend.framework import Block
from ..frontend.ops import OpDesc
from ..frontend.ops.control_flow import is_true
from ..passes.control_flow import (block_program, forward_block, grad_block_outputs,
                                   outer_reads, sub_block, unversioned)
from .scope import Scope


def _host(t: torch.Tensor) -> np.ndarray:
    return t.numpy() if t.device.type == "cpu" else t.cpu().numpy()


def _nested(blocks: list[Block]) -> list[Block]:
    """The blocks below `blocks` (children, their children, ...), not `blocks` themselves."""
    program = blocks[0].program
    roots = {b.idx for b in blocks}
    out = []
    for b in program.blocks:
        p = b.parent_idx
        while p >= 0 and p not in roots:
            p = program.blocks[p].parent_idx
        if p >= 0 and b.idx not in roots:
            out.append(b)
    return out


class _BlockRun:
    """A sub-block (after the `prefix` blocks it reads) compiled as a program of its own: its
    feeds are the non-persistable vars it reads from outside (persistables it binds from the
    scope, as any plan)."""

    def __init__(self, block: Block, prefix: list[Block], fetches: list[str], op: str) -> None:
        # vars the prefix blocks, or blocks nested in any of the run's blocks, declare are made
        # inside the run (a nested cond's outputs live in its branch blocks)
        made = {n for b in prefix for n in b.vars} | {
            n for b in _nested(prefix + [block]) for n in b.vars}
        reads = [n for b in prefix + [block] for n in outer_reads(b) if n not in made]
        self.feeds = [n for n in dict.fromkeys(reads)
                      if not block._find_var_recursive(n).persistable]
        self.program, self.fed_as = block_program(block, prefix, self.feeds)
        declared = self.program.global_block()
        self.fetches = [n for n in fetches if not declared.var(n).persistable]
        self.op = op

    def check_inputs(self, given: set[str]) -> None:
        missing = [n for n in self.feeds if n not in given]
        if missing:
            raise OpError(f"op '{self.op}': its block reads {missing}, which the op does not "
                          f"list among its inputs")

    def __call__(self, executor, values: dict[str, torch.Tensor], scope: Scope) -> list:
        return executor.run(self.program, feed={a: _host(values[n]) for n, a in self.fed_as.items()},
                            fetch_list=self.fetches, scope=scope)


class SubBlocks:
    """The runners of one program's control-flow ops; `executor` builds and caches the plans of
    its blocks (one per block, kept while the parent plan lives)."""

    def __init__(self, executor) -> None:
        self.executor = executor
        self._runs: dict[tuple, _BlockRun] = {}

    def _block_run(self, op: OpDesc, fetches: list[str], with_forward: bool = False) -> _BlockRun:
        block = sub_block(op)
        key = (block.idx, with_forward, tuple(fetches))
        run = self._runs.get(key)
        if run is None:
            prefix = [forward_block(op)] if with_forward else []
            run = self._runs[key] = _BlockRun(block, prefix, fetches, op.type)
        return run

    def step(self, op: OpDesc, ins: dict, outs: dict, scope: Scope):
        """The call running `op` over the parent plan's tensors."""
        make = {"conditional_block": self._conditional_block, "while": self._while,
                "conditional_block_grad": self._conditional_block_grad}.get(op.type)
        if make is None:
            raise OpError(f"op '{op.type}' cannot run in fluidc (no gradient of while loops)")
        return make(op, ins, outs, scope)

    def _condition(self, op: OpDesc, ins: dict):
        conds, scalar = ins["Cond"], bool(op.attrs.get("is_scalar_condition", False))
        return lambda: all(is_true(c, scalar, op.type) for c in conds)

    def _conditional_block(self, op: OpDesc, ins: dict, outs: dict, scope: Scope):
        names = [unversioned(n) for n in op.output("Out")] if "Out" in outs else []
        run = self._block_run(op, names)
        values = {unversioned(n): t for n, t in zip(op.inputs.get("Input", []),
                                                    ins.get("Input", []))}
        run.check_inputs(set(values))
        targets = [t for n, t in zip(names, outs.get("Out", [])) if n in run.fetches]
        taken, executor = self._condition(op, ins), self.executor

        def call() -> None:
            if taken():
                for t, v in zip(targets, run(executor, values, scope)):
                    t.copy_(torch.from_numpy(v))
        return call

    def _conditional_block_grad(self, op: OpDesc, ins: dict, outs: dict, scope: Scope):
        """The grad block, after a recompute of its forward block (whose values the forward
        plan did not keep), hands each input's grad to the outer grad var; an untaken branch's
        grads are zeros, as Paddle's."""
        pairs = grad_block_outputs(op)
        run = self._block_run(op, [inner for _, inner in pairs], with_forward=True)
        values = {unversioned(n): t for slot in ("Input", "Out@GRAD")
                  for n, t in zip(op.inputs.get(slot, []), ins.get(slot, []))}
        run.check_inputs(set(values))
        targets = dict(zip(op.outputs.get("Input@GRAD", []), outs.get("Input@GRAD", [])))
        targets = [targets[outer] for outer, _ in pairs]
        taken, executor = self._condition(op, ins), self.executor

        def call() -> None:
            if taken():
                for t, v in zip(targets, run(executor, values, scope)):
                    t.copy_(torch.from_numpy(v))
            else:
                for t in targets:
                    t.zero_()
        return call

    def _while(self, op: OpDesc, ins: dict, outs: dict, scope: Scope):
        """Loop vars live in the op's output tensors (copied from the inputs once per run when
        they are other buffers); each iteration feeds them to the body and writes its results
        back, while Condition holds."""
        names = [unversioned(n) for n in op.output("Out")]
        run = self._block_run(op, names)
        start = {unversioned(n): t for slot in ("X", "Condition")
                 for n, t in zip(op.inputs.get(slot, []), ins.get(slot, []))}
        run.check_inputs(set(start))
        loop = dict(zip(names, outs.get("Out", [])))
        cond = unversioned(op.input("Condition")[0])
        copies = [(t, start[n]) for n, t in loop.items()
                  if n in start and t.data_ptr() != start[n].data_ptr()]
        values = {**start, **loop}
        targets = [values[n] for n in run.fetches]
        executor = self.executor

        def call() -> None:
            for t, src in copies:
                t.copy_(src)
            while is_true(values[cond], True, "while"):
                for t, v in zip(targets, run(executor, values, scope)):
                    t.copy_(torch.from_numpy(v))
        return call
