"""paddle.tensor.creation: tensors filled with a value or drawn at random."""
from ..frontend.layers.api2 import full, ones, rand, randint, randn, uniform, zeros
from ..frontend.layers.tensor import assign, fill_constant, full_like, ones_like, zeros_like

__all__ = ["assign", "fill_constant", "full", "full_like", "ones", "ones_like", "rand", "randint",
           "randn", "uniform", "zeros", "zeros_like"]
