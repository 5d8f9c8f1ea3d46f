"""The op registry: each op type defined once, under its Paddle name, slots and attributes."""
from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from ..dtypes import VarType
from ..errors import OpError

GRAD_SUFFIX = "@GRAD"
# Attributes Paddle's framework puts on any op (roles, call stacks, kernel choices): every op
# accepts them, none changes what an op computes.
FRAMEWORK_ATTRS = frozenset({
    "op_role", "op_role_var", "op_namescope", "op_callstack", "op_device", "with_quant_attr",
    "use_mkldnn", "use_cudnn", "mkldnn_data_type", "use_quantizer", "is_test_attr", "name",
    "use_onednn", "onednn_data_type",  # Paddle 3.x's names for the mkldnn ones
})
EMPTY_VAR = "@EMPTY@"
LOD_ATTR = "__lod__"  # set on lowered copies of LoD-reading ops, never in a Program


def grad_name(name: str) -> str:
    """The gradient var of `name`, as Paddle names it."""
    return name + GRAD_SUFFIX


@dataclass
class OpDesc:
    """An op's identity: its type and its slot -> var-name lists and attributes."""

    type: str
    inputs: dict[str, list[str]] = field(default_factory=dict)
    outputs: dict[str, list[str]] = field(default_factory=dict)
    attrs: dict[str, Any] = field(default_factory=dict)

    def input(self, slot: str) -> list[str]:
        """The var names bound to input `slot` (empty if unbound)."""
        return self.inputs.get(slot, [])

    def output(self, slot: str) -> list[str]:
        """The var names bound to output `slot` (empty if unbound)."""
        return self.outputs.get(slot, [])

    def attr(self, name: str) -> Any:
        """An attribute's value."""
        return self.attrs[name]

    @property
    def input_arg_names(self) -> list[str]:
        """Every input var name, slot by slot."""
        return [n for names in self.inputs.values() for n in names if n != EMPTY_VAR]

    @property
    def output_arg_names(self) -> list[str]:
        """Every output var name, slot by slot."""
        return [n for names in self.outputs.values() for n in names if n != EMPTY_VAR]

    def copy(self) -> "OpDesc":
        """A deep copy (lists and attrs are not shared)."""
        return copy.deepcopy(self)


@dataclass
class VarInfo:
    """What shape inference knows of a var: its shape (-1 for unknown dims), dtype and LoD level."""

    shape: tuple[int, ...]
    dtype: VarType
    lod_level: int = 0


@dataclass(frozen=True)
class Slot:
    """One input or output slot; duplicable slots take a list of vars, dispensable ones may be empty."""

    name: str
    duplicable: bool = False
    dispensable: bool = False


InferFn = Callable[[dict[str, list[VarInfo]], dict[str, Any]], dict[str, list[VarInfo]]]


@dataclass
class OpDef:
    """Everything fluidc knows of one op type.

    kind: 'pointwise' (expr over an ops handler), 'reduction' (combine over axes with a pointwise
    prologue), 'extern' (a library call: run), 'composite' (lower rewrites it into other ops), or
    'feed'/'fetch' (handled by the executor itself).
    """

    type: str
    inputs: tuple[Slot, ...]
    outputs: tuple[Slot, ...]
    attrs: dict[str, Any]
    infer: InferFn
    kind: str
    reference: Callable[[dict[str, list[np.ndarray]], dict[str, Any]], dict[str, list[np.ndarray]]] | None = None
    grad: Callable[[OpDesc], list[OpDesc]] | None = None
    expr: Callable | None = None
    broadcast: Callable | None = None
    combine: str | None = None
    reduce_axes: Callable | None = None
    lower: Callable | None = None
    run: Callable | None = None
    stateful: bool = False  # draws random numbers: never folded or deduplicated
    # Ops that read LoD (sequence ops): lod(in_lods, attrs, in_infos) -> {output slot: [LoD or
    # None]}, LoDs as tuples of offset levels; the pipeline lowers such ops with their inputs'
    # LoD per slot in attrs[LOD_ATTR].
    lod: Callable | None = None

    def slot(self, name: str, output: bool = False) -> Slot:
        """The named slot, or an OpError naming the op."""
        for s in self.outputs if output else self.inputs:
            if s.name == name:
                return s
        side = "output" if output else "input"
        names = [s.name for s in (self.outputs if output else self.inputs)]
        raise OpError(f"op '{self.type}' has no {side} slot '{name}'; its {side}s are {names}")

    def complete_attrs(self, attrs: dict[str, Any]) -> dict[str, Any]:
        """attrs with defaults filled in; an unknown attribute raises an OpError naming it."""
        unknown = [k for k in attrs if k not in self.attrs and k not in FRAMEWORK_ATTRS]
        if unknown:
            raise OpError(f"op '{self.type}' has no attribute {unknown[0]!r}; "
                          f"its attributes are {sorted(self.attrs)}")
        full = {k: copy.copy(v) for k, v in self.attrs.items()}
        full.update(attrs)
        return full

    def check_slots(self, inputs: dict[str, list[str]], outputs: dict[str, list[str]]) -> None:
        """Reject unknown slots and missing required ones, naming the op and the slot."""
        for slots, given, output in ((self.inputs, inputs, False), (self.outputs, outputs, True)):
            for name, names in given.items():
                s = self.slot(name, output)
                if len(names) > 1 and not s.duplicable:
                    raise OpError(f"op '{self.type}' slot '{name}' takes one var, got {names}")
            for s in slots:
                if not s.dispensable and not given.get(s.name):
                    side = "output" if output else "input"
                    raise OpError(f"op '{self.type}' needs its {side} slot '{s.name}'")


_REGISTRY: dict[str, OpDef] = {}


def register(opdef: OpDef) -> OpDef:
    """Add an op definition; defining a type twice is a bug."""
    if opdef.type in _REGISTRY:
        raise OpError(f"op '{opdef.type}' is defined twice")
    _REGISTRY[opdef.type] = opdef
    return opdef


def get_op_def(op_type: str) -> OpDef:
    """The definition of `op_type`, or an OpError naming it."""
    try:
        return _REGISTRY[op_type]
    except KeyError:
        raise OpError(f"unknown op type '{op_type}'") from None


def has_op_def(op_type: str) -> bool:
    """Whether `op_type` is defined."""
    return op_type in _REGISTRY


def all_op_types() -> list[str]:
    """Every defined op type, sorted."""
    return sorted(_REGISTRY)


def slots(*names: str) -> tuple[Slot, ...]:
    """Slots from names; a trailing '*' marks duplicable, a trailing '?' dispensable."""
    out = []
    for n in names:
        dup = n.endswith("*") or n.endswith("*?")
        disp = n.endswith("?")
        out.append(Slot(n.rstrip("*?"), duplicable=dup, dispensable=disp))
    return tuple(out)
