"""The reference executor: every op by its numpy reference. The tests' oracle, and the fallback
where no C compiler exists."""
from __future__ import annotations

import numpy as np
from fluidc.frontend.lazy_import import torch

from ..frontend.errors import LoDFetchError, OpError, UninitializedVarError
from ..frontend.bfloat16 import BITS
from ..frontend.dtypes import VarType
from ..frontend.framework import Program
from ..frontend.ops import OpDesc, VarInfo, get_op_def
from ..frontend.ops.checks import check_attrs, check_index_values
from ..frontend.ops.control_flow import is_true
from ..frontend.ops.registry import EMPTY_VAR, GRAD_SUFFIX, LOD_ATTR, grad_name
from ..frontend.ops.lod_rank import RankTable
from ..frontend.ops.tensor_array import add_values, copy_value, zeros_of
from ..passes.control_flow import (COUNTERS, UPDATES, attach_blocks, forward_block,
                                   grad_block_inputs, grad_block_outputs,
                                   has_sub_blocks, read_kept_outputs, sub_block, unversioned)
from ..passes.bfloat16 import in_float32
from ..passes.lower import TempNamer, infer_op
from ..passes.empty_inputs import unbind_empty_inputs
from ..passes.prune import prune_ops
from ..passes.while_grad import body_versions
from .control_flow import step_order
from .scope import Scope
from .tensor import LoDTensor, to_torch


def run_op(op: OpDesc, values: dict[str, np.ndarray], rng: np.random.Generator) -> None:
    """Compute op's outputs into `values` by its reference (composites through their lowering)."""
    opdef = get_op_def(op.type)
    if op.type == "fill_zeros_like" and values.get(op.input("X")[0], 0) is None:
        # the grad of an untaken branch's output, which is uninitialized (no shape): so is it
        values[op.output("Out")[0]] = None
        return
    if opdef.kind == "control":
        _run_control(op, values, rng)
        for n in op.output_arg_names:
            if lod_key(n) not in values:
                _keep_lod(n, _grad_lod(n, values), values)
        return
    if opdef.kind == "array":
        ins = {k: [values.get(n) for n in v] for k, v in op.inputs.items()}
        current = {k: [values.get(n) for n in v] for k, v in op.outputs.items()}
        lods = {**_in_lods(op, values), **{  # an output updated in place is read too
            slot: [values.get(lod_key(n)) for n in op.outputs.get(slot, [])]
            for slot in opdef.updates}}
        _store(op, opdef.reference(ins, {**op.attrs, LOD_ATTR: lods}, current), values)
        return
    if any(isinstance(values.get(n), list) for n in op.input_arg_names):
        _run_entrywise(op, values, rng)
        return
    if _reads_or_makes_bfloat16(op, values):
        infos = {n: VarInfo(np.shape(values[n]), _var_type(values[n]))
                 for n in op.input_arg_names if isinstance(values.get(n), np.ndarray)}
        infer_op(op, infos)
        subs = in_float32(op, infos, TempNamer(infos, prefix="@bf16@"))
        if subs is not None:  # as the compiled plan computes it (passes/bfloat16.py)
            for sub in subs:
                run_op(sub, values, rng)
            return
    if opdef.reference is None and opdef.kind == "composite":
        infos = {n: VarInfo(a.shape, _var_type(a)) for n, a in values.items()
                 if isinstance(a, np.ndarray)}
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
    track = opdef.lod is not None and LOD_ATTR not in attrs  # not a lowered copy
    if track:
        attrs[LOD_ATTR] = _in_lods(op, values)
    outs = opdef.reference(ins, attrs)
    if track:
        infos = {k: [VarInfo(np.shape(a), _var_type(np.asarray(a)), len(lod or ()))
                     for a, lod in zip(v, attrs[LOD_ATTR][k])] for k, v in ins.items()}
        outs = {**outs, LOD_ATTR: opdef.lod(attrs[LOD_ATTR], attrs, infos)}
    _store(op, outs, values)


def _reads_or_makes_bfloat16(op: OpDesc, values: dict) -> bool:
    return any(getattr(values.get(n), "dtype", None) == BITS for n in op.input_arg_names) or \
        any(op.attrs.get(k) == VarType.BF16 for k in ("dtype", "out_dtype"))


def lod_key(name: str) -> tuple:
    """The key (never a var name) under which the value table keeps a var's LoD."""
    return ("lod", name)


def _in_lods(op: OpDesc, values: dict) -> dict:
    return {k: [values.get(lod_key(n)) for n in v] for k, v in op.inputs.items()}


def _store(op: OpDesc, outs: dict, values: dict) -> None:
    """The op's outputs into the table, with their LoD: the one its reference gives (under
    LOD_ATTR: ops reading LoD, the LoD-splitting ops), else the LoD of the input the op shares
    (OpDef.lod_input, as Paddle's ShareLoD), for outputs of that input's rows."""
    lods = outs.get(LOD_ATTR)
    shared = get_op_def(op.type).lod_input(op)
    src = values.get(lod_key(shared)) if shared is not None else None
    src = None if isinstance(src, list) else src
    for slot, names in op.outputs.items():
        for i, (n, arr) in enumerate(zip(names, outs.get(slot, []))):
            if n == "@EMPTY@":
                continue
            values[n] = arr if isinstance(arr, (list, RankTable)) else np.asarray(arr)
            lod = (lods.get(slot) or [None] * (i + 1))[i] if lods is not None else src
            if isinstance(arr, list) and lod is not None:  # an array: its entries' LoDs
                values[lod_key(n)] = list(lod)
            else:
                _keep_lod(n, lod or _grad_lod(n, values), values)


def _grad_lod(name: str, values: dict):
    """A grad var's LoD where nothing else gave one: its forward var's (as Paddle's grad ops
    share it)."""
    return values.get(lod_key(name[:-len(GRAD_SUFFIX)])) if name.endswith(GRAD_SUFFIX) else None


def _keep_lod(name: str, lod, values: dict) -> None:
    """Record `lod` as the var's if it covers the value's rows, else drop its LoD."""
    value = values.get(name)
    if lod and not isinstance(lod, list) and isinstance(value, np.ndarray) and value.ndim and \
            lod[-1][-1] == value.shape[0]:
        values[lod_key(name)] = tuple(tuple(level) for level in lod)
    else:
        values.pop(lod_key(name), None)


_ENTRYWISE = ("assign", "fill_zeros_like", "sum", "rnn_memory_helper")


def _run_entrywise(op: OpDesc, values: dict, rng: np.random.Generator) -> None:
    """An op over tensor arrays (assign, fill_zeros_like, sum of array grads, as Paddle's
    kernels for arrays): run on each index's entries, its outputs arrays; a sum skips missing
    entries, other ops leave the index's outputs missing."""
    if op.type not in _ENTRYWISE:
        raise OpError(f"op '{op.type}' does not take tensor arrays (its inputs "
                      f"{[n for n in op.input_arg_names if isinstance(values.get(n), list)]} "
                      f"are); read their entries with array_read")
    arrays = [values[n] for n in op.input_arg_names if isinstance(values.get(n), list)]
    outs: dict[str, list] = {n: [] for n in op.output_arg_names}
    for k in range(max(len(a) for a in arrays)):
        local = {}
        for n in op.input_arg_names:
            v = values.get(n)
            local[n] = (v[k] if k < len(v) else None) if isinstance(v, list) else v
        sub = op.copy()
        if op.type == "sum":
            sub.inputs["X"] = [n for n in op.input("X") if local[n] is not None]
        if not sub.input_arg_names or any(local[n] is None for n in sub.input_arg_names):
            for n in outs:
                outs[n].append(None)
            continue
        run_op(sub, local, rng)
        for n in outs:
            outs[n].append(local[n])
    values.update(outs)


def _run_block(block, values: dict[str, np.ndarray], rng: np.random.Generator) -> None:
    for op in attach_blocks([o.desc for o in block.ops], block.program):
        run_op(op, values, rng)


def _run_control(op: OpDesc, values: dict[str, np.ndarray], rng: np.random.Generator) -> None:
    """Paddle's semantics over one value table: run the block while / if the condition holds;
    a conditional_block_grad runs its forward block, then its grad block (zeros if untaken).
    An op naming versions of vars (x@@v1, in a while_grad's block) runs over a table where its
    blocks see them under their names."""
    names = op.input_arg_names + op.output_arg_names
    if any(unversioned(n) != n for n in names):
        local = {**values, **{unversioned(n): values[n] for n in op.input_arg_names
                              if n in values}}
        plain = op.copy()
        for slots in (plain.inputs, plain.outputs):
            for slot, ns in slots.items():
                slots[slot] = [unversioned(n) for n in ns]
        _run_control(plain, local, rng)
        values.update((k, v) for k, v in local.items() if isinstance(k, tuple))  # tapes
        values.update((n, local[unversioned(n)]) for n in op.output_arg_names
                      if n != EMPTY_VAR and unversioned(n) in local)
        return
    if op.type == "while":  # each iteration's values kept for a while_grad: the loop vars',
        # and the other inputs' as the loop began (a later op may overwrite them)
        tape = values[_tape(sub_block(op))] = []
        fixed = {n: copy_value(values[n]) if isinstance(values[n], (np.ndarray, list))
                 else values[n]  # a rank table is never written
                 for n in op.input("X") if n in values and n not in op.output("Out")}
        while is_true(values[op.input("Condition")[0]], True, "while"):
            tape.append({**fixed, **{n: copy_value(values[n]) for n in op.output("Out")
                                     if n in values}})
            _run_block(sub_block(op), values, rng)
        return
    if op.type == "while_grad":
        _run_while_grad(op, values, rng)
        return
    if op.type in ("recurrent", "recurrent_grad"):
        (_run_recurrent if op.type == "recurrent" else _run_recurrent_grad)(op, values, rng)
        return
    scalar = bool(op.attrs.get("is_scalar_condition", False))
    taken = all(is_true(np.asarray(values[c]), scalar, op.type) for c in op.input("Cond"))
    if op.type == "conditional_block":
        if taken:  # what its grad's recompute starts from
            values[_entered(sub_block(op))] = {n: copy_value(values[n])
                                              for n in op.input("Input") if n in values}
            _run_block(sub_block(op), values, rng)
        else:  # uninitialized, as in Paddle: only select_input (which skips it) reads it
            values.update((n, None) for n in op.outputs.get("Out", []) if n not in values)
        return
    if op.type != "conditional_block_grad":
        raise OpError(f"op '{op.type}' cannot run in fluidc (no gradient of while loops)")
    pairs = grad_block_outputs(op)
    local = dict(values)
    if taken:  # the forward block recomputed from the values it began with, apart
        local.update(values.get(_entered(forward_block(op)), {}))
        _run_block(forward_block(op), local, rng)
        _run_block(sub_block(op), local, rng)
        # what its grad block updates (an optimizer minimizing in the branch) is kept
        values.update((n, local[n]) for n in op.outputs.get(UPDATES, []))
    # untaken, a var the block would overwrite keeps its value: its grad passes through
    out_grads = dict(zip(op.input("Out"), op.input("Out@GRAD")))
    for (outer, inner), (x, _) in zip(pairs, grad_block_inputs(op)):
        if taken:
            values[outer] = local[inner]
        else:
            values[outer] = values[out_grads[x]] if x in out_grads else zeros_of(values[x])


def _entered(block) -> tuple:
    """The key (never a var name) under which a taken conditional_block keeps the values of
    its inputs as they entered it."""
    return ("cond entry", block.idx)


def _tape(body) -> tuple:
    """The key (never a var name) under which a while keeps its iterations' values."""
    return ("while tape", body.idx)


def _run_while_grad(op: OpDesc, values: dict, rng: np.random.Generator) -> None:
    """The grad block per forward iteration, last first, over the values it began with (as
    runtime/control_flow.py runs it): loop vars' grads carried back, other inputs' summed."""
    body, grad_block = forward_block(op), sub_block(op)
    outs = op.input("Out")  # names as the body knows them (_run_control unversions them)
    exits = body_versions(body, outs)[1]
    seeds = {x: grad_name(e) for x, e in exits.items() if grad_block.has_var(grad_name(e))}
    carried = {x: values[g] for x, g in zip(outs, op.input("Out@GRAD")) if x in seeds}
    wanted = [(x, g) for x, g in zip(op.input("X"), op.output("X@GRAD")) if g != EMPTY_VAR]
    summed = {x: None for x, _ in wanted if x not in seeds}
    steps = values.get(_tape(body))
    if steps is None:
        raise OpError(f"op 'while_grad' of block {body.idx}: its while loop has not run first")
    for step in reversed(steps):
        local = {**values, **step, **{seeds[x]: g for x, g in carried.items()}}
        _run_block(grad_block, local, rng)
        carried = {x: local[grad_name(x)] for x in seeds}
        summed = {x: add_values(t, local[grad_name(x)]) for x, t in summed.items()}
    for x, g in wanted:
        got = carried[x] if x in carried else summed[x]
        values[g] = zeros_of(values[x]) if got is None else got
    for n in op.outputs.get(COUNTERS, []):  # back to their value before the loop
        if steps:
            values[n] = copy_value(steps[0][n])


def _step_values(op: OpDesc, values: dict, t: int, mems: list) -> dict:
    """The table a recurrent op's step t sees: the inputs' slices and the memories."""
    return {**values, **{x: values[x][t] for x in op.inputs.get("inputs", [])},
            **dict(zip(op.attrs["ex_states"], mems))}


def _run_recurrent(op: OpDesc, values: dict, rng: np.random.Generator) -> None:
    """StaticRNN's steps (as runtime/control_flow.py runs them), each step's memories kept."""
    a, block = op.attrs, sub_block(op)
    seq_len = np.shape(values[op.input("inputs")[0]])[0]
    mems = [values[n] for n in op.inputs.get("initial_states", [])]
    tape = values[_tape(block)] = []
    outs = {n: [None] * seq_len for n in op.outputs.get("outputs", [])}
    for t in step_order(seq_len, a["reverse"]):
        tape.append([copy_value(m) for m in mems])
        local = _step_values(op, values, t, mems)
        _run_block(block, local, rng)
        mems = [local[n] for n in a["states"]]
        for n, steps in outs.items():
            steps[t] = local[n]
    values.update((n, np.stack(steps)) for n, steps in outs.items())


def _run_recurrent_grad(op: OpDesc, values: dict, rng: np.random.Generator) -> None:
    """The grad block per step, last first: input slices' grads, parameters' summed, the
    memories' carried back to the initial states."""
    a, body, grad_block = op.attrs, forward_block(op), sub_block(op)
    steps = values.get(_tape(body))
    if steps is None:
        raise OpError(f"op 'recurrent_grad' of block {body.idx}: its recurrent op has not run "
                      f"first")
    ex = [x for x in a["ex_states"] if grad_block.has_var(grad_name(x))]
    states = dict(zip(a["ex_states"], a["states"]))
    inits = dict(zip(a["ex_states"], op.inputs.get("initial_states", [])))
    outs = [(grad_name(n), g) for n, g in zip(op.inputs.get("outputs", []),
                                               op.inputs.get("outputs@GRAD", []))
            if grad_block.has_var(grad_name(n))]
    wanted = {slot: [(x, g) for x, g in zip(op.inputs.get(slot, []),
                                            op.outputs.get(slot + "@GRAD", []))
                     if g != EMPTY_VAR] for slot in ("inputs", "parameters")}
    carried = {x: zeros_of(values[inits[x]]) for x in ex}
    summed = {x: zeros_of(values[x]) for x, _ in wanted["parameters"]}
    slices = {x: zeros_of(values[x]) for x, _ in wanted["inputs"]}
    order = list(step_order(np.shape(values[op.input("inputs")[0]])[0], a["reverse"]))
    for t, mems in reversed(list(zip(order, steps))):
        local = {**_step_values(op, values, t, mems),
                 **{grad_name(states[x]): g for x, g in carried.items()},
                 **{n: values[g][t] for n, g in outs}}
        _run_block(grad_block, local, rng)
        carried = {x: local[grad_name(x)] for x in ex}
        for x, arr in slices.items():
            arr[t] = local[grad_name(x)]
        summed = {x: total + local[grad_name(x)] for x, total in summed.items()}
    for slot, got in (("inputs", slices), ("parameters", summed)):
        values.update((g, got[x]) for x, g in wanted[slot])
    values.update((g, carried[x]) for x, g in zip(
        a["ex_states"], op.outputs.get("initial_states@GRAD", [])) if g != EMPTY_VAR)


def uses_tensor_arrays(program: Program) -> bool:
    """Whether a block of the program declares a tensor array or holds a host op (kind
    'array': split_lod_tensor too, whose outputs' rows depend on its Mask's values): such a
    program runs here, op by op (an array's length is known at run time only; compiled plans
    hold fixed shapes)."""
    return any(v.type == VarType.LOD_TENSOR_ARRAY for b in program.blocks
               for v in b.vars.values()) or any(
        get_op_def(op.type).kind == "array" for b in program.blocks for op in b.ops
        if op.type not in ("feed", "fetch"))


def _var_type(a: np.ndarray):
    from ..frontend.dtypes import convert_dtype
    return convert_dtype(a.dtype)


class ReferencePlan:
    """Runs a program's pruned ops one by one on numpy arrays, reading and writing the scope."""

    def __init__(self, program: Program, feeds: list[str], fetches: list[str],
                 lods: dict | None = None) -> None:
        block = program.global_block()
        self.lods = {lod_key(n): lod for n, lod in (lods or {}).items()}  # the fed LoDs
        self.persistable = {n for n, v in block.vars.items() if v.persistable}
        ops = [op.desc for op in block.ops if op.type not in ("feed", "fetch")]
        if has_sub_blocks(program):
            ops = read_kept_outputs(attach_blocks(ops, program), set(feeds) | self.persistable)
        self.ops = prune_ops(ops, feeds, fetches, keep=self.persistable, run=True)
        self.fetches = fetches
        self.rng = np.random.default_rng(program.random_seed or None)
        # tensor arrays start empty in each run (one kept in the scope is not supported)
        self.arrays = [n for n, v in block.vars.items() if v.type == VarType.LOD_TENSOR_ARRAY]

    def run(self, feed: dict[str, np.ndarray], scope: Scope, return_numpy: bool = True) -> list:
        values: dict[str, np.ndarray] = {**{n: [] for n in self.arrays}, **feed, **self.lods}
        for op in self.ops:
            op = unbind_empty_inputs(op, lambda n: n in values or _has_value(scope, n))
            for n in op.input_arg_names:
                if n not in values:
                    if not _has_value(scope, n):
                        raise UninitializedVarError(f"var '{n}' read by op '{op.type}' has no value")
                    holder = scope.find_var(n)
                    values[n] = holder._tensor.numpy().copy()
                    if holder._tensor._lod:
                        values[lod_key(n)] = tuple(map(tuple, holder._tensor._lod))
            run_op(op, values, self.rng)
        for n in self.persistable:
            if n not in values:
                continue
            value, lod = values[n], values.get(lod_key(n))
            if isinstance(value, RankTable):
                scope.var(n)._other = value
            elif isinstance(value, list):  # an array: its entries, as a fetch gives them
                scope.var(n)._other = [None if v is None else _fetched(v, False, entry)
                                       for v, entry in zip(value, lod or [None] * len(value))]
            else:
                tensor = scope.var(n)._tensor
                tensor._t = to_torch(np.array(value, copy=True))
                tensor.set_lod(lod or ())
        out = []
        for n in self.fetches:
            arr = values[n] if n in values else scope.find_var(n)._tensor.numpy()
            lod = values.get(lod_key(n))
            out.append([_fetched(a, return_numpy, entry) for a, entry in
                        zip(arr, lod or [None] * len(arr))] if isinstance(arr, list)
                       else _fetched(arr, return_numpy, lod))
        return out  # an array: a list, as Paddle's


def _has_value(scope: Scope, name: str) -> bool:
    holder = scope.find_var(name)
    return holder is not None and holder._tensor._t is not None


def _fetched(arr, return_numpy: bool, lod=None):
    if return_numpy:
        if lod:
            raise LoDFetchError()
        return np.array(arr)
    return LoDTensor(torch.from_numpy(np.array(arr)), [list(level) for level in lod or ()])


