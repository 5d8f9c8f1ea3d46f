"""Paddle's elementwise math ops: sin, cos, tan, asin, acos, atan, sinh, cosh, asinh, acosh,
atanh, log1p, expm1, log2, log10 (the ops handler's libm methods, gradients as Paddle's
functors) and trunc, round (composed exactly from floor; zero gradients). cos is also what
cosine_decay appends (it was an extern op before)."""
from __future__ import annotations

import math

import numpy as np

from .define import unary


def _c(o, v, like):
    return o.constant(v, like.dtype)


def _zero_grad(o, x, d, a):
    return o.constant(0, d.dtype)


unary("sin", lambda o, x, a: o.sin(x), lambda o, x, d, a: o.mul(d, o.cos(x)))
unary("cos", lambda o, x, a: o.cos(x), lambda o, x, d, a: o.neg(o.mul(d, o.sin(x))))
unary("tan", lambda o, x, a: o.tan(x),
      lambda o, x, d, a: o.truediv(d, o.mul(o.cos(x), o.cos(x))))
unary("asin", lambda o, x, a: o.asin(x),
      lambda o, x, d, a: o.truediv(d, o.sqrt(o.sub(_c(o, 1, x), o.mul(x, x)))))
unary("acos", lambda o, x, a: o.acos(x),
      lambda o, x, d, a: o.neg(o.truediv(d, o.sqrt(o.sub(_c(o, 1, x), o.mul(x, x))))))
unary("atan", lambda o, x, a: o.atan(x),
      lambda o, x, d, a: o.truediv(d, o.add(_c(o, 1, x), o.mul(x, x))))
unary("sinh", lambda o, x, a: o.sinh(x), lambda o, x, d, a: o.mul(d, o.cosh(x)))
unary("cosh", lambda o, x, a: o.cosh(x), lambda o, x, d, a: o.mul(d, o.sinh(x)))
unary("asinh", lambda o, x, a: o.asinh(x),
      lambda o, x, d, a: o.truediv(d, o.sqrt(o.add(o.mul(x, x), _c(o, 1, x)))))
unary("acosh", lambda o, x, a: o.acosh(x),
      lambda o, x, d, a: o.truediv(d, o.sqrt(o.sub(o.mul(x, x), _c(o, 1, x)))))
unary("atanh", lambda o, x, a: o.atanh(x),
      lambda o, x, d, a: o.truediv(d, o.sub(_c(o, 1, x), o.mul(x, x))))
unary("log1p", lambda o, x, a: o.log1p(x),
      lambda o, x, d, a: o.truediv(d, o.add(x, _c(o, 1, x))))
unary("expm1", lambda o, x, a: o.expm1(x),
      lambda o, out, d, a: o.add(o.mul(d, out), d), uses="Out")
unary("log2", lambda o, x, a: o.log2(x),
      lambda o, x, d, a: o.truediv(d, o.mul(x, _c(o, math.log(2), x))))
unary("log10", lambda o, x, a: o.log10(x),
      lambda o, x, d, a: o.truediv(d, o.mul(x, _c(o, math.log(10), x))))


def trunc(o, x):
    """x rounded toward zero: floor of |x| with x's sign (-0.3 -> -0.0); integers unchanged."""
    if x.dtype.kind != "f":
        return x
    return o.where(o.lt(x, _c(o, 0, x)), o.neg(o.floor(o.neg(x))), o.floor(x))


def rint(o, x):
    """x rounded to the nearest integer, ties to even (C's rint, Paddle 3.3.1's round). With
    t = floor(x), x - t is exact below 2^mantissa bits; from there on every float is integral.
    A zero result takes x's sign (rint(-0.3) is -0.0)."""
    if x.dtype.kind != "f":
        return x
    half, one, two = _c(o, 0.5, x), _c(o, 1, x), _c(o, 2, x)
    t = o.floor(x)
    d = o.sub(x, t)
    odd = o.ne(o.sub(t, o.mul(two, o.floor(o.mul(t, half)))), _c(o, 0, x))
    up = o.logical_or(o.gt(d, half), o.logical_and(o.eq(d, half), odd))
    r = o.where(up, o.add(t, one), t)
    r = o.where(o.eq(r, _c(o, 0, x)), o.mul(x, _c(o, 0, x)), r)
    integral = o.ge(o.abs(x), _c(o, 2.0 ** np.finfo(x.dtype).nmant, x))
    return o.where(integral, x, r)


def _round(o, x, a):
    """Paddle's RoundFunctor: rint(x * 10^d) / 10^d (d = decimals > 0), rint(x / 10^-d) * 10^-d
    (d < 0); integers unchanged."""
    d = a["decimals"]
    if d == 0 or x.dtype.kind != "f":
        return rint(o, x)
    p = _c(o, 10.0 ** abs(d), x)
    return o.truediv(rint(o, o.mul(x, p)), p) if d > 0 else o.mul(rint(o, o.truediv(x, p)), p)


unary("trunc", lambda o, x, a: trunc(o, x), _zero_grad)
unary("round", _round, _zero_grad, attrs={"decimals": 0})
