"""Optimizer update ops: sgd, momentum, adam (composite over adam_update and scale). No grads."""
from __future__ import annotations

import numpy as np

from .define import pointwise
from .registry import OpDef, OpDesc, VarInfo, register, slots


def _c(o, v, like):
    return o.constant(v, like.dtype)


# sgd: ParamOut = Param - LearningRate * Grad ([1]-shaped LearningRate broadcasts).
pointwise("sgd", ["Param", "Grad", "LearningRate"], ["ParamOut"],
          lambda o, i, a: {"ParamOut": o.sub(i["Param"], o.mul(i["LearningRate"], i["Grad"]))},
          {"multi_precision": False})


def _momentum(o, i, a):
    p, g, v, lr = i["Param"], i["Grad"], i["Velocity"], i["LearningRate"]
    if a["rescale_grad"] != 1.0:
        g = o.mul(g, _c(o, a["rescale_grad"], g))
    if a["regularization_method"] == "l2_decay":
        g = o.add(g, o.mul(_c(o, a["regularization_coeff"], p), p))
    v_out = o.add(o.mul(_c(o, a["mu"], v), v), g)
    if a["use_nesterov"]:
        step = o.mul(o.add(g, o.mul(_c(o, a["mu"], v_out), v_out)), lr)
    else:
        step = o.mul(lr, v_out)
    return {"ParamOut": o.sub(p, step), "VelocityOut": v_out}


pointwise("momentum", ["Param", "Grad", "Velocity", "LearningRate"], ["ParamOut", "VelocityOut"],
          _momentum, {"mu": 0.0, "use_nesterov": False, "regularization_method": "",
                      "regularization_coeff": 0.0, "multi_precision": False,
                      "rescale_grad": 1.0})


# adam: Paddle's bias correction folds into the step size (lr_t) and epsilon.
ADAM_ATTRS = {"beta1": 0.9, "beta2": 0.999, "epsilon": 1e-8, "lazy_mode": False,
              "min_row_size_to_use_multithread": 1000, "multi_precision": False,
              "use_global_beta_pow": False, "amsgrad": False}


def _adam_update(o, i, a):
    p, g, lr = i["Param"], i["Grad"], i["LearningRate"]
    m1, m2, b1p, b2p = i["Moment1"], i["Moment2"], i["Beta1Pow"], i["Beta2Pow"]
    b1 = i["Beta1Tensor"] if "Beta1Tensor" in i else _c(o, a["beta1"], p)
    b2 = i["Beta2Tensor"] if "Beta2Tensor" in i else _c(o, a["beta2"], p)
    one = _c(o, 1.0, p)
    m1_out = o.add(o.mul(b1, m1), o.mul(o.sub(one, b1), g))
    m2_out = o.add(o.mul(b2, m2), o.mul(o.sub(one, b2), o.mul(g, g)))
    root_b2 = o.sqrt(o.sub(one, b2p))
    lr_t = o.truediv(o.mul(lr, root_b2), o.sub(one, b1p))
    denom = o.add(o.sqrt(m2_out), o.mul(_c(o, a["epsilon"], p), root_b2))
    return {"ParamOut": o.sub(p, o.mul(lr_t, o.truediv(m1_out, denom))),
            "Moment1Out": m1_out, "Moment2Out": m2_out}


_ADAM_INPUTS = ["Param", "Grad", "LearningRate", "Moment1", "Moment2", "Beta1Pow", "Beta2Pow"]
pointwise("adam_update", _ADAM_INPUTS + ["Beta1Tensor?", "Beta2Tensor?"],
          ["ParamOut", "Moment1Out", "Moment2Out"], _adam_update, ADAM_ATTRS)


def _adam_lower(op: OpDesc, infos: dict[str, VarInfo], new_var) -> list[OpDesc]:
    attrs = {**ADAM_ATTRS, **op.attrs}  # the op may carry only the attrs it set
    ins = {s: op.input(s) for s in _ADAM_INPUTS + ["Beta1Tensor", "Beta2Tensor"] if op.input(s)}
    ops = [OpDesc("adam_update", ins, {s: op.output(s) for s in
                                       ("ParamOut", "Moment1Out", "Moment2Out")}, attrs)]
    if attrs["use_global_beta_pow"]:  # another op advances the shared pows
        return ops
    # After adam_update, which must read the pows before they advance (usually in place).
    for k in ("1", "2"):
        pow_in, pow_out = op.input(f"Beta{k}Pow"), op.output(f"Beta{k}PowOut")
        if not pow_out:
            continue
        if op.input(f"Beta{k}Tensor"):
            ops.append(OpDesc("elementwise_mul", {"X": pow_in, "Y": op.input(f"Beta{k}Tensor")},
                              {"Out": pow_out}, {"axis": -1}))
        else:
            ops.append(OpDesc("scale", {"X": pow_in}, {"Out": pow_out},
                              {"scale": float(attrs[f"beta{k}"]), "bias": 0.0,
                               "bias_after_scale": True}))
    return ops


def _adam_infer(ins, a):
    return {s + "Out": [ins[s][0]] for s in ("Param", "Moment1", "Moment2", "Beta1Pow", "Beta2Pow")}


def _adam_ref(ins, a):
    """Paddle's adam formula in plain numpy (the lowering must agree with it)."""
    p, g, lr, m1, m2, b1p, b2p = (np.asarray(ins[s][0]) for s in _ADAM_INPUTS)
    b1 = np.asarray(ins["Beta1Tensor"][0]) if ins.get("Beta1Tensor") else a["beta1"]
    b2 = np.asarray(ins["Beta2Tensor"][0]) if ins.get("Beta2Tensor") else a["beta2"]
    m1 = b1 * m1 + (1 - b1) * g
    m2 = b2 * m2 + (1 - b2) * g * g
    lr_t = lr * np.sqrt(1 - b2p) / (1 - b1p)
    p = p - lr_t * m1 / (np.sqrt(m2) + a["epsilon"] * np.sqrt(1 - b2p))
    if not a["use_global_beta_pow"]:
        b1p, b2p = b1p * b1, b2p * b2
    dt = ins["Param"][0].dtype
    return {"ParamOut": [p.astype(dt)], "Moment1Out": [m1.astype(dt)],
            "Moment2Out": [m2.astype(dt)],
            "Beta1PowOut": [np.asarray(b1p).astype(ins["Beta1Pow"][0].dtype)],
            "Beta2PowOut": [np.asarray(b2p).astype(ins["Beta2Pow"][0].dtype)]}


register(OpDef("adam", slots(*_ADAM_INPUTS, "Beta1Tensor?", "Beta2Tensor?"),
               slots("ParamOut", "Moment1Out", "Moment2Out", "Beta1PowOut?", "Beta2PowOut?"),
               ADAM_ATTRS, _adam_infer, "composite", reference=_adam_ref, lower=_adam_lower))
