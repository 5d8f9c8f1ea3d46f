"""label_smooth (F.label_smooth): Out = (1 - epsilon) * X + epsilon / K (K = X's last dim), or
+ epsilon * PriorDist ([1, K], broadcast over the rows) when given; its grad (1 - epsilon) * dOut.
Both are composites of scale / elementwise_add. The factors are formed as Paddle's kernel forms
them, in float32 (its attribute's type), then applied in X's dtype."""
from __future__ import annotations

import numpy as np

from ..errors import ShapeError
from .define import present, same_as
from .registry import OpDef, OpDesc, VarInfo, grad_name, register, slots

ATTRS = {"epsilon": 0.0}


def _keep(a) -> float:
    return float(np.float32(1) - np.float32(a["epsilon"]))


def _infer(ins, a):
    x = ins["X"][0]
    prior = (ins.get("PriorDist") or [None])[0]
    if prior is not None and x.shape and prior.shape[-1:] not in ((x.shape[-1],), (-1,)) \
            and x.shape[-1] != -1:
        raise ShapeError(f"op 'label_smooth': PriorDist shape {list(prior.shape)} must end in "
                         f"X's class count {x.shape[-1]}")
    return {"Out": [x]}


def _lower(op: OpDesc, infos: dict[str, VarInfo], new_var) -> list[OpDesc]:
    x, out = op.input("X")[0], op.output("Out")[0]
    a = {**ATTRS, **op.attrs}
    if not present(op.input("PriorDist")):
        bias = float(np.float32(a["epsilon"]) / np.float32(infos[x].shape[-1]))
        return [OpDesc("scale", {"X": [x]}, {"Out": [out]}, {"scale": _keep(a), "bias": bias})]
    prior = op.input("PriorDist")[0]
    kept, spread = new_var(infos[x]), new_var(infos[prior])
    return [OpDesc("scale", {"X": [x]}, {"Out": [kept]}, {"scale": _keep(a)}),
            OpDesc("scale", {"X": [prior]}, {"Out": [spread]},
                   {"scale": float(np.float32(a["epsilon"]))}),
            OpDesc("elementwise_add", {"X": [kept], "Y": [spread]}, {"Out": [out]}, {"axis": -1})]


def _grad(op: OpDesc) -> list[OpDesc]:
    return [OpDesc("label_smooth_grad", {"Out@GRAD": [grad_name(op.output("Out")[0])]},
                   {"X@GRAD": [grad_name(op.input("X")[0])]}, dict(op.attrs))]


def _grad_lower(op: OpDesc, infos, new_var) -> list[OpDesc]:
    return [OpDesc("scale", {"X": op.input("Out@GRAD")}, {"Out": op.output("X@GRAD")},
                   {"scale": _keep({**ATTRS, **op.attrs})})]


register(OpDef("label_smooth", slots("X", "PriorDist?"), slots("Out"), ATTRS, _infer,
               "composite", grad=_grad, lower=_lower))
register(OpDef("label_smooth_grad", slots("Out@GRAD"), slots("X@GRAD"), ATTRS,
               same_as("Out@GRAD", "X@GRAD"), "composite", lower=_grad_lower))
