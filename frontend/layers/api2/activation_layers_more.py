"""paddle.nn layer classes for activations_more's functions: Hardtanh, Hardshrink, Softshrink,
Tanhshrink, ThresholdedReLU, CELU, GLU (parameterless, layer.py's _activation), Maxout and
PReLU with its learnable slopes."""
from __future__ import annotations

from ...initializer import Constant
from . import activations_more as F
from .layer import Layer, _activation

Hardtanh = _activation("Hardtanh", F.hardtanh, "min, x or max.", min=-1.0, max=1.0)
Hardshrink = _activation("Hardshrink", F.hardshrink, "x where |x| >= threshold, else 0.",
                         threshold=0.5)
Softshrink = _activation("Softshrink", F.softshrink, "x moved threshold towards 0, 0 inside.",
                         threshold=0.5)
Tanhshrink = _activation("Tanhshrink", F.tanhshrink, "x - tanh(x).")
ThresholdedReLU = _activation("ThresholdedReLU", F.thresholded_relu,
                              "x where x > threshold, else value.", threshold=1.0, value=0.0)
CELU = _activation("CELU", F.celu, "max(0, x) + min(0, alpha * (exp(x / alpha) - 1)).",
                   alpha=1.0)
GLU = _activation("GLU", F.glu, "a * sigmoid(b) for the halves a, b of x along axis.", axis=-1)


class Maxout(Layer):
    """The max over each run of `groups` consecutive channels (axis 1, or -1 / 3 for NHWC)."""

    def __init__(self, groups: int, axis: int = 1, name=None) -> None:
        super().__init__()
        self._groups, self._axis = groups, axis

    def forward(self, x):
        return F.maxout(x, self._groups, self._axis)


class PReLU(Layer):
    """x where x > 0, weight * x elsewhere, with num_parameters learnable slopes (1, or one per
    channel of data_format) initialized to init."""

    def __init__(self, num_parameters: int = 1, init: float = 0.25, weight_attr=None,
                 data_format: str = "NCHW", name=None) -> None:
        super().__init__()
        self._num_parameters, self._init, self._data_format = num_parameters, init, data_format
        self._weight = self.create_parameter([num_parameters], weight_attr,
                                             default_initializer=Constant(init))

    def forward(self, x):
        return F.prelu(x, self._weight, data_format=self._data_format)

    def extra_repr(self) -> str:
        return (f"num_parameters={self._num_parameters}, data_format={self._data_format}, "
                f"init={self._init}, dtype={self._dtype}")
