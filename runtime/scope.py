"""Scope: hierarchical name -> var holder; the executor reads and writes persistables here."""
from __future__ import annotations

import contextlib
from typing import Iterator

from .tensor import LoDTensor


class ScopeVar:
    """A named slot of a scope holding one LoDTensor."""

    def __init__(self, scope: "Scope", name: str) -> None:
        self._scope = scope
        self.name = name
        self._tensor = LoDTensor()
        self._other = None  # a tensor array (list of LoDTensors) or a rank table held here

    def get_tensor(self) -> LoDTensor:
        """The tensor held here (the same object each time)."""
        return self._tensor

    def set_tensor(self, tensor: LoDTensor) -> None:
        self._tensor = tensor

    def is_initialized(self) -> bool:
        return self._tensor._is_initialized()

    def get_lod_tensor_array(self) -> list[LoDTensor]:
        """The tensor array held here (a run leaves a persistable array's last value)."""
        if not isinstance(self._other, list):
            raise TypeError(f"var '{self.name}' holds no tensor array")
        return self._other

    def get_lod_rank_table(self):
        """The rank table held here (a run leaves a persistable lod_rank_table's value)."""
        if self._other is None or isinstance(self._other, list):
            raise TypeError(f"var '{self.name}' holds no rank table")
        return self._other


class Scope:
    """Vars by name; lookups fall back to the parent scope."""

    def __init__(self, parent: "Scope | None" = None) -> None:
        self._vars: dict[str, ScopeVar] = {}
        self._parent = parent
        self._kids: list[Scope] = []

    def var(self, name: str) -> ScopeVar:
        """The var called `name` here, created if missing."""
        v = self.find_var(name)
        if v is None:
            v = ScopeVar(self, name)
            self._vars[name] = v
        return v

    def find_var(self, name: str) -> ScopeVar | None:
        """The var called `name` here or in an ancestor, or None."""
        scope: Scope | None = self
        while scope is not None:
            v = scope._vars.get(name)
            if v is not None:
                return v
            scope = scope._parent
        return None

    def find_local_var(self, name: str) -> ScopeVar | None:
        return self._vars.get(name)

    def erase(self, names) -> None:
        for n in names:
            self._vars.pop(n, None)

    def local_var_names(self) -> list[str]:
        return list(self._vars)

    def new_scope(self) -> "Scope":
        kid = Scope(self)
        self._kids.append(kid)
        return kid

    def drop_kids(self) -> None:
        self._kids.clear()


_global_scope = Scope()
_current_scope = _global_scope


def global_scope() -> Scope:
    """The scope executors use unless given one (or inside a scope_guard)."""
    return _current_scope


@contextlib.contextmanager
def scope_guard(scope: Scope) -> Iterator[None]:
    """Make `scope` the global scope inside the block."""
    global _current_scope
    old, _current_scope = _current_scope, scope
    try:
        yield
    finally:
        _current_scope = old
