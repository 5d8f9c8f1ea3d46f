"""paddle.nn's 1-D convolution and pooling Layers, over the functions of conv1d.py."""
from __future__ import annotations

import inspect

from . import conv1d as F1
from .layer import Layer, _ConvBase


class Conv1D(_ConvBase):
    """1-D convolution with an [out, in / groups, k] weight (He-normal) and an [out] bias."""

    _N = 1

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, padding_mode="zeros", weight_attr=None, bias_attr=None,
                 data_format="NCL") -> None:
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, padding_mode, weight_attr, bias_attr, data_format)

    def forward(self, x):
        return F1.conv1d(x, self.weight, self.bias, **self._conv)


class _Pool1D(Layer):
    """A pooling Layer: its function over x with the arguments given to the constructor (bound
    to the function's signature there, so a wrong one is a TypeError at once)."""

    _FN = staticmethod(lambda x, **kw: x)

    def __init__(self, *args, name=None, **kwargs) -> None:
        super().__init__()
        inspect.signature(type(self)._FN).bind(None, *args, **kwargs)
        self._args, self._kwargs = args, kwargs

    def forward(self, x):
        return type(self)._FN(x, *self._args, **self._kwargs)


def _pool(name: str, fn, doc: str):
    return type(name, (_Pool1D,), {"_FN": staticmethod(fn), "__doc__": doc,
                                   "__module__": __name__})


MaxPool1D = _pool("MaxPool1D", F1.max_pool1d,
                  "MaxPool1D(kernel_size, stride=None, padding=0, return_mask=False, "
                  "ceil_mode=False, name=None): max over kernel_size windows.")
AvgPool1D = _pool("AvgPool1D", F1.avg_pool1d,
                  "AvgPool1D(kernel_size, stride=None, padding=0, exclusive=True, "
                  "ceil_mode=False, name=None): average over kernel_size windows.")
AdaptiveAvgPool1D = _pool("AdaptiveAvgPool1D", F1.adaptive_avg_pool1d,
                          "AdaptiveAvgPool1D(output_size, name=None): average pooling to "
                          "output_size.")
AdaptiveMaxPool1D = _pool("AdaptiveMaxPool1D", F1.adaptive_max_pool1d,
                          "AdaptiveMaxPool1D(output_size, return_mask=False, name=None): max "
                          "pooling to output_size.")
