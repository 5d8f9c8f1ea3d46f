"""fluid.core: the names Paddle scripts reach into its C++ core for."""
from .frontend.dtypes import VarType
from .runtime import CPUPlace, CUDAPlace, LoDTensor, Scope
from .runtime.place import is_compiled_with_cuda
from .runtime.pyreader import EOFException  # raised by non-iterable readers
from .runtime.selected_rows import SelectedRows


DenseTensor = LoDTensor  # Paddle 3.x's name for it


class VarDesc:
    """fluid.core.VarDesc.VarType."""

    VarType = VarType


__all__ = ["VarDesc", "VarType", "CPUPlace", "CUDAPlace", "LoDTensor", "DenseTensor", "Scope",
           "SelectedRows", "EOFException", "is_compiled_with_cuda"]
