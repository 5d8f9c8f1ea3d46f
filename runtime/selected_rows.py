"""fluid.core.SelectedRows: some rows of a [height, ...] tensor (their indices and values), as
Paddle's sparse gradients are held. fluidc's kernels never make one; it exists so
paddle.save / paddle.load can write and read Paddle's SelectedRows files."""
from __future__ import annotations

from .tensor import LoDTensor


class SelectedRows:
    """rows (int indices into a tensor of `height` rows) and the value tensor holding them."""

    def __init__(self, rows=None, height: int = 0) -> None:
        self._rows = self._checked_rows(rows if rows is not None else [])
        self._height = self._checked_height(height)
        self._value = LoDTensor()

    @staticmethod
    def _checked_rows(rows) -> list[int]:
        if not all(isinstance(r, int) and not isinstance(r, bool) for r in rows):
            raise TypeError(f"SelectedRows rows must be a list of ints, got {rows!r}")
        return list(rows)

    @staticmethod
    def _checked_height(height) -> int:
        if not isinstance(height, int) or isinstance(height, bool):
            raise TypeError(f"SelectedRows height must be an int, got {type(height).__name__}")
        return height

    def rows(self) -> list[int]:
        return list(self._rows)

    def set_rows(self, rows) -> None:
        self._rows = self._checked_rows(rows)

    def height(self) -> int:
        return self._height

    def set_height(self, height: int) -> None:
        self._height = self._checked_height(height)

    def get_tensor(self) -> LoDTensor:
        """The value tensor (shared: setting it sets the rows' values)."""
        return self._value

    def __repr__(self) -> str:
        return f"SelectedRows(rows={self._rows}, height={self._height}, value={self._value!r})"
