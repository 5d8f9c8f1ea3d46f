"""Paddle 2.x elementwise ops: isnan_v2 / isinf_v2 / isfinite_v2 (bool Out, no grad), ceil
(zero grad) and reciprocal (dX = -dOut * Out^2, Paddle's ReciprocalGradFunctor)."""
from __future__ import annotations

from .define import pointwise, unary


def _is_float(x) -> bool:
    return x.dtype.kind == "f"


def _isnan(o, x):
    """NaN test; an integer is never NaN."""
    return o.isnan(x) if _is_float(x) else o.constant(False, "bool")


def _isfinite(o, x):
    """x - x is 0 for finite floats and NaN for +-inf and NaN; integers are always finite."""
    return o.eq(o.sub(x, x), o.constant(0, x.dtype)) if _is_float(x) else o.constant(True, "bool")


def _isinf(o, x):
    return o.logical_not(o.logical_or(_isnan(o, x), _isfinite(o, x)))


for _name, _test in (("isnan_v2", _isnan), ("isinf_v2", _isinf), ("isfinite_v2", _isfinite)):
    pointwise(_name, ["X"], ["Out"], lambda o, i, a, t=_test: {"Out": t(o, i["X"])},
              out_dtype=lambda a, d: "bool")

# ceil(x) = -floor(-x), integers unchanged. Its gradient is zero almost everywhere: ceil_grad
# writes zeros, as Paddle's (so x still gets a gradient, in dygraph too).
unary("ceil", lambda o, x, a: o.neg(o.floor(o.neg(x))) if _is_float(x) else x,
      lambda o, x, d, a: o.constant(0, d.dtype))
unary("reciprocal", lambda o, x, a: o.truediv(o.constant(1, x.dtype), x),
      lambda o, out, d, a: o.neg(o.mul(d, o.mul(out, out))), uses="Out")
