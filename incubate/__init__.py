"""paddle.incubate: the incubating layers fluidc implements (paddle.incubate.layers.nn) and
optimizers (paddle.incubate.optimizer)."""
from . import layers, optimizer  # noqa: F401
