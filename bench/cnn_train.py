"""The small CNN: one Momentum training step and inference (the test clone), batch 32.

Model: img[-1, 3, 32, 32] -> conv2d 3x3 pad 1 (32 channels) + batch_norm + relu + max pool 2x2
-> conv2d 3x3 pad 1 (64 channels) + batch_norm + relu + max pool 2x2 -> flatten -> fc(10) ->
softmax_with_cross_entropy against int64 labels -> mean; Momentum(0.005, 0.9).

fluidc: the program written with the 1.x static API; a timed training call is one exe.run that
feeds the batch and fetches the loss as numpy, a timed inference call one exe.run of
`main.clone(for_test=True)` (taken before minimize; batch_norm on its running statistics)
fetching the logits. torch: the same layers from fluidc's initial weights (float32, NCHW
tensors as the user hands them), eager and torch.compile (training: the forward compiled,
backward through autograd, optim.SGD(momentum=0.9) eager, loss.item(); inference: the whole
forward compiled, under inference_mode, output as numpy). Before timing, `parity` trains both
from the same weights and compares the losses, and the inference outputs are compared.
"""
from __future__ import annotations

import numpy as np

from .harness import torch_or_skip
from .model_pair import ModelPair, torch_infer, torch_step

BATCH, SHAPE, CHANNELS, CLASSES = 32, (3, 32, 32), (32, 64), 10
LR, MOMENTUM, EPS = 0.005, 0.9, 1e-5  # larger rates diverge from the first steps
SEED = 2024
# fluidc's median / the competitor's, at most (same process, interleaved repeats).
TARGETS = {"train": {"torch eager": 0.8}, "infer": {"torch.compile": 0.9}}


def synthetic_data(seed: int = SEED) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    return {"img": rng.standard_normal((BATCH, *SHAPE), dtype=np.float32),
            "label": rng.integers(0, CLASSES, (BATCH, 1)).astype(np.int64)}


class FluidcCNN:
    """The training program and its test clone over one private scope."""

    def __init__(self, seed: int = 1) -> None:
        import fluidc as fluid
        L = fluid.layers
        main, startup = fluid.Program(), fluid.Program()
        main.random_seed = startup.random_seed = seed
        with fluid.unique_name.guard(), fluid.program_guard(main, startup):
            img = L.data(name="img", shape=list(SHAPE), dtype="float32")
            label = L.data(name="label", shape=[1], dtype="int64")
            h = img
            for ch in CHANNELS:
                h = L.conv2d(h, ch, 3, padding=1)
                h = L.pool2d(L.relu(L.batch_norm(h, epsilon=EPS)), 2, "max", 2)
            self.logits = L.fc(L.flatten(h, 1), CLASSES)
            self.loss = L.mean(L.softmax_with_cross_entropy(self.logits, label))
            self.test_program = main.clone(for_test=True)
            fluid.optimizer.Momentum(learning_rate=LR, momentum=MOMENTUM).minimize(self.loss)
        self.main = main
        self.exe, self.scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
        self.exe.run(startup, scope=self.scope)
        self.persistables = sorted(v.name for v in main.list_vars() if v.persistable)

    def state(self) -> dict[str, np.ndarray]:
        """Copies of the parameters and batch_norm's running statistics."""
        return {n: np.array(self.scope.find_var(n).get_tensor()) for n in self.persistables
                if self.scope.find_var(n) is not None and not n.startswith("learning_rate")
                and "velocity" not in n}

    def train_step(self, feed: dict[str, np.ndarray]) -> float:
        loss, = self.exe.run(self.main, feed=feed, fetch_list=[self.loss], scope=self.scope)
        return float(np.asarray(loss).reshape(-1)[0])

    def infer(self, x: np.ndarray) -> np.ndarray:
        out, = self.exe.run(self.test_program, feed={"img": x}, fetch_list=[self.logits],
                            scope=self.scope)
        return out


class TorchCNN:
    """The same CNN in torch, from fluidc's state (weights by fluidc's names)."""

    def __init__(self, state: dict[str, np.ndarray]) -> None:
        torch = torch_or_skip()
        self.p = p = {k: torch.tensor(v) for k, v in state.items()}
        for i in range(len(CHANNELS)):  # fluidc's conv bias may carry extra dims; torch's is [C]
            p[f"conv2d_{i}.b_0"] = p[f"conv2d_{i}.b_0"].reshape(-1)
        self.params = [p[f"{k}_{i}.{s}"] for i in range(len(CHANNELS)) for k, s in
                       (("conv2d", "w_0"), ("conv2d", "b_0"), ("batch_norm", "w_0"),
                        ("batch_norm", "b_0"))] + [p["fc_0.w_0"], p["fc_0.b_0"]]

    def forward(self, x, training: bool):
        F = torch_or_skip().nn.functional
        p, h = self.p, x
        for i in range(len(CHANNELS)):
            h = F.conv2d(h, p[f"conv2d_{i}.w_0"], p[f"conv2d_{i}.b_0"], padding=1)
            h = F.batch_norm(h, p[f"batch_norm_{i}.w_1"], p[f"batch_norm_{i}.w_2"],
                             p[f"batch_norm_{i}.w_0"], p[f"batch_norm_{i}.b_0"],
                             training=training, momentum=1 - MOMENTUM, eps=EPS)
            h = F.max_pool2d(F.relu(h), 2, 2)
        return h.flatten(1) @ p["fc_0.w_0"] + p["fc_0.b_0"]

    def train_step(self, feed: dict[str, np.ndarray], compile_: bool = False):
        """step() -> loss: one training step on `feed` (forward compiled if compile_)."""
        torch = torch_or_skip()
        for t in self.params:
            t.requires_grad_(True)
        opt = torch.optim.SGD(self.params, lr=LR, momentum=MOMENTUM)
        x, y = torch.from_numpy(feed["img"]), torch.from_numpy(feed["label"].reshape(-1))

        def loss_of(x, y):
            return torch.nn.functional.cross_entropy(self.forward(x, True), y)
        return torch_step(opt, loss_of, (x, y), compile_)

    def infer_fn(self, compile_: bool = False):
        """numpy batch -> numpy logits on the running statistics."""
        return torch_infer(lambda x: self.forward(x, False), compile_)


def _pair() -> ModelPair:
    return ModelPair("cnn", BATCH, FluidcCNN, TorchCNN, synthetic_data(),
                     synthetic_data(SEED + 1)["img"], torch_train_note="SGD momentum, loss.item()",
                     torch_compile_note="forward compiled, backward autograd, SGD eager",
                     fluidc_infer_note="test clone, fetch logits")


def parity(steps: int = 3) -> dict:
    """Train fluidc and torch eager from the same weights (losses per step), then compare the
    inference outputs on the trained running statistics."""
    return _pair().parity(steps)

def run(repeat: int | None = None, verbose: bool = True) -> list[dict]:
    """The training step and the inference benches; rows for both."""
    return _pair().run("CNN", TARGETS, repeat, verbose)
