"""Dropout's keep masks drawn in C: a counter-based stream, one draw per element.

Element i of the mask keyed `key` is kept where its uniform draw u_i >= p, u_i being the low
(even i) or high (odd i) 32 bits of SplitMix64's output number i // 2 + 1 from state `key`,
over 2^32. Each draw depends on (key, i) only, so the loop vectorizes and splits over the
cores (the same mask on any number of threads): a mask of 2^19 bytes takes about a tenth of
torch.rand's Mersenne Twister and compare on one core, half that on two.
"""
from __future__ import annotations

import ctypes
import functools
import math

from .compiler import find_compiler, load_c

_GOLDEN = 0x9E3779B97F4A7C15
_MASK64 = (1 << 64) - 1

_SOURCE = r"""
#include <stdint.h>

static inline uint64_t mix(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

void keep_mask(uint8_t *restrict mask, int64_t n, uint64_t key, uint64_t threshold) {
    const int64_t pairs = n / 2;
#pragma omp parallel for simd schedule(static) if(pairs >= 65536)
    for (int64_t i = 0; i < pairs; i++) {
        const uint64_t h = mix(key + (uint64_t)(i + 1) * 0x9E3779B97F4A7C15ULL);
        mask[2 * i] = (h & 0xFFFFFFFFULL) >= threshold;
        mask[2 * i + 1] = (h >> 32) >= threshold;
    }
    if (n & 1) {
        const uint64_t h = mix(key + (uint64_t)(pairs + 1) * 0x9E3779B97F4A7C15ULL);
        mask[n - 1] = (h & 0xFFFFFFFFULL) >= threshold;
    }
}
"""


def available() -> bool:
    """Whether masks can be drawn here (a C compiler was found)."""
    return find_compiler() is not None


def mix(z: int) -> int:
    """SplitMix64's output function (the C's `mix`), on a Python int."""
    z &= _MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
    return z ^ (z >> 31)


def seed_key(seed: int) -> int:
    """The key of a fixed seed's masks."""
    return mix(int(seed) + _GOLDEN)


def keep_mask(address: int, n: int, key: int, prob: float) -> None:
    """Write the n-byte keep mask keyed `key` at `address`: 1 where the element's draw is at
    least `prob`, else 0."""
    threshold = min(math.ceil(float(prob) * 2.0**32), 2**32) if prob > 0 else 0
    _lib().keep_mask(ctypes.c_void_p(address), ctypes.c_int64(n), ctypes.c_uint64(key & _MASK64),
                     ctypes.c_uint64(threshold))


@functools.cache
def _lib() -> ctypes.CDLL:
    lib = load_c(_SOURCE)
    lib.keep_mask.restype = None
    return lib
