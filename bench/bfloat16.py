"""bfloat16 against float32: out = tanh(x * y + z) - x through exe.run, on 1K and 1M elements.

fluidc computes bfloat16 ops in float32 and rounds each result (passes/bfloat16.py): the C
kernels load the bits, convert, compute and convert back, so the bfloat16 program should cost
about the float32 one (half the bytes moved, the conversions added). Competitors: fluidc
(bfloat16), fluidc float32 (the same program in float32) and torch eager in bfloat16 (its own
rounding, not Paddle's; a reference point for the time only).
"""
from __future__ import annotations

import numpy as np

from .harness import Competitor, run_bench

SIZES = (1024, 1 << 20)


def _program(paddle, n: int, dtype: str):
    main = paddle.static.Program()
    with paddle.static.program_guard(main, paddle.static.Program()):
        x, y, z = (paddle.static.data(name, [n], dtype) for name in "xyz")
        out = paddle.tanh(x * y + z) - x
    return main, out


def _fluidc(n: int, dtype: str):
    def setup():
        import fluidc as paddle
        from fluidc.frontend.bfloat16 import to_bfloat16
        paddle.enable_static()
        main, out = _program(paddle, n, dtype)
        rng = np.random.default_rng(0)
        feed = {name: rng.standard_normal(n).astype(np.float32) for name in "xyz"}
        if dtype == "bfloat16":
            feed = {name: to_bfloat16(v) for name, v in feed.items()}
        exe = paddle.static.Executor(paddle.CPUPlace())
        return lambda: exe.run(main, feed=feed, fetch_list=[out])
    return setup


def _torch(n: int):
    def setup():
        import torch
        g = torch.Generator().manual_seed(0)
        x, y, z = (torch.randn(n, generator=g).to(torch.bfloat16) for _ in range(3))
        return lambda: (torch.tanh(x * y + z) - x).view(torch.int16).numpy()
    return setup


def run(repeat: int | None, verbose: bool) -> list[dict]:
    rows = []
    for n in SIZES:
        rows += run_bench(f"bfloat16 tanh(x*y+z)-x [{n}]",
                          [Competitor("fluidc", _fluidc(n, "bfloat16")),
                           Competitor("fluidc float32", _fluidc(n, "float32")),
                           Competitor("torch eager bf16", _torch(n), optional=True)],
                          repeat=repeat or 30, verbose=verbose)
    return rows
