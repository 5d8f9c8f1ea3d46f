"""fluid.layers losses and encodings beyond nn.py's: sigmoid_cross_entropy_with_logits, cos_sim,
one_hot, label_smooth and the hard-label cross entropy Paddle saves as cross_entropy2."""
from __future__ import annotations

import numpy as np

from ..dtypes import VarType
from ..errors import FluidcError
from ..framework import Variable
from .helper import ArgumentValueError, LayerHelper, check_type, check_variable_and_dtype


def sigmoid_cross_entropy_with_logits(x, label, ignore_index: int = -100, name=None,
                                      normalize: bool = False) -> Variable:
    """Elementwise logistic loss of logits x against labels in [0, 1]."""
    helper = LayerHelper("sigmoid_cross_entropy_with_logits", name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op("sigmoid_cross_entropy_with_logits", inputs={"X": [x], "Label": [label]},
                     outputs={"Out": [out]},
                     attrs={"ignore_index": ignore_index, "normalize": normalize})
    return out


def label_smooth(label, prior_dist=None, epsilon: float = 0.1, dtype="float32",
                 name=None) -> Variable:
    """(1 - epsilon) * label + epsilon / K (or epsilon * prior_dist): one-hot labels smoothed.
    As in Paddle, label is marked stop_gradient and Out has label's dtype."""
    if not 0.0 <= epsilon <= 1.0:
        raise ArgumentValueError("The value of epsilon must be between 0 and 1.")
    check_variable_and_dtype(label, "label", ("float16", "bfloat16", "float32", "float64"),
                             "label_smooth")
    helper = LayerHelper("label_smooth", name=name)
    label.stop_gradient = True
    out = helper.create_variable_for_type_inference(label.dtype)
    inputs = {"X": [label]}
    if prior_dist is not None:
        inputs["PriorDist"] = [prior_dist]
    helper.append_op("label_smooth", inputs=inputs, outputs={"Out": [out]},
                     attrs={"epsilon": float(epsilon)})
    return out


def cos_sim(X, Y) -> Variable:  # noqa: N803 (Paddle's argument names)
    """Cosine similarity of each row of X with the matching row of Y (or Y's one row)."""
    helper = LayerHelper("cos_sim")
    out = helper.create_variable_for_type_inference(X.dtype)
    xnorm = helper.create_variable_for_type_inference(X.dtype, stop_gradient=True)
    ynorm = helper.create_variable_for_type_inference(X.dtype, stop_gradient=True)
    helper.append_op("cos_sim", inputs={"X": [X], "Y": [Y]},
                     outputs={"Out": [out], "XNorm": [xnorm], "YNorm": [ynorm]})
    return out


def one_hot_op(op_type: str, x, depth, depth_arg: str, allow_out_of_range: bool = False,
               name=None) -> Variable:
    """A one_hot / one_hot_v2 op (float32 out) on int32 / int64 ids x. depth is an int, or an
    int Variable holding one value: the op's depth_tensor input, its value taken when the
    program runs (fed or computed from constants), as Paddle builds it."""
    check_variable_and_dtype(x, "input", ("int32", "int64"), op_type)
    inputs = {"X": [x]}
    attrs = {"allow_out_of_range": allow_out_of_range, "dtype": int(VarType.FP32)}
    if isinstance(depth, Variable):
        check_variable_and_dtype(depth, depth_arg, ("int32", "int64"), op_type)
        depth.stop_gradient = True
        inputs["depth_tensor"] = [depth]
    else:
        check_type(depth, depth_arg, (int, np.integer), op_type)
        attrs["depth"] = int(depth)
    helper = LayerHelper(op_type, name=name)
    out = helper.create_variable_for_type_inference(VarType.FP32, stop_gradient=True)
    helper.append_op(op_type, inputs=inputs, outputs={"Out": [out]}, attrs=attrs)
    return out


def one_hot(input, depth, allow_out_of_range: bool = False) -> Variable:
    """1.x one_hot: ids [..., 1] -> float32 [..., depth] (depth an int or an int Variable)."""
    return one_hot_op("one_hot", input, depth, "depth", allow_out_of_range)


def _hard_label_cross_entropy(input, label, ignore_index: int = -100) -> Variable:
    """-log(input[label]) per row for hard labels (the op 1.x's cross_entropy saves)."""
    if not isinstance(input, Variable):
        raise FluidcError(f"cross_entropy takes a Variable input, got {type(input).__name__}")
    helper = LayerHelper("cross_entropy2")
    out = helper.create_variable_for_type_inference(input.dtype)
    xshape = helper.create_variable_for_type_inference(input.dtype, stop_gradient=True)
    match_x = helper.create_variable_for_type_inference(input.dtype, stop_gradient=True)
    helper.append_op("cross_entropy2", inputs={"X": [input], "Label": [label]},
                     outputs={"Y": [out], "XShape": [xshape], "MatchX": [match_x]},
                     attrs={"ignore_index": ignore_index})
    return out
