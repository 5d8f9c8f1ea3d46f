"""paddle.incubate: the incubating layers fluidc implements (paddle.incubate.layers.nn)."""
from . import layers  # noqa: F401
