"""Reductions (reduce_sum/max/min/prod; reduce_mean and mean lower onto them) and their grads."""
from __future__ import annotations

import numpy as np

from ..dtypes import VarType
from ..errors import ShapeError
from .define import pointwise, same_as
from .registry import OpDef, OpDesc, VarInfo, grad_name, register, slots
from .tensor import fill_constant_attrs

REDUCE_ATTRS = {"dim": [0], "keep_dim": False, "reduce_all": False, "in_dtype": -1,
                "out_dtype": -1}

_NUMPY = {"sum": np.sum, "max": np.max, "min": np.min, "prod": np.prod}
_HALF = (VarType.FP16, VarType.BF16)
_INTS = (VarType.INT8, VarType.UINT8, VarType.INT16, VarType.INT32, VarType.INT64)


def _dims(attrs: dict) -> list:
    d = attrs.get("dim", [0])
    return list(d) if isinstance(d, (list, tuple)) else [d]


def reduce_axes(attrs: dict, rank: int) -> tuple[int, ...]:
    """The axes an op with reduce_* attrs sums over, normalized to 0..rank-1."""
    if attrs.get("reduce_all") or rank == 0:
        return tuple(range(rank))
    dims = attrs["dim"] if isinstance(attrs["dim"], (list, tuple)) else [attrs["dim"]]
    if len(dims) == 0:
        return tuple(range(rank))
    return tuple(sorted({d % rank for d in dims}))


def reduced_shape(shape, attrs: dict) -> tuple[int, ...]:
    """The output shape of a reduction of `shape` under reduce_* attrs."""
    axes = reduce_axes(attrs, len(shape))
    if attrs.get("keep_dim"):
        return tuple(1 if i in axes else d for i, d in enumerate(shape))
    out = tuple(d for i, d in enumerate(shape) if i not in axes)
    # 2.x spells a full reduction dim=[] and gets a 0-d result (Paddle 3.x); 1.x's spellings
    # (dim=[0] or every dim, with reduce_all) keep the [1] of 1.x.
    if not out and not _dims(attrs):
        return ()
    return out if out else (1,)


def _infer(ins, a):
    x = ins["X"][0]
    rank = len(x.shape)
    bad = [d for d in _dims(a) if not -max(rank, 1) <= d < max(rank, 1)]
    if bad and not a.get("reduce_all"):
        raise ShapeError(f"dim {bad} is out of range for X {list(x.shape)} (rank {rank})")
    return {"Out": [VarInfo(reduced_shape(x.shape, a), x.dtype)]}


def _keep_dims_broadcast(full: str):
    """The broadcast of a reduction's grad op whose slot `full` has the reduced input's shape:
    the others (Out, Out@GRAD, ...) lack the reduced axes unless keep_dim: 1s go back there."""
    def broadcast(attrs, shapes, rank):
        x = tuple(shapes[full])
        axes = reduce_axes(attrs, rank)
        kept = tuple(1 if i in axes else d for i, d in enumerate(x))
        return {k: (x if k == full else kept) for k in shapes}
    return broadcast


_keep_dims_grad_broadcast = _keep_dims_broadcast("X")


def _register(kind: str) -> None:
    name = f"reduce_{kind}"
    fn = _NUMPY[kind]

    def reference(ins, a):
        x = np.asarray(ins["X"][0])
        out = fn(x, axis=reduce_axes(a, x.ndim), keepdims=True)
        # np.array, not np.ascontiguousarray: that turns a 0-d result into shape (1,)
        return {"Out": [np.array(out.reshape(reduced_shape(x.shape, a)), x.dtype, order="C")]}

    def grad(op: OpDesc) -> list[OpDesc]:
        ins = {"X": op.input("X"), "Out@GRAD": [grad_name(op.output("Out")[0])]}
        if kind != "sum":
            ins["Out"] = op.output("Out")
        return [OpDesc(name + "_grad", ins, {"X@GRAD": [grad_name(op.input("X")[0])]},
                       dict(op.attrs))]

    register(OpDef(name, slots("X"), slots("Out"), REDUCE_ATTRS, _infer, "reduction",
                   reference=reference, grad=grad if kind != "prod" else None, combine=kind,
                   reduce_axes=reduce_axes))


for _k in ("sum", "max", "min", "prod"):
    _register(_k)

def _sum_grad_grad(op: OpDesc) -> list[OpDesc]:
    """reduce_sum_grad's own gradient (double backward): X@GRAD broadcasts Out@GRAD, so the
    grad of Out@GRAD sums the grad of X@GRAD over the same dims."""
    return [OpDesc("reduce_sum", {"X": [grad_name(op.output("X@GRAD")[0])]},
                   {"Out": [grad_name(op.input("Out@GRAD")[0])]}, dict(op.attrs))]


pointwise("reduce_sum_grad", ["X", "Out@GRAD"], ["X@GRAD"],
          lambda o, i, a: {"X@GRAD": i["Out@GRAD"]},
          REDUCE_ATTRS, grad=_sum_grad_grad, broadcast=_keep_dims_grad_broadcast)

# reduce_max / reduce_min's grad shares Out@GRAD evenly among the elements equal to the
# extremum (Paddle 3.x's kernels; 1.x gave each tied element all of it): lowered to the mask of
# ties (X == Out, in X's dtype), their count (a reduce_sum, dims kept) and the share.
pointwise("reduce_extremum_ties", ["X", "Out"], ["Ties"],
          lambda o, i, a: {"Ties": o.cast(o.eq(i["X"], i["Out"]), i["X"].dtype)},
          REDUCE_ATTRS, broadcast=_keep_dims_grad_broadcast)
pointwise("reduce_extremum_share", ["Ties", "Count", "Out@GRAD"], ["X@GRAD"],
          lambda o, i, a: {"X@GRAD": o.where(o.ne(i["Ties"], o.constant(0, i["Ties"].dtype)),
                                             o.truediv(i["Out@GRAD"], i["Count"]),
                                             o.constant(0, i["Out@GRAD"].dtype))},
          REDUCE_ATTRS, broadcast=_keep_dims_broadcast("Ties"))


def _extremum_grad_lowering(op: OpDesc, infos: dict[str, VarInfo], new_var) -> list[OpDesc]:
    x = infos[op.input("X")[0]]
    attrs = {k: op.attrs[k] for k in ("dim", "keep_dim", "reduce_all") if k in op.attrs}
    kept = tuple(1 if i in reduce_axes(attrs, len(x.shape)) else d
                 for i, d in enumerate(x.shape))
    ties, count = new_var(VarInfo(x.shape, x.dtype)), new_var(VarInfo(kept, x.dtype))
    return [OpDesc("reduce_extremum_ties", {"X": op.input("X"), "Out": op.input("Out")},
                   {"Ties": [ties]}, attrs),
            OpDesc("reduce_sum", {"X": [ties]}, {"Out": [count]},
                   {**attrs, "keep_dim": True}),
            OpDesc("reduce_extremum_share", {"Ties": [ties], "Count": [count],
                                             "Out@GRAD": op.input("Out@GRAD")},
                   {"X@GRAD": op.output("X@GRAD")}, attrs)]


for _k in ("max", "min"):
    register(OpDef(f"reduce_{_k}_grad", slots("X", "Out", "Out@GRAD"), slots("X@GRAD"),
                   REDUCE_ATTRS, same_as("X", "X@GRAD"), "composite",
                   lower=_extremum_grad_lowering))


def inverse_count(n: int) -> float:
    """1/n, the scale of a mean over n elements; a mean over none is NaN (0 * NaN), as numpy
    and Paddle give it (and an empty result's scale goes unused)."""
    return 1.0 / n if n else float("nan")


def _per_count(src: str, n: int, out: str, info: VarInfo, new_var) -> list[OpDesc]:
    """Ops making out = src / n: a scale by 1/n, or for integers (whose scale would truncate
    1/n to 0) a division rounding toward zero, as Paddle's int mean kernels compute."""
    if info.dtype not in _INTS:
        return [OpDesc("scale", {"X": [src]}, {"Out": [out]}, {"scale": inverse_count(n)})]
    count = new_var(VarInfo((), info.dtype))
    return [OpDesc("fill_constant", {}, {"Out": [count]}, fill_constant_attrs((), info.dtype, n)),
            OpDesc("elementwise_div", {"X": [src], "Y": [count]}, {"Out": [out]}, {})]


def _mean_lowering(op: OpDesc, infos: dict[str, VarInfo], new_var) -> list[OpDesc]:
    x = infos[op.input("X")[0]]
    attrs = dict(op.attrs) if op.type == "reduce_mean" else {"reduce_all": True, "dim": []}
    axes = reduce_axes(attrs, len(x.shape))
    n = int(np.prod([x.shape[i] for i in axes])) if axes else 1
    out = op.output("Out")[0]
    sum_attrs = {k: attrs[k] for k in ("dim", "keep_dim", "reduce_all") if k in attrs}
    if x.dtype not in _HALF:
        total = new_var(infos[out])
        return [OpDesc("reduce_sum", {"X": op.input("X")}, {"Out": [total]}, sum_attrs),
                *_per_count(total, n, out, infos[out], new_var)]
    # Half precision: sum and divide in float32, as Paddle's kernels and numpy do (a float16
    # sum of 70000 ones is inf, their mean 1); the casts fuse into the reduction's kernel.
    wide = new_var(VarInfo(x.shape, VarType.FP32, x.lod_level))
    total, mean = (new_var(VarInfo(infos[out].shape, VarType.FP32)) for _ in range(2))
    return [OpDesc("cast", {"X": op.input("X")}, {"Out": [wide]},
                   {"in_dtype": int(x.dtype), "out_dtype": int(VarType.FP32)}),
            OpDesc("reduce_sum", {"X": [wide]}, {"Out": [total]}, sum_attrs),
            OpDesc("scale", {"X": [total]}, {"Out": [mean]}, {"scale": inverse_count(n)}),
            OpDesc("cast", {"X": [mean]}, {"Out": [out]},
                   {"in_dtype": int(VarType.FP32), "out_dtype": int(x.dtype)})]


def _mean_grad_lowering(op: OpDesc, infos: dict[str, VarInfo], new_var) -> list[OpDesc]:
    x = infos[op.input("X")[0]]
    attrs = dict(op.attrs) if op.type == "reduce_mean_grad" else {"reduce_all": True, "dim": []}
    axes = reduce_axes(attrs, len(x.shape))
    n = int(np.prod([x.shape[i] for i in axes])) if axes else 1
    dout = infos[op.input("Out@GRAD")[0]]
    scaled = new_var(dout)
    return [*_per_count(op.input("Out@GRAD")[0], n, scaled, dout, new_var),
            OpDesc("reduce_sum_grad", {"X": op.input("X"), "Out@GRAD": [scaled]},
                   {"X@GRAD": op.output("X@GRAD")},
                   {k: attrs[k] for k in ("dim", "keep_dim", "reduce_all") if k in attrs})]


def _mean_reference(ins, a):
    x = np.asarray(ins["X"][0])
    if "dim" not in a:
        return {"Out": [np.asarray(x.mean(), dtype=x.dtype)]}
    out = x.mean(axis=reduce_axes(a, x.ndim), keepdims=True)
    return {"Out": [out.reshape(reduced_shape(x.shape, a)).astype(x.dtype)]}


def _mean_grad(op: OpDesc) -> list[OpDesc]:
    return [OpDesc(op.type + "_grad", {"X": op.input("X"),
                                        "Out@GRAD": [grad_name(op.output("Out")[0])]},
                   {"X@GRAD": [grad_name(op.input("X")[0])]}, dict(op.attrs))]


register(OpDef("reduce_mean", slots("X"), slots("Out"), REDUCE_ATTRS, _infer, "composite",
               reference=_mean_reference, grad=_mean_grad, lower=_mean_lowering))
register(OpDef("mean", slots("X"), slots("Out"), {},
               lambda ins, a: {"Out": [VarInfo((), ins["X"][0].dtype)]}, "composite",
               reference=_mean_reference, grad=_mean_grad, lower=_mean_lowering))
for _t in ("reduce_mean_grad", "mean_grad"):
    register(OpDef(_t, slots("X", "Out@GRAD"), slots("X@GRAD"),
                   REDUCE_ATTRS if _t == "reduce_mean_grad" else {}, same_as("X", "X@GRAD"),
                   "composite", lower=_mean_grad_lowering))



# reduce_all / reduce_any: whether every / any element is nonzero, as bool. Lowered to primitives
# the backends fuse: X != 0, as int32, reduce_min / reduce_max, back to bool.
def _logical_infer(ins, a):
    return {"Out": [VarInfo(_infer(ins, a)["Out"][0].shape, VarType.BOOL)]}


def _logical_lowering(op: OpDesc, infos: dict[str, VarInfo], new_var) -> list[OpDesc]:
    x, out = infos[op.input("X")[0]], infos[op.output("Out")[0]]
    zero, nonzero = new_var(VarInfo((), x.dtype)), new_var(VarInfo(x.shape, VarType.BOOL))
    as_int = new_var(VarInfo(x.shape, VarType.INT32))
    reduced = new_var(VarInfo(out.shape, VarType.INT32))
    combine = "min" if op.type == "reduce_all" else "max"
    return [OpDesc("fill_constant", {}, {"Out": [zero]},
                   {"shape": [], "dtype": int(x.dtype), "value": 0.0}),
            OpDesc("not_equal", {"X": op.input("X"), "Y": [zero]}, {"Out": [nonzero]}, {}),
            OpDesc("cast", {"X": [nonzero]}, {"Out": [as_int]},
                   {"in_dtype": int(VarType.BOOL), "out_dtype": int(VarType.INT32)}),
            OpDesc(f"reduce_{combine}", {"X": [as_int]}, {"Out": [reduced]},
                   {k: op.attrs[k] for k in ("dim", "keep_dim", "reduce_all") if k in op.attrs}),
            OpDesc("cast", {"X": [reduced]}, {"Out": op.output("Out")},
                   {"in_dtype": int(VarType.INT32), "out_dtype": int(VarType.BOOL)})]


def _logical_reference(fn):
    def reference(ins, a):
        x = np.asarray(ins["X"][0])
        out = fn(x != 0, axis=reduce_axes(a, x.ndim), keepdims=True)
        return {"Out": [np.array(out.reshape(reduced_shape(x.shape, a)), np.bool_)]}
    return reference


for _t, _fn in (("reduce_all", np.all), ("reduce_any", np.any)):
    register(OpDef(_t, slots("X"), slots("Out"), REDUCE_ATTRS, _logical_infer, "composite",
                   reference=_logical_reference(_fn), lower=_logical_lowering))
