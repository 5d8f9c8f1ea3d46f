"""paddle.crop (crop_tensor), paddle.shard_index and paddle.static.nn.continuous_value_model
(cvm), appending Paddle's ops with Paddle's argument checks. crop's shape / offsets take a
1-D Variable or lists mixing ints and one-value Variables, passed as Paddle passes them (the
ints of a mixed list as int32 fill_constants): the op folds their values before planning a run."""
from __future__ import annotations

import numpy as np

from ...framework import Variable
from .. import tensor as _tensor
from ..helper import ArgumentValueError, LayerHelper, check_type, check_variable_and_dtype


def _crop_list(values, arg: str, lowest: int, tensor_attr: int):
    """(attr, one-value tensors or None) for crop's list argument `arg`: int items must be
    >= lowest; a Variable item stands as `tensor_attr` in the attribute (Paddle's)."""
    attr, tensors = [], []
    for i, v in enumerate(values):
        if isinstance(v, Variable):
            v.stop_gradient = True
            attr.append(tensor_attr)
            tensors.append(v)
            continue
        check_type(v, f"{arg}[{i}]", (int, np.integer), "crop_tensor")
        if v < lowest:
            raise ArgumentValueError(f"crop_tensor: {arg}[{i}] must be >= {lowest}, got {v}")
        attr.append(int(v))
        tensors.append(None)
    if all(t is None for t in tensors):
        return attr, None
    return attr, [t if t is not None else _tensor.fill_constant([1], "int32", a)
                  for t, a in zip(tensors, attr)]


def crop(x, shape=None, offsets=None, name=None) -> Variable:
    """paddle.crop: x[offsets[i] : offsets[i] + shape[i]] per dim (shape -1: the rest of the
    dim; shape None: x's; offsets None: zeros)."""
    check_variable_and_dtype(x, "x", ("float32", "float64", "int32", "int64"), "crop_tensor")
    check_type(shape, "shape", (list, tuple, Variable, type(None)), "crop_tensor")
    check_type(offsets, "offsets", (list, tuple, Variable, type(None)), "crop_tensor")
    rank = len(x.shape)
    inputs, attrs = {"X": [x]}, {}
    for arg, value, lowest, tensor_attr, whole, listed in (
            ("offsets", [0] * rank if offsets is None else offsets, 0, -1, "Offsets",
             "OffsetsTensor"),
            ("shape", list(x.shape) if shape is None else shape, -1, 0, "Shape", "ShapeTensor")):
        if isinstance(value, Variable):
            value.stop_gradient = True
            inputs[whole] = [value]
            if arg == "offsets":  # Paddle's: the attribute keeps the rank
                attrs[arg] = [-1] * rank
            continue
        attrs[arg], tensors = _crop_list(value, arg, lowest, tensor_attr)
        if tensors is not None:
            inputs[listed] = tensors
    helper = LayerHelper("crop_tensor", name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op("crop_tensor", inputs=inputs, outputs={"Out": [out]}, attrs=attrs)
    return out


def shard_index(input, index_num, nshards, shard_id, ignore_value=-1) -> Variable:
    """paddle.shard_index: ids of shard `shard_id` (of nshards, ceil(index_num / nshards) ids
    each) as their position in it, other ids as ignore_value."""
    check_variable_and_dtype(input, "input", ("int64", "int32"), "shard_index")
    if shard_id < 0 or shard_id >= nshards:
        raise ArgumentValueError(f"The shard_id({shard_id}) should be in [0, {nshards})")
    helper = LayerHelper("shard_index")
    out = helper.create_variable_for_type_inference(input.dtype)
    helper.append_op("shard_index", inputs={"X": [input]}, outputs={"Out": [out]},
                     attrs={"index_num": index_num, "nshards": nshards, "shard_id": shard_id,
                            "ignore_value": ignore_value})
    out.stop_gradient = True
    return out


def continuous_value_model(input, cvm, use_cvm=True) -> Variable:
    """paddle.static.nn.continuous_value_model: the cvm op over input [N, D] whose first two
    columns are show / click counts, with cvm [N, 2] (see ops/cvm.py)."""
    check_variable_and_dtype(input, "input", ("float16", "float32", "float64"), "cvm")
    helper = LayerHelper("cvm")
    out = helper.create_variable_for_type_inference(input.dtype)
    helper.append_op("cvm", inputs={"X": [input], "CVM": [cvm]}, outputs={"Y": [out]},
                     attrs={"use_cvm": use_cvm})
    return out
