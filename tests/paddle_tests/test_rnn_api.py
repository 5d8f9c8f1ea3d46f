"""Port of Paddle test/rnn/test_rnn_api.py: nn.RNN over a SimpleRNNCell / GRUCell in a static
program whose time dim is unknown (data [None, 4, 16]: Paddle's and fluidc's static nn.RNN is a
While loop over tensor arrays there) against the same cell run eagerly, with and without
sequence lengths, and the gradient of the initial state through the loop.

Changed: paddle.base is the module attribute `base` (the parity runner swaps the plain
package imports only); the static cell takes the eager cell's parameters through the scope
(Paddle draws equal ones from equal program seeds, paddle.framework.random.
_manual_program_seed, which fluidc does not have); set_default_dtype("float64") in setUp,
restored in tearDown; the three classes' bodies are one base parametrized by the cell (and
the backward case); runTest's two
test_base calls are test_base and test_base_seq_len; TestGRUBackward takes the gradients
with paddle.static.gradients (its legacy branch, sgd.minimize and fetches by the names
pre_h@GRAD / x@GRAD, and its PIR branch, append_backward with persistable data, are one call
that builds on both); CPU only.
run-on-paddle: pir (Paddle 3.3.1's cells use paddle.matmul, which builds only on PIR programs).
"""
import unittest

import numpy as np

import fluidc as fluid
import fluidc as paddle

from . import convert

base = fluid  # Paddle 3.x: paddle.base


class _RNNAPITest(unittest.TestCase):
    cell_cls, backward, size = "SimpleRNNCell", False, 16

    def setUp(self):
        self._dtype = paddle.get_default_dtype()
        paddle.set_default_dtype("float64")
        self.time_major = True
        self.place = "cpu"
        self.batch_size = 4
        self.input_size = self.size
        self.hidden_size = self.size
        self.seq_len = 12
        self.seed = 1234

        place = paddle.set_device(self.place)
        paddle.disable_static(place)
        paddle.seed(self.seed)
        cell_dy = getattr(paddle.nn, self.cell_cls)(self.input_size, self.hidden_size)
        self.rnn_net = paddle.nn.RNN(cell_dy, time_major=self.time_major)

        paddle.enable_static()

        with base.unique_name.guard():
            main_program = paddle.static.Program()
            startup_program = paddle.static.Program()
            with paddle.static.program_guard(
                main_program=main_program, startup_program=startup_program
            ):
                paddle.seed(self.seed)

                self.exe = base.Executor(base.CPUPlace())

                rnn_in_data = paddle.static.data(
                    "x",
                    [None, self.batch_size, self.hidden_size],
                    dtype="float64",
                )
                pre_h_data = paddle.static.data(
                    "pre_h",
                    [self.batch_size, self.hidden_size],
                    dtype="float64",
                )
                seq_len_data = paddle.static.data(
                    "seq_len", [self.batch_size], dtype="int64"
                )
                if self.backward:
                    pre_h_data.stop_gradient = False
                    rnn_in_data.stop_gradient = False
                cell_st = getattr(paddle.nn, self.cell_cls)(
                    self.input_size, self.hidden_size
                )
                self.rnn_st = paddle.nn.RNN(cell_st, time_major=self.time_major)
                st_out, st_last_h = self.rnn_st(
                    rnn_in_data, pre_h_data, sequence_length=seq_len_data
                )

                if self.backward:
                    loss = paddle.sum(st_out)
                    pre_h_data_grad, rnn_in_data_grad = paddle.static.gradients(
                        loss, [pre_h_data, rnn_in_data]
                    )
                    self.fetch_list = [
                        st_out,
                        st_last_h,
                        pre_h_data_grad,
                        rnn_in_data_grad,
                    ]
                else:
                    self.fetch_list = [st_out, st_last_h]

                self.exe.run(paddle.static.default_startup_program())
                self.main_program = paddle.static.default_main_program()

        state = {k: v.numpy() for k, v in cell_dy.state_dict().items()}
        convert.convert_params_for_cell_static(
            type("NumpyCell", (), {"parameters": state}), cell_st, paddle.CPUPlace()
        )
        paddle.disable_static(self.place)

    def tearDown(self):
        paddle.set_default_dtype(self._dtype)

    def _check(self, test_seq_len):
        x = np.random.randn(12, 4, self.hidden_size)
        if not self.time_major:
            x = np.transpose(x, [1, 0, 2])
        prev_h = np.random.randn(4, self.hidden_size)

        paddle.disable_static(self.place)
        if test_seq_len:
            seq_len = np.array([9, 10, 8, 12], "int64")
        else:
            seq_len = np.array([12, 12, 12, 12], "int64")

        x_in = paddle.to_tensor(x)
        h_in = paddle.to_tensor(prev_h)
        x_in.stop_gradient = not self.backward
        h_in.stop_gradient = not self.backward
        y1, h1 = self.rnn_net(
            x_in,
            h_in,
            sequence_length=paddle.to_tensor(seq_len),
        )
        if self.backward:
            loss = y1.sum()
            loss.backward()
            h1_grad = h_in.gradient()

        paddle.enable_static()
        out = self.exe.run(
            self.main_program,
            feed={"x": x, "pre_h": prev_h, "seq_len": seq_len},
            fetch_list=[self.fetch_list],
        )

        if self.backward:
            y2, h2, g1, g2 = out
            np.testing.assert_allclose(h1_grad, g1, atol=1e-8, rtol=1e-5)
        else:
            y2, h2 = out
            np.testing.assert_allclose(y1.numpy(), y2, atol=1e-8, rtol=1e-5)
            np.testing.assert_allclose(h1.numpy(), h2, atol=1e-8, rtol=1e-5)

    def test_base(self):
        self._check(False)

    def test_base_seq_len(self):
        self._check(True)


class TestSimpleRNN(_RNNAPITest):
    cell_cls = "SimpleRNNCell"


class TestGRU(_RNNAPITest):
    cell_cls = "GRUCell"


class TestGRUBackward(_RNNAPITest):
    cell_cls, backward, size = "SimpleRNNCell", True, 4


del _RNNAPITest
