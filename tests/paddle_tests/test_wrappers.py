"""Port of Paddle test/rnn/test_wrappers.py: paddle.nn.RNN (forward and backward) and
paddle.nn.BiRNN over GRUCells against the numpy reference (rnn_numpy.py) with the same
parameters: with an initial state, zero state and input lengths.

Changed: float32 instead of paddle.set_default_dtype("float64") (rnn_util.py: the reference's
parameters and inputs are float32 values, atol 1e-6 instead of 1e-8); sequence_mask made with
numpy; load_tests' suite (time_major False; RNN forward / backward, BiRNN) became one subclass
per case; CPU only.
"""
import unittest

import numpy as np

import fluidc as paddle

from .convert import convert_params_for_cell
from .rnn_numpy import RNN, BiRNN, GRUCell
from .rnn_util import randn as _randn
from .rnn_util import sequence_mask as _mask
from .rnn_util import to_tensor as _t


class TestRNNWrapper(unittest.TestCase):
    time_major, direction = False, "forward"

    def setUp(self):
        paddle.disable_static(paddle.CPUPlace())
        cell1 = GRUCell(16, 32, dtype="float32")
        cell2 = paddle.nn.GRUCell(16, 32)
        convert_params_for_cell(cell1, cell2)
        rnn1 = RNN(
            cell1,
            is_reverse=self.direction == "backward",
            time_major=self.time_major,
        )
        rnn2 = paddle.nn.RNN(
            cell2,
            is_reverse=self.direction == "backward",
            time_major=self.time_major,
        )

        self.rnn1 = rnn1
        self.rnn2 = rnn2

    def test_with_initial_state(self):
        rnn1 = self.rnn1
        rnn2 = self.rnn2

        x = _randn(12, 4, 16)
        if not self.time_major:
            x = np.transpose(x, [1, 0, 2])
        prev_h = _randn(4, 32)

        y1, h1 = rnn1(x, prev_h)
        y2, h2 = rnn2(_t(x), _t(prev_h))
        np.testing.assert_allclose(y1, y2.numpy(), atol=1e-6, rtol=1e-5)
        np.testing.assert_allclose(h1, h2.numpy(), atol=1e-6, rtol=1e-5)

    def test_with_zero_state(self):
        rnn1 = self.rnn1
        rnn2 = self.rnn2

        x = _randn(12, 4, 16)
        if not self.time_major:
            x = np.transpose(x, [1, 0, 2])

        y1, h1 = rnn1(x)
        y2, h2 = rnn2(_t(x))
        np.testing.assert_allclose(y1, y2.numpy(), atol=1e-6, rtol=1e-5)
        np.testing.assert_allclose(h1, h2.numpy(), atol=1e-6, rtol=1e-5)

    def test_with_input_lengths(self):
        rnn1 = self.rnn1
        rnn2 = self.rnn2

        x = _randn(12, 4, 16)
        if not self.time_major:
            x = np.transpose(x, [1, 0, 2])
        sequence_length = np.array([12, 10, 9, 8], dtype=np.int64)

        y1, h1 = rnn1(x, sequence_length=sequence_length)

        seq_len = paddle.to_tensor(sequence_length)
        mask = _mask(sequence_length)
        if self.time_major:
            mask = paddle.transpose(mask, [1, 0])
        y2, h2 = rnn2(_t(x), sequence_length=seq_len)
        mask = paddle.unsqueeze(mask, -1)
        y2 = paddle.multiply(y2, mask)

        np.testing.assert_allclose(y1, y2.numpy(), atol=1e-6, rtol=1e-5)
        np.testing.assert_allclose(h1, h2.numpy(), atol=1e-6, rtol=1e-5)


class TestRNNWrapperBackward(TestRNNWrapper):
    direction = "backward"


class TestBiRNNWrapper(unittest.TestCase):
    time_major = False

    def setUp(self):
        paddle.disable_static(paddle.CPUPlace())
        fw_cell1 = GRUCell(16, 32, dtype="float32")
        bw_cell1 = GRUCell(16, 32, dtype="float32")
        fw_cell2 = paddle.nn.GRUCell(16, 32)
        bw_cell2 = paddle.nn.GRUCell(16, 32)
        convert_params_for_cell(fw_cell1, fw_cell2)
        convert_params_for_cell(bw_cell1, bw_cell2)
        rnn1 = BiRNN(fw_cell1, bw_cell1, time_major=self.time_major)
        rnn2 = paddle.nn.BiRNN(fw_cell2, bw_cell2, time_major=self.time_major)

        self.rnn1 = rnn1
        self.rnn2 = rnn2

    def test_with_initial_state(self):
        rnn1 = self.rnn1
        rnn2 = self.rnn2

        x = _randn(12, 4, 16)
        if not self.time_major:
            x = np.transpose(x, [1, 0, 2])
        fw_prev_h = _randn(4, 32)
        bw_prev_h = _randn(4, 32)

        y1, (fw_h1, bw_h1) = rnn1(x, (fw_prev_h, bw_prev_h))
        y2, (fw_h2, bw_h2) = rnn2(
            _t(x),
            (_t(fw_prev_h), _t(bw_prev_h)),
        )
        np.testing.assert_allclose(y1, y2.numpy(), atol=1e-6, rtol=1e-5)
        np.testing.assert_allclose(fw_h1, fw_h2.numpy(), atol=1e-6, rtol=1e-5)
        np.testing.assert_allclose(bw_h1, bw_h2.numpy(), atol=1e-6, rtol=1e-5)

    def test_with_zero_state(self):
        rnn1 = self.rnn1
        rnn2 = self.rnn2

        x = _randn(12, 4, 16)
        if not self.time_major:
            x = np.transpose(x, [1, 0, 2])

        y1, (fw_h1, bw_h1) = rnn1(x)
        y2, (fw_h2, bw_h2) = rnn2(_t(x))
        np.testing.assert_allclose(y1, y2.numpy(), atol=1e-6, rtol=1e-5)
        np.testing.assert_allclose(fw_h1, fw_h2.numpy(), atol=1e-6, rtol=1e-5)
        np.testing.assert_allclose(bw_h1, bw_h2.numpy(), atol=1e-6, rtol=1e-5)

    def test_with_input_lengths(self):
        rnn1 = self.rnn1
        rnn2 = self.rnn2

        x = _randn(12, 4, 16)
        if not self.time_major:
            x = np.transpose(x, [1, 0, 2])
        sequence_length = np.array([12, 10, 9, 8], dtype=np.int64)

        y1, (fw_h1, bw_h1) = rnn1(x, sequence_length=sequence_length)

        seq_len = paddle.to_tensor(sequence_length)
        mask = _mask(sequence_length)
        if self.time_major:
            mask = paddle.transpose(mask, [1, 0])
        y2, (fw_h2, bw_h2) = rnn2(_t(x), sequence_length=seq_len)
        mask = paddle.unsqueeze(mask, -1)
        y2 = paddle.multiply(y2, mask)

        np.testing.assert_allclose(y1, y2.numpy(), atol=1e-6, rtol=1e-5)
        np.testing.assert_allclose(fw_h1, fw_h2.numpy(), atol=1e-6, rtol=1e-5)
        np.testing.assert_allclose(bw_h1, bw_h2.numpy(), atol=1e-6, rtol=1e-5)
