"""paddle.static.setitem: x with x[index] = value, a new Variable made by one set_value op, as
Paddle 3.3.1's legacy static mode appends it (its Variable.__setitem__ refuses, pointing here).
The index and value are as dygraph's Tensor.__setitem__ takes them (dygraph/indexing.py)."""
from __future__ import annotations

from ..dygraph.indexing import set_value_args
from ..frontend.framework import Variable
from ..frontend.layers.helper import LayerHelper


def setitem(x: Variable, index, value) -> Variable:
    """x with value (a number, numpy array, list or Variable, broadcast) at x[index] (ints,
    slices of ints, Ellipsis); x itself is unchanged."""
    inputs, attrs = set_value_args(x, index, value)
    helper = LayerHelper("set_value")
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op("set_value", inputs=inputs, outputs={"Out": [out]}, attrs=attrs)
    return out
