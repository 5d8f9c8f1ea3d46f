"""Modules imported when first used: `import fluidc` (and `fluidc --help`) does not pay for
torch until a program runs a library call or builds a tensor."""
from __future__ import annotations

import importlib
import types


class LazyModule(types.ModuleType):
    """Stands for the module `name`; the first attribute read imports it and copies its
    namespace in, so later reads are plain attribute lookups."""

    def __getattr__(self, attr: str):
        if attr.startswith("__") and attr.endswith("__"):
            raise AttributeError(attr)  # copy/pickle/inspect probing: not a reason to import
        module = importlib.import_module(self.__name__)
        self.__dict__.update(module.__dict__)
        return getattr(module, attr)

    def __repr__(self) -> str:
        return f"<lazy module {self.__name__!r}>"


torch = LazyModule("torch")
torch_functional = LazyModule("torch.nn.functional")
