"""paddle.tensor.random: tensors drawn at random (the random ops, seeded by the program's
random_seed unless a seed is given)."""
from ..frontend.layers.api2 import (gaussian, normal, rand, randint, randn, randperm,
                                    standard_normal, uniform)
from ..frontend.layers.tensor import uniform_random_batch_size_like

__all__ = ["gaussian", "normal", "rand", "randint", "randn", "randperm", "standard_normal",
           "uniform", "uniform_random_batch_size_like"]
