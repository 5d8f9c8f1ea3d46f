"""fuse: group primitive ops into kernels, leaving library calls (extern) as their own steps.

A kernel iterates over one shape S. Without reductions it is a chain of pointwise ops over S.
With row fusion, reductions of S over the same axes A join too: values over the kept shape K
(S with 1 on A) are per-row scalars that later pointwise ops over S or K may use, so softmax
(max, exp, sum, divide) and layer_norm (mean, variance, normalize) are one kernel each.
"""
from __future__ import annotations

import logging
import math
from dataclasses import dataclass, field


from ..frontend.dtypes import to_numpy_dtype
from ..frontend.logs import logger
from ..frontend.ops import OpDesc, VarInfo, get_op_def
from ..frontend.errors import OpError
from ..frontend.ops.define import aligned_shapes, computes_on_complex, value_inputs
from ..frontend.ops.registry import EMPTY_VAR
from .bfloat16 import touches_bfloat16

_log = logger("fusion")
# The most ops one kernel takes. gcc's time on a function grows faster than its size (register
# allocation), and horizontal fusion alone would put every parameter's update of a deep model
# in one kernel (50 layers: 150 ops, 4000 lines, seconds of gcc); kernels of up to this many
# ops of repeated layers render to equal code, which the C module compiles once.
MAX_KERNEL_OPS = 16
# And the most vars one touches: gcc's dependence analysis of a loop grows with the square of
# its memory references. Independent ops joined side by side (the Adam updates of 16
# parameters: 97 pointers) cost 0.26 s of gcc in one kernel; capped here, the 50-block MLP's
# kernel units compile in 0.67-0.74 s wall instead of 0.81-0.95 s. Chains read few vars.
MAX_KERNEL_VARS = 48


@dataclass
class Fused:
    """Ops generated as one function: over `shape`, reducing over `axes`, reading `inputs`,
    writing `outputs` (values used after it, fetched, or persistable)."""

    ops: list[OpDesc]
    shape: tuple[int, ...]
    inputs: list[str] = field(default_factory=list)
    outputs: list[str] = field(default_factory=list)
    axes: tuple[int, ...] = ()
    split: str = ""  # why it does not continue the kernel before it (fluidc inspect)


@dataclass
class Kernel(Fused):
    """One generated loop nest: pointwise ops, and reductions over `axes` (row fusion)."""

    @property
    def reduction(self) -> OpDesc | None:
        """The closing reduction op, if this is a reduction kernel."""
        last = self.ops[-1]
        return last if get_op_def(last.type).kind == "reduction" else None


@dataclass
class Extern:
    """A library call (matmul, gather, random, ...) run as its own step."""

    op: OpDesc


@dataclass
class MatmulKernel(Fused):
    """A matrix product computed by generated code, its first op, followed by `ops[1:]`: the
    pointwise ops over its result's shape that use the result element by element (its
    epilogue: bias, activation, residual add), applied to each tile of the product before it
    is stored. The product itself is an output only if used later.
    `heads`: X, W or the product (by the matmul's var) held by another var in heads-second
    order, [b, s, h, d] for the [b, h, s, d] the matmul names, with h heads: var -> (that
    var, h); the head transposes folded into the product's strides (attention.fold_heads)."""

    heads: dict[str, tuple[str, int]] = field(default_factory=dict)
    # The var holding W packed as the product reads it (a PackKernel's output), packed once
    # per binding of the plan rather than on every run; "" where the product packs W itself.
    packed: str = ""

    @property
    def matmul(self) -> OpDesc:
        return self.ops[0]

    @property
    def product(self) -> str:
        return self.matmul.output("Out")[0]

    def held(self, var: str) -> tuple[str, int]:
        """(the var holding `var` (X, W or the product), its heads): (var, 1) as the matmul
        names it, or its heads-second holder."""
        return self.heads.get(var, (var, 1))


@dataclass
class PackKernel(Fused):
    """A weight W that the plan only reads, packed into panels as the generated products read
    it (prepack.py): `ops[0]`, a pack_weight op of W, writing the packed var."""

    @property
    def weight(self) -> str:
        return self.inputs[0]


# The ops a PoolKernel computes: pools and their grads (which write X@GRAD).
POOLS = ("pool2d", "pool2d_argmax", "pool2d_grad", "pool2d_argmax_grad")


def pool_result(op: OpDesc) -> str:
    """The var a pool op (POOLS) computes: Out, or X@GRAD for a grad."""
    return op.output("X@GRAD" if op.type.endswith("_grad") else "Out")[0]


def pool_reads(op: OpDesc) -> list[str]:
    """The vars the generated code of a pool op (POOLS) reads: a pool's X; a grad's Out@GRAD,
    after the kept Indices (pool2d_argmax_grad) or X (a max pool's grad finds each window's
    maximum again); an average pool's grad reads only Out@GRAD."""
    if not op.type.endswith("_grad"):
        return op.input("X")
    if op.type == "pool2d_argmax_grad":
        return op.input("Indices") + op.input("Out@GRAD")
    return (op.input("X") if op.attrs["pooling_type"] == "max" else []) + op.input("Out@GRAD")


@dataclass
class PoolKernel(Fused):
    """A pool2d (or pool2d_argmax, also storing its indices, or the grad of either) computed by
    generated code, `ops[0]`, and optionally a transpose2 of a pool2d's result, `ops[1]`, folded into its store
    (the pool writes the transposed layout at once: the end of a channels-last chain). The
    pool's own output is then never stored."""

    @property
    def pool(self) -> OpDesc:
        return self.ops[0]

    @property
    def transpose(self) -> OpDesc | None:
        return self.ops[1] if len(self.ops) > 1 else None

    @property
    def stored(self) -> str:
        """The var the kernel writes."""
        return pool_result(self.ops[-1])


CONVS = ("conv2d_fused",)  # the ops a ConvKernel computes


@dataclass
class ConvKernel(Fused):
    """A conv2d_fused computed by generated code (a direct convolution with its bias and
    activation), optionally after the transpose2 that made its Input, folded into its loads (it
    reads the transpose's X with permuted strides: the start of a channels-last chain), and
    optionally followed by the pool2d of its result, taken as its rows are made, and that
    pool's transpose2, folded into the store (the end of a chain). Folded inputs and results
    are never stored."""

    def _at(self, i: int, type_: str) -> OpDesc | None:
        return self.ops[i] if self.ops[i].type == type_ else None

    @property
    def conv(self) -> OpDesc:
        return next(op for op in self.ops if op.type in CONVS)

    @property
    def transpose(self) -> OpDesc | None:
        """The transpose2 making the conv's Input."""
        return self._at(0, "transpose2")

    @property
    def pool(self) -> OpDesc | None:
        return next((op for op in self.ops if op.type == "pool2d"), None)

    @property
    def out_transpose(self) -> OpDesc | None:
        """The transpose2 of the pool's result."""
        return self._at(-1, "transpose2")

    @property
    def source(self) -> str:
        """The var the kernel reads as its Input."""
        return self.ops[0].input("X" if self.transpose is not None else "Input")[0]

    @property
    def stored(self) -> str:
        """The var the kernel writes."""
        return self.outputs[0]


@dataclass
class Concurrent:
    """Pointwise kernels that touch no common var but what they only read: they may run at
    once (one parallel region on CPU), e.g. the optimizer updates of every parameter."""

    parts: list[Kernel]

    @property
    def ops(self) -> list[OpDesc]:
        return [op for k in self.parts for op in k.ops]


Step = Kernel | MatmulKernel | PackKernel | PoolKernel | ConvKernel | Extern | Concurrent


def flat_steps(steps: list[Step]) -> list[tuple[int | None, "Fused | Extern"]]:
    """(index of its Concurrent group or None, step) for every kernel and library call, in run
    order: the step numbers inspect prints and kernel names carry."""
    out = []
    for g, step in enumerate(steps):
        out += [(g, k) for k in step.parts] if isinstance(step, Concurrent) else [(None, step)]
    return out


def kernel_label(step: Fused) -> str:
    """What a kernel computes, for its name: the ops its ops came from (softmax, not its
    reduce_max ...), 'elementwise_' dropped, up to about 40 characters: 'add_relu'. Op types
    only — never var names — so equal kernels of different programs share a cache entry."""
    label = ""
    for name in dict.fromkeys((op.origin or op.type).removeprefix("elementwise_")
                              for op in step.ops):
        longer = f"{label}_{name}" if label else name
        if label and len(longer) > 40:
            return label + "_etc"
        label = longer
    return label


def run_concurrently(steps: list[Step], graph) -> list[Step]:
    """Runs of pointwise kernels (no extern between) regrouped into levels of independent
    kernels: each kernel joins the level after the last one it depends on in the scheduler
    graph (`graph`, over `steps`: a shared storage that either writes), so all the optimizer
    updates land in one Concurrent step and all the beta-pow updates in the next.

    Linear in the accesses: per storage, the last level writing it and the last level touching
    it answer which level a kernel conflicts with last (scheduler.conflict, asked of all at once).
    """
    out: list[Step] = []
    run: list[int] = []

    def close() -> None:
        levels: list[list[int]] = []
        written: dict[str, int] = {}  # storage -> the last level writing it
        touched: dict[str, int] = {}  # storage -> the last level reading or writing it
        for k in run:
            reads, writes = graph.reads[k], graph.writes[k]
            after = max(max((written.get(s, -1) for s in reads), default=-1),
                        max((touched.get(s, -1) for s in writes), default=-1))
            if after + 1 == len(levels):
                levels.append([])
            levels[after + 1].append(k)
            for s in writes:
                written[s] = touched[s] = after + 1
            for s in reads:
                touched[s] = max(touched.get(s, -1), after + 1)
        out.extend(steps[lv[0]] if len(lv) == 1 else Concurrent([steps[k] for k in lv])
                   for lv in levels)
        run.clear()

    for k, step in enumerate(steps):
        if isinstance(step, Kernel) and not step.axes:
            run.append(k)
            continue
        close()
        out.append(step)
    close()
    return out


class _Group:
    """A kernel being grown: its ops, shape S, reduce axes, and the level of each value made."""

    def __init__(self, shape: tuple[int, ...], index: int) -> None:
        self.index = index  # its place in the step order
        self.ops: list[OpDesc] = []
        self.shape = tuple(shape)
        self.axes: tuple[int, ...] | None = None
        self.level: dict[str, str] = {}  # var -> 'elem' (over S) or 'row' (over K)
        self.matmul = False  # its first op is a matrix product the kernel computes
        self.split = ""  # why it does not continue the kernel before it
        self.reads: set[str] = set()  # values its ops read
        self.storages: set[str] = set()  # storages its ops write

    @property
    def kept(self) -> tuple[int, ...]:
        return tuple(1 if i in (self.axes or ()) else d for i, d in enumerate(self.shape))

    def over_kept(self, shape: tuple[int, ...]) -> bool:
        """Whether a value of `shape` is over K: K itself, or K without leading 1s (what a
        reduction over leading axes without keep_dim makes, [N, C] -> [C], which broadcasts
        back as K)."""
        pad = len(self.shape) - len(shape)
        return pad >= 0 and (1,) * pad + tuple(shape) == self.kept

    def internal_inputs_fit(self, aligned: list[tuple[str, tuple]], allow_elem: bool) -> bool:
        """Values made in the group must align as S (elements) or K (rows) inside an op whose
        inputs, aligned to the group's rank, are `aligned` ((name, shape) pairs)."""
        for n, a in aligned:
            level = self.level.get(n)
            if level == "elem" and (not allow_elem or a != self.shape):
                return False
            if level == "row" and a != self.kept:
                return False
        return True

    def full(self) -> bool:
        """Whether the kernel takes no more ops (MAX_KERNEL_OPS, MAX_KERNEL_VARS)."""
        return len(self.ops) >= MAX_KERNEL_OPS or \
            len(self.reads.union(self.level)) >= MAX_KERNEL_VARS

    def add(self, op: OpDesc, level: str, reads: list[str]) -> None:
        self.ops.append(op)
        self.reads.update(reads)
        for n in op.output_arg_names:
            self.level[n] = level


def step_kind(op: OpDesc, infos: dict[str, VarInfo], generated_bfloat16: bool = True) -> str:
    """The op's kind for grouping. Generated kernels compute on real dtypes; a pointwise op
    on complex data is a library call instead (its numpy expression on the host: runtime's
    `by_reference`); so is one touching bfloat16 (a cast, or a copy: passes/bfloat16.py)
    unless generated_bfloat16 (the backend's kernels hold bfloat16: the C one does, the Triton
    one does not)."""
    kind = get_op_def(op.type).kind
    if kind == "pointwise" and not generated_bfloat16 and touches_bfloat16(op, infos):
        return "extern"
    if kind == "pointwise" and any(to_numpy_dtype(infos[n].dtype).kind == "c"
                                   for n in op.input_arg_names + op.output_arg_names):
        dtypes = {k: [infos[n].dtype for n in v if n != EMPTY_VAR] for k, v in op.inputs.items()}
        if not computes_on_complex(op.type, dtypes, op.attrs):
            raise OpError(f"op '{op.type}' has no complex form (ordering, abs or a cast to a "
                          f"real dtype), but reads or writes complex data")
        return "extern"
    return kind


def group_ops(ops: list[OpDesc], infos: dict[str, VarInfo], fuse: bool = True,
              reduce_prologue: bool = True, row_fusion: bool = True,
              storage: dict[str, str] | None = None, products: set[str] = frozenset(),
              reads: list[list[str]] | None = None,
              pools: set[str] = frozenset(),
              generated_bfloat16: bool = True) -> list[_Group | OpDesc]:
    """Kernels chosen by dependency, in program order: each op may join any kernel after the
    last step it depends on in the scheduler graph (by storage: RAW, WAR, WAW), so nothing moves
    past what it must follow and no cycle forms. Among the kernels it fits (same iteration
    space; a reduction over the same axes; the row-fusion rules) it joins the one saving the
    most bytes of memory traffic: values made there (vertical) or read there too (horizontal).
    With nothing saved it joins the open kernel (the last one, if nothing closed it), as fusion
    by adjacency did, or starts a kernel.

    reduce_prologue lets a reduction close a pointwise group over its input; row_fusion lets
    more reductions and per-row epilogues follow it in the same kernel; the ops writing a var in
    `products` (matrix products generated as code) start kernels that pointwise ops over their
    result may join. `reads` are the ops' value inputs (value_inputs); `pools` the outputs of
    the pools generated as code (for the reason a kernel after one gives);
    generated_bfloat16: step_kind's.
    """
    from .scheduler import SchedulerGraph  # the graph module builds on this one's step types

    graph = SchedulerGraph(ops, storage)
    deps = graph.dependencies()
    reads = reads or [value_inputs(op, infos) for op in ops]
    groups: list[_Group | OpDesc] = []
    holders: dict[str, list[_Group]] = {}  # var -> kernels making or reading it
    placed: list[int] = []  # op index -> index in groups
    cur: _Group | None = None  # the open kernel: fusion by adjacency continues it
    why = ""  # why the next kernel does not continue the open one, for `fluidc inspect`

    def start(shape) -> _Group:
        g = _Group(shape, len(groups))
        g.split = why
        groups.append(g)
        return g

    def apart(g: _Group | None, out: tuple, axes=None) -> str:
        """Why an op over `out` (reducing `axes`) does not join kernel g."""
        if g is None:
            return why
        if out != g.shape and not g.over_kept(out):
            return f"its shape {list(out)} is not the kernel's {list(g.shape)}"
        if axes is not None and g.matmul:
            return "a reduction does not join a matrix product's epilogue"
        if axes is not None and g.axes is not None and g.axes != axes:
            return f"it reduces axes {list(axes)}, the kernel {list(g.axes)}"
        if g.axes is not None and not row_fusion:
            return "row fusion is off"
        return "a value it reads from the kernel is not aligned element by element"

    # Each op's inputs with their storages, and (for pointwise ops) its inputs' shapes aligned
    # to a rank: asked for every kernel an op may join, made once.
    inputs = [[(n, graph.storage(n)) for n in op.input_arg_names] for op in ops]
    aligned_at: dict[tuple[int, int], list[tuple[str, tuple]]] = {}

    def aligned(i: int, rank: int) -> list[tuple[str, tuple]]:
        got = aligned_at.get((i, rank))
        if got is None:
            op = ops[i]
            shapes = {k: [infos[n].shape for n in v] for k, v in op.inputs.items() if v}
            by_slot = aligned_shapes(get_op_def(op.type), op.attrs, shapes, rank)
            got = aligned_at[(i, rank)] = [
                (n, tuple(a)) for slot, names in op.inputs.items()
                for n, a in zip(names, by_slot.get(slot, []))]
        return got

    def aliased(g: _Group, i: int) -> str | None:
        """An input op i reads, under another name, from storage kernel g writes."""
        return next((n for n, st in inputs[i] if n not in g.level and st in g.storages), None)

    def level_in(g: _Group, i: int, kind: str) -> str | None:
        """The level op i would take in g ('elem' or 'row'), or None if it does not fit."""
        if aliased(g, i) is not None:
            return None
        op = ops[i]
        if kind == "pointwise":
            out = tuple(infos[op.output_arg_names[0]].shape)
            if out == g.shape and g.internal_inputs_fit(aligned(i, len(g.shape)), True) \
                    and (row_fusion or g.axes is None):
                return "elem"
            if row_fusion and g.axes is not None and g.over_kept(out) \
                    and g.internal_inputs_fit(aligned(i, len(g.shape)), False):
                return "row"
            return None
        x = op.input("X")[0]
        shape = tuple(infos[x].shape)
        axes = get_op_def(op.type).reduce_axes(op.attrs, len(shape))
        fits = (reduce_prologue and shape == g.shape and not g.matmul
                and g.level.get(x, "elem") == "elem"
                and (g.axes is None or (row_fusion and g.axes == axes)))
        return "row" if fits else None

    read_bytes = [[(n, math.prod(infos[n].shape) * to_numpy_dtype(infos[n].dtype).itemsize)
                   for n in names if n in infos] for names in reads]

    def saved(g: _Group, i: int) -> int:
        """Bytes of traffic op i saves in g: its inputs made or read there are loaded once."""
        return sum(b for n, b in read_bytes[i] if n in g.level or n in g.reads)

    for i, op in enumerate(ops):
        kind = step_kind(op, infos, generated_bfloat16)
        after = max((placed[j] for j in deps.predecessors(i)), default=-1)
        if cur is not None and cur.index < after:
            why, cur = f"'{op.type}' must follow a later step", None
        if cur is not None:
            alias = aliased(cur, i)
            if alias is not None:
                why = f"'{op.type}' reads, as '{alias}', memory the kernel writes"
                cur = None
            elif cur.full():
                why, cur = (f"the kernel has the most ops ({MAX_KERNEL_OPS}) or vars "
                            f"({MAX_KERNEL_VARS}) one takes"), None
        best, best_level, best_score = None, None, 0
        if kind in ("pointwise", "reduction") and fuse:
            # Only kernels holding one of its inputs save anything; the open one may take it.
            near = {g.index: g for n in reads[i] for g in holders.get(n, ()) if g.index >= after}
            if cur is not None:
                near[cur.index] = cur
            for g in (near[k] for k in sorted(near)):
                level = level_in(g, i, kind)
                score = saved(g, i)
                # Only the open kernel is joined for nothing saved; a product's epilogue must
                # use what the kernel makes.
                if level is None or g.full() or (g is not cur and (
                        not score or g.matmul and not any(n in g.level for n in reads[i]))):
                    continue
                if best is None or score > best_score:
                    best, best_level, best_score = g, level, score
        if kind == "pointwise":
            if best is None:
                why = apart(cur, tuple(infos[op.output_arg_names[0]].shape)) if fuse \
                    else "fusion is off"
                best, best_level = start(infos[op.output_arg_names[0]].shape), "elem"
            best.add(op, best_level, reads[i])
            cur = best if best is groups[-1] else cur
        elif kind == "reduction":
            x = op.input("X")[0]
            shape = tuple(infos[x].shape)
            axes = get_op_def(op.type).reduce_axes(op.attrs, len(shape))
            if best is None:
                why = apart(cur, shape, axes) if fuse and reduce_prologue \
                    else "reduction fusion is off"
                best = start(shape)
            best.axes = axes
            best.add(op, "row", reads[i])
            cur = best if best is groups[-1] else cur
            if not row_fusion:
                why, cur = "row fusion is off", None
        elif products.intersection(op.outputs.get("Out", ())):
            why = "a generated matrix product starts a kernel"
            best = cur = start(infos[op.output("Out")[0]].shape)
            cur.matmul = True
            cur.add(op, "elem", reads[i])
        else:
            why = "after a generated pool" if op.type in POOLS and pool_result(op) in pools \
                else f"after the library call '{op.type}'"
            cur = None
            groups.append(op)
        if isinstance(best, _Group) and best.ops[-1] is op:
            placed.append(best.index)
            best.storages.update(graph.storage(n) for n in op.output_arg_names)
            for n in reads[i] + op.output_arg_names:
                if best not in holders.setdefault(n, []):
                    holders[n].append(best)
        else:
            placed.append(len(groups) - 1)
    return groups


def build_steps(ops: list[OpDesc], infos: dict[str, VarInfo], live_out: set[str],
                fuse: bool = True, reduce_prologue: bool = True,
                row_fusion: bool = True, storage: dict[str, str] | None = None,
                products: set[str] = frozenset(), pools: set[str] = frozenset(),
                convs: set[str] = frozenset(), conv_pools: set[str] = frozenset(),
                generated_bfloat16: bool = True) -> list[Step]:
    """Kernels and extern steps; a kernel outputs what later steps read or live_out names.
    The pool2d ops writing a var in `pools` are generated (PoolKernel), each with the
    transpose2 right after it folded in when that alone reads its result; the conv2d_fused ops
    writing a var in `convs` likewise (ConvKernel), with the transpose2 right before it folded
    in when the conv alone reads its result, and the pool2d writing a var in `conv_pools` (with
    its transpose) folded into the ConvKernel right before it when it alone reads the conv's
    result. generated_bfloat16: step_kind's."""
    values = [value_inputs(op, infos) for op in ops]  # shape-only inputs left out
    groups = group_ops(ops, infos, fuse, reduce_prologue, row_fusion, storage, products, values,
                       pools, generated_bfloat16)
    reads = {id(op): v for op, v in zip(ops, values)}
    last_read: dict[str, int] = {}  # var -> the last group reading it
    for i, g in enumerate(groups):
        for op in (g.ops if isinstance(g, _Group) else [g]):
            last_read.update(dict.fromkeys(reads[id(op)], i))

    def read_after(n: str, i: int) -> bool:
        """Whether a group after the i-th reads n."""
        return last_read.get(n, -1) > i
    steps: list[Step] = []
    folded: set[int] = set()  # ids of transpose2 ops folded into the pool before them
    for i, g in enumerate(groups):
        if isinstance(g, OpDesc) and id(g) in folded:
            continue
        if isinstance(g, OpDesc) and g.type in POOLS and pool_result(g) in pools:
            nxt = groups[i + 1] if i + 1 < len(groups) else None
            y = pool_result(g)
            # y read by the transpose alone (live_out holds storages read through views)
            fold = g.type == "pool2d" and isinstance(nxt, OpDesc) and nxt.type == "transpose2" \
                and nxt.input("X") == [y] and y not in live_out \
                and not read_after(y, i + 1) and not nxt.outputs.get("XShape")
            if fold:
                folded.add(id(nxt))
            ops_ = [g, nxt] if fold else [g]
            conv = steps[-1] if steps and isinstance(steps[-1], ConvKernel) else None
            x = g.input("X")[0]
            if y in conv_pools and conv is not None and conv.pool is None \
                    and conv.outputs == [x] and x not in live_out and not read_after(x, i):
                steps[-1] = ConvKernel(conv.ops + ops_, tuple(infos[x].shape), conv.inputs,
                                       [pool_result(ops_[-1])], split=conv.split)
                continue
            steps.append(PoolKernel(ops_, tuple(infos[y].shape), pool_reads(g),
                                    [pool_result(ops_[-1])] + g.outputs.get("Indices", []),
                                    split="a generated pool"))
            continue
        if isinstance(g, OpDesc) and g.type in CONVS and g.output("Output")[0] in convs:
            prev = steps[-1].op if steps and isinstance(steps[-1], Extern) else None
            x = g.input("Input")[0]
            fold = prev is not None and prev.type == "transpose2" and prev.output("Out") == [x] \
                and x not in live_out and not read_after(x, i) and not prev.outputs.get("XShape")
            if fold:
                steps.pop()
            ops_ = [prev, g] if fold else [g]
            steps.append(ConvKernel(ops_, tuple(infos[g.output("Output")[0]].shape),
                                    (prev.input("X") if fold else [x]) + g.input("Filter")
                                    + g.inputs.get("Bias", []), g.output("Output"),
                                    split="a generated convolution"))
            continue
        if not isinstance(g, _Group):
            steps.append(Extern(g))
            continue
        written: list[str] = []
        inputs: list[str] = []
        for op in g.ops:
            inputs += [n for n in reads[id(op)] if n not in written and n not in inputs]
            written += [n for n in op.output_arg_names if n not in written]
        outputs = [n for n in written if read_after(n, i) or n in live_out]
        if g.matmul:
            steps.append(MatmulKernel(g.ops, g.shape, inputs, outputs, split=g.split))
        else:
            steps.append(Kernel(g.ops, g.shape, inputs, outputs, g.axes or (), g.split))
    if _log.isEnabledFor(logging.DEBUG):
        for i, step in enumerate(steps):
            if isinstance(step, Fused):
                _log.debug("step %d: kernel over %s of %s%s", i, list(step.shape),
                           " + ".join(op.type for op in step.ops),
                           f" (a new kernel: {step.split})" if step.split else "")
            else:
                _log.debug("step %d: library call %s", i, step.op.type)
    return steps
