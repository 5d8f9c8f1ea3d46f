"""fluidc.inspect: the plan exe.run builds, as an object, rendered as `fluidc inspect` does."""
import json

import numpy as np
import pytest

import fluidc as fluid
from fluidc.cli import example_program, main


def _training_program():
    x = fluid.layers.data(name="x", shape=[4], dtype="float32")
    y = fluid.layers.data(name="y", shape=[1], dtype="int64")
    loss = fluid.layers.mean(fluid.layers.softmax_with_cross_entropy(fluid.layers.fc(x, 3), y))
    fluid.optimizer.SGD(0.1).minimize(loss)
    return loss


def test_a_users_training_program_shows_backward_and_optimizer_steps():
    loss = _training_program()
    view = fluid.inspect(feed={"x": np.ones((8, 4), "float32")}, fetch_list=[loss])
    ops = [op for s in view.steps for op in (s.get("ops") or [s.get("op")])]
    # mul_grad's dX and dW are products of their own (matmul_v2)
    assert "mul" in ops and "matmul_v2" in ops and "mul_grad" not in ops
    assert ops.count("sgd") == 2
    assert view.buffers["x"] == {"shape": [8, 4], "dtype": "float32"}
    assert view.buffers["y"]["shape"] == [8, 1]  # unfed data vars take the fed batch
    assert 0 < view.arena_bytes and "compiled for batch 8" in view.to_text()
    assert "void segment_0(void **restrict s)" in view.source
    assert json.loads(view.to_json())["compiled"]["steps"] == view.steps
    assert view.to_dot().count("digraph") == 2


def test_it_is_what_the_executor_runs():
    """The view's steps are the plan exe.run builds and runs for the same feed."""
    loss = _training_program()
    feed = {"x": np.ones((5, 4), "float32"), "y": np.zeros((5, 1), "int64")}
    view = fluid.inspect(feed=feed, fetch_list=[loss])
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(fluid.default_startup_program())
    exe.run(feed=feed, fetch_list=[loss])
    plan = next(p for p in exe._plans.values() if p.lowered.fetches == [loss.name])

    def shape(lowered):
        return [(type(s).__name__, [op.type for op in getattr(s, "ops", [getattr(s, "op", s)])])
                for s in lowered.steps]
    assert shape(plan.lowered) == shape(view.lowered)


def test_renders_exactly_as_the_command(capsys):
    main(["inspect", "chain", "--batch", "3", "--format", "json"])
    cli = capsys.readouterr().out.strip()
    program, _, feeds, fetches = example_program("chain")
    view = fluid.inspect(program, feed={v.name: (3, 1024) for v in feeds}, fetch_list=fetches)
    assert view.to_json() == cli


def test_triton_backend_fuses_as_the_executor_does(capsys):
    main(["codegen", "softmax", "--backend", "triton"])
    source = capsys.readouterr().out
    assert source.count("\ndef kernel_") == 1  # one row kernel, as CUDAPlace runs softmax
    x = fluid.layers.data(name="x", shape=[16], dtype="float32")
    view = fluid.inspect(fetch_list=[fluid.layers.softmax(x)], backend="triton", batch=2)
    assert view.source.count("\ndef kernel_") == 1 and "tl.load" in view.source


def test_bad_arguments():
    x = fluid.layers.data(name="x", shape=[4], dtype="float32")
    with pytest.raises(ValueError, match="backend must be 'c' or 'triton'"):
        fluid.inspect(fetch_list=[x], backend="cuda")
    with pytest.raises(fluid.FluidcError, match="feed 'z' is not a var"):
        fluid.inspect(feed={"z": np.ones(2)}, fetch_list=[x])


def test_debug_graphviz_path_writes_each_plans_graphs(tmp_path):
    x = fluid.layers.data(name="x", shape=[8], dtype="float32")
    y = fluid.layers.softmax(fluid.layers.relu(x))
    strategy = fluid.BuildStrategy()
    strategy.debug_graphviz_path = str(tmp_path / "graphs" / "g")
    compiled = fluid.CompiledProgram(fluid.default_main_program(), build_strategy=strategy)
    exe = fluid.Executor(fluid.CPUPlace())
    for batch in (2, 3, 2):  # two feed signatures: two plans, each drawn once
        exe.run(compiled, feed={"x": np.ones((batch, 8), "float32")}, fetch_list=[y])
    files = sorted(p.name for p in (tmp_path / "graphs").iterdir())
    assert files == ["g.0.compiled.dot", "g.0.program.dot", "g.1.compiled.dot",
                     "g.1.program.dot"]
    for name in files:
        text = (tmp_path / "graphs" / name).read_text()
        assert text.count("digraph") == 1  # one graph per file
    assert "relu" in (tmp_path / "graphs" / "g.1.compiled.dot").read_text()
