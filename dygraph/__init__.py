"""Dygraph mode: eager tensors whose ops run when made, through the op registry's single
definitions (compiled per signature), a tape for backward, and the glue that lets paddle.nn
Layers and paddle.optimizer optimizers run eagerly (docs/architecture.md, "Dygraph")."""
from __future__ import annotations

import contextlib

import numpy as np

from ..frontend import bfloat16
from ..frontend.dtypes import get_default_dtype, to_numpy_dtype
from ..frontend.framework import framework_mode, set_mode
from .autograd import grad, is_grad_enabled, no_grad, set_grad_enabled
from .tensor import EagerParamBase, Tensor, new_tensor
from .tracer import EAGER_PROGRAM
from . import optimizer as _optimizer
from ..passes.optimizer import Optimizer as _Optimizer

_optimizer.bind(_Optimizer)

__all__ = ["Tensor", "EagerParamBase", "to_tensor", "no_grad", "grad", "set_grad_enabled",
           "is_grad_enabled", "EAGER_PROGRAM", "guard"]


@contextlib.contextmanager
def guard(place=None):
    """fluid.dygraph.guard: dygraph mode inside the block, the mode before it after."""
    before = framework_mode()
    set_mode("dygraph")
    try:
        yield
    finally:
        set_mode(before)


def _default_dtype(data) -> np.dtype | None:
    """Paddle's dtype for Python data: floats the default dtype (paddle.get_default_dtype),
    complex numbers complex64 (complex128 when the default is float64), ints int64; numpy
    data keeps its own."""
    if isinstance(data, np.ndarray) or isinstance(data, np.generic):
        return None
    a = np.asarray(data)
    if a.dtype.kind == "f":
        return to_numpy_dtype(get_default_dtype())
    if a.dtype.kind == "c":
        return np.dtype("complex128" if get_default_dtype() == "float64" else "complex64")
    if a.dtype.kind in "iu":
        return np.dtype("int64")
    return None


def to_tensor(data, dtype=None, place=None, stop_gradient: bool = True) -> Tensor:
    """paddle.to_tensor: a new leaf tensor holding a copy of `data`."""
    if isinstance(data, Tensor):
        array = data.value()
    else:
        try:
            array = np.asarray(data)
        except Exception as e:  # ragged lists
            raise ValueError(f"to_tensor cannot read {type(data).__name__} as an array: {e}") \
                from e
        if array.dtype == object or array.dtype.kind in "USV":
            raise TypeError(f"Can't constructs a 'paddle.Tensor' with data type "
                            f"{type(data).__name__} holding {array.dtype}; numbers (bool, int, "
                            f"float, complex), lists of them and numpy arrays are accepted")
    target = to_numpy_dtype(dtype) if dtype is not None else _default_dtype(data)
    array = bfloat16.cast(array, target) if target is not None else np.array(array, copy=True)
    return new_tensor(array, stop_gradient=bool(stop_gradient))
