"""Op definitions, one family per module; importing this package registers them all."""
from . import math, nn, optim, reduce, tensor  # noqa: F401  (registration happens on import)
from .registry import OpDef, OpDesc, VarInfo, all_op_types, get_op_def, grad_name, has_op_def

__all__ = ["OpDef", "OpDesc", "VarInfo", "all_op_types", "get_op_def", "grad_name", "has_op_def"]
