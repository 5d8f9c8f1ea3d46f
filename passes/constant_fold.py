"""fold_constants: values computed from constants alone are computed once, while compiling.

Constants are the outputs of fill_constant and assign_value (without tensor inputs). An op
whose inputs are all constants, that draws no random numbers, has a numpy reference and makes
small outputs is evaluated with that reference and replaced by assign_value ops holding its
results, which are constants in turn; prune then drops what no longer feeds anything.
"""
from __future__ import annotations

import math

import numpy as np

from ..frontend.dtypes import convert_dtype, to_numpy_dtype
from ..frontend.ops import OpDesc, VarInfo, get_op_def
from ..frontend.ops.registry import EMPTY_VAR
from .fuse import Extern

# Results larger than this stay computed at run time: an assign_value turns its attr list into
# an array on every run, which costs more than most small computations it would replace.
MAX_ELEMENTS = 64
_VALUE_KEY = {"float32": "fp32_values", "float64": "fp64_values", "int32": "int32_values",
              "int64": "int64_values", "bool": "bool_values"}
_SOURCES = ("fill_constant", "assign_value")


def assign_value(name: str, value: np.ndarray) -> OpDesc:
    """An assign_value op writing `value` into var `name`."""
    values = value.reshape(-1).tolist()
    return OpDesc("assign_value", {}, {"Out": [name]},
                  {"shape": list(value.shape), "dtype": int(convert_dtype(value.dtype)),
                   _VALUE_KEY[value.dtype.name]: values})


def fold_constants(ops: list[OpDesc], infos: dict[str, VarInfo]) -> list[OpDesc]:
    """The (lowered: primitive) ops with every all-constant computation replaced by its
    results (see the module doc)."""
    known: dict[str, np.ndarray] = {}
    out: list[OpDesc] = []
    for op in ops:
        opdef = get_op_def(op.type)
        names = [n for n in op.output_arg_names if n != "@EMPTY@"]
        small = all(n in infos and math.prod(infos[n].shape) <= MAX_ELEMENTS
                    and to_numpy_dtype(infos[n].dtype).name in _VALUE_KEY for n in names)
        reads = op.input_arg_names
        source = op.type in _SOURCES and not reads
        foldable = (small and not opdef.stateful and not opdef.side_effect
                    and "seed" not in op.attrs and names
                    and (source or (reads and all(n in known for n in reads)))
                    and opdef.reference is not None)
        if not foldable:
            for n in names:
                known.pop(n, None)  # a later write makes it unknown again
            out.append(op)
            continue
        results = opdef.reference({k: [known[n] for n in v] for k, v in op.inputs.items()},
                                  op.attrs)
        for slot, outs in op.outputs.items():
            for n, value in zip(outs, results.get(slot, [])):
                if n != "@EMPTY@":
                    known[n] = np.asarray(value, dtype=to_numpy_dtype(infos[n].dtype), order="C")
        if source:
            out.append(op)
        else:
            out += [assign_value(n, known[n]) for n in names]
    return out


def once_per_binding(graph) -> set[str]:
    """The vars the runtime may write once per binding of a plan rather than on every run: the
    outputs of fill_constant / assign_value library calls (no inputs) that are not fed, fetched
    or persistable, in storages no other step writes (a SchedulerGraph's). Each such call
    costs a few microseconds a run, which an eager op's small plan feels."""
    out: set[str] = set()
    for step in graph.steps:
        if not (isinstance(step, Extern) and step.op.type in _SOURCES
                and not step.op.input_arg_names):
            continue
        names = [n for n in step.op.output_arg_names if n != EMPTY_VAR]
        stores = {graph.storage(n) for n in names}
        if names and not stores & (graph.live_in | graph.live_out) \
                and all(sum(s in w for w in graph.writes) == 1 for s in stores):
            out.update(names)
    return out
