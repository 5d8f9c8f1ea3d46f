"""paddle.static.setitem: x with x[index] = value, a new Variable made by one set_value op, as
Paddle 3.3.1's legacy static mode appends it (its Variable.__setitem__ refuses, pointing here).
The index and value are as dygraph's Tensor.__setitem__ takes them (dygraph/indexing.py)."""
from __future__ import annotations

import numpy as np

from ..dygraph.indexing import written
from ..frontend.framework import Variable


def setitem(x: Variable, index, value) -> Variable:
    """x with value (a number, numpy array or Variable, broadcast) at x[index] (ints, slices
    of ints or int Variables, None, Ellipsis, or one bool mask); x itself is unchanged."""
    if not isinstance(value, (bool, int, float, complex, np.number, np.ndarray, Variable)):
        raise TypeError(f"Only support to assign an integer, float, numpy.ndarray or "
                        f"paddle.Tensor to a paddle.Tensor, but received {type(value)}")
    return written(x, index, value)
