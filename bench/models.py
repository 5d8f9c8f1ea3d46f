"""Real Paddle inference models on CPU: the small CNN (batch 32) and the transformer encoder block
(batch 16) of tests/fixtures/models, as written by PaddlePaddle (make_model_fixtures.py).

fluidc: paddle.static.load_inference_model of the fixture, then one exe.run per timed call
(feed a numpy batch, fetch the output as numpy). torch eager and torch.compile: the same
architecture written in torch, with the fixture's weights (read by fluidc's file reader), under
inference_mode; before timing every torch model is checked against Paddle's own outputs stored
in the fixture. Paddle Inference (paddle.inference predictor on CPU, OMP_NUM_THREADS threads or 2)
runs only when `import paddle` works in this interpreter.
"""
from __future__ import annotations

import os

import numpy as np

from .harness import Competitor, Skip, run_bench, torch_or_skip

MODELS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests",
                      "fixtures", "models")
BATCH = {"cnn": 32, "transformer": 16}
SHAPE = {"cnn": (3, 16, 16), "transformer": (8, 32)}
HEADS, EPS = 4, 1e-5


def _prefix(name: str) -> str:
    return os.path.join(MODELS, name)


def batch(name: str, n: int, seed: int = 0) -> np.ndarray:
    """A fixed random float32 input batch for `name`."""
    return np.random.default_rng(seed).standard_normal((n, *SHAPE[name]), dtype=np.float32)


def torch_model(name: str):
    """The fixture's architecture as a torch function of one tensor, with its weights."""
    torch = torch_or_skip()
    F = torch.nn.functional
    from fluidc.runtime import io as rio
    w = {k: torch.from_numpy(np.ascontiguousarray(v)) for k, v in rio.load(_prefix(name)).items()}

    def fc(x, i):
        return x @ w[f"fc_{i}.w_0"] + w[f"fc_{i}.b_0"]

    def cnn(x):
        for i, pool in ((0, F.max_pool2d), (1, F.avg_pool2d)):
            x = F.conv2d(x, w[f"conv2d_{i}.w_0"], w[f"conv2d_{i}.b_0"], padding=1)
            bn = [w[f"batch_norm_{i}.{s}"] for s in ("w_1", "w_2", "w_0", "b_0")]
            x = pool(F.relu(F.batch_norm(x, *bn, training=False, eps=EPS)), 2, 2)
        return fc(x.flatten(1), 0)

    def transformer(x):
        return torch_transformer_block(x, w)

    return {"cnn": cnn, "transformer": transformer}[name]


def torch_transformer_block(x, w: dict, act=None):
    """The fixture's post-norm encoder block in torch, weights `w` by Paddle's names; the
    feed-forward activation is gelu unless `act` says otherwise."""
    torch = torch_or_skip()
    F = torch.nn.functional
    act = act or F.gelu
    b, s, d = x.shape

    def fc(t, i):
        return t @ w[f"fc_{i}.w_0"] + w[f"fc_{i}.b_0"]

    def split(t):
        return t.reshape(b, s, HEADS, d // HEADS).transpose(1, 2)

    q, k, v = (split(fc(x, i)) for i in range(3))
    att = torch.softmax(q @ k.transpose(-1, -2) * (d // HEADS) ** -0.5, -1)
    ctx = (att @ v).transpose(1, 2).reshape(b, s, d)

    def ln(t, i):
        return F.layer_norm(t, (d,), w[f"layer_norm_{i}.w_0"], w[f"layer_norm_{i}.b_0"], EPS)

    h = ln(x + fc(ctx, 3), 0)
    return ln(h + fc(act(fc(h, 4)), 5), 1)


def _check(name: str, fn) -> None:
    """fn(numpy input) == Paddle's output stored in the fixture (rtol 1e-4)."""
    data = np.load(_prefix(name) + ".npz")
    feed = data["img" if name == "cnn" else "x"]
    np.testing.assert_allclose(fn(feed), data["out0"], rtol=1e-4, atol=1e-4, err_msg=name)


def _competitors(name: str) -> list[Competitor]:
    x = batch(name, BATCH[name])
    threads = int(os.environ.get("OMP_NUM_THREADS") or 2)

    def fluidc():
        import fluidc as paddle
        exe, scope = paddle.static.Executor(paddle.CPUPlace()), paddle.static.Scope()
        with paddle.static.scope_guard(scope):
            prog, feeds, fetches = paddle.static.load_inference_model(_prefix(name), exe)

        def run(a):
            return exe.run(prog, feed={feeds[0]: a}, fetch_list=fetches, scope=scope)[0]
        _check(name, run)
        return lambda: run(x)

    def torch_(compile_: bool):
        def setup():
            torch = torch_or_skip()
            fn = torch_model(name)
            fn = torch.compile(fn) if compile_ else fn

            def run(a):
                with torch.inference_mode():
                    return fn(torch.from_numpy(a)).numpy()
            _check(name, run)
            xt = torch.from_numpy(x)

            def step():
                with torch.inference_mode():
                    return fn(xt).numpy()
            return step
        return setup

    def paddle_inference():
        try:
            import paddle.inference as pi
        except ImportError as e:
            raise Skip(f"paddle not importable ({e})") from e
        cfg = pi.Config(_prefix(name) + ".pdmodel", _prefix(name) + ".pdiparams")
        cfg.disable_gpu()
        cfg.set_cpu_math_library_num_threads(threads)
        pred = pi.create_predictor(cfg)
        inp = pred.get_input_handle(pred.get_input_names()[0])
        out = pred.get_output_handle(pred.get_output_names()[0])

        def run(a):
            inp.reshape(a.shape)
            inp.copy_from_cpu(a)
            pred.run()
            return out.copy_to_cpu()
        _check(name, run)
        return lambda: run(x)

    return [
        Competitor("fluidc", fluidc, note="load_inference_model + exe.run"),
        Competitor("torch eager", torch_(False), optional=True, note="inference_mode"),
        Competitor("torch.compile", torch_(True), optional=True, note="inference_mode"),
        Competitor("paddle inference", paddle_inference, optional=True, note=f"{threads} threads"),
    ]


def run(repeat: int | None = None, verbose: bool = True) -> list[dict]:
    """The CNN and the transformer block, fluidc vs torch (vs Paddle Inference when installed)."""
    rows: list[dict] = []
    for name, n in BATCH.items():
        rows += run_bench(f"{name} inference b{n}", _competitors(name),
                          repeat=repeat or 40, number=5, warmup=5, baseline="fluidc",
                          verbose=verbose)
    return rows
