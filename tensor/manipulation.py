"""paddle.tensor.manipulation: shapes, layouts, joins and selections."""
from ..frontend.layers.api2 import cast, concat, flatten, reshape, transpose
from ..frontend.layers.api2.manipulation import gather, moveaxis, reshape_, split, t

__all__ = ["cast", "concat", "flatten", "gather", "moveaxis", "reshape", "reshape_", "split", "t",
           "transpose"]
