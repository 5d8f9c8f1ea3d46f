"""paddle.jit.save / paddle.jit.load: the files have Paddle's structure (checked against the
files real Paddle 3.3.1 wrote for the same model, tests/fixtures/paddle/dygraph/jit, and, with
FLUIDC_PADDLE_PYTHON set, loaded by Paddle itself), and a TranslatedLayer predicts, switches
train/eval, fine-tunes as the eager model does, and saves again."""
import os
import pickle
import sys

import numpy as np
import pytest

import fluidc as paddle
import fluidc.nn as nn
from fluidc.runtime.io import read_program
from fluidc.runtime.tensor_io import count_streams
from fluidc.static import InputSpec

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures"))
from dygraph_cases import CASES, check_in_real_paddle, initial_state  # noqa: E402

JIT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "paddle", "dygraph",
                   "jit")
EXPECTED = np.load(os.path.join(JIT, "jit.npz"))
SPEC = [InputSpec([None, 8], "float32", "x")]


def _mlp():
    model = CASES["mlp_adam"][0](paddle)
    model.set_state_dict(initial_state(model))
    return model


def _structure(prefix: str):
    program = read_program(prefix + ".pdmodel")
    block = program.global_block()
    ops = [op.type for op in block.ops]
    feeds = [op.output("Out")[0] for op in block.ops if op.type == "feed"]
    persist = sorted(v.name for v in block.vars.values()
                     if v.persistable and v.name not in ("feed", "fetch"))
    with open(prefix + ".pdiparams", "rb") as f:
        streams = count_streams(f.read(), prefix)
    with open(prefix + ".pdiparams.info", "rb") as f:
        info = pickle.load(f)
    return ops, feeds, persist, streams, info


def test_saved_files_have_paddles_structure(tmp_path):
    model = _mlp()
    model.eval()
    paddle.jit.save(model, str(tmp_path / "mlp"), input_spec=SPEC)
    ops, feeds, persist, streams, info = _structure(str(tmp_path / "mlp"))
    p_ops, p_feeds, p_persist, p_streams, p_info = _structure(os.path.join(JIT, "mlp"))
    assert ops == p_ops and feeds == p_feeds == ["x"]
    assert len(persist) == len(p_persist) == len(streams) == len(p_streams)
    assert [s.shape() for s in streams] == [s.shape() for s in p_streams]  # sorted by name
    by_structure = {e["structured_name"]: {k: v for k, v in e.items() if k != "structured_name"}
                    for e in info.values()}
    assert by_structure == {e["structured_name"]: {k: v for k, v in e.items()
                                                   if k != "structured_name"}
                            for e in p_info.values()}
    assert sorted(info) == persist
    loaded = paddle.jit.load(str(tmp_path / "mlp"))
    loaded.eval()
    np.testing.assert_allclose(loaded(paddle.to_tensor(EXPECTED["input"])).numpy(),
                               EXPECTED["output"], rtol=1e-6, atol=1e-7)


def _finetune(layer, steps=3):
    opt = paddle.optimizer.SGD(learning_rate=0.1, parameters=layer.parameters())
    x = paddle.to_tensor(EXPECTED["input"])
    y = paddle.to_tensor(np.array([[0], [1], [3]], "int64"))
    losses = []
    for _ in range(steps):
        loss = paddle.nn.functional.cross_entropy(layer(x), y)
        loss.backward()
        opt.step()
        opt.clear_grad()
        losses.append(float(loss))
    return np.array(losses)


def test_paddles_files_predict_and_fine_tune_as_the_eager_model(tmp_path):
    loaded = paddle.jit.load(os.path.join(JIT, "mlp"))
    loaded.eval()
    np.testing.assert_allclose(loaded(paddle.to_tensor(EXPECTED["input"])).numpy(),
                               EXPECTED["output"], rtol=1e-6, atol=1e-7)
    assert sorted(loaded.state_dict()) == ["0.bias", "0.weight", "2.bias", "2.weight"]
    loaded.train()
    eager = _mlp()
    losses = _finetune(loaded)
    np.testing.assert_allclose(losses, _finetune(eager), rtol=1e-6)
    assert losses[-1] < losses[0]
    for k, v in eager.state_dict().items():
        np.testing.assert_allclose(loaded.state_dict()[k].numpy(), v.numpy(), rtol=1e-6,
                                   atol=1e-7)
    paddle.jit.save(loaded, str(tmp_path / "tuned"))  # the docs' fine-tune, then save again
    again = paddle.jit.load(str(tmp_path / "tuned"))
    again.eval()
    eager.eval()
    x = paddle.to_tensor(EXPECTED["input"])
    np.testing.assert_allclose(again(x).numpy(), eager(x).numpy(), rtol=1e-6, atol=1e-7)


def test_train_and_eval_switch_dropout(tmp_path):
    model = nn.Sequential(nn.Linear(8, 8), nn.Dropout(0.5))
    paddle.jit.save(model, str(tmp_path / "drop"), input_spec=SPEC)
    loaded = paddle.jit.load(str(tmp_path / "drop"))
    x = paddle.ones([4, 8])
    loaded.eval()
    model.eval()
    np.testing.assert_allclose(loaded(x).numpy(), model(x).numpy(), rtol=1e-6)
    loaded.train()
    dropped = loaded(x).numpy()
    assert (dropped == 0).any() and not np.allclose(dropped, model(x).numpy())


def test_several_methods_and_a_function(tmp_path):
    class Net(nn.Layer):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(8, 3)

        @paddle.jit.to_static(input_spec=SPEC)
        def forward(self, x):
            return self.fc(x)

        @paddle.jit.to_static(input_spec=[InputSpec([None, 8], "float32", "x")])
        def scores(self, x):
            return paddle.nn.functional.softmax(self.fc(x))

        def helper(self, x):  # not to_static: not saved
            return x

    net = Net()
    prefix = str(tmp_path / "net")
    paddle.jit.save(net, prefix)
    assert sorted(os.listdir(tmp_path)) == ["net.pdiparams", "net.pdiparams.info",
                                            "net.pdmodel", "net.scores.pdiparams",
                                            "net.scores.pdmodel"]
    loaded = paddle.jit.load(prefix)
    loaded.eval()
    x = paddle.randn([2, 8])
    np.testing.assert_allclose(loaded(x).numpy(), net(x).numpy(), rtol=1e-6)
    np.testing.assert_allclose(loaded.scores(x).numpy(), net.scores(x).numpy(), rtol=1e-6)

    def double(x):
        return x * 2 + 1
    paddle.jit.save(double, str(tmp_path / "fn"), input_spec=[InputSpec([3], "float32", "x")])
    assert not os.path.exists(tmp_path / "fn.pdiparams.info")  # no parameters: Paddle's rule
    fn = paddle.jit.load(str(tmp_path / "fn"))
    np.testing.assert_allclose(fn(paddle.ones([3])).numpy(), [3.0, 3.0, 3.0])


def test_save_errors(tmp_path):
    with pytest.raises(ValueError, match="never called and has no input_spec"):
        paddle.jit.save(nn.Linear(2, 2), str(tmp_path / "lin"))
    with pytest.raises(ValueError, match="dirname/file_prefix"):
        paddle.jit.save(nn.Linear(2, 2), str(tmp_path) + os.sep, input_spec=SPEC)
    with pytest.raises(ValueError, match="not exists"):
        paddle.jit.load(str(tmp_path / "missing"))
    with pytest.raises(TypeError, match="input_spec"):
        paddle.jit.save(nn.Linear(2, 2), str(tmp_path / "lin"), input_spec=SPEC[0])
    with pytest.raises(ValueError, match=r"config \(outputs\) of `paddle.jit.save`"):
        paddle.jit.save(nn.Linear(8, 2), str(tmp_path / "lin"), input_spec=SPEC, outputs=[])
    with pytest.raises(NotImplementedError, match="combine_params"):
        paddle.jit.save(nn.Linear(8, 2), str(tmp_path / "lin"), input_spec=SPEC,
                        combine_params=True)


def test_saved_after_a_call_uses_its_signature(tmp_path):
    model = paddle.jit.to_static(_mlp())
    x = paddle.to_tensor(EXPECTED["input"])
    model.eval()
    model(x)
    paddle.jit.save(model, str(tmp_path / "called"))
    loaded = paddle.jit.load(str(tmp_path / "called"))
    loaded.eval()
    np.testing.assert_allclose(loaded(x).numpy(), EXPECTED["output"], rtol=1e-6, atol=1e-7)


def test_paddles_batch_norm_model_predicts_and_trains_as_the_eager_model():
    loaded = paddle.jit.load(os.path.join(JIT, "cnn"))
    loaded.eval()
    x = paddle.to_tensor(EXPECTED["cnn/input"])
    np.testing.assert_allclose(loaded(x).numpy(), EXPECTED["cnn/output"], rtol=1e-5,
                               atol=1e-6)
    eager = CASES["cnn_momentum"][0](paddle)
    eager.set_state_dict(initial_state(eager))
    # saved in eval mode, the program's batch_norm has use_global_stats: train() turns only
    # is_test off (as Paddle's TranslatedLayer does), so it trains as the eager model in eval
    eager.eval()
    loaded.train()
    y = paddle.to_tensor(np.array([[0], [2]], "int64"))
    losses = []
    for layer in (loaded, eager):
        opt = paddle.optimizer.SGD(learning_rate=0.1, parameters=layer.parameters())
        for _ in range(2):
            loss = paddle.nn.functional.cross_entropy(layer(x), y)
            loss.backward()
            opt.step()
            opt.clear_grad()
            losses.append(float(loss))
    np.testing.assert_allclose(losses[:2], losses[2:], rtol=1e-5)
    for k, v in eager.state_dict().items():
        np.testing.assert_allclose(loaded.state_dict()[k].numpy(), v.numpy(), rtol=1e-5,
                                   atol=1e-6, err_msg=k)


def test_our_jit_files_load_in_real_paddle(tmp_path):
    """make_dygraph_fixtures.py's check-jit mode, with the python named by
    FLUIDC_PADDLE_PYTHON: Paddle's jit.load and static.load_inference_model."""
    outputs = {}
    for name, model, spec in (("mlp", _mlp(), SPEC),
                              ("cnn", CASES["cnn_momentum"][0](paddle),
                               [InputSpec([None, 1, 8, 8], "float32", "x")])):
        model.set_state_dict(initial_state(model))
        model.eval()
        paddle.jit.save(model, str(tmp_path / name), input_spec=spec)
        key = "" if name == "mlp" else f"{name}/"
        outputs[key + "input"] = EXPECTED[key + "input"]
        outputs[key + "output"] = model(paddle.to_tensor(EXPECTED[key + "input"])).numpy()
    np.savez(tmp_path / "expected.npz", **outputs)
    check_in_real_paddle("check-jit", tmp_path)


def test_the_docs_example_trains_saves_loads_and_fine_tunes(tmp_path):
    """The paddle.jit.save / load guide's LinearNet, unchanged but for the import."""
    batch_size, batch_num, image_size, class_num = 16, 4, 784, 10

    class RandomDataset(paddle.io.Dataset):
        def __init__(self, num_samples):
            self.num_samples = num_samples

        def __getitem__(self, idx):
            rng = np.random.default_rng(idx)
            image = rng.random([image_size]).astype("float32")
            label = rng.integers(0, class_num - 1, (1,)).astype("int64")
            return image, label

        def __len__(self):
            return self.num_samples

    class LinearNet(nn.Layer):
        def __init__(self):
            super().__init__()
            self._linear = nn.Linear(image_size, class_num)

        @paddle.jit.to_static
        def forward(self, x):
            return self._linear(x)

    def train(layer, loader, loss_fn, opt):
        losses = []
        for image, label in loader():
            out = layer(image)
            loss = loss_fn(out, label)
            loss.backward()
            opt.step()
            opt.clear_grad()
            losses.append(float(loss))
        return losses

    layer = LinearNet()
    eager = nn.Linear(image_size, class_num)
    eager.set_state_dict(layer._linear.state_dict())
    loss_fn = nn.CrossEntropyLoss()
    adam = paddle.optimizer.Adam(learning_rate=0.001, parameters=layer.parameters())
    dataset = RandomDataset(batch_num * batch_size)
    loader = paddle.io.DataLoader(dataset, batch_size=batch_size, shuffle=False,
                                  drop_last=True, num_workers=0)
    losses = train(layer, loader, loss_fn, adam)
    eager_adam = paddle.optimizer.Adam(learning_rate=0.001, parameters=eager.parameters())
    np.testing.assert_allclose(losses, train(eager, loader, loss_fn, eager_adam), rtol=1e-6)
    path = str(tmp_path / "example.model" / "linear")
    paddle.jit.save(layer, path)

    loaded_layer = paddle.jit.load(path)
    loaded_layer.eval()
    x = paddle.randn([1, image_size], "float32")
    layer.eval()
    np.testing.assert_allclose(loaded_layer(paddle.concat([x] * batch_size)).numpy()[:1],
                               layer(x).numpy(), rtol=1e-5, atol=1e-6)
    loaded_layer.train()
    adam = paddle.optimizer.Adam(learning_rate=0.001, parameters=loaded_layer.parameters())
    tuned = train(loaded_layer, loader, loss_fn, adam)
    eager_adam = paddle.optimizer.Adam(learning_rate=0.001, parameters=eager.parameters())
    np.testing.assert_allclose(tuned, train(eager, loader, loss_fn, eager_adam), rtol=1e-5)
    paddle.jit.save(loaded_layer, str(tmp_path / "fine_tune.model" / "linear"),
                    input_spec=[x])
    assert os.path.exists(tmp_path / "fine_tune.model" / "linear.pdiparams")
