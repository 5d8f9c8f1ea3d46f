"""fluid.layer_helper (Paddle 1.x's module path): LayerHelper, which appends ops and makes
their output vars (`from paddle.fluid.layer_helper import LayerHelper`)."""
from .frontend.layers.helper import LayerHelper  # noqa: F401
