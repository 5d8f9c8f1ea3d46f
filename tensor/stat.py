"""paddle.tensor.stat: statistics over axes."""
from ..frontend.layers.api2 import mean

__all__ = ["mean"]
