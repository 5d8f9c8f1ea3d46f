"""The Triton backend: the ops-handler printer for Triton and the kernel and module renderers.

Shapes are literals (plans are per feed signature). A pointwise kernel walks the flattened loop
nest in blocks of XBLOCK elements; a reduction kernel takes XBLOCK rows per program and walks
the reduced extent in RBLOCK chunks, or holds a short row whole ("persistent": every element
is loaded once however many reductions the kernel chains, as softmax and layer_norm do).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import jinja2
import numpy as np

from ..frontend.errors import CompileError
from ..frontend.ops.expr import Node, reachable
from .kernel import KernelSpec, Loop, kernel_stores, row_schedule

_ENV = jinja2.Environment(
    loader=jinja2.FileSystemLoader(Path(__file__).parent / "templates" / "triton"),
    undefined=jinja2.StrictUndefined, keep_trailing_newline=True)

TL_TYPES = {"float16": "tl.float16", "float32": "tl.float32", "float64": "tl.float64", "int8": "tl.int8",
            "int16": "tl.int16", "int32": "tl.int32", "int64": "tl.int64", "uint8": "tl.uint8",
            "bool": "tl.int1"}
# Triton's signature spelling of a pointer to each dtype (for ahead-of-time compile checks).
POINTER_TYPES = {"float16": "*fp16", "float32": "*fp32", "float64": "*fp64", "int8": "*i8", "int16": "*i16",
                 "int32": "*i32", "int64": "*i64", "uint8": "*u8", "bool": "*i1"}

POINTWISE_BLOCK = 1024   # elements per program: 8 per thread at 4 warps
TILE = 2048              # elements of a reduction tile (XBLOCK * RBLOCK) held in registers
PERSISTENT_MAX = 4096    # rows up to this long are reduced whole, loaded once
LOOP_BLOCK = 1024        # RBLOCK of longer rows, walked in a loop
COLUMN_XBLOCK = 64       # columns per program when the kept dim is the contiguous one
_INT32_MAX = 2**31 - 1


def tl_type(dtype) -> str:
    """The Triton type of one element of a numpy dtype."""
    name = np.dtype(dtype).name
    if name not in TL_TYPES:
        raise CompileError(f"the Triton backend has no type for {name}")
    return TL_TYPES[name]


def tl_literal(value, dtype) -> str:
    """Python text of `value` as `dtype`, exact (for tl.full)."""
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return "1" if value else "0"
    if dtype.kind in "iu":
        return str(int(value))
    v = float(np.asarray(value, dtype=dtype))
    if math.isnan(v):
        return 'float("nan")'
    if math.isinf(v):
        return f'{"-" if v < 0 else ""}float("inf")'
    return repr(v)  # shortest round-trip text: exact in float64, hence in float32


def tl_constant(value, dtype) -> str:
    """A typed 0-d Triton constant holding exactly `value` as `dtype`."""
    return f"tl.full([], {tl_literal(value, dtype)}, {tl_type(dtype)})"


def next_pow2(n: int) -> int:
    """The smallest power of two >= n (1 for n <= 1): Triton block sizes are powers of two."""
    return 1 if n <= 1 else 1 << (n - 1).bit_length()


_UNARY = {"exp": "tl.exp", "log": "tl.log", "erf": "tl.math.erf", "abs": "tl.abs", "tanh": "_tanh",
          "sin": "tl.sin", "cos": "tl.cos", "log2": "tl.log2", "tan": "_tan", "asin": "_asin",
          "acos": "_acos", "atan": "_atan", "sinh": "_sinh",
          "cosh": "_cosh", "asinh": "_asinh", "acosh": "_acosh", "atanh": "_atanh",
          "log1p": "_log1p", "expm1": "_expm1", "log10": "_log10"}
_ARITH = {"add": "+", "sub": "-", "mul": "*"}
_COMPARE = {"lt": "<", "le": "<=", "gt": ">", "ge": ">=", "eq": "==", "ne": "!="}


class TritonPrinter:
    """Prints expression Nodes as Triton; every computed node becomes one local `tN = ...`."""

    def __init__(self, load: dict[int, str]) -> None:
        self.load = load  # operand -> its tl.load expression

    def expr(self, n: Node, name: dict[int, str]) -> str:
        if n.dtype == np.float16 and n.op not in ("load", "constant", "cast"):
            # float16 computes in float32 (Triton's exp, log, sqrt take no fp16), each node's
            # result rounded to float16, as the C backend and numpy do.
            return f"{self.expr(Node(n.op, n.args, np.dtype(np.float32), n.id), name)}.to(tl.float16)"
        op, T = n.op, tl_type(n.dtype)
        if op == "load":
            return self.load[n.args[0]]
        if op == "constant":
            return tl_constant(n.args[0], n.dtype)

        def arg(i: int, dtype=n.dtype) -> str:
            x = n.args[i]
            return name[x.id] if x.dtype == dtype else f"{name[x.id]}.to({tl_type(dtype)})"

        def cond(i: int) -> str:
            x = n.args[i]
            return name[x.id] if x.dtype.kind == "b" else f"({name[x.id]} != 0)"

        flt, f32 = n.dtype.kind == "f", n.dtype == np.float32
        if op in _ARITH:
            return f"({arg(0)} {_ARITH[op]} {arg(1)})"
        if op == "truediv":
            if not flt:
                return f"_idiv({arg(0)}, {arg(1)})"
            # div_rn: Triton's float32 `/` is an approximate division.
            return f"tl.math.div_rn({arg(0)}, {arg(1)})" if f32 else f"({arg(0)} / {arg(1)})"
        if op == "floordiv":
            if not flt:
                return f"_floordiv({arg(0)}, {arg(1)})"
            q = f"tl.math.div_rn({arg(0)}, {arg(1)})" if f32 else f"{arg(0)} / {arg(1)}"
            return f"tl.floor({q})"
        if op == "mod":
            return f"{'_fmod' if flt else '_mod'}({arg(0)}, {arg(1)})"
        if op == "neg":
            return f"(-{arg(0)})"
        if op in ("maximum", "minimum"):
            return f"_{op[:3]}_nan({arg(0)}, {arg(1)})"
        if op == "pow":
            # In float64: float32 results carry no error of their own, ints are exact to 2**53.
            if n.dtype == np.float64:
                return f"_pow({arg(0)}, {arg(1)})"
            return f"_pow({arg(0, np.float64)}, {arg(1, np.float64)}).to({T})"
        if op == "sqrt":
            return f"tl.sqrt_rn({arg(0)})" if f32 else f"tl.sqrt({arg(0)})"
        if op in _UNARY:
            return f"{_UNARY[op]}({arg(0)})"
        if op == "floor":
            return f"tl.floor({arg(0)})" if flt else arg(0)
        if op == "sign":
            a = arg(0)
            s = f"(({a} > 0).to({T}) - ({a} < 0).to({T}))"
            return f"tl.where({a} != {a}, {a}, {s})" if flt else s
        if op == "where":
            return f"tl.where({cond(0)}, {arg(1)}, {arg(2)})"
        if op in _COMPARE:
            common = np.result_type(*[a.dtype for a in n.args])
            return f"({arg(0, common)} {_COMPARE[op]} {arg(1, common)})"
        if op == "logical_and":
            return f"({cond(0)} & {cond(1)})"
        if op == "logical_or":
            return f"({cond(0)} | {cond(1)})"
        if op == "logical_not":
            a = n.args[0]
            return f"(~{name[a.id]})" if a.dtype.kind == "b" else f"({name[a.id]} == 0)"
        if op == "isnan":
            a = name[n.args[0].id]
            return f"({a} != {a})"
        if op == "cast":
            return cond(0) if n.dtype.kind == "b" else f"{name[n.args[0].id]}.to({T})"
        raise NotImplementedError(f"Triton printer: handler method '{op}'")


@dataclass
class Launch:
    """How a segment launches one kernel: grid, block sizes, warps, and its pointer types."""

    name: str
    grid: int
    meta: dict[str, int]
    num_warps: int
    pointer_types: list[str]

    def call(self, args: list[str]) -> str:
        """The launch statement, with `args` as the kernel's pointer arguments."""
        meta = "".join(f", {k}={v}" for k, v in self.meta.items())
        return f"{self.name}[({self.grid},)]({', '.join(args)}{meta}, num_warps={self.num_warps})"


def _index_lines(var: str, loops: list[Loop], prefix: str) -> tuple[list[str], list[str]]:
    """Split flat index `var` into one index per loop (outermost first): lines and names."""
    if len(loops) == 1:
        return [], [var]
    lines, names = [], []
    for k, lp in enumerate(loops):
        inner = int(np.prod([q.size for q in loops[k + 1:]], dtype=np.int64))
        text = var if inner == 1 else f"({var} // {inner})"
        if k > 0:  # the outermost index needs no wrap: lanes past the end are masked
            text = f"{text} % {lp.size}"
        lines.append(f"{prefix}{k} = {text}")
        names.append(f"{prefix}{k}")
    return lines, names


def _offset(operand: int, loops: list[Loop], idx: list[str]) -> str:
    terms = [v if lp.strides[operand] == 1 else f"{v} * {lp.strides[operand]}"
             for v, lp in zip(idx, loops) if lp.strides[operand] != 0]
    return " + ".join(terms)


def _scalar_load(ref: str, shape: str) -> str:
    # One load, splat to the block: the interpreter mishandles 0-d loaded values in `&`.
    return f"tl.broadcast_to(tl.load({ref}), {shape})"


def _wide(spec: KernelSpec, extra: int) -> bool:
    """Whether index arithmetic can pass int32 (flat index with block overhang, or an offset)."""
    if spec.numel + extra > _INT32_MAX:
        return True
    return any(sum((lp.size - 1) * abs(lp.strides[o]) for lp in spec.loops) > _INT32_MAX
               for o in range(len(spec.operands)))


def render_kernel(spec: KernelSpec, name: str) -> tuple[str, Launch | None]:
    """The @triton.jit function of one kernel (params b0, b1, ... in spec buffer order) and its
    launch; the launch is None when the kernel has no work (a zero-size shape)."""
    params = [f"b{i}" for i in range(len(spec.buffers))]
    pointers = [POINTER_TYPES[np.dtype(d).name] for d in spec.dtypes]
    if any(lp.reduce for lp in spec.loops) or any(
            n.op == "reduce" for n in reachable([v for _, v in kernel_stores(spec)])):
        return _render_reduction(spec, name, params, pointers)
    return _render_pointwise(spec, name, params, pointers)


def _pointwise_body(spec: KernelSpec, prefix: str = "") -> list[str]:
    """Loads, values and stores of a pointwise kernel over flat index `x` (mask `xmask`), its
    buffers named {prefix}b0, {prefix}b1, ..."""
    body, idx = _index_lines("x", spec.loops, "i")
    offsets = {o: _offset(o, spec.loops, idx) for o in range(len(spec.operands))}
    ref = {o: f"{prefix}b{buf}" for o, buf in enumerate(spec.operands)}
    load = {o: f"tl.load({ref[o]} + {off}, mask=xmask)" if off else
            _scalar_load(ref[o], "[XBLOCK]") for o, off in offsets.items()}
    stores = kernel_stores(spec)
    names = _emit(TritonPrinter(load), reachable([v for _, v in stores]), {}, body)
    for o, v in stores:
        body.append(f"tl.store({ref[o]} + {offsets[o] or 'x'}, {names[v.id]}, mask=xmask)")
    return body


def _render_pointwise(spec, name, params, pointers) -> tuple[str, Launch | None]:
    numel = spec.numel
    block = min(next_pow2(numel), POINTWISE_BLOCK)
    src = _ENV.get_template("pointwise.py.j2").render(
        name=name, params=params, numel=numel, body=_pointwise_body(spec),
        wide=_wide(spec, block))
    warps = max(1, min(8, block // 256))  # 8 elements (two 16-byte vectors) per thread
    launch = Launch(name, -(-numel // block), {"XBLOCK": block}, warps, pointers)
    return src, (launch if numel else None)


def render_multi_tensor(specs: list[KernelSpec], name: str) -> tuple[str, Launch | None]:
    """Independent pointwise kernels as one launch: each program works on one part, chosen by
    its id (the multi-tensor form of the optimizer updates of every parameter)."""
    specs = [sp for sp in specs if sp.numel]
    if not specs:
        return "", None
    block = POINTWISE_BLOCK
    params, pointers, parts, first = [], [], [], 0
    for j, sp in enumerate(specs):
        params += [f"p{j}_b{i}" for i in range(len(sp.buffers))]
        pointers += [POINTER_TYPES[np.dtype(d).name] for d in sp.dtypes]
        blocks = -(-sp.numel // block)
        parts.append({"first": first, "end": first + blocks, "numel": sp.numel,
                      "body": _pointwise_body(sp, f"p{j}_")})
        first += blocks
    src = _ENV.get_template("multi_tensor.py.j2").render(
        name=name, params=params, parts=parts, wide=any(_wide(sp, block) for sp in specs))
    return src, Launch(name, first, {"XBLOCK": block}, max(1, min(8, block // 256)), pointers)


def _emit(printer: TritonPrinter, nodes: list[Node], names: dict[int, str],
          lines: list[str]) -> dict[int, str]:
    """Lines computing `nodes` not yet in `names` (constants inlined); returns `names`."""
    for n in nodes:
        if n.id in names:
            continue
        text = printer.expr(n, names)
        if n.op == "constant":
            names[n.id] = text
        else:
            names[n.id] = f"t{n.id}"
            lines.append(f"t{n.id} = {text}")
    return names


# combine -> (loop update of acc with masked value v, the final reduction along axis 1)
_COMBINE = {
    "sum": ("{acc} + {v}", "tl.sum({acc}, 1)"),
    "prod": ("{acc} * {v}", "tl.reduce({acc}, 1, _prod)"),
    "max": ("_max_nan({acc}, {v})", "_rmax({acc})"),
    "min": ("_min_nan({acc}, {v})", "_rmin({acc})"),
}
_INT_FINAL = {"max": "tl.max({acc}, 1)", "min": "tl.min({acc}, 1)"}  # no NaN to look for


def _init(combine: str, dtype: np.dtype):
    """The identity of `combine` in `dtype`: what masked-off lanes contribute."""
    if combine in ("sum", "prod"):
        return 0 if combine == "sum" else 1
    if dtype.kind == "f":
        return -math.inf if combine == "max" else math.inf
    info = np.iinfo(dtype) if dtype.kind in "iu" else np.iinfo(np.uint8)
    return info.min if combine == "max" else info.max


def _reduction_blocks(outer: list[Loop], inner: list[Loop], rows: int, extent: int,
                      n_operands: int) -> tuple[int, int]:
    """(XBLOCK, RBLOCK) of a reduction kernel."""
    ops = range(n_operands)
    # A column reduction (the kept dim is the contiguous one, e.g. a bias gradient) takes many
    # columns per program so loads coalesce along them; otherwise rows are walked along r.
    column = bool(outer) and any(outer[-1].strides[o] == 1 for o in ops) and not (
        inner and any(inner[-1].strides[o] == 1 for o in ops))
    if column:
        xblock = min(next_pow2(rows), COLUMN_XBLOCK)
        return xblock, min(next_pow2(extent), TILE // xblock)
    rblock = next_pow2(extent) if next_pow2(extent) <= PERSISTENT_MAX else LOOP_BLOCK
    return min(next_pow2(rows), max(1, TILE // rblock)), rblock


def _render_reduction(spec, name, params, pointers) -> tuple[str, Launch | None]:
    """Kept dims outside (XBLOCK rows per program), the reduced extent inside: each reduce node
    is a pass over the extent, whole-shape stores a last pass, per-row stores at the end."""
    outer = [lp for lp in spec.loops if not lp.reduce]
    inner = [lp for lp in spec.loops if lp.reduce]
    rows = int(np.prod([lp.size for lp in outer], dtype=np.int64))
    extent = int(np.prod([lp.size for lp in inner], dtype=np.int64))
    n_ops = range(len(spec.operands))
    xblock, rblock = _reduction_blocks(outer, inner, rows, extent, len(spec.operands))
    persistent = extent <= rblock

    body, xidx = _index_lines("x", outer, "xi")
    rlines, ridx = _index_lines("r", inner, "ri")
    xoff = {o: _offset(o, outer, xidx) for o in n_ops}
    roff = {o: _offset(o, inner, ridx) for o in n_ops}
    ref = {o: f"b{buf}" for o, buf in enumerate(spec.operands)}
    sched = row_schedule(spec)
    moves, levels = sched.moves, sched.levels
    load = {}
    for o in n_ops:
        off = " + ".join(t for t in (xoff[o], roff[o]) if t)
        mask = "xmask & rmask" if moves[o] else "xmask"
        load[o] = f"tl.load({ref[o]} + {off}, mask={mask})" if off else \
            _scalar_load(ref[o], "[XBLOCK, 1]")
    printer = TritonPrinter(load)
    wide = _wide(spec, xblock * rblock)
    r = "rbase" if persistent else "roff + rbase"
    header = [f"r = ({r}).to(tl.int64)" if wide else f"r = {r}", f"rmask = r < {extent}"] + rlines
    names: dict[int, str] = {}
    # Constants, and what is computed from constants alone, once at the top.
    _emit(printer, [n for n in sched.order if levels[n.id] == "const"], names, body)
    if persistent:
        body += header

    def elem_pass(values: list[Node], finish: list[str]) -> list[str]:
        """Lines computing `values` over the reduced extent, then `finish` (per chunk)."""
        if persistent:  # one chunk: elementwise values persist across passes, loaded once
            lines = []
            _emit(printer, [n for n in reachable(values) if levels[n.id] == "elem"], names, lines)
            return lines + [f.format(*[names[v.id] for v in values]) for f in finish]
        local = dict(names)
        lines = list(header)
        _emit(printer, [n for n in reachable(values) if levels[n.id] == "elem"], local, lines)
        lines += [f.format(*[local[v.id] for v in values]) for f in finish]
        return [f"for roff in range(0, {extent}, RBLOCK):"] + ["    " + x for x in lines]

    for step in sched.steps:
        if isinstance(step, Node):  # a row value, once per row
            _emit(printer, [step], names, body)
            continue
        if step.reduce is None:  # the last pass: element stores
            if not extent:  # an empty reduced extent: no element to store
                continue
            offs = [" + ".join(t for t in (xoff[o], roff[o]) if t) for o, _ in step.stores]
            body += elem_pass(step.values,
                              [f"tl.store({ref[o]} + {off}, {{{i}}}, mask=xmask & rmask)"
                               for i, ((o, _), off) in enumerate(zip(step.stores, offs))])
            continue
        n = step.reduce
        combine, value = n.args
        acc_dtype = np.dtype(np.float32) if n.dtype == np.float16 else n.dtype
        T = tl_type(acc_dtype)
        init = _init(combine, acc_dtype)
        v = "{0}" if value.dtype == acc_dtype else f"{{0}}.to({T})"
        masked = f"tl.where(xmask & rmask, {v}, {tl_constant(init, acc_dtype)})"
        update, final = _COMBINE[combine]
        if n.dtype.kind != "f":
            final = _INT_FINAL.get(combine, final)
        if persistent:
            body += elem_pass([value], [f"t{n.id} = {final.format(acc=masked)}"])
        else:
            acc = f"acc{n.id}"
            body.append(f"{acc} = tl.full([XBLOCK, RBLOCK], {tl_literal(init, acc_dtype)}, {T})")
            body += elem_pass([value], [f"{acc} = {update.format(acc=acc, v=masked)}"])
            body.append(f"t{n.id} = {final.format(acc=acc)}")
        if n.dtype.kind != "f" or acc_dtype != n.dtype:  # tl.sum widens small integers
            body[-1] += f".to({tl_type(n.dtype)})"
        body[-1] += "[:, None]"
        names[n.id] = f"t{n.id}"
    for o, v in sched.row_stores:
        body.append(f"tl.store({ref[o]} + {xoff[o] or 'x'}, {names[v.id]}, mask=xmask)")
    tile = xblock * rblock
    src = _ENV.get_template("reduction.py.j2").render(
        name=name, params=params, rows=rows, extent=extent, body=body, wide=wide)
    launch = Launch(name, -(-rows // xblock), {"XBLOCK": xblock, "RBLOCK": rblock},
                    max(1, min(8, tile // 512)), pointers)  # 16 elements per thread
    return src, (launch if rows else None)


def render_module(kernels: list[str], segments: list[dict]) -> str:
    """The whole Python module of one plan: helpers, kernels, and one function per segment."""
    return _ENV.get_template("module.py.j2").render(kernels=kernels, segments=segments)
