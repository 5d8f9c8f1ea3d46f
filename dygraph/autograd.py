"""The tape's backward: the recorded nodes behind the targets become a static program (renamed
canonically, one var per array), `passes.backward.gradients` appends Paddle's grad ops to it as
for any program, and the forward ops are dropped: their arrays are fed. The program is kept
per tape signature, so a training loop's backward is one compiled, fused plan reused each step.
"""
from __future__ import annotations

import functools

import numpy as np

from ..frontend.framework import Operator, Program, program_guard
from ..passes.backward import gradients as static_gradients
from .runner import PROGRAMS
from ..frontend import unique_name
from ..frontend.ops import OpDesc, VarInfo, get_op_def
from ..frontend.ops.registry import EMPTY_VAR, grad_name

_enabled = [True]


def grad_enabled() -> bool:
    return _enabled[-1]


class no_grad:
    """paddle.no_grad(): ops inside record nothing for backward; a context or a decorator."""

    def __init__(self, func=None) -> None:
        self._func = func
        if func is not None:
            functools.update_wrapper(self, func)

    def __enter__(self):
        _enabled.append(False)
        return self

    def __exit__(self, *exc) -> None:
        _enabled.pop()

    def __call__(self, *args, **kwargs):
        if self._func is None:  # @paddle.no_grad()
            return no_grad(args[0])
        with no_grad():
            return self._func(*args, **kwargs)


class set_grad_enabled(no_grad):
    """paddle.set_grad_enabled(mode): a context in which recording is `mode`."""

    def __init__(self, mode: bool) -> None:
        super().__init__()
        self._mode = bool(mode)

    def __enter__(self):
        _enabled.append(self._mode)
        return self


def is_grad_enabled() -> bool:
    return grad_enabled()


class FreedGraphError(RuntimeError):
    """A backward through nodes an earlier backward released (retain_graph=False)."""


def _nodes(targets) -> list:
    """The recorded nodes behind `targets`, in the order they ran."""
    seen, stack = {}, [t._node for t in targets if t._node is not None]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        if node.desc is None:
            raise FreedGraphError(
                "Trying to backward through the same graph a second time, but the buffers "
                "have already been freed; call backward(retain_graph=True) the first time")
        seen[id(node)] = node
        stack += [p for _, p in node.parents.values() if p is not None]
    return sorted(seen.values(), key=lambda n: n.seq)


class _Tape:
    """The nodes behind the targets with every array named v0, v1, ... in order of use. Its
    key is made from each node's op keys and the names of the arrays it read and wrote; the
    renamed ops (`ops`), needed only to build a backward the key has not seen, are made then."""

    def __init__(self, nodes, stopped: set[int]) -> None:
        self.nodes = nodes
        self.names: dict[int, str] = {}
        self.arrays: dict[str, np.ndarray] = {}
        self.leaves: dict[str, list] = {}  # leaf name -> the tensors that held the array
        self.stop: dict[str, bool] = {}
        self.makers: dict[str, object] = {}  # array name -> the node that made it
        structure = []
        for node in nodes:
            read = []
            for v, (t, parent) in node.parents.items():
                c = self.name(node.ins[v])
                if parent is None:
                    held = self.leaves.setdefault(c, [])
                    if all(t is not u for u in held):
                        held.append(t)
                    self.stop[c] = t.stop_gradient or id(t) in stopped
                read.append((v, c))
            made = []
            for v in node.made:
                a = node.outs.get(v)  # (a control-flow call's unfetched vars have none)
                if a is not None:
                    c = self.name(a)
                    self.makers[c] = node
                    made.append((v, c))
            structure.append((node.keys(), tuple(read), tuple(made)))
        self.structure = tuple(structure)
        self.control_flow = any(node.program is not None for node in nodes)

    @functools.cached_property
    def ops(self) -> list[OpDesc]:
        """The nodes' ops over the arrays' names. to_static calls with control-flow ops give
        `replayed`: (their program, its var name -> name here, the indices in ops of their
        ops, which the backward runs again); their vars without an array (the values the call
        did not fetch) are declared as in the program (`declared`)."""
        self.replayed: list[tuple[Program, dict[str, str], list[int]]] = []
        self.declared: dict[str, object] = {}
        ops = []
        for node, (_, read, made) in zip(self.nodes, self.structure):
            first = len(ops)
            renames = dict(read)
            renames.update(made)

            def name(v, node=node, renames=renames):
                c = renames.get(v)
                if c is None:  # a var of a control-flow call that holds no array
                    c = renames[v] = f"{v}@CALL{len(self.replayed)}"
                    self.declared[c] = node.program.global_block().var(v)
                return c
            for desc in node.desc if isinstance(node.desc, list) else (node.desc,):
                ops.append(OpDesc(desc.type,
                                  {s: [name(v) for v in vs] for s, vs in desc.inputs.items()},
                                  {s: [EMPTY_VAR if v == EMPTY_VAR else name(v) for v in vs]
                                   for s, vs in desc.outputs.items()}, desc.attrs))
            if node.program is not None:
                self.replayed.append((node.program, renames, _rerun(
                    node.program, node.desc, range(first, len(ops)))))
        return ops

    def name(self, array: np.ndarray) -> str:
        c = self.names.get(id(array))
        if c is None:
            c = self.names[id(array)] = f"v{len(self.names)}"
            self.arrays[c] = array
        return c

    def key(self, targets, seeds, wanted) -> tuple:
        return ("backward", self.structure,
                tuple((c, a.shape, a.dtype.str, self.stop.get(c)) for c, a in self.arrays.items()),
                tuple(targets), tuple(s is not None for s in seeds), tuple(wanted))

    def build(self, targets, seeds, wanted):
        """The backward program: the grad ops alone; returns it and its grad fetches."""
        ops = self.ops  # (and the control-flow calls' replayed, declared)
        program = Program()
        program._int_grads = True  # as Paddle's eager autograd (passes/int_grads.py)
        block = program.global_block()
        for c, a in self.arrays.items():
            block.create_var(name=c, shape=a.shape, dtype=a.dtype,
                             stop_gradient=self.stop.get(c, False))
        for c, v in self.declared.items():
            block.create_var(name=c, shape=v.shape, dtype=v.dtype, type=v.type,
                             lod_level=v.lod_level, stop_gradient=v.stop_gradient)
        seed_vars = []
        for i, (target, seed) in enumerate(zip(targets, seeds)):
            a = self.arrays[target]
            seed_vars.append(None if seed is None else block.create_var(
                name=f"seed{i}", shape=a.shape, dtype=a.dtype, stop_gradient=True))
        moved = {}  # op index -> its sub_block in `program`
        for source, renames, kept in self.replayed:
            moved.update((i, b) for i, b in zip(kept, _copy_blocks(source, program, renames,
                                                                  [ops[i] for i in kept]))
                         if b is not None)
        with program_guard(program, Program()):
            for i, op in enumerate(ops):
                attrs = op.attrs if i not in moved else {**op.attrs, "sub_block": moved[i]}
                block.append_op(op.type, op.inputs, op.outputs, attrs)
            forward = {id(op): i for i, op in enumerate(block.ops)}
            grads = static_gradients([block.var(t) for t in targets],
                                     [block.var(w) for w in wanted],
                                     seed_vars if any(s is not None for s in seeds) else None)
        if len(wanted) == 1 and not grads:
            grads = [None]
        # The recorded ops run again are the replayed calls'; the others' values are fed. The
        # backward's own ops stay, wherever it put them (copies of values it overwrites go
        # before the overwriting op: passes/version_grads.py).
        rerun = {i for _, _, kept in self.replayed for i in kept}
        block.ops[:] = [op for op in block.ops if id(op) not in forward or forward[id(op)] in rerun]
        program._bump()
        read, made = set(), set()  # what the ops left read before any of them writes it
        for op in block.ops:
            read.update(n for n in op.desc.input_arg_names if n not in made)
            made.update(op.desc.output_arg_names)
        program.eager_feeds = [n for n in list(self.arrays) + [f"seed{i}" for i in
                                                               range(len(targets))] if n in read]
        fetched = list(dict.fromkeys(g.name for g in grads if g is not None))
        program.eager_grads = [None if g is None else fetched.index(g.name) for g in grads]
        return program, fetched


def draws(desc: OpDesc) -> bool:
    """Whether an op draws random numbers: a backward that runs a to_static call's ops again
    feeds such an op's outputs as the call made them (ConcreteProgram fetches them) instead."""
    return get_op_def(desc.type).stateful


def _rerun(program: Program, descs: list, indices) -> list[int]:
    """The ops of a to_static call with control-flow ops that its backward runs again (a
    while_grad runs over the iterations its while recorded in the same run; a branch's grad
    recomputes it): all but the global block's random ops, whose outputs are fed as made.
    A random op inside a sub-block would draw new numbers: refused."""
    for sub in program.blocks[1:]:
        for op in sub.ops:
            if draws(op.desc):
                raise NotImplementedError(
                    f"a gradient through a paddle.jit.to_static function whose control flow "
                    f"(cond / while_loop) holds the random op '{op.type}': fluidc's backward "
                    f"runs the control flow again and would draw other numbers; move it out "
                    f"of the branch or loop body")
    return [i for i, d in zip(indices, descs) if not draws(d)]


def _copy_blocks(source: Program, program: Program, renames: dict[str, str],
                 ops: list) -> list[int]:
    """Copy into `program` the sub-blocks of `source` (blocks 1..), their vars and ops
    renamed by `renames` (the outer vars they read and write by name); returns, for each of
    `ops` (the copied call's top-level ops), the index its sub_block attribute now names
    (None for an op without one)."""
    first = len(program.blocks)
    index = {b.idx: first + k for k, b in enumerate(source.blocks[1:])}
    index[0] = 0
    current = program.current_block_idx
    for sub in source.blocks[1:]:
        copy = program._create_block(index[sub.parent_idx])
        for name, v in sub.vars.items():
            copy.create_var(name=renames.get(name, name), shape=v.shape, dtype=v.dtype,
                            type=v.type, lod_level=v.lod_level, stop_gradient=v.stop_gradient)
        for op in sub.ops:
            d = op.desc
            attrs = dict(d.attrs)
            if "sub_block" in attrs:
                attrs["sub_block"] = index[attrs["sub_block"]]
            copy.ops.append(Operator(copy, OpDesc(
                d.type, {s: [renames.get(n, n) for n in vs] for s, vs in d.inputs.items()},
                {s: [renames.get(n, n) for n in vs] for s, vs in d.outputs.items()}, attrs)))
    program.current_block_idx = current
    program._bump()
    return [index[op.attrs["sub_block"]] if "sub_block" in op.attrs else None for op in ops]


def _replay(program, tape, seeds: list) -> dict:
    """create_graph: the backward program's ops run eagerly, one by one, so that they are
    recorded on the tape like any op, over tensors holding the forward arrays (the leaves
    themselves; for an array an op made, a tensor behind that op's node) and the seeds (a
    grad_outputs tensor as given); var name -> tensor after the run."""
    from .tensor import Tensor
    from .tracer import EAGER_PROGRAM
    block = EAGER_PROGRAM.global_block()
    env: dict = {}
    for name, array in tape.arrays.items():
        leaves = tape.leaves.get(name)
        if leaves:
            env[name] = leaves[0]
        else:
            t = env[name] = block.add(Tensor(block, unique_name.generate("double_grad_in")))
            t._value, t._node, t._stop_gradient = array, tape.makers[name], False
    for i, seed in enumerate(seeds):
        env[f"seed{i}"] = seed
    _recompute_side_outputs(tape, program, env)
    for op in program.global_block().ops:
        _replay_op(block, op.desc, env)
    return env


def _layer_norm_stats(op: OpDesc, env: dict) -> dict:
    """layer_norm's Mean and Variance, recomputed from X by differentiable eager ops."""
    from .. import mean, reshape, square, unsqueeze
    x = env[op.input("X")[0]]
    axis = op.attrs.get("begin_norm_axis", 1)
    rows = reshape(x, [int(np.prod(x.shape[:axis], dtype=np.int64)), -1])
    m = mean(rows, axis=1)
    return {"Mean": m, "Variance": mean(square(rows - unsqueeze(m, 1)), axis=1)}


# forward op -> its outputs other than the differentiated one that its grad op reads, as
# differentiable functions of its inputs (op, env) -> {slot: tensor}
_SIDE_OUTPUTS = {"layer_norm": _layer_norm_stats}


def _recompute_side_outputs(tape, program, env: dict) -> None:
    """A grad op of `program` may read a forward output whose gradient the forward op's grad
    maker does not take (layer_norm's Mean and Variance, batch_norm's saved statistics): a
    second derivative through that read would be silently lost. Such an output is recomputed
    by differentiable ops (_SIDE_OUTPUTS), or create_graph is refused naming it. Empty
    (XShape) and integer outputs (masks, indices) carry no gradient and pass."""
    read = {n for op in program.global_block().ops for n in op.desc.input_arg_names}
    for op in tape.ops:
        opdef = get_op_def(op.type)
        side = [(slot, n) for slot, vs in op.outputs.items() for n in vs
                if n in read and n in tape.arrays and tape.arrays[n].size
                and tape.arrays[n].dtype.kind in "fc"]
        if opdef.grad is None or not side:
            continue
        taken = {n for g in opdef.grad(op) for n in g.input_arg_names}
        side = [(slot, n) for slot, n in side if grad_name(n) not in taken]
        if not side:
            continue
        if op.type not in _SIDE_OUTPUTS:
            raise NotImplementedError(
                f"paddle.grad(create_graph=True): the backward of '{op.type}' reads its output "
                f"{side[0][0]} ('{side[0][1]}'), whose gradient fluidc does not propagate to "
                f"'{op.type}''s inputs, so its second derivative would be wrong; build this "
                f"part without create_graph")
        made = _SIDE_OUTPUTS[op.type](op, env)
        env.update((n, made[slot]) for slot, n in side)


def _replay_op(block, desc: OpDesc, env: dict) -> None:
    """Append one op of a backward program to the eager block; a composite one without a grad
    of its own that a gradient must flow through is appended as its lowered ops."""
    opdef = get_op_def(desc.type)
    ins = {s: [env[n] for n in vs if n != EMPTY_VAR] for s, vs in desc.inputs.items()}
    if opdef.grad is None and any(not t.stop_gradient for vs in ins.values() for t in vs):
        if opdef.lower is None:
            raise NotImplementedError(
                f"paddle.grad(create_graph=True) differentiates the backward op "
                f"'{desc.type}', which has no gradient in fluidc (double gradients are "
                f"defined for elementwise add/sub/mul/div, matmul_v2, reduce_sum, pow, relu, "
                f"tanh, sigmoid, exp, log, sqrt, rsqrt, square, gelu and the ops that lower "
                f"into differentiable ones: mean, softmax, layer_norm); build this part "
                f"without create_graph")
        attrs = opdef.complete_attrs(desc.attrs)
        infos = {n: VarInfo(tuple(env[n].shape), env[n].dtype) for n in desc.input_arg_names}
        inferred = opdef.infer({s: [VarInfo(tuple(t.shape), t.dtype) for t in vs]
                                for s, vs in ins.items()}, attrs)
        for slot, names in desc.outputs.items():
            infos.update(zip(names, inferred.get(slot, [])))

        def new_var(info):
            name = unique_name.generate("double_grad_tmp")
            infos[name] = info
            return name
        for sub in opdef.lower(OpDesc(desc.type, desc.inputs, desc.outputs, attrs), infos,
                               new_var):
            _replay_op(block, sub, env)
        return
    outputs = dict(desc.outputs)
    if "XShape" in {s.name for s in opdef.outputs} and not outputs.get("XShape"):
        outputs["XShape"] = ["XShape"]  # a lowering's reshape2: its grad reads the XShape
    outs = {}
    for slot, names in outputs.items():
        outs[slot] = []
        for n in names:
            if n == EMPTY_VAR:
                outs[slot].append(n)
                continue
            env[n] = block.create_var(name=unique_name.generate("double_grad"))
            outs[slot].append(env[n])
    block.append_op(desc.type, ins, outs, dict(desc.attrs))


def _run(targets, grad_tensors, inputs=None, retain_graph=False, stopped=(),
         create_graph=False, retained=()):
    """(tape, wanted names, grads): the grads of the targets w.r.t. `inputs` (tensors; None:
    every leaf that needs one and the non-leaf tensors in `retained`), as arrays, or with
    create_graph as tensors made by recorded ops (so differentiable again)."""
    from .tensor import Tensor, new_tensor
    for t in targets:
        if t._node is None:
            raise RuntimeError(f"tensor '{t.name}' was made by no recorded op (its "
                               f"stop_gradient is {t.stop_gradient}): there is nothing to "
                               f"differentiate")
    nodes = _nodes(targets)
    tape = _Tape(nodes, {id(t) for t in stopped})
    names = [tape.names[id(t._value)] for t in targets]
    seeds = [None if g is None else np.asarray(getattr(g, "_value", g),
                                               dtype=tape.arrays[n].dtype)
             for g, n in zip(grad_tensors, names)]
    if inputs is None:
        wanted = [c for c in tape.leaves if not tape.stop[c]]
        wanted += [c for c in dict.fromkeys(tape.names.get(id(t._value)) for t in retained)
                   if c is not None and c not in wanted]
    else:
        wanted = [tape.names.get(id(t._value)) for t in inputs]
    asked = [w for w in wanted if w is not None]
    if create_graph and tape.control_flow:
        raise NotImplementedError(
            "paddle.grad(create_graph=True) through a paddle.jit.to_static function with "
            "control-flow ops (cond / while_loop) is not supported by fluidc: its backward "
            "holds control-flow grad ops, which have no gradient")
    grads = {}
    if asked:
        key = tape.key(names, seeds, asked)
        program, fetches = PROGRAMS.get(key, lambda: tape.build(names, seeds, asked))
        if create_graph:
            env = _replay(program, tape, [g if isinstance(g, Tensor) or g is None else
                                          new_tensor(s) for g, s in zip(grad_tensors, seeds)])
            values = [env[n] for n in fetches]
        else:
            feed = {n: tape.arrays[n] if n in tape.arrays else seeds[int(n[4:])]
                    for n in program.eager_feeds}
            values = [np.asarray(v) for v in PROGRAMS.execute(program, feed, fetches)]
        grads = {w: None if i is None else values[i] for w, i in zip(asked, program.eager_grads)}
    if not retain_graph:
        for node in nodes:
            node.desc = node.ins = node.outs = node.parents = node.program = None
    return tape, wanted, grads


def backward(targets, grad_tensors, retain_graph: bool = False) -> None:
    """Tensor.backward / paddle.autograd.backward: accumulate into the .grad of the leaves
    and of the non-leaf tensors that called retain_grads()."""
    from .tensor import _new_grad, add_grad
    retained = _retaining(targets)
    tape, wanted, grads = _run(targets, grad_tensors, None, retain_graph, retained=retained)
    for c in wanted:
        g = grads.get(c)
        if g is None:
            continue
        for t in tape.leaves.get(c, ()):
            add_grad(t, g)
        for t in retained:  # a non-leaf's .grad is the last backward's, not a sum (Paddle's)
            if tape.names.get(id(t._value)) == c:
                t._grad = _new_grad(t, g)
    for t, g in zip(targets, grad_tensors):  # a retaining target's gradient is its seed
        if t._node is not None and t._retains_grad:
            t._grad = _new_grad(t, np.ones_like(t._value) if g is None else
                                np.array(getattr(g, "_value", g), dtype=t._value.dtype))


def _retaining(targets) -> list:
    """The non-leaf tensors behind the targets (not themselves) that called retain_grads()."""
    found = {}
    for node in _nodes(targets):
        found.update((id(t), t) for t, parent in node.parents.values()
                     if parent is not None and t._retains_grad)
    return list(found.values())


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         only_inputs=True, allow_unused=False, no_grad_vars=None):
    """paddle.grad: the gradients of outputs w.r.t. inputs, as new tensors (no .grad
    accumulation); an input the outputs do not depend on is an error unless allow_unused."""
    from .tensor import Tensor, new_tensor
    single = isinstance(inputs, Tensor)
    outputs = [outputs] if isinstance(outputs, Tensor) else list(outputs)
    inputs = [inputs] if single else list(inputs)
    grad_outputs = [None] * len(outputs) if grad_outputs is None else (
        [grad_outputs] if isinstance(grad_outputs, Tensor) else list(grad_outputs))
    if len(grad_outputs) != len(outputs):
        raise ValueError("The length of grad_outputs must be equal to outputs")
    stopped = [no_grad_vars] if isinstance(no_grad_vars, Tensor) else list(no_grad_vars or ())
    retain = create_graph if retain_graph is None else bool(retain_graph)  # Paddle's default
    _, wanted, grads = _run(outputs, grad_outputs, inputs, retain, stopped, create_graph)
    out = []
    for i, (t, w) in enumerate(zip(inputs, wanted)):
        g = grads.get(w) if w is not None else None
        if g is None and not allow_unused:
            raise ValueError(f"The {i}-th input ('{t.name}') does not appear in the backward "
                             f"graph. Please check the input tensor or set allow_unused=True "
                             f"to get None result.")
        out.append(g if g is None or create_graph else new_tensor(g))
    return out
