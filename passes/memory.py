"""memory_optimize: liveness over the op order and reuse of dead buffers by renaming, as Fluid did.

A non-persistable var defined by an op may take over the name (and so the buffer) of a var whose
last use came before that op, when both have one dtype and (level 0) the same shape or (level 1)
the same batch dim position and no more elements. Gradients named in the optimizer ops'
(param, grad) pairs keep their names under skip_grads; skip_opt_set names vars to leave alone.
"""
from __future__ import annotations

import numpy as np

from ..frontend.dtypes import VarType, to_numpy_dtype
from ..frontend.framework import Program

_OPTIMIZER_OPS = {"sgd", "momentum", "adam", "adamw", "rmsprop", "adagrad", "lamb"}


def _bytes(shape, dtype, batch: int) -> int:
    n = int(np.prod([batch if d < 0 else d for d in shape])) if shape else 1
    return n * to_numpy_dtype(dtype).itemsize


def peak_bytes(program: Program, batch_size: int = 1) -> int:
    """Bytes of the non-persistable buffers a run of the program holds (-1 dims = batch_size).

    fluidc keeps every buffer of a compiled plan for the plan's life (no allocation per run), so
    the peak is all distinct non-persistable vars the ops touch at once: what renaming lowers.
    """
    block = program.global_block()
    names = {n for op in block.ops for n in op.input_arg_names + op.output_arg_names}
    return sum(_bytes(block.var(n).shape, block.var(n).dtype, batch_size)
               for n in names if _counted(block, n))


def _counted(block, name: str) -> bool:
    v = block._find_var_recursive(name)
    return v is not None and not v.persistable and v.type == VarType.LOD_TENSOR


def _grad_names(block) -> set[str]:
    names = set()
    for op in block.ops:
        if op.type in _OPTIMIZER_OPS:
            names.update(op.input("Grad"))
    return names


def _fits(cached, var, level: int) -> bool:
    if cached.dtype != var.dtype:
        return False
    if level == 0:
        return tuple(cached.shape) == tuple(var.shape)
    if (-1 in cached.shape) != (-1 in var.shape):
        return False
    if -1 in var.shape and list(cached.shape).index(-1) != list(var.shape).index(-1):
        return False
    size = lambda s: int(np.prod([1 if d < 0 else d for d in s]))  # noqa: E731
    return size(cached.shape) >= size(var.shape)


def memory_optimize(input_program: Program, skip_opt_set=None, print_log: bool = False,
                    level: int = 0, skip_grads: bool = True, batch_size: int = 1) -> dict:
    """Rename vars onto dead buffers in place; return {'before': bytes, 'after': bytes, 'reused'}."""
    if level not in (0, 1):
        raise ValueError(f"memory_optimize level must be 0 or 1, got {level}")
    block = input_program.global_block()
    before = peak_bytes(input_program, batch_size)
    skip = {s if isinstance(s, str) else s.name for s in (skip_opt_set or [])}
    if skip_grads:
        skip |= _grad_names(block)
    ops = block.ops
    readers: dict[str, list[int]] = {}
    writers: dict[str, list[int]] = {}
    for i, op in enumerate(ops):
        for n in op.input_arg_names:
            readers.setdefault(n, []).append(i)
        for n in op.output_arg_names:
            writers.setdefault(n, []).append(i)

    def candidate(n: str) -> bool:
        # Vars nobody reads are what users fetch: leave them (and data vars) where they are.
        v = block._find_var_recursive(n)
        return (n not in skip and _counted(block, n) and not v.is_data and n in readers
                and len(writers.get(n, [])) == 1)

    last_use = {n: max(readers.get(n, []) + writers.get(n, [])) for n in set(readers) | set(writers)}
    renames: dict[str, str] = {}
    pool: list[str] = []  # buffers whose current occupant is dead
    for i, op in enumerate(ops):
        for n in op.output_arg_names:
            if not candidate(n) or n in renames:
                continue
            var = block.var(n)
            for j, cached in enumerate(pool):
                if _fits(block.var(cached), var, level):
                    renames[n] = pool.pop(j)
                    break
        # After the op (so no op reads and writes one buffer), free what it used last.
        for n in dict.fromkeys(op.input_arg_names + op.output_arg_names):
            if last_use[n] == i and candidate(n):
                pool.append(renames.get(n, n))
    for op in ops:
        for slots in (op.desc.inputs, op.desc.outputs):
            for slot, names in slots.items():
                slots[slot] = [renames.get(n, n) for n in names]
    for n in renames:
        block._remove_var(n)
    input_program._memory_renames = dict(renames)
    input_program._bump()
    after = peak_bytes(input_program, batch_size)
    if print_log:
        for n, target in renames.items():
            print(f"memory_optimize: {n} reuses the buffer of {target}")
        print(f"memory_optimize: peak non-persistable bytes {before} -> {after} "
              f"(batch {batch_size})")
    return {"before": before, "after": after, "reused": dict(renames)}
