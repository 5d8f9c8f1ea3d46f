"""paddle.nn's recurrent layers: the cells (SimpleRNNCell, LSTMCell, GRUCell), the wrappers
running a cell over time (RNN, BiRNN) and the stacked networks (SimpleRNN, LSTM, GRU).

A step is the cell's matmuls, adds and activations, and a sequence is the step unrolled over the
input's time dim (which must be known), so the layers run eagerly with autograd and build static
programs alike, from the ops every layer uses. Paddle's conventions: weight_ih [gates * hidden,
input], weight_hh [gates * hidden, hidden], biases [gates * hidden], all U(-1/sqrt(hidden),
1/sqrt(hidden)); LSTM gates [input, forget, cell, output], GRU gates [reset, update, candidate]
with h = (h_prev - c) * z + c (torch's orders and formulas). The networks expose each cell's
parameters as weight_ih_l{k}[_reverse] ..., so their state dicts hold those keys first and the
sub-layers' (0.cell.weight_ih, 0.cell_fw.weight_ih, ...) after, as Paddle's do.

sequence_length: at step t a sequence whose length is <= t keeps its states (state * mask +
new * (1 - mask)), as Paddle's RNN does; the networks (Paddle's rnn op) also zero the outputs
there, nn.RNN / BiRNN leave them as the cell gave them.
"""
from __future__ import annotations

import math

from ...framework import Variable
from ...initializer import Constant
from ..compare import less_than
from ..conv import fill_constant_batch_size_like
from . import add, cast, concat, full, matmul, multiply, subtract, tanh
from . import functional as F
from .initializer import Uniform
from .layer import Layer, LayerList
from .manipulation import split
from .shaping import stack, unsqueeze


def _first(tree):
    """The first leaf of nested lists / tuples."""
    while isinstance(tree, (list, tuple)):
        tree = tree[0]
    return tree


def _check_sizes(cls: str, input_size, hidden_size) -> None:
    for what, v in (("hidden_size", hidden_size), ("input_size", input_size)):
        if not isinstance(v, int) or isinstance(v, bool) or v <= 0:
            raise ValueError(f"{what} of {cls} must be greater than 0, but now equals to {v}")


class RNNCellBase(Layer):
    """A cell: forward(inputs, states) -> (outputs, new_states); states default to zeros."""

    gates = 1

    def __init__(self, input_size, hidden_size, weight_ih_attr=None, weight_hh_attr=None,
                 bias_ih_attr=None, bias_hh_attr=None, name=None) -> None:
        super().__init__()
        _check_sizes(type(self).__name__, input_size, hidden_size)
        self.input_size, self.hidden_size = input_size, hidden_size
        rows = self.gates * hidden_size
        self.weight_ih = self._param([rows, input_size], weight_ih_attr, False)
        self.weight_hh = self._param([rows, hidden_size], weight_hh_attr, False)
        self.bias_ih = self._param([rows], bias_ih_attr, True)
        self.bias_hh = self._param([rows], bias_hh_attr, True)

    def _param(self, shape, attr, is_bias: bool):
        """U(-1/sqrt(hidden), 1/sqrt(hidden)); attr False: a frozen parameter of ones
        (weights) or zeros (biases), as Paddle's cells make it."""
        if attr is not False:
            std = 1.0 / math.sqrt(self.hidden_size)
            return self.create_parameter(shape, attr, is_bias=is_bias,
                                         default_initializer=Uniform(-std, std))
        param = self.create_parameter(shape, None, is_bias=is_bias,
                                      default_initializer=Constant(0.0 if is_bias else 1.0))
        param.stop_gradient = True
        return param

    @property
    def state_shape(self):
        return (self.hidden_size,)

    def get_initial_states(self, batch_ref, shape=None, dtype=None, init_value=0.0,
                           batch_dim_idx=0):
        """States of state_shape filled with init_value, batch dim taken from batch_ref."""
        ref = _first(batch_ref)
        shape = self.state_shape if shape is None else shape
        dtype = dtype or ref.dtype

        def make(s):
            if isinstance(s, (list, tuple)) and s and isinstance(s[0], (list, tuple)):
                return tuple(make(x) for x in s)
            return fill_constant_batch_size_like(ref, [-1] + list(s), dtype, init_value,
                                                 input_dim_idx=batch_dim_idx)
        return make(shape)

    def _proj(self, x, weight, bias):
        return add(matmul(x, weight, transpose_y=True), bias)

    def _input_gates(self, inputs, h):
        return (self._proj(inputs, self.weight_ih, self.bias_ih),
                self._proj(h, self.weight_hh, self.bias_hh))


class SimpleRNNCell(RNNCellBase):
    """h = act(x W_ih^T + b_ih + h_prev W_hh^T + b_hh), act tanh or relu."""

    def __init__(self, input_size, hidden_size, activation="tanh", weight_ih_attr=None,
                 weight_hh_attr=None, bias_ih_attr=None, bias_hh_attr=None, name=None) -> None:
        if activation not in ("tanh", "relu"):
            raise ValueError(f"activation for SimpleRNNCell should be tanh or relu, but get "
                             f"{activation}")
        super().__init__(input_size, hidden_size, weight_ih_attr, weight_hh_attr,
                         bias_ih_attr, bias_hh_attr, name)
        self.activation = activation
        self._act = tanh if activation == "tanh" else F.relu

    def forward(self, inputs, states=None):
        h = self.get_initial_states(inputs) if states is None else states
        h = self._act(add(*self._input_gates(inputs, h)))
        return h, h


class LSTMCell(RNNCellBase):
    """Gates [i, f, g, o]: c = f * c_prev + i * g, h = o * tanh(c); states (h, c)."""

    gates = 4

    def __init__(self, input_size, hidden_size, weight_ih_attr=None, weight_hh_attr=None,
                 bias_ih_attr=None, bias_hh_attr=None, proj_size=0, name=None) -> None:
        if proj_size:
            raise NotImplementedError("LSTMCell: proj_size is not supported")
        super().__init__(input_size, hidden_size, weight_ih_attr, weight_hh_attr,
                         bias_ih_attr, bias_hh_attr, name)

    @property
    def state_shape(self):
        return ((self.hidden_size,), (self.hidden_size,))

    def forward(self, inputs, states=None):
        h, c = self.get_initial_states(inputs) if states is None else states
        i, f, g, o = split(add(*self._input_gates(inputs, h)), 4, axis=-1)
        c = add(multiply(F.sigmoid(f), c), multiply(F.sigmoid(i), tanh(g)))
        h = multiply(F.sigmoid(o), tanh(c))
        return h, (h, c)


class GRUCell(RNNCellBase):
    """Gates [r, z, c]: c = tanh(x_c + r * h_c), h = (h_prev - c) * z + c."""

    gates = 3

    def forward(self, inputs, states=None):
        h = self.get_initial_states(inputs) if states is None else states
        x_gates, h_gates = self._input_gates(inputs, h)
        x_r, x_z, x_c = split(x_gates, 3, axis=-1)
        h_r, h_z, h_c = split(h_gates, 3, axis=-1)
        r, z = F.sigmoid(add(x_r, h_r)), F.sigmoid(add(x_z, h_z))
        c = tanh(add(x_c, multiply(r, h_c)))
        h = add(multiply(subtract(h, c), z), c)
        return h, h


def _map(fn, *trees):
    """fn over the leaves of equally nested tuples/lists."""
    if isinstance(trees[0], (list, tuple)):
        return tuple(_map(fn, *parts) for parts in zip(*trees))
    return fn(*trees)


def _time_steps(inputs, time_major: bool, who: str) -> int:
    leaf = _first(inputs)
    if not isinstance(leaf, Variable):
        raise TypeError(f"{who}: inputs must be a Tensor, but received {type(leaf).__name__}")
    steps = leaf.shape[0 if time_major else 1]
    if steps is None or steps < 0:
        raise ValueError(f"{who}: the time dim of inputs (shape {list(leaf.shape)}) must be "
                         f"known: the recurrence is unrolled over it")
    return steps


def _step_mask(sequence_length, t: int, dtype):
    """[B, 1] of 1.0 where t < length, else 0.0."""
    alive = less_than(full([1], t, sequence_length.dtype), sequence_length)
    return unsqueeze(cast(alive, dtype), [1])


def _keep(state, new, mask):
    """new where mask is 1, state where it is 0."""
    return add(multiply(new, mask), multiply(state, subtract(full([1], 1.0, mask.dtype), mask)))


def run_cell(cell, inputs, initial_states, sequence_length, time_major: bool, is_reverse: bool,
             mask_outputs: bool, who: str, **kwargs):
    """(outputs [B, T, ...] or time-major, final states): cell unrolled over time."""
    steps = _time_steps(inputs, time_major, who)
    axis = 0 if time_major else 1
    states = cell.get_initial_states(inputs, batch_dim_idx=1 if time_major else 0) \
        if initial_states is None else initial_states
    outputs = [None] * steps
    for t in (range(steps - 1, -1, -1) if is_reverse else range(steps)):
        x_t = _map(lambda x: x[t] if time_major else x[:, t], inputs)
        out, new = cell(x_t, states, **kwargs)
        if sequence_length is not None:
            mask = _step_mask(sequence_length, t, _first(new).dtype)
            new = _map(lambda s, n: _keep(s, n, mask), states, new)
            if mask_outputs:
                out = _map(lambda o: multiply(o, mask), out)
        states, outputs[t] = new, out
    return _map(lambda *xs: stack(list(xs), axis=axis), *outputs), states


class RNN(Layer):
    """cell run over the time steps of inputs (reversed with is_reverse)."""

    def __init__(self, cell, is_reverse=False, time_major=False) -> None:
        super().__init__()
        self.cell, self.is_reverse, self.time_major = cell, is_reverse, time_major

    def forward(self, inputs, initial_states=None, sequence_length=None, **kwargs):
        return run_cell(self.cell, inputs, initial_states, sequence_length, self.time_major,
                        self.is_reverse, False, "RNN", **kwargs)


class BiRNN(Layer):
    """cell_fw forward and cell_bw backward over inputs, outputs joined on the last axis."""

    def __init__(self, cell_fw, cell_bw, time_major=False) -> None:
        super().__init__()
        if cell_fw.input_size != cell_bw.input_size:
            raise ValueError(f"input size of forward cell({cell_fw.input_size}) does not "
                             f"equals that of backward cell({cell_bw.input_size})")
        self.cell_fw, self.cell_bw, self.time_major = cell_fw, cell_bw, time_major

    def _run(self, inputs, initial_states, sequence_length, mask_outputs, kwargs, who="BiRNN"):
        if initial_states is None:
            initial_states = (None, None)
        elif not isinstance(initial_states, (list, tuple)) or len(initial_states) != 2:
            raise ValueError(f"{who}: initial_states must be a pair (forward states, "
                             f"backward states)")
        fw, s_fw = run_cell(self.cell_fw, inputs, initial_states[0], sequence_length,
                            self.time_major, False, mask_outputs, who, **kwargs)
        bw, s_bw = run_cell(self.cell_bw, inputs, initial_states[1], sequence_length,
                            self.time_major, True, mask_outputs, who, **kwargs)
        return _map(lambda a, b: concat([a, b], -1), fw, bw), (s_fw, s_bw)

    def forward(self, inputs, initial_states=None, sequence_length=None, **kwargs):
        return self._run(inputs, initial_states, sequence_length, False, kwargs)


_DIRECTIONS = {"forward": 1, "bidirect": 2, "bidirectional": 2}


class RNNBase(LayerList):
    """num_layers of RNN / BiRNN over one cell type; states stacked [layers * dirs, B, H]."""

    def __init__(self, mode, input_size, hidden_size, num_layers=1, direction="forward",
                 time_major=False, dropout=0.0, weight_ih_attr=None, weight_hh_attr=None,
                 bias_ih_attr=None, bias_hh_attr=None, **cell_kwargs) -> None:
        super().__init__()
        if direction not in _DIRECTIONS:
            raise ValueError(f"direction should be forward or bidirect (or bidirectional), "
                             f"received direction = {direction}")
        if not isinstance(num_layers, int) or num_layers <= 0:
            raise ValueError(f"num_layers must be a positive int, but received {num_layers}")
        self.mode, self.input_size, self.hidden_size = mode, input_size, hidden_size
        self.num_layers, self.time_major, self.dropout = num_layers, time_major, dropout
        self.num_directions = _DIRECTIONS[direction]
        self.state_components = 2 if mode == "LSTM" else 1
        cell_cls = {"RNN_TANH": SimpleRNNCell, "RNN_RELU": SimpleRNNCell, "LSTM": LSTMCell,
                    "GRU": GRUCell}[mode]
        attrs = dict(weight_ih_attr=weight_ih_attr, weight_hh_attr=weight_hh_attr,
                     bias_ih_attr=bias_ih_attr, bias_hh_attr=bias_hh_attr, **cell_kwargs)
        for k in range(num_layers):
            size = input_size if k == 0 else hidden_size * self.num_directions
            cells = [cell_cls(size, hidden_size, **attrs) for _ in range(self.num_directions)]
            self.append(BiRNN(*cells, time_major) if len(cells) == 2
                        else RNN(cells[0], False, time_major))
        for k, layer in enumerate(self):
            for d, cell in enumerate([layer.cell] if isinstance(layer, RNN)
                                     else [layer.cell_fw, layer.cell_bw]):
                suffix = f"l{k}" + ("_reverse" if d else "")
                for name in ("weight_ih", "weight_hh", "bias_ih", "bias_hh"):
                    param = getattr(cell, name)
                    if param is not None:
                        setattr(self, f"{name}_{suffix}", param)

    def _split_states(self, states):
        """[layers * dirs, B, H] (a pair for LSTM) -> per layer: a cell state or a pair."""
        if self.state_components == 2:
            if not isinstance(states, (list, tuple)) or len(states) != 2:
                raise ValueError("LSTM: initial_states must be a pair (h, c)")
            parts = [split(s, self.num_layers * self.num_directions, axis=0) for s in states]
            per = [tuple(p[i][0] for p in parts) for i in range(len(parts[0]))]
        else:
            per = [p[0] for p in split(states, self.num_layers * self.num_directions, axis=0)]
        n = self.num_directions
        return [per[k * n] if n == 1 else (per[k * n], per[k * n + 1])
                for k in range(self.num_layers)]

    def forward(self, inputs, initial_states=None, sequence_length=None):
        layer_states = [None] * self.num_layers if initial_states is None \
            else self._split_states(initial_states)
        finals = []
        out = inputs
        for k, layer in enumerate(self):
            if k and self.dropout:
                out = F.dropout(out, self.dropout, training=self.training,
                                mode="upscale_in_train")
            if isinstance(layer, BiRNN):
                out, (s_fw, s_bw) = layer._run(out, layer_states[k], sequence_length, True, {},
                                               type(self).__name__)
                finals += [s_fw, s_bw]
            else:
                out, s = run_cell(layer.cell, out, layer_states[k], sequence_length,
                                  self.time_major, False, True, type(self).__name__)
                finals.append(s)
        if self.state_components == 2:
            return out, tuple(stack([f[i] for f in finals], 0) for i in range(2))
        return out, stack(finals, 0)


class SimpleRNN(RNNBase):
    def __init__(self, input_size, hidden_size, num_layers=1, activation="tanh",
                 direction="forward", time_major=False, dropout=0.0, weight_ih_attr=None,
                 weight_hh_attr=None, bias_ih_attr=None, bias_hh_attr=None, name=None) -> None:
        if activation not in ("tanh", "relu"):
            raise ValueError(f"Unknown activation '{activation}'")
        super().__init__("RNN_" + activation.upper(), input_size, hidden_size, num_layers,
                         direction, time_major, dropout, weight_ih_attr, weight_hh_attr,
                         bias_ih_attr, bias_hh_attr, activation=activation)


class LSTM(RNNBase):
    def __init__(self, input_size, hidden_size, num_layers=1, direction="forward",
                 time_major=False, dropout=0.0, weight_ih_attr=None, weight_hh_attr=None,
                 bias_ih_attr=None, bias_hh_attr=None, proj_size=0, name=None) -> None:
        if proj_size:
            raise NotImplementedError("LSTM: proj_size is not supported")
        super().__init__("LSTM", input_size, hidden_size, num_layers, direction, time_major,
                         dropout, weight_ih_attr, weight_hh_attr, bias_ih_attr, bias_hh_attr)


class GRU(RNNBase):
    def __init__(self, input_size, hidden_size, num_layers=1, direction="forward",
                 time_major=False, dropout=0.0, weight_ih_attr=None, weight_hh_attr=None,
                 bias_ih_attr=None, bias_hh_attr=None, name=None) -> None:
        super().__init__("GRU", input_size, hidden_size, num_layers, direction, time_major,
                         dropout, weight_ih_attr, weight_hh_attr, bias_ih_attr, bias_hh_attr)
