"""paddle.seed: the seed of the random numbers of ops that have no seed of their own."""
from __future__ import annotations

from fluidc.frontend.lazy_import import torch


def seed(value: int) -> torch.Generator:
    """Seed the generator random ops draw their seeds from when their plan is built (ops
    without a `seed` attribute in programs without a random_seed): the programs compiled after
    paddle.seed(n) draw the same numbers in every process. Returns that generator."""
    if isinstance(value, bool) or not isinstance(value, (int,)) and not hasattr(value, "__index__"):
        raise TypeError(f"paddle.seed takes an integer, got {type(value).__name__}")
    return torch.manual_seed(int(value))
