"""The op registry: each op type defined once, under its Paddle name, slots and attributes."""
from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from ..dtypes import VarType
from ..errors import OpError, did_you_mean
from .paddle_attrs import INERT_ANY_OP, decisions

GRAD_SUFFIX = "@GRAD"
# Attributes Paddle's framework puts on any op (roles, call stacks, kernel choices), with a value
# of their type: every op accepts them, none changes what an op computes.
FRAMEWORK_TYPES = {"op_role": 0, "op_role_var": [""], "op_namescope": "", "op_callstack": [""],
                   "op_device": "", "with_quant_attr": False, "use_mkldnn": False,
                   "use_cudnn": False, "mkldnn_data_type": "", "use_quantizer": False,
                   "is_test_attr": False, "name": "",
                   "use_onednn": False, "onednn_data_type": ""}  # Paddle 3.x's mkldnn names
FRAMEWORK_ATTRS = frozenset(FRAMEWORK_TYPES)
EMPTY_VAR = "@EMPTY@"
LOD_ATTR = "__lod__"  # set on lowered copies of LoD-reading ops, never in a Program


def grad_name(name: str) -> str:
    """The gradient var of `name`, as Paddle names it."""
    return name + GRAD_SUFFIX


def _arg_names(slots: dict[str, list[str]]) -> list[str]:
    """The var names of slots, in order, without EMPTY_VAR (called often: lists joined in C)."""
    out = sum(slots.values(), [])
    return out if EMPTY_VAR not in out else [n for n in out if n != EMPTY_VAR]


@dataclass
class OpDesc:
    """An op's identity: its type and its slot -> var-name lists and attributes."""

    type: str
    inputs: dict[str, list[str]] = field(default_factory=dict)
    outputs: dict[str, list[str]] = field(default_factory=dict)
    attrs: dict[str, Any] = field(default_factory=dict)
    # Where the user's code made the op ("fc() at train.py:12"; Paddle's op_callstack, kept out
    # of attrs so it never reaches files or kernel-cache keys); errors about the op quote it.
    callsite: str | None = field(default=None, compare=False, repr=False)
    # The op a lowered op came from (softmax for its reduce_max, ...): kernel names use it.
    origin: str | None = field(default=None, compare=False, repr=False)

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
        return _arg_names(self.inputs)

    @property
    def output_arg_names(self) -> list[str]:
        """Every output var name, slot by slot."""
        return _arg_names(self.outputs)

    def copy(self) -> "OpDesc":
        """A deep copy (lists and attrs are not shared)."""
        return copy.deepcopy(self)


class Unkeyed(Exception):
    """A value of a kind attr_key does not know."""


def attr_key(value):
    """An attribute value as an exact, hashable key: typed, since True == 1 and -0.0 == 0.0
    as values. Lists, tuples, strings, ints, bools, floats, None; else Unkeyed."""
    t = type(value)
    if t is float:
        return ("float", repr(value))
    if t in (int, bool, str) or value is None:
        return (t.__name__, value)
    if t in (list, tuple):
        return (t.__name__, *map(attr_key, value))
    raise Unkeyed(t.__name__)


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


@dataclass(frozen=True)
class IndexBound:
    """An index input's values must lie in [lower, upper) (no upper bound if None) or equal
    `allowed` (an ignore_index, a padding id)."""

    lower: int
    upper: int | None = None
    allowed: int | None = None


InferFn = Callable[[dict[str, list[VarInfo]], dict[str, Any]], dict[str, list[VarInfo]]]


@dataclass
class OpDef:
    """Everything fluidc knows of one op type.

    kind: 'pointwise' (expr over an ops handler), 'reduction' (combine over axes with a pointwise
    prologue), 'extern' (a library call: run), 'composite' (lower rewrites it into other ops),
    'array' (over tensor arrays, run on the host by the reference executor: reference(ins,
    attrs, outs) also gets the current values of its outputs, which it may update in place), or
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
    # Has an effect beyond its outputs (print writes to stdout): a run keeps it whether or not
    # anything reads its outputs, and it is never folded, deduplicated or dropped.
    side_effect: bool = False
    # Ops that read LoD (sequence ops): lod(in_lods, attrs, in_infos) -> {output slot: [LoD or
    # None]}, LoDs as tuples of offset levels; the pipeline lowers such ops with their inputs'
    # LoD per slot in attrs[LOD_ATTR].
    lod: Callable | None = None
    # Any other op's outputs share the LoD of the first var of this input slot (Paddle's
    # InferShape ShareLoD(slot, output)); None: the first declared input slot.
    lod_from: str | None = None
    # Ops that read indices: indices(in_shapes, attrs) -> {input slot: IndexBound}, given each
    # input slot's shapes; every run checks the values (passes/index_checks.py).
    indices: Callable | None = None
    # Ops taking a shape from the values of small int inputs (reshape2's Shape, ShapeTensor):
    # those slots, and fold(attrs, {slot: [int arrays]}) -> attrs with the values in. The
    # pipeline folds fed or constant values in before shape inference (passes/shape_inputs.py).
    shape_inputs: tuple[str, ...] = ()
    fold: Callable | None = None
    # Output slots whose var the op updates in place (write_to_array's Out): it reads the var's
    # value before it too, so dataflow graphs link the two versions.
    updates: tuple[str, ...] = ()
    # Input slots Paddle's kernel reads only when their var holds a value (shuffle_batch's
    # Seed, its layer's fresh var): bound to a var nothing has set, they are dropped and the op
    # takes its fallback (passes/empty_inputs.py).
    empty_inputs: tuple[str, ...] = ()

    def lod_input(self, op: "OpDesc") -> str | None:
        """The input var whose LoD op's outputs share (ops without a `lod` rule), if op has it."""
        slot = self.lod_from or (self.inputs[0].name if self.inputs else None)
        return next(iter(op.inputs.get(slot) or ()), None)

    def slot(self, name: str, output: bool = False) -> Slot:
        """The named slot, or an OpError naming the op."""
        for s in self.outputs if output else self.inputs:
            if s.name == name:
                return s
        side = "output" if output else "input"
        names = [s.name for s in (self.outputs if output else self.inputs)]
        raise OpError(f"op '{self.type}' has no {side} slot '{name}'; its {side}s are {names}")

    @property
    def inert(self) -> dict[str, Any]:
        """Paddle's attributes of this op that change nothing fluidc computes, with defaults."""
        return {**INERT_ANY_OP, **decisions(self.type).inert}

    @property
    def unsupported(self) -> dict[str, Any]:
        """Paddle's attributes of this op fluidc does not implement: only their default (the
        value here) is accepted."""
        return decisions(self.type).unsupported

    def attr_default(self, name: str):
        """The default of an attribute this op accepts (implemented, inert, unsupported or a
        framework one), which also gives its type; None if the op has no such attribute."""
        for table in (self.attrs, FRAMEWORK_TYPES, self.inert, self.unsupported):
            if name in table:
                return table[name]
        return None

    def complete_attrs(self, attrs: dict[str, Any]) -> dict[str, Any]:
        """attrs with the implemented ones' defaults filled in. An unknown attribute, a value
        not of the type of the attribute's default, or an unsupported attribute holding
        anything but Paddle's default raises an OpError naming op, attribute and value."""
        unsupported = self.unsupported
        for name, value in attrs.items():
            default = self.attr_default(name)
            if default is None and name not in self.attrs:
                raise OpError(f"op '{self.type}' has no attribute {name!r}; "
                              f"its attributes are {sorted(self.attrs)}")
            check_attr_value(self.type, name, value, default)
            if name in unsupported and not same_value(value, unsupported[name]):
                raise OpError(f"op '{self.type}' attribute '{name}' = {value!r:.60}: fluidc does "
                              f"not implement it (only Paddle's default {default!r} is accepted)")
        full = {k: copy.copy(v) for k, v in self.attrs.items()}
        full.update(attrs)
        return full

    def as_stored(self, attrs: dict[str, Any]) -> dict[str, Any]:
        """attrs as Paddle's ProgramDesc stores them, so a program computes with the values
        Paddle's would: its float attributes are float32 (FLOAT, FLOATS), so float64 programs
        see 0.1 as float32(0.1) in Paddle too (and a float64 beyond float32's range as inf:
        ops that take such values read an exact str_value beside it, as fill_constant)."""
        out = dict(attrs)
        with np.errstate(over="ignore"):
            for name, value in attrs.items():
                default = self.attr_default(name)
                if isinstance(default, float) and isinstance(value, (int, float, np.number)) \
                        and not isinstance(value, (bool, np.bool_)):
                    out[name] = float(np.float32(value))
                elif isinstance(default, list) and default and isinstance(default[0], float) \
                        and isinstance(value, (list, tuple)):
                    out[name] = [float(np.float32(v)) for v in value]
        return out

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


def _fits(value, default) -> bool:
    """Whether a Python attribute value has the type of the attribute's default."""
    if isinstance(default, (bool, np.bool_)):
        return isinstance(value, (bool, np.bool_)) or (
            isinstance(value, (int, np.integer)) and value in (0, 1))
    if isinstance(default, (int, np.integer)):
        return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))
    if isinstance(default, (float, np.floating)):
        return isinstance(value, (int, float, np.integer, np.floating)) and \
            not isinstance(value, (bool, np.bool_))
    if isinstance(default, str):
        return isinstance(value, str)
    if isinstance(default, (list, tuple)):
        if not isinstance(value, (list, tuple)):
            return False
        if not default:  # any list of scalars of one kind (complex ones: Paddle's Scalars)
            return all(isinstance(v, (bool, int, float, complex, str, np.generic)) for v in value)
        return all(_fits(v, default[0]) for v in value)
    return True  # None, blocks, nested structures: the op checks them itself


def same_value(value, default) -> bool:
    """Whether an attribute value is `default`: floats as float32 (a file holds them so), bools
    as 0/1, lists item by item."""
    if isinstance(default, (list, tuple)):
        return isinstance(value, (list, tuple)) and len(value) == len(default) and \
            all(same_value(v, d) for v, d in zip(value, default))
    if isinstance(default, float) and isinstance(value, (int, float, np.number)):
        return np.float32(value) == np.float32(default)
    return value == default and isinstance(value, str) == isinstance(default, str)


def check_attr_value(op_type: str, name: str, value, default) -> None:
    """An OpError naming the op and attribute if `value` is not of the type of `default`
    (ints are floats, 0/1 are bools; lists are checked item by item), and for a `shape`
    attribute one whose element count overflows int64."""
    if not _fits(value, default):
        want = type(default).__name__
        if isinstance(default, (list, tuple)) and default:
            want = f"list of {type(default[0]).__name__}"
        raise OpError(f"op '{op_type}' attribute '{name}' must be a {want} (default "
                      f"{default!r:.40}), got {type(value).__name__} {value!r:.60}")
    if name == "shape" and isinstance(value, (list, tuple)) and value:
        numel = 1
        for d in value:
            numel *= max(int(d), 1)
        if numel >= 2 ** 63:
            raise OpError(f"op '{op_type}' attribute 'shape' {list(value)!r:.80} has more "
                          f"elements than int64 can count")


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
        raise OpError(f"unknown op type '{op_type}'{did_you_mean(op_type, _REGISTRY)}") from None


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
