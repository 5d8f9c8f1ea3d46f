"""The reference executor: every op by its numpy reference. The tests' oracle, and the fallback
where no C compiler exists."""
from __future__ import annotations

import numpy as np
import torch

from ..frontend.errors import UninitializedVarError
from ..frontend.framework import Program
from ..frontend.ops import OpDesc, VarInfo, get_op_def
from ..frontend.ops.checks import check_attrs, check_index_values
from ..passes.lower import TempNamer, infer_op
from ..passes.prune import prune_ops
from .scope import Scope
from .tensor import LoDTensor, to_torch


def run_op(op: OpDesc, values: dict[str, np.ndarray], rng: np.random.Generator) -> None:
    """Compute op's outputs into `values` by its reference (composites through their lowering)."""
    opdef = get_op_def(op.type)
    if opdef.reference is None and opdef.kind == "composite":
        infos = {n: VarInfo(a.shape, _var_type(a)) for n, a in values.items()}
        infer_op(op, infos)
        for sub in opdef.lower(op, infos, TempNamer(infos)):
            sub.attrs = get_op_def(sub.type).complete_attrs(sub.attrs)
            run_op(sub, values, rng)
        return
    ins = {k: [values[n] for n in v] for k, v in op.inputs.items()}
    if opdef.indices is not None:
        shapes = {k: [np.shape(a) for a in v] for k, v in ins.items()}
        for slot, bound in opdef.indices(shapes, op.attrs).items():
            for n, a in zip(op.input(slot), ins[slot]):
                check_index_values(torch.from_numpy(np.ascontiguousarray(a)),
                                   check_attrs(op.type, slot, n, bound))
    attrs = dict(op.attrs)
    if opdef.stateful or "seed" in attrs:
        attrs["__rng__"] = rng
    outs = opdef.reference(ins, attrs)
    for slot, names in op.outputs.items():
        for n, arr in zip(names, outs.get(slot, [])):
            if n != "@EMPTY@":
                values[n] = np.asarray(arr)


def _var_type(a: np.ndarray):
    from ..frontend.dtypes import convert_dtype
    return convert_dtype(a.dtype)


class ReferencePlan:
    """Runs a program's pruned ops one by one on numpy arrays, reading and writing the scope."""

    def __init__(self, program: Program, feeds: list[str], fetches: list[str]) -> None:
        block = program.global_block()
        self.persistable = {n for n, v in block.vars.items() if v.persistable}
        self.ops = prune_ops([op.desc for op in block.ops if op.type not in ("feed", "fetch")],
                             feeds, fetches, keep=self.persistable, run=True)
        self.fetches = fetches
        self.rng = np.random.default_rng(program.random_seed or None)

    def run(self, feed: dict[str, np.ndarray], scope: Scope, return_numpy: bool = True) -> list:
        values: dict[str, np.ndarray] = dict(feed)
        for op in self.ops:
            for n in op.input_arg_names:
                if n not in values:
                    holder = scope.find_var(n)
                    if holder is None or holder._tensor._t is None:
                        raise UninitializedVarError(f"var '{n}' read by op '{op.type}' has no value")
                    values[n] = holder._tensor.numpy().copy()
            run_op(op, values, self.rng)
        for n in self.persistable:
            if n in values:
                scope.var(n)._tensor._t = to_torch(np.array(values[n], copy=True))
        out = []
        for n in self.fetches:
            arr = values[n] if n in values else scope.find_var(n)._tensor.numpy()
            out.append(np.array(arr) if return_numpy else LoDTensor(torch.from_numpy(np.array(arr))))
        return out


