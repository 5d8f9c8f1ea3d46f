"""paddle.jit: to_static, save / load and TranslatedLayer (fluidc.dygraph.jit, jit_io)."""
from ..dygraph.jit import (InputSpec, StaticFunction, TracedValueError, enable_to_static,
                           not_to_static, to_static)
from ..dygraph.jit_io import TranslatedLayer, load, save

__all__ = ["InputSpec", "StaticFunction", "TracedValueError", "TranslatedLayer",
           "enable_to_static", "load", "not_to_static", "save", "to_static"]
