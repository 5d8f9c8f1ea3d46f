"""Where the user's code called into fluidc: recorded on each op at creation (Paddle keeps it as
op_callstack) so errors about the op point at the user's line, not at fluidc's."""
from __future__ import annotations

import functools
import os
import sys

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Folders of the source tree whose programs are written as a user writes them.
_USER_FOLDERS = ("tests", "bench")


@functools.lru_cache(maxsize=1024)
def _is_fluidc(filename: str) -> bool:
    if filename.startswith("<"):  # "<stdin>", "<string>": code typed or exec'd by the user
        return False
    rel = os.path.relpath(os.path.abspath(filename), _PACKAGE_DIR)
    return not rel.startswith(os.pardir) and rel.split(os.sep, 1)[0] not in _USER_FOLDERS


def user_callsite() -> str | None:
    """'fc() at train.py:12': the first frame outside fluidc on the stack, and the fluidc
    function it called; None when the stack holds only fluidc."""
    frame = sys._getframe(1)
    api = None
    while frame is not None:
        code = frame.f_code
        if not _is_fluidc(code.co_filename):
            where = f"{code.co_filename}:{frame.f_lineno}"
            return f"{api}() at {where}" if api else where
        api = code.co_name
        frame = frame.f_back
    return None


def user_stacklevel() -> int:
    """warnings.warn's stacklevel for a warning its caller issues that points at the first
    frame outside fluidc (1 would be the caller itself)."""
    frame, level = sys._getframe(1), 1
    while frame is not None and _is_fluidc(frame.f_code.co_filename):
        frame, level = frame.f_back, level + 1
    return level
