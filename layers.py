"""fluid.layers as a module of its own (`import fluidc.layers as layers`, `from fluidc.layers
import fc`): the frontend's layers re-exported, and each of their modules importable as
fluidc.layers.<name> (the same module object, so there is one definition of each layer)."""
import importlib
import pkgutil
import sys

from .frontend import layers as _layers
from .frontend.layers import *  # noqa: F401,F403
from .frontend.layers import __all__  # noqa: F401

for _m in pkgutil.iter_modules(_layers.__path__):
    _mod = importlib.import_module(f"{_layers.__name__}.{_m.name}")
    globals()[_m.name] = _mod
    sys.modules[f"{__name__}.{_m.name}"] = _mod


from fluidc.frontend.errors import missing_attribute as _missing_attribute  # noqa: E402

__getattr__ = _missing_attribute("fluidc.layers", globals())  # an unknown name: close names, not a bare error
