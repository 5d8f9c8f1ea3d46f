"""Norms as paddle.norm appends them: p_norm (a vector norm over one axis, or over every element
with asvector) and frobenius_norm (over the dims of `dim`), lowered to abs/pow/reduce ops."""
from __future__ import annotations

import math

from .define import pointwise
from .reduce import REDUCE_ATTRS, reduce_axes, reduced_shape
from .registry import OpDef, OpDesc, VarInfo, grad_name, register, slots

P_NORM_ATTRS = {"axis": -1, "porder": 2.0, "keepdim": False, "asvector": False,
                "epsilon": 1e-12}


def _p_norm_reduce_attrs(a: dict, rank: int) -> dict:
    """The reduce_* attributes of the reduction inside a p_norm of a rank-`rank` X."""
    if a["asvector"] or rank == 1:  # every element: a 0-d result (all 1s with keepdim), as
        # Paddle 3.x's (a vector's norm over its one axis too)
        return {"dim": [], "keep_dim": a["keepdim"], "reduce_all": True}
    return {"dim": [a["axis"]], "keep_dim": a["keepdim"], "reduce_all": False}


def _infer(reduce_attrs):
    def infer(ins, a):
        x = ins["X"][0]
        return {"Out": [VarInfo(reduced_shape(x.shape, reduce_attrs(a, len(x.shape))),
                                x.dtype)]}
    return infer


def _norm_grad(op: OpDesc) -> list[OpDesc]:
    return [OpDesc(op.type + "_grad", {"X": op.input("X"), "Out": op.output("Out"),
                                        "Out@GRAD": [grad_name(op.output("Out")[0])]},
                   {"X@GRAD": [grad_name(op.input("X")[0])]}, dict(op.attrs))]


def _kept_broadcast(reduce_attrs):
    """Grad alignment: Out and Out@GRAD get 1s at the reduced axes of X."""
    def broadcast(attrs, shapes, rank):
        x = tuple(shapes["X"])
        axes = reduce_axes(reduce_attrs(attrs, rank), rank)
        kept = tuple(1 if i in axes else d for i, d in enumerate(x))
        return {k: (x if k == "X" else kept) for k in shapes}
    return broadcast


def _lower_p_norm(op: OpDesc, infos: dict[str, VarInfo], new_var) -> list[OpDesc]:
    x, out = op.input("X")[0], op.output("Out")[0]
    p = float(op.attrs["porder"])
    info = infos[x]
    reduce = _p_norm_reduce_attrs(op.attrs, len(info.shape))
    abs_x = new_var(info)
    ops = [OpDesc("abs", {"X": [x]}, {"Out": [abs_x]}, {})]
    if math.isinf(p):  # the largest (smallest) magnitude
        return ops + [OpDesc("reduce_max" if p > 0 else "reduce_min", {"X": [abs_x]},
                             {"Out": [out]}, reduce)]
    if p == 0:  # the count of nonzeros: sign(|x|) is 1 for each
        nonzero = new_var(info)
        return ops + [OpDesc("sign", {"X": [abs_x]}, {"Out": [nonzero]}, {}),
                      OpDesc("reduce_sum", {"X": [nonzero]}, {"Out": [out]}, reduce)]
    powered, total = new_var(info), new_var(infos[out])
    return ops + [OpDesc("pow", {"X": [abs_x]}, {"Out": [powered]}, {"factor": p}),
                  OpDesc("reduce_sum", {"X": [powered]}, {"Out": [total]}, reduce),
                  OpDesc("pow", {"X": [total]}, {"Out": [out]}, {"factor": 1.0 / p})]


def _p_norm_grad_expr(o, i, a):
    x, out, dout = i["X"], i["Out"], i["Out@GRAD"]
    p = float(a["porder"])
    zero = o.constant(0, x.dtype)
    if math.isinf(p):  # to the elements of the extreme magnitude
        return {"X@GRAD": o.where(o.eq(o.abs(x), out), o.mul(o.sign(x), dout), zero)}
    if p == 0:
        return {"X@GRAD": o.mul(x, zero)}
    # d/dx (sum |x|^p)^(1/p) = sign(x) |x|^(p-1) / norm^(p-1); eps keeps a zero norm finite
    exponent = o.constant(p - 1.0, x.dtype)
    scale = o.truediv(o.pow(o.abs(x), exponent),
                      o.add(o.pow(out, exponent), o.constant(a["epsilon"], x.dtype)))
    return {"X@GRAD": o.mul(o.mul(o.sign(x), scale), dout)}


def _frobenius_reduce_attrs(a: dict, rank: int) -> dict:  # (its attrs name every dim)
    return {"dim": list(a["dim"]), "keep_dim": a["keep_dim"], "reduce_all": a["reduce_all"]}


def _lower_frobenius(op: OpDesc, infos: dict[str, VarInfo], new_var) -> list[OpDesc]:
    x, out = op.input("X")[0], op.output("Out")[0]
    squared, total = new_var(infos[x]), new_var(infos[out])
    return [OpDesc("square", {"X": [x]}, {"Out": [squared]}, {}),
            OpDesc("reduce_sum", {"X": [squared]}, {"Out": [total]},
                   _frobenius_reduce_attrs(op.attrs, len(infos[x].shape))),
            OpDesc("sqrt", {"X": [total]}, {"Out": [out]}, {})]


FROBENIUS_ATTRS = {k: REDUCE_ATTRS[k] for k in ("dim", "keep_dim", "reduce_all")}

register(OpDef("p_norm", slots("X"), slots("Out"), P_NORM_ATTRS, _infer(_p_norm_reduce_attrs),
               "composite", grad=_norm_grad, lower=_lower_p_norm))
pointwise("p_norm_grad", ["X", "Out", "Out@GRAD"], ["X@GRAD"], _p_norm_grad_expr, P_NORM_ATTRS,
          broadcast=_kept_broadcast(_p_norm_reduce_attrs))
register(OpDef("frobenius_norm", slots("X"), slots("Out"), FROBENIUS_ATTRS,
               _infer(_frobenius_reduce_attrs), "composite", grad=_norm_grad,
               lower=_lower_frobenius))
pointwise("frobenius_norm_grad", ["X", "Out", "Out@GRAD"], ["X@GRAD"],
          lambda o, i, a: {"X@GRAD": o.mul(o.truediv(i["X"], i["Out"]), i["Out@GRAD"])},
          FROBENIUS_ATTRS, broadcast=_kept_broadcast(_frobenius_reduce_attrs))
