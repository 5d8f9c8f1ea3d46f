"""paddle.tensor.math: elementwise arithmetic and reductions."""
from ..frontend.layers.api2 import (  # noqa: A004 (Paddle's names)
    abs, add, add_n, all, any, cumsum, divide, exp, log, max, maximum, min, minimum, multiply,
    pow, prod, scale, sqrt, square, stanh, subtract, sum, tanh)
from ..frontend.layers.api2 import floor_mod, mod, remainder
from ..frontend.layers.compare import increment

__all__ = ["abs", "add", "add_n", "all", "any", "cumsum", "divide", "exp", "log", "max",
           "maximum", "min", "minimum", "mod", "floor_mod", "increment", "multiply", "pow",
           "prod", "scale", "sqrt", "square", "remainder", "stanh", "subtract", "sum", "tanh"]
