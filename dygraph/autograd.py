"""The tape's backward: the recorded nodes behind the targets become a static program (renamed
canonically, one var per array), `passes.backward.gradients` appends Paddle's grad ops to it as
for any program, and the forward ops are dropped: their arrays are fed. The program is kept
per tape signature, so a training loop's backward is one compiled, fused plan reused each step.
"""
from __future__ import annotations

import functools

import numpy as np

from ..frontend.framework import Program, program_guard
from ..passes.backward import gradients as static_gradients
from .runner import PROGRAMS, op_key
from ..frontend.ops import OpDesc
from ..frontend.ops.registry import EMPTY_VAR

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
    """The nodes behind the targets with every array named v0, v1, ... in order of use."""

    def __init__(self, nodes, stopped: set[int]) -> None:
        self.names: dict[int, str] = {}
        self.arrays: dict[str, np.ndarray] = {}
        self.leaves: dict[str, list] = {}  # leaf name -> the tensors that held the array
        self.stop: dict[str, bool] = {}
        self.ops = []
        for node in nodes:
            ins = {}
            for slot, vs in node.desc.inputs.items():
                ins[slot] = []
                for v in vs:
                    c = self.name(node.ins[v])
                    t, parent = node.parents[v]
                    if parent is None:
                        self.leaves.setdefault(c, [])
                        if all(t is not u for u in self.leaves[c]):
                            self.leaves[c].append(t)
                        self.stop[c] = t.stop_gradient or id(t) in stopped
                    ins[slot].append(c)
            outs = {s: [EMPTY_VAR if v == EMPTY_VAR else self.name(node.outs[v]) for v in vs]
                    for s, vs in node.desc.outputs.items()}
            self.ops.append(OpDesc(node.desc.type, ins, outs, node.desc.attrs))

    def name(self, array: np.ndarray) -> str:
        c = self.names.get(id(array))
        if c is None:
            c = self.names[id(array)] = f"v{len(self.names)}"
            self.arrays[c] = array
        return c

    def key(self, targets, seeds, wanted) -> tuple:
        return (tuple(op_key(op) for op in self.ops),
                tuple((c, a.shape, a.dtype.str, self.stop.get(c)) for c, a in self.arrays.items()),
                tuple(targets), tuple(s is not None for s in seeds), tuple(wanted))

    def build(self, targets, seeds, wanted):
        """The backward program: the grad ops alone; returns it and its grad fetches."""
        program = Program()
        block = program.global_block()
        for c, a in self.arrays.items():
            block.create_var(name=c, shape=a.shape, dtype=a.dtype,
                             stop_gradient=self.stop.get(c, False))
        seed_vars = []
        for i, (target, seed) in enumerate(zip(targets, seeds)):
            a = self.arrays[target]
            seed_vars.append(None if seed is None else block.create_var(
                name=f"seed{i}", shape=a.shape, dtype=a.dtype, stop_gradient=True))
        with program_guard(program, Program()):
            for op in self.ops:
                block.append_op(op.type, op.inputs, op.outputs, op.attrs)
            grads = static_gradients([block.var(t) for t in targets],
                                     [block.var(w) for w in wanted],
                                     seed_vars if any(seeds) else None)
        if len(wanted) == 1 and not grads:
            grads = [None]
        del block.ops[:len(self.ops)]
        program._bump()
        read = {n for op in block.ops for n in op.desc.input_arg_names}
        program.eager_feeds = [n for n in list(self.arrays) + [f"seed{i}" for i in
                                                               range(len(targets))] if n in read]
        fetched = list(dict.fromkeys(g.name for g in grads if g is not None))
        program.eager_grads = [None if g is None else fetched.index(g.name) for g in grads]
        return program, fetched


def _run(targets, grad_tensors, inputs=None, retain_graph=False, stopped=()):
    """(tape, wanted names, grad arrays): the grads of the targets w.r.t. `inputs` (tensors;
    None: every leaf that needs one)."""
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
    else:
        wanted = [tape.names.get(id(t._value)) for t in inputs]
    asked = [w for w in wanted if w is not None]
    grads = {}
    if asked:
        key = tape.key(names, seeds, asked)
        program, fetches = PROGRAMS.get(key, lambda: tape.build(names, seeds, asked))
        feed = {n: tape.arrays[n] if n in tape.arrays else seeds[int(n[4:])]
                for n in program.eager_feeds}
        values = PROGRAMS.execute(program, feed, fetches)
        grads = {w: None if i is None else np.asarray(values[i])
                 for w, i in zip(asked, program.eager_grads)}
    if not retain_graph:
        for node in nodes:
            node.desc = node.ins = node.outs = node.parents = None
    return tape, wanted, grads


def backward(targets, grad_tensors, retain_graph: bool = False) -> None:
    """Tensor.backward / paddle.autograd.backward: accumulate into the leaves' .grad."""
    from .tensor import new_tensor
    tape, wanted, grads = _run(targets, grad_tensors, None, retain_graph)
    for c in wanted:
        g = grads.get(c)
        if g is None:
            continue
        for t in tape.leaves[c]:
            t._grad = new_tensor(g if t._grad is None else t._grad.value() + g)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         only_inputs=True, allow_unused=False, no_grad_vars=None):
    """paddle.grad: the gradients of outputs w.r.t. inputs, as new tensors (no .grad
    accumulation); an input the outputs do not depend on is an error unless allow_unused."""
    from .tensor import Tensor, new_tensor
    if create_graph:
        raise NotImplementedError("paddle.grad(create_graph=True) (higher-order eager "
                                  "gradients) is not supported by fluidc's dygraph mode; "
                                  "build the program statically for double gradients")
    single = isinstance(inputs, Tensor)
    outputs = [outputs] if isinstance(outputs, Tensor) else list(outputs)
    inputs = [inputs] if single else list(inputs)
    grad_outputs = [None] * len(outputs) if grad_outputs is None else (
        [grad_outputs] if isinstance(grad_outputs, Tensor) else list(grad_outputs))
    if len(grad_outputs) != len(outputs):
        raise ValueError("The length of grad_outputs must be equal to outputs")
    stopped = [no_grad_vars] if isinstance(no_grad_vars, Tensor) else list(no_grad_vars or ())
    _, wanted, grads = _run(outputs, grad_outputs, inputs, bool(retain_graph), stopped)
    out = []
    for i, (t, w) in enumerate(zip(inputs, wanted)):
        g = grads.get(w) if w is not None else None
        if g is None and not allow_unused:
            raise ValueError(f"The {i}-th input ('{t.name}') does not appear in the backward "
                             f"graph. Please check the input tensor or set allow_unused=True "
                             f"to get None result.")
        out.append(None if g is None else new_tensor(g))
    return out
