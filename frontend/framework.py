"""The user-facing language: Program, Block, Variable, Parameter, Operator and the defaults."""
from __future__ import annotations

import contextlib
import copy
import itertools
import sys
from collections import OrderedDict
from typing import Any, Iterator

from . import unique_name
from .dtypes import VarType, convert_dtype, dtype_name
from .callsite import user_callsite
from .errors import FluidcError, OpError, name_op
from .ops import OpDesc, VarInfo, get_op_def, grad_name
from .ops.control_flow import BLOCK_ATTRS
from .ops.registry import EMPTY_VAR, GRAD_SUFFIX
from .ops.var_attrs import attr_slot, slot_attr, var_attrs

_program_serial = itertools.count()


class SeedError(FluidcError, ValueError, TypeError):
    """A random seed that is not an integer (Paddle 3.x raises ValueError, 1.x TypeError)."""


class Variable:
    """A named tensor slot of a Block: shape (-1 for dims fixed by the feed), dtype, LoD level."""

    _made = False  # an op writes it (Block._infer)
    grad_asked = False

    def __init__(self, block: "Block", name: str, shape=None, dtype=None, lod_level: int = 0,
                 persistable: bool = False, stop_gradient: bool = False,
                 type: VarType = VarType.LOD_TENSOR, need_check_feed: bool = False,
                 is_data: bool = False, **_: Any) -> None:
        self.block = block
        self.name = name
        self.shape = tuple(int(d) for d in shape) if shape is not None else ()
        self.dtype = convert_dtype(dtype) if dtype is not None else VarType.FP32
        self.lod_level = lod_level
        self.persistable = persistable
        self.stop_gradient = stop_gradient
        self.type = type
        self.need_check_feed = need_check_feed
        self.is_data = is_data

    @property
    def stop_gradient(self) -> bool:
        return self._stop_gradient

    @stop_gradient.setter
    def stop_gradient(self, value) -> None:
        self._stop_gradient = bool(value)
        # Cleared once an op has made the var: the user asks for its grad, which Paddle's
        # append_op (marking a var made from stop_gradient inputs only) would otherwise
        # deny; append_backward then gives it one even if no parameter lies behind it.
        self.grad_asked = not value and self._made

    @property
    def program(self) -> "Program":
        """The program this var belongs to."""
        return self.block.program

    @property
    def grad_name(self) -> str:
        """The name of this var's gradient, as Paddle names it (`name@GRAD`)."""
        return grad_name(self.name)

    def info(self) -> VarInfo:
        """What shape inference sees of this var."""
        return VarInfo(self.shape, self.dtype, self.lod_level)

    @property
    def desc(self) -> "VarDesc":
        """The var's description as Paddle's VarDesc reads and sets it."""
        return VarDesc(self)

    def _desc_line(self) -> str:
        kind = "persist " if self.persistable else ""
        if isinstance(self, Parameter):
            kind += "trainable param " if self.trainable else "param "
        if self.type != VarType.LOD_TENSOR:
            return f"{kind}var {self.name} : {self.type.name}"
        return (f"{kind}var {self.name} : LOD_TENSOR.shape{self.shape}.dtype({dtype_name(self.dtype)})"
                f".stop_gradient({self.stop_gradient})")

    def __str__(self) -> str:
        return self._desc_line()

    __repr__ = __str__

    # Operators (x + y, x @ w) and tensor methods (x.reshape) are installed by
    # layers.math_op_patch.monkey_patch_variable(), as Paddle patches its Variable.

    # Python values of a static var: truthy (Python's default) and no float/int, except that
    # user code tracing a paddle.jit.to_static forward gets its program's error naming the line.
    def __bool__(self) -> bool:
        return self._python_value("bool", sys._getframe(1))

    def __float__(self) -> float:
        return self._python_value("float", sys._getframe(1))

    def __int__(self) -> int:
        return self._python_value("int", sys._getframe(1))

    def __iter__(self):
        """Its rows self[0], self[1], ... for a known first dim; an unknown one (-1) has no
        Python length, so the loop is refused instead of running forever."""
        if not self.shape:
            raise TypeError(f"iteration over a 0-D tensor '{self.name}'")
        if self.shape[0] < 0:
            self._python_value("iter", sys._getframe(1))
        return (self[i] for i in range(self.shape[0]))

    def _python_value(self, what: str, caller):
        refuse = getattr(self.block.program, "refuse_python_value", None)
        if refuse is not None:
            refuse(self, what, caller)
        if what == "bool":
            return True
        raise TypeError(f"{what}() of static var '{self.name}': its value exists only when the "
                        f"program runs (fetch it with Executor.run)")


class VarDesc:
    """Paddle's VarDesc calls (var.desc.set_need_check_feed(False), ...) over a Variable;
    every change is a change of the program (its plans are rebuilt)."""

    def __init__(self, var: Variable) -> None:
        self._var = var

    def _set(self, field: str, value) -> None:
        setattr(self._var, field, value)
        self._var.block.program._bump()

    def name(self) -> str:
        return self._var.name

    def shape(self) -> list[int]:
        return list(self._var.shape)

    def set_shape(self, shape) -> None:
        self._set("shape", tuple(int(d) for d in shape))

    def dtype(self) -> VarType:
        return self._var.dtype

    def set_dtype(self, dtype) -> None:
        self._set("dtype", convert_dtype(dtype))

    def type(self) -> VarType:
        return self._var.type

    def lod_level(self) -> int:
        return self._var.lod_level

    def persistable(self) -> bool:
        return self._var.persistable

    def set_persistable(self, value: bool) -> None:
        self._set("persistable", bool(value))

    def need_check_feed(self) -> bool:
        return self._var.need_check_feed

    def set_need_check_feed(self, value: bool) -> None:
        self._set("need_check_feed", bool(value))

    def stop_gradient(self) -> bool:
        return self._var.stop_gradient

    def set_stop_gradient(self, value: bool) -> None:
        self._set("stop_gradient", bool(value))


class Parameter(Variable):
    """A persistable, trainable var created by a layer, initialized by the startup program."""

    def __init__(self, block: "Block", name: str, shape, dtype, trainable: bool = True,
                 optimize_attr: dict | None = None, regularizer=None, initializer=None,
                 need_clip: bool = True, do_model_average=None, is_distributed: bool = False,
                 **kwargs: Any) -> None:
        kwargs.setdefault("persistable", True)
        super().__init__(block, name, shape, dtype, **kwargs)
        self.trainable = trainable
        self.stop_gradient = not trainable
        self.optimize_attr = optimize_attr or {"learning_rate": 1.0}
        self.regularizer = regularizer
        self.initializer = initializer
        self.need_clip = need_clip  # False: gradient clipping leaves this one's gradient alone
        # Paddle's ParamAttr flags: moving averages read do_model_average
        self.do_model_average, self.is_distributed = do_model_average, is_distributed


class Operator:
    """An op appended to a Block: its desc, checked against the op's definition."""

    def __init__(self, block: "Block", desc: OpDesc) -> None:
        self.block = block
        self.desc = desc

    @property
    def type(self) -> str:
        return self.desc.type

    def input(self, slot: str) -> list[str]:
        """Var names bound to an input slot."""
        return self.desc.input(slot)

    def output(self, slot: str) -> list[str]:
        """Var names bound to an output slot."""
        return self.desc.output(slot)

    def attr(self, name: str) -> Any:
        """An attribute's value."""
        return self.desc.attrs[name]

    def has_attr(self, name: str) -> bool:
        return name in self.desc.attrs

    def _is_optimize_op(self) -> bool:
        """Whether the op updates parameters (an optimizer appended it)."""
        return bool(int(self.desc.attrs.get("op_role", 0)) & OpRole.Optimize)

    def _is_backward_op(self) -> bool:
        return bool(int(self.desc.attrs.get("op_role", 0)) & OpRole.Backward)

    def _set_attr(self, name: str, value: Any) -> None:
        self.desc.attrs[name] = value
        self.block.program._bump()

    @property
    def attr_names(self) -> list[str]:
        return sorted(self.desc.attrs)

    @property
    def input_names(self) -> list[str]:
        return list(self.desc.inputs)

    @property
    def output_names(self) -> list[str]:
        return list(self.desc.outputs)

    @property
    def input_arg_names(self) -> list[str]:
        return self.desc.input_arg_names

    @property
    def output_arg_names(self) -> list[str]:
        return self.desc.output_arg_names

    def __str__(self) -> str:
        outs = ", ".join(f"{k}={v}" for k, v in self.desc.outputs.items())
        ins = ", ".join(f"{k}={v}" for k, v in self.desc.inputs.items() if slot_attr(k) is None)
        shown = {k: _attr_str(v) for k, v in self.desc.attrs.items()}
        for k, (many, names) in var_attrs(self.desc.inputs).items():  # as Paddle prints them
            shown[k] = f"Vars[{','.join(repr(n) for n in names)}]" if many else f"Var[{names[0]!r}]"
        attrs = ", ".join(f"{k} = {v}" for k, v in sorted(shown.items()) if not k.startswith("op_"))
        return f"{{{outs}}} = {self.type}(inputs={{{ins}}}{', ' if attrs else ''}{attrs})"

    __repr__ = __str__


def _bind_var_attrs(opdef, attrs: dict) -> tuple[dict, dict]:
    """(attrs less those given as vars, {slot: vars}): a Variable is an attribute of type VAR,
    a list of Variables one of type VARS, bound through the op's slots for them
    (ops/var_attrs.py); an op without such a slot for the attribute is an OpError."""
    plain, bound = {}, {}
    for name, value in attrs.items():
        many = isinstance(value, (list, tuple)) and any(isinstance(v, Variable) for v in value)
        if not many and not isinstance(value, Variable):
            plain[name] = value
            continue
        slot = attr_slot(name, many)
        if not any(s.name == slot for s in opdef.inputs):
            raise OpError(f"op '{opdef.type}' attribute {name!r} cannot be given as a "
                          f"variable{'s' if many else ''} ({value!r:.80})")
        if many and not all(isinstance(v, Variable) for v in value):
            raise OpError(f"op '{opdef.type}' attribute {name!r}: a list holding variables "
                          f"must hold only variables, got {value!r:.80}")
        bound[slot] = list(value) if many else [value]
    return plain, bound


def _attr_str(v: Any) -> str:
    return repr(v) if isinstance(v, str) else str(v)


def _to_names(v) -> list[str]:
    if v is None:
        return []
    if isinstance(v, (list, tuple)):
        return [_var_name(x) for x in v]
    return [_var_name(v)]


def _var_name(v) -> str:
    if isinstance(v, str):
        return v
    if isinstance(v, Variable):
        return v.name
    raise TypeError(f"an op's inputs and outputs are Variables (or var names), got "
                    f"{type(v).__name__}; build a var from data with fluid.data or "
                    f"layers.assign")


class Block:
    """An ordered list of ops over a name -> Variable table."""

    def __init__(self, program: "Program", idx: int, parent_idx: int = -1) -> None:
        self.program = program
        self.idx = idx
        self.parent_idx = parent_idx
        # A grad block's forward block (Paddle's forward_block_idx): its vars are seen too.
        self.forward_block_idx = -1
        self.vars: OrderedDict[str, Variable] = OrderedDict()
        self.ops: list[Operator] = []

    def var(self, name: str) -> Variable:
        """The var called `name`, or an error naming it."""
        v = self._find_var_recursive(name)
        if v is None:
            raise FluidcError(f"var '{name}' is not in block {self.idx}")
        return v

    def has_var(self, name: str) -> bool:
        return name in self.vars

    def _find_var_recursive(self, name: str) -> Variable | None:
        """The var in this block, its forward block (a grad block's) or their ancestors."""
        frontier, seen = [self], set()
        while frontier:
            block = frontier.pop(0)
            if block.idx in seen:
                continue
            seen.add(block.idx)
            if name in block.vars:
                return block.vars[name]
            if block.parent_idx >= 0:
                frontier.append(self.program.blocks[block.parent_idx])
            if block.forward_block_idx >= 0:
                frontier.append(self.program.blocks[block.forward_block_idx])
        return None

    def create_var(self, name: str | None = None, **kwargs: Any) -> Variable:
        """A new var (or the existing one of that name, as Paddle returns it)."""
        name = name or unique_name.generate("_generated_var")
        if name in self.vars:
            return self.vars[name]
        v = Variable(self, name, **kwargs)
        self.vars[name] = v
        self.program._bump()
        return v

    def _clone_variable(self, var: Variable, force_persistable: bool = True) -> Variable:
        """var (of another program) declared in this block under its name, shape and dtype;
        persistable unless force_persistable is False (then as var is), as Paddle's."""
        return self.create_var(name=var.name, shape=var.shape, dtype=var.dtype,
                               lod_level=var.lod_level,
                               persistable=force_persistable or var.persistable)

    def create_parameter(self, name: str, shape, dtype, **kwargs: Any) -> Parameter:
        """A new Parameter in this block; with an initializer, its op is appended here too
        unless an op of the global block writes the parameter already (Paddle's rule)."""
        p = Parameter(self, name, shape, dtype, **kwargs)
        self.vars[name] = p
        self.program._bump()
        init = kwargs.get("initializer")
        if init is not None and not any(name in op.desc.output_arg_names
                                        for op in self.program.global_block().ops):
            init(p, self)
        return p

    def all_parameters(self) -> list[Parameter]:
        return [v for v in self.vars.values() if isinstance(v, Parameter)]

    def _make_op(self, type: str, inputs=None, outputs=None, attrs=None) -> Operator:
        opdef = get_op_def(type)
        attrs, bound = _bind_var_attrs(opdef, attrs or {})
        inputs = {**(inputs or {}), **bound}
        ins = {k: _to_names([static_input(self, x) for x in v] if isinstance(v, (list, tuple))
                           else static_input(self, v)) for k, v in (inputs or {}).items()}
        outs = {k: _to_names(v) for k, v in (outputs or {}).items()}
        ins = {k: v for k, v in ins.items() if v and not self._absent_grad(opdef, k, v)}
        outs = {k: v for k, v in outs.items() if v}
        opdef.check_slots(ins, outs)
        desc = OpDesc(type, ins, outs, opdef.as_stored(opdef.complete_attrs(attrs)))
        desc.attrs.setdefault("op_role", _op_role)
        desc.callsite = user_callsite()
        for name in desc.input_arg_names:
            if self._find_var_recursive(name) is None:
                raise OpError(f"op '{type}' reads var '{name}', which block {self.idx} lacks")
        self._infer(desc)
        return Operator(self, desc)

    def _absent_grad(self, opdef, slot: str, names: list[str]) -> bool:
        """Whether input `slot` of a grad op is an output gradient (Out@GRAD) the op may go
        without and that names no var of this block (one made in another Program): Paddle
        appends such an op and, finding no value at run time, takes the gradient as zeros; the
        op here is appended without the slot, which its definition reads as zeros. Any other
        input naming a var the block lacks is refused."""
        return slot.endswith(GRAD_SUFFIX) and \
            any(s.name == slot and s.dispensable for s in opdef.inputs) and \
            all(self._find_var_recursive(n) is None for n in names)

    def _infer(self, desc: OpDesc) -> None:
        """Give the op's output vars the shapes and dtypes its definition infers."""
        opdef = get_op_def(desc.type)
        ins = {k: [self.var(n).info() for n in v] for k, v in desc.inputs.items()}
        try:
            outs = opdef.infer(ins, desc.attrs)
        except FluidcError as e:
            raise name_op(e, desc) from None
        except Exception as e:  # an infer function tripping over odd input is still an op error
            raise OpError(f"op '{desc.type}' cannot infer shapes from inputs "
                          f"{ {k: [i.shape for i in v] for k, v in ins.items()} }: {e}") from e
        for slot, names in desc.outputs.items():
            infos = outs.get(slot, [])
            for i, name in enumerate(names):
                if name == EMPTY_VAR:  # a gradient nobody needs
                    continue
                v = self._find_var_recursive(name)
                if v is None:
                    raise OpError(f"op '{desc.type}' writes var '{name}', which block {self.idx} lacks")
                v._made = True
                if i < len(infos) and not v.persistable and not v.is_data:
                    v.shape, v.dtype = tuple(infos[i].shape), infos[i].dtype
                    v.lod_level = max(v.lod_level, infos[i].lod_level)

    def append_op(self, type: str, inputs=None, outputs=None, attrs=None, **_: Any) -> Operator:
        """Append an op after checking its slots and attributes; output shapes are inferred."""
        op = self._make_op(type, inputs, outputs, attrs)
        self.ops.append(op)
        self.program._bump()
        return op

    def _prepend_op(self, type: str, inputs=None, outputs=None, attrs=None, **_: Any) -> Operator:
        op = self._make_op(type, inputs, outputs, attrs)
        self.ops.insert(0, op)
        self.program._bump()
        return op

    def _insert_op(self, index: int, type: str, inputs=None, outputs=None, attrs=None) -> Operator:
        op = self._make_op(type, inputs, outputs, attrs)
        self.ops.insert(index, op)
        self.program._bump()
        return op

    def _remove_op(self, index: int) -> None:
        del self.ops[index]
        self.program._bump()

    def _remove_var(self, name: str) -> None:
        del self.vars[name]
        self.program._bump()

    def _to_readable_code(self) -> str:
        lines = [f"{{ // block {self.idx}"]
        lines += ["    " + v._desc_line() for v in self.vars.values()]
        lines.append("")
        lines += ["    " + str(op) for op in self.ops]
        lines.append("}")
        return "\n".join(lines)


class Program:
    """A static graph: blocks of vars and ops, built by layers and run by an Executor."""

    def __init__(self) -> None:
        self.blocks = [Block(self, 0)]
        self.current_block_idx = 0
        self._serial = next(_program_serial)
        self._version = 0
        self._seed = 0
        self._appending_grad_times = 0  # backward passes appended so far (names 'grad/' grads)
        self._is_test = False
        self._memory_optimize = None  # what fluid.memory_optimize asked of this program's plans
        self._int_grads = False  # int tensors get gradients too (dygraph's; passes/int_grads.py)

    def _bump(self) -> None:
        self._version += 1

    @property
    def random_seed(self) -> int:
        """The seed of the program's random ops that have none of their own (0: random)."""
        return self._seed

    @random_seed.setter
    def random_seed(self, seed: int) -> None:
        if not isinstance(seed, int) or isinstance(seed, bool):
            raise SeedError(f"Program.random_seed's input seed must be an integer, but received "
                            f"{type(seed)}.")
        self._seed = seed
        self._bump()

    def _create_block(self, parent_idx: int | None = None) -> "Block":
        """A new block, child of parent_idx (default: the current block), made current."""
        parent = self.current_block_idx if parent_idx is None else parent_idx
        self.blocks.append(Block(self, len(self.blocks), parent))
        self.current_block_idx = len(self.blocks) - 1
        self._bump()
        return self.blocks[-1]

    def _rollback(self) -> None:
        """Make the current block's parent current again."""
        self.current_block_idx = self.current_block().parent_idx

    @property
    def fingerprint(self) -> tuple[int, int]:
        """Changes whenever the program does: the executor's plan cache key."""
        return (self._serial, self._version)

    def global_block(self) -> Block:
        return self.blocks[0]

    def block(self, index: int) -> Block:
        return self.blocks[index]

    def current_block(self) -> Block:
        return self.blocks[self.current_block_idx]

    @property
    def num_blocks(self) -> int:
        return len(self.blocks)

    def list_vars(self) -> Iterator[Variable]:
        for b in self.blocks:
            yield from b.vars.values()

    def all_parameters(self) -> list[Parameter]:
        return [p for b in self.blocks for p in b.all_parameters()]

    def clone(self, for_test: bool = False) -> "Program":
        """A copy; for_test drops backward and optimizer ops and sets is_test on the ops that have it."""
        p = Program()
        p._seed = self._seed
        p._appending_grad_times = self._appending_grad_times
        p._memory_optimize = self._memory_optimize
        if hasattr(self, "lr_scheduler"):  # set by an optimizer given an LRScheduler
            p.lr_scheduler = self.lr_scheduler
        p.blocks = []
        pruned = False
        for b in self.blocks:
            nb = Block(p, b.idx, b.parent_idx)
            nb.forward_block_idx = b.forward_block_idx
            for name, v in b.vars.items():
                nv = copy.copy(v)
                nv.block = nb
                nb.vars[name] = nv
            for op in b.ops:
                if for_test and _is_training_op(op):
                    pruned = True
                    continue
                desc = op.desc.copy()
                if for_test and "is_test" in desc.attrs:
                    desc.attrs["is_test"] = True
                nb.ops.append(Operator(nb, desc))
            p.blocks.append(nb)
        if for_test:
            p._is_test = True
            if pruned:
                _drop_unreached_blocks(p)
                _drop_unused_vars(p)
        return p

    def __str__(self) -> str:
        return self.to_string()

    def to_string(self, throw_on_error: bool = False, with_details: bool = False) -> str:
        """The readable listing of every block: vars, then ops."""
        return "\n".join(b._to_readable_code() for b in self.blocks)


def _is_training_op(op: Operator) -> bool:
    role = op.desc.attrs.get("op_role", 0)
    # Paddle's OpRole: Backward = 1, Optimize = 2, Loss = 256 (or-ed with Forward = 0).
    return bool(int(role) & 0x3)


def _drop_unreached_blocks(program: Program) -> None:
    """clone(for_test) keeps the blocks block 0's remaining ops reach through their sub_block
    attrs (the grad blocks of dropped backward ops go), renumbered in order, as Paddle's
    prune_backward does."""
    reached, frontier = {0}, [0]
    while frontier:
        for op in program.blocks[frontier.pop()].ops:
            for attr in BLOCK_ATTRS:
                idx = op.desc.attrs.get(attr)
                if idx is not None and idx not in reached:
                    reached.add(idx)
                    frontier.append(idx)
    new_idx = {old: new for new, old in enumerate(sorted(reached))}
    program.blocks = [b for b in program.blocks if b.idx in reached]
    for b in program.blocks:
        b.idx = new_idx[b.idx]
        b.parent_idx = new_idx.get(b.parent_idx, -1)
        b.forward_block_idx = new_idx.get(b.forward_block_idx, -1)
        for op in b.ops:
            for attr in BLOCK_ATTRS:
                if attr in op.desc.attrs:
                    op.desc.attrs[attr] = new_idx[op.desc.attrs[attr]]


def _drop_unused_vars(program: Program) -> None:
    """clone(for_test) of a program it dropped backward / optimizer ops from keeps only the vars
    the remaining ops use, as Paddle's prune_backward does (gradients, the learning rate,
    regularizer temporaries, and also vars no op ever used)."""
    used = {n for b in program.blocks for op in b.ops
            for n in op.input_arg_names + op.output_arg_names}
    for b in program.blocks:
        for name in [n for n in b.vars if n not in used]:
            del b.vars[name]


class OpRole:
    """Paddle's op roles, recorded on each op so clone(for_test) can drop training ops."""

    Forward = 0
    Backward = 1
    Optimize = 2
    RPC = 4  # the parameter server's send / recv ops (distributed/transpiler.py)
    Loss = 256
    LRSched = 16


_main_program = Program()
_startup_program = Program()


def default_main_program() -> Program:
    """The program layers append to unless a program_guard says otherwise."""
    return _main_program


def default_startup_program() -> Program:
    """The program that initializes parameters, run once before training."""
    return _startup_program


# Dygraph or static (docs/architecture.md, "Dygraph"): enable_static() / disable_static() set
# _mode; left unset, layers run eagerly unless a program_guard is active or the user has started
# the default static program (it holds ops, or vars other than parameters: fluid.data, ...).
_mode: str | None = None
_guard_depth = 0
_eager_program: Program | None = None  # fluidc.dygraph's tracer program, registered on import


def set_mode(mode: str | None) -> None:
    """'static' (enable_static), 'dygraph' (disable_static) or None (decided per layer call)."""
    global _mode
    _mode = mode


def framework_mode() -> str | None:
    return _mode


def in_dygraph_mode() -> bool:
    """Whether layers called now run eagerly (paddle.in_dynamic_mode)."""
    if _mode == "static" or _guard_depth or _eager_program is None:
        return False
    if _mode == "dygraph":
        return True
    block = _main_program.global_block()  # started: ops, or vars other than layers' parameters
    return not (block.ops or any(not isinstance(v, Parameter) for v in block.vars.values()))


def building_program() -> Program:
    """The program layers append to now: the eager tracer's in dygraph mode, else the default."""
    return _eager_program if in_dygraph_mode() else _main_program


def building_startup_program() -> Program:
    """Where parameter initializers go: run at once in dygraph mode, else the startup program."""
    return _eager_program if in_dygraph_mode() else _startup_program


def register_eager_program(program: Program, capture, new_tensor) -> None:
    """fluidc.dygraph's tracer program, how a static block captures an eager tensor, and how an
    array becomes one (DataLoader batches in dygraph mode)."""
    global _eager_program, _capture, eager_tensor
    _eager_program, _capture, eager_tensor = program, capture, new_tensor


_capture = eager_tensor = None


def static_input(block: "Block", value):
    """value, or for an eager tensor (of the tracer's program) used in a static program, the
    constant var that captures its current value there (made on first use)."""
    if getattr(getattr(value, "block", None), "program", None) is not _eager_program \
            or _eager_program is None or block.program is _eager_program:
        return value
    found = block._find_var_recursive(value.name)
    return found if found is not None else _capture(block.program.global_block(), value)


@contextlib.contextmanager
def capture_guard(capture) -> Iterator[None]:
    """Inside, an eager tensor read by a static op becomes `capture(block, tensor)` (a traced
    to_static program's input) instead of a constant of its value."""
    global _capture, _tracing
    old, _capture = _capture, capture
    _tracing += 1
    try:
        yield
    finally:
        _capture = old
        _tracing -= 1


_tracing = 0  # capture_guards entered: a to_static function is being traced


def tracing_to_static() -> bool:
    """Whether layers called now build a traced to_static program, whose values follow
    dygraph's semantics (a while_loop leaves the tensors it started from as they were)."""
    return _tracing > 0


def switch_main_program(program: Program) -> Program:
    global _main_program
    old, _main_program = _main_program, program
    return old


def switch_startup_program(program: Program) -> Program:
    global _startup_program
    old, _startup_program = _startup_program, program
    return old


@contextlib.contextmanager
def program_guard(main_program: Program, startup_program: Program | None = None) -> Iterator[None]:
    """Layers inside append to main_program, and their initializers to startup_program."""
    if not isinstance(main_program, Program):
        raise TypeError(f"program_guard takes a Program, got {type(main_program).__name__}")
    global _guard_depth
    old_main = switch_main_program(main_program)
    old_startup = switch_startup_program(startup_program) if startup_program is not None else None
    _guard_depth += 1
    try:
        yield
    finally:
        _guard_depth -= 1
        switch_main_program(old_main)
        if old_startup is not None:
            switch_startup_program(old_startup)


_op_role = OpRole.Forward


@contextlib.contextmanager
def op_role_guard(role: int) -> Iterator[None]:
    """Ops appended inside are tagged with `role` (backward, optimize)."""
    global _op_role
    old, _op_role = _op_role, role
    try:
        yield
    finally:
        _op_role = old
