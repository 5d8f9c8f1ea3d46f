"""fluid.transpiler: the distributed transpiler and its placement policies."""
from .distributed.transpiler import (DistributeTranspiler, DistributeTranspilerConfig,  # noqa: F401
                                     HashName, PSDispatcher, RoundRobin)
from .passes.memory import memory_optimize  # noqa: F401  (fluid.transpiler.memory_optimize)

__all__ = ["DistributeTranspiler", "DistributeTranspilerConfig", "HashName", "PSDispatcher",
           "RoundRobin", "memory_optimize"]
