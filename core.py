"""fluid.core: the names Paddle scripts reach into its C++ core for."""
from .frontend.dtypes import VarType
from .runtime import CPUPlace, CUDAPlace, LoDTensor, Scope
from .runtime.pyreader import EOFException  # raised by non-iterable readers


class VarDesc:
    """fluid.core.VarDesc.VarType."""

    VarType = VarType


__all__ = ["VarDesc", "VarType", "CPUPlace", "CUDAPlace", "LoDTensor", "Scope", "EOFException"]
