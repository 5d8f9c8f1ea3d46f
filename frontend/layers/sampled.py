"""fluid.layers.nce and row_conv (also paddle.static.nn.*): the sampled-softmax loss and the
lookahead convolution of Paddle's language and speech models."""
from __future__ import annotations

import numpy as np

from ..framework import Variable
from ..param_attr import ParamAttr
from .api2.initializer import Assign
from .helper import ArgumentValueError, LayerHelper, check_variable_and_dtype

_SAMPLERS = {"uniform": 0, "log_uniform": 1, "custom_dist": 2}


def _alias_tables(dist: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Walker's alias tables of a distribution over len(dist) classes: column i is kept with
    probability keep[i], else it gives alias[i] (-1: always kept)."""
    n = len(dist)
    scaled = dist * n
    keep, alias = np.ones(n), np.full(n, -1)
    small = [i for i in range(n) if scaled[i] < 1.0]
    large = [i for i in range(n) if scaled[i] > 1.0]
    while small and large:
        s, g = small.pop(0), large.pop(0)
        keep[s], alias[s] = scaled[s], g
        scaled[g] += scaled[s] - 1.0
        if scaled[g] < 1.0:
            small.append(g)
        elif scaled[g] > 1.0:
            large.append(g)
    return alias.astype(np.int32), keep.astype(np.float32)


def nce(input, label, num_total_classes, sample_weight=None, param_attr=None, bias_attr=None,
        num_neg_samples=None, name=None, sampler="uniform", custom_dist=None, seed=0,
        is_sparse=False) -> Variable:
    """Noise-contrastive estimation: the nce op's per-row Cost over the label classes and
    num_neg_samples sampled ones, divided by num_neg_samples + 1 (as Paddle returns it)."""
    helper = LayerHelper("nce", name=name)
    check_variable_and_dtype(input, "input", ("float32", "float64"), "nce")
    check_variable_and_dtype(label, "label", ("int64",), "nce")
    if len(input.shape) != 2:
        raise ValueError(f"The rank of `input` must be 2, but received {len(input.shape)}.")
    if sampler not in _SAMPLERS:
        raise ArgumentValueError(f"nce: sampler must be one of {sorted(_SAMPLERS)}, got "
                                 f"{sampler!r}")
    num_neg_samples = 10 if num_neg_samples is None else int(num_neg_samples)
    w = helper.create_parameter(ParamAttr.to_attr(param_attr),
                                [num_total_classes, input.shape[1]], input.dtype)
    inputs = {"Input": [input], "Label": [label], "Weight": [w]}
    if bias_attr is not False:
        inputs["Bias"] = [helper.create_parameter(ParamAttr.to_attr(bias_attr),
                                                  [num_total_classes, 1], input.dtype,
                                                  is_bias=True)]
    if sample_weight is not None:
        inputs["SampleWeight"] = [sample_weight]
    if sampler == "custom_dist":
        inputs.update(_custom_dist_inputs(helper, custom_dist, num_total_classes))
    cost = helper.create_variable_for_type_inference(input.dtype)
    logits = helper.create_variable_for_type_inference(input.dtype)
    labels = helper.create_variable_for_type_inference(label.dtype)
    helper.append_op("nce", inputs=inputs,
                     outputs={"Cost": [cost], "SampleLogits": [logits],
                              "SampleLabels": [labels]},
                     attrs={"num_total_classes": int(num_total_classes),
                            "num_neg_samples": num_neg_samples, "seed": int(seed),
                            "sampler": _SAMPLERS[sampler], "is_sparse": bool(is_sparse),
                            "remote_prefetch": bool(is_sparse)})
    return cost / (num_neg_samples + 1)


def _custom_dist_inputs(helper, custom_dist, num_total_classes) -> dict:
    """The custom distribution and its alias tables, as constant parameters."""
    if custom_dist is None:  # Paddle asserts it
        raise AssertionError("nce: sampler 'custom_dist' needs custom_dist, the probability "
                             "of each class")
    dist = np.asarray(custom_dist, dtype=np.float64).reshape(-1)
    if len(dist) != num_total_classes:
        raise ArgumentValueError(f"nce: custom_dist has {len(dist)} probabilities, "
                                 f"num_total_classes is {num_total_classes}")
    alias, keep = _alias_tables(dist)
    out = {}
    for slot, value in (("CustomDistProbs", dist.astype(np.float32)),
                        ("CustomDistAlias", alias), ("CustomDistAliasProbs", keep)):
        p = helper.create_parameter(ParamAttr(), list(value.shape), value.dtype.name,
                                    default_initializer=Assign(value))
        p.stop_gradient = True
        out[slot] = [p]
    return out


def row_conv(input, future_context_size, param_attr=None, act=None) -> Variable:
    """Lookahead convolution: out[t] = sum_k input[t + k] * w[k] for k in
    [0, future_context_size], per feature, within each sequence (input a LoD tensor [T, D] or a
    padded [B, T, D] tensor); then act."""
    helper = LayerHelper("row_conv")
    check_variable_and_dtype(input, "input", ("float32", "float64"), "row_conv")
    w = helper.create_parameter(ParamAttr.to_attr(param_attr),
                                [future_context_size + 1, input.shape[-1]], input.dtype)
    out = helper.create_variable_for_type_inference(input.dtype)
    helper.append_op("row_conv", inputs={"X": [input], "Filter": [w]}, outputs={"Out": [out]})
    return helper.append_activation(out, act)
