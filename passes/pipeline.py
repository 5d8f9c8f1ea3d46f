"""The pass pipeline of one run: prune -> concrete shapes -> lower -> fuse -> steps."""
from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field

import numpy as np

from ..frontend.dtypes import to_numpy_dtype
from ..frontend.errors import FeedError
from ..frontend.framework import Program
from ..frontend.logs import logger
from ..frontend.ops import OpDesc, VarInfo, get_op_def
from ..frontend.ops.registry import LOD_ATTR
from .fuse import Step, build_steps, pool_result, run_concurrently
from .attention import fold_heads, fuse_attention
from .constant_fold import fold_constants, once_per_binding
from .control_flow import attach_blocks, has_sub_blocks, read_kept_outputs
from .conv_fusion import (channels_last, fuse_conv_epilogues, generated_convs, generated_pool,
                          keep_pool_indices)
from .cross_entropy import expand_cross_entropy
from .dropout import split_dropout
from .empty_inputs import drop_empty_inputs
from .epilogue import fuse_matmul_bias
from .matmul import generated_products, split_product_grads
from .index_checks import index_checks, insert_index_checks
from .inplace import write_in_place
from .lower import lower_ops
from .prepack import prepack_weights
from .prune import needed_inputs, prune_ops
from .shape_inputs import fold_shape_inputs
from .scheduler import Arena, SchedulerGraph, plan_arena, step_accesses
from .views import alias_views
from .strategy import BuildStrategy


_log = logger("passes")


def run_pass(name: str, fn, items, *args, **kwargs):
    """fn(items, ...), logged (FLUIDC_LOGS=passes) with the ops or steps before and after."""
    if not _log.isEnabledFor(logging.DEBUG):
        return fn(items, *args, **kwargs)
    start = time.perf_counter()
    out = fn(items, *args, **kwargs)
    after = out[0] if isinstance(out, tuple) else out
    _log.debug("%s: %s -> %s in %.2f ms", name, _count(items), _count(after),
               1e3 * (time.perf_counter() - start))
    return out


def _count(items) -> str:
    if isinstance(items, dict):  # write_in_place: the outputs given their inputs' storage
        return f"{len(items)} outputs in place"
    kind = "ops" if all(isinstance(i, OpDesc) for i in items) else "steps"
    return f"{len(items)} {kind}"


@dataclass
class LoweredProgram:
    """What codegen and the runtime need: steps over named vars with concrete infos, and the
    scheduler graph that says which storage each var lives in."""

    steps: list[Step]
    infos: dict[str, VarInfo]
    feeds: list[str]
    fetches: list[str]
    state: list[str]  # persistable vars the steps read or write, held in the scope
    graph: SchedulerGraph
    lods: dict[str, tuple] = field(default_factory=dict)  # var -> LoD this run (offset levels)
    reuse: bool = True  # whether storages with disjoint live ranges share arena bytes
    pinned: set[str] = field(default_factory=set)  # storages that keep bytes of their own
    # Whether the program has products over weights it writes that the C backend can generate
    # (it does with written_products on: tiered.lower_products).
    trained_products: bool = False
    # Constants the runtime writes once per binding of the plan, not on every run (their
    # storages are pinned): constant_fold.once_per_binding.
    constants: set[str] = field(default_factory=set)

    def storage(self, var: str) -> str:
        """The var whose memory `var` lives in (itself unless a view or an in-place output)."""
        return self.graph.storage(var)

    def arena(self, exclude=()) -> Arena:
        """The arena holding the storages of every var outside the scope but those in `exclude`
        (bytes: the largest var on each)."""
        state = set(self.state)
        names = {n for s in self.steps for n in sum(step_accesses(s), [])}
        names |= set(self.feeds) | set(self.fetches)
        nbytes: dict[str, int] = {}
        for n in sorted(names - set(exclude)):
            if n not in self.infos or self.storage(n) in state:
                continue
            info = self.infos[n]
            size = int(np.prod(info.shape)) * to_numpy_dtype(info.dtype).itemsize
            s = self.storage(n)
            nbytes[s] = max(nbytes.get(s, 0), size)
        return plan_arena(self.graph, nbytes, self.reuse, self.pinned)


def version_writes(ops: list[OpDesc], keep: set[str], defined: frozenset[str] = frozenset()
                   ) -> tuple[list[OpDesc], dict[str, str], dict[str, str]]:
    """Give every re-definition of a var outside `keep` a name of its own (name@@vK).

    A reassigned var (`assign(..., output=x)`, a loop's update) then has one var per value, each
    with its own shape and storage, so no view or reader of an old value sees a newer one; the
    arena planner lets versions share bytes when their lives do not overlap.
    `defined` vars hold a value before the ops (a loop body's loop vars): their first write is
    a new version too.
    Returns the ops, each version's original name, and each original name's final version.
    """
    writes: dict[str, int] = dict.fromkeys(defined, 1)
    for op in ops:
        for n in op.output_arg_names:
            writes[n] = writes.get(n, 0) + 1
    multi = {n for n, k in writes.items() if k > 1 and n not in keep}
    if not multi:
        return ops, {}, {}
    current: dict[str, str] = {}
    seen: dict[str, int] = dict.fromkeys(defined, 1)
    origin: dict[str, str] = {}
    out = []
    for op in ops:
        op = op.copy()
        for slot, names in op.inputs.items():
            op.inputs[slot] = [current.get(n, n) for n in names]
        for slot, names in op.outputs.items():
            renamed = []
            for n in names:
                if n in multi:
                    k = seen.get(n, 0)
                    seen[n] = k + 1
                    current[n] = n if k == 0 else f"{n}@@v{k}"
                    origin[current[n]] = n
                    n = current[n]
                renamed.append(n)
            op.outputs[slot] = renamed
        out.append(op)
    return out, origin, current


def lower_program(program: Program, feed_infos: dict[str, VarInfo], fetches: list[str],
                  state_infos: dict[str, VarInfo], strategy: BuildStrategy | None = None,
                  row_fusion: bool = True, feed_lods: dict[str, tuple] | None = None,
                  target: str = "c", shape_values: dict[str, np.ndarray] | None = None,
                  written_products: bool = False, choose_products=None) -> LoweredProgram:
    """Run the passes over the global block for one feed signature and fetch list, for the
    `target` backend ('c' or 'triton'); shape_values are the fed values of the vars read by
    shape inputs (shape_input_names), which the plan is then specific to. written_products:
    the C backend also generates products whose weights the program writes (training);
    choose_products: which product shapes it generates (matmul.generated_products; None:
    every one it can)."""
    return lowering(program, feed_infos, fetches, state_infos, strategy, row_fusion, feed_lods,
                    target, shape_values, choose_products)(written_products)


def lowering(program: Program, feed_infos: dict[str, VarInfo], fetches: list[str],
             state_infos: dict[str, VarInfo], strategy: BuildStrategy | None = None,
             row_fusion: bool = True, feed_lods: dict[str, tuple] | None = None,
             target: str = "c", shape_values: dict[str, np.ndarray] | None = None,
             choose_products=None):
    """lower(written_products=False) -> lower_program's LoweredProgram. The passes before the
    products' choice (pruning, shape inference, lowering, folding: half of the time) run once,
    at the first call; each call runs the rest over their result (tiered.lower_products may
    lower twice). Those later passes make new ops and vars rather than change their input's,
    so both calls start from the same ops and a copy of the infos."""
    strategy = strategy or BuildStrategy()
    head: list = []

    def lower(written_products: bool = False) -> LoweredProgram:
        if not head:
            head.append(_lower_head(program, feed_infos, fetches, state_infos, strategy,
                                    feed_lods, shape_values))
        ops, infos, fetched, lods = head[0]
        return _lower_tail(program, list(ops), dict(infos), fetched, dict(lods), feed_infos,
                           state_infos, strategy, row_fusion, target, written_products,
                           choose_products)
    return lower


def _lower_head(program: Program, feed_infos: dict[str, VarInfo], fetches: list[str],
                state_infos: dict[str, VarInfo], strategy: BuildStrategy,
                feed_lods: dict[str, tuple] | None, shape_values: dict[str, np.ndarray] | None
                ) -> tuple:
    """(lowered ops, infos, fetches as versioned, LoDs): lowering's passes up to the index
    checks."""
    block = program.global_block()
    ops = [op.desc for op in block.ops if op.type not in ("feed", "fetch")]
    persistable = {n for n, v in block.vars.items() if v.persistable}
    if has_sub_blocks(program):
        ops = read_kept_outputs(attach_blocks(ops, program), set(feed_infos) | set(state_infos))
    ops = drop_empty_inputs(ops, set(feed_infos) | set(state_infos))
    ops = run_pass("prune", prune_ops, ops, feed_infos, fetches, keep=persistable, run=True)
    folded = run_pass("fold_shape_inputs", fold_shape_inputs, ops, shape_values or {},
                      {**state_infos, **feed_infos})
    if folded is not ops:  # the fill_constants that only gave shapes go
        ops = run_pass("prune", prune_ops, folded, feed_infos, fetches, keep=persistable,
                       run=True)
    ops, origin, final = version_writes(ops, persistable | set(feed_infos))
    fetches = [final.get(n, n) for n in fetches]
    lods: dict[str, tuple] = {}
    if feed_lods:
        ops, lods = propagate_lod(ops, block, feed_lods, origin)
    reads = needed_inputs(ops)
    infos: dict[str, VarInfo] = {}
    for n in reads:
        if n in feed_infos:
            infos[n] = feed_infos[n]
        elif n in state_infos:
            infos[n] = state_infos[n]
        elif block.has_var(n) and block.var(n).is_data:
            raise FeedError(f"var '{n}' is needed by the fetches but was not fed")
    for n in fetches:
        if n not in reads and n not in {o for op in ops for o in op.output_arg_names}:
            if n in feed_infos:
                infos[n] = feed_infos[n]
            elif n in state_infos:
                infos[n] = state_infos[n]
    lowered = run_pass("lower", lower_ops, ops, infos)
    checks = index_checks(lowered, infos)
    lowered = run_pass("expand_cross_entropy", expand_cross_entropy, lowered, infos)
    if strategy.fuse_all and strategy.fold_constants:
        lowered = run_pass("prune", prune_ops,
                           run_pass("fold_constants", fold_constants, lowered, infos),
                           feed_infos, fetches, keep=persistable, run=True)
    lowered = run_pass("index_checks", insert_index_checks, lowered, checks)
    return lowered, infos, fetches, lods


def _lower_tail(program: Program, lowered: list[OpDesc], infos: dict[str, VarInfo],
                fetches: list[str], lods: dict[str, tuple], feed_infos: dict[str, VarInfo],
                state_infos: dict[str, VarInfo], strategy: BuildStrategy, row_fusion: bool,
                target: str, written_products: bool, choose_products) -> LoweredProgram:
    """The passes after _lower_head: layouts, products, views, fusion, memory."""
    marked = getattr(program, "_memory_optimize", None)  # fluid.memory_optimize(program, ...)
    block = program.global_block()
    persistable = {n for n, v in block.vars.items() if v.persistable}
    written = {n for op in lowered for n in op.output_arg_names}
    state = [n for n in dict.fromkeys(needed_inputs(lowered) + sorted(written) + list(fetches))
             if n in persistable or (n in state_infos and n not in feed_infos and n not in written)]
    live_in = set(feed_infos) | set(state)
    live_out = set(fetches) | set(state)
    lowered = run_pass("split_dropout", split_dropout, lowered, infos, live_out)
    if strategy.fuse_all and target == "c":  # library convs with their epilogues, in NHWC
        lowered = run_pass("fuse_conv_epilogues", fuse_conv_epilogues, lowered, infos, live_out)
        lowered = run_pass("keep_pool_indices", keep_pool_indices, lowered, infos)
        lowered = run_pass("channels_last", channels_last, lowered, infos, live_out)
    products: set[str] = set()  # outputs of the products the C backend generates itself
    trained_products = False
    if strategy.fuse_all and strategy.fuse_gemm_epilogue and target == "c":
        lowered = run_pass("split_product_grads", split_product_grads, lowered, infos)
        chosen = generated_products(lowered, infos, set(), choose_products)
        trained_products = any(lay.w in written for lay in chosen.values())
        products = {o for o, lay in chosen.items() if written_products or lay.w not in written}
    if strategy.fuse_all:
        lowered = run_pass("fuse_gemm_epilogue", fuse_matmul_bias, lowered, infos, live_out,
                           leave=products)
    pools = {pool_result(op) for op in lowered if generated_pool(op, infos)} \
        if strategy.fuse_all and target == "c" else set()  # pools the C backend generates
    convs, conv_pools = generated_convs(lowered, infos, live_out) \
        if strategy.fuse_all and target == "c" else (set(), set())  # convolutions (with pools)
    lowered, storage = run_pass("views", alias_views, lowered,
                                SchedulerGraph(lowered, {}, live_in, live_out), infos,
                                set(feed_infos), live_out)
    # A viewed var's memory is read under the view's name: its value must be stored.
    steps = run_pass("fuse", build_steps, lowered, infos, live_out | set(storage.values()),
                        fuse=strategy.fusion_enabled,
                        reduce_prologue=strategy.reduce_fusion_enabled,
                        row_fusion=row_fusion and strategy.reduce_fusion_enabled,
                        storage=storage, products=products, pools=pools, convs=convs,
                        conv_pools=conv_pools, generated_bfloat16=target == "c")
    if strategy.fuse_all and target == "c":
        steps = run_pass("fuse_attention", fuse_attention, steps, infos,
                         live_out | set(storage.values()))
        steps = run_pass("fold_heads", fold_heads, steps, infos, live_out | set(storage.values()))
    graph = SchedulerGraph(steps, storage, live_in, live_out)
    packed: set[str] = set()  # weights packed once per binding, held through every run
    if strategy.fuse_all and target == "c":
        steps, packed = run_pass("prepack_weights", prepack_weights, steps, infos, set(state),
                                 graph.storage)
        if packed:
            live_out = live_out | packed
            graph = SchedulerGraph(steps, storage, live_in, live_out)
    if strategy.enable_inplace:
        storage.update(run_pass("inplace", write_in_place, steps, infos, graph, keep=set(lods)))
        graph = SchedulerGraph(steps, storage, live_in, live_out)
    if strategy.fuse_all and strategy.fuse_all_optimizer_ops:
        steps = run_pass("fuse_optimizer", run_concurrently, steps, graph)
        graph = SchedulerGraph(steps, storage, live_in, live_out)
    pinned = {graph.storage(n) for n in marked.pinned(block) if n in infos} if marked else set()
    constants = once_per_binding(graph)  # their storages keep their values between runs
    pinned |= {graph.storage(n) for n in constants | packed}
    # A LoD that no longer covers its var's rows (the op changed them) is not handed out.
    lods = {n: v for n, v in lods.items()
            if n in infos and infos[n].shape and v[-1][-1] == infos[n].shape[0]}
    return LoweredProgram(steps, infos, list(feed_infos), list(fetches), state, graph, lods,
                          reuse=strategy.memory_optimize or marked is not None, pinned=pinned,
                          trained_products=trained_products, constants=constants)


def propagate_lod(ops: list[OpDesc], block, feed_lods: dict[str, tuple],
                  origin: dict[str, str]) -> tuple[list[OpDesc], dict[str, tuple]]:
    """Each var's LoD for this run, and LoD-reading ops given their inputs' LoD in attrs.

    Ops with a `lod` rule (sequence ops) say what their outputs carry; any other op passes the
    LoD of the input it shares (OpDef.lod_input: X, lookup_table's Ids, ...) to each output
    declared with lod_level > 0 (pointwise ops, mul/fc, lookup_table, ... keep its rows).
    """
    lods = dict(feed_lods)
    out = []
    for op in ops:
        opdef = get_op_def(op.type)
        if opdef.lod is not None:
            in_lods = {k: [lods.get(n) for n in v] for k, v in op.inputs.items()}
            op = op.copy()
            op.attrs[LOD_ATTR] = in_lods
            ins = {k: [block.var(origin.get(n, n)).info() for n in v]
                   for k, v in op.inputs.items()}
            for slot, values in opdef.lod(in_lods, op.attrs, ins).items():
                for n, lod in zip(op.output(slot), values):
                    if lod is None:
                        lods.pop(n, None)
                    else:
                        lods[n] = lod
        else:
            src = lods.get(opdef.lod_input(op))
            for n in op.output_arg_names:
                v = block._find_var_recursive(origin.get(n, n))
                if src is not None and v is not None and v.lod_level > 0:
                    lods[n] = src
                else:
                    lods.pop(n, None)
        out.append(op)
    return out, lods




def lower_for_batch(program: Program, feeds: list[str], fetches: list[str], batch: int,
                    strategy: BuildStrategy | None = None, row_fusion: bool = True,
                    target: str = "c", shapes: dict[str, tuple] | None = None,
                    written_products: bool = False, choose_products=None) -> LoweredProgram:
    """The program compiled for feeds of `batch` rows (-1 dims) or of the given `shapes`, its
    persistables as declared: the LoweredProgram `exe.run` would build (given its
    choose_products)."""
    block = program.global_block()
    feed_infos = {}
    for n in feeds:
        v = block.var(n)
        shape = (shapes or {}).get(n)
        if shape is None:
            shape = tuple(batch if d < 0 else d for d in v.shape)
        feed_infos[n] = VarInfo(tuple(shape), v.dtype, v.lod_level)
    state = {n: v.info() for n, v in block.vars.items() if v.persistable}
    return lower_program(program, feed_infos, fetches, state, strategy, row_fusion=row_fusion,
                         target=target, written_products=written_products,
                         choose_products=choose_products)
