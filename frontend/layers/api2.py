"""The 2.x tensor functions (paddle.matmul, paddle.add, ...) over the same ops."""
from __future__ import annotations

from ..framework import Variable
from .helper import LayerHelper
from .nn import _binary, reduce_mean


def matmul(x: Variable, y: Variable, transpose_x: bool = False, transpose_y: bool = False,
           name=None) -> Variable:
    """Matrix product with numpy's batching rules (matmul_v2)."""
    helper = LayerHelper("matmul_v2", name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op("matmul_v2", inputs={"X": [x], "Y": [y]}, outputs={"Out": [out]},
                     attrs={"trans_x": transpose_x, "trans_y": transpose_y})
    return out


def add(x, y, name=None): return _binary("elementwise_add", x, y, name=name)  # noqa: E704
def subtract(x, y, name=None): return _binary("elementwise_sub", x, y, name=name)  # noqa: E704
def multiply(x, y, name=None): return _binary("elementwise_mul", x, y, name=name)  # noqa: E704
def divide(x, y, name=None): return _binary("elementwise_div", x, y, name=name)  # noqa: E704
def maximum(x, y, name=None): return _binary("elementwise_max", x, y, name=name)  # noqa: E704
def minimum(x, y, name=None): return _binary("elementwise_min", x, y, name=name)  # noqa: E704


def mean(x: Variable, axis=None, keepdim: bool = False, name=None) -> Variable:
    """Mean over axis (all when None): reduce_mean."""
    return reduce_mean(x, dim=axis, keep_dim=keepdim, name=name)


