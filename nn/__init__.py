"""paddle.nn: the layer classes, the functional ops and the initializers, for static programs."""
from ..frontend.layers.api2.layer import (  # noqa: F401
    ELU, GELU, SELU, AvgPool2D, BatchNorm, Bilinear, BatchNorm1D, BatchNorm2D, BatchNorm3D, Conv2D, Conv3D,
    Conv2DTranspose, Conv3DTranspose,
    CrossEntropyLoss, Dropout, Embedding, Flatten, GroupNorm, Hardsigmoid, Hardswish,
    InstanceNorm1D, InstanceNorm2D, InstanceNorm3D, L1Loss, Layer,
    LayerList, LayerNorm, LeakyReLU, Linear, LogSigmoid, ParameterList, LogSoftmax, MaxPool2D, MSELoss, Pad2D, ReLU, ReLU6, Sequential, Sigmoid, Silu,
    Softmax, Softplus, Softsign, Swish, Tanh, Unfold)
from ..frontend.layers.api2 import layer  # noqa: F401 (paddle.nn.layer.AvgPool2D, ...)
from ..frontend.layers.api2.spectral_norm import SpectralNorm  # noqa: F401
from ..frontend.layers.api2.rnn import (GRU, LSTM, RNN, BiRNN, GRUCell, LSTMCell,  # noqa: F401
                                        RNNCellBase, SimpleRNN, SimpleRNNCell)
from ..frontend.layers.api2.ctc import CTCLoss  # noqa: F401
from ..frontend.layers.api2.transformer import (MultiHeadAttention,  # noqa: F401
                                                TransformerEncoderLayer)
from . import functional, initializer, loss  # noqa: F401
from .loss import BCELoss, BCEWithLogitsLoss, KLDivLoss, NLLLoss  # noqa: F401
from .loss import (CosineEmbeddingLoss, HingeEmbeddingLoss, MarginRankingLoss,  # noqa: F401
                   SmoothL1Loss, SoftMarginLoss, TripletMarginLoss)
from ..frontend.layers.api2.loss_layers_more import PairwiseDistance  # noqa: F401
from ..frontend.layers.api2.layer import PixelShuffle  # noqa: F401
from ..frontend.layers.api2.layer import Pad1D, Pad3D  # noqa: F401
from . import clip  # noqa: F401
from . import utils  # noqa: F401
from .clip import ClipGradByGlobalNorm, ClipGradByNorm, ClipGradByValue  # noqa: F401
from ..frontend.layers.api2.activation_layers_more import (  # noqa: F401
    CELU, GLU, Hardshrink, Hardtanh, Maxout, PReLU, Softshrink, Tanhshrink, ThresholdedReLU)
from ..frontend.layers.api2.conv1d_layers import (  # noqa: F401
    AdaptiveAvgPool1D, AdaptiveMaxPool1D, AvgPool1D, Conv1D, MaxPool1D)


from fluidc.frontend.errors import missing_attribute as _missing_attribute  # noqa: E402

__getattr__ = _missing_attribute("fluidc.nn", globals())  # an unknown name: close names, not a bare error
