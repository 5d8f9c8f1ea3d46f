"""paddle.nn.initializer, re-exported."""
from ..frontend.initializer import UniformInitializer  # noqa: F401
from ..frontend.layers.api2.initializer import (Assign, Constant, KaimingNormal,  # noqa: F401
                                                KaimingUniform, Normal, TruncatedNormal,
                                                Uniform, XavierNormal, XavierUniform)
