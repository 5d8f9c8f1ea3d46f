"""Real Paddle inference models (tests/fixtures/make_model_fixtures.py) load in fluidc and match
Paddle's outputs on the C backend (CPUPlace) and the Triton backend (CUDAPlace, interpreted)."""
import os

os.environ.setdefault("TRITON_INTERPRET", "1")  # read when Triton kernels are decorated

import numpy as np  # noqa: E402
import pytest  # noqa: E402

import fluidc as paddle  # noqa: E402

MODELS = os.path.join(os.path.dirname(__file__), "fixtures", "models")
NAMES = ["mlp", "cnn", "transformer", "embedding"]
OPS = {"mlp": {"mul", "elementwise_add", "relu", "tanh", "softmax"},
       "cnn": {"conv2d", "batch_norm", "relu", "pool2d", "flatten_contiguous_range", "mul"},
       "transformer": {"matmul_v2", "layer_norm", "gelu", "softmax", "transpose2", "reshape2",
                       "scale"},
       "embedding": {"lookup_table_v2", "reduce_mean", "mul", "relu"}}


def run_model(name: str, place) -> tuple[list[np.ndarray], dict]:
    """Load <name> with paddle.static.load_inference_model in a fresh scope and run its inputs."""
    data = np.load(os.path.join(MODELS, name + ".npz"))
    exe = paddle.static.Executor(place)
    with paddle.static.scope_guard(paddle.static.Scope()):
        prefix = os.path.join(MODELS, name)
        program, feeds, fetches = paddle.static.load_inference_model(prefix, exe)
        assert OPS[name] <= {op.type for op in program.global_block().ops}
        outs = exe.run(program, feed={k: data[k] for k in feeds}, fetch_list=fetches)
    return outs, data


def check(name: str, place) -> None:
    outs, data = run_model(name, place)
    assert len(outs) == len([k for k in data.files if k.startswith("out")])
    for i, out in enumerate(outs):
        np.testing.assert_allclose(out, data[f"out{i}"], rtol=1e-4, atol=1e-5, err_msg=name)


@pytest.mark.parametrize("name", NAMES)
def test_model_matches_paddle_on_c_backend(name):
    check(name, paddle.CPUPlace())


@pytest.mark.parametrize("name", NAMES)
def test_model_matches_paddle_on_triton_interpreter(name):
    pytest.importorskip("triton")
    if os.environ.get("TRITON_INTERPRET") != "1":
        pytest.skip("TRITON_INTERPRET was set to something else before this module loaded")
    check(name, paddle.CUDAPlace(0))
