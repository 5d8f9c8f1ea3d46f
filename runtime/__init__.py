"""Runtime: Executor, Scope, places, LoDTensor."""
from .executor import Executor
from .place import CPUPlace, CUDAPinnedPlace, CUDAPlace
from .scope import Scope, global_scope, scope_guard
from .tensor import LoDTensor

__all__ = ["Executor", "CPUPlace", "CUDAPinnedPlace", "CUDAPlace", "Scope", "global_scope",
           "scope_guard", "LoDTensor"]
