"""The eager program: layers append ops to its block as to any block, and each op runs at
once (runner.Prepared: the op's registered definition, compiled per signature) instead of
being kept. Ops that a gradient may flow through are recorded as tape nodes (autograd.py)."""
from __future__ import annotations

import functools
import itertools
import weakref

from ..frontend import unique_name
from ..frontend.dtypes import convert_dtype, dtype_name
from ..frontend.errors import FluidcError, OpError
from ..frontend.framework import Block, Operator, Program, register_eager_program
from ..frontend.layers.helper import ArgumentTypeError
from ..frontend.layers.tensor import _ASSIGN_VALUE_KEYS
from ..frontend.ops import get_op_def
from . import autograd
from .runner import PROGRAMS, Prepared, op_key, prepare, signature
from .tensor import EagerParamBase, Tensor, new_tensor

_order = itertools.count()


def _without_empty_inputs(op_type: str, inputs):
    """inputs less the slots of the op's OpDef.empty_inputs whose tensors hold nothing: the op
    runs as with the slot unbound, as in static programs (passes/empty_inputs.py)."""
    slots = get_op_def(op_type).empty_inputs
    if not slots or not inputs:
        return inputs

    def empty(v):
        return any(isinstance(t, Tensor) and t._value is None
                   for t in (v if isinstance(v, (list, tuple)) else (v,)))
    return {k: v for k, v in inputs.items() if not (k in slots and empty(v))}


class Node:
    """One recorded op: its desc (a to_static call's node: a list of them), the arrays it
    read and wrote (by var name), for each input the tensor and the node that made that array
    (None for a leaf), the names of the vars its ops write (`made`), the key of its ops
    (runner.op_key), made when first asked for, and for a to_static call with control-flow ops
    the program whose blocks their sub_block attributes index (its backward runs its ops
    again: autograd._Tape)."""

    __slots__ = ("seq", "desc", "ins", "outs", "parents", "made", "key", "program")

    def __init__(self, desc, ins, outs, parents, made, key: tuple | None = None,
                 program=None) -> None:
        self.seq = next(_order)
        self.desc, self.ins, self.outs, self.parents = desc, ins, outs, parents
        self.made = made
        self.key = key
        self.program = program

    def keys(self) -> tuple:
        if self.key is None:
            self.key = tuple(op_key(d) for d in
                             (self.desc if isinstance(self.desc, list) else [self.desc]))
        return self.key


class RanOp(Operator):
    """What append_op returns for a call it ran by its signature: the Operator, its desc
    (with the call's var names) made only if asked for."""

    def __init__(self, block, entry, ins: list, outs: list) -> None:
        self.block = block
        self._call = (entry, ins, outs)

    @functools.cached_property
    def desc(self):
        entry, ins, outs = self._call
        return entry.named(ins, outs)


class EagerBlock(Block):
    """A block whose ops run when appended. Vars are held weakly: a tensor lives as long as
    the user (or a tape node) keeps it."""

    def __init__(self, program: "EagerProgram") -> None:
        super().__init__(program, 0)
        self.vars = weakref.WeakValueDictionary()

    def create_var(self, name=None, **kwargs) -> Tensor:
        name = name or unique_name.generate("generated_tensor")
        if name in self.vars:
            return self.vars[name]
        kwargs.pop("persistable", None)
        t = Tensor(self, name, **kwargs)
        self.vars[name] = t
        return t

    def create_parameter(self, name, shape, dtype, **kwargs) -> EagerParamBase:
        p = EagerParamBase(self, name, shape, dtype, **kwargs)
        self.vars[name] = p
        return p

    def add(self, tensor: Tensor) -> Tensor:
        self.vars[tensor.name] = tensor
        return tensor

    def append_op(self, type, inputs=None, outputs=None, attrs=None, **_) -> Operator:
        """Run the op now. A call whose signature ran before skips the op's checks and shape
        inference (runner.signature); any other is checked and inferred as in a static
        block, and its entry kept under its signature."""
        inputs = _without_empty_inputs(type, inputs)
        called = signature(type, inputs, outputs, attrs, Tensor)
        entry = PROGRAMS.find(called[0]) if called is not None else None
        if entry is not None:
            ins, outs = called[1], called[2]
            op = RanOp(self, entry, ins, outs)
        else:
            op = self._make_op(type, inputs, outputs, attrs)
            if get_op_def(type).kind in ("control", "array"):
                raise OpError(f"op '{type}' (control flow, tensor arrays) does not run in "
                              f"dygraph mode; build it in a static program "
                              f"(paddle.enable_static())")
            in_names, out_names = Prepared.order(op.desc)
            given = self._given(type, inputs, outputs)
            ins = [given[n] if n in given else self.var(n) for n in in_names]
            outs = [given[n] if n in given else self.var(n) for n in out_names]
            missing = [t.name for t in ins if t._value is None]
            if missing:
                raise FluidcError(f"op '{type}' reads tensor '{missing[0]}', which holds no "
                                  f"value")
            entry = prepare(op.desc, [t._value for t in ins])
            if called is not None:
                PROGRAMS.put(called[0], entry)
        self._run(entry, ins, outs)
        return op

    @staticmethod
    def _given(op_type: str, inputs, outputs) -> dict:
        """The tensors a call names, by name: an op reads and writes these objects, not
        whatever tensor its names resolve to in the block (two layers built under one
        unique_name.guard hold parameters of equal names). Two different tensors of one name
        in one call cannot be told apart in the op's desc: an error."""
        given: dict = {}
        for slots in (inputs, outputs):
            for v in (slots or {}).values():
                for t in (v if isinstance(v, (list, tuple)) else (v,)):
                    if not isinstance(t, Tensor):
                        continue
                    if given.setdefault(t.name, t) is not t:
                        raise FluidcError(f"op '{op_type}' is given two different tensors "
                                          f"named '{t.name}'; rename one of them")
        return given

    @staticmethod
    def _run(entry: Prepared, ins: list, outs: list) -> None:
        """Run the entry on the input tensors' values into the output tensors, recording a
        tape node when a gradient may flow through."""
        values = [t._value for t in ins]
        results = entry.run(values)
        node = None
        if entry.grad and autograd.grad_enabled() and \
                any(not t.stop_gradient for t in ins):
            node = Node(entry.desc, dict(zip(entry.feeds, values)),
                        dict(zip(entry.fetches, results)),
                        {c: (t, t._node) for c, t in zip(entry.feeds, ins)}, entry.fetches,
                        (entry.key,))
        for t, value in zip(outs, results):
            t._value = value
            t._made = True
            if not t.persistable:  # parameters and buffers stay leaves
                t._node = node
                t._stop_gradient = node is None

    def _insert_op(self, index, type, inputs=None, outputs=None, attrs=None) -> Operator:
        raise FluidcError(f"op '{type}' cannot be inserted before ops that already ran "
                          f"(dygraph mode runs each op when it is made)")

    def _prepend_op(self, type, inputs=None, outputs=None, attrs=None, **_) -> Operator:
        return self._insert_op(0, type, inputs, outputs, attrs)


class EagerProgram(Program):
    """The tracer's program: one eager block."""

    eager = True

    def __init__(self) -> None:
        super().__init__()
        self.blocks = [EagerBlock(self)]

    def _create_block(self, parent_idx=None):
        raise FluidcError("sub-blocks (control flow) are built in static programs only; "
                          "call paddle.enable_static() first")


def capture(block: Block, tensor: Tensor):
    """An eager tensor used by a static program: a constant var of the same name holding its
    value now (assign_value, appended where it is first used), as a traced function captures
    outside tensors."""
    array, name = tensor.value(), dtype_name(tensor.dtype)
    # a dtype assign_value does not hold: its values in a wider one, cast back (Paddle's
    # static to_tensor: assign_value, then cast)
    carrier = name if name in _ASSIGN_VALUE_KEYS else _CARRIERS.get(name)
    if carrier is None:
        raise ArgumentTypeError(f"eager tensor '{tensor.name}' ({name}) cannot become a "
                                f"constant of a static program (assign_value holds "
                                f"{sorted(_ASSIGN_VALUE_KEYS)}, float16 and small ints by a "
                                f"cast); cast it first")
    var = block.create_var(name=tensor.name, shape=array.shape, dtype=tensor.dtype,
                           stop_gradient=True)
    held = var if carrier == name else block.create_var(
        name=unique_name.generate(f"{tensor.name}_{carrier}"), shape=array.shape,
        dtype=convert_dtype(carrier), stop_gradient=True)
    block.append_op("assign_value", outputs={"Out": [held]},
                    attrs={"shape": list(array.shape), "dtype": int(held.dtype),
                           _ASSIGN_VALUE_KEYS[carrier]: array.astype(carrier).reshape(-1).tolist()})
    if held is not var:
        block.append_op("cast", {"X": [held]}, {"Out": [var]},
                        {"in_dtype": int(held.dtype), "out_dtype": int(var.dtype)})
    return var


_CARRIERS = {"float16": "float32", "int8": "int32", "uint8": "int32", "int16": "int32"}


EAGER_PROGRAM = EagerProgram()
register_eager_program(EAGER_PROGRAM, capture, new_tensor)
