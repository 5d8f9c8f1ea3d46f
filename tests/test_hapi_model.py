"""paddle.Model (hapi): fit/evaluate/predict give real Paddle 3.3.1's numbers
(tests/fixtures/hapi_case.py, fixtures from make_dygraph_fixtures.py's hapi mode) and a
hand-written eager loop's; save/load resume training exactly; files cross to Paddle; the
progress display and the callbacks behave as Paddle's."""
import os
import re
import sys

import numpy as np
import pytest

import fluidc as paddle

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures"))
import hapi_case  # noqa: E402
from dygraph_cases import _mlp, check_in_real_paddle, initial_state  # noqa: E402

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "paddle",
                        "dygraph")


def _state(m) -> dict:
    return {k: v.numpy() for k, v in m.network.state_dict().items()}


def test_fit_evaluate_predict_match_real_paddle(tmp_path):
    want = np.load(os.path.join(FIXTURES, "hapi.npz"))
    with paddle.unique_name.guard():  # parameter (and .pdopt) names of a fresh process
        got = hapi_case.run(paddle, str(tmp_path / "hapi"))
    assert sorted(got) == sorted(want.files)
    for key in want.files:
        exact = key == "accs" or key == "eval/acc"
        np.testing.assert_allclose(got[key], want[key], rtol=0 if exact else 1e-5,
                                   atol=0 if exact else 1e-6, err_msg=key)
    # Paddle's Model.save files load here and hold its final state
    m = hapi_case.model(paddle)
    m.load(os.path.join(FIXTURES, "hapi"))
    for k, v in _state(m).items():
        np.testing.assert_array_equal(v, want[f"state/{k}"], err_msg=k)
    check_in_real_paddle("check-hapi", tmp_path)


def test_fit_equals_hand_written_loop():
    m = hapi_case.model(paddle)
    rec = hapi_case.recorder(paddle)
    data = hapi_case.data(paddle, hapi_case.SAMPLES, 1)
    m.fit(data, batch_size=4, epochs=2, shuffle=False, verbose=0, callbacks=[rec])

    net = _mlp(paddle)
    net.set_state_dict(initial_state(net))
    opt = paddle.optimizer.Adam(learning_rate=0.01, parameters=net.parameters())
    loss_fn = paddle.nn.CrossEntropyLoss()
    losses = []
    for _ in range(2):
        for i in range(0, hapi_case.SAMPLES, 4):
            x = np.stack([data[j][0] for j in range(i, i + 4)])
            y = np.stack([data[j][1] for j in range(i, i + 4)])
            loss = loss_fn(net(paddle.to_tensor(x)), paddle.to_tensor(y))
            loss.backward()
            opt.step()
            opt.clear_grad()
            losses.append(float(loss))
    np.testing.assert_array_equal(rec.losses, losses)
    for k, v in net.state_dict().items():
        np.testing.assert_array_equal(_state(m)[k], v.numpy(), err_msg=k)


def _fresh_model():
    """hapi_case's model with the parameter names of a fresh process (linear_0, ...): the
    .pdopt accumulators are named after them, as in Paddle."""
    with paddle.unique_name.guard():
        return hapi_case.model(paddle)


def test_save_load_resumes_uninterrupted_training(tmp_path):
    data = hapi_case.data(paddle, hapi_case.SAMPLES, 1)
    whole = _fresh_model()
    whole.fit(data, batch_size=4, epochs=2, shuffle=False, verbose=0)
    first = _fresh_model()
    first.fit(data, batch_size=4, epochs=1, shuffle=False, verbose=0)
    first.save(str(tmp_path / "ckpt" / "m"))
    assert sorted(os.listdir(tmp_path / "ckpt")) == ["m.pdopt", "m.pdparams"]
    resumed = _fresh_model()
    resumed.load(str(tmp_path / "ckpt" / "m"))
    resumed.fit(data, batch_size=4, epochs=1, shuffle=False, verbose=0)
    for k, v in _state(whole).items():
        np.testing.assert_array_equal(_state(resumed)[k], v, err_msg=k)
    # reset_optimizer: the weights only, so Adam starts over and the numbers differ
    fresh_opt = _fresh_model()
    fresh_opt.load(str(tmp_path / "ckpt" / "m.pdparams"), reset_optimizer=True)
    fresh_opt.fit(data, batch_size=4, epochs=1, shuffle=False, verbose=0)
    assert not np.array_equal(_state(fresh_opt)["0.weight"], _state(whole)["0.weight"])


def test_load_mismatch_raises_or_skips(tmp_path):
    m = hapi_case.model(paddle)
    m.save(str(tmp_path / "m"))
    other = paddle.Model(paddle.nn.Sequential(paddle.nn.Linear(8, 5), paddle.nn.ReLU(),
                                              paddle.nn.Linear(5, 4)))
    with pytest.raises(ValueError, match=r"0.weight receives a shape \[8, 16\], but the "
                                         r"expected shape is \[8, 5\]"):
        other.load(str(tmp_path / "m"))
    with pytest.warns(UserWarning, match="Skip loading for 0.weight"):
        other.load(str(tmp_path / "m"), skip_mismatch=True)
    with pytest.raises(ValueError, match="does not exist"):
        m.load(str(tmp_path / "missing"))


def test_progress_display(capsys):
    m = hapi_case.model(paddle)
    m.fit(hapi_case.data(paddle, 20, 1), hapi_case.data(paddle, 10, 2), batch_size=4,
          epochs=2, shuffle=False, log_freq=2)
    out = capsys.readouterr().out.splitlines()
    assert out[1] == "Epoch 1/2"
    line = r"step {}/{} - loss: \d\.\d{{4}} - acc_top1: \d\.\d{{4}} - acc_top2: \d\.\d{{4}} - " \
           r"\d+(ms|us|s)/step"
    assert re.fullmatch(line.format(2, 5), out[2]) and re.fullmatch(line.format(4, 5), out[3])
    assert re.fullmatch(line.format(5, 5), out[4])
    assert out[5] == "Eval begin..." and re.fullmatch(line.format(2, 3), out[6])
    assert re.fullmatch(line.format(3, 3), out[7])
    assert out[8] == "Eval samples: 10" and out[9] == "Epoch 2/2"
    m.predict(hapi_case.data(paddle, 10, 2), batch_size=5)
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "Predict begin..." and out[-1] == "Predict samples: 10"


def test_batch_methods_and_predict_layout():
    m = hapi_case.model(paddle)
    x = np.ones((3, 8), "float32")
    y = np.array([[0], [1], [2]], "int64")
    losses, metrics = m.train_batch([x], [y])
    assert len(losses) == 1 and losses[0].shape == ()  # 0-d, as Paddle 3.x's loss
    assert len(metrics) == 1 and len(metrics[0]) == 2  # Accuracy(topk=(1, 2))
    losses, metrics = m.eval_batch([x], [y])
    assert len(losses) == 1 and len(metrics[0]) == 2
    out = m.predict_batch([x])
    assert len(out) == 1 and out[0].shape == (3, 4)
    per_batch = m.predict(hapi_case.data(paddle, 10, 2), batch_size=4, verbose=0)
    assert [b.shape for b in per_batch[0]] == [(4, 4), (4, 4), (2, 4)]
    stacked = m.predict(hapi_case.data(paddle, 10, 2), batch_size=4, verbose=0,
                        stack_outputs=True)
    np.testing.assert_array_equal(stacked[0], np.vstack(per_batch[0]))
    loader = paddle.io.DataLoader(hapi_case.data(paddle, 10, 2), batch_size=5)
    assert [b.shape for b in m.predict(loader, verbose=0)[0]] == [(5, 4), (5, 4)]


def test_callbacks_early_stopping_checkpoint_and_schedule(tmp_path):
    class Epochs(paddle.callbacks.Callback):
        def __init__(self):
            super().__init__()
            self.count = 0

        def on_epoch_end(self, epoch, logs=None):
            self.count += 1

    net = _mlp(paddle)
    sched = paddle.optimizer.lr.StepDecay(learning_rate=0.1, step_size=2, gamma=0.5)
    m = paddle.Model(net)
    m.prepare(paddle.optimizer.SGD(learning_rate=sched, parameters=m.parameters()),
              paddle.nn.CrossEntropyLoss(), paddle.metric.Accuracy())
    epochs = Epochs()
    stop = paddle.callbacks.EarlyStopping(monitor="acc", baseline=1.5, patience=1, verbose=0)
    m.fit(hapi_case.data(paddle, 8, 1), hapi_case.data(paddle, 4, 2), batch_size=4,
          epochs=6, verbose=0, save_dir=str(tmp_path), callbacks=[epochs, stop])
    assert epochs.count == 2 and m.stop_training  # no improvement over 1.5, patience 1
    assert sched.last_epoch == 4  # stepped once per batch: 2 epochs of 2 batches
    assert sorted(os.listdir(tmp_path)) == ["0.pdopt", "0.pdparams", "1.pdopt",
                                            "1.pdparams", "final.pdopt", "final.pdparams"]


def test_save_inference_model(tmp_path):
    m = hapi_case.model(paddle)
    path = str(tmp_path / "infer" / "m")
    m.save(path, training=False)
    x = np.linspace(-1, 1, 24, dtype="float32").reshape(3, 8)
    loaded = paddle.jit.load(path)
    loaded.eval()
    np.testing.assert_allclose(loaded(paddle.to_tensor(x)).numpy(), m.predict_batch([x])[0],
                               rtol=1e-6, atol=1e-7)


def test_bad_arguments():
    with pytest.raises(TypeError, match="paddle.nn.Layer"):
        paddle.Model(object())
    m = paddle.Model(_mlp(paddle))
    with pytest.raises(AssertionError, match="not sub class of Metric"):
        m.prepare(None, paddle.nn.CrossEntropyLoss(), metrics=[object()])
    with pytest.raises(RuntimeError, match="prepare"):
        m.train_batch([np.ones((2, 8), "float32")], [np.zeros((2, 1), "int64")])
    with pytest.raises(TypeError, match="InputSpec"):
        paddle.Model(_mlp(paddle), inputs=[3])
    with pytest.raises(TypeError, match="callbacks"):
        m.prepare(paddle.optimizer.SGD(parameters=m.parameters()),
                  paddle.nn.CrossEntropyLoss())
        m.fit(hapi_case.data(paddle, 4, 1), callbacks=[object()], verbose=0)


def test_dygraph_model_refuses_static_mode():
    """A Model made in dygraph mode runs eagerly; in static mode it says how to get a static
    one (tests/test_hapi_static_model.py)."""
    m = hapi_case.model(paddle)
    paddle.enable_static()
    try:
        with pytest.raises(RuntimeError, match="made in dygraph mode"):
            m.train_batch([np.ones((2, 8), "float32")], [np.zeros((2, 1), "int64")])
    finally:
        paddle.disable_static()


def test_metric_accuracy_on_eager_tensors():
    rng = np.random.default_rng(3)
    pred = rng.standard_normal((6, 5)).astype("float32")
    label = rng.integers(0, 5, (6, 1)).astype("int64")
    acc = paddle.metric.Accuracy(topk=(1, 3))
    correct = acc.compute(paddle.to_tensor(pred), paddle.to_tensor(label))
    assert isinstance(correct, paddle.Tensor)  # computed by ops, as Paddle's
    top = np.argsort(-pred, axis=1)
    want = [np.mean([label[i, 0] in top[i, :k] for i in range(6)]) for k in (1, 3)]
    assert acc.update(np.asarray(correct)) == pytest.approx(want)
    assert acc.accumulate() == pytest.approx(want) and acc.name() == ["acc_top1", "acc_top3"]


SUMMARY = """\
---------------------------------------------------------------------------
 Layer (type)       Input Shape          Output Shape         Param #    
===========================================================================
   Conv2D-1       [[1, 1, 28, 28]]      [1, 6, 28, 28]          60       
    ReLU-1        [[1, 6, 28, 28]]      [1, 6, 28, 28]           0       
  MaxPool2D-1     [[1, 6, 28, 28]]      [1, 6, 14, 14]           0       
   Flatten-1      [[1, 6, 14, 14]]        [1, 1176]              0       
   Linear-1         [[1, 1176]]            [1, 10]            11,770     
===========================================================================
Total params: 11,830
Trainable params: 11,830
Non-trainable params: 0
---------------------------------------------------------------------------
Input size (MB): 0.00
Forward/backward pass size (MB): 0.09
Params size (MB): 0.05
Estimated Total Size (MB): 0.14
---------------------------------------------------------------------------

"""


def test_summary_prints_paddles_table(capsys):
    nn = paddle.nn
    with paddle.unique_name.guard():  # layer numbers from 1, as in a fresh process
        net = nn.Sequential(nn.Conv2D(1, 6, 3, padding=1), nn.ReLU(), nn.MaxPool2D(2, 2),
                            nn.Flatten(), nn.Linear(6 * 14 * 14, 10))
    info = paddle.summary(net, (-1, 1, 28, 28))
    assert capsys.readouterr().out == SUMMARY  # Paddle 3.3.1's output for this net
    assert info == {"total_params": 11830, "trainable_params": 11830}
    bn = nn.BatchNorm1D(5)  # running mean / variance: counted, not trainable
    assert paddle.summary(bn, (4, 5)) == {"total_params": 20, "trainable_params": 10}
    assert net.training  # summary runs in eval mode and restores the mode
    with pytest.raises(TypeError, match="input_size"):
        paddle.summary(net, (1, 1, "2"))
    with pytest.raises(ValueError, match="only the dim of batch_size can be None or -1"):
        paddle.summary(net, (-1, -1))


@pytest.mark.parametrize("metric", ["Precision", "Recall", "Auc"])
def test_binary_metrics_take_eager_tensors(metric):
    rng = np.random.default_rng(5)
    preds = rng.random((12, 1)).astype("float32")
    labels = rng.integers(0, 2, (12, 1)).astype("int64")
    if metric == "Auc":  # Auc reads the positive class's column
        preds = np.hstack([1 - preds, preds])
    on_arrays, on_tensors = getattr(paddle.metric, metric)(), getattr(paddle.metric, metric)()
    on_arrays.update(preds, labels)
    on_tensors.update(paddle.to_tensor(preds), paddle.to_tensor(labels))
    assert on_tensors.accumulate() == on_arrays.accumulate()
    with pytest.raises(ValueError, match="numpy ndarray"):
        on_arrays.update([0.5], labels)


def test_docs_model_example_runs_unchanged(capsys):
    """paddle.Model's docstring example, MNIST replaced by 64 random images of its shapes."""
    import fluidc.nn as nn
    from fluidc.static import InputSpec

    class RandomMNIST(paddle.io.Dataset):
        def __init__(self):
            rng = np.random.default_rng(0)
            self.images = rng.random((64, 1, 28, 28)).astype("float32")
            self.labels = rng.integers(0, 10, (64, 1)).astype("int64")

        def __getitem__(self, i):
            return self.images[i], self.labels[i]

        def __len__(self):
            return 64

    device = paddle.set_device('cpu')  # noqa: F841 (the example's line)
    net = nn.Sequential(
        nn.Flatten(1),
        nn.Linear(784, 200),
        nn.Tanh(),
        nn.Linear(200, 10))
    input = InputSpec([None, 784], 'float32', 'x')  # noqa: A001
    label = InputSpec([None, 1], 'int64', 'label')
    model = paddle.Model(net, input, label)
    optim = paddle.optimizer.SGD(learning_rate=1e-3,
                                 parameters=model.parameters())
    model.prepare(optim,
                  paddle.nn.CrossEntropyLoss(),
                  paddle.metric.Accuracy())
    data = RandomMNIST()
    model.fit(data, epochs=2, batch_size=32, verbose=1)
    out = capsys.readouterr().out
    assert re.findall(r"Epoch \d/2\n", out) == ["Epoch 1/2\n", "Epoch 2/2\n"]
    # verbose=1: Paddle's bar, rewritten in place, here once per epoch (its last step)
    bars = re.findall(r"\rstep (\d)/2 \[(=+)\] - loss: \d\.\d{4} - acc: \d\.\d{4} - "
                      r"\d+(?:ms|us|s)/step *\n", out)
    assert bars == [("2", "=" * 30)] * 2


def test_progress_bar_rewrites_in_place(capsys):
    m = hapi_case.model(paddle)
    m.fit(hapi_case.data(paddle, 12, 1), batch_size=4, shuffle=False, log_freq=1, verbose=1)
    out = capsys.readouterr().out
    parts = [p for p in re.split(r"(\r|\x08+|\n)", out.split("Epoch 1/1\n")[1]) if p]
    texts = [re.sub(r"\d+(ms|us|s)/step", "T", p) for p in parts
             if p not in "\r\n" and not p.startswith("\x08")]
    # Paddle 3.3.1's text of this run (timings as T)
    assert [t.rstrip(" ") for t in texts] == [
        "step 1/3 [=========>....................] - loss: 1.6345 - acc_top1: 0.0000e+00 - "
        "acc_top2: 0.0000e+00 - ETA: 0s - T",
        "step 2/3 [===================>..........] - loss: 1.0832 - acc_top1: 0.3750 - "
        "acc_top2: 0.3750 - ETA: 0s - T",
        "step 3/3 [==============================] - loss: 1.3751 - acc_top1: 0.3333 - "
        "acc_top2: 0.3333 - T"]
    # each update: backspaces over the last text, a carriage return, the text padded to it
    assert parts[0] == "\r" and parts[-1] == "\n"
    assert parts[2] == "\x08" * len(parts[1]) and parts[3] == "\r"
    assert len(parts[4]) >= len(parts[1])


def test_fit_num_iters_and_accumulated_gradients():
    data = hapi_case.data(paddle, hapi_case.SAMPLES, 1)  # 5 batches of 4
    m = hapi_case.model(paddle)
    rec = hapi_case.recorder(paddle)
    m.fit(data, batch_size=4, epochs=3, shuffle=False, verbose=0, callbacks=[rec],
          num_iters=7)
    assert len(rec.losses) == 7  # 5 in the first epoch, 2 in the second, then stop

    m = hapi_case.model(paddle)
    m.fit(data, batch_size=4, epochs=1, shuffle=False, verbose=0, accumulate_grad_batches=2)
    net = _mlp(paddle)
    net.set_state_dict(initial_state(net))
    opt = paddle.optimizer.Adam(learning_rate=0.01, parameters=net.parameters())
    loss_fn = paddle.nn.CrossEntropyLoss()
    for i in range(5):  # updates after batches 2, 4 and the last (5)
        x = np.stack([data[j][0] for j in range(4 * i, 4 * i + 4)])
        y = np.stack([data[j][1] for j in range(4 * i, 4 * i + 4)])
        loss_fn(net(paddle.to_tensor(x)), paddle.to_tensor(y)).backward()
        if i in (1, 3, 4):
            opt.step()
            opt.clear_grad()
    for k, v in net.state_dict().items():
        np.testing.assert_allclose(_state(m)[k], v.numpy(), rtol=1e-6, atol=1e-7, err_msg=k)
