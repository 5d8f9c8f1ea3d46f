"""The ops handler: the vocabulary pointwise expressions are written in.

A pointwise op's expr calls these methods on whatever handler it is given; the numpy handler
below computes values, the C and Triton printers (codegen/) print source. Values carry a numpy
`dtype`; every method keeps the dtype of its operands (comparisons give bool).
"""
from __future__ import annotations

import math

import numpy as np

from .. import bfloat16

# Float functions of one operand: the C libm functions of these names (numpy: arcsinh etc.).
LIBM_METHODS = ("sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh",
                "atanh", "log1p", "expm1", "log2", "log10")

# Every backend implements exactly these; tests check the printers cover the list.
HANDLER_METHODS = (
    "constant", "add", "sub", "mul", "truediv", "floordiv", "mod", "neg", "maximum", "minimum",
    "pow", "exp", "log", "sqrt", "tanh", "erf", "abs", "floor", "sign", "where", "lt", "le",
    "gt", "ge", "eq", "ne", "logical_and", "logical_or", "logical_not", "cast", "isnan",
    *LIBM_METHODS,
)


class NumpyHandler:
    """Evaluates expressions on numpy arrays: the reference every backend is checked against."""

    def constant(self, value, dtype):
        return np.asarray(value, dtype=np.dtype(dtype))

    # IEEE results without numpy's warnings (inf - inf is NaN, a float32 sum may overflow)
    def add(self, a, b):
        with np.errstate(over="ignore", invalid="ignore"):
            return np.add(a, b)

    def sub(self, a, b):
        with np.errstate(over="ignore", invalid="ignore"):
            return np.subtract(a, b)

    def mul(self, a, b):
        with np.errstate(over="ignore", invalid="ignore"):
            return np.multiply(a, b)

    def truediv(self, a, b):
        if np.issubdtype(np.result_type(a, b), np.integer):
            with np.errstate(divide="ignore", invalid="ignore"):
                q = np.trunc(np.true_divide(a, b))
            return q.astype(np.result_type(a, b))
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.true_divide(a, b)

    def floordiv(self, a, b):
        if np.issubdtype(np.result_type(a, b), np.integer):
            return np.floor_divide(a, b)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.floor(np.true_divide(a, b))

    def mod(self, a, b):
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.mod(a, b)

    def neg(self, a):
        return np.negative(a)

    def maximum(self, a, b):
        return np.maximum(a, b)

    def minimum(self, a, b):
        return np.minimum(a, b)

    def pow(self, a, b):
        with np.errstate(all="ignore"):
            return np.power(a, b)

    def exp(self, a):
        with np.errstate(over="ignore"):
            return np.exp(a)

    def log(self, a):
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.log(a)

    def sqrt(self, a):
        with np.errstate(invalid="ignore"):
            return np.sqrt(a)

    def tanh(self, a):
        return np.tanh(a)

    def erf(self, a):
        a = np.asarray(a)
        return np.vectorize(math.erf, otypes=[a.dtype])(a) if a.size else a.copy()

    def abs(self, a):
        return np.abs(a)

    def floor(self, a):
        return np.floor(a)

    def sign(self, a):
        return np.sign(a)

    def where(self, c, a, b):
        return np.where(c, a, b)

    def lt(self, a, b):
        return np.less(a, b)

    def le(self, a, b):
        return np.less_equal(a, b)

    def gt(self, a, b):
        return np.greater(a, b)

    def ge(self, a, b):
        return np.greater_equal(a, b)

    def eq(self, a, b):
        return np.equal(a, b)

    def ne(self, a, b):
        return np.not_equal(a, b)

    def logical_and(self, a, b):
        return np.logical_and(a, b)

    def logical_or(self, a, b):
        return np.logical_or(a, b)

    def logical_not(self, a):
        return np.logical_not(a)

    def cast(self, a, dtype):
        return bfloat16.cast(a, dtype)  # numpy's astype, bfloat16 (uint16 bits) as Paddle's

    def isnan(self, a):
        return np.isnan(a)


_NUMPY_NAMES = {"asin": "arcsin", "acos": "arccos", "atan": "arctan", "asinh": "arcsinh",
                "acosh": "arccosh", "atanh": "arctanh"}


def _libm(name: str):
    """The handler method `name`: a float function of one operand, numpy's ufunc for C's libm
    function of that name, IEEE results without numpy's warnings."""
    fn = getattr(np, _NUMPY_NAMES.get(name, name))

    def method(self, a):
        with np.errstate(all="ignore"):
            return fn(a)
    method.__name__ = name
    return method


for _name in LIBM_METHODS:
    setattr(NumpyHandler, _name, _libm(_name))


numpy_handler = NumpyHandler()
