"""More activations, each one pointwise expression with its grad: hard_swish, swish, silu, clip."""
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
      lambda o, x, d, a: _swish_grad(o, x, d, {"beta": 1.0}))


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
    x, lo, hi = _bounds(o, i, a)
    inside = o.logical_and(o.gt(x, lo), o.lt(x, hi))
    return {"X@GRAD": o.where(inside, i["Out@GRAD"], _c(o, 0, x))}


def _clip_grad(op: OpDesc) -> list[OpDesc]:
    ins = {s: op.input(s) for s in ("X", "Min", "Max") if op.input(s)}
    ins["Out@GRAD"] = [grad_name(op.output("Out")[0])]
    return [OpDesc("clip_grad", ins, {"X@GRAD": [grad_name(op.input("X")[0])]}, dict(op.attrs))]


pointwise("clip", ["X", "Min?", "Max?"], ["Out"], _clip, CLIP_ATTRS, grad=_clip_grad)
pointwise("clip_grad", ["X", "Min?", "Max?", "Out@GRAD"], ["X@GRAD"], _clip_grad_expr, CLIP_ATTRS)
