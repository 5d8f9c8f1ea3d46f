"""One post-LN transformer encoder block: an Adam training step and inference (the test clone).

Model (issue 13's goal): x[-1, 128, 256] (batch 8) -> 4-head self-attention (q, k, v and the
output projection as fc layers; heads split by reshape + transpose; scores q k^T / sqrt(64),
softmax, dropout 0.1 on the attention weights, context att v merged back by transpose +
reshape) -> residual + layer_norm -> feed-forward fc(1024) + gelu + fc(256) -> residual +
layer_norm; loss = mean(out^2); Adam(1e-3).

fluidc: the program written with the 2.x static API as a Paddle user writes it
(paddle.static.nn.fc / paddle.matmul / F.softmax / F.dropout / F.gelu /
paddle.static.nn.layer_norm); a timed training call is one exe.run feeding the batch and
fetching the loss as numpy, a timed inference call one exe.run of `main.clone(for_test=True)`
(taken before minimize: dropout is the identity) fetching the block's output. torch: the same
block from fluidc's initial weights, eager and torch.compile (training: the loss function
compiled, backward through autograd, optim.Adam eager, loss.item(); inference: the forward
compiled, under inference_mode, output as numpy). Before timing, `parity` trains both from the
same weights with dropout off (random masks differ between the two) and compares the losses,
and the inference outputs are compared.
"""
from __future__ import annotations

import numpy as np

from .harness import torch_or_skip
from .model_pair import ModelPair, torch_infer, torch_step

BATCH, SEQ, D_MODEL, HEADS, FFN = 8, 128, 256, 4, 1024
DROPOUT, LR, EPS = 0.1, 1e-3, 1e-5
SEED = 2024
# fluidc's median / the competitor's, at most (same process, interleaved repeats).
TARGETS = {"train": {"torch eager": 0.8}, "infer": {"torch.compile": 0.9}}


def synthetic_data(seed: int = SEED) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    return {"x": rng.standard_normal((BATCH, SEQ, D_MODEL), dtype=np.float32)}


def build_block(paddle, x, dropout: float):
    """The encoder block over x [b, SEQ, D_MODEL] with fluidc's (Paddle's) 2.x static API."""
    F, nn = paddle.nn.functional, paddle.static.nn
    dh = D_MODEL // HEADS

    def split(t):  # [b, s, d] -> [b, heads, s, dh]
        return paddle.transpose(paddle.reshape(t, [0, 0, HEADS, dh]), [0, 2, 1, 3])

    q, k, v = (split(nn.fc(x, D_MODEL, num_flatten_dims=2)) for _ in range(3))
    scores = paddle.scale(paddle.matmul(q, k, transpose_y=True), scale=dh ** -0.5)
    att = F.dropout(F.softmax(scores), p=dropout)
    ctx = paddle.reshape(paddle.transpose(paddle.matmul(att, v), [0, 2, 1, 3]), [0, 0, D_MODEL])
    h = nn.layer_norm(x + nn.fc(ctx, D_MODEL, num_flatten_dims=2), begin_norm_axis=2,
                      epsilon=EPS)
    ffn = nn.fc(F.gelu(nn.fc(h, FFN, num_flatten_dims=2)), D_MODEL, num_flatten_dims=2)
    return nn.layer_norm(h + ffn, begin_norm_axis=2, epsilon=EPS)


class FluidcBlock:
    """The training program and its test clone over one private scope."""

    def __init__(self, dropout: float = DROPOUT, seed: int = 1) -> None:
        import fluidc as paddle
        paddle.enable_static()
        main, startup = paddle.static.Program(), paddle.static.Program()
        main.random_seed = startup.random_seed = seed
        with paddle.unique_name.guard(), paddle.static.program_guard(main, startup):
            x = paddle.static.data(name="x", shape=[-1, SEQ, D_MODEL], dtype="float32")
            self.out = build_block(paddle, x, dropout)
            self.loss = paddle.mean(paddle.square(self.out))
            self.test_program = main.clone(for_test=True)
            paddle.optimizer.Adam(learning_rate=LR).minimize(self.loss)
        self.main = main
        self.params = [p.name for p in main.global_block().all_parameters()]
        self.exe, self.scope = paddle.static.Executor(paddle.CPUPlace()), paddle.static.Scope()
        self.exe.run(startup, scope=self.scope)

    def state(self) -> dict[str, np.ndarray]:
        """Copies of the parameters, by name."""
        return {n: np.array(self.scope.find_var(n).get_tensor()) for n in self.params}

    def train_step(self, feed: dict[str, np.ndarray]) -> float:
        loss, = self.exe.run(self.main, feed=feed, fetch_list=[self.loss], scope=self.scope)
        return float(np.asarray(loss).reshape(-1)[0])

    def infer(self, x: np.ndarray) -> np.ndarray:
        out, = self.exe.run(self.test_program, feed={"x": x}, fetch_list=[self.out],
                            scope=self.scope)
        return out


class TorchBlock:
    """The same block in torch, from fluidc's parameters (names fc_0..fc_5, layer_norm_0..1)."""

    def __init__(self, state: dict[str, np.ndarray], dropout: float = DROPOUT) -> None:
        torch = torch_or_skip()
        self.p = {k: torch.tensor(v) for k, v in state.items()}
        self.dropout = dropout

    def forward(self, x, training: bool):
        F = torch_or_skip().nn.functional
        p, (b, s, d) = self.p, x.shape

        def fc(t, i):
            return t @ p[f"fc_{i}.w_0"] + p[f"fc_{i}.b_0"]

        def ln(t, i):
            return F.layer_norm(t, (d,), p[f"layer_norm_{i}.w_0"], p[f"layer_norm_{i}.b_0"], EPS)

        def split(t):
            return t.reshape(b, s, HEADS, d // HEADS).transpose(1, 2)

        q, k, v = (split(fc(x, i)) for i in range(3))
        att = torch_or_skip().softmax(q @ k.transpose(-1, -2) * (d // HEADS) ** -0.5, -1)
        att = F.dropout(att, self.dropout, training=training)
        ctx = (att @ v).transpose(1, 2).reshape(b, s, d)
        h = ln(x + fc(ctx, 3), 0)
        return ln(h + fc(F.gelu(fc(h, 4)), 5), 1)

    def train_step(self, feed: dict[str, np.ndarray], compile_: bool = False):
        """step() -> loss: one Adam step on `feed` (the loss function compiled if compile_)."""
        torch = torch_or_skip()
        params = list(self.p.values())
        for t in params:
            t.requires_grad_(True)
        opt = torch.optim.Adam(params, lr=LR)
        x = torch.from_numpy(feed["x"])

        def loss_of(x):
            return self.forward(x, True).square().mean()
        return torch_step(opt, loss_of, (x,), compile_)

    def infer_fn(self, compile_: bool = False):
        """numpy batch -> numpy block output (dropout off)."""
        return torch_infer(lambda x: self.forward(x, False), compile_)


def _pair() -> ModelPair:
    return ModelPair("transformer", BATCH, FluidcBlock, TorchBlock, synthetic_data(),
                     synthetic_data(SEED + 1)["x"], torch_train_note="Adam, loss.item()",
                     torch_compile_note="loss compiled, backward autograd, Adam eager",
                     fluidc_infer_note="test clone, fetch output")


def parity(steps: int = 3) -> dict:
    """Train fluidc and torch eager from the same weights with dropout off (losses per step),
    then compare the inference outputs on the trained weights."""
    return _pair().parity(steps, fluidc_model=lambda: FluidcBlock(dropout=0.0),
                          torch_model=lambda state: TorchBlock(state, dropout=0.0))

def run(repeat: int | None = None, verbose: bool = True) -> list[dict]:
    """The training step and the inference benches; rows for both."""
    return _pair().run("transformer", TARGETS, repeat, verbose)
