"""paddle.Model made in static mode (dygraph/static_model.py): the same network from the
same weights gives the dygraph Model's losses, metrics, predictions and parameters; save /
load round trips; an LSTM network trains in a static program too."""
import os

import numpy as np
import pytest

import fluidc as paddle

InputSpec = paddle.static.InputSpec


def _net():
    nn = paddle.nn
    return nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))


def _batches(n=4, seed=0):
    rng = np.random.default_rng(seed)
    return [(rng.random((5, 4)).astype("float32"), rng.integers(0, 3, (5, 1)).astype("int64"))
            for _ in range(n)]


def _run(static: bool, state=None):
    """(model, network, initial state, per-batch (losses, acc), predictions, final state)."""
    if static:
        paddle.enable_static()
    else:
        paddle.disable_static()
    net = _net()
    model = paddle.Model(net, [InputSpec([None, 4], "float32", "x")],
                         [InputSpec([None, 1], "int64", "label")])
    model.prepare(paddle.optimizer.Adam(0.05, parameters=net.parameters()),
                  paddle.nn.CrossEntropyLoss(), paddle.metric.Accuracy())
    if state is not None:
        net.set_state_dict(state)
    init = {k: np.array(v.numpy() if hasattr(v, "numpy") and not static else
                        paddle.static.global_scope().find_var(v.name).get_tensor())
            for k, v in net.state_dict().items()}
    steps = [model.train_batch([x], [y]) for x, y in _batches()]
    evals = [model.eval_batch([x], [y]) for x, y in _batches(2, seed=1)]
    preds = model.predict_batch([_batches(1, seed=2)[0][0]])
    return model, net, init, steps, evals, preds


def _state(net, static: bool):
    scope = paddle.static.global_scope()
    return {k: np.array(scope.find_var(v.name).get_tensor()) if static else v.numpy()
            for k, v in net.state_dict().items()}


def test_static_model_matches_dygraph(tmp_path):
    s_model, s_net, init, s_steps, s_evals, s_preds = _run(True)
    s_final = _state(s_net, True)
    d_model, d_net, _, d_steps, d_evals, d_preds = _run(False, init)
    for (sl, sm), (dl, dm) in zip(s_steps + s_evals, d_steps + d_evals):
        np.testing.assert_allclose(sl[0], dl[0], rtol=1e-5)
        np.testing.assert_allclose(sm, dm, rtol=1e-6)
    np.testing.assert_allclose(s_preds[0], d_preds[0], rtol=1e-5, atol=1e-6)
    for k, v in _state(d_net, False).items():
        np.testing.assert_allclose(s_final[k], v, rtol=1e-5, atol=1e-6, err_msg=k)

    # save / load: a fresh static model takes the parameters and the Adam moments back, so
    # its next step equals the saver's next step
    paddle.enable_static()
    path = str(tmp_path / "m")
    s_model.save(path)
    x, y = _batches(1, seed=3)[0]
    want = s_model.train_batch([x], [y])
    with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()), \
            paddle.static.scope_guard(paddle.static.Scope()), paddle.unique_name.guard():
        other_model, other_net, *_ = _run(True)
        other_model.load(path)
        got = other_model.train_batch([x], [y])
    np.testing.assert_allclose(got[0][0], want[0][0], rtol=1e-5)

    # training=False: an inference model that load_inference_model runs
    s_model.save(str(tmp_path / "inf"), training=False)
    exe = paddle.static.Executor(paddle.CPUPlace())
    prog, feeds, fetches = paddle.static.load_inference_model(str(tmp_path / "inf"), exe)
    out = exe.run(prog, feed={feeds[0]: x}, fetch_list=fetches)[0]
    np.testing.assert_allclose(out, s_model.predict_batch([x])[0], rtol=1e-5, atol=1e-6)
    assert os.path.exists(path + ".pdopt")


def test_static_model_errors():
    paddle.enable_static()
    net = _net()
    model = paddle.Model(net, [InputSpec([None, 4], "float32", "x")],
                         [InputSpec([None, 1], "int64", "label")])
    model.prepare(paddle.optimizer.SGD(0.1, parameters=net.parameters()),
                  paddle.nn.CrossEntropyLoss())
    x, y = _batches(1)[0]
    with pytest.raises(AssertionError, match="update == False"):
        model.train_batch([x], [y], update=False)
    predict_only = paddle.Model(net, [InputSpec([None, 4], "float32", "x")])
    predict_only.prepare()
    assert predict_only.predict_batch([x])[0].shape == (5, 3)
    with pytest.raises(RuntimeError, match="prepare"):
        predict_only.train_batch([x], [y])


def test_static_model_fits_an_lstm():
    """nn.LSTM inside a static-mode Model: fit lowers the loss."""
    paddle.enable_static()
    nn = paddle.nn

    class Tagger(nn.Layer):
        def __init__(self):
            super().__init__()
            self.rnn = nn.LSTM(3, 8)
            self.fc = nn.Linear(8, 2)

        def forward(self, x):
            out, _ = self.rnn(x)
            return self.fc(out[:, -1])

    rng = np.random.default_rng(0)
    xs = rng.standard_normal((32, 4, 3)).astype("float32")
    ys = (xs.sum(axis=(1, 2)) > 0).astype("int64")[:, None]
    net = Tagger()
    model = paddle.Model(net, [InputSpec([None, 4, 3], "float32", "x")],
                         [InputSpec([None, 1], "int64", "label")])
    model.prepare(paddle.optimizer.Adam(0.05, parameters=net.parameters()),
                  nn.CrossEntropyLoss())
    first = model.eval_batch([xs], [ys])[0]
    for _ in range(15):
        model.train_batch([xs], [ys])
    assert model.eval_batch([xs], [ys])[0] < 0.8 * first


@pytest.mark.parametrize("static", [False, True])
def test_amp_configs_checked_and_float32_on_cpu(static):
    """Paddle on CPU: a valid level warns that AMP makes no effect and trains in float32;
    bad configs raise Paddle's errors."""
    if static:
        paddle.enable_static()
    else:
        paddle.disable_static()
    net = _net()
    model = paddle.Model(net, [InputSpec([None, 4], "float32", "x")],
                         [InputSpec([None, 1], "int64", "label")])
    sgd = paddle.optimizer.SGD(0.1, parameters=net.parameters())
    for cfg in ["O1", "O2", {"level": "O1", "init_loss_scaling": 128.0}]:
        with pytest.warns(UserWarning, match="so it makes no effect"):
            model.prepare(sgd, paddle.nn.CrossEntropyLoss(), amp_configs=cfg)
    x, y = _batches(1)[0]
    assert model.train_batch([x], [y])[0].dtype == np.float32
    bad = [("O3", "should be 'O0', 'O1' or 'O2'"), ({"level": "O4"}, r"amp_configs\['level'\]"),
           ({"level": "O1", "foo": 1}, r"\('foo',\) could not be recognized"),
           ({"level": "O1", "use_pure_fp16": True}, "'use_pure_fp16' is an invalid")]
    for cfg, msg in bad:
        with pytest.raises(ValueError, match=msg):
            model.prepare(sgd, paddle.nn.CrossEntropyLoss(), amp_configs=cfg)
    clipped = paddle.optimizer.SGD(0.1, parameters=net.parameters(),
                                   grad_clip=paddle.nn.ClipGradByValue(1.0))
    with pytest.raises(AssertionError, match="ClipGradByNorm and ClipGradByGlobalNorm"):
        model.prepare(clipped, paddle.nn.CrossEntropyLoss(), amp_configs="O2")


def test_static_model_dropout_only_in_training():
    """The test / eval programs are cloned for test: dropout is the identity there (the
    prediction is the two Linears' numpy product), and active in the train program."""
    paddle.enable_static()
    nn = paddle.nn
    net = nn.Sequential(nn.Linear(4, 8), nn.Dropout(0.5), nn.Linear(8, 3))
    model = paddle.Model(net, [InputSpec([None, 4], "float32", "x")],
                         [InputSpec([None, 1], "int64", "label")])
    model.prepare(paddle.optimizer.SGD(0.0, parameters=net.parameters()),
                  nn.CrossEntropyLoss())
    x, y = _batches(1)[0]
    w = _state(net, True)
    want = (x @ w["0.weight"] + w["0.bias"]) @ w["2.weight"] + w["2.bias"]
    np.testing.assert_allclose(model.predict_batch([x])[0], want, rtol=1e-5, atol=1e-6)
    assert model.eval_batch([x], [y])[0] == model.eval_batch([x], [y])[0]
    losses = {float(model.train_batch([x], [y])[0]) for _ in range(4)}  # lr 0: only dropout
    assert len(losses) > 1
