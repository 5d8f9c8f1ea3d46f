"""C for kernels that reduce dims outside the contiguous one (column reductions: bias grads
[N, C] -> [C], statistics over the batch, softmax over axis 0, the mean/variance/normalize
chain over axis 0): rows outside, a block of columns inside, so every pass of the kernel's row
schedule (codegen/kernel.py) reads each row's contiguous slice of the block once, vectorized,
instead of walking each column at a stride.

Per-column values (a reduction's result, what is computed from it, a reciprocal) are arrays of
the block's width; accumulators too, in the dtype the row printer uses (double for float sums
and products), so both layouts compute the same values in the same order per column."""
from __future__ import annotations

from ..frontend.ops.expr import Node, reachable
from .c import CPrinter, accumulator, c_type, element_lines
from .kernel import KernelSpec, RowSchedule

# Columns per block (per thread at a time). Measured on [8192, 512] float32 statistics (three
# passes), one thread: 16 -> 4.8 ms, 32 -> 3.1, 64 -> 2.2, 128 -> 1.7, 256 -> 2.5+.
COLUMN_BLOCK = 128


def column_loop(spec: KernelSpec, inner: list[int], outer: list[int]) -> int | None:
    """The kept loop to block (the innermost one), when the kernel walks memory along it
    rather than along the reduced loops: every operand moves along it by 0 or 1 elements, and
    one moving by 1 also moves along a reduced loop (the row layout would read it at a
    stride). None otherwise."""
    if not inner or not outer:
        return None
    strides = spec.loops[outer[-1]].strides
    if any(s not in (0, 1) for s in strides.values()):
        return None
    walked = any(s == 1 and any(spec.loops[r].strides[o] for r in inner)
                 for o, s in strides.items())
    return outer[-1] if walked else None


# combine -> update of the accumulator `a` with value v. Float max/min let a NaN win and stay
# (it fails every comparison after; `nan` is the test), vectorizable as a blend.
_UPDATE = {
    "sum": "{a} + ({T}){v}",
    "prod": "{a} * ({T}){v}",
    "max": "(({T}){v} > {a}{nan}) ? ({T}){v} : {a}",
    "min": "(({T}){v} < {a}{nan}) ? ({T}){v} : {a}",
}


def render_column_blocks(spec: KernelSpec, sched: RowSchedule, printer: CPrinter,
                         index: dict[int, str], ref: dict[int, str], loop_vars: list[str],
                         inner: list[int], outer: list[int], parallel: bool) -> list[str]:
    """The kernel body: the kept loops (the last one, the columns, in blocks) and in each
    block the schedule's steps, each pass a walk over the reduced loops with the block's
    columns innermost."""
    k = outer[-1]
    col, size = loop_vars[k], spec.loops[k].size
    width = min(COLUMN_BLOCK, size)
    j = f"{col} - c0"  # a column's place in its block
    levels = sched.levels
    names: dict[int, str] = {}
    for n in sched.order:  # constants, and anything computed from constants alone, are inlined
        if levels[n.id] == "const":
            names[n.id] = f"({printer.expr(n, names)})"
    rinv: dict[int, str] = {}

    def columns(lines: list[str]) -> list[str]:
        return ["#pragma omp simd", f"for (int64_t {col} = c0; {col} < c1; ++{col}) {{",
                *("    " + x for x in lines), "}"]

    def rows(lines: list[str]) -> list[str]:
        """`lines` for each element of the block: the reduced loops outside, columns inside."""
        out = []
        for depth, r in enumerate(inner):
            out.append("    " * depth + f"for (int64_t {loop_vars[r]} = 0; {loop_vars[r]} < "
                       f"{spec.loops[r].size}; ++{loop_vars[r]}) {{")
        out += ["    " * len(inner) + x for x in columns(lines)]
        return out + ["    " * d + "}" for d in range(len(inner) - 1, -1, -1)]

    def per_column(n: Node, text: str) -> tuple[list[str], list[str]]:
        """Declarations and lines keeping `text` as node n's array (and its reciprocal)."""
        t = c_type(n.dtype)
        decl, lines = [f"{t} r{n.id}[{width}];"], [f"r{n.id}[{j}] = {text};"]
        names[n.id] = f"r{n.id}[{j}]"
        if n.id in sched.recips:
            decl.append(f"{t} rinv{n.id}[{width}];")
            lines.append(f"rinv{n.id}[{j}] = ({t})1 / r{n.id}[{j}];")
            rinv[n.id] = f"rinv{n.id}[{j}]"
        return decl, lines

    body: list[str] = []
    row_values: list[str] = []  # lines of consecutive row values: one loop over the columns

    def flush() -> None:
        if row_values:
            body.extend(columns(row_values))
            row_values.clear()

    merged = _stores_in_last_reduction(sched)
    for step in sched.steps:
        if isinstance(step, Node):  # a row value, loads too: read before any store
            decl, lines = per_column(step, printer.expr(step, names))
            body[:0] = decl
            row_values.extend(lines)
            continue
        flush()
        if step.reduce is None:  # the last pass: element stores
            if merged is not None:
                continue
            lines, local = element_lines(step.values, names, levels, printer, rinv)
            lines += [f"{ref[o]}[{index[o]}] = {local[v.id]};" for o, v in step.stores]
            body += rows(lines)
            continue
        n = step.reduce
        combine, value = n.args
        acc_dtype, init = accumulator(combine, n.dtype)
        T = c_type(acc_dtype)
        stores = merged.stores if merged is not None and step is merged.into else []
        lines, local = element_lines([value] + [v for _, v in stores], names, levels, printer,
                                     rinv)
        lines += [f"{ref[o]}[{index[o]}] = {local[v.id]};" for o, v in stores]
        v = local[value.id]
        nan = f" || {v} != {v}" if acc_dtype.kind == "f" else ""
        update = _UPDATE[combine].format(a=f"acc[{j}]", T=T, v=v, nan=nan)
        lines.append(f"acc[{j}] = {update};")
        decl, store = per_column(n, f"({c_type(n.dtype)})acc[{j}]")
        body[:0] = decl
        body += ["{", f"    {T} acc[{width}];",
                 f"    for (int64_t {col} = c0; {col} < c1; ++{col}) acc[{j}] = {init};"]
        body += ["    " + x for x in rows(lines) + columns(store)] + ["}"]
    flush()
    body += columns([f"{ref[o]}[{index[o]}] = "
                     f"{names[v.id] if v.id in names else printer.expr(v, names)};"
                     for o, v in sched.row_stores]) if sched.row_stores else []
    head = []
    kept = [r for r in outer if r != k]
    if parallel:
        head.append("#pragma omp parallel for" + (f" collapse({len(outer)})" if kept else ""))
    head += [f"for (int64_t {loop_vars[r]} = 0; {loop_vars[r]} < {spec.loops[r].size}; "
             f"++{loop_vars[r]})" for r in kept]
    head += [f"for (int64_t c0 = 0; c0 < {size}; c0 += {width}) {{",
             f"    const int64_t c1 = c0 + {width} < {size} ? c0 + {width} : {size};"]
    return head + ["    " + x for x in body] + ["}"]


class _Merged:
    """The element stores of a column kernel's last pass, made in its last reduction pass."""

    def __init__(self, into, stores) -> None:
        self.into, self.stores = into, stores


def _stores_in_last_reduction(sched: RowSchedule) -> _Merged | None:
    """When the element stores read no row value (a bias grad's column sum of the very values
    stored, as gelu_grad's dX), the last reduction pass stores them as it computes them, and
    no pass of their own computes every element again. Each element's reads come before its
    stores in the same iteration and no later pass reads elements, so an in-place output (an
    operand the kernel reads at the same element) is read before it is written, as in the
    pass of their own."""
    last = sched.steps[-1] if sched.steps else None
    if isinstance(last, Node) or last is None or last.reduce is not None:
        return None
    passes = [p for p in sched.steps if not isinstance(p, Node)]
    if len(passes) < 2 or any(sched.levels[n.id] != "elem" and sched.levels[n.id] != "const"
                              for n in reachable(last.values)):
        return None
    return _Merged(passes[-2], last.stores)
