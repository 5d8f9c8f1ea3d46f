"""The eager program: layers append ops to its block as to any block, and each op runs at
once (runner.run_op: the op's registered definition, compiled per signature) instead of being
kept. Ops that a gradient may flow through are recorded as tape nodes (autograd.py)."""
from __future__ import annotations

import itertools
import weakref

from ..frontend import unique_name
from ..frontend.dtypes import dtype_name
from ..frontend.errors import FluidcError, OpError
from ..frontend.framework import Block, Operator, Program, register_eager_program
from ..frontend.layers.helper import ArgumentTypeError
from ..frontend.layers.tensor import _ASSIGN_VALUE_KEYS
from ..frontend.ops import get_op_def
from . import autograd
from .runner import run_op
from .tensor import EagerParamBase, Tensor, new_tensor

_order = itertools.count()


class Node:
    """One recorded op: its desc, the arrays it read and wrote (by var name), and for each
    input the tensor and the node that made that array (None for a leaf)."""

    __slots__ = ("seq", "desc", "ins", "outs", "parents")

    def __init__(self, desc, ins, outs, parents) -> None:
        self.seq = next(_order)
        self.desc, self.ins, self.outs, self.parents = desc, ins, outs, parents


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
        op = self._make_op(type, inputs, outputs, attrs)
        desc = op.desc
        opdef = get_op_def(desc.type)
        if opdef.kind in ("control", "array"):
            raise OpError(f"op '{desc.type}' (control flow, tensor arrays) does not run in "
                          f"dygraph mode; build it in a static program (paddle.enable_static())")
        tensors = {n: self.var(n) for n in desc.input_arg_names}
        missing = [n for n, t in tensors.items() if t._value is None]
        if missing:
            raise FluidcError(f"op '{desc.type}' reads tensor '{missing[0]}', which holds no "
                              f"value")
        values = {n: t._value for n, t in tensors.items()}
        results = run_op(desc, values)
        record = (autograd.grad_enabled() and opdef.grad is not None
                  and any(not t.stop_gradient for t in tensors.values()))
        node = Node(desc, values, results, {n: (t, t._node) for n, t in tensors.items()}) \
            if record else None
        for name, value in results.items():
            t = self.var(name)
            t._value = value
            if not t.persistable:  # parameters and buffers stay leaves
                t._node = node
                t._stop_gradient = node is None
        return op

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
    array = tensor.value()
    key = _ASSIGN_VALUE_KEYS.get(dtype_name(tensor.dtype))
    if key is None:
        raise ArgumentTypeError(f"eager tensor '{tensor.name}' ({dtype_name(tensor.dtype)}) "
                                f"cannot become a constant of a static program (assign_value "
                                f"holds {sorted(_ASSIGN_VALUE_KEYS)}); cast it first")
    var = block.create_var(name=tensor.name, shape=array.shape, dtype=tensor.dtype,
                           stop_gradient=True)
    block.append_op("assign_value", outputs={"Out": [var]},
                    attrs={"shape": list(array.shape), "dtype": int(tensor.dtype),
                           key: array.reshape(-1).tolist()})
    return var


EAGER_PROGRAM = EagerProgram()
register_eager_program(EAGER_PROGRAM, capture, new_tensor)
