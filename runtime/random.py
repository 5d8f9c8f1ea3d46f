"""paddle.seed (the seed of the random numbers of ops that have no seed of their own) and the
random streams of stateful ops."""
from __future__ import annotations

import functools

from fluidc.frontend.lazy_import import torch

from ..codegen import c_random


def seed(value: int) -> torch.Generator:
    """Seed the generator random ops draw their seeds from when their plan is built (ops
    without a `seed` attribute in programs without a random_seed): the programs compiled after
    paddle.seed(n) draw the same numbers in every process. Returns that generator."""
    if isinstance(value, bool) or not isinstance(value, (int,)) and not hasattr(value, "__index__"):
        raise TypeError(f"paddle.seed takes an integer, got {type(value).__name__}")
    return torch.manual_seed(int(value))


def stream(device) -> torch.Generator:
    """A new random stream of a stateful op on `device`: a torch.Generator that also draws
    dropout's keep masks (keep_mask)."""
    return _stream_class()(device=device)


@functools.cache
def _stream_class() -> type:
    class RandomStream(torch.Generator):
        """A torch.Generator that draws dropout's keep masks on the CPU by codegen/c_random's
        counter-based stream (a key per mask from this stream, or from the op's fixed seed)."""

        def keep_mask(self, mask: torch.Tensor, prob: float, seed: int | None) -> bool:
            """Write the keep mask of one run (uint8, 1 where an element's uniform draw is at
            least prob) into `mask`; False (nothing written) where this stream cannot."""
            if mask.device.type != "cpu" or mask.dtype != torch.uint8 \
                    or not mask.is_contiguous() or not c_random.available():
                return False
            key = c_random.seed_key(seed) if seed is not None else \
                int(torch.randint(0, 2**62, (1,), generator=self).item())
            c_random.keep_mask(mask.data_ptr(), mask.numel(), key, prob)
            return True
    return RandomStream
