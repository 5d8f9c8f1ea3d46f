"""paddle.tensor.creation: tensors filled with a value or drawn at random."""
from ..frontend.layers.api2 import full, ones, rand, randint, randn, uniform, zeros
from ..frontend.layers.tensor import (assign, fill_constant, full_like, linspace, ones_like,
                                      zeros_like)

import numpy as np

from ..frontend.dtypes import to_numpy_dtype
from ..frontend.framework import Variable
from ..frontend.layers.helper import ArgumentTypeError

__all__ = ["arange", "assign", "fill_constant", "full", "full_like", "linspace", "ones",
           "ones_like", "rand", "randint", "randn", "uniform", "zeros", "zeros_like"]


def _bound(value, arg: str):
    if isinstance(value, Variable):
        if getattr(value, "_value", None) is None:  # a static var: only known when run
            raise ArgumentTypeError(f"arange: '{arg}' must be a Python number or an eager "
                                    f"Tensor (fluidc has no run-time range op), got a static "
                                    f"Variable")
        return value.item()
    if isinstance(value, bool) or not isinstance(value, (int, float, np.number)):
        raise ArgumentTypeError(f"arange: '{arg}' must be int or float, got "
                                f"{type(value).__name__}")
    return value


def arange(start=0, end=None, step=1, dtype=None, name=None):
    """paddle.arange: [start, end) by step (end None: [0, start)); int64 when every bound is
    an int, else float32, unless dtype says. A constant of the program (assign_value)."""
    if end is None:
        start, end = 0, start
    bounds = [_bound(v, a) for v, a in ((start, "start"), (end, "end"), (step, "step"))]
    if bounds[2] == 0:
        raise ValueError("arange: step must not be 0")
    if dtype is None:
        dtype = "int64" if all(isinstance(b, (int, np.integer)) for b in bounds) else "float32"
    return assign(np.arange(*bounds, dtype=to_numpy_dtype(dtype)))

