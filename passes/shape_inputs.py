"""Shape inputs: ops whose output shape comes from the values of small int inputs (reshape2's
Shape and ShapeTensor, OpDef.shape_inputs). fluidc plans have concrete shapes, so such values
are folded into the op's attributes before shape inference: fed values (the executor keys its
plans on them) and values the program fixes (constants, shapes of fed vars and what is computed
from them)."""
from __future__ import annotations

import numpy as np

from ..frontend.errors import FluidcError, OpError
from ..frontend.ops import OpDesc, VarInfo, get_op_def
from ..frontend.ops.registry import EMPTY_VAR
from .lower import infer_op


def shape_input_names(ops: list[OpDesc]) -> list[str]:
    """The vars read by the shape inputs of `ops`, and those they are cast or concatenated
    from (Paddle's creation layers cast an int64 shape tensor to int32; F.pad joins zeros to a
    3-D / 4-D input's pad tensor), in order of first use."""
    writers = {n: op for op in ops for n in op.output_arg_names}
    names: dict[str, None] = {}
    for op in ops:
        for slot in get_op_def(op.type).shape_inputs:
            stack = list(reversed(op.inputs.get(slot, ())))
            while stack:
                n = stack.pop()
                if n in names:
                    continue
                names[n] = None
                if n in writers and writers[n].type in ("cast", "concat"):
                    stack.extend(reversed(writers[n].input("X")))
    return list(names)


def _program_values(ops: list[OpDesc], infos: dict[str, VarInfo], fed: dict[str, np.ndarray]):
    """value(name): what the program fixes for var `name` before it runs, or None. A var written
    once has a fixed value when its op is evaluable on fixed inputs: a fill_constant or
    assign_value (what Paddle writes for the plain ints of a shape list, paddle.assign of an
    array), a `shape` of a var whose shape `infos` gives in full (Paddle's dropout mask shape,
    paddle.shape(x)[i]), or any op without random draws or side effects over such values,
    evaluated by its numpy reference. `fed` holds only the feeds the plan is specific to (the
    executor keys it on the values of shape_input_names' feeds: read by shape inputs directly
    or through casts), besides the feed shapes; other fed values are never propagated."""
    writers: dict[str, list[OpDesc]] = {}
    for op in ops:
        for n in op.output_arg_names:
            writers.setdefault(n, []).append(op)
    cache: dict[str, np.ndarray | None] = {}
    inferred: dict[str, VarInfo] = {}

    def shape_of(name: str) -> tuple[int, ...] | None:
        if name not in infos and len(writers.get(name, [])) != 1:
            return None  # rewritten vars: their shape at the `shape` op is not known here
        if not inferred:
            inferred.update(_inferred(ops, infos))
        info = inferred.get(name)
        return tuple(info.shape) if info is not None and all(d >= 0 for d in info.shape) else None

    def value(name: str) -> np.ndarray | None:
        if name in fed:
            return fed[name]
        if name not in cache:
            cache[name] = None  # a var its own value depends on has none
            w = writers.get(name, [])
            cache[name] = _evaluate(w[0], name, value, shape_of) if len(w) == 1 else None
        return cache[name]
    return value


def _inferred(ops: list[OpDesc], infos: dict[str, VarInfo]) -> dict[str, VarInfo]:
    """The shapes of the vars the ops write, inferred in program order from `infos` up to the
    first op whose shape cannot be inferred yet (it reads a shape input not folded)."""
    out = dict(infos)
    for op in ops:
        try:
            infer_op(op, out)
        except FluidcError:
            break
    return out


def _evaluate(op: OpDesc, name: str, value, shape_of) -> np.ndarray | None:
    """The value `op` writes into `name`, from fixed inputs, or None."""
    if op.type == "shape":
        shape = shape_of(op.input("Input")[0])
        return None if shape is None else np.array(shape, np.int32)
    opdef = get_op_def(op.type)
    if opdef.stateful or opdef.side_effect or opdef.reference is None:
        return None
    ins = {}
    for slot, names in op.inputs.items():
        vals = [value(n) for n in names if n != EMPTY_VAR]
        if any(v is None for v in vals):
            return None
        if vals:
            ins[slot] = vals
    outs = opdef.reference(ins, opdef.complete_attrs(op.attrs))
    slot, i = next((k, names.index(name)) for k, names in op.outputs.items() if name in names)
    return np.asarray(outs[slot][i])


def fold_shape_inputs(ops: list[OpDesc], fed: dict[str, np.ndarray],
                      infos: dict[str, VarInfo]) -> list[OpDesc]:
    """`ops` with every shape input folded into its op's attributes, from the fed values or
    what the program fixes (_program_values, given the shapes of the fed and state vars in
    `infos`); an OpError names an op whose shape input has neither."""
    if not any(get_op_def(op.type).shape_inputs for op in ops):
        return ops
    fixed = _program_values(ops, infos, fed)
    out = []
    for op in ops:
        opdef = get_op_def(op.type)
        given = [s for s in opdef.shape_inputs if op.inputs.get(s)]
        if not given:
            out.append(op)
            continue
        values = {s: [fixed(n) for n in op.inputs[s]] for s in given}
        missing = [n for s in given for n, v in zip(op.inputs[s], values[s]) if v is None]
        if missing:
            raise OpError(f"op '{op.type}': its shape input(s) {missing} must be fed, or be "
                          f"computed from constants and the shapes of fed vars; fluidc needs "
                          f"their values to plan the run")
        attrs = opdef.fold(dict(op.attrs), values)
        inputs = {k: v for k, v in op.inputs.items() if k not in given}
        out.append(OpDesc(op.type, inputs, dict(op.outputs), attrs))
    return out
