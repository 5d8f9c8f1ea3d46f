"""paddle.nn: the layer classes, the functional ops and the initializers, for static programs."""
from ..frontend.layers.api2.layer import (  # noqa: F401
    ELU, GELU, SELU, AvgPool2D, BatchNorm, BatchNorm1D, BatchNorm2D, BatchNorm3D, Conv2D,
    CrossEntropyLoss, Dropout, Embedding, Flatten, Hardsigmoid, Hardswish, L1Loss, Layer,
    LayerNorm, LeakyReLU, Linear, LogSigmoid, LogSoftmax, MaxPool2D, MSELoss, ReLU, ReLU6, Sequential, Sigmoid, Silu,
    Softmax, Softplus, Softsign, Swish, Tanh)
from ..frontend.layers.api2 import layer  # noqa: F401 (paddle.nn.layer.AvgPool2D, ...)
from . import functional, initializer, loss  # noqa: F401
from . import clip  # noqa: F401
from .clip import ClipGradByGlobalNorm, ClipGradByNorm, ClipGradByValue  # noqa: F401


from fluidc.frontend.errors import missing_attribute as _missing_attribute  # noqa: E402

__getattr__ = _missing_attribute("fluidc.nn", globals())  # an unknown name: close names, not a bare error
