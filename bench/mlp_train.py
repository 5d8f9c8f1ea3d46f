"""MLP 784-512-512-10: one Adam training step (batch 256) and forward-only inference (batch 64).

fluidc: fc/relu/fc/relu/fc, softmax_with_cross_entropy, mean, Adam(lr=1e-3); each timed call
is one exe.run that feeds the batch and fetches the loss as numpy. torch: the same layers
(nn.Linear, F.cross_entropy, torch.optim.Adam, float32), starting from fluidc's initial
weights so the two compute the same thing; the step ends with loss.item(). Before timing,
a parity check runs a few steps of both from the same weights and records how far the losses
drift apart (a sanity check, not a test).
"""
from __future__ import annotations

import numpy as np

from .harness import Competitor, add_ratio_targets, run_bench, torch_or_skip

SIZES = (784, 512, 512, 10)
TRAIN_BATCH = 256
INFER_BATCH = 64
LR = 1e-3
SEED = 2024


def synthetic_data(batch: int, seed: int = SEED) -> tuple[np.ndarray, np.ndarray]:
    """A fixed random batch: images (batch, 784) float32, labels (batch, 1) int64."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((batch, SIZES[0]), dtype=np.float32)
    y = rng.integers(0, SIZES[-1], (batch, 1)).astype(np.int64)
    return x, y


class FluidcMLP:
    """The fluidc side: train and test programs over one private scope."""

    def __init__(self, seed: int = 1, generated_products: bool = True) -> None:
        import fluidc as fluid

        self.fluid = fluid
        main, startup = fluid.Program(), fluid.Program()
        main.random_seed = startup.random_seed = seed
        with fluid.program_guard(main, startup):
            img = fluid.layers.data(name="img", shape=[SIZES[0]], dtype="float32")
            label = fluid.layers.data(name="label", shape=[1], dtype="int64")
            h = img
            for width in SIZES[1:-1]:
                h = fluid.layers.fc(h, width, act="relu")
            logits = fluid.layers.fc(h, SIZES[-1])
            loss = fluid.layers.mean(fluid.layers.softmax_with_cross_entropy(logits, label))
            self.test_program = main.clone(for_test=True)
            fluid.optimizer.Adam(learning_rate=LR).minimize(loss)
        self.main, self.loss, self.logits = main, loss, logits
        if not generated_products:  # matrix products as library calls (torch), for comparison
            strategy = fluid.BuildStrategy()
            strategy.fuse_gemm_epilogue = False
            self.main = fluid.CompiledProgram(main, build_strategy=strategy)
            self.test_program = fluid.CompiledProgram(self.test_program, build_strategy=strategy)
        self.params = [p.name for p in main.global_block().all_parameters()]
        self.exe = fluid.Executor(fluid.CPUPlace())
        self.scope = fluid.Scope()
        self.exe.run(startup, scope=self.scope)

    def weights(self) -> list[np.ndarray]:
        """Copies of the parameters in layer order: w0, b0, w1, b1, ... (w is [in, out])."""
        return [np.array(self.scope.find_var(n).get_tensor()) for n in self.params]

    def train_step(self, x: np.ndarray, y: np.ndarray) -> float:
        loss, = self.exe.run(self.main, feed={"img": x, "label": y}, fetch_list=[self.loss],
                             scope=self.scope)
        return float(np.asarray(loss).reshape(-1)[0])

    def infer(self, x: np.ndarray) -> np.ndarray:
        out, = self.exe.run(self.test_program, feed={"img": x}, fetch_list=[self.logits],
                            scope=self.scope)
        return out


def torch_mlp(weights: list[np.ndarray]):
    """nn.Sequential of the same MLP, loaded with fluidc's weights (transposed to [out, in])."""
    torch = torch_or_skip()
    layers = []
    for i, (n_in, n_out) in enumerate(zip(SIZES[:-1], SIZES[1:])):
        lin = torch.nn.Linear(n_in, n_out)
        with torch.no_grad():
            lin.weight.copy_(torch.from_numpy(weights[2 * i].T.copy()))
            lin.bias.copy_(torch.from_numpy(weights[2 * i + 1].reshape(-1).copy()))
        layers += [lin, torch.nn.ReLU()]
    return torch.nn.Sequential(*layers[:-1])


def _torch_train_step(model, x: np.ndarray, y: np.ndarray):
    torch = torch_or_skip()
    opt = torch.optim.Adam(model.parameters(), lr=LR)
    xt, yt = torch.from_numpy(x), torch.from_numpy(y.reshape(-1))
    loss_fn = torch.nn.functional.cross_entropy

    def step() -> float:
        opt.zero_grad(set_to_none=True)
        loss = loss_fn(model(xt), yt)
        loss.backward()
        opt.step()
        return loss.item()

    return step


def parity(steps: int = 3) -> dict:
    """Train fluidc and torch eager from the same weights; report the loss gap per step."""
    x, y = synthetic_data(TRAIN_BATCH)
    f = FluidcMLP()
    t_step = _torch_train_step(torch_mlp(f.weights()), x, y)
    fl = [f.train_step(x, y) for _ in range(steps)]
    tl = [t_step() for _ in range(steps)]
    return {"fluidc_loss": fl, "torch_loss": tl,
            "max_abs_diff": float(max(abs(a - b) for a, b in zip(fl, tl)))}


def _train_competitors() -> list[Competitor]:
    x, y = synthetic_data(TRAIN_BATCH)

    def fluidc(generated: bool):
        def setup():
            f = FluidcMLP(generated_products=generated)
            return lambda: f.train_step(x, y)
        return setup

    def eager():
        return _torch_train_step(torch_mlp(FluidcMLP().weights()), x, y)

    def compiled():
        torch = torch_or_skip()
        return _torch_train_step(torch.compile(torch_mlp(FluidcMLP().weights())), x, y)

    return [
        Competitor("fluidc", fluidc(True), note="exe.run, fetch loss"),
        Competitor("fluidc library mm", fluidc(False), note="fuse_gemm_epilogue off: torch mm"),
        Competitor("torch eager", eager, optional=True, note="optim.Adam, loss.item()"),
        Competitor("torch.compile", compiled, optional=True,
                   note="model compiled, Adam step eager"),
    ]


def _infer_competitors() -> list[Competitor]:
    x, _ = synthetic_data(INFER_BATCH, seed=SEED + 1)

    def fluidc(generated: bool):
        def setup():
            f = FluidcMLP(generated_products=generated)
            return lambda: f.infer(x)
        return setup

    def torch_infer(compile_: bool):
        def setup():
            torch = torch_or_skip()
            model = torch_mlp(FluidcMLP().weights()).eval()
            if compile_:
                model = torch.compile(model)
            xt = torch.from_numpy(x)

            def step():
                with torch.inference_mode():
                    return model(xt).numpy()
            return step
        return setup

    return [
        Competitor("fluidc", fluidc(True), note="test program, fetch logits"),
        Competitor("fluidc library mm", fluidc(False), note="fuse_gemm_epilogue off: addmm"),
        Competitor("torch eager", torch_infer(False), optional=True, note="inference_mode"),
        Competitor("torch.compile", torch_infer(True), optional=True, note="inference_mode"),
    ]


# Targets: fluidc's time / a competitor's, at most (medians, same process, interleaved).
TARGETS = {"train": {"torch eager": 0.9, "torch.compile": 1.0}, "infer": {"torch eager": 0.8}}


def run(repeat: int | None = None, verbose: bool = True) -> list[dict]:
    """Run the training-step and inference benches; rows for both."""
    train = run_bench(f"mlp train step b{TRAIN_BATCH}", _train_competitors(),
                      repeat=repeat or 50, number=1, warmup=3, baseline="fluidc", verbose=verbose)
    infer = run_bench(f"mlp inference b{INFER_BATCH}", _infer_competitors(),
                      repeat=repeat or 60, number=5, warmup=5, baseline="fluidc", verbose=verbose)
    add_ratio_targets(train, "MLP train", TARGETS["train"])
    add_ratio_targets(infer, "MLP infer", TARGETS["infer"])
    return train + infer
