"""Per-run overhead: out = relu(x + 1) on 4 floats, numpy in, numpy out.

The kernel work is nothing, so what is timed is the dispatch: feed checks, plan lookup, the
kernel call, copying the fetch out. fluidc's target is under 20 microseconds median per
exe.run (Paddle's own Executor.run is about 250). Every competitor takes a numpy array and
hands back a numpy array, as exe.run does, and is checked against numpy before it is timed.
"""
from __future__ import annotations

import numpy as np

from .harness import Competitor, Skip, run_bench

TARGET_US = 20.0
X = np.array([-2.0, -0.5, 0.5, 2.0], dtype=np.float32)
EXPECTED = np.maximum(X + 1, 0)


def _checked(step, name: str):
    got = np.asarray(step()).reshape(-1)
    if not np.allclose(got, EXPECTED):
        raise AssertionError(f"{name} computed {got}, expected {EXPECTED}")
    return step


def _fluidc():
    import fluidc as fluid

    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = fluid.layers.data(name="x", shape=[4], dtype="float32", append_batch_size=False)
        out = fluid.layers.relu(fluid.layers.scale(x, scale=1.0, bias=1.0))
    exe = fluid.Executor(fluid.CPUPlace())
    scope = fluid.Scope()
    exe.run(startup, scope=scope)
    arr = X.copy()

    def step():
        return exe.run(main, feed={"x": arr}, fetch_list=[out], scope=scope)[0]

    return _checked(step, "fluidc")


def _numpy():
    arr = X.copy()
    return _checked(lambda: np.maximum(arr + 1, 0), "numpy")


def _noop():
    # The floor: what one Python-level call costs in this loop.
    def step():
        return EXPECTED
    return step


def _torch_eager():
    import torch

    arr = X.copy()
    return _checked(lambda: torch.relu(torch.from_numpy(arr) + 1).numpy(), "torch eager")


def _torch_compile():
    import torch

    fn = torch.compile(lambda t: torch.relu(t + 1))
    arr = X.copy()
    return _checked(lambda: fn(torch.from_numpy(arr)).numpy(), "torch.compile")


def _paddle_static():
    try:
        import paddle
    except ImportError as e:
        raise Skip(f"paddle not importable ({e})") from e
    paddle.enable_static()
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data(name="x", shape=[4], dtype="float32")
        out = paddle.nn.functional.relu(paddle.scale(x, scale=1.0, bias=1.0))
    exe = paddle.static.Executor(paddle.CPUPlace())
    exe.run(startup)  # the global scope: nothing here is persistable anyway
    arr = X.copy()

    def step():
        return exe.run(main, feed={"x": arr}, fetch_list=[out])[0]

    return _checked(step, "paddle static")


def competitors() -> list[Competitor]:
    """The overhead contenders, fluidc first (the ratio baseline)."""
    return [
        Competitor("fluidc", _fluidc, note=f"target < {TARGET_US:.0f} us"),
        Competitor("python noop", _noop, note="floor: one Python call"),
        Competitor("numpy", _numpy, note="np.maximum(x + 1, 0)"),
        Competitor("torch eager", _torch_eager, optional=True, note="from_numpy/.numpy() edges"),
        Competitor("torch.compile", _torch_compile, optional=True, note="inductor, CPU"),
        Competitor("paddle static", _paddle_static, optional=True),
    ]


def run(repeat: int | None = None, verbose: bool = True) -> list[dict]:
    """Run the overhead bench: `repeat` samples of 100 calls each per competitor."""
    # 200 samples x 100 calls = 20000 timed calls per competitor.
    rows = run_bench("overhead relu(x+1) [4]", competitors(), repeat=repeat or 200, number=100,
                     warmup=500, baseline="fluidc", verbose=verbose)
    for r in rows:
        if r["competitor"] == "fluidc" and r["median_us"] is not None:
            r["target_us"] = TARGET_US
            r["meets_target"] = r["median_us"] < TARGET_US
    return rows
