"""paddle.tensor.creation: tensors filled with a value or drawn at random."""
from ..frontend.layers.api2 import full, ones, rand, randint, randn, uniform, zeros
from ..frontend.layers.tensor import (assign, clone, fill_constant, full_like, linspace, ones_like,
                                      zeros_like)
from ..frontend.layers.tensor import range as _range

import numpy as np

from ..frontend.dtypes import default_float, dtype_name
from ..frontend.framework import Variable

__all__ = ["arange", "assign", "clone", "fill_constant", "full", "full_like", "linspace", "ones",
           "ones_like", "rand", "randint", "randn", "uniform", "zeros", "zeros_like"]


def arange(start=0, end=None, step=1, dtype=None, name=None):
    """paddle.arange: [start, end) by step (end None: [0, start)), the `range` op. dtype None
    is int64 when every bound is an int (or an int Tensor), else the default dtype."""
    if end is None:
        start, end = 0, start
    if dtype is None:
        ints = all(dtype_name(v.dtype).startswith(("int", "uint")) if isinstance(v, Variable)
                   else isinstance(v, (int, np.integer)) for v in (start, end, step))
        dtype = "int64" if ints else default_float(None)
    return _range(start, end, step, dtype, name=name)
