"""Port of Paddle test/rnn/test_rnn_cells_static.py: paddle.nn.SimpleRNNCell / GRUCell /
LSTMCell in static programs (parameters set in the scope after the startup run) against the
numpy reference, with and without initial states, bias attrs True / False.

Changed: paddle.base is the module attribute `base` (the parity runner swaps the plain
package imports only); float32 instead of set_default_dtype("float64") (the reference's parameters and the
inputs are float32 values, the data vars float32, atol 1e-6 instead of 1e-8); the three
classes' identical bodies are one base parametrized by the cell (the numpy and Paddle cell
names and the number of states), load_tests' bias suite one subclass per value; setUp enables
static mode (the file-level call holds only until another file's test disables it); CPU
only.
run-on-paddle: pir (Paddle 3.3.1's paddle.matmul builds only on PIR programs).
"""
import unittest

import numpy as np

import fluidc as fluid
import fluidc as paddle

from . import rnn_numpy
from .convert import convert_params_for_cell_static
from .rnn_util import randn as _randn

base = fluid  # Paddle 3.x: paddle.base
paddle.enable_static()


class _CellStaticTest(unittest.TestCase):
    cell, n_states, bias = None, 1, True

    def setUp(self):
        paddle.enable_static()  # the file-level call holds until another file's test leaves it
        self.place = paddle.CPUPlace()

    def _cells(self):
        rnn1 = getattr(rnn_numpy, self.cell)(16, 32, bias=self.bias, dtype="float32")

        mp = paddle.static.Program()
        sp = paddle.static.Program()
        with base.unique_name.guard():
            with paddle.static.program_guard(mp, sp):
                rnn2 = getattr(paddle.nn, self.cell)(
                    16, 32, bias_ih_attr=self.bias, bias_hh_attr=self.bias
                )

        place = self.place
        exe = paddle.static.Executor(place)
        scope = base.Scope()
        with paddle.static.scope_guard(scope):
            exe.run(sp)
            convert_params_for_cell_static(rnn1, rnn2, place)
        return rnn1, rnn2, mp, sp, exe, scope

    def test_with_initial_state(self):
        rnn1, rnn2, mp, sp, exe, scope = self._cells()

        x = _randn(4, 16)
        prev = [_randn(4, 32) for _ in range(self.n_states)]

        y1, s1 = rnn1(x, prev[0] if self.n_states == 1 else tuple(prev))

        with base.unique_name.guard():
            with paddle.static.program_guard(mp, sp):
                x_data = paddle.static.data("input", [-1, 16], dtype="float32")
                init = [paddle.static.data(f"init_{i}", [-1, 32], dtype="float32")
                        for i in range(self.n_states)]
                y, s = rnn2(x_data, init[0] if self.n_states == 1 else tuple(init))

        feed_dict = {x_data.name: x.astype("float32")}
        feed_dict.update({v.name: p.astype("float32") for v, p in zip(init, prev)})
        fetch = [y] + (list(s) if self.n_states > 1 else [s])
        with paddle.static.scope_guard(scope):
            got = exe.run(mp, feed=feed_dict, fetch_list=fetch)

        want = list(s1) if self.n_states > 1 else [s1]
        for w, g in zip(want, got[1:]):
            np.testing.assert_allclose(w, g, atol=1e-6, rtol=1e-5)

    def test_with_zero_state(self):
        rnn1, rnn2, mp, sp, exe, scope = self._cells()

        x = _randn(4, 16)

        y1, s1 = rnn1(x)

        with base.unique_name.guard():
            with paddle.static.program_guard(mp, sp):
                x_data = paddle.static.data("input", [-1, 16], dtype="float32")
                y, s = rnn2(x_data)

        feed_dict = {x_data.name: x.astype("float32")}
        fetch = [y] + (list(s) if self.n_states > 1 else [s])
        with paddle.static.scope_guard(scope):
            got = exe.run(mp, feed=feed_dict, fetch_list=fetch, use_prune=True)

        want = list(s1) if self.n_states > 1 else [s1]
        for w, g in zip(want, got[1:]):
            np.testing.assert_allclose(w, g, atol=1e-6, rtol=1e-5)


for _cell, _n in (("SimpleRNNCell", 1), ("GRUCell", 1), ("LSTMCell", 2)):
    for _bias in (True, False):
        _name = f"Test{_cell}Bias{_bias}"
        globals()[_name] = type(_name, (_CellStaticTest,),
                                {"cell": _cell, "n_states": _n, "bias": _bias})
del _CellStaticTest
