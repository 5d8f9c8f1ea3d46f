"""ParamAttr: how a layer names, initializes and trains one of its parameters."""
from __future__ import annotations

from typing import Any


class ParamAttr:
    """Paddle's ParamAttr: name, initializer, learning_rate, regularizer, trainable."""

    def __init__(self, name: str | None = None, initializer=None, learning_rate: float = 1.0,
                 regularizer=None, trainable: bool = True, do_model_average: bool = True,
                 need_clip: bool = True) -> None:
        self.name = name
        self.initializer = initializer
        self.learning_rate = learning_rate
        self.regularizer = regularizer
        self.trainable = trainable
        self.need_clip = need_clip
        self.do_model_average = do_model_average  # read by ExponentialMovingAverage

    @staticmethod
    def to_attr(arg: Any) -> "ParamAttr | bool":
        """None -> default attr, str -> named attr, False -> no parameter, initializer -> attr."""
        if arg is None:
            return ParamAttr()
        if isinstance(arg, ParamAttr):
            return arg
        if isinstance(arg, str):
            return ParamAttr(name=arg)
        if arg is False:
            return False
        if arg is True:
            return ParamAttr()
        return ParamAttr(initializer=arg)
