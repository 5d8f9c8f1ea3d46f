"""paddle.nn: the layer classes, the functional ops and the initializers, for static programs."""
from ..frontend.layers.api2.layer import (  # noqa: F401
    ELU, GELU, SELU, AvgPool2D, BatchNorm, BatchNorm1D, BatchNorm2D, Conv2D, CrossEntropyLoss,
    Dropout, Embedding, Flatten, Hardsigmoid, Hardswish, L1Loss, Layer, LayerNorm, LeakyReLU,
    Linear, LogSigmoid, LogSoftmax, MaxPool2D, MSELoss, ReLU, ReLU6, Sequential, Sigmoid, Silu,
    Softmax, Softplus, Softsign, Swish, Tanh)
from . import functional, initializer  # noqa: F401
from . import clip  # noqa: F401
from .clip import ClipGradByGlobalNorm, ClipGradByNorm, ClipGradByValue  # noqa: F401
