"""paddle.incubate.optimizer: the parameter-averaging optimizers (static programs)."""
from ..passes.averaging import LookAhead, ModelAverage

__all__ = ["LookAhead", "ModelAverage"]
