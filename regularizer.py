"""fluid.regularizer / paddle.regularizer: weight decay terms added to gradients."""
from .passes.regularizer import (L1Decay, L1DecayRegularizer, L2Decay, L2DecayRegularizer,
                                 WeightDecayRegularizer, append_regularization_ops)

__all__ = ["L1Decay", "L2Decay", "L1DecayRegularizer", "L2DecayRegularizer",
           "WeightDecayRegularizer", "append_regularization_ops"]
