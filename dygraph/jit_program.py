"""The programs of paddle.jit.to_static (docs/architecture.md, "Dygraph": to_static): InputSpec,
the trace of a Python function into a TracedProgram, and ConcreteProgram, which runs a trace
(or a loaded inference program) on eager tensors and records it as one tape node."""
from __future__ import annotations

import numpy as np

from ..frontend.callsite import _is_fluidc
from ..frontend.dtypes import convert_dtype, dtype_name, to_numpy_dtype
from ..frontend.errors import FluidcError
from ..frontend.framework import Parameter, Program, Variable, capture_guard, program_guard
from ..frontend.ops import VarInfo, get_op_def
from ..passes.value_reads import values_read
from ..frontend.ops.registry import EMPTY_VAR
from . import autograd
from .runner import PROGRAMS, op_key
from .tensor import new_tensor
from .tracer import Node


class InputSpec:
    """paddle.static.InputSpec: the shape (None or -1: any size), dtype and name of an input."""

    def __init__(self, shape, dtype="float32", name=None, stop_gradient: bool = False) -> None:
        if not isinstance(shape, (list, tuple)):
            raise TypeError(f"Type of `shape` in InputSpec should be one of (tuple, list), but "
                            f"received {type(shape).__name__}.")
        dims = []
        for d in shape:
            if d is not None and (not isinstance(d, (int, np.integer)) or d < -1):
                raise ValueError(f"InputSpec shape {list(shape)}: each dim must be None, -1 or "
                                 f"a non-negative int, got {d!r}")
            dims.append(-1 if d is None else int(d))
        self.shape = tuple(dims)
        self.dtype = convert_dtype(dtype)
        self.name = name
        self.stop_gradient = bool(stop_gradient)

    @classmethod
    def from_tensor(cls, tensor, name=None) -> "InputSpec":
        if not isinstance(tensor, Variable):
            raise ValueError(f"Input `tensor` should be a Tensor, but received "
                             f"{type(tensor).__name__}.")
        return cls(tensor.shape, tensor.dtype, name or tensor.name)

    @classmethod
    def from_numpy(cls, ndarray, name=None) -> "InputSpec":
        return cls(ndarray.shape, ndarray.dtype, name)

    def batch(self, batch_size) -> "InputSpec":
        if isinstance(batch_size, (list, tuple)):
            if len(batch_size) != 1:
                raise ValueError(f"Length of batch_size: {batch_size} shall be 1, but received "
                                 f"{len(batch_size)}.")
            batch_size = batch_size[0]
        if not isinstance(batch_size, (int, np.integer)) or isinstance(batch_size, bool):
            raise TypeError(f"type(batch_size) shall be `int`, but received "
                            f"{type(batch_size).__name__}.")
        return InputSpec((int(batch_size),) + self.shape, self.dtype, self.name,
                         self.stop_gradient)

    def unbatch(self) -> "InputSpec":
        if not self.shape:
            raise ValueError("Not support to unbatch a InputSpec when len(shape) == 0.")
        return InputSpec(self.shape[1:], self.dtype, self.name, self.stop_gradient)

    def _key(self) -> tuple:
        return (self.shape, int(self.dtype), self.name, self.stop_gradient)

    def __eq__(self, other) -> bool:
        return isinstance(other, InputSpec) and self._key() == other._key()

    def __hash__(self) -> int:  # Paddle's: shape and dtype (equal specs may differ in name)
        return hash((self.shape, int(self.dtype)))

    def __repr__(self) -> str:
        return (f"InputSpec(shape={self.shape}, dtype=paddle.{dtype_name(self.dtype)}, "
                f"name={self.name}, stop_gradient={self.stop_gradient})")


class TracedValueError(FluidcError, TypeError):
    """Python control flow (if / while / bool() / float()) on a tensor inside a to_static
    trace, whose value the trace does not know."""


class TracedProgram(Program):
    """The program a to_static trace builds; it refuses Python values of its vars to user code
    (library code asking `if var:` means "is given" and gets True)."""

    def refuse_python_value(self, var: Variable, what: str, caller) -> None:
        if _is_fluidc(caller.f_code.co_filename):
            return
        where = f"{caller.f_code.co_filename}:{caller.f_lineno}"
        use = {"bool": "`if` / `while` / bool()",
               "iter": "a Python `for` loop (its first dim is unknown)"}.get(what, f"{what}()")
        raise TracedValueError(
            f"{where}: {use} on tensor '{var.name}' inside a paddle.jit.to_static function: its "
            f"value is unknown while the function is traced into a program, so Python cannot "
            f"choose a branch once for every call. Use paddle.static.nn.cond / "
            f"paddle.static.nn.while_loop (they become control-flow ops), or compute the value "
            f"outside the to_static function.")


# -- nested arguments ---------------------------------------------------------------------------
def _map(obj, fn, leaf=(Variable, InputSpec)):
    """obj with fn applied to each `leaf` (by default each Tensor / Variable / InputSpec) in
    lists, tuples and dicts."""
    if isinstance(obj, leaf):
        return fn(obj)
    if isinstance(obj, (list, tuple)):
        return type(obj)(_map(v, fn, leaf) for v in obj)
    if isinstance(obj, dict):
        return {k: _map(v, fn, leaf) for k, v in obj.items()}
    return obj


def _leaves(obj, leaf=(Variable, InputSpec)) -> list:
    out = []
    _map(obj, lambda v: out.append(v) or v, leaf)
    return out


class ConcreteProgram:
    """One trace: the program, its input var names (one per tensor argument), the eager tensors
    it captured (tensor, var name), its outputs (the returned structure with var names), and
    the captured tensors its ops write (batch_norm's running statistics: tensor, final name)."""

    def __init__(self, program: Program, inputs: list[str], captured: list, outputs,
                 for_run: bool = True) -> None:
        self.main_program = program
        self.inputs = inputs
        self.captured = captured
        self.outputs = outputs
        self.written: list = []
        self._traced_with = self._captured_signature()
        self._single_block = len(program.blocks) == 1
        block = program.global_block()
        if self._single_block and for_run:
            self._to_ssa()
        elif for_run:  # a run writes them in place; the fetch gives their final value
            ops_write = {n for op in block.ops for n in op.desc.output_arg_names}
            self.written = [(t, n) for t, n in self.captured if n in ops_write]
        # plain strs: Executor.run takes a str subclass for a fetch list to prune by
        out_names = [str(n) for n in _leaves_of_names(self.outputs)]
        self._fetch = list(dict.fromkeys(out_names + [n for _, n in self.written]))
        # what a recording call keeps: every value, or with sub-blocks (its backward runs
        # the program again: autograd._rerun) the outputs of its random ops only
        kept = [n for op in block.ops if self._single_block or autograd.draws(op.desc)
                for n in op.desc.output_arg_names if n != EMPTY_VAR]
        self._descs = [op.desc for op in block.ops]
        # values no grad op reads are recorded as shape-only stand-ins, not fetched
        self._stand_ins = _stand_ins(self._descs, block, kept, self._fetch) \
            if self._single_block else {}
        self._fetch_all = [n for n in dict.fromkeys(self._fetch + kept)
                           if n not in self._stand_ins]
        self._op_keys = tuple(op_key(d) for d in self._descs)
        self._made = tuple(dict.fromkeys(n for d in self._descs for vs in d.outputs.values()
                                         for n in vs if n != EMPTY_VAR))
        if not self._single_block:  # op_key sees a sub_block's index, not its ops
            self._op_keys += (("program", program._serial),)

    def _captured_signature(self) -> tuple:
        return tuple((t.stop_gradient, t.value().shape, t.value().dtype)
                     for t, _ in self.captured)

    def stale(self) -> bool:
        """Whether a captured tensor changed its shape, dtype or stop_gradient since the
        trace (the program must be traced again)."""
        return self._captured_signature() != self._traced_with

    @property
    def parameters(self) -> list:
        return [t for t, _ in self.captured if isinstance(t, Parameter)]

    def _to_ssa(self) -> None:
        """Give every write of an already defined var (an in-place op: batch_norm's MeanOut) a
        new var, so each var of the program holds one value (the tape needs one array per
        name); the captured tensors written get their final var."""
        block = self.main_program.global_block()
        defined = set(self.inputs) | {n for _, n in self.captured}
        current: dict[str, str] = {}
        for op in block.ops:
            desc = op.desc
            desc.inputs = {s: [current.get(n, n) for n in vs] for s, vs in desc.inputs.items()}
            outs = {}
            for s, vs in desc.outputs.items():
                outs[s] = []
                for n in vs:
                    if n in defined:
                        v = block.var(n)
                        new = f"{n}@SSA{len(current)}"
                        block.create_var(name=new, shape=v.shape, dtype=v.dtype,
                                         stop_gradient=v.stop_gradient)
                        current[n] = new
                        n = new
                    elif n != EMPTY_VAR:
                        defined.add(n)
                    outs[s].append(n)
            desc.outputs = outs
        self.main_program._bump()
        self.outputs = _map_names(self.outputs, lambda n: _Name(current.get(n, n)))
        self.written = [(t, current[n]) for t, n in self.captured if n in current]

    def run(self, arrays: list[np.ndarray], tensors: list) -> object:
        """The outputs (eager tensors) for the argument tensors' arrays; with gradients wanted,
        the outputs hang on one tape node holding the program's ops."""
        feed = dict(zip(self.inputs, arrays))
        feed.update((n, t.value()) for t, n in self.captured)
        sources = list(zip(self.inputs, tensors)) + [(n, t) for t, n in self.captured]
        record = autograd.grad_enabled() and any(not t.stop_gradient for _, t in sources)
        fetches = self._fetch_all if record else self._fetch
        values = dict(zip(fetches, PROGRAMS.execute(self.main_program, feed, fetches)))
        values = {n: v if type(v) is np.ndarray and v.flags.c_contiguous else
                  np.require(v, requirements="C") for n, v in values.items()}  # 0-d stays
        finals = [(t, values[n]) for t, n in self.written]
        node = None
        if record:  # (with sub-blocks the written vars keep their names: the node, which runs
            values.update(feed)  # the program again, holds their fed values)
            # a new array object per call: the tape knows arrays by id
            values.update((n, a.view()) for n, a in self._stand_ins.items())
            node = Node(self._descs, values, values, {n: (t, t._node) for n, t in sources},
                        self._made,
                        key=self._op_keys, program=None if self._single_block else
                        self.main_program)
        for t, value in finals:
            t._set_array(value)
        block = self.main_program.global_block()

        def out(name):
            stop = (node is None or block.var(name).stop_gradient
                    or values[name].dtype.kind not in "fc")  # ints and bools have no grad
            t = new_tensor(values[name], stop_gradient=stop)
            t._value = values[name]  # the node's array itself (the tape knows arrays by id)
            if not stop:
                t._node = node
            return t
        return _map_names(self.outputs, out)


def _stand_ins(descs: list, block, kept: list[str], fetch: list[str]) -> dict[str, np.ndarray]:
    """{var: stand-in} for the values of a single-block trace that its backward never reads.

    The backward (autograd's tape program) reads a recorded value only where a grad op its
    op's grad maker makes reads it as a value once lowered, or a derivative of that grad op
    does (create_graph): passes/value_reads.py. Other reads are of the shape alone (an
    elementwise_add_grad's X and Y, the zeros of a grad nothing made). So the other values
    need not leave the plan: the views and copies between products (a reshape's input and
    output, a transpose's input), a softmax's input, a product whose bias add's grad reads it
    for its shape stay inside the forward plan, which then aliases and fuses them as a
    static program's (a Linear's bias add fused into the kernel after it). A
    stand-in has the var's shape and dtype and holds NaN in every element (a read-only,
    zero-stride array), so a read the analysis missed would show in the gradients. Only
    float vars of a fully known shape (no -1 dim of an InputSpec) not returned, written to a
    captured tensor or drawn by a random op (whose outputs the backward gets as made).
    A value without elements (a reshape's or transpose's XShape) is its shape alone: an
    empty array of it is that value, read or not (and fetched, it would keep the view op
    that makes it from aliasing: passes/views.py)."""
    def info_of(name: str) -> VarInfo | None:
        v = block._find_var_recursive(name)
        return None if v is None or any(d < 0 for d in v.shape) else v.info()
    read = set()
    for desc in descs:
        grad = get_op_def(desc.type).grad
        try:
            gops = grad(desc) if grad is not None else []
        except FluidcError:  # a grad this form refuses (at backward time): keep its values
            read.update(desc.input_arg_names + desc.output_arg_names)
            continue
        for gop in gops:
            read |= values_read(gop, info_of)
    drawn = {n for d in descs if autograd.draws(d) for n in d.output_arg_names}
    out = {}
    for n in dict.fromkeys(kept):
        v = block.var(n)
        shape = tuple(v.shape)
        if n in fetch or n in drawn or any(d < 0 for d in shape):
            continue
        dtype = np.dtype(to_numpy_dtype(v.dtype))
        if 0 in shape:
            out[n] = np.empty(shape, dtype)
        elif n not in read and dtype.kind == "f":
            out[n] = np.broadcast_to(np.array(np.nan, dtype), shape)
    return out


class _Name(str):
    """An output var name in the returned structure (a str the structure may hold otherwise)."""


def _map_names(obj, fn):
    return _map(obj, fn, _Name)


def _leaves_of_names(obj) -> list:
    return _leaves(obj, _Name)


def trace(function, instance, args, kwargs, specs: list, capture,
          for_run: bool = True) -> ConcreteProgram:
    """Run function(instance?, *args, **kwargs) with each tensor leaf replaced by an input var
    of a new program (shaped by `specs`, one InputSpec per leaf); `capture(block, tensor)`
    makes the var for an eager tensor the body reads."""
    program, startup = TracedProgram(), Program()
    captured: list = []

    def take(block, tensor):
        var = capture(block, tensor)
        captured.append((tensor, var.name))
        return var
    block = program.global_block()

    def data(_leaf):
        spec = specs[len(inputs)]
        if spec.name in inputs:
            raise ValueError(f"two inputs of the to_static function are named '{spec.name}' "
                             f"(InputSpec names must differ)")
        inputs.append(spec.name)
        return block.create_var(name=spec.name, shape=spec.shape, dtype=spec.dtype,
                                is_data=True, need_check_feed=True,
                                stop_gradient=spec.stop_gradient)
    inputs: list[str] = []
    with program_guard(program, startup), capture_guard(take):
        static_args = _map(list(args), data)
        static_kwargs = _map(dict(kwargs), data)
        result = function(*([instance] if instance is not None else []), *static_args,
                          **static_kwargs)
        result = _map(result, lambda v: v if v.block.program is program
                      else block._find_var_recursive(v.name) or take(block, v))
    if startup.global_block().ops:
        raise FluidcError("a paddle.jit.to_static function created parameters while traced "
                          "(a Layer made inside it); create layers in __init__")
    return ConcreteProgram(program, inputs, captured, _map(result, lambda v: _Name(v.name)),
                           for_run)


def run_capture(block, tensor):
    """For running: an eager tensor becomes a plain input var fed with its value."""
    return block.create_var(name=tensor.name, shape=tensor.shape, dtype=tensor.dtype,
                            stop_gradient=tensor.stop_gradient)
