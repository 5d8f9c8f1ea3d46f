"""paddle.nn.loss: the loss layers (also in paddle.nn)."""
from ..frontend.layers.api2.layer import CrossEntropyLoss, L1Loss, MSELoss  # noqa: F401

__all__ = ["CrossEntropyLoss", "L1Loss", "MSELoss"]
