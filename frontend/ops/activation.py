"""More activations, each one pointwise expression with its grad: hard_swish, swish, silu, clip,
relu6, hard_sigmoid, logsigmoid, softsign, selu, softplus, mish, elu and pow."""
from __future__ import annotations

from .define import pointwise, unary
from .registry import OpDesc, grad_name


def _c(o, v, like):
    return o.constant(v, like.dtype)


def _sigmoid(o, x):
    return o.truediv(_c(o, 1, x), o.add(_c(o, 1, x), o.exp(o.neg(x))))


def _hard_swish(o, x, a):
    shifted = o.add(x, _c(o, a["offset"], x))
    capped = o.minimum(o.maximum(shifted, _c(o, 0, x)), _c(o, a["threshold"], x))
    return o.truediv(o.mul(x, capped), _c(o, a["scale"], x))


def _hard_swish_grad(o, x, d, a):
    # slope 0 below -offset, (2x + offset) / scale up to threshold - offset, threshold / scale
    # after (Paddle's kernel writes 1 there, which equals it for the default attrs)
    shifted = o.add(x, _c(o, a["offset"], x))
    slope = o.truediv(o.add(o.mul(_c(o, 2, x), x), _c(o, a["offset"], x)), _c(o, a["scale"], x))
    inner = o.where(o.gt(shifted, _c(o, 0, x)), slope, _c(o, 0, x))
    flat = _c(o, a["threshold"] / a["scale"], x)
    return o.mul(d, o.where(o.lt(shifted, _c(o, a["threshold"], x)), inner, flat))


def _swish(o, x, a):
    return o.mul(x, _sigmoid(o, o.mul(x, _c(o, a["beta"], x))))


def _swish_grad(o, x, d, a):
    b = _c(o, a["beta"], x)
    s = _sigmoid(o, o.mul(x, b))
    return o.mul(d, o.add(s, o.mul(o.mul(b, x), o.mul(s, o.sub(_c(o, 1, x), s)))))


unary("hard_swish", _hard_swish, _hard_swish_grad,
      attrs={"threshold": 6.0, "scale": 6.0, "offset": 3.0})
unary("swish", _swish, _swish_grad, attrs={"beta": 1.0})
unary("silu", lambda o, x, a: _swish(o, x, {"beta": 1.0}),
      lambda o, x, d, a: _swish_grad(o, x, d, {"beta": 1.0}), also=("Out",))


# clip: Min / Max tensors ([1]), when given, override the min / max attributes, as in Paddle.
CLIP_ATTRS = {"min": float("-inf"), "max": float("inf")}


def _bounds(o, i, a):
    x = i["X"]
    lo = o.cast(i["Min"], x.dtype) if "Min" in i else _c(o, a["min"], x)
    hi = o.cast(i["Max"], x.dtype) if "Max" in i else _c(o, a["max"], x)
    return x, lo, hi


def _clip(o, i, a):
    x, lo, hi = _bounds(o, i, a)
    return {"Out": o.where(o.lt(x, lo), lo, o.where(o.gt(x, hi), hi, x))}


def _clip_grad_expr(o, i, a):
    # dOut where min <= x <= max (the bounds included, as Paddle 3.3.1's ClipGradFunctor)
    x, lo, hi = _bounds(o, i, a)
    inside = o.logical_and(o.ge(x, lo), o.le(x, hi))
    return {"X@GRAD": o.where(inside, i["Out@GRAD"], _c(o, 0, x))}


def _clip_grad(op: OpDesc) -> list[OpDesc]:
    ins = {s: op.input(s) for s in ("X", "Min", "Max") if op.input(s)}
    ins["Out@GRAD"] = [grad_name(op.output("Out")[0])]
    return [OpDesc("clip_grad", ins, {"X@GRAD": [grad_name(op.input("X")[0])]}, dict(op.attrs))]


pointwise("clip", ["X", "Min?", "Max?"], ["Out"], _clip, CLIP_ATTRS, grad=_clip_grad,
          scalars=("Min", "Max"))
pointwise("clip_grad", ["X", "Min?", "Max?", "Out@GRAD"], ["X@GRAD"], _clip_grad_expr, CLIP_ATTRS,
          scalars=("Min", "Max"))


# --- the 1.x/2.x activations Paddle saves as their own ops -------------------------------------

def _relu6(o, x, a):
    return o.minimum(o.maximum(x, _c(o, 0, x)), _c(o, a["threshold"], x))


def _relu6_grad(o, out, d, a):
    inside = o.logical_and(o.gt(out, _c(o, 0, out)), o.lt(out, _c(o, a["threshold"], out)))
    return o.where(inside, d, _c(o, 0, d))


def _hard_sigmoid(o, x, a):
    lin = o.add(o.mul(x, _c(o, a["slope"], x)), _c(o, a["offset"], x))
    return o.minimum(o.maximum(lin, _c(o, 0, x)), _c(o, 1, x))


def _hard_sigmoid_grad(o, out, d, a):
    inside = o.logical_and(o.gt(out, _c(o, 0, out)), o.lt(out, _c(o, 1, out)))
    return o.where(inside, o.mul(d, _c(o, a["slope"], d)), _c(o, 0, d))


def _logsigmoid(o, x, a):
    # min(x, 0) - log(1 + exp(-|x|)): no overflow for either sign
    return o.sub(o.minimum(x, _c(o, 0, x)), o.log(o.add(_c(o, 1, x), o.exp(o.neg(o.abs(x))))))


def _softsign_denominator(o, x):
    return o.add(_c(o, 1, x), o.abs(x))


def _selu(o, x, a):
    neg = o.mul(_c(o, a["alpha"], x), o.sub(o.exp(x), _c(o, 1, x)))
    return o.mul(_c(o, a["scale"], x), o.where(o.gt(x, _c(o, 0, x)), x, neg))


def _selu_grad(o, out, d, a):
    slope = o.where(o.gt(out, _c(o, 0, out)), _c(o, a["scale"], out),
                    o.add(out, _c(o, a["scale"] * a["alpha"], out)))
    return o.mul(d, slope)


def _softplus(o, x, a):
    bx = o.mul(x, _c(o, a["beta"], x))
    soft = o.truediv(o.log(o.add(_c(o, 1, x), o.exp(bx))), _c(o, a["beta"], x))
    return o.where(o.gt(bx, _c(o, a["threshold"], x)), x, soft)


def _softplus_grad(o, x, d, a):
    bx = o.mul(x, _c(o, a["beta"], x))
    return o.mul(d, o.where(o.gt(bx, _c(o, a["threshold"], x)), _c(o, 1, x), _sigmoid(o, bx)))


def _log1p(o, y):
    """log(1 + y), accurate for tiny y: log(u) * y / (u - 1) with u = 1 + y rounded (Goldberg);
    y itself where u rounds to 1."""
    u = o.add(_c(o, 1, y), y)
    d = o.sub(u, _c(o, 1, y))
    return o.where(o.eq(d, _c(o, 0, y)), y, o.mul(o.log(u), o.truediv(y, d)))


def _one_minus_exp_neg(o, s):
    """1 - exp(-s), accurate for small s >= 0: (1 - u) * s / -log(u) with u = exp(-s) rounded
    (Kahan's expm1); s itself where u rounds to 1."""
    u = o.exp(o.neg(s))
    one = _c(o, 1, s)
    return o.where(o.eq(u, one), s, o.truediv(o.mul(o.sub(one, u), s), o.neg(o.log(u))))


def _mish_parts(o, x, a):
    """mish's softplus as Paddle's kernel takes it (x above threshold, exp(x) below -threshold,
    log1p(exp(x)) between) and its derivative (Paddle's -expm1(-softplus), written per branch
    without cancellation: 1 - exp(-x), Kahan's expm1 of -exp(x), sigmoid(x))."""
    t, e = _c(o, a["threshold"], x), o.exp(x)
    low, high = o.lt(x, o.neg(t)), o.gt(x, t)
    sp = o.where(high, x, o.where(low, e, _log1p(o, e)))
    one = _c(o, 1, x)
    dsp = o.where(high, o.sub(one, o.exp(o.neg(x))),
                  o.where(low, _one_minus_exp_neg(o, e), o.truediv(e, o.add(one, e))))
    return sp, dsp


def _mish_grad(o, x, d, a):
    sp, dsp = _mish_parts(o, x, a)
    tsp = o.tanh(sp)
    return o.mul(d, o.add(o.mul(x, o.mul(o.sub(_c(o, 1, x), o.mul(tsp, tsp)), dsp)), tsp))


unary("mish", lambda o, x, a: o.mul(x, o.tanh(_mish_parts(o, x, a)[0])), _mish_grad,
      attrs={"threshold": 20.0})
unary("relu6", _relu6, _relu6_grad, uses="Out", attrs={"threshold": 6.0})
unary("hard_sigmoid", _hard_sigmoid, _hard_sigmoid_grad, uses="Out",
      attrs={"slope": 0.2, "offset": 0.5})
unary("logsigmoid", _logsigmoid,
      lambda o, x, d, a: o.truediv(d, o.add(_c(o, 1, x), o.exp(x))))
unary("softsign", lambda o, x, a: o.truediv(x, _softsign_denominator(o, x)),
      lambda o, x, d, a: o.truediv(d, o.mul(_softsign_denominator(o, x),
                                            _softsign_denominator(o, x))))
unary("selu", _selu, _selu_grad, uses="Out",
      attrs={"scale": 1.0507009873554805, "alpha": 1.6732632423543772})
unary("softplus", _softplus, _softplus_grad, attrs={"beta": 1.0, "threshold": 20.0})


# elu: its grad reads X (the sign) and Out (alpha * exp(x) = out + alpha), as Paddle's elu_grad.
def _elu(o, i, a):
    x = i["X"]
    neg = o.mul(_c(o, a["alpha"], x), o.sub(o.exp(x), _c(o, 1, x)))
    return {"Out": o.where(o.gt(x, _c(o, 0, x)), x, neg)}


def _elu_grad_expr(o, i, a):
    x, out, d = i["X"], i["Out"], i["Out@GRAD"]
    return {"X@GRAD": o.where(o.gt(x, _c(o, 0, x)), d,
                              o.mul(d, o.add(out, _c(o, a["alpha"], out))))}


def _elu_grad(op: OpDesc) -> list[OpDesc]:
    return [OpDesc("elu_grad", {"X": op.input("X"), "Out": op.output("Out"),
                                "Out@GRAD": [grad_name(op.output("Out")[0])]},
                   {"X@GRAD": [grad_name(op.input("X")[0])]}, dict(op.attrs))]


pointwise("elu", ["X"], ["Out"], _elu, {"alpha": 1.0}, grad=_elu_grad)
pointwise("elu_grad", ["X", "Out", "Out@GRAD"], ["X@GRAD"], _elu_grad_expr, {"alpha": 1.0})


# pow: X ** factor; a FactorTensor ([1]), when given, overrides the attribute.
def _factor(o, i, a):
    x = i["X"]
    return o.cast(i["FactorTensor"], x.dtype) if "FactorTensor" in i else _c(o, a["factor"], x)


def _pow_grad_expr(o, i, a):
    x, f = i["X"], _factor(o, i, a)
    return {"X@GRAD": o.mul(i["Out@GRAD"], o.mul(f, o.pow(x, o.sub(f, _c(o, 1, x)))))}


def _pow_grad(op: OpDesc) -> list[OpDesc]:
    ins = {s: op.input(s) for s in ("X", "FactorTensor") if op.input(s)}
    ins["Out@GRAD"] = [grad_name(op.output("Out")[0])]
    return [OpDesc("pow_grad", ins, {"X@GRAD": [grad_name(op.input("X")[0])]}, dict(op.attrs))]


pointwise("pow", ["X", "FactorTensor?"], ["Out"],
          lambda o, i, a: {"Out": o.pow(i["X"], _factor(o, i, a))}, {"factor": 1.0},
          grad=_pow_grad, scalars=("FactorTensor",))
def _pow_grad_grad(op: OpDesc) -> list[OpDesc]:
    """pow_grad's grad (X@GRAD = DOut * f * X^(f-1)): pow_grad_grad, DDX the grad of X@GRAD."""
    ins = {s: op.input(s) for s in ("X", "FactorTensor") if op.input(s)}
    ins.update(DOut=op.input("Out@GRAD"), DDX=[grad_name(op.output("X@GRAD")[0])])
    outs = {"DX": [grad_name(op.input("X")[0])], "DDOut": [grad_name(op.input("Out@GRAD")[0])]}
    return [OpDesc("pow_grad_grad", ins, outs, dict(op.attrs))]


def _pow_grad_grad_expr(o, i, a):
    x, f, dd = i["X"], _factor(o, i, a), i["DDX"]
    return {"DDOut": o.mul(dd, o.mul(f, o.pow(x, o.sub(f, _c(o, 1, x))))),
            "DX": o.mul(o.mul(i["DOut"], dd),
                        o.mul(o.mul(f, o.sub(f, _c(o, 1, x))), o.pow(x, o.sub(f, _c(o, 2, x)))))}


pointwise("pow_grad", ["X", "FactorTensor?", "Out@GRAD"], ["X@GRAD"], _pow_grad_expr,
          {"factor": 1.0}, scalars=("FactorTensor",), grad=_pow_grad_grad)
pointwise("pow_grad_grad", ["X", "FactorTensor?", "DOut", "DDX"], ["DX?", "DDOut?"],
          _pow_grad_grad_expr, {"factor": 1.0}, scalars=("FactorTensor",))
