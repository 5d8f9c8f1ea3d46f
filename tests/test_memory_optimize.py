"""memory_optimize: fewer bytes, the same results, gradient names kept under skip_grads."""
import numpy as np
import pytest

import fluidc as fluid


def _mlp():
    main, startup = fluid.Program(), fluid.Program()
    main.random_seed = startup.random_seed = 11
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        x = fluid.layers.data(name="x", shape=[32], dtype="float32")
        y = fluid.layers.data(name="y", shape=[1], dtype="int64")
        h = fluid.layers.fc(x, 64, act="relu")
        h = fluid.layers.fc(h, 64, act="tanh")
        logits = fluid.layers.fc(h, 5)
        loss = fluid.layers.mean(fluid.layers.softmax_with_cross_entropy(logits, y))
        _, params_grads = fluid.optimizer.Adam(1e-2).minimize(loss)
    return main, startup, loss, params_grads


def _train(main, startup, loss, steps=6):
    rng = np.random.default_rng(0)
    feed = {"x": rng.normal(size=(16, 32)).astype("float32"),
            "y": rng.integers(0, 5, (16, 1)).astype("int64")}
    scope, exe = fluid.Scope(), fluid.Executor(fluid.CPUPlace())
    exe.run(startup, scope=scope)
    losses = [exe.run(main, feed=feed, fetch_list=[loss], scope=scope)[0][0] for _ in range(steps)]
    params = {p.name: np.array(scope.find_var(p.name).get_tensor()) for p in main.all_parameters()}
    return losses, params


@pytest.mark.parametrize("skip_grads", [True, False])
@pytest.mark.parametrize("level", [0, 1])
def test_training_with_memory_optimize_equals_training_without(skip_grads, level):
    base_losses, base_params = _train(*_mlp()[:3])
    main, startup, loss, params_grads = _mlp()
    stats = fluid.memory_optimize(main, skip_grads=skip_grads, level=level, batch_size=16)
    assert stats["after"] < stats["before"] and stats["reused"]
    losses, params = _train(main, startup, loss)
    np.testing.assert_array_equal(losses, base_losses)
    for name, value in base_params.items():
        np.testing.assert_array_equal(params[name], value, err_msg=name)


def test_skip_grads_keeps_every_parameter_gradient_name():
    main, _, _, params_grads = _mlp()
    stats = fluid.memory_optimize(main, skip_grads=True)
    grads = {g.name for _, g in params_grads}
    assert not grads & set(stats["reused"]) and not grads & set(stats["reused"].values())
    used = {n for op in main.global_block().ops for n in op.input_arg_names + op.output_arg_names}
    assert grads <= used


def test_skip_opt_set_and_fetching_a_var_whose_bytes_are_shared():
    main, startup, loss, _ = _mlp()
    hidden = "fc_1.tmp_2"
    base = _mlp()[0]
    stats = fluid.memory_optimize(main, skip_opt_set={hidden})
    assert hidden not in stats["reused"] and hidden not in stats["reused"].values()
    merged = next(iter(stats["reused"]))
    feed = {"x": np.ones((2, 32), "float32"), "y": np.zeros((2, 1), "int64")}
    got = []
    for program in (base, main):  # fetching it keeps it alive to the end: the same value
        exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
        exe.run(startup, scope=scope)
        got.append(exe.run(program, feed=feed, fetch_list=[hidden, merged], scope=scope))
    for a, b in zip(*got):
        np.testing.assert_array_equal(a, b)


def test_mlp_784_512_512_10_arena_shrinks(capsys):
    """The figures are the compiled plan's arena: parameter gradients kept apart under
    skip_grads (0.91x at batch 256), shared too without it (0.72x)."""
    ratios = {}
    for skip_grads in (True, False):
        main, startup = fluid.Program(), fluid.Program()
        with fluid.program_guard(main, startup):
            x = fluid.layers.data(name="x", shape=[784], dtype="float32")
            y = fluid.layers.data(name="y", shape=[1], dtype="int64")
            h = fluid.layers.fc(fluid.layers.fc(x, 512, act="relu"), 512, act="relu")
            logits = fluid.layers.fc(h, 10)
            loss = fluid.layers.mean(fluid.layers.softmax_with_cross_entropy(logits, y))
            fluid.optimizer.Adam(1e-3).minimize(loss)
        stats = fluid.memory_optimize(main, print_log=True, batch_size=256, skip_grads=skip_grads)
        ratios[skip_grads] = stats["after"] / stats["before"]
    assert ratios[False] <= 0.75 and ratios[True] < 0.95
    assert "arena bytes" in capsys.readouterr().out
