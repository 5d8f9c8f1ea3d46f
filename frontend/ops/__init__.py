"""Op definitions, one family per module; importing this package registers them all."""
import importlib
import pkgutil

from .registry import OpDef, OpDesc, VarInfo, all_op_types, get_op_def, grad_name, has_op_def

_SUPPORT = {"registry", "define", "handler"}
for _m in pkgutil.iter_modules(__path__):
    if _m.name not in _SUPPORT:
        importlib.import_module(f"{__name__}.{_m.name}")  # each family registers on import

__all__ = ["OpDef", "OpDesc", "VarInfo", "all_op_types", "get_op_def", "grad_name", "has_op_def"]
