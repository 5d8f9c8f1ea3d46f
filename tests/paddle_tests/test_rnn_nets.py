"""Port of Paddle test/rnn/test_rnn_nets.py: paddle.nn.SimpleRNN / GRU / LSTM (2 layers, 16 ->
32) against a numpy reference (rnn_numpy.py) with the same parameters (convert.py): with
initial states, zero states and input lengths, time-major or not, forward / bidirectional /
bidirect; and test_predict (train a step with dropout, then jit.save with InputSpec
[None, None, 16] and load_inference_model).

Changed: float32 instead of paddle.set_default_dtype("float64") (fluidc has no default-dtype
switch): the reference's parameters and the inputs are float32 values (the reference computes
in float64 from them), atol 1e-6 instead of 1e-8 (float32 sums); the sequence mask
(paddle.static.nn.sequence_lod.sequence_mask, not in fluidc) is built with numpy; load_tests'
(time_major, direction) suite became one subclass per combination; test_predict is its own
test per mode; CPU only.
run-on-paddle: pir (Paddle 3.3.1's legacy-IR to_static of these networks fails in
Tensor._to_static_var: "Unknown place type").
"""
import os
import tempfile
import unittest

import numpy as np

import fluidc as paddle

from .convert import convert_params_for_net
from .rnn_numpy import GRU, LSTM, SimpleRNN
from .rnn_util import randn as _randn
from .rnn_util import sequence_mask as _mask
from .rnn_util import to_tensor as _t

bidirectional_list = ["bidirectional", "bidirect"]


class _NetTest(unittest.TestCase):
    np_cls = paddle_cls = None
    time_major, direction = True, "forward"

    def setUp(self):
        place = paddle.set_device("cpu")
        paddle.disable_static(place)
        self.num_directions = 2 if self.direction in bidirectional_list else 1
        rnn1 = self.np_cls(16, 32, 2, time_major=self.time_major, direction=self.direction)
        rnn2 = getattr(paddle.nn, self.paddle_cls)(
            16, 32, 2, time_major=self.time_major, direction=self.direction
        )
        convert_params_for_net(rnn1, rnn2)

        self.rnn1 = rnn1
        self.rnn2 = rnn2

    def _x(self):
        x = _randn(12, 4, 16)
        if not self.time_major:
            x = np.transpose(x, [1, 0, 2])
        return x

    def _states(self):
        n = 2 if self.paddle_cls == "LSTM" else 1
        states = [_randn(2 * self.num_directions, 4, 32) for _ in range(n)]
        return states[0] if n == 1 else tuple(states)

    def _check(self, got, want):
        for g, w in zip(_flat(got), _flat(want)):
            np.testing.assert_allclose(w, g.numpy(), atol=1e-6, rtol=1e-5)

    def test_with_initial_state(self):
        x, prev = self._x(), self._states()
        y1, h1 = self.rnn1(x, prev)
        prev2 = tuple(_t(p) for p in prev) if isinstance(prev, tuple) else _t(prev)
        y2, h2 = self.rnn2(_t(x), prev2)
        self._check([y2, h2], [y1, h1])

    def test_with_zero_state(self):
        x = self._x()
        y1, h1 = self.rnn1(x)
        y2, h2 = self.rnn2(_t(x))
        self._check([y2, h2], [y1, h1])

    def test_with_input_lengths(self):
        x = self._x()
        sequence_length = np.array([12, 10, 9, 8], dtype=np.int64)

        y1, h1 = self.rnn1(x, sequence_length=sequence_length)

        seq_len = paddle.to_tensor(sequence_length)
        mask = _mask(sequence_length)
        if self.time_major:
            mask = paddle.transpose(mask, [1, 0])
        y2, h2 = self.rnn2(_t(x), sequence_length=seq_len)
        mask = paddle.unsqueeze(mask, -1)
        y2 = paddle.multiply(y2, mask)
        self._check([y2, h2], [y1, h1])


def _flat(tree):
    if isinstance(tree, (list, tuple)):
        return [t for x in tree for t in _flat(x)]
    return [tree]


def predict_test_util(place, mode, stop_gradient=True):
    place = paddle.set_device(place)
    paddle.seed(123)
    np.random.seed(123)

    class Net(paddle.nn.Layer):
        def __init__(self):
            super().__init__()
            self.rnn = getattr(paddle.nn, mode)(
                16, 32, 2, direction="bidirectional", dropout=0.1
            )

        def forward(self, input):
            return self.rnn(input)

    x = paddle.randn((4, 10, 16))
    x.stop_gradient = stop_gradient
    mask = _mask(np.array([10, 6, 8, 5]), maxlen=10)
    mask = paddle.unsqueeze(mask, [2])
    rnn = Net()
    y, _ = rnn(x)
    y = y * mask
    loss = paddle.mean(y)
    loss.backward()
    optimizer = paddle.optimizer.Adam(
        learning_rate=0.1, parameters=rnn.parameters()
    )
    optimizer.step()
    rnn.eval()
    y, _ = rnn(x)
    rnn.train()

    rnn = paddle.jit.to_static(
        rnn, [paddle.static.InputSpec(shape=[None, None, 16], dtype=x.dtype)]
    )
    temp_dir = tempfile.TemporaryDirectory()
    save_dirname = os.path.join(temp_dir.name, "./inference/%s_infer" % mode)

    paddle.jit.save(rnn, save_dirname)

    paddle.enable_static()

    new_scope = paddle.static.Scope()
    with paddle.static.scope_guard(new_scope):
        exe = paddle.static.Executor(place)
        [
            inference_program,
            feed_target_names,
            fetch_targets,
        ] = paddle.static.load_inference_model(save_dirname, exe)
        results = exe.run(
            inference_program,
            feed={feed_target_names[0]: x.numpy()},
            fetch_list=fetch_targets,
        )
        np.testing.assert_equal(
            y.numpy(), results[0]
        )  # eval results equal predict results
    paddle.disable_static()

    temp_dir.cleanup()


class TestPredict(unittest.TestCase):
    def setUp(self):  # as the network tests' setUp, which ran test_predict in Paddle
        paddle.disable_static(paddle.set_device("cpu"))

    def test_simple_rnn(self):
        predict_test_util("cpu", "SimpleRNN")

    def test_gru(self):
        predict_test_util("cpu", "GRU")

    def test_lstm(self):
        predict_test_util("cpu", "LSTM")
        predict_test_util("cpu", "LSTM", False)


# load_tests' direction x time_major combinations, per network
for _np_cls, _name in ((SimpleRNN, "SimpleRNN"), (GRU, "GRU"), (LSTM, "LSTM")):
    for _direction in ("forward", "bidirectional", "bidirect"):
        for _time_major in (True, False):
            _cls = f"Test{_name}_{_direction}_{'time_major' if _time_major else 'batch_major'}"
            globals()[_cls] = type(_cls, (_NetTest,), {
                "np_cls": _np_cls, "paddle_cls": _name, "direction": _direction,
                "time_major": _time_major})
del _NetTest
