"""Dygraph: eager per-op overhead and an eager MLP training step, fluidc against torch eager.

Per op: z = x + y on [4] float32 tensors (the dispatch: layer checks, the op's shape inference,
the cached single-op plan's run). The step: a 784-256-10 MLP, batch 64, cross-entropy, Adam:
forward op by op, backward as one cached program, the update as the optimizer's program.
"""
from __future__ import annotations

import numpy as np

from .harness import Competitor, run_bench

RNG = np.random.default_rng(0)
X4 = RNG.standard_normal(4).astype("float32")
BATCH = RNG.standard_normal((64, 784)).astype("float32")
LABELS = RNG.integers(0, 10, (64, 1)).astype("int64")


def _fluidc_op():
    import fluidc as paddle
    paddle.disable_static()
    x, y = paddle.to_tensor(X4), paddle.to_tensor(X4)
    np.testing.assert_allclose((x + y).numpy(), X4 * 2)
    return lambda: x + y


def _torch_op():
    import torch
    x, y = torch.from_numpy(X4.copy()), torch.from_numpy(X4.copy())
    return lambda: x + y


def _fluidc_step():
    import fluidc as paddle
    paddle.disable_static()
    nn = paddle.nn
    net = nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 10))
    opt = paddle.optimizer.Adam(learning_rate=1e-3, parameters=net.parameters())
    loss_fn = nn.CrossEntropyLoss()
    x, y = paddle.to_tensor(BATCH), paddle.to_tensor(LABELS)

    def step():
        loss = loss_fn(net(x), y)
        loss.backward()
        opt.step()
        opt.clear_grad()
        return loss
    return step


def _torch_step():
    import torch
    net = torch.nn.Sequential(torch.nn.Linear(784, 256), torch.nn.ReLU(),
                              torch.nn.Linear(256, 10))
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    loss_fn = torch.nn.CrossEntropyLoss()
    x, y = torch.from_numpy(BATCH), torch.from_numpy(LABELS[:, 0])

    def step():
        loss = loss_fn(net(x), y)
        loss.backward()
        opt.step()
        opt.zero_grad()
        return loss
    return step


def run(repeat: int | None = None, verbose: bool = True) -> list[dict]:
    rows = run_bench("dygraph op x + y [4]", [
        Competitor("fluidc eager", _fluidc_op),
        Competitor("torch eager", _torch_op, optional=True)],
        repeat=repeat or 50, number=100, warmup=200, baseline="fluidc eager", verbose=verbose)
    rows += run_bench("dygraph MLP train step (784-256-10, b64, Adam)", [
        Competitor("fluidc eager", _fluidc_step),
        Competitor("torch eager", _torch_step, optional=True)],
        repeat=repeat or 30, number=5, warmup=5, baseline="fluidc eager", verbose=verbose)
    return rows
