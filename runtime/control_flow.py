"""Control-flow ops at run time: the host evaluates the condition and runs the sub-block's own
compiled plan (built and cached per feed signature by an executor of the program's), reading
the op's input tensors and writing its output tensors in the parent plan."""
from __future__ import annotations

import numpy as np
from fluidc.frontend.lazy_import import torch

from ..frontend.errors import OpError
from ..frontend.framework import Block
from ..frontend.ops import OpDesc, grad_name
from ..frontend.ops.control_flow import is_true
from ..frontend.ops.registry import EMPTY_VAR
from ..passes.control_flow import (COUNTERS, block_program, forward_block, grad_block_inputs,
                                   grad_block_outputs, outer_kept, outer_reads, sub_block,
                                   unversioned)
from ..passes.while_grad import body_versions
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

    def __init__(self, block: Block, prefix: list[Block], fetches: list[str], op: str,
                 seeds: list[str] = (), persistables: bool = False,
                 given: frozenset[str] = frozenset()) -> None:
        # vars the prefix blocks, or blocks nested in any of the run's blocks, declare are made
        # inside the run (a nested cond's outputs live in its branch blocks); `seeds` (vars of
        # the block) are fed too, and persistables it reads as well if `persistables`; so are
        # the `given` values of vars a nested control-flow op may leave as they were.
        made = {n for b in prefix for n in b.vars} | {
            n for b in _nested(prefix + [block]) for n in b.vars}
        reads = [n for b in prefix + [block] for n in outer_reads(b) if n not in made]
        reads += [n for b in prefix + [block] for n in outer_kept(b)
                  if n in given and n not in made]
        self.feeds = [n for n in dict.fromkeys(reads)
                      if persistables or not block._find_var_recursive(n).persistable]
        self.feeds += [n for n in seeds if n not in self.feeds]
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
        # while / recurrent ops a while_grad / recurrent_grad of this program differentiates
        # (by body block): each run keeps the values every iteration began with (a recurrent
        # op: each step's memories), for the grad loop to run back over; a conditional_block
        # a conditional_block_grad differentiates keeps the values its inputs entered it with
        # (its block or a later op may overwrite them), for the grad's recompute of its block
        self._graded: set[int] = set()
        self._tapes: dict[int, list[dict[str, torch.Tensor]]] = {}

    def _block_run(self, op: OpDesc, fetches: list[str], with_forward: bool = False,
                   seeds: list[str] = ()) -> _BlockRun:
        """The run of op's block, fed its `seeds` too (a while_grad's fed everything it
        reads, persistables included: the values an iteration began with)."""
        block = sub_block(op)
        given = frozenset(unversioned(n) for n in op.input_arg_names)
        key = (block.idx, with_forward, tuple(fetches), tuple(seeds), given)
        run = self._runs.get(key)
        if run is None:
            prefix = [forward_block(op)] if with_forward else []
            run = self._runs[key] = _BlockRun(block, prefix, fetches, op.type, seeds,
                                              persistables=op.type == "while_grad", given=given)
        return run

    def step(self, op: OpDesc, ins: dict, outs: dict, scope: Scope):
        """The call running `op` over the parent plan's tensors."""
        make = {"conditional_block": self._conditional_block, "while": self._while,
                "conditional_block_grad": self._conditional_block_grad,
                "while_grad": self._while_grad, "recurrent": self._recurrent,
                "recurrent_grad": self._recurrent_grad}.get(op.type)
        if make is None:
            raise OpError(f"op '{op.type}' cannot run in fluidc")
        return make(op, ins, outs, scope)

    def branch_outputs(self, op: OpDesc, values: dict[str, np.ndarray],
                       scope: Scope) -> dict[str, np.ndarray]:
        """A conditional_block of the program run on the host over arrays (runtime/staged.py):
        its outputs' values if its condition holds, else none (they stay uninitialized, as in
        Paddle)."""
        run = self._block_run(op, op.outputs.get("Out", []))
        ins = {n: torch.from_numpy(np.asarray(values[n])) for n in op.inputs.get("Input", [])
               if n in values}  # persistables are the scope's
        run.check_inputs(set(ins))
        conds = [torch.from_numpy(np.asarray(values[n])) for n in op.input("Cond")]
        if not self._condition(op, {"Cond": conds})():
            return {}
        self._keep_inputs(op, {unversioned(n): t for n, t in ins.items()})
        return dict(zip(run.fetches, run(self.executor, ins, scope)))

    def _keep_inputs(self, op: OpDesc, values: dict[str, torch.Tensor]) -> None:
        """A taken conditional_block that a conditional_block_grad differentiates: the values
        its inputs entered it with (its block, or an op after it, may overwrite them)."""
        block = sub_block(op).idx
        if block in self._graded:
            self._tapes[block] = {n: t.clone() for n, t in values.items()}

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
        # an untaken branch leaves the vars it writes as they were (read_kept_outputs)
        kept = [(t, values[n]) for n, t in zip(names, outs.get("Out", []))
                if n in values and t.data_ptr() != values[n].data_ptr()]
        taken, executor = self._condition(op, ins), self.executor

        def call() -> None:
            if taken():
                self._keep_inputs(op, values)
                for t, v in zip(targets, run(executor, values, scope)):
                    t.copy_(torch.from_numpy(v))
            else:
                for t, src in kept:
                    t.copy_(src)
        return call

    def _conditional_block_grad(self, op: OpDesc, ins: dict, outs: dict, scope: Scope):
        """The grad block, after a recompute of its forward block (whose values the forward
        plan did not keep), hands each input's grad to the outer grad var; an untaken branch's
        grads are zeros, as Paddle's. The recompute reads the inputs as they entered the
        forward block (kept by the conditional_block), as Paddle's grad block reads the forward
        run's scope, whatever the block or later ops wrote over them."""
        pairs = grad_block_outputs(op)
        forward = forward_block(op).idx
        self._graded.add(forward)
        # seeded by the outer Out@GRAD vars by name (which the grad block may declare too)
        run = self._block_run(op, [inner for _, inner in pairs], with_forward=True,
                              seeds=[unversioned(n) for n in op.inputs.get("Out@GRAD", [])])
        # a var the forward block may leave as it was is read as its Out (its value before
        # the forward op once kept, below)
        values = {unversioned(n): t for slot in ("Out", "Input", "Out@GRAD")
                  for n, t in zip(op.inputs.get(slot, []), ins.get(slot, []))}
        run.check_inputs(set(values))
        targets = dict(zip(op.outputs.get("Input@GRAD", []), outs.get("Input@GRAD", [])))
        targets = [targets[outer] for outer, _ in pairs]
        # untaken, a var the block would overwrite keeps its value: its grad passes through
        out_grads = {unversioned(n): t for n, t in zip(op.inputs.get("Out", []),
                                                        ins.get("Out@GRAD", []))}
        passed = [out_grads.get(x) for x, _ in grad_block_inputs(op)]
        taken, executor = self._condition(op, ins), self.executor

        def call() -> None:
            if taken():
                entered = {**values, **self._tapes.get(forward, {})}
                for t, v in zip(targets, run(executor, entered, scope)):
                    t.copy_(torch.from_numpy(v))
            else:
                for t, g in zip(targets, passed):
                    if g is None:
                        t.zero_()
                    else:
                        t.copy_(g)
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
        executor, body = self.executor, sub_block(op).idx

        def call() -> None:
            for t, src in copies:
                t.copy_(src)
            tape = None
            if body in self._graded:
                tape = self._tapes[body] = []
                fixed = {n: t.clone() for n, t in start.items() if n not in loop}
            while is_true(values[cond], True, "while"):
                if tape is not None:
                    tape.append({**fixed, **{n: t.clone() for n, t in loop.items()}})
                for t, v in zip(targets, run(executor, values, scope)):
                    t.copy_(torch.from_numpy(v))
        return call

    def _while_grad(self, op: OpDesc, ins: dict, outs: dict, scope: Scope):
        """The grad block once per iteration of the forward loop, last first, each fed the
        values that iteration began with (kept by the while op) and the grads of its loop vars'
        exit values: a loop var's entry grad is the exit grad of the iteration before, another
        input's grads are summed; with no iteration a loop var's grad is its Out@GRAD."""
        body = forward_block(op)
        self._graded.add(body.idx)
        outs_grad = {unversioned(n): t for n, t in zip(op.inputs.get("Out", []),
                                                        ins.get("Out@GRAD", []))}
        exits = body_versions(body, list(outs_grad))[1]
        grad_block = sub_block(op)
        seeds = {x: grad_name(e) for x, e in exits.items() if grad_block.has_var(grad_name(e))}
        wanted = [(unversioned(x), t) for x, g, t in zip(
            op.inputs.get("X", []), op.outputs.get("X@GRAD", []), outs.get("X@GRAD", []))
            if g != EMPTY_VAR]
        fetches = list(dict.fromkeys([grad_name(x) for x in seeds] +
                                     [grad_name(x) for x, _ in wanted]))
        run = self._block_run(op, fetches, seeds=list(seeds.values()))
        executor, tapes = self.executor, self._tapes
        # counters restored to their value before the loop (the first iteration's), or kept
        # as they are when the loop ran no times
        final = {unversioned(n): t for n, t in zip(op.inputs.get("X", []), ins.get("X", []))}
        counters = [(unversioned(n), t, final[unversioned(n)])
                    for n, t in zip(op.outputs.get(COUNTERS, []), outs.get(COUNTERS, []))]

        def call() -> None:
            steps = tapes.get(body.idx)  # kept: another while_grad may run over it too
            if steps is None:
                raise OpError(f"op 'while_grad' of block {body.idx}: its while loop has not "
                              f"run first in this program")
            carried = {x: outs_grad[x].clone() for x in seeds}
            summed = {x: torch.zeros_like(t) for x, t in wanted if x not in seeds}
            for values in reversed(steps):
                got = dict(zip(fetches, run(executor, {
                    **values, **{seeds[x]: g for x, g in carried.items()}}, scope)))
                carried = {x: torch.from_numpy(got[grad_name(x)]) for x in seeds}
                for x, total in summed.items():
                    total += torch.from_numpy(got[grad_name(x)]).to(total.device)
            for x, t in wanted:
                t.copy_(carried[x] if x in carried else summed[x])
            for n, t, now in counters:
                t.copy_(steps[0][n] if steps else now)
        return call

    def _recurrent(self, op: OpDesc, ins: dict, outs: dict, scope: Scope):
        """StaticRNN: the step block once per entry of dim 0 of the inputs (reversed if
        `reverse`), fed their slices and the memories (ex_states: the initial states, then the
        step before's states); each step's outputs go to their entry of the op's outputs."""
        a = op.attrs
        xs = [unversioned(n) for n in op.inputs.get("inputs", [])]
        out_names = [unversioned(n) for n in op.outputs.get("outputs", [])]
        run = self._block_run(op, list(a["states"]) + out_names,
                              seeds=xs + list(a["ex_states"]))
        params = {unversioned(n): t for n, t in zip(op.inputs.get("parameters", []),
                                                     ins.get("parameters", []))}
        run.check_inputs(set(params) | set(xs) | set(a["ex_states"]))
        seqs, inits, targets = ins.get("inputs", []), ins.get("initial_states", []), \
            outs.get("outputs", [])
        n_states, executor, body = len(a["states"]), self.executor, sub_block(op).idx

        def call() -> None:
            mems = list(inits)
            tape = self._tapes[body] = [] if body in self._graded else None
            for t in step_order(seqs[0].shape[0], a["reverse"]):
                if tape is not None:
                    tape.append([m.clone() for m in mems])
                got = run(executor, {**params, **{x: s[t] for x, s in zip(xs, seqs)},
                                     **dict(zip(a["ex_states"], mems))}, scope)
                mems = [torch.from_numpy(v) for v in got[:n_states]]
                for target, v in zip(targets, got[n_states:]):
                    target[t].copy_(torch.from_numpy(v))
        return call

    def _recurrent_grad(self, op: OpDesc, ins: dict, outs: dict, scope: Scope):
        """The grad block once per step, last first, fed that step's input slices and memories
        (kept by the recurrent op), the output grads' slices and the memories' grads from the
        step after (zeros after the last): step inputs' grads go to their slices, the
        parameters' are summed, the memories' carried back to initial_states@GRAD."""
        a = op.attrs
        body = forward_block(op)
        self._graded.add(body.idx)
        grad_block = sub_block(op)
        xs = [unversioned(n) for n in op.inputs.get("inputs", [])]
        ex = [x for x in a["ex_states"] if grad_block.has_var(grad_name(x))]
        st = dict(zip(a["ex_states"], a["states"]))
        out_grads = [(grad_name(unversioned(n)), g) for n, g in zip(
            op.inputs.get("outputs", []), ins.get("outputs@GRAD", []))
            if grad_block.has_var(grad_name(unversioned(n)))]
        wanted = {slot: [(unversioned(n), t) for n, g, t in zip(
            op.inputs.get(slot, []), op.outputs.get(slot + "@GRAD", []),
            outs.get(slot + "@GRAD", [])) if g != EMPTY_VAR]
            for slot in ("inputs", "parameters")}
        # each initial state's grad is its memory's, carried back to the first step
        init_grads = [(x, t) for x, g, t in zip(
            a["ex_states"], op.outputs.get("initial_states@GRAD", []),
            outs.get("initial_states@GRAD", [])) if g != EMPTY_VAR]
        fetches = list(dict.fromkeys([grad_name(x) for x in ex] + [
            grad_name(x) for slot in ("inputs", "parameters") for x, _ in wanted[slot]]))
        seeds = xs + list(a["ex_states"]) + [grad_name(st[x]) for x in ex] + \
            [n for n, _ in out_grads]
        run = self._block_run(op, fetches, seeds=seeds)
        params = {unversioned(n): t for n, t in zip(op.inputs.get("parameters", []),
                                                     ins.get("parameters", []))}
        seqs, inits = ins.get("inputs", []), ins.get("initial_states", [])
        init_of = dict(zip(a["ex_states"], inits))
        executor, tapes = self.executor, self._tapes

        def call() -> None:
            steps = tapes.get(body.idx)
            if steps is None:
                raise OpError(f"op 'recurrent_grad' of block {body.idx}: its recurrent op has "
                              f"not run first in this program")
            order = list(step_order(seqs[0].shape[0], a["reverse"]))
            carried = {x: torch.zeros_like(init_of[x]) for x in ex}
            summed = {x: torch.zeros_like(t) for x, t in wanted["parameters"]}
            slices = dict(wanted["inputs"])
            for t, mems in reversed(list(zip(order, steps))):
                got = dict(zip(fetches, run(executor, {
                    **params, **{x: s[t] for x, s in zip(xs, seqs)},
                    **dict(zip(a["ex_states"], mems)),
                    **{grad_name(st[x]): g for x, g in carried.items()},
                    **{n: g[t] for n, g in out_grads}}, scope)))
                carried = {x: torch.from_numpy(got[grad_name(x)]) for x in ex}
                for x, target in slices.items():
                    target[t].copy_(torch.from_numpy(got[grad_name(x)]))
                for x, total in summed.items():
                    total += torch.from_numpy(got[grad_name(x)]).to(total.device)
            for x, target in init_grads:
                target.copy_(carried[x])
            for x, target in wanted["parameters"]:
                target.copy_(summed[x])
        return call


def step_order(seq_len: int, reverse: bool) -> range:
    """The order a recurrent op runs its steps in."""
    return range(seq_len - 1, -1, -1) if reverse else range(seq_len)

