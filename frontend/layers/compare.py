"""Comparisons, logical ops and increment, with the 1.x and 2.x signatures (both take x, y
first): fluid.layers.less_than / paddle.less_than, ..., paddle.logical_not, increment."""
from __future__ import annotations

from ..dtypes import VarType
from ..framework import Variable
from .helper import ALL_DTYPES, LayerHelper, check_variable_and_dtype
from .tensor import fill_constant

_REAL = tuple(d for d in ALL_DTYPES if not d.startswith("complex"))


def _compare(op_type: str, x: Variable, y: Variable, name, cond: Variable | None = None,
             out: Variable | None = None) -> Variable:
    """The op's bool result, written into `out` (2.x) or `cond` (1.x) where given."""
    check_variable_and_dtype(x, "x", _REAL, op_type)
    check_variable_and_dtype(y, "y", _REAL, op_type)
    helper = LayerHelper(op_type, name=name)
    out = out if out is not None else cond if cond is not None else \
        helper.create_variable_for_type_inference(VarType.BOOL)
    helper.append_op(op_type, inputs={"X": [x], "Y": [y]}, outputs={"Out": [out]})
    out.stop_gradient = True
    return out


def less_than(x, y, force_cpu=None, cond=None, name=None, *, out=None):
    """x < y elementwise (bool)."""
    return _compare("less_than", x, y, name, cond, out)


def less_equal(x, y, cond=None, name=None, *, out=None):
    """x <= y elementwise (bool)."""
    return _compare("less_equal", x, y, name, cond, out)


def greater_than(x, y, cond=None, name=None, *, out=None):
    """x > y elementwise (bool)."""
    return _compare("greater_than", x, y, name, cond, out)


def greater_equal(x, y, cond=None, name=None, *, out=None):
    """x >= y elementwise (bool)."""
    return _compare("greater_equal", x, y, name, cond, out)


def equal(x, y, cond=None, name=None, *, out=None):
    """x == y elementwise (bool); y may be a Python bool, int or float (a 0-d constant of
    x's dtype, as Paddle's)."""
    if isinstance(y, (bool, int, float)):
        y = fill_constant([], x.dtype, y)
    elif not isinstance(y, Variable):
        raise TypeError(f"Type of input args must be float, bool, complex, int or Tensor, but "
                        f"received type {type(y)}")
    return _compare("equal", x, y, name, cond, out)


def not_equal(x, y, cond=None, name=None, *, out=None):
    """x != y elementwise (bool)."""
    return _compare("not_equal", x, y, name, cond, out)


def _logical(op_type: str, inputs: dict, out: Variable | None, name) -> Variable:
    for slot, v in inputs.items():
        check_variable_and_dtype(v, slot.lower(), _REAL, op_type)
    helper = LayerHelper(op_type, name=name)
    out = out if out is not None else helper.create_variable_for_type_inference(VarType.BOOL)
    helper.append_op(op_type, inputs={k: [v] for k, v in inputs.items()}, outputs={"Out": [out]})
    out.stop_gradient = True
    return out


def logical_and(x, y, out=None, name=None):
    """x and y elementwise (bool)."""
    return _logical("logical_and", {"X": x, "Y": y}, out, name)


def logical_or(x, y, out=None, name=None):
    """x or y elementwise (bool)."""
    return _logical("logical_or", {"X": x, "Y": y}, out, name)


def logical_not(x, out=None, name=None):
    """not x elementwise (bool)."""
    return _logical("logical_not", {"X": x}, out, name)


def increment(x, value: float = 1.0, in_place: bool = True, name=None):
    """x + value, written into x itself unless in_place is False (Paddle's increment op)."""
    check_variable_and_dtype(x, "x", _REAL, "increment")
    helper = LayerHelper("increment", name=name)
    out = x if in_place else helper.create_variable_for_type_inference(x.dtype)
    helper.append_op("increment", inputs={"X": [x]}, outputs={"Out": [out]},
                     attrs={"step": float(value)})
    return out


# Paddle 3.x's aliases
eq, ne, lt, le, gt, ge = equal, not_equal, less_than, less_equal, greater_than, greater_equal
less, greater = less_than, greater_than
