"""Port of Paddle test/rnn/test_rnn_cells.py: paddle.nn.SimpleRNNCell / GRUCell / LSTMCell
against a numpy reference (rnn_numpy.py) with the same parameters (convert.py), with and
without an initial state, and the hidden_size error; for weight and bias attrs True / False.

Changed: float32 instead of paddle.framework.set_default_dtype("float64") (fluidc has no
default-dtype switch): the reference's parameters and the inputs are float32 values (the
reference computes in float64 from them), atol 1e-6 instead of 1e-8 (float32 sums);
load_tests' (weight, bias) suite became one subclass per combination; CPU only.
"""
import unittest

import numpy as np

import fluidc as paddle

from .convert import convert_params_for_cell
from .rnn_numpy import GRUCell, LSTMCell, SimpleRNNCell
from .rnn_util import randn as _randn
from .rnn_util import to_tensor as _t


class TestSimpleRNNCell(unittest.TestCase):
    weight, bias = True, True

    def setUp(self):
        paddle.disable_static(paddle.CPUPlace())
        rnn1 = SimpleRNNCell(16, 32, weight=self.weight, bias=self.bias, dtype="float32")
        rnn2 = paddle.nn.SimpleRNNCell(
            16,
            32,
            weight_ih_attr=self.weight,
            weight_hh_attr=self.weight,
            bias_ih_attr=self.bias,
            bias_hh_attr=self.bias,
        )
        convert_params_for_cell(rnn1, rnn2)

        self.rnn1 = rnn1
        self.rnn2 = rnn2

    def test_with_initial_state(self):
        rnn1 = self.rnn1
        rnn2 = self.rnn2

        x = _randn(4, 16)
        prev_h = _randn(4, 32)

        y1, h1 = rnn1(x, prev_h)
        y2, h2 = rnn2(_t(x), _t(prev_h))
        np.testing.assert_allclose(h1, h2.numpy(), atol=1e-6, rtol=1e-5)

    def test_with_zero_state(self):
        rnn1 = self.rnn1
        rnn2 = self.rnn2

        x = _randn(4, 16)

        y1, h1 = rnn1(x)
        y2, h2 = rnn2(_t(x))
        np.testing.assert_allclose(h1, h2.numpy(), atol=1e-6, rtol=1e-5)

    def test_errors(self):
        def test_zero_hidden_size():
            cell = paddle.nn.SimpleRNNCell(-1, 0)  # noqa: F841

        self.assertRaises(ValueError, test_zero_hidden_size)


class TestGRUCell(unittest.TestCase):
    weight, bias = True, True

    def setUp(self):
        paddle.disable_static(paddle.CPUPlace())
        rnn1 = GRUCell(16, 32, weight=self.weight, bias=self.bias, dtype="float32")
        rnn2 = paddle.nn.GRUCell(
            16,
            32,
            weight_ih_attr=self.weight,
            weight_hh_attr=self.weight,
            bias_ih_attr=self.bias,
            bias_hh_attr=self.bias,
        )
        convert_params_for_cell(rnn1, rnn2)

        self.rnn1 = rnn1
        self.rnn2 = rnn2

    def test_with_initial_state(self):
        rnn1 = self.rnn1
        rnn2 = self.rnn2

        x = _randn(4, 16)
        prev_h = _randn(4, 32)

        y1, h1 = rnn1(x, prev_h)
        y2, h2 = rnn2(_t(x), _t(prev_h))
        np.testing.assert_allclose(h1, h2.numpy(), atol=1e-6, rtol=1e-5)

    def test_with_zero_state(self):
        rnn1 = self.rnn1
        rnn2 = self.rnn2

        x = _randn(4, 16)

        y1, h1 = rnn1(x)
        y2, h2 = rnn2(_t(x))
        np.testing.assert_allclose(h1, h2.numpy(), atol=1e-6, rtol=1e-5)

    def test_errors(self):
        def test_zero_hidden_size():
            cell = paddle.nn.GRUCell(-1, 0)  # noqa: F841

        self.assertRaises(ValueError, test_zero_hidden_size)


class TestLSTMCell(unittest.TestCase):
    weight, bias = True, True

    def setUp(self):
        paddle.disable_static(paddle.CPUPlace())
        rnn1 = LSTMCell(16, 32, weight=self.weight, bias=self.bias, dtype="float32")
        rnn2 = paddle.nn.LSTMCell(
            16,
            32,
            weight_ih_attr=self.weight,
            weight_hh_attr=self.weight,
            bias_ih_attr=self.bias,
            bias_hh_attr=self.bias,
        )
        convert_params_for_cell(rnn1, rnn2)

        self.rnn1 = rnn1
        self.rnn2 = rnn2

    def test_with_initial_state(self):
        rnn1 = self.rnn1
        rnn2 = self.rnn2

        x = _randn(4, 16)
        prev_h = _randn(4, 32)
        prev_c = _randn(4, 32)

        y1, (h1, c1) = rnn1(x, (prev_h, prev_c))
        y2, (h2, c2) = rnn2(
            _t(x),
            (_t(prev_h), _t(prev_c)),
        )
        np.testing.assert_allclose(h1, h2.numpy(), atol=1e-6, rtol=1e-5)
        np.testing.assert_allclose(c1, c2.numpy(), atol=1e-6, rtol=1e-5)

    def test_with_zero_state(self):
        rnn1 = self.rnn1
        rnn2 = self.rnn2

        x = _randn(4, 16)

        y1, (h1, c1) = rnn1(x)
        y2, (h2, c2) = rnn2(_t(x))
        np.testing.assert_allclose(h1, h2.numpy(), atol=1e-6, rtol=1e-5)
        np.testing.assert_allclose(c1, c2.numpy(), atol=1e-6, rtol=1e-5)

    def test_errors(self):
        def test_zero_hidden_size():
            cell = paddle.nn.LSTMCell(-1, 0)  # noqa: F841

        self.assertRaises(ValueError, test_zero_hidden_size)


# load_tests' weight x bias combinations (True, True is the classes above)
for _base in (TestSimpleRNNCell, TestGRUCell, TestLSTMCell):
    for _weight, _bias in ((True, False), (False, True), (False, False)):
        _name = f"{_base.__name__}Weight{_weight}Bias{_bias}"
        globals()[_name] = type(_name, (_base,), {"weight": _weight, "bias": _bias})
