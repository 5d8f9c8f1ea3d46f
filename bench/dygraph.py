"""Dygraph: eager per-op overhead and eager training steps, fluidc against torch eager.

Per op: z = x + y on [4] float32 tensors (the dispatch: the layer's checks, the signature
lookup, the cached single-op plan's run). The steps, forward op by op, backward as one cached
program, the update as the optimizer's program:
- MLP: 784-256-10, batch 64, cross-entropy, Adam; also with the forward through
  paddle.jit.to_static (one traced program, one tape node) against torch.compile's forward;
- transformer: the encoder block of bench/transformer.py (batch 8 x 128 x 256, 4 heads, FFN
  1024, dropout 0.1 on the attention weights, loss mean(out^2), Adam), written as an eager
  nn.Layer; torch runs transformer.TorchBlock from the same initial weights, eager and with
  its loss function through torch.compile.
fluidc's setup compiles its plans before the timed calls (FLUIDC_TIERED=0 while it warms up:
no timed call runs on tier 0 or waits for the compiler).
"""
from __future__ import annotations

import numpy as np

from .batch_sizes import _env
from .harness import Competitor, run_bench
from . import transformer as tb

RNG = np.random.default_rng(0)
X4 = RNG.standard_normal(4).astype("float32")
BATCH = RNG.standard_normal((64, 784)).astype("float32")
LABELS = RNG.integers(0, 10, (64, 1)).astype("int64")
WARM = 5  # steps fluidc's setup runs while plans compile


def _compiled(step):
    """step, after WARM calls that build and compile its plans."""
    with _env(FLUIDC_TIERED="0"):
        for _ in range(WARM):
            step()
    return step


def _fluidc_op():
    import fluidc as paddle
    paddle.disable_static()
    x, y = paddle.to_tensor(X4), paddle.to_tensor(X4)
    np.testing.assert_allclose((x + y).numpy(), X4 * 2)
    return _compiled(lambda: x + y)


def _torch_op():
    import torch
    x, y = torch.from_numpy(X4.copy()), torch.from_numpy(X4.copy())
    return lambda: x + y


def _train(paddle, net, loss_of):
    opt = paddle.optimizer.Adam(learning_rate=tb.LR, parameters=net.parameters())

    def step():
        loss = loss_of()
        loss.backward()
        opt.step()
        opt.clear_grad()
        return loss
    return _compiled(step)


def _fluidc_mlp(to_static: bool = False):
    import fluidc as paddle
    paddle.disable_static()
    nn = paddle.nn
    net = nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 10))
    if to_static:  # the forward one traced program, a node of the tape
        net = paddle.jit.to_static(net)
    loss_fn = nn.CrossEntropyLoss()
    x, y = paddle.to_tensor(BATCH), paddle.to_tensor(LABELS)
    return _train(paddle, net, lambda: loss_fn(net(x), y))


def _torch_mlp(compile_: bool = False):
    import torch
    net = torch.nn.Sequential(torch.nn.Linear(784, 256), torch.nn.ReLU(),
                              torch.nn.Linear(256, 10))
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    loss_fn = torch.nn.CrossEntropyLoss()
    x, y = torch.from_numpy(BATCH), torch.from_numpy(LABELS[:, 0])
    forward = torch.compile(net) if compile_ else net

    def step():
        loss = loss_fn(forward(x), y)
        loss.backward()
        opt.step()
        opt.zero_grad()
        return loss
    return step


def eager_block(paddle, dropout: float = tb.DROPOUT):
    """bench/transformer.py's block as an eager Layer; .state() gives its weights under the
    names transformer.TorchBlock reads (fc_0..fc_5, layer_norm_0..1)."""
    nn, F = paddle.nn, paddle.nn.functional
    d, dh = tb.D_MODEL, tb.D_MODEL // tb.HEADS

    class Block(nn.Layer):
        def __init__(self) -> None:
            super().__init__()
            self.fc = nn.LayerList([nn.Linear(d, d) for _ in range(4)] +
                                   [nn.Linear(d, tb.FFN), nn.Linear(tb.FFN, d)])
            self.ln = nn.LayerList([nn.LayerNorm(d, epsilon=tb.EPS) for _ in range(2)])

        def forward(self, x):
            def split(t):  # [b, s, d] -> [b, heads, s, dh]
                return paddle.transpose(paddle.reshape(t, [0, 0, tb.HEADS, dh]), [0, 2, 1, 3])

            q, k, v = (split(self.fc[i](x)) for i in range(3))
            scores = paddle.scale(paddle.matmul(q, k, transpose_y=True), scale=dh ** -0.5)
            att = F.dropout(F.softmax(scores), p=dropout, training=self.training)
            ctx = paddle.reshape(paddle.transpose(paddle.matmul(att, v), [0, 2, 1, 3]),
                                 [0, 0, d])
            h = self.ln[0](x + self.fc[3](ctx))
            return self.ln[1](h + self.fc[5](F.gelu(self.fc[4](h))))

        def state(self) -> dict[str, np.ndarray]:
            out = {}
            for i, fc in enumerate(self.fc):
                out[f"fc_{i}.w_0"], out[f"fc_{i}.b_0"] = fc.weight.numpy(), fc.bias.numpy()
            for i, ln in enumerate(self.ln):
                out[f"layer_norm_{i}.w_0"] = ln.weight.numpy()
                out[f"layer_norm_{i}.b_0"] = ln.bias.numpy()
            return out
    return Block()


_shared: dict = {}  # the transformer's initial weights, for torch's copy


def _fluidc_block(to_static: bool = False):
    import fluidc as paddle
    paddle.disable_static()
    paddle.seed(1)
    net = eager_block(paddle)
    _shared["state"] = net.state()
    if to_static:
        net = paddle.jit.to_static(net)
    x = paddle.to_tensor(tb.synthetic_data()["x"])
    return _train(paddle, net, lambda: paddle.mean(paddle.square(net(x))))


def _torch_block(compile_: bool = False):
    import fluidc as paddle
    if "state" not in _shared:
        paddle.disable_static()
        _shared["state"] = eager_block(paddle).state()
    return tb.TorchBlock(_shared["state"]).train_step(tb.synthetic_data(), compile_=compile_)


def parity(steps: int = 3) -> dict:
    """The eager block and torch's from the same weights, dropout off: losses per step."""
    import fluidc as paddle
    paddle.disable_static()
    net = eager_block(paddle, dropout=0.0)
    t_step = tb.TorchBlock(net.state(), dropout=0.0).train_step(tb.synthetic_data())
    x = paddle.to_tensor(tb.synthetic_data()["x"])
    opt = paddle.optimizer.Adam(learning_rate=tb.LR, parameters=net.parameters())
    fl = []
    for _ in range(steps):
        loss = paddle.mean(paddle.square(net(x)))
        loss.backward()
        opt.step()
        opt.clear_grad()
        fl.append(float(loss))
    tl = [float(t_step()) for _ in range(steps)]
    return {"fluidc_loss": fl, "torch_loss": tl,
            "max_abs_diff": max(abs(a - b) for a, b in zip(fl, tl))}


def run(repeat: int | None = None, verbose: bool = True) -> list[dict]:
    rows = run_bench("dygraph op x + y [4]", [
        Competitor("fluidc eager", _fluidc_op),
        Competitor("torch eager", _torch_op, optional=True)],
        repeat=repeat or 50, number=100, warmup=200, baseline="fluidc eager", verbose=verbose)
    rows += run_bench("dygraph MLP train step (784-256-10, b64, Adam)", [
        Competitor("fluidc eager", _fluidc_mlp),
        Competitor("fluidc to_static", lambda: _fluidc_mlp(to_static=True)),
        Competitor("torch eager", _torch_mlp, optional=True),
        Competitor("torch.compile", lambda: _torch_mlp(compile_=True), optional=True,
                   note="forward compiled, backward autograd, Adam eager")],
        repeat=repeat or 30, number=10, warmup=5, baseline="fluidc eager", verbose=verbose)
    if verbose:
        print(f"  [dygraph transformer] parity (dropout off, same weights): {parity()}")
    rows += run_bench(f"dygraph transformer block train step (b{tb.BATCH}, Adam)", [
        Competitor("fluidc eager", _fluidc_block),
        Competitor("fluidc to_static", lambda: _fluidc_block(to_static=True)),
        Competitor("torch eager", _torch_block, optional=True),
        Competitor("torch.compile", lambda: _torch_block(compile_=True), optional=True,
                   note="loss function compiled, backward autograd, Adam eager")],
        repeat=repeat or 10, number=1, warmup=2, baseline="fluidc eager", verbose=verbose)
    return rows
