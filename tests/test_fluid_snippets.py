"""The Fluid 1.x programs of the Paddle docs, run unchanged but for the import."""
import numpy as np
import pytest

import fluidc as fluid


def test_ones_add_cast_print_what_the_docs_print():
    data = fluid.layers.ones(shape=[5], dtype="int64")
    exe = fluid.Executor(fluid.CPUPlace())
    out, = exe.run(fluid.default_main_program(), fetch_list=[data], return_numpy=True)
    assert out.dtype == np.int64 and out.tolist() == [1, 1, 1, 1, 1]
    added = fluid.layers.elementwise_add(data, data)
    out, = exe.run(fluid.default_main_program(), fetch_list=[added], return_numpy=True)
    assert out.tolist() == [2, 2, 2, 2, 2]
    cast = fluid.layers.cast(x=data, dtype="float64")
    out, = exe.run(fluid.default_main_program(), fetch_list=[cast], return_numpy=True)
    assert out.dtype == np.float64 and out.tolist() == [1.0] * 5


def test_linear_regression_walkthrough_predicts_100():
    rng = np.random.default_rng(0)
    xs = rng.integers(1, 10, size=(64, 4)).astype("float32")
    ys = xs @ np.array([[4], [6], [7], [2]], "float32")
    x = fluid.layers.data(name="x", shape=[4], dtype="float32")
    y = fluid.layers.data(name="y", shape=[1], dtype="float32")
    y_predict = fluid.layers.fc(input=x, size=1, act=None)
    cost = fluid.layers.square_error_cost(input=y_predict, label=y)
    avg_cost = fluid.layers.mean(cost)
    fluid.optimizer.SGD(learning_rate=0.001).minimize(avg_cost)
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(fluid.default_startup_program())
    costs = []
    for i in range(500):
        batch = slice(i % 8 * 8, i % 8 * 8 + 8)
        _, c = exe.run(feed={"x": xs[batch], "y": ys[batch]},
                       fetch_list=[y_predict.name, avg_cost.name])
        costs.append(float(c[0]))
    assert costs[-1] < costs[0] / 100
    # The docs feed a (1, 4, 1) array into the [-1, 4] var; mul flattens it.
    pred, = exe.run(feed={"x": np.array([[[9], [5], [2], [10]]], "float32"),
                          "y": np.zeros((1, 1), "float32")}, fetch_list=[y_predict])
    assert pred.reshape(()) == pytest.approx(100.0, rel=0.01)


def test_fit_a_line_13_features():
    rng = np.random.default_rng(1)
    w_true = rng.normal(size=(13, 1)).astype("float32")
    xs = rng.normal(size=(256, 13)).astype("float32")
    ys = (xs @ w_true + 0.5).astype("float32")
    x = fluid.layers.data(name="x", shape=[13], dtype="float32")
    y = fluid.layers.data(name="y", shape=[1], dtype="float32")
    pred = fluid.layers.fc(input=x, size=1)
    avg = fluid.layers.mean(fluid.layers.square_error_cost(input=pred, label=y))
    fluid.optimizer.SGD(learning_rate=0.05).minimize(avg)
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(fluid.default_startup_program())
    first = last = None
    for epoch in range(20):
        for i in range(0, 256, 32):
            c, = exe.run(feed={"x": xs[i:i + 32], "y": ys[i:i + 32]}, fetch_list=[avg])
            first = c[0] if first is None else first
            last = c[0]
    assert last < 1e-3 < first
    w = np.array(fluid.global_scope().find_var("fc_0.w_0").get_tensor())
    np.testing.assert_allclose(w, w_true, atol=0.02)


def _separable(n=512, d=20, k=3, seed=0):
    rng = np.random.default_rng(seed)
    xs = rng.normal(size=(n, d)).astype("float32")
    labels = np.argmax(xs @ rng.normal(size=(d, k)), axis=1).astype("int64").reshape(-1, 1)
    return xs, labels


def test_mlp_classifier_with_adam_reaches_95_percent():
    xs, labels = _separable()
    x = fluid.layers.data(name="x", shape=[20], dtype="float32")
    y = fluid.layers.data(name="y", shape=[1], dtype="int64")
    hidden = fluid.layers.fc(input=x, size=64, act="relu")
    prob = fluid.layers.fc(input=hidden, size=3, act="softmax")
    loss = fluid.layers.mean(fluid.layers.cross_entropy(input=prob, label=y))
    acc = fluid.layers.accuracy(input=prob, label=y)
    fluid.optimizer.Adam(learning_rate=0.01).minimize(loss)
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(fluid.default_startup_program())
    for _ in range(20):
        for i in range(0, len(xs), 64):
            exe.run(feed={"x": xs[i:i + 64], "y": labels[i:i + 64]}, fetch_list=[loss])
    a, = exe.run(feed={"x": xs, "y": labels}, fetch_list=[acc])
    assert float(a) > 0.95


def _net(x, label):
    hidden = fluid.layers.fc(input=x, size=16, act="relu")
    hidden = fluid.layers.dropout(hidden, dropout_prob=0.5)
    prob = fluid.layers.fc(input=hidden, size=3, act="softmax")
    return fluid.layers.mean(fluid.layers.cross_entropy(input=prob, label=label))


def test_unique_name_guard_makes_train_and_test_programs_share_parameters():
    train, test, startup = fluid.Program(), fluid.Program(), fluid.Program()
    with fluid.program_guard(train, startup), fluid.unique_name.guard():
        x = fluid.layers.data(name="x", shape=[4], dtype="float32")
        y = fluid.layers.data(name="y", shape=[1], dtype="int64")
        train_loss = _net(x, y)
        fluid.optimizer.SGD(learning_rate=0.1).minimize(train_loss)
    with fluid.program_guard(test, fluid.Program()), fluid.unique_name.guard():
        x = fluid.layers.data(name="x", shape=[4], dtype="float32")
        y = fluid.layers.data(name="y", shape=[1], dtype="int64")
        test_loss = _net(x, y)
    assert [p.name for p in train.all_parameters()] == [p.name for p in test.all_parameters()] \
        == ["fc_0.w_0", "fc_0.b_0", "fc_1.w_0", "fc_1.b_0"]
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup)
    feed = {"x": np.ones((2, 4), "float32"), "y": np.zeros((2, 1), "int64")}
    exe.run(train, feed=feed, fetch_list=[train_loss])
    out, = exe.run(test, feed=feed, fetch_list=[test_loss])
    assert np.isfinite(out).all()


def test_clone_for_test_drops_training_ops_and_switches_dropout():
    x = fluid.layers.data(name="x", shape=[8], dtype="float32")
    y = fluid.layers.data(name="y", shape=[1], dtype="int64")
    hidden = fluid.layers.dropout(fluid.layers.fc(input=x, size=8), dropout_prob=0.5)
    prob = fluid.layers.fc(input=hidden, size=2, act="softmax")
    loss = fluid.layers.mean(fluid.layers.cross_entropy(input=prob, label=y))
    main = fluid.default_main_program()
    test = main.clone(for_test=True)
    fluid.optimizer.Momentum(learning_rate=0.1, momentum=0.9).minimize(loss)
    test_after = main.clone(for_test=True)
    for prog in (test, test_after):
        types = [op.type for op in prog.global_block().ops]
        assert not any(t.endswith("_grad") or t in ("sgd", "momentum") for t in types)
        assert all(op.attr("is_test") for op in prog.global_block().ops if op.type == "dropout")
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(fluid.default_startup_program())
    feed = {"x": np.ones((4, 8), "float32"), "y": np.zeros((4, 1), "int64")}
    a, = exe.run(test_after, feed=feed, fetch_list=[prob])
    b, = exe.run(test_after, feed=feed, fetch_list=[prob])
    np.testing.assert_array_equal(a, b)  # no randomness at test time


def test_random_seed_makes_startup_reproducible():
    def init(seed):
        main, startup = fluid.Program(), fluid.Program()
        main.random_seed = startup.random_seed = seed
        with fluid.program_guard(main, startup), fluid.unique_name.guard():
            x = fluid.layers.data(name="x", shape=[4], dtype="float32")
            fluid.layers.fc(input=x, size=3)
        scope = fluid.Scope()
        fluid.Executor(fluid.CPUPlace()).run(startup, scope=scope)
        return np.array(scope.find_var("fc_0.w_0").get_tensor())
    np.testing.assert_array_equal(init(7), init(7))
    assert not np.array_equal(init(7), init(8))


def test_print_program_lists_vars_and_ops():
    x = fluid.layers.data(name="x", shape=[4], dtype="float32")
    fluid.layers.fc(input=x, size=2, act="relu")
    text = str(fluid.default_main_program())
    assert "{ // block 0" in text
    assert "persist trainable param var fc_0.w_0 : LOD_TENSOR.shape(4, 2).dtype(float32)" in text
    assert "= mul(inputs={X=['x'], Y=['fc_0.w_0']}" in text
    assert "{Out=['fc_0.tmp_2']} = relu(inputs={X=['fc_0.tmp_1']})" in text


def test_scopes_and_scope_guard():
    x = fluid.layers.data(name="x", shape=[3], dtype="float32")
    fluid.layers.fc(input=x, size=2)
    exe = fluid.Executor(fluid.CPUPlace())
    mine = fluid.Scope()
    with fluid.scope_guard(mine):
        exe.run(fluid.default_startup_program())
        assert fluid.global_scope() is mine
    assert mine.find_var("fc_0.w_0") is not None
    assert np.array(mine.find_var("fc_0.b_0").get_tensor()).tolist() == [0.0, 0.0]
    assert fluid.global_scope().find_var("fc_0.w_0") is None


def test_optimizer_accumulators_are_named_as_paddle_names_them():
    x = fluid.layers.data(name="x", shape=[4], dtype="float32")
    loss = fluid.layers.mean(fluid.layers.fc(input=x, size=1))
    ops, params_grads = fluid.optimizer.Adam(learning_rate=0.01).minimize(loss)
    names = {v.name for v in fluid.default_main_program().list_vars() if v.persistable}
    assert {"learning_rate_0", "fc_0.w_0_moment1_0", "fc_0.w_0_moment2_0",
            "fc_0.w_0_beta1_pow_acc_0", "fc_0.w_0_beta2_pow_acc_0"} <= names
    assert [(p.name, g.name) for p, g in params_grads] == [
        ("fc_0.w_0", "fc_0.w_0@GRAD"), ("fc_0.b_0", "fc_0.b_0@GRAD")]
    assert [op.type for op in ops] == ["adam", "adam"]


def test_variable_operators_build_elementwise_ops():
    x = fluid.layers.data(name="x", shape=[3], dtype="float32", append_batch_size=False)
    y = (x * 2.0 + 1.0 - x) / 2.0
    exe = fluid.Executor(fluid.CPUPlace())
    out, = exe.run(feed={"x": np.array([1, 2, 3], "float32")}, fetch_list=[y])
    np.testing.assert_allclose(out, [1.0, 1.5, 2.0])
