"""paddle.nn: the functional ops usable in static programs."""
from . import functional  # noqa: F401
