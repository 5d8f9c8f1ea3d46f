"""Shape ops: views (flatten_contiguous_range, flatten2, squeeze2, unsqueeze2), split, slice,
strided_slice, gather, flip, stack, expand_v2, fill_constant_batch_size_like, arg_max/arg_min
and top_k_v2, and grads.

Shape-like inputs Paddle accepts as tensors (StartsTensor, AxisTensor, ...) are declared so real
programs load, but a bound one is an error: fluidc plans need shapes known before a run."""
from __future__ import annotations

import math

import numpy as np
from fluidc.frontend.lazy_import import torch

from ..dtypes import VarType, convert_dtype, to_numpy_dtype
from ..errors import OpError, ShapeError
from .define import grad_like, numpy_broadcast, present
from .math import sum_to_shape
from .tensor import fill_value
from .registry import IndexBound, OpDef, OpDesc, VarInfo, grad_name, register, slots


def _define(type, kind, inputs, outputs, attrs, infer, run=None, reference=None, grad=None,
            **kw):
    return register(OpDef(type, slots(*inputs), slots(*outputs), attrs, infer, kind,
                          reference=reference, grad=grad, run=run, **kw))


def _axis(axis: int, rank: int, op: str) -> int:
    if not -rank <= axis < max(rank, 1):
        raise ShapeError(f"op '{op}': axis {axis} is out of range for rank {rank}")
    return axis % max(rank, 1)


def _no_tensors(op: str, ins, *names: str) -> None:
    for n in names:
        if ins.get(n):
            raise OpError(f"op '{op}': input '{n}' given as a tensor is not supported; "
                          f"pass it as an attribute")


def _prod(dims) -> int:
    return -1 if any(d < 0 for d in dims) else math.prod(dims)


# ---------------------------------------------------------------------------------------------
# Views: Out shares X's data in a new shape; XShape ([0] + X's shape) carries X's shape to grads.

def _view_ops(type: str, attrs: dict, out_shape, extra_inputs=(), fold=None,
              tensor_rank=None) -> None:
    """Register `type` (X -> Out, XShape) and `type_grad` for a reshape-like op. With `fold`,
    the extra inputs are shape inputs (read when the program runs, folded into the attributes):
    until then Out has tensor_rank(X's shape, inputs) dims of -1."""
    tensors = [s.rstrip("*?") for s in extra_inputs]

    def infer(ins, a):
        x = ins["X"][0]
        given = [t for t in tensors if ins.get(t)]
        if given and fold is None:
            _no_tensors(type, ins, *given)
        shape = (-1,) * tensor_rank(x.shape, ins) if given else out_shape(tuple(x.shape), a)
        return {"Out": [VarInfo(shape, x.dtype, x.lod_level)],
                "XShape": [VarInfo((0,) + tuple(x.shape), x.dtype, x.lod_level)]}

    def reference(ins, a):
        if any(ins.get(t) for t in tensors):
            a = fold(a, ins)
        x = np.asarray(ins["X"][0])
        return {"Out": [x.reshape(out_shape(x.shape, a)).copy()],
                "XShape": [np.zeros((0,) + x.shape, x.dtype)]}

    def grad(op: OpDesc) -> list[OpDesc]:
        if not present(op.output("XShape")):
            raise OpError(f"op '{type}' needs its XShape output to be differentiated "
                          f"(X {op.input('X')})")
        return [OpDesc(type + "_grad", {"XShape": op.output("XShape"),
                                        "Out@GRAD": [grad_name(op.output("Out")[0])]},
                       {"X@GRAD": [grad_name(op.input("X")[0])]}, dict(op.attrs))]

    def grad_infer(ins, a):
        xs, d = ins["XShape"][0], ins["Out@GRAD"][0]
        return {"X@GRAD": [VarInfo(tuple(xs.shape[1:]), d.dtype, xs.lod_level)]}

    def grad_ref(ins, a):
        shape = np.asarray(ins["XShape"][0]).shape[1:]
        return {"X@GRAD": [np.asarray(ins["Out@GRAD"][0]).reshape(shape).copy()]}

    _define(type, "view", ["X", *extra_inputs], ["Out", "XShape?"], attrs, infer,
            _copy_run("X", "Out"), reference, grad,
            **({"shape_inputs": tuple(tensors), "fold": fold} if fold else {}))
    _define(type + "_grad", "view", ["XShape", "Out@GRAD"], ["X@GRAD?"], attrs, grad_infer,
            _copy_run("Out@GRAD", "X@GRAD"), grad_ref)


def _copy_run(src: str, dst: str):
    def run(ins, outs, a, rng):
        out, x = outs[dst][0], ins[src][0]
        if out.data_ptr() != x.data_ptr():  # the runtime may have aliased them already
            out.copy_(x.reshape(out.shape))
    return run


def flatten_shape(shape, a) -> tuple[int, ...]:
    """flatten_contiguous_range: dims start_axis..stop_axis merged into one."""
    rank = len(shape)
    if rank == 0:
        return (1,)
    start = _axis(a["start_axis"], rank, "flatten_contiguous_range")
    stop = _axis(a["stop_axis"], rank, "flatten_contiguous_range")
    if start > stop:
        raise ShapeError(f"op 'flatten_contiguous_range': start_axis {a['start_axis']} is after "
                         f"stop_axis {a['stop_axis']} for X {list(shape)}")
    return tuple(shape[:start]) + (_prod(shape[start:stop + 1]),) + tuple(shape[stop + 1:])


def squeeze_shape(shape, a) -> tuple[int, ...]:
    """squeeze2: drop the listed size-1 dims (all size-1 dims when axes is empty).

    A listed dim unknown until run time (-1) is dropped, as Paddle does at compile time; a listed
    dim of another size stays."""
    rank = len(shape)
    axes = {_axis(d, rank, "squeeze2") for d in a["axes"]}
    drop = {i for i, d in enumerate(shape) if d == 1} if not axes else \
        {i for i in axes if i < rank and shape[i] in (1, -1)}  # axis 0 of a 0-d X: nothing
    return tuple(d for i, d in enumerate(shape) if i not in drop)


def unsqueeze_shape(shape, a) -> tuple[int, ...]:
    """unsqueeze2: a 1 inserted at each axis in turn (negative ones count from the growing end)."""
    marks: list[int] = []
    size = len(shape)
    for ax in a["axes"]:
        cur = ax + size + 1 if ax < 0 else ax
        if not 0 <= cur <= size:
            raise ShapeError(f"op 'unsqueeze2': axis {ax} is out of range for X {list(shape)} "
                             f"with axes {list(a['axes'])}")
        marks = [m + 1 if m >= cur else m for m in marks] + [cur]
        size += 1
    rest = iter(shape)
    return tuple(1 if i in marks else next(rest) for i in range(size))


def flatten2_shape(shape, a) -> tuple[int, ...]:
    """flatten2 (Fluid 1.x): a matrix of the dims before `axis` by the dims from it on."""
    axis = a["axis"]
    if not 0 <= axis <= len(shape):
        raise ShapeError(f"op 'flatten2': axis {axis} is out of range for X {list(shape)}")
    return (_prod(shape[:axis]), _prod(shape[axis:]))


_view_ops("flatten2", {"axis": 1}, flatten2_shape)
_view_ops("flatten_contiguous_range", {"start_axis": 1, "stop_axis": 1}, flatten_shape)
_view_ops("squeeze2", {"axes": []}, squeeze_shape)
def _unsqueeze_fold(a, values):
    """unsqueeze2's axes from AxesTensor (1-D) or AxesTensorList (one int each)."""
    if values.get("AxesTensor"):
        return {**a, "axes": [int(v) for v in np.asarray(values["AxesTensor"][0]).reshape(-1)]}
    axes = [np.asarray(v).reshape(-1) for v in values["AxesTensorList"]]
    if any(v.size != 1 for v in axes):
        raise ShapeError(f"op 'unsqueeze2': each AxesTensorList tensor must hold one value, "
                         f"got sizes {[v.size for v in axes]}")
    return {**a, "axes": [int(v[0]) for v in axes]}


def _unsqueeze_rank(x_shape, ins) -> int:
    if ins.get("AxesTensorList"):
        return len(x_shape) + len(ins["AxesTensorList"])
    given = ins["AxesTensor"][0].shape
    if len(given) != 1 or given[0] < 0:
        raise ShapeError(f"op 'unsqueeze2': AxesTensor must be 1-D of known length, got shape "
                         f"{list(given)}")
    return len(x_shape) + given[0]


_view_ops("unsqueeze2", {"axes": []}, unsqueeze_shape, ("AxesTensor?", "AxesTensorList*?"),
          fold=_unsqueeze_fold, tensor_rank=_unsqueeze_rank)


# ---------------------------------------------------------------------------------------------
# split (grad: concat of the outputs' grads)

def _sections(op: str, shape, a) -> tuple[int, list[int]]:
    """(axis, per-output sizes along it; -1 where unknown) of a split of `shape`."""
    axis = _axis(a["axis"], len(shape), op)
    d = shape[axis]
    secs = [int(s) for s in a["sections"]]
    if secs:
        if secs.count(-1) > 1:
            raise ShapeError(f"op '{op}': sections {secs} have more than one -1")
        if -1 in secs and d >= 0:
            secs[secs.index(-1)] = d - (sum(secs) + 1)
        if d >= 0 and -1 not in secs and (sum(secs) != d or min(secs) < 0):
            raise ShapeError(f"op '{op}': sections {list(a['sections'])} do not add up to dim "
                             f"{axis} of X {list(shape)}")
        return axis, secs
    num = int(a["num"])
    if num <= 0:
        raise ShapeError(f"op '{op}': needs num > 0 or sections")
    if d >= 0 and d % num:
        raise ShapeError(f"op '{op}': dim {axis} of X {list(shape)} does not split into {num}")
    return axis, [d // num if d >= 0 else -1] * num


def _split_fold(a, values):
    """split's axis from AxisTensor and its sections from SectionsTensorList (one int each),
    as Paddle prefers them to the attributes."""
    a = dict(a)
    if values.get("AxisTensor"):
        axis = np.asarray(values["AxisTensor"][0]).reshape(-1)
        if axis.size != 1:
            raise ShapeError(f"op 'split': AxisTensor must hold one value, got {axis.size}")
        a["axis"] = int(axis[0])
    if values.get("SectionsTensorList"):
        secs = [np.asarray(v).reshape(-1) for v in values["SectionsTensorList"]]
        if any(v.size != 1 for v in secs):
            raise ShapeError(f"op 'split': each SectionsTensorList tensor must hold one value, "
                             f"got sizes {[v.size for v in secs]}")
        a["sections"] = [int(v[0]) for v in secs]
    return a


def _split_infer(ins, a):
    x = ins["X"][0]
    n = len(ins["SectionsTensorList"]) if ins.get("SectionsTensorList") else \
        len(a["sections"]) or int(a["num"])
    # tensors are read when the program runs: until then the dims they set are -1, as Paddle's
    if ins.get("AxisTensor"):
        return {"Out": [VarInfo((-1,) * len(x.shape), x.dtype, x.lod_level)] * n}
    if ins.get("SectionsTensorList"):
        axis = _axis(a["axis"], len(x.shape), "split")
        shape = tuple(-1 if i == axis else d for i, d in enumerate(x.shape))
        return {"Out": [VarInfo(shape, x.dtype, x.lod_level)] * n}
    axis, secs = _sections("split", x.shape, a)
    return {"Out": [VarInfo(tuple(s if i == axis else d for i, d in enumerate(x.shape)),
                            x.dtype, x.lod_level) for s in secs]}


def _split_ref(ins, a):
    if ins.get("AxisTensor") or ins.get("SectionsTensorList"):
        a = _split_fold(a, ins)
    x = np.asarray(ins["X"][0])
    axis, secs = _sections("split", x.shape, a)
    return {"Out": [p.copy() for p in np.split(x, np.cumsum(secs)[:-1], axis=axis)]}


def _split_run(ins, outs, a, rng):
    x = ins["X"][0]
    axis = a["axis"] % x.dim()
    for o, p in zip(outs["Out"], torch.split(x, [o.shape[axis] for o in outs["Out"]], axis)):
        o.copy_(p)


def _split_grad(op: OpDesc) -> list[OpDesc]:
    if op.input("AxisTensor"):
        raise OpError("op 'split' with a tensor axis (AxisTensor) has no gradient in fluidc: "
                      "pass the axis as an int to differentiate through the split")
    return [OpDesc("concat", {"X": [grad_name(n) for n in op.output("Out")]},
                   {"Out": [grad_name(op.input("X")[0])]}, {"axis": op.attrs["axis"]})]


_define("split", "extern", ["X", "AxisTensor?", "SectionsTensorList*?"], ["Out*"],
        {"num": 0, "sections": [], "axis": 0}, _split_infer, _split_run, _split_ref, _split_grad,
        shape_inputs=("AxisTensor", "SectionsTensorList"), fold=_split_fold)


# ---------------------------------------------------------------------------------------------
# slice

SLICE_ATTRS = {"axes": [], "starts": [], "ends": [], "decrease_axis": [], "infer_flags": []}
_SLICE_TENSORS = ("StartsTensor", "EndsTensor", "StartsTensorList", "EndsTensorList")


def _slice_spans(op: str, shape, a) -> dict[int, tuple[int, int]]:
    """axis -> clamped [start, end) for each sliced axis of known size (-1 bounds otherwise)."""
    axes, starts, ends = list(a["axes"]), list(a["starts"]), list(a["ends"])
    if not len(axes) == len(starts) == len(ends):
        raise ShapeError(f"op '{op}': axes {axes}, starts {starts} and ends {ends} differ in "
                         f"length")
    spans = {}
    for ax, s, e in zip(axes, starts, ends):
        ax = _axis(ax, len(shape), op)
        d = shape[ax]
        if d < 0:
            spans[ax] = (-1, -1)
            continue
        s, e = (s + d if s < 0 else s), (e + d if e < 0 else e)
        s, e = min(max(s, 0), d), min(max(e, 0), d)
        spans[ax] = (s, max(e, s))
    return spans


def _decreased(op: str, shape, full: tuple[int, ...], a) -> tuple[int, ...]:
    """A slice's shape `full` less the decrease_axis dims, each checked to be of size 1."""
    dec = {_axis(d, len(shape), op) for d in a["decrease_axis"]}
    for i in dec:
        if full[i] not in (1, -1):
            raise ShapeError(f"op '{op}': decrease_axis {list(a['decrease_axis'])} names dim {i} "
                             f"of size {full[i]} (must be 1) slicing Input {list(shape)}")
    return tuple(d for i, d in enumerate(full) if i not in dec)


def _slice_shape(op: str, shape, a) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(the sliced shape, the shape after decrease_axis)."""
    spans = _slice_spans(op, shape, a)
    full = tuple(-1 if i in spans and spans[i][0] < 0 else (spans[i][1] - spans[i][0])
                 if i in spans else d for i, d in enumerate(shape))
    return full, _decreased(op, shape, full, a)


def _slice_index(shape, a) -> tuple:
    spans = _slice_spans("slice", shape, a)
    return tuple(slice(*spans[i]) if i in spans else slice(None) for i in range(len(shape)))


# Bounds given as tensors (x[i] for an int tensor i: StartsTensorList [i], EndsTensorList
# [i + 1]) are read at run time; the output shape must not depend on them, so each axis they
# bound must be one decrease_axis drops (its size checked to be 1 when the values are read).
_BOUND_LISTS = {"starts": "StartsTensorList", "ends": "EndsTensorList"}


def _runtime_bounds(op: str, ins, a) -> bool:
    """Whether the bounds come from StartsTensorList/EndsTensorList; an OpError if the other
    tensor slots are bound or a tensor-bound axis is not decreased."""
    _no_tensors(op, ins, "StartsTensor", "EndsTensor")
    if not any(ins.get(slot) for slot in _BOUND_LISTS.values()):
        return False
    decreased = set(a["decrease_axis"])
    for attr, slot in _BOUND_LISTS.items():
        given = ins.get(slot) or []
        if given and len(given) != len(a["axes"]):
            raise OpError(f"op '{op}': {slot} holds {len(given)} tensors for axes "
                          f"{list(a['axes'])}")
        if given and not set(a["axes"]) <= decreased:
            raise OpError(f"op '{op}': {slot} bound for axes {list(a['axes'])} not all in "
                          f"decrease_axis {sorted(decreased)}; fluidc plans need the output "
                          f"shape before a run")
    return True


def _index_ends(a) -> dict:
    """a with tensor bounds read: x[-1] by a tensor index appends the bounds -1 and -1 + 1 = 0,
    which stand for the last entry."""
    a["ends"] = [2 ** 31 - 1 if (s, e) == (-1, 0) else e for s, e in zip(a["starts"], a["ends"])]
    return a


def _bound_attrs(op: str, ins, a) -> dict:
    """a with starts/ends read from the bound tensor lists (an index tensor's value)."""
    if not _runtime_bounds(op, ins, a):
        return a
    a = dict(a)
    for attr, slot in _BOUND_LISTS.items():
        if ins.get(slot):
            a[attr] = [int(np.asarray(t.cpu() if isinstance(t, torch.Tensor) else t).reshape(-1)[0])
                       for t in ins[slot]]
    return _index_ends(a)


_WHOLE_BOUNDS = {"starts": "StartsTensor", "ends": "EndsTensor"}


def _slice_fold(a, values):
    """slice's starts / ends from StartsTensor / EndsTensor (1-D, one value per axis), as Paddle
    prefers them to the attributes (paddle.slice with Variable starts / ends)."""
    a = dict(a)
    for attr, slot in _WHOLE_BOUNDS.items():
        if values.get(slot):
            v = [int(d) for d in np.asarray(values[slot][0]).reshape(-1)]
            if len(v) != len(a["axes"]):
                raise ShapeError(f"op 'slice': {slot} holds {len(v)} values for axes "
                                 f"{list(a['axes'])}")
            a[attr] = v
    return _index_ends(a)


def _folded_bounds(ins, a) -> tuple[dict, dict]:
    """(ins, a) with StartsTensor / EndsTensor folded into a, as the pipeline folds them (the
    reference executor runs programs unfolded)."""
    if not any(ins.get(s) for s in _WHOLE_BOUNDS.values()):
        return ins, a
    return ({k: v for k, v in ins.items() if k not in _WHOLE_BOUNDS.values()},
            _slice_fold(a, ins))


def _slice_infer(ins, a):
    x = ins["Input"][0]
    if any(ins.get(s) for s in _WHOLE_BOUNDS.values()):  # read when the program runs
        axes = {_axis(d, len(x.shape), "slice") for d in a["axes"]}
        dec = {_axis(d, len(x.shape), "slice") for d in a["decrease_axis"]}
        shape = tuple(-1 if i in axes else d for i, d in enumerate(x.shape) if i not in dec)
        return {"Out": [VarInfo(shape, x.dtype, x.lod_level)]}
    if _runtime_bounds("slice", ins, a):
        shape = tuple(d for i, d in enumerate(x.shape)
                      if i not in {_axis(d, len(x.shape), "slice") for d in a["decrease_axis"]})
        return {"Out": [VarInfo(shape, x.dtype, x.lod_level)]}
    return {"Out": [VarInfo(_slice_shape("slice", x.shape, a)[1], x.dtype, x.lod_level)]}


def _slice_ref(ins, a):
    x = np.asarray(ins["Input"][0])
    ins, a = _folded_bounds(ins, a)
    a = _bound_attrs("slice", ins, a)
    return {"Out": [x[_slice_index(x.shape, a)].reshape(_slice_shape("slice", x.shape, a)[1])]}


def _slice_run(ins, outs, a, rng):
    x = ins["Input"][0]
    out = outs["Out"][0]
    a = _bound_attrs("slice", ins, a)
    _slice_shape("slice", tuple(x.shape), a)  # checks each decreased dim is of size 1
    out.copy_(x[_slice_index(tuple(x.shape), a)].reshape(out.shape))


def _slice_grad(op: OpDesc) -> list[OpDesc]:
    """<op>_grad of a slicing op (slice, strided_slice): Input and Out@GRAD -> Input@GRAD (and
    the bound tensors, which give the slice's bounds)."""
    bounds = {s: names for s, names in op.inputs.items() if s != "Input" and names}
    return [OpDesc(op.type + "_grad", {"Input": op.input("Input"), **bounds,
                                       "Out@GRAD": [grad_name(op.output("Out")[0])]},
                   grad_like(op, "Input"), dict(op.attrs))]


def _slice_grad_ref(ins, a):
    x = np.asarray(ins["Input"][0])
    d = np.asarray(ins["Out@GRAD"][0])
    ins, a = _folded_bounds(ins, a)
    a = _bound_attrs("slice_grad", ins, a)
    dx = np.zeros(x.shape, d.dtype)
    dx[_slice_index(x.shape, a)] = d.reshape(_slice_shape("slice_grad", x.shape, a)[0])
    return {"Input@GRAD": [dx]}


def _slice_grad_run(ins, outs, a, rng):
    x, d = ins["Input"][0], ins["Out@GRAD"][0]
    a = _bound_attrs("slice_grad", ins, a)
    dx = outs["Input@GRAD"][0].zero_()
    dx[_slice_index(tuple(x.shape), a)] = d.reshape(_slice_shape("slice_grad", x.shape, a)[0])


_define("slice", "extern", ["Input", "StartsTensor?", "EndsTensor?", "StartsTensorList*?",
                            "EndsTensorList*?"], ["Out"], SLICE_ATTRS, _slice_infer, _slice_run,
        _slice_ref, _slice_grad, shape_inputs=tuple(_WHOLE_BOUNDS.values()), fold=_slice_fold)
_define("slice_grad", "extern", ["Input", "StartsTensor?", "EndsTensor?", "StartsTensorList*?",
                                 "EndsTensorList*?", "Out@GRAD"],
        ["Input@GRAD?"], SLICE_ATTRS,
        lambda ins, a: {"Input@GRAD": [VarInfo(ins["Input"][0].shape, ins["Out@GRAD"][0].dtype)]},
        _slice_grad_run, _slice_grad_ref, shape_inputs=tuple(_WHOLE_BOUNDS.values()),
        fold=_slice_fold)


# ---------------------------------------------------------------------------------------------
# strided_slice: Python's slicing per axis (start, end, stride; negative strides walk backwards),
# as Paddle's Variable.__getitem__ appends it for steps other than 1. Paddle takes starts / ends
# / strides from a 1-D tensor (StartsTensor, ...) over a list of one-value tensors
# (StartsTensorList, ...) over the attribute: all are shape inputs, folded into the attributes
# before shape inference (passes/shape_inputs.py); until then the axes they bound are -1.

STRIDED_SLICE_ATTRS = {**SLICE_ATTRS, "strides": []}
_STRIDED_WHOLE = {"starts": "StartsTensor", "ends": "EndsTensor", "strides": "StridesTensor"}
_STRIDED_LISTED = {"starts": "StartsTensorList", "ends": "EndsTensorList",
                   "strides": "StridesTensorList"}
_STRIDED_TENSORS = (*_STRIDED_WHOLE.values(), *_STRIDED_LISTED.values())


def _strided_fold(a, values):
    """strided_slice's bounds from its tensors, as Paddle prefers them to the attributes."""
    a = dict(a)
    for attr in ("starts", "ends", "strides"):
        if values.get(_STRIDED_WHOLE[attr]):
            v = [int(d) for d in np.asarray(values[_STRIDED_WHOLE[attr]][0]).reshape(-1)]
        elif values.get(_STRIDED_LISTED[attr]):
            items = [np.asarray(t).reshape(-1) for t in values[_STRIDED_LISTED[attr]]]
            if any(t.size != 1 for t in items):
                raise ShapeError(f"op 'strided_slice': each {_STRIDED_LISTED[attr]} tensor must "
                                 f"hold one value, got sizes {[t.size for t in items]}")
            v = [int(t[0]) for t in items]
        else:
            continue
        if len(v) != len(a["axes"]):
            raise ShapeError(f"op 'strided_slice': {attr} holds {len(v)} values for axes "
                             f"{list(a['axes'])}")
        a[attr] = v
    return a


def _strided_folded(ins, a) -> tuple[dict, dict]:
    """(ins, a) with the bound tensors folded into a, as the pipeline folds them (the reference
    executor runs programs unfolded)."""
    given = {s: ins[s] for s in _STRIDED_TENSORS if ins.get(s)}
    if not given:
        return ins, a
    return {k: v for k, v in ins.items() if k not in given}, _strided_fold(a, given)


def _strided_ranges(op: str, shape, a) -> dict[int, range | None]:
    """axis -> the positions taken along it (None where the dim is unknown)."""
    axes, starts, ends, strides = (list(a[k]) for k in ("axes", "starts", "ends", "strides"))
    if not len(axes) == len(starts) == len(ends) == len(strides):
        raise ShapeError(f"op '{op}': axes {axes}, starts {starts}, ends {ends} and strides "
                         f"{strides} differ in length")
    ranges = {}
    for ax, s, e, k in zip(axes, starts, ends, strides):
        if k == 0:
            raise ShapeError(f"op '{op}': strides {strides} hold a 0")
        ax = _axis(ax, len(shape), op)
        ranges[ax] = None if shape[ax] < 0 else range(shape[ax])[slice(s, e, k)]
    return ranges


def _strided_shape(op: str, shape, a) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(the strided shape, the shape after decrease_axis)."""
    ranges = _strided_ranges(op, shape, a)
    full = tuple((-1 if ranges[i] is None else len(ranges[i])) if i in ranges else d
                 for i, d in enumerate(shape))
    return full, _decreased(op, shape, full, a)


def _ascending(shape, a) -> tuple[tuple, list[int]]:
    """The strided positions as ascending basic slices (torch takes no negative step), and the
    axes whose order must then be reversed."""
    ranges = _strided_ranges("strided_slice", shape, a)
    index, flips = [], []
    for i in range(len(shape)):
        r = ranges.get(i)
        if r is None:
            index.append(slice(None))
        elif r.step > 0 or not r:
            index.append(slice(r.start, r.stop, r.step) if r else slice(0, 0))
        else:
            index.append(slice(r[-1], r[0] + 1, -r.step))
            flips.append(i)
    return tuple(index), flips


def _strided_infer(ins, a):
    x = ins["Input"][0]
    if any(ins.get(s) for s in _STRIDED_TENSORS):  # read when the program runs
        axes = {_axis(d, len(x.shape), "strided_slice") for d in a["axes"]}
        dec = {_axis(d, len(x.shape), "strided_slice") for d in a["decrease_axis"]}
        shape = tuple(-1 if i in axes else d for i, d in enumerate(x.shape) if i not in dec)
        return {"Out": [VarInfo(shape, x.dtype, x.lod_level)]}
    return {"Out": [VarInfo(_strided_shape("strided_slice", x.shape, a)[1], x.dtype,
                            x.lod_level)]}


def _strided_positions(op: str, shape, a):
    """np.ix_ of the positions taken along every axis (empty ranges included)."""
    ranges = _strided_ranges(op, shape, a)
    return np.ix_(*[np.asarray(ranges[i], np.int64) if i in ranges else np.arange(n)
                    for i, n in enumerate(shape)])


def _strided_ref(ins, a):
    x = np.asarray(ins["Input"][0])
    ins, a = _strided_folded(ins, a)
    out = _strided_shape("strided_slice", x.shape, a)[1]
    return {"Out": [x[_strided_positions("strided_slice", x.shape, a)].reshape(out)]}


def _strided_run(ins, outs, a, rng):
    x, out = ins["Input"][0], outs["Out"][0]
    index, flips = _ascending(tuple(x.shape), a)
    part = x[index]
    out.copy_((part.flip(flips) if flips else part).reshape(out.shape))


def _strided_grad_ref(ins, a):
    x = np.asarray(ins["Input"][0])
    d = np.asarray(ins["Out@GRAD"][0])
    ins, a = _strided_folded(ins, a)
    dx = np.zeros(x.shape, d.dtype)
    dx[_strided_positions("strided_slice_grad", x.shape, a)] = d.reshape(
        _strided_shape("strided_slice_grad", x.shape, a)[0])
    return {"Input@GRAD": [dx]}


def _strided_grad_run(ins, outs, a, rng):
    x, d = ins["Input"][0], ins["Out@GRAD"][0]
    index, flips = _ascending(tuple(x.shape), a)
    part = d.reshape(_strided_shape("strided_slice_grad", tuple(x.shape), a)[0])
    outs["Input@GRAD"][0].zero_()[index] = part.flip(flips) if flips else part


_STRIDED_SLOTS = ["StartsTensor?", "EndsTensor?", "StridesTensor?", "StartsTensorList*?",
                  "EndsTensorList*?", "StridesTensorList*?"]
_define("strided_slice", "extern", ["Input", *_STRIDED_SLOTS], ["Out"], STRIDED_SLICE_ATTRS,
        _strided_infer, _strided_run, _strided_ref, _slice_grad,
        shape_inputs=_STRIDED_TENSORS, fold=_strided_fold)
_define("strided_slice_grad", "extern", ["Input", *_STRIDED_SLOTS, "Out@GRAD"], ["Input@GRAD?"],
        STRIDED_SLICE_ATTRS,
        lambda ins, a: {"Input@GRAD": [VarInfo(ins["Input"][0].shape, ins["Out@GRAD"][0].dtype)]},
        _strided_grad_run, _strided_grad_ref, shape_inputs=_STRIDED_TENSORS, fold=_strided_fold)


# ---------------------------------------------------------------------------------------------
# gather: rows (along axis) of X picked by a 1-D Index (or [N, 1]); the grad adds them back.

GATHER_ATTRS = {"axis": 0, "overwrite": True}


def _index_len(op: str, idx) -> int:
    if len(idx.shape) == 2 and idx.shape[1] == 1 or len(idx.shape) == 1:
        return idx.shape[0]
    raise ShapeError(f"op '{op}': Index must be 1-D (or [N, 1]), got shape {list(idx.shape)}")


def _gather_infer(ins, a):
    x, idx = ins["X"][0], ins["Index"][0]
    if idx.dtype not in (VarType.INT32, VarType.INT64):
        raise OpError(f"op 'gather': Index must be int32 or int64, got {idx.dtype.name}")
    n = _index_len("gather", idx)
    if ins.get("Axis"):  # known when the program runs: the pipeline folds it into `axis`
        return {"Out": [VarInfo((-1,) * len(x.shape), x.dtype, x.lod_level)]}
    axis = _axis(a["axis"], len(x.shape), "gather")
    return {"Out": [VarInfo(tuple(n if i == axis else d for i, d in enumerate(x.shape)),
                            x.dtype, x.lod_level)]}


def _gather_indices(shapes, a):
    """Positions along the axis, negative ones counted from the end as in Paddle."""
    n = shapes["X"][0][a["axis"] % len(shapes["X"][0])]
    return {"Index": IndexBound(-n, n)}


def _gather_positions(x: torch.Tensor, index: torch.Tensor, axis: int) -> torch.Tensor:
    """Index as non-negative positions along `axis` (checked to lie in [-n, n))."""
    idx = index.reshape(-1).long()
    return idx.remainder(x.shape[axis]) if idx.numel() and idx.min() < 0 else idx


def _gather_fold(a, values):
    """gather's axis from its Axis input (one int), as Paddle prefers it to the attribute."""
    axis = np.asarray(values["Axis"][0]).reshape(-1)
    if axis.size != 1:
        raise ShapeError(f"op 'gather': Axis must hold one value, got {axis.size}")
    return {**a, "axis": int(axis[0])}


def _gather_ref(ins, a):
    if ins.get("Axis"):
        a = _gather_fold(a, ins)
    x, idx = np.asarray(ins["X"][0]), np.asarray(ins["Index"][0]).reshape(-1)
    return {"Out": [np.take(x, idx.astype(np.int64), axis=a["axis"] % x.ndim)]}


def _gather_run(ins, outs, a, rng):
    x = ins["X"][0]
    axis = a["axis"] % x.dim()
    torch.index_select(x, axis, _gather_positions(x, ins["Index"][0], axis), out=outs["Out"][0])


def _gather_grad(op: OpDesc) -> list[OpDesc]:
    return [OpDesc("gather_grad", {"X": op.input("X"), "Index": op.input("Index"),
                                   "Out@GRAD": [grad_name(op.output("Out")[0])]},
                   grad_like(op, "X"), dict(op.attrs))]


def _gather_grad_ref(ins, a):
    x, idx = np.asarray(ins["X"][0]), np.asarray(ins["Index"][0]).reshape(-1).astype(np.int64)
    d = np.asarray(ins["Out@GRAD"][0])
    axis = a["axis"] % x.ndim
    dx = np.zeros(x.shape, d.dtype)
    np.add.at(np.moveaxis(dx, axis, 0), idx, np.moveaxis(d, axis, 0))
    return {"X@GRAD": [dx]}


def _gather_grad_run(ins, outs, a, rng):
    x, d = ins["X"][0], ins["Out@GRAD"][0]
    axis = a["axis"] % x.dim()
    outs["X@GRAD"][0].zero_().index_add_(axis, _gather_positions(x, ins["Index"][0], axis), d)


_define("gather", "extern", ["X", "Index", "Axis?"], ["Out"], GATHER_ATTRS, _gather_infer,
        _gather_run, _gather_ref, _gather_grad, indices=_gather_indices,
        shape_inputs=("Axis",), fold=_gather_fold)
_define("gather_grad", "extern", ["X", "Index", "Out@GRAD"], ["X@GRAD?"], GATHER_ATTRS,
        lambda ins, a: {"X@GRAD": [VarInfo(ins["X"][0].shape, ins["Out@GRAD"][0].dtype)]},
        _gather_grad_run, _gather_grad_ref, indices=_gather_indices)


# ---------------------------------------------------------------------------------------------
# flip: X reversed along the `axis` dims; its grad is the same flip of Out@GRAD (Paddle's).

def _flip_axes(a, rank: int) -> list[int]:
    axes = [_axis(d, rank, "flip") for d in a["axis"]]
    if len(set(axes)) != len(axes):
        raise ShapeError(f"op 'flip': axis {list(a['axis'])} names a dimension twice")
    return axes


def _flip_infer(ins, a):
    x = ins["X"][0]
    _flip_axes(a, len(x.shape))
    return {"Out": [VarInfo(x.shape, x.dtype, x.lod_level)]}


def _flip_ref(ins, a):
    x = np.asarray(ins["X"][0])
    return {"Out": [np.flip(x, _flip_axes(a, x.ndim)).copy()]}


def _flip_run(ins, outs, a, rng):
    x = ins["X"][0]
    outs["Out"][0].copy_(torch.flip(x, _flip_axes(a, x.dim())))


def _flip_grad(op: OpDesc) -> list[OpDesc]:
    return [OpDesc("flip", {"X": [grad_name(op.output("Out")[0])]},
                   {"Out": [grad_name(op.input("X")[0])]}, dict(op.attrs))]


_define("flip", "extern", ["X"], ["Out"], {"axis": []}, _flip_infer, _flip_run, _flip_ref,
        _flip_grad)


# ---------------------------------------------------------------------------------------------
# stack (grad: one slice of Y@GRAD per input, lowered so dropped grads cost nothing)

def _stack_infer(ins, a):
    xs = ins["X"]
    shape = list(xs[0].shape)
    for x in xs[1:]:
        if len(x.shape) != len(shape) or any(p not in (-1, q) and q != -1
                                             for p, q in zip(shape, x.shape)):
            raise ShapeError(f"op 'stack': inputs of shapes {[list(v.shape) for v in xs]} differ")
        shape = [q if p == -1 else p for p, q in zip(shape, x.shape)]
    axis = _axis(a["axis"], len(shape) + 1, "stack")
    return {"Y": [VarInfo(tuple(shape[:axis] + [len(xs)] + shape[axis:]), xs[0].dtype,
                          xs[0].lod_level)]}


def _stack_grad(op: OpDesc) -> list[OpDesc]:
    return [OpDesc("stack_grad", {"Y@GRAD": [grad_name(op.output("Y")[0])]},
                   grad_like(op, "X"), dict(op.attrs))]


def _stack_grad_infer(ins, a):
    y = ins["Y@GRAD"][0]
    axis = _axis(a["axis"], len(y.shape), "stack_grad")
    part = VarInfo(tuple(d for i, d in enumerate(y.shape) if i != axis), y.dtype)
    return {"X@GRAD": [part] * max(y.shape[axis], 0)}


def _stack_grad_ref(ins, a):
    y = np.asarray(ins["Y@GRAD"][0])
    axis = a["axis"] % y.ndim
    return {"X@GRAD": [np.take(y, i, axis=axis).copy() for i in range(y.shape[axis])]}


def _stack_grad_lower(op: OpDesc, infos, new_var) -> list[OpDesc]:
    axis = op.attrs["axis"] % len(infos[op.input("Y@GRAD")[0]].shape)
    return [OpDesc("slice", {"Input": op.input("Y@GRAD")}, {"Out": [n]},
                   {"axes": [axis], "starts": [i], "ends": [i + 1], "decrease_axis": [axis]})
            for i, n in enumerate(op.output("X@GRAD")) if present([n])]


_define("stack", "extern", ["X*"], ["Y"], {"axis": 0}, _stack_infer,
        lambda ins, outs, a, rng: torch.stack(ins["X"], a["axis"], out=outs["Y"][0]),
        lambda ins, a: {"Y": [np.stack([np.asarray(x) for x in ins["X"]], a["axis"])]},
        _stack_grad)
# Paddle's stack_grad also names the inputs X (not read: Y@GRAD has every shape).
_define("stack_grad", "composite", ["X*?", "Y@GRAD"], ["X@GRAD*?"], {"axis": 0}, _stack_grad_infer,
        reference=_stack_grad_ref, lower=_stack_grad_lower)


# ---------------------------------------------------------------------------------------------
# expand_v2: pointwise (X broadcast, numpy-style, into the target shape; -1 keeps X's dim), so
# it fuses with what follows. Its grad sums back to X's shape.

def expand_shape(x_shape, target) -> tuple[int, ...]:
    """expand_v2's output shape."""
    target = [int(d) for d in target]
    lead = len(target) - len(x_shape)
    if lead < 0:
        raise ShapeError(f"op 'expand_v2': shape {target} has fewer dims than X {list(x_shape)}")
    out = []
    for i, t in enumerate(target):
        d = x_shape[i - lead] if i >= lead else None
        if d is None:
            if t < 1:
                raise ShapeError(f"op 'expand_v2': new leading dim {i} of shape {target} "
                                 f"must be positive")
            out.append(t)
        elif t == -1 or t == d:
            out.append(d)
        elif d in (1, -1) and t > 0:
            out.append(t)
        else:
            raise ShapeError(f"op 'expand_v2': X {list(x_shape)} cannot expand to {target}")
    return tuple(out)


def _expand_fold(a, values):
    """expand_v2's shape from its Shape input (1-D) or expand_shapes_tensor (one int each), as
    Paddle prefers them to the attribute."""
    if values.get("Shape"):
        return {**a, "shape": [int(d) for d in np.asarray(values["Shape"][0]).reshape(-1)]}
    dims = [np.asarray(v).reshape(-1) for v in values["expand_shapes_tensor"]]
    if any(d.size != 1 for d in dims):
        raise ShapeError(f"op 'expand_v2': each expand_shapes_tensor tensor must hold one "
                         f"value, got sizes {[d.size for d in dims]}")
    return {**a, "shape": [int(d[0]) for d in dims]}


def _expand_infer(ins, a):
    x = ins["X"][0]
    # Shape tensors are read when the program runs: until then their dims are -1, as Paddle's
    if ins.get("Shape"):
        n = ins["Shape"][0].shape[0] if ins["Shape"][0].shape else -1
        if n < 0:
            raise ShapeError("op 'expand_v2': the Shape input must be 1-D of known length")
        return {"Out": [VarInfo((-1,) * n, x.dtype, x.lod_level)]}
    if ins.get("expand_shapes_tensor"):
        shape = [d if d > 0 else -1 for d in a["shape"]]
        return {"Out": [VarInfo(tuple(shape), x.dtype, x.lod_level)]}
    return {"Out": [VarInfo(expand_shape(x.shape, a["shape"]), x.dtype, x.lod_level)]}


def _expand_ref(ins, a):
    if ins.get("Shape") or ins.get("expand_shapes_tensor"):
        a = _expand_fold(a, ins)
    x = np.asarray(ins["X"][0])
    return {"Out": [np.ascontiguousarray(np.broadcast_to(x, expand_shape(x.shape, a["shape"])))]}


def _expand_grad(op: OpDesc) -> list[OpDesc]:
    return [OpDesc("expand_v2_grad", {"X": op.input("X"),
                                      "Out@GRAD": [grad_name(op.output("Out")[0])]},
                   grad_like(op, "X"), dict(op.attrs))]


def _expand_grad_ref(ins, a):
    x, d = np.asarray(ins["X"][0]), np.asarray(ins["Out@GRAD"][0])
    lead = d.ndim - x.ndim
    g = d.sum(axis=tuple(range(lead))) if lead else d
    dims = tuple(i for i, n in enumerate(x.shape) if n == 1 and g.shape[i] != 1)
    return {"X@GRAD": [np.ascontiguousarray(g.sum(axis=dims, keepdims=True) if dims else g)]}


def _expand_grad_lower(op: OpDesc, infos, new_var) -> list[OpDesc]:
    if not present(op.output("X@GRAD")):
        return []
    d, dx = op.input("Out@GRAD")[0], op.output("X@GRAD")[0]
    return sum_to_shape(d, infos[d].shape, infos[op.input("X")[0]].shape, dx, -1, new_var,
                        infos[d].dtype)


EXPAND_ATTRS = {"shape": []}
_define("expand_v2", "pointwise", ["X", "Shape?", "expand_shapes_tensor*?"], ["Out"],
        EXPAND_ATTRS, _expand_infer, reference=_expand_ref, grad=_expand_grad,
        expr=lambda o, i, a: {"Out": i["X"]}, broadcast=numpy_broadcast,
        shape_inputs=("Shape", "expand_shapes_tensor"), fold=_expand_fold)
_define("expand_v2_grad", "composite", ["X", "Out@GRAD"], ["X@GRAD?"], EXPAND_ATTRS,
        lambda ins, a: {"X@GRAD": [VarInfo(ins["X"][0].shape, ins["Out@GRAD"][0].dtype)]},
        reference=_expand_grad_ref, lower=_expand_grad_lower)


# ---------------------------------------------------------------------------------------------
# fill_constant_batch_size_like: fill_constant whose shape takes one dim from Input.

FCBSL_ATTRS = {"shape": [], "value": 0.0, "dtype": 5, "input_dim_idx": 0, "output_dim_idx": 0,
               "str_value": "", "force_cpu": False}


def batch_size_like_shape(in_shape, a, op: str = "fill_constant_batch_size_like"
                          ) -> tuple[int, ...]:
    """`shape` with dim output_dim_idx taken from dim input_dim_idx of Input (the
    *_batch_size_like ops)."""
    shape = [int(d) for d in a["shape"]]
    i, o = a["input_dim_idx"], a["output_dim_idx"]
    if not (0 <= i < len(in_shape) and 0 <= o < len(shape)):
        raise ShapeError(f"op '{op}': input_dim_idx={i} / "
                         f"output_dim_idx={o} do not fit Input {list(in_shape)} and shape {shape}")
    shape[o] = in_shape[i]
    return tuple(shape)


_define("fill_constant_batch_size_like", "extern", ["Input"], ["Out"], FCBSL_ATTRS,
        lambda ins, a: {"Out": [VarInfo(batch_size_like_shape(ins["Input"][0].shape, a),
                                        convert_dtype(a["dtype"]))]},
        lambda ins, outs, a, rng: outs["Out"][0].fill_(fill_value(a)),
        lambda ins, a: {"Out": [np.full(batch_size_like_shape(np.shape(ins["Input"][0]), a),
                                        fill_value(a), to_numpy_dtype(a["dtype"]))]},
        grad=lambda op: [])  # Paddle's EmptyGradOpMaker: a constant, no grad reaches Input


# ---------------------------------------------------------------------------------------------
# arg_max / arg_min (the first extremum wins ties) and top_k_v2

ARG_ATTRS = {"axis": 0, "keepdims": False, "flatten": False, "dtype": 3}


def _arg_dtype(op: str, a) -> VarType:
    dt = VarType.INT64 if a["dtype"] in (-1, None) else convert_dtype(a["dtype"])
    if dt not in (VarType.INT32, VarType.INT64):
        raise OpError(f"op '{op}': dtype must be int32 or int64, got {dt.name}")
    return dt


def _arg_shape(op: str, shape, a) -> tuple[int, ...]:
    if a["flatten"]:
        return (1,)
    axis = _axis(a["axis"], len(shape), op)
    if a["keepdims"]:
        return tuple(1 if i == axis else d for i, d in enumerate(shape))
    return tuple(d for i, d in enumerate(shape) if i != axis) or (1,)


def _register_arg(op: str, fn: str) -> None:
    """arg_max / arg_min over numpy's and torch's function `fn` (torch's looked up when the op
    runs: importing fluidc does not import torch)."""
    np_fn = getattr(np, fn)

    def infer(ins, a):
        x = ins["X"][0]
        return {"Out": [VarInfo(_arg_shape(op, x.shape, a), _arg_dtype(op, a), x.lod_level)]}

    def reference(ins, a):
        x = np.asarray(ins["X"][0])
        out = np_fn(x.reshape(-1)) if a["flatten"] else np_fn(x, axis=a["axis"] % x.ndim)
        return {"Out": [np.asarray(out).reshape(_arg_shape(op, x.shape, a))
                        .astype(to_numpy_dtype(_arg_dtype(op, a)))]}

    def run(ins, outs, a, rng):
        x, out = ins["X"][0], outs["Out"][0]
        torch_fn = getattr(torch, fn)
        idx = torch_fn(x.reshape(-1)) if a["flatten"] else torch_fn(x, dim=a["axis"] % x.dim())
        out.copy_(idx.reshape(out.shape))

    _define(op, "extern", ["X"], ["Out"], ARG_ATTRS, infer, run, reference)


_register_arg("arg_max", "argmax")
_register_arg("arg_min", "argmin")

TOPK_ATTRS = {"k": 1, "axis": -1, "largest": True}


def _topk_fold(a, values):
    """top_k_v2's k from its K input (one int), which Paddle prefers to the attribute."""
    k = np.asarray(values["K"][0]).reshape(-1)
    if k.size != 1:
        raise ShapeError(f"op 'top_k_v2': K must hold one value, got {k.size}")
    return {**a, "k": int(k[0])}


def _topk_infer(ins, a):
    x = ins["X"][0]
    axis = _axis(a["axis"], len(x.shape), "top_k_v2")
    k = -1 if ins.get("K") else int(a["k"])  # a K input is read when the program runs
    size = x.shape[axis] if x.shape else 1  # a 0-d X holds one value: k must be 1
    if k != -1 and size >= 0 and not 0 < k <= size:
        raise ShapeError(f"op 'top_k_v2': k={k} does not fit dim {axis} of X {list(x.shape)}")
    shape = tuple(k if i == axis else d for i, d in enumerate(x.shape))  # () for a 0-d X
    return {"Out": [VarInfo(shape, x.dtype, x.lod_level)],
            "Indices": [VarInfo(shape, VarType.INT64, x.lod_level)]}


def _topk_ref(ins, a):
    if ins.get("K"):
        a = _topk_fold(a, ins)
    x = np.asarray(ins["X"][0])
    if x.ndim == 0:  # one value: itself, at index 0
        return {"Out": [x.copy()], "Indices": [np.zeros((), np.int64)]}
    axis = a["axis"] % x.ndim
    # A stable sort: ties keep the lower index first.
    idx = np.argsort(-x if a["largest"] else x, axis=axis, kind="stable")
    idx = np.take(idx, np.arange(a["k"]), axis=axis)
    return {"Out": [np.take_along_axis(x, idx, axis)], "Indices": [idx.astype(np.int64)]}


def _topk_run(ins, outs, a, rng):
    x = ins["X"][0]
    v, i = torch.topk(x, int(a["k"]), dim=a["axis"] % max(x.dim(), 1),
                      largest=bool(a["largest"]), sorted=True)
    outs["Out"][0].copy_(v)
    outs["Indices"][0].copy_(i)


def _topk_grad(op: OpDesc) -> list[OpDesc]:
    return [OpDesc("top_k_v2_grad", {"X": op.input("X"), "Indices": op.output("Indices"),
                                     "Out@GRAD": [grad_name(op.output("Out")[0])]},
                   grad_like(op, "X"), dict(op.attrs))]


def _topk_grad_ref(ins, a):
    x, idx = np.asarray(ins["X"][0]), np.asarray(ins["Indices"][0])
    dx = np.zeros(x.shape, np.asarray(ins["Out@GRAD"][0]).dtype)
    np.put_along_axis(dx, idx, np.asarray(ins["Out@GRAD"][0]), a["axis"] % x.ndim)
    return {"X@GRAD": [dx]}


def _topk_grad_run(ins, outs, a, rng):
    x = ins["X"][0]
    outs["X@GRAD"][0].zero_().scatter_(a["axis"] % x.dim(), ins["Indices"][0],
                                       ins["Out@GRAD"][0])


def _scatter_grad_infer(ins, a):
    return {"X@GRAD": [VarInfo(ins["X"][0].shape, ins["Out@GRAD"][0].dtype)]}


_define("top_k_v2", "extern", ["X", "K?"], ["Out", "Indices"], TOPK_ATTRS, _topk_infer,
        _topk_run, _topk_ref, _topk_grad, shape_inputs=("K",), fold=_topk_fold)
_define("top_k_v2_grad", "extern", ["X", "Indices", "Out@GRAD"], ["X@GRAD?"], TOPK_ATTRS,
        _scatter_grad_infer, _topk_grad_run, _topk_grad_ref)


# argsort (paddle.argsort / paddle.sort): Out the values of X sorted along axis, Indices their
# int64 positions. Always a stable sort: ties keep the lower index first, ascending or
# descending; NaN sorts above every number (last ascending, first descending), as Paddle's CPU
# comparator and torch order it. Its grad scatters dOut back through Indices (top_k_v2's).
ARGSORT_ATTRS = {"axis": -1, "descending": False, "stable": False}


def _argsort_infer(ins, a):
    x = ins["X"][0]
    _axis(a["axis"], len(x.shape), "argsort")
    return {"Out": [VarInfo(x.shape, x.dtype, x.lod_level)],
            "Indices": [VarInfo(x.shape, VarType.INT64, x.lod_level)]}


def _argsort_ref(ins, a):
    x = np.asarray(ins["X"][0])
    if x.ndim == 0:
        return {"Out": [x.copy()], "Indices": [np.zeros((), np.int64)]}
    axis = a["axis"] % x.ndim
    if a["descending"]:  # the stable ascending order of X reversed, read backwards
        flipped = np.argsort(np.flip(x, axis), axis=axis, kind="stable")
        idx = np.flip(x.shape[axis] - 1 - flipped, axis)
    else:
        idx = np.argsort(x, axis=axis, kind="stable")
    return {"Out": [np.take_along_axis(x, idx, axis)], "Indices": [idx.astype(np.int64)]}


def _argsort_run(ins, outs, a, rng):
    x = ins["X"][0]
    v, i = torch.sort(x, dim=a["axis"] % max(x.dim(), 1), descending=bool(a["descending"]),
                      stable=True)
    outs["Out"][0].copy_(v)
    outs["Indices"][0].copy_(i)


def _argsort_grad(op: OpDesc) -> list[OpDesc]:
    return [OpDesc("argsort_grad", {"X": op.input("X"), "Indices": op.output("Indices"),
                                    "Out@GRAD": [grad_name(op.output("Out")[0])]},
                   grad_like(op, "X"), dict(op.attrs))]


_define("argsort", "extern", ["X"], ["Out", "Indices"], ARGSORT_ATTRS, _argsort_infer,
        _argsort_run, _argsort_ref, _argsort_grad)
_define("argsort_grad", "extern", ["X", "Indices", "Out@GRAD"], ["X@GRAD?"], ARGSORT_ATTRS,
        _scatter_grad_infer, _topk_grad_run, _topk_grad_ref)


# ---------------------------------------------------------------------------------------------
# shape: Input's runtime shape as an int32 1-D tensor (paddle.shape)

def _shape_run(ins, outs, a, rng):
    outs["Out"][0].copy_(torch.tensor(ins["Input"][0].shape, dtype=torch.int32))


_define("shape", "extern", ["Input"], ["Out"], {},
        lambda ins, a: {"Out": [VarInfo((len(ins["Input"][0].shape),), VarType.INT32)]},
        _shape_run,
        lambda ins, a: {"Out": [np.asarray(np.shape(ins["Input"][0]), np.int32)]})
