"""paddle.nn.initializer: the 2.x initializer classes over frontend/initializer.py's."""
from __future__ import annotations

import math

import numpy as np

from ...dtypes import convert_dtype, to_numpy_dtype
from ...errors import FluidcError
from ... import initializer as _init

Constant = _init.Constant


class Normal(_init.Normal):
    """N(mean, std^2)."""

    def __init__(self, mean: float = 0.0, std: float = 1.0, name=None) -> None:
        super().__init__(mean, std)


class TruncatedNormal(_init.TruncatedNormal):
    """N(mean, std^2) cut to the values [a, b] (the truncated_gaussian_random op)."""

    def __init__(self, mean: float = 0.0, std: float = 1.0, a: float = -2.0, b: float = 2.0,
                 name=None) -> None:
        super().__init__(mean, std, a=a, b=b)


class Uniform(_init.Uniform):
    """U(low, high)."""

    def __init__(self, low: float = -1.0, high: float = 1.0, name=None) -> None:
        super().__init__(low, high)


class XavierUniform(_init.Xavier):
    """Glorot uniform: +-sqrt(6 / (fan_in + fan_out))."""

    def __init__(self, fan_in=None, fan_out=None, name=None) -> None:
        super().__init__(True, fan_in, fan_out)


class XavierNormal(_init.Xavier):
    """Glorot normal: std sqrt(2 / (fan_in + fan_out))."""

    def __init__(self, fan_in=None, fan_out=None, name=None) -> None:
        super().__init__(False, fan_in, fan_out)


def _gain(nonlinearity: str, negative_slope: float) -> float:
    """Paddle's calculate_gain for the Kaiming initializers."""
    gains = {"linear": 1.0, "conv2d": 1.0, "sigmoid": 1.0, "tanh": 5.0 / 3, "relu": math.sqrt(2.0),
             "leaky_relu": math.sqrt(2.0 / (1 + negative_slope ** 2)), "selu": 3.0 / 4}
    if nonlinearity not in gains:
        raise FluidcError(f"Kaiming initializer: nonlinearity {nonlinearity!r} is not one of "
                          f"{sorted(gains)}")
    return gains[nonlinearity]


class _Kaiming(_init.Initializer):
    def __init__(self, uniform: bool, fan_in, negative_slope: float, nonlinearity: str) -> None:
        self.uniform, self.fan_in = uniform, fan_in
        self.gain = _gain(nonlinearity, negative_slope)

    def __call__(self, var, block):
        fan_in = self.fan_in if self.fan_in is not None else self._fans(var)[0]
        std = self.gain / math.sqrt(fan_in)
        if self.uniform:
            _init.Uniform(-std * math.sqrt(3.0), std * math.sqrt(3.0))(var, block)
        else:
            _init.Normal(0.0, std)(var, block)


class KaimingNormal(_Kaiming):
    """He normal: std gain / sqrt(fan_in)."""

    def __init__(self, fan_in=None, negative_slope=0.0, nonlinearity="relu") -> None:
        super().__init__(False, fan_in, negative_slope, nonlinearity)


class KaimingUniform(_Kaiming):
    """He uniform: +-gain * sqrt(3 / fan_in)."""

    def __init__(self, fan_in=None, negative_slope=0.0, nonlinearity="relu") -> None:
        super().__init__(True, fan_in, negative_slope, nonlinearity)


class Assign(_init.Initializer):
    """The given values (an array-like of the parameter's shape)."""

    def __init__(self, value, name=None) -> None:
        self.value = np.asarray(value)

    def __call__(self, var, block):
        if tuple(self.value.shape) != tuple(var.shape):
            raise FluidcError(f"Assign initializer: value of shape {list(self.value.shape)} "
                              f"does not fit parameter '{var.name}' {list(var.shape)}")
        dtype = convert_dtype(var.dtype)
        arr = self.value.astype(to_numpy_dtype(var.dtype))
        key = {"float32": "fp32_values", "float64": "fp64_values", "int32": "int32_values",
               "int64": "int64_values", "bool": "bool_values"}.get(arr.dtype.name)
        if key is None:
            raise FluidcError(f"Assign initializer: parameter '{var.name}' has dtype "
                              f"{arr.dtype}, which assign_value cannot hold")
        block.append_op("assign_value", outputs={"Out": [var]},
                        attrs={"shape": list(arr.shape), "dtype": int(dtype),
                               key: [v.item() for v in arr.reshape(-1)]})


__all__ = ["Constant", "Normal", "TruncatedNormal", "Uniform", "XavierUniform", "XavierNormal",
           "KaimingNormal", "KaimingUniform", "Assign"]
