"""fluid.layers: functions that append ops (and parameters) to the default programs.

Every public function (and class: While) of the layer modules here is re-exported; `api2`
holds the 2.x spellings and `helper`/`math_op_patch` are machinery, so neither is.
"""
import importlib
import inspect
import pkgutil

_MACHINERY = {"helper", "math_op_patch", "api2"}
__all__ = []
for _m in pkgutil.iter_modules(__path__):
    if _m.name in _MACHINERY:
        continue
    _mod = importlib.import_module(f"{__name__}.{_m.name}")
    for _name, _obj in vars(_mod).items():
        if (inspect.isfunction(_obj) or inspect.isclass(_obj)) and not _name.startswith("_") \
                and _obj.__module__ == _mod.__name__:
            globals()[_name] = _obj
            __all__.append(_name)

from .math_op_patch import monkey_patch_variable  # noqa: E402

monkey_patch_variable()  # x + y, x.reshape(...): as Paddle patches its static Variable
