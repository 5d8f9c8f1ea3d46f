"""paddle.incubate.layers.nn: partial_sum, partial_concat, batch_fc, rank_attention and
shuffle_batch (the ops in frontend/ops/incubate.py)."""
from __future__ import annotations

import warnings

import numpy as np

from ...frontend import unique_name
from ...frontend.framework import Variable
from ...frontend.layers.helper import LayerHelper, check_dtype, check_type, \
    check_variable_and_dtype
from ...frontend.param_attr import ParamAttr

_CONCAT_DTYPES = ("float16", "float32", "float64", "uint16", "int32", "int64", "complex64",
                  "complex128")


def _partial(op: str, input, start_index: int, length: int, dtypes) -> Variable:
    for i, x in enumerate(input):
        check_variable_and_dtype(x, f"input[{i}]", dtypes, op)
    check_type(start_index, "start_index", int, op)
    check_type(length, "length", int, op)
    helper = LayerHelper(op)
    out = helper.create_variable_for_type_inference(input[0].dtype)
    helper.append_op(op, inputs={"X": list(input)}, outputs={"Out": [out]},
                     attrs={"start_index": start_index, "length": length})
    return out


def partial_sum(input, start_index: int = 0, length: int = -1) -> Variable:
    """The sum of the inputs' columns [start_index, start_index + length) (length -1: to the
    end): [N, length]."""
    return _partial("partial_sum", input, start_index, length,
                    ("float32", "float64", "int32", "int64"))


def partial_concat(input, start_index: int = 0, length: int = -1) -> Variable:
    """The inputs' columns [start_index, start_index + length) side by side: [N, n * length]."""
    if not isinstance(input, list):
        warnings.warn(f"The type of input in partial_concat should be list, but received "
                      f"{type(input)}.")
        input = [input]
    return _partial("partial_concat", input, start_index, length, _CONCAT_DTYPES)


def batch_fc(input, param_size, param_attr, bias_size, bias_attr, act=None) -> Variable:
    """One fully connected layer per slot pair: input [S, N, I] @ W [S, I, O] + bias [S, O],
    then act."""
    helper = LayerHelper("batch_fc")
    check_type(input, "input", Variable, "batch_fc")
    shape = input.shape
    if not (shape[0] == param_size[0] == bias_size[0] and shape[2] == param_size[1]
            and param_size[2] == bias_size[1]):  # Paddle asserts them
        raise AssertionError(f"batch_fc: input {list(shape)}, param_size {list(param_size)} "
                             f"and bias_size {list(bias_size)} must agree ([S, N, I], "
                             f"[S, I, O], [S, O])")
    check_dtype(input.dtype, "input", ("float32", "float64"), "batch_fc")
    w = helper.create_parameter(ParamAttr.to_attr(param_attr), list(param_size), input.dtype)
    b = helper.create_parameter(ParamAttr.to_attr(bias_attr), list(bias_size), input.dtype)
    pre_act = helper.create_variable_for_type_inference(input.dtype)
    helper.append_op("batch_fc", inputs={"Input": [input], "W": [w], "Bias": [b]},
                     outputs={"Out": [pre_act]})
    return helper.append_activation(pre_act, act)


def rank_attention(input, rank_offset, rank_param_shape, rank_param_attr, max_rank=3,
                   max_size=0) -> Variable:
    """Each instance's page-view peers (rank_offset) times the RankParam block of its rank and
    theirs, summed: [N, rank_param_shape[1]]."""
    helper = LayerHelper("rank_attention")
    if input.shape[1] * max_rank * max_rank != rank_param_shape[0]:  # Paddle asserts it
        raise AssertionError(f"rank_attention: rank_param_shape[0] {rank_param_shape[0]} must "
                             f"be input width * max_rank^2 = "
                             f"{input.shape[1] * max_rank * max_rank}")
    param = helper.create_parameter(ParamAttr.to_attr(rank_param_attr),
                                    list(rank_param_shape), input.dtype)
    param.stop_gradient = False
    out = helper.create_variable_for_type_inference(input.dtype)
    input_help = helper.create_variable_for_type_inference(input.dtype, stop_gradient=True)
    ins_rank = helper.create_variable_for_type_inference(input.dtype, stop_gradient=True)
    helper.append_op("rank_attention",
                     inputs={"X": [input], "RankOffset": [rank_offset], "RankParam": [param]},
                     outputs={"Out": [out], "InputHelp": [input_help], "InsRank": [ins_rank]},
                     attrs={"MaxRank": max_rank, "MaxSize": max_size})
    return out


def shuffle_batch(x, seed=None) -> Variable:
    """The rows of x (all dims but the last flattened) in a random order. seed: an int (the
    op's startup_seed; default the program's random_seed, else a random one) or an int64
    Variable read as the seed."""
    helper = LayerHelper("shuffle_batch")
    out = helper.create_variable_for_type_inference(x.dtype)
    shuffle_idx = helper.create_variable_for_type_inference("int64")
    if seed is None and helper.main_program.random_seed != 0:
        seed = helper.main_program.random_seed
    if seed is None:
        seed = int(np.random.randint(-65536, 65535))
    attrs = {}
    if isinstance(seed, int):
        # as Paddle: a fresh var, which holds nothing when the op runs (it then seeds from
        # startup_seed)
        attrs["startup_seed"] = seed
        seed = helper.create_variable(name=unique_name.generate("shuffle_batch_seed"),
                                      dtype="int64", persistable=False)
    helper.append_op("shuffle_batch", inputs={"X": [x], "Seed": [seed]},
                     outputs={"Out": [out], "ShuffleIdx": [shuffle_idx], "SeedOut": [seed]},
                     attrs=attrs)
    return out
