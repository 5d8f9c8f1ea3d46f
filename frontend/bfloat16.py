"""bfloat16 values as Paddle holds them: the upper 16 bits of a float32, seen by numpy as uint16
(Paddle has no uint16 dtype, so a uint16 array is always bfloat16's bits).

Conversions are Paddle 3.3.1's CPU cast kernel's, bit for bit: to bfloat16 through float32
(other dtypes become float32 first), rounding to nearest even, every NaN to 0x7FFF, subnormals
kept; from bfloat16 exactly (the bits shifted up into a float32)."""
from __future__ import annotations

import numpy as np

BITS = np.dtype(np.uint16)  # the numpy dtype of a bfloat16 value
NAN = np.uint16(0x7FFF)  # Paddle's NaN (torch's and Eigen's 0x7FC0 differ)


def to_bfloat16(values) -> np.ndarray:
    """The bfloat16 bits (uint16) of `values` (any real dtype): made float32, then rounded to
    nearest even."""
    with np.errstate(over="ignore", invalid="ignore"):  # float64 overflows to inf, as Paddle's;
        f = np.asarray(values).astype(np.float32)   # a NaN's bits may wrap: replaced below
        bits = np.ascontiguousarray(f).view(np.uint32)
        rounded = (bits + np.uint32(0x7FFF) + ((bits >> np.uint32(16)) & np.uint32(1)))
    out = (rounded >> np.uint32(16)).astype(np.uint16)
    return np.where(np.isnan(f), NAN, out).reshape(f.shape)


def from_bfloat16(bits) -> np.ndarray:
    """The float32 values of bfloat16 bits (exact)."""
    b = np.asarray(bits, dtype=BITS)
    wide = np.ascontiguousarray(b, dtype=np.uint32) << np.uint32(16)
    return wide.view(np.float32).reshape(b.shape)


def cast(values, dtype) -> np.ndarray:
    """numpy's astype where either side may be bfloat16 (BITS): through float32."""
    a, dtype = np.asarray(values), np.dtype(dtype)
    if a.dtype == BITS:
        if dtype == BITS:
            return a.copy()
        a = from_bfloat16(a)
    elif dtype == BITS:
        return to_bfloat16(a)
    with np.errstate(invalid="ignore"):
        return a.astype(dtype)
