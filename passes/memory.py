"""memory_optimize: buffers whose lives do not overlap share bytes of the plan's arena.

Liveness comes from the scheduler graph of the compiled steps (by storage, so views and
in-place outputs count as the memory they use), not from names in the program: nothing is
renamed, every var keeps its name and stays fetchable. `fluid.memory_optimize(program, ...)`
marks the program so that its plans plan their arena this way, keeping the vars of
skip_opt_set and, under skip_grads, the parameter gradients in bytes of their own; it reports
the arena bytes of the program compiled for `batch_size`, without and with sharing.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ..frontend.framework import Program
from .pipeline import lower_for_batch
from .scheduler import Arena
from .strategy import BuildStrategy

_OPTIMIZER_OPS = {"sgd", "momentum", "adam", "adamw", "rmsprop", "adagrad", "lamb"}


@dataclass
class MemoryOptions:
    """What memory_optimize asked of a program's plans."""

    skip: set[str] = field(default_factory=set)
    skip_grads: bool = True

    def pinned(self, block) -> set[str]:
        """The vars that keep bytes of their own."""
        grads = {n for op in block.ops if op.type in _OPTIMIZER_OPS for n in op.input("Grad")}
        return self.skip | (grads if self.skip_grads else set())


def planned_arena(program: Program, batch_size: int = 1) -> Arena:
    """The arena of the program compiled for a batch of `batch_size` (as its plans would plan
    it), fed its data vars and fetching what no op reads."""
    block = program.global_block()
    feeds = [n for n, v in block.vars.items() if v.is_data]
    read = {n for op in block.ops for n in op.input_arg_names}
    fetches = [n for op in block.ops for n in op.output_arg_names
               if n not in read and not block.var(n).persistable]
    lowered = lower_for_batch(program, feeds, list(dict.fromkeys(fetches)), batch_size,
                              BuildStrategy())
    return lowered.arena()


def memory_optimize(input_program: Program, skip_opt_set=None, print_log: bool = False,
                    level: int = 0, skip_grads: bool = True, batch_size: int = 1) -> dict:
    """Plan the program's arena with reuse; return {'before': bytes, 'after': bytes, 'reused'}.

    `level` (Fluid's 0: equal shapes, 1: any fit) is accepted for compatibility: the arena
    places buffers by byte ranges, so every fit is used.
    """
    if level not in (0, 1):
        raise ValueError(f"memory_optimize level must be 0 or 1, got {level}")
    skip = {s if isinstance(s, str) else s.name for s in (skip_opt_set or [])}
    input_program._memory_optimize = MemoryOptions(skip, skip_grads)
    input_program._bump()
    arena = planned_arena(input_program, batch_size)
    before, after, reused = arena.unshared, arena.size, arena.shares()
    if print_log:
        for n, target in reused.items():
            print(f"memory_optimize: {n} reuses the bytes of {target}")
        print(f"memory_optimize: arena bytes {before} -> {after} (batch {batch_size})")
    return {"before": before, "after": after, "reused": reused}
