"""The pass pipeline of one run: prune -> concrete shapes -> lower -> fuse -> steps."""
from __future__ import annotations

from dataclasses import dataclass, field

from ..frontend.errors import FeedError
from ..frontend.framework import Program
from ..frontend.ops import OpDesc, VarInfo, get_op_def
from ..frontend.ops.registry import LOD_ATTR
from .fuse import Step, build_steps, run_concurrently
from .constant_fold import fold_constants
from .cross_entropy import expand_cross_entropy
from .epilogue import fuse_matmul_bias
from .matmul import generated_product
from .inference import fold_batch_norm
from .inplace import write_in_place
from .lower import lower_ops
from .memory import memory_optimize
from .prune import needed_inputs, prune_ops
from .views import alias_views
from .strategy import BuildStrategy


@dataclass
class LoweredProgram:
    """What codegen and the runtime need: steps over named buffers with concrete infos."""

    steps: list[Step]
    infos: dict[str, VarInfo]
    feeds: list[str]
    fetches: list[str]
    state: list[str]  # persistable vars the steps read or write, held in the scope
    storage: dict[str, str] = field(default_factory=dict)  # var version -> buffer it lives in
    lods: dict[str, tuple] = field(default_factory=dict)  # var -> LoD this run (offset levels)
    state_views: dict[str, str] = field(default_factory=dict)  # var -> scope var it views


def version_writes(ops: list[OpDesc], keep: set[str]) -> tuple[list[OpDesc], dict[str, str],
                                                                 dict[str, str]]:
    """Give every re-definition of a var outside `keep` a name of its own (name@@vK).

    After memory_optimize one name holds values of different shapes in turn; versions let each
    have its own shape while `storage` (version -> base name) keeps them in one buffer.
    Returns the ops, the storage map and each base name's final version.
    """
    writes: dict[str, int] = {}
    for op in ops:
        for n in op.output_arg_names:
            writes[n] = writes.get(n, 0) + 1
    multi = {n for n, k in writes.items() if k > 1 and n not in keep}
    if not multi:
        return ops, {}, {}
    current: dict[str, str] = {}
    seen: dict[str, int] = {}
    storage: dict[str, str] = {}
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
                    storage[current[n]] = n
                    n = current[n]
                renamed.append(n)
            op.outputs[slot] = renamed
        out.append(op)
    return out, storage, current


def lower_program(program: Program, feed_infos: dict[str, VarInfo], fetches: list[str],
                  state_infos: dict[str, VarInfo], strategy: BuildStrategy | None = None,
                  row_fusion: bool = True, feed_lods: dict[str, tuple] | None = None,
                  target: str = "c") -> LoweredProgram:
    """Run the passes over the global block for one feed signature and fetch list, for the
    `target` backend ('c' or 'triton')."""
    strategy = strategy or BuildStrategy()
    if strategy.memory_optimize:
        program = program.clone()
        memory_optimize(program, skip_opt_set=set(fetches))
    block = program.global_block()
    ops = [op.desc for op in block.ops if op.type not in ("feed", "fetch")]
    persistable = {n for n, v in block.vars.items() if v.persistable}
    ops = prune_ops(ops, feed_infos, fetches, keep=persistable)
    ops, storage, final = version_writes(ops, persistable | set(feed_infos))
    fetches = [final.get(n, n) for n in fetches]
    lods: dict[str, tuple] = {}
    if feed_lods:
        ops, lods = propagate_lod(ops, block, feed_lods, storage)
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
    lowered = expand_cross_entropy(lower_ops(ops, infos), infos)
    if strategy.fuse_all and strategy.fold_constants:
        lowered = prune_ops(fold_constants(lowered, infos), feed_infos, fetches, keep=persistable)
    written = {n for op in lowered for n in op.output_arg_names}
    state = [n for n in dict.fromkeys(needed_inputs(lowered) + sorted(written) + list(fetches))
             if n in persistable or (n in state_infos and n not in feed_infos and n not in written)]
    live_out = set(fetches) | set(state)
    products: set[str] = set()  # outputs of the products the C backend generates itself
    if strategy.fuse_all and strategy.fuse_gemm_epilogue and target == "c":
        products = {op.output("Out")[0] for op in lowered
                    if generated_product(op, infos, written)}
    if strategy.fuse_all:
        lowered = fuse_matmul_bias(fold_batch_norm(lowered, live_out), infos, live_out,
                                   leave=products)
    lowered, aliases = alias_views(lowered, set(feed_infos), live_out)
    live_out |= set(aliases.values())  # an aliased var's memory is read under another name
    state_views = {}
    for dst, src in aliases.items():
        if src in state:
            state_views[dst] = src
        else:
            storage[dst] = storage.setdefault(src, src)
    steps = build_steps(lowered, infos, live_out, fuse=strategy.fusion_enabled,
                        reduce_prologue=strategy.reduce_fusion_enabled,
                        row_fusion=row_fusion and strategy.reduce_fusion_enabled,
                        aliases=aliases, products=products)
    if strategy.enable_inplace:
        steps = write_in_place(steps, infos, live_out | set(feed_infos) | set(storage)
                               | set(storage.values()) | set(aliases) | set(lods))
    if strategy.fuse_all and strategy.fuse_all_optimizer_ops:
        steps = run_concurrently(steps, {**storage, **state_views})
    # A LoD that no longer covers its var's rows (the op changed them) is not handed out.
    lods = {n: v for n, v in lods.items()
            if n in infos and infos[n].shape and v[-1][-1] == infos[n].shape[0]}
    return LoweredProgram(steps, infos, list(feed_infos), list(fetches), state, storage, lods,
                          state_views)


def propagate_lod(ops: list[OpDesc], block, feed_lods: dict[str, tuple],
                  storage: dict[str, str]) -> tuple[list[OpDesc], dict[str, tuple]]:
    """Each var's LoD for this run, and LoD-reading ops given their inputs' LoD in attrs.

    Ops with a `lod` rule (sequence ops) say what their outputs carry; any other op passes the
    LoD of its first input that has one to each output declared with lod_level > 0 (pointwise
    ops, mul/fc, lookup_table, ... keep their input's rows).
    """
    lods = dict(feed_lods)
    out = []
    for op in ops:
        opdef = get_op_def(op.type)
        if opdef.lod is not None:
            in_lods = {k: [lods.get(n) for n in v] for k, v in op.inputs.items()}
            op = op.copy()
            op.attrs[LOD_ATTR] = in_lods
            ins = {k: [block.var(storage.get(n, n)).info() for n in v]
                   for k, v in op.inputs.items()}
            for slot, values in opdef.lod(in_lods, op.attrs, ins).items():
                for n, lod in zip(op.output(slot), values):
                    if lod is None:
                        lods.pop(n, None)
                    else:
                        lods[n] = lod
        else:
            src = next((lods[n] for n in op.input_arg_names if n in lods), None)
            for n in op.output_arg_names:
                v = block._find_var_recursive(storage.get(n, n))
                if src is not None and v is not None and v.lod_level > 0:
                    lods[n] = src
                else:
                    lods.pop(n, None)
        out.append(op)
    return out, lods


