"""Sequence layers of fluid.layers: pooling, softmax, expansion, concatenation and reshape of
LoD tensors (variable-length sequences without padding)."""
from __future__ import annotations

from ..dtypes import VarType
from ..errors import FluidcError
from ..framework import Variable
from ..param_attr import ParamAttr
from .helper import LayerHelper


def _check_lod_input(layer: str, x: Variable) -> None:
    if not isinstance(x, Variable):
        raise FluidcError(f"{layer} takes a Variable, got {type(x).__name__}")


def sequence_pool(input: Variable, pool_type: str, is_test: bool = False,
                  pad_value: float = 0.0) -> Variable:
    """One row per sequence: sum, average, sqrt (sum / sqrt(len)), max, first or last."""
    _check_lod_input("sequence_pool", input)
    helper = LayerHelper("sequence_pool")
    out = helper.create_variable_for_type_inference(input.dtype)
    max_index = helper.create_variable_for_type_inference(VarType.INT32, stop_gradient=True)
    helper.append_op("sequence_pool", inputs={"X": [input]},
                     outputs={"Out": [out], "MaxIndex": [max_index]},
                     attrs={"pooltype": pool_type.upper(), "is_test": is_test,
                            "pad_value": float(pad_value)})
    return out


def sequence_first_step(input: Variable) -> Variable:
    """The first row of each sequence."""
    return sequence_pool(input, "first")


def sequence_last_step(input: Variable) -> Variable:
    """The last row of each sequence."""
    return sequence_pool(input, "last")


def sequence_softmax(input: Variable, use_cudnn: bool = False, name=None) -> Variable:
    """A softmax within each sequence of a [N, 1] (or [N]) input."""
    _check_lod_input("sequence_softmax", input)
    helper = LayerHelper("sequence_softmax", name=name)
    out = helper.create_variable_for_type_inference(input.dtype)
    helper.append_op("sequence_softmax", inputs={"X": [input]}, outputs={"Out": [out]},
                     attrs={"use_cudnn": use_cudnn})
    return out


def sequence_expand(x: Variable, y: Variable, ref_level: int = -1, name=None) -> Variable:
    """Repeat each row (or sequence) of x as often as y's level ref_level says."""
    _check_lod_input("sequence_expand", x)
    helper = LayerHelper("sequence_expand", name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op("sequence_expand", inputs={"X": [x], "Y": [y]}, outputs={"Out": [out]},
                     attrs={"ref_level": int(ref_level)})
    return out


def sequence_concat(input, name=None) -> Variable:
    """Sequence i of the output is sequence i of every input, joined."""
    xs = list(input)
    if not xs:
        raise FluidcError("sequence_concat takes a non-empty list of Variables")
    helper = LayerHelper("sequence_concat", name=name)
    out = helper.create_variable_for_type_inference(xs[0].dtype)
    helper.append_op("sequence_concat", inputs={"X": xs}, outputs={"Out": [out]})
    return out


def sequence_reshape(input: Variable, new_dim: int) -> Variable:
    """Each sequence's L x D elements as rows of width new_dim."""
    _check_lod_input("sequence_reshape", input)
    helper = LayerHelper("sequence_reshape")
    out = helper.create_variable_for_type_inference(input.dtype)
    helper.append_op("sequence_reshape", inputs={"X": [input]}, outputs={"Out": [out]},
                     attrs={"new_dim": int(new_dim)})
    return out


def sequence_conv(input: Variable, num_filters: int, filter_size: int = 3, filter_stride: int = 1,
                  padding: bool = True, padding_start=None, bias_attr=None, param_attr=None,
                  act=None, name=None) -> Variable:
    """A convolution over filter_size consecutive rows within each sequence (+ bias, act)."""
    _check_lod_input("sequence_conv", input)
    helper = LayerHelper("sequence_conv", name=name)
    if input.shape[-1] < 0:
        raise FluidcError(f"sequence_conv '{helper.name}': the width of input '{input.name}' "
                          f"{list(input.shape)} must be known")
    w = helper.create_parameter(ParamAttr.to_attr(param_attr),
                                [filter_size * input.shape[-1], num_filters], input.dtype)
    start = -int(filter_size // 2) if padding_start is None else int(padding_start)
    pre_bias = helper.create_variable_for_type_inference(input.dtype)
    helper.append_op("sequence_conv", inputs={"X": [input], "Filter": [w]},
                     outputs={"Out": [pre_bias]},
                     attrs={"contextStride": int(filter_stride), "contextStart": start,
                            "contextLength": int(filter_size)})
    pre_act = helper.append_bias_op(pre_bias, bias_attr, num_filters)
    return helper.append_activation(pre_act, act)
