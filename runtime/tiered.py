"""Tiered execution: a new plan runs at once while its C library compiles in the background.

Tier 0 is the compiled plan itself (the same lowered steps, arena, bindings and library calls)
with its generated kernels evaluated by numpy instead (`NumpyModule`, driven through the same
module interface as the C module: new_table / set_slot / segment). It is used only where its
results are the compiled plan's, bit for bit:

- statically, every kernel computes only what numpy rounds as the generated C does: +, -, *, /
  on floats of one dtype, sqrt, abs, floor, sign, neg, maximum/minimum (NaN first, as the C
  prints it), comparisons and where over operands of one dtype, logical ops, isnan, and casts
  other than float -> integer (C leaves out-of-range ones undefined); float sums (C sums floats
  in double). The C is compiled with -std=c11, so gcc contracts no a*b+c into an FMA. Kernels
  with exp/log/tanh/erf/pow (libmvec and numpy differ in the last bits), integer arithmetic
  (C overflow is undefined), products, max/min/prod reductions (signed zeros, order), float16,
  and programs with sub-blocks are not tier 0: their first run waits for the compiler.
- at run time, every float sum is checked to round to one value in every order of summation
  (the vectorized C's and numpy's): the error bound of double accumulation must leave the
  result on one side of every rounding boundary of its dtype, or no partial sum may round at
  all (_exact_sum). When neither holds, the run raises NotExact: the persistables it wrote are
  put back, and the run waits for the compiled plan and is made there.

The switch happens between runs (a run starts on whichever tier is ready), never within one;
random ops draw from one set of generators shared by both tiers.
"""
from __future__ import annotations

import functools
import os
import threading

import numpy as np
from numpy.lib.stride_tricks import as_strided

from ..codegen.kernel import build_spec, row_schedule, segments
from ..frontend.logs import logger
from ..passes.fuse import Concurrent, Extern, Kernel, MatmulKernel
from ..frontend.ops import get_op_def
from ..frontend.ops.expr import reachable

_log = logger("plans")
# Tier 0 is for programs numpy runs quickly: at most this many elements over all kernels.
MAX_ELEMENTS = 1 << 22
_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))
_SAME_DTYPE = {"add", "sub", "mul", "truediv", "neg", "maximum", "minimum", "sqrt", "abs",
               "floor", "sign"}  # float operands of the node's own dtype
_COMPARE = {"lt": np.less, "le": np.less_equal, "gt": np.greater, "ge": np.greater_equal,
            "eq": np.equal, "ne": np.not_equal}
_MANTISSA = {np.dtype(np.float32): 24, np.dtype(np.float64): 53}


class NotTierable(Exception):
    """A kernel whose numpy evaluation may differ from its C."""


class NotExact(Exception):
    """A sum of this run's values whose double accumulation may depend on the order."""


def enabled() -> bool:
    """Tier 0 is on unless FLUIDC_TIERED is 0/false/off."""
    return os.environ.get("FLUIDC_TIERED", "1").strip().lower() not in ("0", "false", "off", "")


# -- kernels evaluated by numpy ------------------------------------------------------------------
def _check(spec) -> None:
    """NotTierable unless every node of the kernel is rounded by numpy as by the C."""
    outs = [v for _, v in spec.stores] + ([spec.reduce_value] if spec.combine else [])
    for n in reachable(outs):
        args = [a for a in n.args if hasattr(a, "dtype")]
        if n.dtype == np.float16 or any(a.dtype == np.float16 for a in args):
            raise NotTierable("float16")
        if n.op in ("load", "constant", "isnan", "logical_and", "logical_or", "logical_not"):
            continue
        if n.op in _SAME_DTYPE:
            if n.dtype not in _FLOATS or any(a.dtype != n.dtype for a in args):
                raise NotTierable(f"{n.op} over {[str(a.dtype) for a in args]}")
        elif n.op in _COMPARE or n.op == "where":
            if len({a.dtype for a in args[-2:]}) != 1:
                raise NotTierable(f"{n.op} over mixed dtypes")
        elif n.op == "cast":
            if n.dtype.kind in "iu" and args[0].dtype.kind == "f":
                raise NotTierable("float -> integer cast")
        elif n.op == "reduce":
            if n.args[0] != "sum" or args[0].dtype not in _FLOATS:
                raise NotTierable(f"{n.args[0]} reduction over {args[0].dtype}")
        else:
            raise NotTierable(n.op)
    if spec.combine and (spec.combine != "sum" or spec.reduce_value.dtype not in _FLOATS):
        raise NotTierable(f"{spec.combine} reduction")


def _exact_sum(v: np.ndarray, axes: tuple, out: np.dtype) -> np.ndarray:
    """The sum over `axes` (kept as size-1 dims) accumulated in double and rounded to `out`, as
    the C computes it in whatever order its vector lanes take; NotExact unless every order
    gives this value. Any order's double sum is within (n - 1) * 2**-53 * sum|x| of the exact
    sum (Higham's bound; a float32 value is exact in double), so numpy's and the C's are within
    twice that of each other: if both ends of that interval round to one value of `out`, so do
    both sums. Else it still holds when no partial sum rounds at all: the values' binary
    exponents and the count fit in 53 bits."""
    wide = v.astype(np.float64)
    total = wide.sum(axis=axes, keepdims=True)
    count = max(1, int(np.prod([v.shape[a] for a in axes])))
    with np.errstate(over="ignore", invalid="ignore"):
        slack = np.abs(wide).sum(axis=axes, keepdims=True) * ((count + 2) * 2.0 ** -51)
        lo, hi = (total - slack).astype(out), (total + slack).astype(out)
    # Rows holding inf or nan come out the same in every order (no finite float32 sum of
    # fewer than 2**900 values overflows a double).
    same = (lo.view(f"u{lo.itemsize}") == hi.view(f"u{hi.itemsize}")) | ~np.isfinite(total)
    if not same.all():
        finite = wide[np.isfinite(wide) & (wide != 0)]
        if finite.size:
            _, exps = np.frexp(finite)
            top = int(exps.max()) + count.bit_length()
            bottom = int(exps.min()) - _MANTISSA[np.dtype(v.dtype)]
            if top - bottom > 53:
                raise NotExact(f"a sum of {count} values, {int((~same).sum())} of its results "
                               f"within rounding error of a rounding boundary")
    return total.astype(out)


def _eval(n, args: list, loads):
    """Node `n` of args' values, rounded as its C expression (CPrinter.expr) rounds it."""
    op = n.op
    if op == "load":
        return loads(n)
    if op == "constant":
        return np.asarray(n.args[0], dtype=n.dtype)
    if op in ("add", "sub", "mul", "truediv"):
        fn = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "truediv": np.divide}[op]
        with np.errstate(all="ignore"):  # IEEE results (inf - inf is NaN), as the C gives them
            return fn(args[0], args[1], dtype=n.dtype)
    if op == "neg":
        return np.negative(args[0])
    if op in ("maximum", "minimum"):
        a, b = args
        first = (a > b) if op == "maximum" else (a < b)
        return np.where(first | (a != a), a, b).astype(n.dtype, copy=False)
    if op == "sqrt":
        return np.sqrt(args[0])
    if op == "abs":
        return np.abs(args[0])
    if op == "floor":
        return np.floor(args[0])
    if op == "sign":
        a = args[0]
        return np.where(a != a, a, (a > 0).astype(n.dtype) - (a < 0).astype(n.dtype))
    if op == "where":
        return np.where(args[0], np.asarray(args[1]).astype(n.dtype, copy=False),
                        np.asarray(args[2]).astype(n.dtype, copy=False))
    if op in _COMPARE:
        return _COMPARE[op](args[0], args[1])
    if op == "logical_and":
        return np.logical_and(args[0], args[1])
    if op == "logical_or":
        return np.logical_or(args[0], args[1])
    if op == "logical_not":
        return np.logical_not(args[0])
    if op == "isnan":
        return np.isnan(args[0])
    if op == "cast":
        a = np.asarray(args[0])
        return (a != 0) if n.dtype.kind == "b" else a.astype(n.dtype)
    raise NotTierable(op)  # _check keeps every other op out


def _run_kernel(spec, table: dict) -> None:
    """One kernel over the tensors of `table` (slot: storage name), as its C computes it."""
    shape = tuple(lp.size for lp in spec.loops)
    reduce_axes = tuple(i for i, lp in enumerate(spec.loops) if lp.reduce)

    def view(operand: int, dtype) -> np.ndarray:
        flat = table[spec.buffers[spec.operands[operand]]].numpy().reshape(-1).view(dtype)
        return as_strided(flat, shape, [lp.strides[operand] * flat.itemsize for lp in spec.loops])

    def loads(n):
        return np.array(view(n.args[0], n.dtype))  # read before any store, as each element is

    values: dict[int, object] = {}
    stores = list(spec.stores)
    outs = [v for _, v in stores]
    if spec.combine:
        outs.append(spec.reduce_value)
    recips = row_schedule(spec).recips if reduce_axes else set()
    for n in reachable(outs):
        args = [values[a.id] if hasattr(a, "id") else a for a in n.args]
        if n.op == "reduce":  # over the whole shape, however few dims the value varies in
            values[n.id] = _exact_sum(np.broadcast_to(args[1], shape), reduce_axes, n.dtype)
        elif n.op == "truediv" and n.args[1].id in recips:  # as the C: times the reciprocal
            values[n.id] = np.multiply(args[0], np.divide(1, args[1], dtype=n.dtype),
                                       dtype=n.dtype)
        else:
            values[n.id] = _eval(n, args, loads)
    if spec.combine:
        value = values[spec.reduce_value.id]
        total = _exact_sum(np.broadcast_to(value, shape), reduce_axes,
                           spec.dtypes[spec.operands[spec.reduce_out]])
        stores.append((spec.reduce_out, None))
        values[None] = total
    for operand, node in stores:
        value = values[node.id if node is not None else None]
        dtype = spec.dtypes[spec.operands[operand]]
        out = view(operand, dtype)
        if reduce_axes and np.ndim(value) and all(np.shape(value)[a] == 1 for a in reduce_axes):
            out = out[tuple(slice(0, 1) if i in reduce_axes else slice(None)
                            for i in range(len(shape)))]
        np.copyto(out, np.broadcast_to(np.asarray(value).astype(dtype, copy=False), out.shape))


def _run_segment(specs: list, table: dict) -> None:
    for spec in specs:
        _run_kernel(spec, table)


class NumpyModule:
    """The C module's interface over numpy: the same schedule of segments and library calls,
    each segment's kernels evaluated by numpy over the bound tensors (slots are storages)."""

    def __init__(self, steps: list, infos: dict, storage, products: bool = False) -> None:
        self.schedule: list = []
        self.segments: dict[str, list] = {}
        elements = 0
        for part in segments(steps):
            if isinstance(part, Extern):
                self.schedule.append(part)
                continue
            specs = []
            for step in part:
                for k in (step.parts if isinstance(step, Concurrent) else [step]):
                    if products and isinstance(k, MatmulKernel):
                        continue
                    if type(k) is not Kernel:
                        raise NotTierable(f"a {type(k).__name__} step")
                    spec = build_spec(k, infos, storage, collapse=False)
                    _check(spec)
                    elements += spec.numel
                    if elements > MAX_ELEMENTS:
                        raise NotTierable(f"over {MAX_ELEMENTS} elements of kernels")
                    specs.append(spec)
            name = f"segment_{len(self.segments)}"
            self.segments[name] = specs
            self.schedule.append(name)
        self.slots = {b: b for specs in self.segments.values() for s in specs for b in s.buffers}

    def new_table(self) -> dict:
        return {}

    @staticmethod
    def set_slot(table: dict, slot: str, tensor) -> None:
        table[slot] = tensor

    def segment(self, name: str, table: dict):
        return functools.partial(_run_segment, self.segments[name], table)


# -- the plan that switches ----------------------------------------------------------------------
class Build:
    """The compiled plan (or library: what compile() returns), made by compile() in a thread
    started at once (the compiler runs while the caller goes on: tier 0's checks, planning the
    plan's arena, or nothing); what the thread hands over. The
    thread holds the build, never a TieredPlan: a plan the executor drops (its program
    collected) goes at once, and its compiled plan when the compiler is done."""

    def __init__(self, compile) -> None:
        self.ready = threading.Event()
        self.plan = None
        self.error: BaseException | None = None

        def work() -> None:
            try:
                self.plan = compile()
            except BaseException as e:  # noqa: BLE001 - raised again by result()
                self.error = e
            finally:
                self.ready.set()

        # Not a daemon: the interpreter waits for the compiler before it finalizes (the library
        # lands in the cache). A daemon thread still in torch code at finalization is unwound
        # through torch's noexcept C++ frames when it asks for the GIL, and the process aborts
        # ("terminate called without an active exception").
        self.thread = threading.Thread(target=work, name="fluidc-compile")
        self.thread.start()

    def result(self):
        """The compiled plan, waiting for it (joined: the thread holds nothing of it after)."""
        self.thread.join()
        if self.error is not None:
            raise self.error
        return self.plan


def numpy_module(lowered, products: bool = False) -> "NumpyModule | None":
    """Tier 0's module for `lowered`, or None where its plan cannot run on tier 0: a library
    call with side effects (a run tier 0 gives up is made again: they would happen twice), or
    a kernel that is not tier 0. products: skip generated products (and their epilogues)
    rather than refuse them (a probe: lower_products)."""
    if any(isinstance(s, Extern) and get_op_def(s.op.type).side_effect for s in lowered.steps):
        return None
    try:
        return NumpyModule(lowered.steps, lowered.infos, lowered.storage, products)
    except NotTierable as e:
        _log.debug("no tier 0 (%s): the first run waits for the compiler", e)
        return None


def lower_products(lower) -> tuple:
    """(lowered, tier 0's NumpyModule or None) for a single-block program; lower(written) ->
    LoweredProgram, written: generate the products over weights the program writes.

    Generated products make training steps faster (bench transformer block, MLP) but have no
    tier-0 form. They are generated where the plan with library products would not run on
    tier 0 anyway (a softmax's exp, gelu's erf, a max reduction...); a plan that would keeps
    its library products and its fast first run. The choice depends on the program (and on
    the products measured faster here, codegen/product_choice.py), not on FLUIDC_TIERED or on
    whether the cache holds the library, so a program's numbers never depend on them.
    The generated plan is lowered first: when its other kernels already rule tier 0 out (as
    they do in the library plan, which holds the same ops), the library plan is not lowered."""
    generated = lower(True)
    if not generated.trained_products:  # the two lowerings are alike
        return generated, numpy_module(generated)
    if numpy_module(generated, products=True) is None:
        return generated, None
    library = lower(False)
    first = numpy_module(library)
    return (library, first) if first is not None else (generated, None)


def tiered_plan(lowered, random_seed: int, module, build: Build,
                first_module: "NumpyModule | None") -> "TieredPlan | None":
    """A plan running tier 0 (over `first_module`, numpy_module(lowered)) until `build`
    (compiling `module`, the plan's C module) is done; None where the first run should just
    wait: tiering is off, the library was built already, or there is no tier 0."""
    from .plan import Plan

    if first_module is None or not enabled() or module.built() or \
            not any(isinstance(s, str) for s in module.schedule):
        return None
    return TieredPlan(Plan(lowered, random_seed, module=first_module), build)


class TieredPlan:
    """Runs on tier 0 (`first`, a Plan over a NumpyModule) until `build` has made the compiled
    plan, then on that. Every run may share it (the executor's pool always hands it out);
    each tier hands out its own instances."""

    def __init__(self, first, build: Build) -> None:
        self.first = first
        self.locks = first.locks
        self.last_lock = None
        self.scope = None
        self.lowered = first.lowered
        written = {n for s in first.lowered.steps
                   for op in ([s.op] if isinstance(s, Extern) else s.ops)
                   for n in op.output_arg_names}
        self._written_state = [n for n in first.lowered.state if n in written]
        self._build = build

    @property
    def ready(self) -> bool:
        """Whether the compiled plan is made (or failed): runs from now on take it."""
        return self._build.ready.is_set()

    def compiled(self):
        """The compiled plan, waiting for it; it draws from tier 0's random streams (nothing
        runs it before this hands it out, so it has made none of its own)."""
        plan = self._build.result()
        plan._generators = self.first._generators
        return plan

    def spawn(self) -> "TieredPlan":
        return self

    def release(self) -> None:
        self.first.release()
        if self._build.plan is not None:
            self._build.plan.release()

    def __getattr__(self, name):  # inspection (module, arena_plan, ...): the compiled plan's
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(self.compiled(), name)

    def run(self, feed, scope, return_numpy: bool = True) -> list:
        from .executor import _run_instance

        if self.ready:
            return _run_instance(self.compiled(), feed, scope, return_numpy)
        saved = self._snapshot(scope)
        try:
            return _run_instance(self.first, feed, scope, return_numpy)
        except NotExact as e:
            _log.debug("tier 0 run not exact (%s): waiting for the compiled plan", e)
            self._restore(scope, saved)
            return _run_instance(self.compiled(), feed, scope, return_numpy)

    def _snapshot(self, scope) -> list:
        """(holder, tensor, copy) of every persistable the plan writes that has a value."""
        out = []
        for n in self._written_state:
            holder = scope.find_var(n)
            t = holder._tensor._t if holder is not None else None
            if t is not None:
                out.append((holder._tensor, t, t.clone()))
        return out

    @staticmethod
    def _restore(scope, saved: list) -> None:
        for holder, t, copy in saved:
            if holder._t is t:
                t.copy_(copy)
            else:
                holder._t = copy
