"""The C backend: the ops-handler printer for C and the kernel and plan-module renderers."""
from __future__ import annotations

import functools
import math
from pathlib import Path

import jinja2
import numpy as np

from ..frontend.ops.expr import Node, reachable
from ..frontend.ops.handler import LIBM_METHODS
from .dynamic_batch import BATCH
from .kernel import KernelSpec, row_schedule

_ENV = jinja2.Environment(loader=jinja2.FileSystemLoader(Path(__file__).parent / "templates" / "c"),
                          undefined=jinja2.StrictUndefined, keep_trailing_newline=True)

C_TYPES = {
    "float16": "_Float16", "float32": "float", "float64": "double", "int8": "int8_t",
    "int16": "int16_t", "int32": "int32_t", "int64": "int64_t", "uint8": "uint8_t",
    "bool": "uint8_t", "uint16": "uint16_t",  # bfloat16's bits: only casts and copies
}
_F16, _F32, _BF16 = np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.uint16)
# Work above this many elements is split across threads; below it, thread start-up costs more.
PARALLEL_MIN = 1 << 15


@functools.lru_cache(maxsize=None)  # asked per buffer and node: numpy's dtype names are slow
def c_type(dtype) -> str:
    """The C type holding one element of a numpy dtype."""
    name = np.dtype(dtype).name
    if name not in C_TYPES:
        from ..frontend.errors import CompileError
        raise CompileError(f"the C backend has no type for {name}")
    return C_TYPES[name]


def c_literal(value, dtype) -> str:
    """An exact C literal of `value` as `dtype` (hex floats, INFINITY/NAN spelled out)."""
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return "1" if value else "0"
    if dtype.kind in "iu":
        return f"((int64_t){int(value)}LL)" if dtype.itemsize == 8 else str(int(value))
    v = float(np.asarray(value, dtype=dtype))
    suffix = "f" if dtype in (_F16, _F32) else ""
    if math.isnan(v):
        return f"(({c_type(dtype)})NAN)"
    if math.isinf(v):
        return f"(({c_type(dtype)}){'-' if v < 0 else ''}INFINITY)"
    return f"({v.hex()}{suffix})"


class CPrinter:
    """Prints expression Nodes as C; every computed node becomes one const local."""

    _UNARY_FN = {"exp": "exp", "log": "log", "sqrt": "sqrt", "tanh": "tanh", "erf": "erf",
                 "floor": "floor", **{m: m for m in LIBM_METHODS}}

    def __init__(self, operand_index: dict[int, str], operand_ref: dict[int, str]) -> None:
        self.index = operand_index   # operand -> C index expression
        self.ref = operand_ref       # operand -> buffer parameter name

    def expr(self, n: Node, name: dict[int, str]) -> str:
        # float16 values are stored as _Float16 and computed as Paddle's CPU kernels and
        # numpy do: in float32, each node's result rounded to float16 by its _Float16 local.
        # Casts convert directly (double -> half rounds once).
        if n.dtype == _F16 and n.op not in ("load", "constant", "cast"):
            n = Node(n.op, n.args, _F32, n.id)
        a = [name[x.id] if isinstance(x, Node) else x for x in n.args]
        t = c_type(n.dtype)
        f = "f" if n.dtype == np.float32 else ""
        op = n.op
        if op == "load":
            return f"{self.ref[n.args[0]]}[{self.index[n.args[0]]}]"
        if op == "constant":
            return c_literal(n.args[0], n.dtype)
        if op in ("add", "sub", "mul"):
            sym = {"add": "+", "sub": "-", "mul": "*"}[op]
            return f"({t})({a[0]} {sym} {a[1]})"
        # INT_MIN / -1 (and INT_MIN % -1) overflow, which x86 traps (SIGFPE): a divisor of -1
        # negates with wraparound instead, as numpy gives (INT_MIN / -1 == INT_MIN, % -1 == 0).
        # Only division at 32 and 64 bits traps (narrower types promote to int); floordiv and
        # mod run in int64, so only their int64 forms need it.
        if op == "truediv":
            if n.dtype.kind in "iub":
                q = f"({t})({a[0]} / {a[1]})"
                if n.dtype.kind == "i" and n.dtype.itemsize >= 4:
                    q = f"({a[1]} == -1 ? {self._wrapping_neg(a[0], n.dtype)} : {q})"
                return f"({a[1]} == 0 ? ({t})0 : {q})"
            return f"({a[0]} / {a[1]})"
        if op == "floordiv":
            if n.dtype.kind in "iu":
                q = f"({t})fluidc_floordiv_i64({a[0]}, {a[1]})"
                if n.dtype == np.int64:
                    q = f"({a[1]} == -1 ? {self._wrapping_neg(a[0], n.dtype)} : {q})"
                return q
            return f"floor{f}({a[0]} / {a[1]})"
        if op == "mod":
            if n.dtype.kind in "iu":
                r = f"({t})fluidc_mod_i64({a[0]}, {a[1]})"
                return f"({a[1]} == -1 ? ({t})0 : {r})" if n.dtype == np.int64 else r
            r = f"fmod{f}({a[0]}, {a[1]})"
            return f"(({r} != 0 && (({r} < 0) != ({a[1]} < 0))) ? {r} + {a[1]} : {r})"
        if op == "neg":
            return f"({t})(-{a[0]})"
        if op in ("maximum", "minimum"):
            # numpy semantics: a NaN on either side wins.
            cmp = ">" if op == "maximum" else "<"
            return f"(({a[0]} {cmp} {a[1]} || {a[0]} != {a[0]}) ? {a[0]} : {a[1]})"
        if op == "pow":
            if n.dtype.kind in "iu":
                return f"({t})pow((double){a[0]}, (double){a[1]})"
            return f"pow{f}({a[0]}, {a[1]})"
        if op in self._UNARY_FN:
            return f"{self._UNARY_FN[op]}{f}({a[0]})"
        if op == "abs":
            return f"fabs{f}({a[0]})" if n.dtype.kind == "f" else f"({t})({a[0]} < 0 ? -{a[0]} : {a[0]})"
        if op == "sign":
            s = f"({t})(({a[0]} > 0) - ({a[0]} < 0))"
            return f"({a[0]} != {a[0]} ? {a[0]} : {s})" if n.dtype.kind == "f" else s
        if op == "where":
            return f"({a[0]} ? ({t}){a[1]} : ({t}){a[2]})"
        if op in ("lt", "le", "gt", "ge", "eq", "ne"):
            sym = {"lt": "<", "le": "<=", "gt": ">", "ge": ">=", "eq": "==", "ne": "!="}[op]
            return f"(uint8_t)({a[0]} {sym} {a[1]})"
        if op == "logical_and":
            return f"(uint8_t)({a[0]} && {a[1]})"
        if op == "logical_or":
            return f"(uint8_t)({a[0]} || {a[1]})"
        if op == "logical_not":
            return f"(uint8_t)(!{a[0]})"
        if op == "isnan":
            return f"(uint8_t)({a[0]} != {a[0]})"
        if op == "cast":  # bfloat16 through float, as frontend/bfloat16.py (module.c.j2)
            from_bf16 = n.args[0].dtype == _BF16
            x = f"fluidc_bf16_to_f32({a[0]})" if from_bf16 else a[0]
            if n.dtype == _BF16:
                return a[0] if from_bf16 else f"fluidc_f32_to_bf16((float)({x}))"
            if n.dtype.kind == "b":
                return f"(uint8_t)({x} != 0)"
            return f"({t})({x})"
        raise NotImplementedError(f"C printer: handler method '{op}'")

    def lines(self, outputs: list[Node]) -> tuple[list[str], dict[int, str]]:
        """One `const T tN = ...;` per reachable node (constants inlined); node id -> C name."""
        name: dict[int, str] = {}
        out = []
        for n in reachable(outputs):
            text = self.expr(n, name)
            if n.op == "constant":
                name[n.id] = text
            else:
                name[n.id] = f"t{n.id}"
                out.append(f"const {c_type(n.dtype)} t{n.id} = {text};")
        return out, name

    @staticmethod
    def _wrapping_neg(x: str, dtype: np.dtype) -> str:
        """-x in two's complement without signed overflow (so -INT_MIN is INT_MIN)."""
        u = "uint64_t" if dtype.itemsize == 8 else "uint32_t"
        return f"({c_type(dtype)})(({u})0 - ({u}){x})"


# combine -> (C update of acc with value v, the omp reduction operator). max/min reduce without
# NaN checks (vectorizable) while a flag records whether any NaN was seen: numpy's semantics.
_COMBINE = {
    "sum": ("acc + ({T}){v}", "+"),
    "prod": ("acc * ({T}){v}", "*"),
    "max": ("({T}){v} > acc ? ({T}){v} : acc", "max"),
    "min": ("({T}){v} < acc ? ({T}){v} : acc", "min"),
}


def render_kernel(spec: KernelSpec, name: str, orphan: bool = False) -> str:
    """The C function for one kernel: params are its buffers, in spec order.

    Kept dims are the outer loops; each reduce node gets its own pass over the reduced (inner)
    loops, and values over the whole shape are stored in a last inner pass. An `orphan`
    (pointwise) kernel shares out its loop with `omp for nowait`, called in a parallel region.
    """
    params = [f"const int64_t {BATCH}"] + [
        f"{'' if w else 'const '}{c_type(d)} *restrict b{i}"
        for i, (d, w) in enumerate(zip(spec.dtypes, spec.written))]
    loop_vars = [f"i{k}" for k in range(len(spec.loops))]
    index = {}
    for op_i in range(len(spec.operands)):
        terms = [f"{v}*{lp.strides[op_i]}" if lp.strides[op_i] != 1 else v
                 for v, lp in zip(loop_vars, spec.loops) if lp.strides[op_i] != 0]
        index[op_i] = " + ".join(terms) if terms else "0"
    ref = {op_i: f"b{buf}" for op_i, buf in enumerate(spec.operands)}
    inner = [k for k, lp in enumerate(spec.loops) if lp.reduce]
    outer = [k for k, lp in enumerate(spec.loops) if not lp.reduce]
    printer = CPrinter(index, ref)
    big = spec.numel >= PARALLEL_MIN
    sched = row_schedule(spec)
    from .c_columns import column_loop, render_column_blocks  # it builds on this module
    if column_loop(spec, inner, outer) is not None:
        body = render_column_blocks(spec, sched, printer, index, ref, loop_vars, inner, outer,
                                    big)
        return _ENV.get_template("kernel.c.j2").render(name=name, params=params, outer=[],
                                                       body=body)
    levels = sched.levels
    n_reduce = sum(1 for n in sched.order if n.op == "reduce")
    names: dict[int, str] = {}
    for n in sched.order:  # constants, and anything computed from constants alone, are inlined
        if levels[n.id] == "const":
            names[n.id] = f"({printer.expr(n, names)})"
    body: list[str] = []

    # Costly element values several passes need are kept in a per-row scratch array by the
    # first pass and read back by the others (softmax's exp), when a row fits the L1 cache.
    row_len = int(np.prod([spec.loops[k].size for k in inner])) if inner else 0
    cached = {n.id: n for n in sched.order if n.id in sched.multi_pass
              and n.op in _COSTLY and row_len * n.dtype.itemsize <= SCRATCH_BYTES}
    row_strides = [int(np.prod([spec.loops[j].size for j in inner[d + 1:]]))
                   for d in range(len(inner))]
    lin = " + ".join(loop_vars[k] if st == 1 else f"{loop_vars[k]}*{st}"
                     for k, st in zip(inner, row_strides)) or "0"
    slot = _scratch_slots(spec, cached, sched.stores, levels, inner, row_strides)
    slot = {i: f"{ref[o]}[{index[o]}]" for i, o in slot.items()}
    slot.update({i: f"s{i}[{lin}]" for i in cached if i not in slot})
    stored: set[int] = set()

    def element_pass(values: list[Node], finish: list[str], pragma: str | None) -> list[str]:
        """One pass over the inner loops computing `values`; finish lines use {v0}, {v1}, ..."""
        lines, local = element_lines(values, names, levels, printer, rinv, stored,
                                     {i: slot[i] for i in cached})
        stored.update(k for k in cached if k in local)
        lines += [f.format(**{f"v{i}": local[v.id] for i, v in enumerate(values)}) for f in finish]
        out = []
        for depth, k in enumerate(inner):
            if pragma and depth == len(inner) - 1:
                out.append(f"#pragma {pragma}")
            out.append("    " * depth + f"for (int64_t {loop_vars[k]} = 0; {loop_vars[k]} < "
                       f"{spec.loops[k].size}; ++{loop_vars[k]}) {{")
        out += ["    " * len(inner) + x for x in lines]
        out += ["    " * d + "}" for d in range(len(inner) - 1, -1, -1)]
        return out

    for n in cached.values():
        if slot[n.id].startswith(f"s{n.id}["):
            body.append(f"{c_type(n.dtype)} s{n.id}[{row_len}];")
    # Element values divided by a per-row value multiply by its reciprocal, taken once a row.
    rinv: dict[int, str] = {}

    def reciprocal(n: Node) -> None:
        if n.id in sched.recips:
            t = c_type(n.dtype)
            body.append(f"const {t} rinv{n.id} = ({t})1 / {names[n.id]};")
            rinv[n.id] = f"rinv{n.id}"
    for step in sched.steps:
        if isinstance(step, Node):  # a row value, once per row
            text = printer.expr(step, names)
            names[step.id] = f"t{step.id}"
            body.append(f"const {c_type(step.dtype)} t{step.id} = {text};")
            reciprocal(step)
        elif step.reduce is None:  # the last pass: element stores
            finish = [f"{ref[o]}[{index[o]}] = {{v{i}}};" for i, (o, _) in enumerate(step.stores)]
            body += element_pass(step.values, finish, "omp simd")
        else:
            n = step.reduce
            combine, value = n.args
            acc_dtype, init = accumulator(combine, n.dtype)
            T = c_type(acc_dtype)
            update, omp_op = _COMBINE[combine]
            nan_check = combine in ("max", "min") and acc_dtype.kind == "f"
            clauses = f"reduction({omp_op}:acc)" + (" reduction(|:nan)" if nan_check else "")
            whole = not outer and big and n_reduce == 1 and len(inner) == 1
            pragma = f"omp {'parallel for ' if whole else ''}simd {clauses}"
            finish = [f"acc = {update.format(T=T, v='{v0}')};"]
            if nan_check:
                finish.append("nan |= ({v0} != {v0});")
            names[n.id] = f"red{n.id}"
            body.append(f"{c_type(n.dtype)} red{n.id};")
            body.append("{")
            body.append(f"    {T} acc = {init};")
            if nan_check:
                body.append("    int nan = 0;")
            body += ["    " + x for x in element_pass([value], finish, pragma)]
            result = f"(nan ? ({T})NAN : acc)" if nan_check else "acc"
            body.append(f"    red{n.id} = ({c_type(n.dtype)}){result};")
            body.append("}")
            reciprocal(n)
    for o, v in sched.row_stores:
        value = names[v.id] if v.id in names else printer.expr(v, names)
        body.append(f"{ref[o]}[{index[o]}] = {value};")
    loops = [{"var": loop_vars[k], "size": spec.loops[k].size, "pragma": ""} for k in outer]
    if orphan:
        assert not inner, "only pointwise kernels run concurrently"
        if len(loops) == 1:
            loops[0]["pragma"] = "omp for simd nowait"
        elif loops:
            loops[0]["pragma"], loops[-1]["pragma"] = "omp for nowait", "omp simd"
        else:  # a single element: one thread writes it
            body = ["#pragma omp single nowait", "{", *body, "}"]
    elif loops:
        if big:
            loops[0]["pragma"] = "omp parallel for"
        if not inner:
            loops[-1]["pragma"] = "omp parallel for simd" if big and len(loops) == 1 else \
                (loops[-1]["pragma"] or "omp simd")
    return _ENV.get_template("kernel.c.j2").render(name=name, params=params, outer=loops, body=body)


def _scratch_slots(spec: KernelSpec, cached: dict, stores: list, levels: dict,
                   inner: list[int], row_strides: list[int]) -> dict[int, int]:
    """Cached values that can wait in an output's row instead of a scratch array: the output
    is stored in the last pass (which overwrites it), has the value's dtype, walks the row as
    the scratch would, and its buffer is read nowhere in the kernel. Measured about 10% faster
    for softmax: the output's lines are then in cache when the last pass writes them."""
    read = {spec.operands[n.args[0]] for n in spec.builder.nodes if n.op == "load"}
    out: dict[int, int] = {}
    for o, v in stores:
        buf = spec.operands[o]
        if levels[v.id] != "elem" or buf in read or o in out.values():
            continue
        if any(spec.loops[k].strides[o] != st for k, st in zip(inner, row_strides)):
            continue
        home = next((i for i, n in cached.items() if i not in out
                     and n.dtype == spec.dtypes[buf]), None)
        if home is not None:
            out[home] = o
    return out


def accumulator(combine: str, dtype: np.dtype) -> tuple[np.dtype, str]:
    """The dtype a reduction accumulates in (double for float sums and products) and the C
    of its initial value."""
    acc = np.dtype(np.float64) if combine in ("sum", "prod") and dtype.kind == "f" else dtype
    return acc, {"sum": "0", "prod": "1"}.get(combine) or _extreme_init(combine, acc)


def element_lines(values: list[Node], names: dict[int, str], levels: dict[int, str],
                  printer: CPrinter, rinv: dict[int, str], stored: set[int] = frozenset(),
                  slot: dict[int, str] | None = None) -> tuple[list[str], dict[int, str]]:
    """The lines of one pass's body computing the element values `values` need: node id ->
    C name, given `names` (row values and constants). A division by a row value with a
    reciprocal (`rinv`: node id -> its C) multiplies by it; values in `slot` (scratch) are
    read from there once `stored`, else written there when computed."""
    lines, local, slot = [], dict(names), slot or {}
    for n in _reachable_until(values, set(stored) | names.keys()):
        if levels[n.id] == "elem" and n.id not in local:
            if n.id in stored:
                text = slot[n.id]
            elif n.op == "truediv" and n.args[1].id in rinv:
                text = f"({local[n.args[0].id]} * {rinv[n.args[1].id]})"
            else:
                text = printer.expr(n, local)
            local[n.id] = f"t{n.id}"
            lines.append(f"const {c_type(n.dtype)} t{n.id} = {text};")
            if n.id in slot and n.id not in stored:
                lines.append(f"{slot[n.id]} = t{n.id};")
    return lines, local


_COSTLY = {"exp", "log", "tanh", "erf", "pow", "sqrt"}
SCRATCH_BYTES = 32 * 1024  # per cached value and row: stays in L1 between the passes


def _reachable_until(values: list[Node], stop: set[int]) -> list[Node]:
    """reachable(values), not looking past nodes in `stop` (values already in scratch)."""
    seen: set[int] = set()
    order: list[Node] = []

    def visit(n: Node) -> None:
        if n.id in seen:
            return
        seen.add(n.id)
        if n.id not in stop:
            for a in n.args:
                if isinstance(a, Node):
                    visit(a)
        order.append(n)

    for v in values:
        visit(v)
    return order


def _extreme_init(combine: str, dtype: np.dtype) -> str:
    if dtype.kind == "f":
        return f"({c_type(dtype)})({'-' if combine == 'max' else ''}INFINITY)"
    info = np.iinfo(dtype) if dtype.kind in "iu" else np.iinfo(np.uint8)
    return c_literal(info.min if combine == "max" else info.max, dtype)


def render_module(kernels: list[str], segments: list[dict], gemm_helpers: list[str]) -> str:
    """The whole C translation unit of one plan."""
    return _ENV.get_template("module.c.j2").render(kernels=kernels, segments=segments,
                                                   gemm_helpers=gemm_helpers)
