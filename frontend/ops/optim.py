"""Optimizer update ops under Paddle's names and slots: sgd, momentum, adagrad, rmsprop, adamax,
adadelta (pointwise), adam and adamw (composite over a pointwise update and the beta-pow
scales), lamb (composite: moments, two norms, the trust-ratio step); the gradient-clipping ops
squared_l2_norm and clip_by_norm; and the 1.x learning-rate schedules' step counter, increment
(their cos is the pointwise op of unary_math.py). No grads."""
from __future__ import annotations

import numpy as np

from ..errors import OpError
from .define import pointwise, same_as
from .registry import OpDef, OpDesc, VarInfo, grad_name, register, slots


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
ADAM_ATTRS = {"beta1": 0.9, "beta2": 0.999, "epsilon": 1e-8, "multi_precision": False,
              "use_global_beta_pow": False}


def _adam_update(o, i, a):
    return _adam_step(o, i, a, i["Param"], i["LearningRate"])


def _adam_step(o, i, a, p, lr):
    g = i["Grad"]
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
    defaults = ADAMW_ATTRS if op.type == "adamw" else ADAM_ATTRS
    attrs = {**defaults, **op.attrs}  # the op may carry only the attrs it set
    ins = {s: op.input(s) for s in _ADAM_INPUTS + ["Beta1Tensor", "Beta2Tensor"] if op.input(s)}
    ops = [OpDesc(op.type + "_update", ins, {s: op.output(s) for s in
                                             ("ParamOut", "Moment1Out", "Moment2Out")}, attrs)]
    if attrs["use_global_beta_pow"]:  # another op advances the shared pows
        return ops
    # After the update, which must read the pows before they advance (usually in place).
    if op.input("Beta1Tensor") or op.input("Beta2Tensor"):
        for k in ("1", "2"):
            if op.output(f"Beta{k}PowOut"):
                beta = op.input(f"Beta{k}Tensor")
                ops.append(OpDesc("elementwise_mul", {"X": op.input(f"Beta{k}Pow"), "Y": beta},
                                  {"Out": op.output(f"Beta{k}PowOut")}, {"axis": -1}) if beta else
                           _beta_pow_scales(op, attrs, k)[0])
        return ops
    return ops + _beta_pow_scales(op, attrs)


def _adam_infer(ins, a):
    return {s + "Out": [ins[s][0]] for s in ("Param", "Moment1", "Moment2", "Beta1Pow", "Beta2Pow")}


def _adam_ref(ins, a):
    """Paddle's adam (and adamw) formula in plain numpy (the lowering must agree with it)."""
    p, g, lr, m1, m2, b1p, b2p = (np.asarray(ins[s][0]) for s in _ADAM_INPUTS)
    if "coeff" in a:  # adamw: decoupled decay first, then adam with lr * lr_ratio
        lr = lr * a["lr_ratio"]
        if a["with_decay"]:
            p = p * (1 - lr * a["coeff"])
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


# adamw: adam after the decoupled decay p *= 1 - lr * lr_ratio * coeff (with_decay), lr scaled by
# lr_ratio throughout, as Paddle's GPU kernel does (its CPU kernel refuses lr_ratio != 1).
ADAMW_ATTRS = {**ADAM_ATTRS, "coeff": 0.01, "lr_ratio": 1.0, "with_decay": False}


def _adamw_update(o, i, a):
    p, lr = i["Param"], i["LearningRate"]
    if a["lr_ratio"] != 1.0:
        lr = o.mul(lr, _c(o, a["lr_ratio"], lr))
    if a["with_decay"]:
        p = o.mul(p, o.sub(_c(o, 1.0, p), o.mul(lr, _c(o, a["coeff"], p))))
    return _adam_step(o, i, a, p, lr)


pointwise("adamw_update", _ADAM_INPUTS + ["Beta1Tensor?", "Beta2Tensor?"],
          ["ParamOut", "Moment1Out", "Moment2Out"], _adamw_update, ADAMW_ATTRS)
register(OpDef("adamw", slots(*_ADAM_INPUTS, "Beta1Tensor?", "Beta2Tensor?"),
               slots("ParamOut", "Moment1Out", "Moment2Out", "Beta1PowOut?", "Beta2PowOut?"),
               ADAMW_ATTRS, _adam_infer, "composite", reference=_adam_ref, lower=_adam_lower))


# adagrad: moment += g^2; param -= lr * g / (sqrt(moment) + epsilon).
def _adagrad(o, i, a):
    p, g, m, lr = i["Param"], i["Grad"], i["Moment"], i["LearningRate"]
    m_out = o.add(m, o.mul(g, g))
    step = o.truediv(o.mul(lr, g), o.add(o.sqrt(m_out), _c(o, a["epsilon"], p)))
    return {"ParamOut": o.sub(p, step), "MomentOut": m_out}


pointwise("adagrad", ["Param", "Grad", "Moment", "LearningRate"], ["ParamOut", "MomentOut"],
          _adagrad, {"epsilon": 1e-6, "multi_precision": False})


# rmsprop: mean_square = rho*ms + (1-rho)*g^2 (centered: minus the square of the running mean
# grad under the root); moment = momentum*moment + lr*g/sqrt(.. + epsilon); param -= moment.
def _rmsprop(o, i, a):
    p, g, ms, mom, lr = (i[s] for s in ("Param", "Grad", "MeanSquare", "Moment", "LearningRate"))
    rho, one = _c(o, a["decay"], p), _c(o, 1.0, p)
    ms_out = o.add(o.mul(rho, ms), o.mul(o.sub(one, rho), o.mul(g, g)))
    out = {"MeanSquareOut": ms_out}
    var = ms_out
    if a["centered"]:
        mg_out = o.add(o.mul(rho, i["MeanGrad"]), o.mul(o.sub(one, rho), g))
        var = o.sub(ms_out, o.mul(mg_out, mg_out))
        out["MeanGradOut"] = mg_out
    elif "MeanGrad" in i:  # bound but unused: it passes through
        out["MeanGradOut"] = i["MeanGrad"]
    mom_out = o.add(o.mul(_c(o, a["momentum"], p), mom),
                    o.truediv(o.mul(lr, g), o.sqrt(o.add(var, _c(o, a["epsilon"], p)))))
    out.update(ParamOut=o.sub(p, mom_out), MomentOut=mom_out)
    return out


def _rmsprop_infer(ins, a):
    if a["centered"] and not ins.get("MeanGrad"):
        raise OpError("op 'rmsprop' with centered=True needs its input slot 'MeanGrad'")
    p = ins["Param"][0]
    outs = ["ParamOut", "MomentOut", "MeanSquareOut"] + (["MeanGradOut"] if ins.get("MeanGrad")
                                                          else [])
    return {s: [VarInfo(p.shape, p.dtype, p.lod_level)] for s in outs}


_rms = pointwise("rmsprop", ["Param", "MeanSquare", "Grad", "Moment", "LearningRate", "MeanGrad?"],
                 ["ParamOut", "MomentOut", "MeanSquareOut", "MeanGradOut?"], _rmsprop,
                 {"epsilon": 1e-10, "decay": 0.9, "momentum": 0.0, "centered": False,
                  "multi_precision": False})
_rms.infer = _rmsprop_infer


# adamax: m = b1*m + (1-b1)*g; u = max(b2*u + eps, |g|); param -= lr/(1-b1^t) * m/u. The
# optimizer advances Beta1Pow with a scale op after it, as Paddle does.
def _adamax(o, i, a):
    p, g, lr, m, u, b1p = (i[s] for s in ("Param", "Grad", "LearningRate", "Moment", "InfNorm",
                                          "Beta1Pow"))
    b1, one = _c(o, a["beta1"], p), _c(o, 1.0, p)
    m_out = o.add(o.mul(b1, m), o.mul(o.sub(one, b1), g))
    u_out = o.maximum(o.add(o.mul(_c(o, a["beta2"], p), u), _c(o, a["epsilon"], p)), o.abs(g))
    lr_t = o.truediv(lr, o.sub(one, b1p))
    return {"ParamOut": o.sub(p, o.mul(lr_t, o.truediv(m_out, u_out))), "MomentOut": m_out,
            "InfNormOut": u_out}


pointwise("adamax", ["Param", "Grad", "LearningRate", "Moment", "InfNorm", "Beta1Pow"],
          ["ParamOut", "MomentOut", "InfNormOut"], _adamax,
          {"beta1": 0.9, "beta2": 0.999, "epsilon": 1e-8, "multi_precision": False})


# adadelta: asg = rho*asg + (1-rho)*g^2; update = -sqrt((asu + eps) / (asg + eps)) * g;
# asu = rho*asu + (1-rho)*update^2; param += lr * update.
def _adadelta(o, i, a):
    p, g, asg, asu, lr = (i[s] for s in ("Param", "Grad", "AvgSquaredGrad", "AvgSquaredUpdate",
                                          "LearningRate"))
    rho, one, eps = _c(o, a["rho"], p), _c(o, 1.0, p), _c(o, a["epsilon"], p)
    asg_out = o.add(o.mul(rho, asg), o.mul(o.sub(one, rho), o.mul(g, g)))
    update = o.neg(o.mul(o.sqrt(o.truediv(o.add(asu, eps), o.add(asg_out, eps))), g))
    asu_out = o.add(o.mul(rho, asu), o.mul(o.sub(one, rho), o.mul(update, update)))
    return {"ParamOut": o.add(p, o.mul(lr, update)), "AvgSquaredGradOut": asg_out,
            "AvgSquaredUpdateOut": asu_out}


pointwise("adadelta", ["Param", "Grad", "AvgSquaredGrad", "AvgSquaredUpdate", "LearningRate"],
          ["ParamOut", "AvgSquaredGradOut", "AvgSquaredUpdateOut"], _adadelta,
          {"rho": 0.95, "epsilon": 1e-6, "multi_precision": False})


# squared_l2_norm: sum(x^2) as a [1] value; lowered to square + reduce_sum, one fused kernel.
def squared_norm_ops(x: str, out: str, infos: dict[str, VarInfo], new_var) -> list[OpDesc]:
    """Primitive ops computing out = sum(x^2) (composites lower to these, never to a nested
    composite)."""
    sq = new_var(infos[x])
    return [OpDesc("square", {"X": [x]}, {"Out": [sq]}),
            OpDesc("reduce_sum", {"X": [sq]}, {"Out": [out]},
                   {"reduce_all": True, "dim": [0], "keep_dim": False})]  # [1], not 0-d


def _sq_norm_lower(op: OpDesc, infos: dict[str, VarInfo], new_var) -> list[OpDesc]:
    return squared_norm_ops(op.input("X")[0], op.output("Out")[0], infos, new_var)


def _sq_norm_ref(ins, a):
    x = np.asarray(ins["X"][0])
    return {"Out": [np.asarray([np.sum(x.astype(np.float64) ** 2)]).astype(x.dtype)]}


def _sq_norm_grad(op: OpDesc) -> list[OpDesc]:
    return [OpDesc("squared_l2_norm_grad",
                   {"X": op.input("X"), "Out@GRAD": [grad_name(op.output("Out")[0])]},
                   {"X@GRAD": [grad_name(op.input("X")[0])]}, {})]


register(OpDef("squared_l2_norm", slots("X"), slots("Out"), {},
               lambda ins, a: {"Out": [VarInfo((1,), ins["X"][0].dtype)]}, "composite",
               reference=_sq_norm_ref, lower=_sq_norm_lower, grad=_sq_norm_grad))
# dX = 2 * X * dOut (dOut's one value), as Paddle's kernel
pointwise("squared_l2_norm_grad", ["X", "Out@GRAD"], ["X@GRAD"],
          lambda o, i, a: {"X@GRAD": o.mul(o.mul(_c(o, 2, i["X"]), i["X"]), i["Out@GRAD"])},
          scalars=("Out@GRAD",))


# clip_by_norm: x * max_norm / ||x|| where ||x|| > max_norm, else x.
def _clip_by_norm_apply(o, i, a):
    x, norm = i["X"], o.sqrt(i["SquaredNorm"])
    m = _c(o, a["max_norm"], x)
    return {"Out": o.where(o.gt(norm, m), o.mul(x, o.truediv(m, norm)), x)}


pointwise("clip_by_norm_apply", ["X", "SquaredNorm"], ["Out"], _clip_by_norm_apply,
          {"max_norm": 1.0})


def _clip_by_norm_lower(op: OpDesc, infos: dict[str, VarInfo], new_var) -> list[OpDesc]:
    x = op.input("X")[0]
    sq = new_var(VarInfo((1,), infos[x].dtype))
    return squared_norm_ops(x, sq, infos, new_var) + [
            OpDesc("clip_by_norm_apply", {"X": [x], "SquaredNorm": [sq]}, {"Out": op.output("Out")},
                   {"max_norm": op.attrs["max_norm"]})]


def _clip_by_norm_ref(ins, a):
    x = np.asarray(ins["X"][0])
    norm = np.sqrt(np.sum(x.astype(np.float64) ** 2))
    out = x * (a["max_norm"] / norm) if norm > a["max_norm"] else x
    return {"Out": [np.asarray(out, dtype=x.dtype)]}


register(OpDef("clip_by_norm", slots("X"), slots("Out"), {"max_norm": 1.0}, same_as("X", "Out"),
               "composite", reference=_clip_by_norm_ref, lower=_clip_by_norm_lower))


# lamb: moments and the trust-ratio direction r = m1_hat/(sqrt(m2_hat)+eps) + wd*p, then
# p -= lr * (||p||/||r|| when both are positive and decay or always_adapt ask for it) * r.
LAMB_ATTRS = {"beta1": 0.9, "beta2": 0.999, "epsilon": 1e-6, "weight_decay": 0.01,
              "always_adapt": False, "multi_precision": False}
_LAMB_INPUTS = ["Param", "Grad", "LearningRate", "Moment1", "Moment2", "Beta1Pow", "Beta2Pow"]


def _lamb_direction(o, i, a):
    p, g, m1, m2, b1p, b2p = (i[s] for s in ("Param", "Grad", "Moment1", "Moment2", "Beta1Pow",
                                            "Beta2Pow"))
    b1, b2, one = _c(o, a["beta1"], p), _c(o, a["beta2"], p), _c(o, 1.0, p)
    m1_out = o.add(o.mul(b1, m1), o.mul(o.sub(one, b1), g))
    m2_out = o.add(o.mul(b2, m2), o.mul(o.sub(one, b2), o.mul(g, g)))
    m1_hat = o.truediv(m1_out, o.sub(one, b1p))
    m2_hat = o.truediv(m2_out, o.sub(one, b2p))
    r = o.add(o.truediv(m1_hat, o.add(o.sqrt(m2_hat), _c(o, a["epsilon"], p))),
              o.mul(_c(o, a["weight_decay"], p), p))
    return {"Moment1Out": m1_out, "Moment2Out": m2_out, "TrustRatioDiv": r}


pointwise("lamb_direction", ["Param", "Grad", "Moment1", "Moment2", "Beta1Pow", "Beta2Pow"],
          ["Moment1Out", "Moment2Out", "TrustRatioDiv"], _lamb_direction, LAMB_ATTRS)


def _lamb_apply(o, i, a):
    p, r, lr = i["Param"], i["TrustRatioDiv"], i["LearningRate"]
    if a["weight_decay"] > 0 or a["always_adapt"]:
        pn, tn = o.sqrt(i["ParamNorm"]), o.sqrt(i["TrustRatioDivNorm"])
        zero = _c(o, 0.0, p)
        ratio = o.where(o.logical_and(o.gt(pn, zero), o.gt(tn, zero)), o.truediv(pn, tn),
                        _c(o, 1.0, p))
        lr = o.mul(lr, ratio)
    return {"ParamOut": o.sub(p, o.mul(lr, r))}


pointwise("lamb_apply", ["Param", "TrustRatioDiv", "LearningRate", "ParamNorm",
                         "TrustRatioDivNorm"], ["ParamOut"], _lamb_apply, LAMB_ATTRS)


def _lamb_lower(op: OpDesc, infos: dict[str, VarInfo], new_var) -> list[OpDesc]:
    attrs = {**LAMB_ATTRS, **op.attrs}
    p = op.input("Param")[0]
    r, pn, rn = new_var(infos[p]), new_var(VarInfo((1,), infos[p].dtype)), \
        new_var(VarInfo((1,), infos[p].dtype))
    ins = {s: op.input(s) for s in _LAMB_INPUTS if s != "LearningRate"}
    ops = [OpDesc("lamb_direction", ins, {"Moment1Out": op.output("Moment1Out"),
                                          "Moment2Out": op.output("Moment2Out"),
                                          "TrustRatioDiv": [r]}, attrs),
           *squared_norm_ops(p, pn, infos, new_var), *squared_norm_ops(r, rn, infos, new_var),
           OpDesc("lamb_apply", {"Param": [p], "TrustRatioDiv": [r],
                                 "LearningRate": op.input("LearningRate"), "ParamNorm": [pn],
                                 "TrustRatioDivNorm": [rn]}, {"ParamOut": op.output("ParamOut")},
                  attrs)]
    return ops + _beta_pow_scales(op, attrs)


def _beta_pow_scales(op: OpDesc, attrs: dict, which: str = "12") -> list[OpDesc]:
    """Beta{1,2}PowOut = Beta{1,2}Pow * beta{1,2}, after the update that read the old pows."""
    return [OpDesc("scale", {"X": op.input(f"Beta{k}Pow")}, {"Out": op.output(f"Beta{k}PowOut")},
                   {"scale": float(attrs[f"beta{k}"]), "bias": 0.0, "bias_after_scale": True})
            for k in which if op.output(f"Beta{k}PowOut")]


def _lamb_ref(ins, a):
    """Paddle's lamb formula in plain numpy (the lowering must agree with it)."""
    p, g, lr, m1, m2, b1p, b2p = (np.asarray(ins[s][0]) for s in _LAMB_INPUTS)
    m1 = a["beta1"] * m1 + (1 - a["beta1"]) * g
    m2 = a["beta2"] * m2 + (1 - a["beta2"]) * g * g
    r = (m1 / (1 - b1p)) / (np.sqrt(m2 / (1 - b2p)) + a["epsilon"]) + a["weight_decay"] * p
    pn, rn = np.sqrt(np.sum(p.astype(np.float64) ** 2)), np.sqrt(np.sum(r.astype(np.float64) ** 2))
    adapt = (a["weight_decay"] > 0 or a["always_adapt"]) and pn > 0 and rn > 0
    p_out = p - lr * (pn / rn if adapt else 1.0) * r
    dt = p.dtype
    return {"ParamOut": [p_out.astype(dt)], "Moment1Out": [m1.astype(dt)],
            "Moment2Out": [m2.astype(dt)],
            "Beta1PowOut": [np.asarray(b1p * a["beta1"]).astype(b1p.dtype)],
            "Beta2PowOut": [np.asarray(b2p * a["beta2"]).astype(b2p.dtype)]}


register(OpDef("lamb", slots(*_LAMB_INPUTS), slots("ParamOut", "Moment1Out", "Moment2Out",
                                                   "Beta1PowOut?", "Beta2PowOut?"),
               LAMB_ATTRS, _adam_infer, "composite", reference=_lamb_ref, lower=_lamb_lower))


# increment: the step counter of the learning-rate schedules (Out = X + step, X's dtype); its
# grad passes Out's through (d(x + step)/dx = 1, as Paddle's PIR backward computes it).
pointwise("increment", ["X"], ["Out"],
          lambda o, i, a: {"Out": o.add(i["X"], _c(o, a["step"], i["X"]))}, {"step": 1.0},
          grad=lambda op: [OpDesc("assign", {"X": [grad_name(op.output("Out")[0])]},
                                  {"Out": [grad_name(op.input("X")[0])]}, {})])
