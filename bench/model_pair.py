"""One model in fluidc and in torch from the same weights: its parity check and its training
step and inference benches (cnn_train.py, transformer.py).

`fluidc_model()` builds fluidc's side: state() (the weights as numpy), train_step(feed) -> loss,
infer(x) -> output. `torch_model(state)` builds torch's from those weights:
train_step(feed, compile_=False) -> a step function, infer_fn(compile_=False) -> x -> output."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .harness import Competitor, add_ratio_targets, run_bench, torch_or_skip


@dataclass
class ModelPair:
    name: str          # bench rows: "<name> train step b<batch>", "<name> inference b<batch>"
    batch: int
    fluidc_model: object
    torch_model: object
    feed: dict         # a training batch
    x: np.ndarray      # an inference batch
    torch_train_note: str
    torch_compile_note: str
    fluidc_infer_note: str

    def parity(self, steps: int = 3, fluidc_model=None, torch_model=None) -> dict:
        """Train both from the same weights (losses per step), then compare the inference
        outputs on the trained weights. The models default to the bench's."""
        f = (fluidc_model or self.fluidc_model)()
        t_step = (torch_model or self.torch_model)(f.state()).train_step(self.feed)
        fl = [f.train_step(self.feed) for _ in range(steps)]
        tl = [t_step() for _ in range(steps)]
        infer_diff = np.abs(f.infer(self.x) - self.torch_model(f.state()).infer_fn()(self.x)).max()
        return {"fluidc_loss": fl, "torch_loss": tl,
                "max_abs_diff": float(max(abs(a - b) for a, b in zip(fl, tl))),
                "infer_max_abs_diff": float(infer_diff)}

    def _train_competitors(self) -> list[Competitor]:
        def fluidc():
            f = self.fluidc_model()
            return lambda: f.train_step(self.feed)

        def torch_(compile_: bool):
            return lambda: self.torch_model(self.fluidc_model().state()).train_step(self.feed,
                                                                                     compile_)

        return [
            Competitor("fluidc", fluidc, note="exe.run, fetch loss"),
            Competitor("torch eager", torch_(False), optional=True, note=self.torch_train_note),
            Competitor("torch.compile", torch_(True), optional=True,
                       note=self.torch_compile_note),
        ]

    def _infer_competitors(self) -> list[Competitor]:
        def fluidc():
            f = self.fluidc_model()
            return lambda: f.infer(self.x)

        def torch_(compile_: bool):
            def setup():
                f = self.fluidc_model()
                run = self.torch_model(f.state()).infer_fn(compile_)
                np.testing.assert_allclose(run(self.x), f.infer(self.x), rtol=1e-4, atol=1e-4)
                return lambda: run(self.x)
            return setup

        return [
            Competitor("fluidc", fluidc, note=self.fluidc_infer_note),
            Competitor("torch eager", torch_(False), optional=True, note="inference_mode"),
            Competitor("torch.compile", torch_(True), optional=True, note="inference_mode"),
        ]

    def run(self, label: str, targets: dict, repeat: int | None, verbose: bool) -> list[dict]:
        """The training step and the inference benches; rows for both, with their targets."""
        train = run_bench(f"{self.name} train step b{self.batch}", self._train_competitors(),
                          repeat=repeat or 30, number=1, warmup=3, baseline="fluidc",
                          verbose=verbose)
        infer = run_bench(f"{self.name} inference b{self.batch}", self._infer_competitors(),
                          repeat=repeat or 30, number=3, warmup=3, baseline="fluidc",
                          verbose=verbose)
        add_ratio_targets(train, f"{label} train", targets["train"])
        add_ratio_targets(infer, f"{label} infer", targets["infer"])
        return train + infer


def torch_step(opt, loss_of, args: tuple, compile_: bool):
    """step() -> loss: torch's training step, loss_of(*args) (torch.compile'd if compile_),
    backward, opt.step()."""
    torch = torch_or_skip()
    loss_fn = torch.compile(loss_of) if compile_ else loss_of

    def step() -> float:
        opt.zero_grad(set_to_none=True)
        loss = loss_fn(*args)
        loss.backward()
        opt.step()
        return loss.item()
    return step


def torch_infer(forward, compile_: bool):
    """numpy batch -> numpy output of forward(x) (torch.compile'd if compile_), under
    inference_mode."""
    torch = torch_or_skip()
    fn = torch.compile(forward) if compile_ else forward

    def run(x: np.ndarray) -> np.ndarray:
        with torch.inference_mode():
            return fn(torch.from_numpy(x)).numpy()
    return run
