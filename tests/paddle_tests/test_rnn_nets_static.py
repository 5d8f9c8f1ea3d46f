"""Port of Paddle test/rnn/test_rnn_nets_static.py: paddle.nn.SimpleRNN / GRU / LSTM (2 layers,
16 -> 32) in static programs over data of shape [-1, -1, 16] (time and batch unknown until the
run: the networks are Paddle's `rnn` op) against the numpy reference (rnn_numpy.py) with the
same parameters (set in the scope after the startup run): with initial states, zero states and
input lengths, time-major or not, forward / bidirectional / bidirect.

Changed: paddle.base is the module attribute `base` (the parity runner swaps the plain package
imports only); set_default_dtype("float64") in setUp, restored in tearDown (the file-level call
would leak into other files); the sequence mask (paddle.static.nn.sequence_lod.sequence_mask,
not in fluidc) is made with numpy and fed; the three classes' identical bodies are one base
parametrized by the network (the numpy and Paddle class and the number of states; the
numpy nets take a dtype, float64 here, as Paddle's rnn_numpy) and
load_tests' (time_major, direction) suite one subclass per combination; GRU runs
test_with_input_lengths too (Paddle's runTest left it out); y * mask for paddle.multiply(y,
mask), which Paddle 3.3.1 builds only on PIR programs (on PIR, Paddle cannot run this file: a
fetch from the program's clone is not found in its IR mapping); CPU only.
"""
import unittest

import numpy as np

import fluidc as fluid
import fluidc as paddle

from . import rnn_numpy
from .convert import convert_params_for_net_static

base = fluid  # Paddle 3.x: paddle.base
bidirectional_list = ["bidirectional", "bidirect"]


class _NetStaticTest(unittest.TestCase):
    net, n_states = None, 1
    time_major, direction = True, "forward"

    def setUp(self):
        self._dtype = paddle.get_default_dtype()
        paddle.set_default_dtype("float64")
        paddle.enable_static()
        self.num_directions = 2 if self.direction in bidirectional_list else 1
        place = paddle.set_device("cpu")
        rnn1 = getattr(rnn_numpy, self.net)(
            16, 32, 2, time_major=self.time_major, direction=self.direction,
            dtype="float64",
        )

        mp = paddle.static.Program()
        sp = paddle.static.Program()
        with base.unique_name.guard():
            with paddle.static.program_guard(mp, sp):
                rnn2 = getattr(paddle.nn, self.net)(
                    16,
                    32,
                    2,
                    time_major=self.time_major,
                    direction=self.direction,
                )

        exe = paddle.static.Executor(place)
        scope = base.Scope()
        with paddle.static.scope_guard(scope):
            exe.run(sp)
            convert_params_for_net_static(rnn1, rnn2, place)

        self.mp = mp
        self.sp = sp
        self.rnn1 = rnn1
        self.rnn2 = rnn2

        self.place = place
        self.executor = exe
        self.scope = scope

    def tearDown(self):
        paddle.set_default_dtype(self._dtype)

    def _x(self):
        x = np.random.randn(12, 4, 16)
        if not self.time_major:
            x = np.transpose(x, [1, 0, 2])
        return x

    def _states(self, y, s):
        """The fetch list and the numpy result: outputs, then each state."""
        return [y] + (list(s) if self.n_states > 1 else [s])

    def _check(self, want, got):
        for w, g in zip(want, got):
            np.testing.assert_allclose(w, g, atol=1e-8, rtol=1e-5)

    def test_with_initial_state(self):
        mp = self.mp.clone().clone()
        sp = self.sp
        rnn1 = self.rnn1
        rnn2 = self.rnn2
        exe = self.executor
        scope = self.scope

        x = self._x()
        prev = [np.random.randn(2 * self.num_directions, 4, 32) for _ in range(self.n_states)]

        y1, s1 = rnn1(x, prev[0] if self.n_states == 1 else tuple(prev))

        with base.unique_name.guard():
            with paddle.static.program_guard(mp, sp):
                x_data = paddle.static.data(
                    "input",
                    [-1, -1, 16],
                    dtype=paddle.framework.get_default_dtype(),
                )
                init = [
                    paddle.static.data(
                        f"init_{'hc'[i]}",
                        [2 * self.num_directions, -1, 32],
                        dtype=paddle.framework.get_default_dtype(),
                    )
                    for i in range(self.n_states)
                ]
                y, s = rnn2(x_data, init[0] if self.n_states == 1 else tuple(init))

        feed_dict = {x_data.name: x}
        feed_dict.update({v.name: p for v, p in zip(init, prev)})
        with paddle.static.scope_guard(scope):
            got = exe.run(mp, feed=feed_dict, fetch_list=self._states(y, s))

        self._check(self._states(y1, s1), got)

    def test_with_zero_state(self):
        mp = self.mp.clone()
        sp = self.sp
        rnn1 = self.rnn1
        rnn2 = self.rnn2
        exe = self.executor
        scope = self.scope

        x = self._x()

        y1, s1 = rnn1(x)

        with base.unique_name.guard():
            with paddle.static.program_guard(mp, sp):
                x_data = paddle.static.data(
                    "input",
                    [-1, -1, 16],
                    dtype=paddle.framework.get_default_dtype(),
                )
                y, s = rnn2(x_data)

        feed_dict = {x_data.name: x}

        with paddle.static.scope_guard(scope):
            got = exe.run(mp, feed=feed_dict, fetch_list=self._states(y, s))

        self._check(self._states(y1, s1), got)

    def test_with_input_lengths(self):
        mp = self.mp.clone()
        sp = self.sp
        rnn1 = self.rnn1
        rnn2 = self.rnn2
        exe = self.executor
        scope = self.scope

        x = self._x()
        sequence_length = np.array([12, 10, 9, 8], dtype=np.int64)

        y1, s1 = rnn1(x, sequence_length=sequence_length)

        with base.unique_name.guard():
            with paddle.static.program_guard(mp, sp):
                x_data = paddle.static.data(
                    "input",
                    [-1, -1, 16],
                    dtype=paddle.framework.get_default_dtype(),
                )
                seq_len = paddle.static.data("seq_len", [-1], dtype="int64")
                mask = paddle.static.data(
                    "mask", [-1, -1], dtype=paddle.get_default_dtype()
                )  # sequence_mask(seq_len): [batch, max length]
                if self.time_major:
                    mask = paddle.transpose(mask, [1, 0])
                y, s = rnn2(x_data, sequence_length=seq_len)
                mask = paddle.unsqueeze(mask, -1)
                y = y * mask  # paddle.multiply: Paddle 3.3.1 builds it on PIR only

        mask_np = (np.arange(12)[None, :] < sequence_length[:, None]).astype("float64")
        feed_dict = {x_data.name: x, seq_len.name: sequence_length, "mask": mask_np}

        with paddle.static.scope_guard(scope):
            got = exe.run(mp, feed=feed_dict, fetch_list=self._states(y, s))

        self._check(self._states(y1, s1), got)


# load_tests' direction x time_major combinations, per network
for _net, _n in (("SimpleRNN", 1), ("GRU", 1), ("LSTM", 2)):
    for _direction in ("forward", "bidirectional", "bidirect"):
        for _time_major in (True, False):
            _cls = f"Test{_net}_{_direction}_{'time_major' if _time_major else 'batch_major'}"
            globals()[_cls] = type(_cls, (_NetStaticTest,), {
                "net": _net, "n_states": _n, "direction": _direction,
                "time_major": _time_major})
del _NetStaticTest
