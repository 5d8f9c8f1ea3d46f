"""paddle.nn.loss: the loss layers (also in paddle.nn)."""
from ..frontend.layers.api2.layer import (  # noqa: F401
    BCELoss, BCEWithLogitsLoss, CrossEntropyLoss, KLDivLoss, L1Loss, MSELoss, NLLLoss)
from ..frontend.layers.api2.loss_layers_more import (  # noqa: F401
    CosineEmbeddingLoss, HingeEmbeddingLoss, MarginRankingLoss, SmoothL1Loss, SoftMarginLoss,
    TripletMarginLoss)

__all__ = ["CrossEntropyLoss", "L1Loss", "MSELoss", "BCELoss", "BCEWithLogitsLoss", "NLLLoss",
           "KLDivLoss", "SmoothL1Loss", "MarginRankingLoss", "HingeEmbeddingLoss",
           "SoftMarginLoss", "TripletMarginLoss", "CosineEmbeddingLoss"]
