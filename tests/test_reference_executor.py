"""The numpy reference executor: the fallback without a C compiler, and the oracle it agrees with."""
import numpy as np
import pytest

import fluidc as fluid
from fluidc.runtime import executor as executor_mod


def _clone_scope(src, names):
    dst = fluid.Scope()
    for n in names:
        dst.var(n).get_tensor().set(np.array(src.find_var(n).get_tensor()), fluid.CPUPlace())
    return dst


def test_training_without_a_compiler_matches_the_compiled_run(monkeypatch):
    rng = np.random.default_rng(3)
    xs = rng.normal(size=(16, 6)).astype("float32")
    labels = rng.integers(0, 3, size=(16, 1)).astype("int64")
    x = fluid.layers.data(name="x", shape=[6], dtype="float32")
    y = fluid.layers.data(name="y", shape=[1], dtype="int64")
    hidden = fluid.layers.fc(input=x, size=8, act="tanh")
    logits = fluid.layers.fc(input=hidden, size=3)
    loss = fluid.layers.mean(fluid.layers.softmax_with_cross_entropy(logits, y))
    fluid.optimizer.Adam(learning_rate=0.01).minimize(loss)
    main = fluid.default_main_program()
    state = [v.name for v in main.list_vars() if v.persistable]
    fluid.Executor(fluid.CPUPlace()).run(fluid.default_startup_program())
    compiled_scope = _clone_scope(fluid.global_scope(), state)
    reference_scope = _clone_scope(fluid.global_scope(), state)

    feed = {"x": xs, "y": labels}
    exe = fluid.Executor(fluid.CPUPlace())
    compiled = [exe.run(main, feed=feed, fetch_list=[loss], scope=compiled_scope)[0]
                for _ in range(5)]

    monkeypatch.setattr(executor_mod, "find_compiler", lambda: None)
    monkeypatch.setattr(executor_mod, "_warned_no_compiler", False)
    ref_exe = fluid.Executor(fluid.CPUPlace())
    with pytest.warns(RuntimeWarning, match="no C compiler"):
        reference = [ref_exe.run(main, feed=feed, fetch_list=[loss], scope=reference_scope)[0]]
    for _ in range(4):
        reference.append(ref_exe.run(main, feed=feed, fetch_list=[loss], scope=reference_scope)[0])

    np.testing.assert_allclose(np.concatenate(compiled), np.concatenate(reference), rtol=1e-5)
    for n in state:
        np.testing.assert_allclose(np.array(compiled_scope.find_var(n).get_tensor()),
                                   np.array(reference_scope.find_var(n).get_tensor()),
                                   rtol=1e-4, atol=1e-6, err_msg=n)
