"""paddle.tensor.manipulation: shapes, layouts, joins and selections."""
from ..frontend.layers.api2 import cast, concat, flatten, reshape, transpose
from ..frontend.layers.api2.shaping import (expand, squeeze, squeeze_, stack, topk, unsqueeze,
                                           unsqueeze_)
from ..frontend.layers.api2.manipulation import flip, gather, moveaxis, reshape_, split, t
from ..frontend.layers.api2.crop_shard import crop, shard_index

__all__ = ["cast", "concat", "crop", "expand", "flatten", "flip", "gather", "moveaxis", "reshape", "reshape_",
           "shard_index", "split", "squeeze", "squeeze_", "stack", "t", "topk", "transpose", "unsqueeze", "unsqueeze_"]
