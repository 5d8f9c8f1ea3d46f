"""LoDTensor: a torch tensor plus its level-of-detail offsets (lengths at the API)."""
from __future__ import annotations

import itertools
from collections.abc import Mapping

import numpy as np
from fluidc.frontend.lazy_import import torch

from ..frontend.dtypes import VarType, convert_dtype
from ..frontend.errors import FeedError, FluidcError
from .place import CPUPlace, CUDAPlace

class _OnFirstUse(Mapping):
    """A dict built when first read (its values are torch's: importing fluidc does not import
    torch)."""

    def __init__(self, build) -> None:
        self._build, self._dict = build, None

    def _get(self) -> dict:
        if self._dict is None:
            self._dict = self._build()
        return self._dict

    def __getitem__(self, key):
        return self._get()[key]

    def __iter__(self):
        return iter(self._get())

    def __len__(self) -> int:
        return len(self._get())


# bfloat16 is held as its bits (torch.uint16), so every numpy view of it is Paddle's uint16 and
# no torch arithmetic rounds it (torch's NaN is 0x7FC0, Paddle's 0x7FFF): ops compute it through
# passes/bfloat16.py.
TORCH_DTYPES = _OnFirstUse(lambda: {
    VarType.BOOL: torch.bool, VarType.UINT8: torch.uint8, VarType.INT8: torch.int8,
    VarType.INT16: torch.int16, VarType.INT32: torch.int32, VarType.INT64: torch.int64,
    VarType.FP16: torch.float16, VarType.BF16: torch.uint16, VarType.FP32: torch.float32,
    VarType.FP64: torch.float64, VarType.COMPLEX64: torch.complex64,
    VarType.COMPLEX128: torch.complex128,
})
_FROM_TORCH = _OnFirstUse(lambda: {v: k for k, v in TORCH_DTYPES.items()})
ITEMSIZE = _OnFirstUse(lambda: {vt: torch.empty(0, dtype=td).element_size()
                                for vt, td in TORCH_DTYPES.items()})


def torch_dtype(dtype) -> torch.dtype:
    """VarType (or any spelling) -> torch dtype."""
    return TORCH_DTYPES[convert_dtype(dtype)]


def to_torch(array: np.ndarray) -> torch.Tensor:
    """A torch tensor sharing memory with a contiguous numpy array."""
    return torch.from_numpy(np.ascontiguousarray(array))


class LoDTensor:
    """A tensor with optional LoD: offsets per level, as Paddle stores them."""

    def __init__(self, tensor: torch.Tensor | None = None, lod: list[list[int]] | None = None) -> None:
        self._t = tensor
        self._lod = [list(level) for level in (lod or [])]

    # -- data -------------------------------------------------------------------------------
    def set(self, array, place=None) -> None:
        """Copy `array` (numpy, list, or LoDTensor) in."""
        if isinstance(array, LoDTensor):
            self._t = array._t.clone()
            return
        arr = np.array(array, copy=True)
        if arr.dtype == np.float64 and not isinstance(array, np.ndarray):
            arr = arr.astype(np.float32)
        self._t = to_torch(arr)

    @property
    def tensor(self) -> torch.Tensor:
        """The underlying torch tensor (shared, not copied)."""
        if self._t is None:
            raise FluidcError("this LoDTensor holds no data yet")
        return self._t

    def _is_initialized(self) -> bool:
        return self._t is not None

    def shape(self) -> list[int]:
        return list(self.tensor.shape)

    def _place(self):
        """The place holding the data (Paddle's Tensor._place())."""
        device = self.tensor.device
        return CUDAPlace(device.index or 0) if device.type == "cuda" else CPUPlace()

    def _dtype(self) -> VarType:
        return _FROM_TORCH[self.tensor.dtype]

    def numpy(self) -> np.ndarray:
        """A numpy view of the data (CPU)."""
        return self.tensor.detach().cpu().numpy()

    def __array__(self, dtype=None, copy=None):
        # np.array(t) copies (numpy passes copy=True); np.asarray(t) may share memory.
        arr = self.numpy()
        if dtype is not None and arr.dtype != dtype:
            return arr.astype(dtype)
        return arr.copy() if copy else arr

    # -- LoD --------------------------------------------------------------------------------
    def lod(self) -> list[list[int]]:
        """Offsets per level."""
        return [list(level) for level in self._lod]

    def set_lod(self, lod: list[list[int]]) -> None:
        """Set offsets per level."""
        self._lod = [list(map(int, level)) for level in lod]

    def recursive_sequence_lengths(self) -> list[list[int]]:
        """Lengths per level."""
        return [[b - a for a, b in zip(level, level[1:])] for level in self._lod]

    def set_recursive_sequence_lengths(self, lengths: list[list[int]]) -> None:
        """Set lengths per level (stored as offsets). As Paddle, the levels must nest: none
        empty, no negative length, each level's sequences as many as the next level's."""
        lengths = [[int(n) for n in level] for level in lengths]
        for i, level in enumerate(lengths):
            below = len(lengths[i + 1]) if i + 1 < len(lengths) else None
            if not level or min(level) < 0 or below is not None and sum(level) != below:
                raise FeedError(f"set_recursive_sequence_lengths: {lengths} is not a valid LoD: "
                                f"level {i} {level} must be non-empty lengths >= 0"
                                + ("" if below is None else f" summing to {below}, the number "
                                   f"of sequences of level {i + 1}"))
        self._lod = [[0] + list(itertools.accumulate(level)) for level in lengths]

    def has_valid_recursive_sequence_lengths(self) -> bool:
        """Whether each level's offsets cover the next level (and the last covers the rows)."""
        if not self._lod:
            return True
        for upper, lower in zip(self._lod, self._lod[1:]):
            if upper[-1] != len(lower) - 1:
                return False
        for level in self._lod:
            if not level or level[0] != 0 or any(b < a for a, b in zip(level, level[1:])):
                return False
        return self._t is None or self._lod[-1][-1] == self._t.shape[0]

    def __repr__(self) -> str:
        return f"LoDTensor(shape={self.shape() if self._t is not None else None}, lod={self._lod})"
