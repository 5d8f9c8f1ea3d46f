"""Initializers: each appends the op that fills a parameter to the startup program."""
from __future__ import annotations

import math

import numpy as np

from .framework import Variable
from .ops.tensor import fill_constant_attrs


class Initializer:
    """Appends to `block` the op that sets `var` at startup."""

    def __call__(self, var: Variable, block) -> None:
        raise NotImplementedError

    @staticmethod
    def _fans(var: Variable) -> tuple[int, int]:
        shape = var.shape
        if len(shape) == 0:
            return 1, 1
        if len(shape) == 1:
            return shape[0], shape[0]
        if len(shape) == 2:
            return shape[0], shape[1]
        receptive = int(np.prod(shape[2:]))
        return shape[1] * receptive, shape[0] * receptive

    @staticmethod
    def _seed(block, seed: int) -> int:
        return seed or block.program.random_seed


class Constant(Initializer):
    """Fills with `value`."""

    def __init__(self, value: float = 0.0, force_cpu: bool = False) -> None:
        self.value = value

    def __call__(self, var, block):
        block.append_op("fill_constant", outputs={"Out": [var]},
                        attrs=fill_constant_attrs(var.shape, var.dtype, self.value))


class Uniform(Initializer):
    """Draws from U(low, high); diag_num > 0 then writes diag_val at diag_num flat positions
    diag_step + 1 apart from 0 (with diag_step the row length: a diagonal)."""

    def __init__(self, low: float = -1.0, high: float = 1.0, seed: int = 0, diag_num: int = 0,
                 diag_step: int = 0, diag_val: float = 1.0) -> None:
        self.low, self.high, self.seed = low, high, seed
        self.diag_num, self.diag_step, self.diag_val = diag_num, diag_step, diag_val

    def __call__(self, var, block):
        block.append_op("uniform_random", outputs={"Out": [var]},
                        attrs={"shape": list(var.shape), "dtype": int(var.dtype), "min": self.low,
                               "max": self.high, "seed": self._seed(block, self.seed),
                               "diag_num": self.diag_num, "diag_step": self.diag_step,
                               "diag_val": self.diag_val})


class Normal(Initializer):
    """Draws from N(loc, scale^2)."""

    def __init__(self, loc: float = 0.0, scale: float = 1.0, seed: int = 0) -> None:
        self.loc, self.scale, self.seed = loc, scale, seed

    def __call__(self, var, block):
        block.append_op("gaussian_random", outputs={"Out": [var]},
                        attrs={"shape": list(var.shape), "dtype": int(var.dtype), "mean": self.loc,
                               "std": self.scale, "seed": self._seed(block, self.seed)})


class TruncatedNormal(Initializer):
    """Draws from N(loc, scale^2) cut to [a, b], as Paddle 3.x's truncated_gaussian_random: the
    cutoffs are values (default [-2, 2]), not multiples of scale."""

    def __init__(self, loc: float = 0.0, scale: float = 1.0, seed: int = 0, a: float = -2.0,
                 b: float = 2.0) -> None:
        self.loc, self.scale, self.seed, self.a, self.b = loc, scale, seed, a, b

    def __call__(self, var, block):
        block.append_op("truncated_gaussian_random", outputs={"Out": [var]},
                        attrs={"shape": list(var.shape), "dtype": int(var.dtype), "mean": self.loc,
                               "std": self.scale, "seed": self._seed(block, self.seed),
                               "a": self.a, "b": self.b})


class Xavier(Initializer):
    """Glorot: uniform in +-sqrt(6/(fan_in+fan_out)) or normal with std sqrt(2/(fan_in+fan_out))."""

    def __init__(self, uniform: bool = True, fan_in=None, fan_out=None, seed: int = 0) -> None:
        self.uniform, self.fan_in, self.fan_out, self.seed = uniform, fan_in, fan_out, seed

    def __call__(self, var, block):
        fi, fo = self._fans(var)
        fi = self.fan_in if self.fan_in is not None else fi
        fo = self.fan_out if self.fan_out is not None else fo
        if self.uniform:
            limit = math.sqrt(6.0 / (fi + fo))
            Uniform(-limit, limit, self.seed)(var, block)
        else:
            Normal(0.0, math.sqrt(2.0 / (fi + fo)), self.seed)(var, block)


class MSRA(Initializer):
    """He/Kaiming: uniform in +-sqrt(6/fan_in) or normal with std sqrt(2/fan_in)."""

    def __init__(self, uniform: bool = True, fan_in=None, seed: int = 0) -> None:
        self.uniform, self.fan_in, self.seed = uniform, fan_in, seed

    def __call__(self, var, block):
        fi = self.fan_in if self.fan_in is not None else self._fans(var)[0]
        if self.uniform:
            limit = math.sqrt(6.0 / fi)
            Uniform(-limit, limit, self.seed)(var, block)
        else:
            Normal(0.0, math.sqrt(2.0 / fi), self.seed)(var, block)


ConstantInitializer, UniformInitializer, NormalInitializer = Constant, Uniform, Normal
XavierInitializer, MSRAInitializer = Xavier, MSRA
TruncatedNormalInitializer = TruncatedNormal
KaimingUniform = MSRA
XavierUniform = Xavier


def XavierNormal(fan_in=None, fan_out=None, name=None) -> Xavier:  # noqa: N802 (Paddle's name)
    """The 2.x spelling of Xavier(uniform=False)."""
    return Xavier(uniform=False, fan_in=fan_in, fan_out=fan_out)


def KaimingNormal(fan_in=None, name=None) -> MSRA:  # noqa: N802 (Paddle's name)
    """The 2.x spelling of MSRA(uniform=False)."""
    return MSRA(uniform=False, fan_in=fan_in)
