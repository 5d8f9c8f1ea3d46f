"""Helpers that turn one expression into a complete op definition (infer, reference, grad)."""
from __future__ import annotations

import itertools
from typing import Any, Callable

import numpy as np

from ..dtypes import to_numpy_dtype, convert_dtype
from ..errors import ShapeError
from .expr import ExprBuilder, reachable
from .handler import numpy_handler
from .registry import (EMPTY_VAR, OpDef, OpDesc, Unkeyed, VarInfo, attr_key, get_op_def,
                       grad_name, register, slots)

Shape = tuple[int, ...]


def broadcast_shape(a: Shape, b: Shape, op: str = "?") -> Shape:
    """numpy broadcasting of two shapes, with -1 for dims unknown until a feed arrives."""
    n = max(len(a), len(b))
    a = (1,) * (n - len(a)) + tuple(a)
    b = (1,) * (n - len(b)) + tuple(b)
    out = []
    for x, y in zip(a, b):
        if x == y or y == 1:
            out.append(x)
        elif x == 1:
            out.append(y)
        elif x == -1 or y == -1:
            out.append(max(x, y))
        else:
            raise ShapeError(f"op '{op}': shapes {list(a)} and {list(b)} do not broadcast")
    return tuple(out)


def align_to(shape: Shape, rank: int, axis: int = -1) -> Shape:
    """Paddle's elementwise axis: place `shape` at `axis` of a rank-`rank` shape (-1: trailing)."""
    shape = tuple(shape)
    # Paddle drops trailing 1s of Y when matching at an explicit axis.
    if axis == -1 or axis is None:
        axis = rank - len(shape)
    while len(shape) > 1 and axis + len(shape) > rank and shape[-1] == 1:
        shape = shape[:-1]
    if axis < 0 or axis + len(shape) > rank:
        raise ShapeError(f"shape {list(shape)} does not fit rank {rank} at axis {axis}")
    return (1,) * axis + shape + (1,) * (rank - axis - len(shape))


def numpy_broadcast(attrs: dict, shapes: dict[str, Shape], out_rank: int) -> dict[str, Shape]:
    """Default input alignment: numpy's, trailing dims matched."""
    return {k: (1,) * (out_rank - len(s)) + tuple(s) for k, s in shapes.items()}


def elementwise_broadcast(attrs: dict, shapes: dict[str, Shape], out_rank: int) -> dict[str, Shape]:
    """elementwise_* alignment: the smaller operand sits at `axis` of the larger."""
    x, y = shapes["X"], shapes["Y"]
    axis = attrs.get("axis", -1)
    if len(x) >= len(y):
        return {"X": align_to(x, out_rank), "Y": align_to(y, out_rank, axis)}
    return {"X": align_to(x, out_rank, axis), "Y": align_to(y, out_rank)}


def _first(infos: dict[str, list[VarInfo]], slot_names) -> VarInfo:
    for s in slot_names:
        if infos.get(s):
            return infos[s][0]
    raise ShapeError("op has no inputs to infer from")


def aligned_shapes(opdef: OpDef, attrs: dict, shapes: dict[str, list[Shape]],
                   rank: int) -> dict[str, list[Shape]]:
    """Each input var's shape aligned (padded with 1s) to the rank-`rank` iteration space."""
    first = opdef.broadcast(attrs, {k: v[0] for k, v in shapes.items()}, rank)
    out = {}
    for k, v in shapes.items():
        # Every var of a duplicable slot aligns like its first one.
        out[k] = [first[k]] + [(1,) * (rank - len(s)) + tuple(s) for s in v[1:]]
    return out


def _in_values(opdef: OpDef, values: dict[str, list]) -> dict[str, Any]:
    """What an expr receives: one value per slot, or the list of them for duplicable slots."""
    dup = {s.name for s in opdef.inputs if s.duplicable}
    return {k: (v if k in dup else v[0]) for k, v in values.items() if v}


def value_inputs(op: OpDesc, infos: dict[str, VarInfo]) -> list[str]:
    """The inputs whose values an op reads. A pointwise op's expression may use an input only
    for its shape (elementwise_add_grad_x reads neither X nor Y): such inputs are left out, so
    their buffers need not live until the op runs."""
    opdef = get_op_def(op.type)
    names = op.input_arg_names
    if opdef.kind != "pointwise":
        return names
    flat = [n for v in op.inputs.values() for n in v]
    firsts = tuple(flat.index(n) for n in flat)  # a var in two slots is one load
    try:  # what the expression reads depends on these alone, not on the var names
        key = (op.type, tuple((k, len(v)) for k, v in op.inputs.items()), firsts,
               tuple(int(infos[n].dtype) for n in flat),
               tuple((k, attr_key(v)) for k, v in op.attrs.items()))
    except Unkeyed:
        key = None
    used = _READS.get(key) if key is not None else None
    if used is None:
        b = ExprBuilder()
        loads = [b.load(i, to_numpy_dtype(infos[flat[i]].dtype)) for i in firsts]
        it = iter(loads)
        res = opdef.expr(b, _in_values(opdef, {k: [next(it) for _ in v]
                                               for k, v in op.inputs.items()}),
                         opdef.complete_attrs(op.attrs))
        used = frozenset(n.args[0] for n in reachable(list(res.values())) if n.op == "load")
        if key is not None:
            if len(_READS) >= _MAX_READS:
                _READS.clear()
            _READS[key] = used
    read = {flat[i] for i in used}
    return [n for n in names if n in read]


# value_inputs' answers by op structure: (type, slot sizes, repeats, dtypes, attrs) -> the
# positions (in slot order) of the inputs read. Bounded: cleared when full.
_READS: dict[tuple, frozenset[int]] = {}
_MAX_READS = 4096


# Handler methods numpy defines on complex numbers as Paddle's complex kernels do (no ordering,
# no abs, which would be real).
_COMPLEX_METHODS = frozenset({"load", "constant", "cast", "add", "sub", "mul", "truediv", "neg",
                              "exp", "log", "sqrt", "tanh", "pow", "where", "eq", "ne"})


def computes_on_complex(op_type: str, dtypes: dict[str, list], attrs: dict) -> bool:
    """Whether a pointwise op, given inputs of these dtypes (slot -> dtypes), computes its
    complex values as Paddle does: its expression uses only complex-safe handler methods
    and casts no complex value to a real dtype."""
    opdef = get_op_def(op_type)
    if opdef.kind != "pointwise":
        return False
    b, operand = ExprBuilder(), itertools.count()
    loads = {slot: [b.load(next(operand), to_numpy_dtype(d)) for d in ds]
             for slot, ds in dtypes.items()}
    res = opdef.expr(b, _in_values(opdef, loads), opdef.complete_attrs(attrs))
    return all(n.op in _COMPLEX_METHODS and not (
        n.op == "cast" and n.dtype.kind != "c" and n.args[0].dtype.kind == "c")
        for n in reachable(list(res.values())))


def _one_value_slots(type: str, broadcast: Callable, scalars: tuple[str, ...]) -> Callable:
    """`broadcast` for the other slots; each of `scalars` holds one value (Paddle's check),
    read for every element whatever the output's rank."""
    def aligned(attrs: dict, shapes: dict[str, Shape], out_rank: int) -> dict[str, Shape]:
        for s in scalars:
            if s in shapes and any(d != 1 for d in shapes[s]):
                raise ShapeError(f"op '{type}': {s} must hold one value, got shape "
                                 f"{list(shapes[s])}")
        out = broadcast(attrs, {k: v for k, v in shapes.items() if k not in scalars}, out_rank)
        out.update({s: (1,) * out_rank for s in scalars if s in shapes})
        return out
    return aligned


def pointwise(type: str, inputs, outputs, expr: Callable, attrs: dict | None = None,
              grad: Callable | None = None, broadcast: Callable = numpy_broadcast,
              out_dtype: Callable | None = None, scalars: tuple[str, ...] = ()) -> OpDef:
    """Register a pointwise op: `expr(ops, ins, attrs)` returns {output slot: value}.

    Every output has the broadcast shape of the (aligned) inputs but `scalars` (slots holding
    one value, as scale's ScaleTensor: a [1] one leaves a 0-d X 0-d, as in Paddle); its dtype
    is the first input's unless out_dtype(attrs, in_dtype) says otherwise.
    """
    in_slots, out_slots = slots(*inputs), slots(*outputs)
    if scalars:
        broadcast = _one_value_slots(type, broadcast, scalars)
    opdef = OpDef(type, in_slots, out_slots, attrs or {}, None, "pointwise", grad=grad, expr=expr,
                  broadcast=broadcast)

    def infer(ins: dict[str, list[VarInfo]], a: dict) -> dict[str, list[VarInfo]]:
        shapes = {s.name: [v.shape for v in ins[s.name]] for s in in_slots if ins.get(s.name)}
        rank = max((len(x) for k, v in shapes.items() if k not in scalars for x in v), default=0)
        shape: Shape = ()
        for v in aligned_shapes(opdef, a, shapes, rank).values():
            for x in v:
                shape = broadcast_shape(shape, x, type)
        first = _first(ins, [s.name for s in in_slots])
        dtype = convert_dtype(out_dtype(a, first.dtype)) if out_dtype else first.dtype
        return {s.name: [VarInfo(shape, dtype, first.lod_level)] for s in out_slots}

    def reference(ins: dict[str, list[np.ndarray]], a: dict) -> dict[str, list[np.ndarray]]:
        arrays = {k: [np.asarray(x) for x in v] for k, v in ins.items() if v}
        rank = max((x.ndim for k, v in arrays.items() if k not in scalars for x in v), default=0)
        aligned = aligned_shapes(opdef, a, {k: [x.shape for x in v] for k, v in arrays.items()}, rank)
        vals = {k: [x.reshape(s) for x, s in zip(v, aligned[k])] for k, v in arrays.items()}
        out = expr(numpy_handler, _in_values(opdef, vals), a)
        shape = np.broadcast_shapes(*[x.shape for v in vals.values() for x in v])
        first = next(arrays[s.name][0] for s in in_slots if s.name in arrays)
        dtype = to_numpy_dtype(out_dtype(a, first.dtype)) if out_dtype else first.dtype
        # np.array(order="C"), not ascontiguousarray: that turns a 0-d result into shape (1,)
        return {k: [np.array(np.broadcast_to(np.asarray(v), shape), order="C").astype(dtype, copy=False)]
                for k, v in out.items()}

    opdef.infer, opdef.reference = infer, reference
    return register(opdef)


def unary(type: str, fwd: Callable, bwd: Callable | None, uses: str = "X",
          attrs: dict | None = None, also: tuple[str, ...] = (),
          second: Callable | None = None, piecewise_linear: bool = False) -> None:
    """An activation-like op X -> Out and its `<type>_grad` (inputs `uses` and Out@GRAD).

    fwd(ops, x, attrs) -> out; bwd(ops, v, dout, attrs) -> dx where v is X or Out per `uses`.
    `also`: further inputs Paddle's grad op carries (accepted, not read). With `second` (or
    piecewise_linear) the grad op has a grad of its own, `<type>_grad_grad` (_double_grad).
    """
    pointwise(type, ["X"], ["Out"], lambda ops, i, a: {"Out": fwd(ops, i["X"], a)}, attrs,
              grad=None if bwd is None else lambda op: [OpDesc(
                  type + "_grad",
                  {uses: op.input(uses) if uses == "X" else op.output("Out"),
                   "Out@GRAD": [grad_name(op.output("Out")[0])]},
                  {"X@GRAD": [grad_name(op.input("X")[0])]}, dict(op.attrs))])
    if bwd is not None:
        double = _double_grad(type, uses, bwd, second, attrs) \
            if second is not None or piecewise_linear else None
        pointwise(type + "_grad", [uses, "Out@GRAD", *(s + "?" for s in also)], ["X@GRAD"],
                  lambda ops, i, a: {"X@GRAD": bwd(ops, i[uses], i["Out@GRAD"], a)}, attrs,
                  grad=double)


def _double_grad(type: str, uses: str, bwd: Callable, second: Callable | None,
                 attrs: dict | None) -> Callable:
    """Register `<type>_grad_grad` as Paddle defines it and return the grad maker of
    `<type>_grad`. X@GRAD = bwd(v, DOut) is linear in DOut, so the grad of DOut is
    DDOut = bwd(v, DDX) (DDX: the grad of X@GRAD); the grad of v is second(ops, v, DOut, DDX,
    attrs), named DOutNew for v = Out and DX for v = X; piecewise_linear ops (relu) have none
    (their derivative is constant almost everywhere)."""
    dv = "DOutNew" if uses == "Out" else "DX"

    def expr(ops, i, a):
        out = {"DDOut": bwd(ops, i[uses], i["DDX"], a)}
        if second is not None:
            out[dv] = second(ops, i[uses], i["DOut"], i["DDX"], a)
        return out
    pointwise(type + "_grad_grad", [uses, *(["DOut"] if second else []), "DDX"],
              ["DDOut?", *([dv + "?"] if second else [])], expr, attrs)

    def grad(op: OpDesc) -> list[OpDesc]:  # op is <type>_grad
        ins = {uses: op.input(uses), "DDX": [grad_name(op.output("X@GRAD")[0])]}
        outs = {"DDOut": [grad_name(op.input("Out@GRAD")[0])]}
        if second is not None:
            ins["DOut"] = op.input("Out@GRAD")
            outs[dv] = [grad_name(op.input(uses)[0])]
        return [OpDesc(type + "_grad_grad", ins, outs, dict(op.attrs))]
    return grad


def same_as(src: str, *dsts: str, dtype=None) -> Callable:
    """An infer function: each dst slot gets the shape (and dtype) of the first var of src."""
    def infer(ins: dict[str, list[VarInfo]], a: dict) -> dict[str, list[VarInfo]]:
        v = ins[src][0]
        return {d: [VarInfo(v.shape, convert_dtype(dtype) if dtype is not None else v.dtype,
                            v.lod_level)] for d in dsts}
    return infer


def grad_like(op: OpDesc, *slots_: str) -> dict[str, list[str]]:
    """{slot@GRAD: [name@GRAD, ...]} for the named input slots of a forward op."""
    return {s + "@GRAD": [grad_name(n) for n in op.input(s)] for s in slots_ if op.input(s)}


def input_grad_op(op: OpDesc, *slots_: str, out: str = "Out") -> list[OpDesc]:
    """The grad of `op` as one `<type>_grad` op reading the forward's inputs in `slots_` and
    out@GRAD, writing those inputs' grads (the attributes as the forward's)."""
    return [OpDesc(op.type + "_grad", {**{s: op.input(s) for s in slots_},
                                       out + "@GRAD": [grad_name(op.output(out)[0])]},
                   grad_like(op, *slots_), dict(op.attrs))]


def present(names: list[str]) -> bool:
    """Whether a slot is bound to a real var (backward marks dropped grads EMPTY_VAR)."""
    return bool(names) and names[0] != EMPTY_VAR


def as_shape(v: Any) -> Shape:
    """An attribute or array shape as a tuple of ints."""
    return tuple(int(d) for d in v)
