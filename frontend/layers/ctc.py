"""fluid.layers.warpctc: the CTC loss of unnormalized logits against label sequences (LoD
input, or padded with input_length / label_length)."""
from __future__ import annotations

from ..framework import Variable
from .helper import ArgumentValueError, LayerHelper, check_variable_and_dtype


def warpctc(input, label, blank=0, norm_by_times=False, input_length=None,
            label_length=None) -> Variable:
    """Loss [num_seq, 1]: -log p(label | input) over CTC alignments, softmax taken inside.
    norm_by_times scales the gradient (not the loss) by 1 / each sequence's length."""
    helper = LayerHelper("warpctc")
    check_variable_and_dtype(input, "input", ("float32", "float64"), "warpctc")
    check_variable_and_dtype(label, "label", ("int32",), "warpctc")
    inputs = {"Logits": [input], "Label": [label]}
    if (input_length is None) != (label_length is None):
        raise ArgumentValueError("warpctc: input_length and label_length are given together "
                                 "(padded input) or not at all (LoD input)")
    if input_length is not None:
        check_variable_and_dtype(input_length, "LogitsLength", ("int64",), "warpctc")
        check_variable_and_dtype(label_length, "LabelLength", ("int64",), "warpctc")
        inputs.update(LogitsLength=[input_length], LabelLength=[label_length])
    loss = helper.create_variable_for_type_inference(input.dtype)
    grad = helper.create_variable_for_type_inference(input.dtype)
    helper.append_op("warpctc", inputs=inputs,
                     outputs={"WarpCTCGrad": [grad], "Loss": [loss]},
                     attrs={"blank": int(blank), "norm_by_times": bool(norm_by_times)})
    return loss
