"""Paddle's unique_name: per-key counters ('fc' -> fc_0, fc_1), guards that reset them."""
from __future__ import annotations

import contextlib
import threading
from collections import defaultdict
from typing import Iterator


class UniqueNameGenerator:
    """Hands out key_0, key_1, ... per key, each name prefixed by `prefix`."""

    def __init__(self, prefix: str = "") -> None:
        self.ids: dict[str, int] = defaultdict(int)
        self.prefix = prefix

    def __call__(self, key: str) -> str:
        n = self.ids[key]
        self.ids[key] += 1
        return f"{self.prefix}{key}_{n}"


_state = threading.local()


def _generator() -> UniqueNameGenerator:
    if not hasattr(_state, "gen"):
        _state.gen = UniqueNameGenerator()
    return _state.gen


def generate(key: str) -> str:
    """The next unique name for `key`: key_0, key_1, ..."""
    return _generator()(key)


def generate_with_ignorable_key(key: str) -> str:
    """Same as generate (Paddle distinguishes these only for its dygraph mode)."""
    return _generator()(key)


def switch(new_generator: UniqueNameGenerator | None = None) -> UniqueNameGenerator:
    """Install a new generator and return the old one."""
    old = _generator()
    _state.gen = new_generator if new_generator is not None else UniqueNameGenerator()
    return old


@contextlib.contextmanager
def guard(new_generator: str | UniqueNameGenerator | None = None) -> Iterator[None]:
    """Names generated inside start afresh (a str argument becomes their prefix)."""
    if isinstance(new_generator, str):
        new_generator = UniqueNameGenerator(new_generator)
    old = switch(new_generator)
    try:
        yield
    finally:
        switch(old)
