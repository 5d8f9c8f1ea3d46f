"""paddle.tensor.manipulation: shapes, layouts, joins and selections."""
from ..frontend.layers.api2 import cast, concat, flatten, reshape, transpose
from ..frontend.layers.api2.shaping import (expand, squeeze, squeeze_, stack, topk, unsqueeze,
                                           unsqueeze_)
from ..frontend.layers.api2.manipulation import gather, moveaxis, reshape_, split, t

__all__ = ["cast", "concat", "expand", "flatten", "gather", "moveaxis", "reshape", "reshape_",
           "split", "squeeze", "squeeze_", "stack", "t", "topk", "transpose", "unsqueeze", "unsqueeze_"]
