"""The update ops of Paddle's later optimizers, under Paddle 3.3.1's names, slots and attributes:
nadam, asgd (pointwise), radam and rprop (composite: the values their kernels read from one
element, or from two-element tensors, are taken out first and enter the pointwise update as
one-value inputs). Constants derived from attributes are computed in the param's dtype, as
Paddle's kernels compute them (in T). No grads."""
from __future__ import annotations

from typing import Callable

import numpy as np

from ..errors import ShapeError
from .define import pointwise
from .registry import OpDef, OpDesc, VarInfo, register, slots

# nadam's momentum-decay base: a literal of Paddle 3.3.1's kernel (no attribute)
NADAM_DECAY_BASE = 0.96


def _c(o, v, like):
    return o.constant(v, like.dtype)


def _require_param_shape(type_: str, ins: dict, names) -> None:
    """Paddle's kernels walk these inputs element by element with the param: a shape other
    than the param's would be read out of bounds there, so it is refused here."""
    p = tuple(ins["param"][0].shape)
    for s in names:
        if ins.get(s) and tuple(ins[s][0].shape) != p:
            raise ShapeError(f"op '{type_}': {s} must have the param's shape {list(p)}, got "
                             f"{list(ins[s][0].shape)}")


def _with_param_shapes(opdef: OpDef, names) -> OpDef:
    infer = opdef.infer

    def checked(ins, a):
        _require_param_shape(opdef.type.removesuffix("_update"), ins, names)
        return infer(ins, a)
    opdef.infer = checked
    return opdef


def _eigen_sign(o, x):
    """Eigen's sign: 1, -1, or 0 for zero and NaN (numpy's sign keeps NaN)."""
    one, zero = _c(o, 1.0, x), _c(o, 0.0, x)
    return o.where(o.gt(x, zero), one, o.where(o.lt(x, zero), o.neg(one), zero))


# nadam (Paddle's NAdamKernel; every accumulator has the param's shape):
#   mdp *= 0.96; b2p *= beta2; mu_t = beta1 (1 - 0.5 mdp^md); mu_t1 = beta1 (1 - 0.5 mdp^md
#   0.96^md); mu_prod *= mu_t; m1, m2 as adam's; m1_hat = mu_t1 m1 / (1 - mu_prod mu_t1) +
#   (1 - mu_t) g / (1 - mu_prod); param -= lr m1_hat / (sqrt(m2 / (1 - b2p)) + epsilon).
NADAM_ATTRS = {"beta1": 0.9, "beta2": 0.999, "epsilon": 1e-8, "momentum_decay": 0.004,
               "multi_precision": False}
_NADAM_IN = ["param", "grad", "learning_rate", "momentum_decay_pow", "beta2_pow", "mu_product",
             "moment1", "moment2"]
_NADAM_OUT = ["param_out", "momentum_decay_pow_out", "beta2_pow_out", "mu_product_out",
              "moment1_out", "moment2_out"]


def _nadam(o, i, a):
    p, g, lr = i["param"], i["grad"], i["learning_rate"]
    one, half = _c(o, 1.0, p), _c(o, 0.5, p)
    b1, b2 = _c(o, a["beta1"], p), _c(o, a["beta2"], p)
    t = p.dtype.type  # Paddle's T
    md = float(t(a["momentum_decay"]))
    mdp = o.mul(i["momentum_decay_pow"], _c(o, NADAM_DECAY_BASE, p))
    b2p = o.mul(i["beta2_pow"], b2)
    decayed = o.pow(mdp, _c(o, md, p))
    mu_t = o.mul(b1, o.sub(one, o.mul(half, decayed)))
    base_md = float(np.power(t(NADAM_DECAY_BASE), t(md)))
    mu_t1 = o.mul(b1, o.sub(one, o.mul(o.mul(half, decayed), _c(o, base_md, p))))
    mu_prod = o.mul(i["mu_product"], mu_t)
    m1 = o.add(o.mul(b1, i["moment1"]), o.mul(o.sub(one, b1), g))
    m2 = o.add(o.mul(b2, i["moment2"]), o.mul(o.mul(o.sub(one, b2), g), g))
    m1_hat = o.add(o.truediv(o.mul(mu_t1, m1), o.sub(one, o.mul(mu_prod, mu_t1))),
                   o.truediv(o.mul(o.sub(one, mu_t), g), o.sub(one, mu_prod)))
    m2_hat = o.truediv(m2, o.sub(one, b2p))
    step = o.truediv(o.mul(lr, m1_hat), o.add(o.sqrt(m2_hat), _c(o, a["epsilon"], p)))
    return {"param_out": o.sub(p, step), "momentum_decay_pow_out": mdp, "beta2_pow_out": b2p,
            "mu_product_out": mu_prod, "moment1_out": m1, "moment2_out": m2}


_with_param_shapes(pointwise("nadam", _NADAM_IN, _NADAM_OUT, _nadam, NADAM_ATTRS,
                             scalars=("learning_rate",)), _NADAM_IN[3:] + ["grad"])


# asgd (Paddle's ASGDKernel; the optimizer picks y, one of its stored gradients, and n):
#   d_out = d - y + grad; y_out = grad; param_out = param - (lr / n) * d_out, n read in T.
def _asgd(o, i, a):
    p, g = i["param"], i["grad"]
    d_out = o.add(o.sub(i["d"], i["y"]), g)
    n = o.cast(i["n"], p.dtype)
    return {"param_out": o.sub(p, o.mul(o.truediv(i["learning_rate"], n), d_out)),
            "d_out": d_out, "y_out": g}


_with_param_shapes(pointwise("asgd", ["param", "grad", "learning_rate", "d", "y", "n"],
                             ["param_out", "d_out", "y_out"], _asgd, {"multi_precision": False},
                             scalars=("learning_rate", "n")), ["grad", "d", "y"])


def _element(x: str, infos: dict[str, VarInfo], new_var, index: int) -> tuple:
    """(ops, var): var holds element `index` of x along its one dim longer than 1, with x's
    rank and every dim 1."""
    shape = infos[x].shape
    out = new_var(VarInfo((1,) * len(shape), infos[x].dtype))
    starts = [0] * len(shape)
    starts[next(k for k, d in enumerate(shape) if d != 1)] = index
    return [OpDesc("slice", {"Input": [x]}, {"Out": [out]},
                   {"axes": list(range(len(shape))), "starts": starts,
                    "ends": [s + 1 for s in starts], "decrease_axis": [],
                    "infer_flags": [1] * len(shape)})], out


def _same_infer(outs: list[str], check: Callable) -> Callable:
    def infer(ins, a):
        check(ins)
        p = ins["param"][0]
        return {s: [VarInfo(p.shape, p.dtype, p.lod_level)] for s in outs}
    return infer


# radam (Paddle's RAdamKernel; every accumulator has the param's shape):
#   b1p *= beta1; b2p *= beta2; rho = (rho (beta2 - b2p) + b2p) / (1 - b2p); m1, m2 as adam's;
#   rho_t = rho_inf - 2 rho[0] (rho_inf = 2 / (1 - beta2) - 1), read from the first element
#   only; param -= lr m1 / (1 - b1p) (times r_t sqrt(1 - b2p) / (sqrt(m2) + epsilon) when
#   rho_t > 5). radam_update takes rho[0] and b2p[0] (first_elements) as one-value inputs.
RADAM_ATTRS = {"beta1": 0.9, "beta2": 0.999, "epsilon": 1e-8, "multi_precision": False}
_RADAM_IN = ["param", "grad", "learning_rate", "beta1_pow", "beta2_pow", "rho", "moment1",
             "moment2"]
_RADAM_OUT = ["param_out", "beta1_pow_out", "beta2_pow_out", "rho_out", "moment1_out",
              "moment2_out"]


def _rho_inf(beta2: float, t) -> np.floating:
    """2 / (1 - beta2) - 1 in the param's dtype t, as the kernel computes it."""
    return t(2) / (t(1) - t(beta2)) - t(1)


def _rho_next(o, rho, b2p_out, b2, one):
    return o.truediv(o.add(o.mul(rho, o.sub(b2, b2p_out)), b2p_out), o.sub(one, b2p_out))


def _radam_update(o, i, a):
    p, g, lr = i["param"], i["grad"], i["learning_rate"]
    one, b1, b2 = _c(o, 1.0, p), _c(o, a["beta1"], p), _c(o, a["beta2"], p)
    b1p, b2p = o.mul(i["beta1_pow"], b1), o.mul(i["beta2_pow"], b2)
    rho = _rho_next(o, i["rho"], b2p, b2, one)
    m1 = o.add(o.mul(b1, i["moment1"]), o.mul(o.sub(one, b1), g))
    m2 = o.add(o.mul(b2, i["moment2"]), o.mul(o.mul(o.sub(one, b2), g), g))
    m1_hat = o.truediv(m1, o.sub(one, b1p))
    # rho_t and r_t from the first elements, as the kernel's scalars
    rho0 = _rho_next(o, i["rho_first"], o.mul(i["beta2_pow_first"], b2), b2, one)
    t = p.dtype.type
    inf = _rho_inf(a["beta2"], t)
    rho_t = o.sub(_c(o, float(inf), p), o.mul(_c(o, 2.0, p), rho0))
    inf_terms = _c(o, float((inf - t(4)) * (inf - t(2))), p)
    rectify = o.gt(rho_t, _c(o, 5.0, p))
    ratio = o.truediv(o.mul(o.mul(o.sub(rho_t, _c(o, 4.0, p)), o.sub(rho_t, _c(o, 2.0, p))),
                            _c(o, float(inf), p)), o.mul(inf_terms, rho_t))
    r_t = o.sqrt(o.where(rectify, ratio, one))  # (no root of a negative where unused)
    l_t = o.truediv(o.sqrt(o.sub(one, b2p)), o.add(o.sqrt(m2), _c(o, a["epsilon"], p)))
    rectified = o.sub(p, o.mul(o.mul(o.mul(lr, m1_hat), r_t), l_t))
    plain = o.sub(p, o.mul(lr, m1_hat))
    return {"param_out": o.where(rectify, rectified, plain),
            "beta1_pow_out": b1p, "beta2_pow_out": b2p, "rho_out": rho, "moment1_out": m1,
            "moment2_out": m2}


_with_param_shapes(pointwise("radam_update", _RADAM_IN + ["rho_first", "beta2_pow_first"],
                             _RADAM_OUT, _radam_update, RADAM_ATTRS,
                             scalars=("learning_rate", "rho_first", "beta2_pow_first")),
                   _RADAM_IN[3:] + ["grad"])


# first_elements (fluidc's): Out[k] holds X[k]'s first element, X[k]'s rank with every dim 1;
# one library call for radam's two scalars (two `slice`s cost about twice as much).
def _first_infer(ins, a):
    return {"Out": [VarInfo((1,) * len(x.shape), x.dtype) for x in ins["X"]]}


def _first_ref(ins, a):
    return {"Out": [np.asarray(x).reshape(-1)[:1].reshape((1,) * np.ndim(x)) for x in ins["X"]]}


def _first_run(ins, outs, a, rng):
    for x, out in zip(ins["X"], outs["Out"]):
        out.copy_(x.reshape(-1)[:1].reshape(out.shape))


register(OpDef("first_elements", slots("X*"), slots("Out*"), {}, _first_infer, "extern",
               reference=_first_ref, run=_first_run))


def _radam_lower(op: OpDesc, infos: dict[str, VarInfo], new_var) -> list[OpDesc]:
    rho, b2p = op.input("rho")[0], op.input("beta2_pow")[0]
    firsts = [new_var(VarInfo((1,) * len(infos[x].shape), infos[x].dtype)) for x in (rho, b2p)]
    ins = {s: op.input(s) for s in _RADAM_IN}
    return [OpDesc("first_elements", {"X": [rho, b2p]}, {"Out": firsts}, {}),
            OpDesc("radam_update", {**ins, "rho_first": [firsts[0]],
                                    "beta2_pow_first": [firsts[1]]},
                   {s: op.output(s) for s in _RADAM_OUT}, {**RADAM_ATTRS, **op.attrs})]


def _radam_ref(ins, a):
    """Paddle's RAdamKernel in plain numpy, in the param's dtype (the lowering must agree)."""
    p, g, lr, b1p, b2p, rho, m1, m2 = (np.asarray(ins[s][0]) for s in _RADAM_IN)
    t = p.dtype.type
    beta1, beta2, eps = t(a["beta1"]), t(a["beta2"]), t(a["epsilon"])
    rho_inf = _rho_inf(a["beta2"], t)
    b1p, b2p = b1p * beta1, b2p * beta2
    rho = (rho * (beta2 - b2p) + b2p) / (t(1) - b2p)
    m1 = beta1 * m1 + (t(1) - beta1) * g
    m2 = beta2 * m2 + (t(1) - beta2) * g * g
    m1_hat = m1 / (t(1) - b1p)
    rho_t = rho_inf - t(2) * rho.reshape(-1)[0]
    lr = lr.reshape(-1)[0]
    if rho_t > 5:
        l_t = np.sqrt(t(1) - b2p) / (np.sqrt(m2) + eps)
        r_t = np.sqrt(((rho_t - t(4)) * (rho_t - t(2)) * rho_inf)
                      / ((rho_inf - t(4)) * (rho_inf - t(2)) * rho_t))
        p = p - lr * m1_hat * r_t * l_t
    else:
        p = p - lr * m1_hat
    return {k: [np.asarray(v, p.dtype)] for k, v in zip(
        _RADAM_OUT, (p, b1p, b2p, rho, m1, m2))}


register(OpDef("radam", slots(*_RADAM_IN), slots(*_RADAM_OUT), RADAM_ATTRS,
               _same_infer(_RADAM_OUT, lambda ins: _require_param_shape(
                   "radam", ins, _RADAM_IN[3:] + ["grad"])),
               "composite", reference=_radam_ref, lower=_radam_lower))


# rprop (Paddle's RpropKernel; prev and learning_rate have the param's shape, the per-element
# step sizes; learning_rate_range holds (min, max) and etas (negative, positive)):
#   eta = eta+ where grad * prev > 0, 1 where it is 0, eta- where it is < 0 (and grad taken as
#   0 there); lr_out = clamp(lr * eta, min, max); param -= sign(grad) * lr_out; prev_out = grad.
_RPROP_IN = ["param", "grad", "prev", "learning_rate"]
_RPROP_OUT = ["param_out", "prev_out", "learning_rate_out"]
_RPROP_PAIRS = {"learning_rate_range": ("learning_rate_min", "learning_rate_max"),
                "etas": ("eta_negative", "eta_positive")}


def _rprop_update(o, i, a):
    p, g = i["param"], i["grad"]
    zero, one = _c(o, 0.0, p), _c(o, 1.0, p)
    prod = o.mul(g, i["prev"])
    eta = o.where(o.gt(prod, zero), i["eta_positive"],
                  o.where(o.lt(prod, zero), i["eta_negative"], one))
    g = o.where(o.lt(prod, zero), zero, g)
    lr = o.mul(i["learning_rate"], eta)
    lo, hi = i["learning_rate_min"], i["learning_rate_max"]
    lr = o.where(o.gt(lr, hi), hi, o.where(o.lt(lr, lo), lo, lr))
    return {"param_out": o.sub(p, o.mul(_eigen_sign(o, g), lr)), "prev_out": g,
            "learning_rate_out": lr}


_SCALARS = tuple(n for pair in _RPROP_PAIRS.values() for n in pair)
_with_param_shapes(pointwise("rprop_update", _RPROP_IN + list(_SCALARS), _RPROP_OUT,
                             _rprop_update, {"multi_precision": False}, scalars=_SCALARS),
                   _RPROP_IN[1:])


def _check_pairs(ins) -> None:
    for s in _RPROP_PAIRS:
        shape = ins[s][0].shape
        if int(np.prod(shape)) != 2 or sum(d != 1 for d in shape) != 1:
            raise ShapeError(f"op 'rprop': {s} must hold two values, got shape {list(shape)}")


def _rprop_check(ins) -> None:
    _require_param_shape("rprop", ins, _RPROP_IN[1:])
    _check_pairs(ins)


def _rprop_lower(op: OpDesc, infos: dict[str, VarInfo], new_var) -> list[OpDesc]:
    ops, ins = [], {s: op.input(s) for s in _RPROP_IN}
    for pair, names in _RPROP_PAIRS.items():
        for k, name in enumerate(names):
            sliced, var = _element(op.input(pair)[0], infos, new_var, k)
            ops += sliced
            ins[name] = [var]
    return ops + [OpDesc("rprop_update", ins, {s: op.output(s) for s in _RPROP_OUT},
                         {"multi_precision": op.attrs.get("multi_precision", False)})]


def _rprop_ref(ins, a):
    """Paddle's RpropKernel in plain numpy (the lowering must agree)."""
    p, g, prev, lr = (np.asarray(ins[s][0]) for s in _RPROP_IN)
    lo, hi = np.asarray(ins["learning_rate_range"][0]).reshape(-1)
    neg, pos = np.asarray(ins["etas"][0]).reshape(-1)
    prod = g * prev
    eta = np.where(prod > 0, pos, np.where(prod < 0, neg, 1)).astype(p.dtype)
    g = np.where(prod < 0, 0, g).astype(p.dtype)
    lr = lr * eta
    lr = np.where(lr > hi, hi, np.where(lr < lo, lo, lr)).astype(p.dtype)
    sign = np.where(g > 0, 1, np.where(g < 0, -1, 0)).astype(p.dtype)
    return {"param_out": [p - sign * lr], "prev_out": [g], "learning_rate_out": [lr]}


register(OpDef("rprop", slots(*_RPROP_IN, *_RPROP_PAIRS), slots(*_RPROP_OUT),
               {"multi_precision": False}, _same_infer(_RPROP_OUT, _rprop_check), "composite",
               reference=_rprop_ref, lower=_rprop_lower))
