"""The C backend: the ops-handler printer for C and the kernel and plan-module renderers."""
from __future__ import annotations

import math
from pathlib import Path

import jinja2
import numpy as np

from .expr import Node, reachable
from .kernel import KernelSpec

_ENV = jinja2.Environment(loader=jinja2.FileSystemLoader(Path(__file__).parent / "templates" / "c"),
                          undefined=jinja2.StrictUndefined, keep_trailing_newline=True)

C_TYPES = {
    "float32": "float", "float64": "double", "int8": "int8_t", "int16": "int16_t",
    "int32": "int32_t", "int64": "int64_t", "uint8": "uint8_t", "bool": "uint8_t",
}
# Work above this many elements is split across threads; below it, thread start-up costs more.
PARALLEL_MIN = 1 << 15


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
    suffix = "f" if dtype == np.float32 else ""
    if math.isnan(v):
        return f"(({c_type(dtype)})NAN)"
    if math.isinf(v):
        return f"(({c_type(dtype)}){'-' if v < 0 else ''}INFINITY)"
    return f"({v.hex()}{suffix})"


class CPrinter:
    """Prints expression Nodes as C; every computed node becomes one const local."""

    _UNARY_FN = {"exp": "exp", "log": "log", "sqrt": "sqrt", "tanh": "tanh", "erf": "erf",
                 "floor": "floor"}

    def __init__(self, operand_index: dict[int, str], operand_ref: dict[int, str]) -> None:
        self.index = operand_index   # operand -> C index expression
        self.ref = operand_ref       # operand -> buffer parameter name

    def expr(self, n: Node, name: dict[int, str]) -> str:
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
        if op == "truediv":
            if n.dtype.kind in "iub":
                return f"({a[1]} == 0 ? ({t})0 : ({t})({a[0]} / {a[1]}))"
            return f"({a[0]} / {a[1]})"
        if op == "floordiv":
            if n.dtype.kind in "iu":
                return f"({t})fluidc_floordiv_i64({a[0]}, {a[1]})"
            return f"floor{f}({a[0]} / {a[1]})"
        if op == "mod":
            if n.dtype.kind in "iu":
                return f"({t})fluidc_mod_i64({a[0]}, {a[1]})"
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
        if op == "cast":
            if n.dtype.kind == "b":
                return f"(uint8_t)({a[0]} != 0)"
            return f"({t})({a[0]})"
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


_COMBINE = {
    "sum": ("{acc} + ({T}){v}", "0", "+"),
    "prod": ("{acc} * ({T}){v}", "1", "*"),
    "max": "({v} > {acc} || {v} != {v}) ? ({T}){v} : {acc}",
    "min": "({v} < {acc} || {v} != {v}) ? ({T}){v} : {acc}",
}


def render_kernel(spec: KernelSpec, name: str) -> str:
    """The C function for one kernel: params are its buffers, in spec order."""
    params = [f"{'' if w else 'const '}{c_type(d)} *restrict b{i}"
              for i, (d, w) in enumerate(zip(spec.dtypes, spec.written))]
    loop_vars = [f"i{k}" for k in range(len(spec.loops))]
    index = {}
    for op_i in range(len(spec.operands)):
        terms = [f"{v}*{lp.strides[op_i]}" if lp.strides[op_i] != 1 else v
                 for v, lp in zip(loop_vars, spec.loops) if lp.strides[op_i] != 0]
        index[op_i] = " + ".join(terms) if terms else "0"
    ref = {op_i: f"b{buf}" for op_i, buf in enumerate(spec.operands)}
    printer = CPrinter(index, ref)
    values = [v for _, v in spec.stores] + ([spec.reduce_value] if spec.reduce_value is not None else [])
    body, names = printer.lines(values)
    body += [f"{ref[o]}[{index[o]}] = {names[v.id]};" for o, v in spec.stores]
    big = spec.numel >= PARALLEL_MIN
    loops = [{"var": v, "size": lp.size, "pragma": ""} for v, lp in zip(loop_vars, spec.loops)]
    ctx = {"name": name, "params": params, "body": body, "reduce": spec.combine is not None}
    if spec.combine is None:
        _pointwise_pragmas(loops, big)
        ctx["outer"] = loops
        return _ENV.get_template("kernel.c.j2").render(ctx)
    n_outer = sum(1 for lp in spec.loops if not lp.reduce)
    outer, inner = loops[:n_outer], loops[n_outer:]
    out_dtype = spec.dtypes[spec.operands[spec.reduce_out]]
    acc_dtype = np.dtype(np.float64) if spec.combine in ("sum", "prod") and out_dtype.kind == "f" \
        else out_dtype
    T = c_type(acc_dtype)
    v = names[spec.reduce_value.id]
    rule = _COMBINE[spec.combine]
    if isinstance(rule, tuple):
        combine, init, sym = rule[0].format(acc="acc", v=v, T=T), rule[1], rule[2]
        if inner:
            inner[-1]["pragma"] = f"omp simd reduction({sym}:acc)"
            if not outer and big and len(inner) == 1:
                inner[-1]["pragma"] = f"omp parallel for simd reduction({sym}:acc)"
    else:
        combine = rule.format(acc="acc", v=v, T=T)
        init = _extreme_init(spec.combine, acc_dtype)
    if outer and big:
        outer[0]["pragma"] = "omp parallel for"
    o = spec.reduce_out
    ctx.update(outer=outer, inner=inner, acc_type=T, init=init, combine=combine,
               reduce_store=f"{ref[o]}[{index[o]}] = ({c_type(out_dtype)})acc;")
    return _ENV.get_template("kernel.c.j2").render(ctx)


def _extreme_init(combine: str, dtype: np.dtype) -> str:
    if dtype.kind == "f":
        return f"({c_type(dtype)})({'-' if combine == 'max' else ''}INFINITY)"
    info = np.iinfo(dtype) if dtype.kind in "iu" else np.iinfo(np.uint8)
    return c_literal(info.min if combine == "max" else info.max, dtype)


def _pointwise_pragmas(loops: list[dict], big: bool) -> None:
    if not loops:
        return
    if len(loops) == 1:
        loops[0]["pragma"] = "omp parallel for simd" if big else "omp simd"
        return
    if big:
        loops[0]["pragma"] = "omp parallel for"
    loops[-1]["pragma"] = "omp simd"


def render_module(kernels: list[str], segments: list[dict]) -> str:
    """The whole C translation unit of one plan."""
    return _ENV.get_template("module.c.j2").render(kernels=kernels, segments=segments)
