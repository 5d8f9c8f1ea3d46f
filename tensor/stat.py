"""paddle.tensor.stat: statistics over axes."""
from __future__ import annotations

import numpy as np

from ..frontend.framework import Variable
from ..frontend.layers import tensor as _tensor
from ..frontend.layers.api2 import cast, mean, prod, sum as _sum
from ..frontend.layers.api2.search import where
from ..frontend.layers.nn import sqrt
from ..frontend.layers.helper import check_variable_and_dtype

__all__ = ["mean", "numel", "std", "var"]


def numel(x: Variable, name=None) -> Variable:
    """The number of elements of x, a 0-d int64 (its shape's product at run time)."""
    return prod(cast(_tensor.shape(x), "int64"))


def var(x: Variable, axis=None, unbiased: bool = True, keepdim: bool = False,
        name=None) -> Variable:
    """Variance over axis (all when None): the mean squared deviation, divided by n - 1 when
    unbiased (by 1 where n is 1), as Paddle's."""
    check_variable_and_dtype(x, "x", ("float16", "float32", "float64"), "var")
    u = mean(x, axis, True)
    dev = x - u
    out = _sum(dev * dev, axis, keepdim=keepdim, name=name)
    if all(d >= 0 for d in x.shape):
        count = int(np.prod(x.shape)) // max(1, int(np.prod(u.shape)))
        # A tensor, not a scalar: `out / float` scales by a float32 reciprocal.
        n = _tensor.fill_constant([], x.dtype, max(count - 1, 1) if unbiased else count)
    else:  # a batch dim known at run time
        n = cast(numel(x), x.dtype) / cast(numel(u), x.dtype)
        if unbiased:
            one = _tensor.fill_constant([], x.dtype, 1.0)
            n = where(n > one, n - 1.0, one)
    n.stop_gradient = True
    return out / n


def std(x: Variable, axis=None, unbiased: bool = True, keepdim: bool = False,
        name=None) -> Variable:
    """Standard deviation over axis: sqrt of var (same arguments)."""
    return sqrt(var(x, axis, unbiased, keepdim), name=name)
