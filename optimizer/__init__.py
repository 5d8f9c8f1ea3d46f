"""fluid.optimizer / paddle.optimizer: the optimizers (1.x and 2.x names) and paddle.optimizer.lr."""
from ..passes.optimizer import (SGD, Adadelta, AdadeltaOptimizer, Adagrad, AdagradOptimizer,
                                Adam, Adamax, AdamaxOptimizer, AdamOptimizer, AdamW,
                                AdamWOptimizer, Lamb, LambOptimizer, Momentum, MomentumOptimizer,
                                Optimizer, RMSProp, RMSPropOptimizer, SGDOptimizer)
from ..passes.optimizer2 import ASGD, NAdam, RAdam, Rprop
from ..frontend.layers.ema import ExponentialMovingAverage
from ..passes.averaging import FluidModelAverage as ModelAverage, LookaheadOptimizer
from . import lr

__all__ = ["Optimizer", "SGD", "Momentum", "Adam", "AdamW", "Adagrad", "RMSProp", "Adamax",
           "Lamb", "Adadelta", "NAdam", "RAdam", "ASGD", "Rprop", "SGDOptimizer",
           "MomentumOptimizer", "AdamOptimizer",
           "AdamWOptimizer", "AdagradOptimizer", "RMSPropOptimizer", "AdamaxOptimizer",
           "LambOptimizer", "AdadeltaOptimizer",
           "ExponentialMovingAverage", "LookaheadOptimizer", "ModelAverage", "lr"]


from fluidc.frontend.errors import missing_attribute as _missing_attribute  # noqa: E402

__getattr__ = _missing_attribute("fluidc.optimizer", globals())  # an unknown name: close names, not a bare error
