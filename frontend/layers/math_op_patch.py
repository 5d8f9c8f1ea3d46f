"""Variable's arithmetic operators (x + y, 2 * x, -x), built from elementwise ops and scale."""
from __future__ import annotations

from numbers import Number

from ..framework import Variable
from .helper import LayerHelper


def binary_op(x: Variable, other, op_type: str, reverse: bool) -> Variable:
    """x <op> other, where other is a Variable or a Python number."""
    helper = LayerHelper(op_type)
    if isinstance(other, Number):
        if op_type == "scale":
            return _scale(helper, x, float(other), 0.0)
        if op_type == "elementwise_add":
            return _scale(helper, x, 1.0, float(other))
        if op_type == "elementwise_sub" and not reverse:
            return _scale(helper, x, 1.0, -float(other))
        if op_type == "elementwise_sub":
            return _scale(helper, x, -1.0, float(other))
        if op_type == "elementwise_mul":
            return _scale(helper, x, float(other), 0.0)
        if op_type == "elementwise_div" and not reverse:
            return _scale(helper, x, 1.0 / float(other), 0.0)
        from .tensor import fill_constant
        other = fill_constant([1], x.dtype, float(other))
    a, b = (other, x) if reverse else (x, other)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op(op_type, inputs={"X": [a], "Y": [b]}, outputs={"Out": [out]})
    return out


def _scale(helper: LayerHelper, x: Variable, scale: float, bias: float) -> Variable:
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op("scale", inputs={"X": [x]}, outputs={"Out": [out]},
                     attrs={"scale": scale, "bias": bias})
    return out
