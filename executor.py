"""fluid.executor: the Executor and the scopes it runs in (re-exports)."""
from .runtime.executor import Executor
from .runtime.scope import Scope, global_scope, scope_guard

__all__ = ["Executor", "Scope", "global_scope", "scope_guard"]
