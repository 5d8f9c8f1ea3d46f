"""The pass pipeline of one run: prune -> concrete shapes -> lower -> fuse -> steps."""
from __future__ import annotations

from dataclasses import dataclass

from ..frontend.errors import FeedError
from ..frontend.framework import Program
from ..frontend.ops import VarInfo
from .fuse import Step, build_steps
from .lower import lower_ops
from .prune import needed_inputs, prune_ops
from .strategy import BuildStrategy


@dataclass
class LoweredProgram:
    """What codegen and the runtime need: steps over named buffers with concrete infos."""

    steps: list[Step]
    infos: dict[str, VarInfo]
    feeds: list[str]
    fetches: list[str]
    state: list[str]  # persistable vars the steps read or write, held in the scope


def lower_program(program: Program, feed_infos: dict[str, VarInfo], fetches: list[str],
                  state_infos: dict[str, VarInfo], strategy: BuildStrategy | None = None,
                  row_fusion: bool = True
                  ) -> LoweredProgram:
    """Run the passes over the global block for one feed signature and fetch list."""
    strategy = strategy or BuildStrategy()
    block = program.global_block()
    ops = [op.desc for op in block.ops if op.type not in ("feed", "fetch")]
    persistable = {n for n, v in block.vars.items() if v.persistable}
    ops = prune_ops(ops, feed_infos, fetches, keep=persistable)
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
    lowered = lower_ops(ops, infos)
    written = {n for op in lowered for n in op.output_arg_names}
    state = [n for n in dict.fromkeys(needed_inputs(lowered) + sorted(written) + list(fetches))
             if n in persistable or (n in state_infos and n not in feed_infos and n not in written)]
    live_out = set(fetches) | set(state)
    steps = build_steps(lowered, infos, live_out, fuse=strategy.fusion_enabled,
                        row_fusion=row_fusion)
    return LoweredProgram(steps, infos, list(feed_infos), list(fetches), state)


