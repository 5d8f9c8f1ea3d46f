"""paddle.nn.loss: the loss layers (also in paddle.nn)."""
from ..frontend.layers.api2.layer import (  # noqa: F401
    BCELoss, BCEWithLogitsLoss, CrossEntropyLoss, KLDivLoss, L1Loss, MSELoss, NLLLoss)

__all__ = ["CrossEntropyLoss", "L1Loss", "MSELoss", "BCELoss", "BCEWithLogitsLoss", "NLLLoss",
           "KLDivLoss"]
