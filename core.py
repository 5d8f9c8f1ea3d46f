"""fluid.core: the names Paddle scripts reach into its C++ core for."""
from .frontend.dtypes import VarType
from .runtime import CPUPlace, CUDAPlace, LoDTensor, Scope


class VarDesc:
    """fluid.core.VarDesc.VarType."""

    VarType = VarType


class EOFException(Exception):
    """Raised by a non-iterable reader when its data runs out."""


__all__ = ["VarDesc", "VarType", "CPUPlace", "CUDAPlace", "LoDTensor", "Scope", "EOFException"]
