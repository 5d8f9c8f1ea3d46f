"""Paddle 2.x elementwise math: paddle.sin, cos, tan, asin, acos, atan, sinh, cosh, asinh,
acosh, atanh, log1p, expm1, log2, log10, rsqrt (their own ops; integer x is cast to float32
first, as Paddle 3.3.1's autocast), trunc and round (their own ops; integers unchanged), frac
(trunc and elementwise_sub), neg, deg2rad and rad2deg (scale ops, as Paddle's)."""
from __future__ import annotations

import math

from ...dtypes import dtype_name
from ...framework import Variable
from .. import nn as _nn
from .. import tensor as _tensor
from ..helper import INT_DTYPES, append_unary, check_type, check_variable_and_dtype

_FLOATS = ("float16", "float32", "float64")
_NUMBERS = _FLOATS + INT_DTYPES
_ROUNDING = _FLOATS + ("int32", "int64")


def _float_unary(op_type: str, x: Variable, name: str | None) -> Variable:
    """op_type(x) of a float x; integer x is cast to float32 first (Paddle's autocast)."""
    check_variable_and_dtype(x, "x", _NUMBERS, op_type)
    return append_unary(op_type, _as_float(x), name=name, dtypes=_FLOATS)


def _as_float(x: Variable) -> Variable:
    return _tensor.cast(x, "float32") if dtype_name(x.dtype) in INT_DTYPES else x


def sin(x, name=None):
    """paddle.sin: the sine of x (radians), elementwise."""
    return _float_unary("sin", x, name)


def cos(x, name=None):
    """paddle.cos: the cosine of x (radians), elementwise."""
    return _float_unary("cos", x, name)


def tan(x, name=None):
    """paddle.tan: the tangent of x (radians), elementwise."""
    return _float_unary("tan", x, name)


def asin(x, name=None):
    """paddle.asin: the arcsine of x (NaN beyond +-1), elementwise."""
    return _float_unary("asin", x, name)


def acos(x, name=None):
    """paddle.acos: the arccosine of x (NaN beyond +-1), elementwise."""
    return _float_unary("acos", x, name)


def atan(x, name=None):
    """paddle.atan: the arctangent of x, elementwise."""
    return _float_unary("atan", x, name)


def sinh(x, name=None):
    """paddle.sinh: the hyperbolic sine of x, elementwise."""
    return _float_unary("sinh", x, name)


def cosh(x, name=None):
    """paddle.cosh: the hyperbolic cosine of x, elementwise."""
    return _float_unary("cosh", x, name)


def asinh(x, name=None):
    """paddle.asinh: the inverse hyperbolic sine of x, elementwise."""
    return _float_unary("asinh", x, name)


def acosh(x, name=None):
    """paddle.acosh: the inverse hyperbolic cosine of x (NaN below 1), elementwise."""
    return _float_unary("acosh", x, name)


def atanh(x, name=None):
    """paddle.atanh: the inverse hyperbolic tangent of x (NaN beyond +-1), elementwise."""
    return _float_unary("atanh", x, name)


def log1p(x, name=None):
    """paddle.log1p: log(1 + x) elementwise, accurate for small x."""
    return _float_unary("log1p", x, name)


def expm1(x, name=None):
    """paddle.expm1: e^x - 1 elementwise, accurate for small x."""
    return _float_unary("expm1", x, name)


def log2(x, name=None):
    """paddle.log2: the base-2 logarithm of x, elementwise."""
    return _float_unary("log2", x, name)


def log10(x, name=None):
    """paddle.log10: the base-10 logarithm of x, elementwise."""
    return _float_unary("log10", x, name)


def rsqrt(x, name=None):
    """paddle.rsqrt: 1 / sqrt(x) elementwise."""
    return _float_unary("rsqrt", x, name)


def trunc(input, name=None):  # noqa: A002 (Paddle's parameter name)
    """paddle.trunc: x rounded toward zero, elementwise (zero gradient; integers unchanged)."""
    return append_unary("trunc", input, name=name, dtypes=_ROUNDING)


def round(x, decimals: int = 0, name=None):  # noqa: A001 (paddle.round)
    """paddle.round: x rounded to `decimals` decimal places, halves to even as Paddle 3.3.1's
    (C's rint; zero gradient; integers unchanged)."""
    check_type(decimals, "decimals", int, "round")
    return append_unary("round", x, name=name, dtypes=_ROUNDING, decimals=decimals)


def frac(x, name=None):
    """paddle.frac: x - trunc(x), elementwise (integers give 0), as Paddle: trunc and
    elementwise_sub."""
    check_variable_and_dtype(x, "x", _ROUNDING, "frac")
    return _nn.elementwise_sub(x, trunc(x), name=name)


def neg(x, name=None):
    """paddle.neg: -x elementwise, Paddle's scale op with scale -1."""
    return _nn.scale(x, -1.0, 0.0, True, None, name)


def deg2rad(x, name=None):
    """paddle.deg2rad: x * pi / 180 (a scale op; integer x is cast to float32 first)."""
    check_variable_and_dtype(x, "x", _NUMBERS, "deg2rad")
    return _nn.scale(_as_float(x), math.pi / 180.0, 0.0, True, None, name)


def rad2deg(x, name=None):
    """paddle.rad2deg: x * 180 / pi (a scale op; integer x is cast to float32 first)."""
    check_variable_and_dtype(x, "x", _NUMBERS, "rad2deg")
    return _nn.scale(_as_float(x), 180.0 / math.pi, 0.0, True, None, name)
