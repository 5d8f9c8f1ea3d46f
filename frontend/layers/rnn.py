"""Recurrent layers of fluid.layers over LoD sequences: dynamic_lstm (op lstm), dynamic_gru
(op gru) and gru_unit (one GRU step, op gru_unit), with Paddle 1.x's parameters and checks."""
from __future__ import annotations

from ..framework import Variable
from .helper import LayerHelper, check_type, check_variable_and_dtype

_FLOATS = ("float32", "float64")
_GRU_UNIT_ACTS = {"identity": 0, "sigmoid": 1, "tanh": 2, "relu": 3}


def _state(layer: str, arg: str, value, rows, size: int):
    """An initial state argument (h_0/c_0): None, or a [batch, size] float Variable."""
    check_type(value, arg, (Variable, type(None)), layer)
    if value is None:
        return None
    check_variable_and_dtype(value, arg, _FLOATS, layer)
    if tuple(value.shape) != (rows, size):
        raise AssertionError(f"The shape of {arg[0]}0 should be (batch_size, {size}), got "
                             f"{tuple(value.shape)}")
    return value


def dynamic_lstm(input, size, h_0=None, c_0=None, param_attr=None, bias_attr=None,
                 use_peepholes=True, is_reverse=False, gate_activation="sigmoid",
                 cell_activation="tanh", candidate_activation="tanh", dtype="float32",
                 name=None):
    """An LSTM over each sequence of `input` ([T, size], size = 4 * hidden): returns (hidden,
    cell), both [T, size / 4] with input's LoD. Weight [D, 4D]; Bias [1, 7D] (gate biases and
    peephole weights) or [1, 4D] without peepholes."""
    if bias_attr is False:
        raise AssertionError("bias_attr should not be False in dynamic_lstm.")
    check_variable_and_dtype(input, "input", _FLOATS, "dynamic_lstm")
    helper = LayerHelper("lstm", name=name)
    d = size // 4
    inputs = {"Input": [input],
              "Weight": [helper.create_parameter(param_attr, [d, 4 * d], dtype)],
              "Bias": [helper.create_parameter(bias_attr, [1, (7 if use_peepholes else 4) * d],
                                               dtype, is_bias=True)]}
    for slot, arg, value in (("H0", "h_0", h_0), ("C0", "c_0", c_0)):
        if _state("dynamic_lstm", arg, value, input.shape[0], d) is not None:
            inputs[slot] = [value]
    outs = {s: helper.create_variable_for_type_inference(dtype)
            for s in ("Hidden", "Cell", "BatchGate", "BatchCellPreAct")}
    helper.append_op("lstm", inputs=inputs, outputs={k: [v] for k, v in outs.items()},
                     attrs={"use_peepholes": use_peepholes, "is_reverse": is_reverse,
                            "gate_activation": gate_activation,
                            "cell_activation": cell_activation,
                            "candidate_activation": candidate_activation})
    return outs["Hidden"], outs["Cell"]


def dynamic_gru(input, size, param_attr=None, bias_attr=None, is_reverse=False,
                gate_activation="sigmoid", candidate_activation="tanh", h_0=None,
                origin_mode=False):
    """A GRU over each sequence of `input` ([T, 3 * size]): returns the hidden states
    [T, size] with input's LoD. Weight [size, 3 * size], Bias [1, 3 * size]."""
    check_variable_and_dtype(input, "input", _FLOATS, "dynamic_gru")
    helper = LayerHelper("gru")
    dtype = input.dtype
    inputs = {"Input": [input],
              "Weight": [helper.create_parameter(param_attr, [size, 3 * size], dtype)]}
    bias = helper.create_parameter(bias_attr, [1, 3 * size], dtype, is_bias=True)
    if bias is not None:
        inputs["Bias"] = [bias]
    if _state("dynamic_gru", "h_0", h_0, input.shape[0], size) is not None:
        inputs["H0"] = [h_0]
    outs = {s: helper.create_variable_for_type_inference(dtype)
            for s in ("Hidden", "BatchGate", "BatchResetHiddenPrev", "BatchHidden")}
    helper.append_op("gru", inputs=inputs, outputs={k: [v] for k, v in outs.items()},
                     attrs={"is_reverse": is_reverse, "gate_activation": gate_activation,
                            "activation": candidate_activation, "origin_mode": origin_mode})
    return outs["Hidden"]


def gru_unit(input, hidden, size, param_attr=None, bias_attr=None, activation="tanh",
             gate_activation="sigmoid", origin_mode=False):
    """One GRU step: input [N, size] (size = 3 * D), hidden [N, D] -> (updated hidden,
    reset hidden prev, gate). As in Paddle 1.x/2.x, the activation names are checked but the
    op always gets tanh and sigmoid."""
    check_variable_and_dtype(input, "input", _FLOATS, "gru_unit")
    check_variable_and_dtype(hidden, "hidden", _FLOATS, "gru_unit")
    check_type(size, "size", int, "gru_unit")
    for act in (activation, gate_activation):
        if act not in _GRU_UNIT_ACTS:
            raise KeyError(act)
    helper = LayerHelper("gru_unit")
    dtype = input.dtype
    d = size // 3
    inputs = {"Input": [input], "HiddenPrev": [hidden],
              "Weight": [helper.create_parameter(param_attr, [d, 3 * d], dtype)]}
    if bias_attr is not False:
        inputs["Bias"] = [helper.create_parameter(bias_attr, [1, 3 * d], dtype, is_bias=True)]
    outs = {s: helper.create_variable_for_type_inference(dtype)
            for s in ("Gate", "ResetHiddenPrev", "Hidden")}
    helper.append_op("gru_unit", inputs=inputs, outputs={k: [v] for k, v in outs.items()},
                     attrs={"activation": _GRU_UNIT_ACTS["tanh"],
                            "gate_activation": _GRU_UNIT_ACTS["sigmoid"],
                            "origin_mode": origin_mode})
    return outs["Hidden"], outs["ResetHiddenPrev"], outs["Gate"]
