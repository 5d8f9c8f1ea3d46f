"""A numpy reference for the recurrent cells and networks (the role of Paddle's
test/rnn/rnn_numpy.py; written here from the formulas): parameters named as Paddle's cells
(weight_ih, weight_hh, bias_ih, bias_hh) in a `parameters` dict, the same gate layouts, and
nets as lists of RNN / BiRNN wrappers (so convert.py's functions can copy their parameters)."""
import numpy as np


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


class _Cell:
    gates = 1

    def __init__(self, input_size, hidden_size, weight=True, bias=True, dtype="float64"):
        std = 1.0 / np.sqrt(hidden_size)
        rows = self.gates * hidden_size
        self.hidden_size = hidden_size

        def make(shape, on, fill):
            return np.random.uniform(-std, std, shape).astype(dtype) if on else \
                np.full(shape, fill, dtype)
        self.parameters = {"weight_ih": make((rows, input_size), weight, 1.0),
                           "weight_hh": make((rows, hidden_size), weight, 1.0),
                           "bias_ih": make((rows,), bias, 0.0),
                           "bias_hh": make((rows,), bias, 0.0)}

    def _gates(self, x, h):
        p = self.parameters
        return x @ p["weight_ih"].T + p["bias_ih"], h @ p["weight_hh"].T + p["bias_hh"]

    def init_state(self, x):
        return np.zeros((x.shape[0], self.hidden_size), x.dtype)

    def __call__(self, x, states=None):
        return self.forward(x, self.init_state(x) if states is None else states)


class SimpleRNNCell(_Cell):
    def __init__(self, input_size, hidden_size, weight=True, bias=True, nonlinearity="RNN_TANH",
                 dtype="float64"):
        super().__init__(input_size, hidden_size, weight, bias, dtype)
        self.act = np.tanh if nonlinearity == "RNN_TANH" else (lambda v: np.maximum(v, 0))

    def forward(self, x, h):
        h = self.act(sum(self._gates(x, h)))
        return h, h


class GRUCell(_Cell):
    gates = 3

    def forward(self, x, h):
        xg, hg = self._gates(x, h)
        x_r, x_z, x_c = np.split(xg, 3, axis=-1)
        h_r, h_z, h_c = np.split(hg, 3, axis=-1)
        r, z = _sigmoid(x_r + h_r), _sigmoid(x_z + h_z)
        c = np.tanh(x_c + r * h_c)
        h = (h - c) * z + c
        return h, h


class LSTMCell(_Cell):
    gates = 4

    def init_state(self, x):
        return (super().init_state(x), super().init_state(x))

    def forward(self, x, states):
        h, c = states
        i, f, g, o = np.split(sum(self._gates(x, h)), 4, axis=-1)
        c = _sigmoid(f) * c + _sigmoid(i) * np.tanh(g)
        h = _sigmoid(o) * np.tanh(c)
        return h, (h, c)


def _step_states(cell, x_t, states, alive):
    """The cell's step; a sequence that has ended (alive 0) keeps its states and outputs 0."""
    out, new = cell(x_t, states)
    keep = alive[:, None]
    if isinstance(new, tuple):
        new = tuple(n * keep + s * (1 - keep) for n, s in zip(new, states))
    else:
        new = new * keep + states * (1 - keep)
    return out * keep, new


class RNN:
    def __init__(self, cell, is_reverse=False, time_major=False):
        self.cell, self.is_reverse, self.time_major = cell, is_reverse, time_major

    def __call__(self, x, initial_states=None, sequence_length=None):
        if not self.time_major:
            x = np.transpose(x, [1, 0, 2])
        steps, batch = x.shape[:2]
        lengths = np.full(batch, steps) if sequence_length is None else sequence_length
        states = self.cell.init_state(x[0]) if initial_states is None else initial_states
        outputs = [None] * steps
        for t in (range(steps - 1, -1, -1) if self.is_reverse else range(steps)):
            outputs[t], states = _step_states(self.cell, x[t], states,
                                              (t < lengths).astype(x.dtype))
        y = np.stack(outputs)
        return (y if self.time_major else np.transpose(y, [1, 0, 2])), states


class BiRNN:
    def __init__(self, cell_fw, cell_bw, time_major=False):
        self.cell_fw, self.cell_bw = cell_fw, cell_bw
        self.fw, self.bw = RNN(cell_fw, False, time_major), RNN(cell_bw, True, time_major)

    def __call__(self, x, initial_states=None, sequence_length=None):
        s_fw, s_bw = (None, None) if initial_states is None else initial_states
        y_fw, s_fw = self.fw(x, s_fw, sequence_length)
        y_bw, s_bw = self.bw(x, s_bw, sequence_length)
        return np.concatenate([y_fw, y_bw], -1), (s_fw, s_bw)


class _Net(list):
    """Stacked RNN / BiRNN layers; states [num_layers * num_directions, batch, hidden]."""

    def __init__(self, make_cell, input_size, hidden_size, num_layers=1, direction="forward",
                 time_major=False, lstm=False, dtype="float32"):
        super().__init__()
        self.dirs = 2 if direction in ("bidirect", "bidirectional") else 1
        self.lstm = lstm
        for k in range(num_layers):
            size = input_size if k == 0 else hidden_size * self.dirs
            cells = [make_cell(size, hidden_size, dtype=dtype) for _ in range(self.dirs)]
            self.append(BiRNN(*cells, time_major) if self.dirs == 2
                        else RNN(cells[0], False, time_major))

    def __call__(self, x, initial_states=None, sequence_length=None):
        n = len(self) * self.dirs
        if initial_states is None:
            per = [None] * n
        elif self.lstm:
            per = [(initial_states[0][i], initial_states[1][i]) for i in range(n)]
        else:
            per = [initial_states[i] for i in range(n)]
        finals = []
        for k, layer in enumerate(self):
            init = per[k] if self.dirs == 1 else (
                None if initial_states is None else (per[2 * k], per[2 * k + 1]))
            x, states = layer(x, init, sequence_length)
            finals += [states] if self.dirs == 1 else list(states)
        if self.lstm:
            return x, (np.stack([s[0] for s in finals]), np.stack([s[1] for s in finals]))
        return x, np.stack(finals)


class SimpleRNN(_Net):
    def __init__(self, input_size, hidden_size, num_layers=1, direction="forward",
                 time_major=False, dtype="float32"):
        super().__init__(SimpleRNNCell, input_size, hidden_size, num_layers, direction,
                         time_major, dtype=dtype)


class GRU(_Net):
    def __init__(self, input_size, hidden_size, num_layers=1, direction="forward",
                 time_major=False, dtype="float32"):
        super().__init__(GRUCell, input_size, hidden_size, num_layers, direction, time_major,
                         dtype=dtype)


class LSTM(_Net):
    def __init__(self, input_size, hidden_size, num_layers=1, direction="forward",
                 time_major=False, dtype="float32"):
        super().__init__(LSTMCell, input_size, hidden_size, num_layers, direction, time_major,
                         lstm=True, dtype=dtype)
