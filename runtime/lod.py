"""create_lod_tensor and friends: LoDTensors from numpy, nested lists or other LoDTensors."""
from __future__ import annotations

import numpy as np

from ..frontend.errors import FeedError
from .tensor import LoDTensor


class LoDLengthError(FeedError, AssertionError):
    """Sequences whose lengths are not the last level of recursive_seq_lens (Paddle asserts)."""


def _check_levels(recursive_seq_lens) -> None:
    """recursive_seq_lens must be a list of levels, each a list of lengths."""
    ok = isinstance(recursive_seq_lens, (list, tuple)) and all(
        isinstance(level, (list, tuple)) and all(
            isinstance(n, (int, np.integer)) and not isinstance(n, bool) and n >= 0
            for n in level) for level in recursive_seq_lens)
    if not ok:
        raise TypeError(f"create_lod_tensor: recursive_seq_lens must be a list of levels, each a "
                        f"list of non-negative lengths such as [[2, 3]], got {recursive_seq_lens!r}")


def create_lod_tensor(data, recursive_seq_lens, place=None) -> LoDTensor:
    """A LoDTensor of `data` (numpy, a list of sequences, or a LoDTensor) with lengths per level.

    A list of sequences (e.g. word ids) becomes an int64 [N, 1] tensor; its sequence lengths
    must match the last level of recursive_seq_lens.
    """
    _check_levels(recursive_seq_lens)
    if isinstance(data, LoDTensor):
        return create_lod_tensor(np.array(data), recursive_seq_lens, place)
    if isinstance(data, list):
        got = [len(seq) for seq in data]
        if not recursive_seq_lens or got != [int(n) for n in recursive_seq_lens[-1]]:
            raise LoDLengthError(f"create_lod_tensor: the sequences have lengths {got}, but the last "
                            f"level of recursive_seq_lens is "
                            f"{list(recursive_seq_lens[-1]) if recursive_seq_lens else []}")
        flat = np.concatenate([np.asarray(seq, dtype=np.int64).reshape(-1) for seq in data]) \
            if data else np.zeros(0, np.int64)
        return create_lod_tensor(flat.reshape(-1, 1), recursive_seq_lens, place)
    if not isinstance(data, np.ndarray):
        raise TypeError(f"create_lod_tensor takes a numpy array, a list of sequences or a "
                        f"LoDTensor, got {type(data).__name__}")
    t = LoDTensor()
    t.set(data, place)
    t.set_recursive_sequence_lengths(recursive_seq_lens)
    if not t.has_valid_recursive_sequence_lengths():
        raise FeedError(f"create_lod_tensor: recursive_seq_lens {list(map(list, recursive_seq_lens))}"
                        f" do not cover data of shape {list(data.shape)}: each level must sum to "
                        f"the number of entries of the next, the last to the number of rows")
    return t


def create_random_int_lodtensor(recursive_seq_lens, base_shape, place=None, low: int = 0,
                                high: int = 1) -> LoDTensor:
    """A LoDTensor of random int64 in [low, high], rows = the sum of the last level's lengths."""
    rows = int(sum(recursive_seq_lens[-1])) if recursive_seq_lens else 0
    data = np.random.randint(low, high + 1, size=[rows] + list(base_shape)).astype(np.int64)
    return create_lod_tensor(data, recursive_seq_lens, place)
