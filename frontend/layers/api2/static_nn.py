"""paddle.static.nn: the layers that create their own parameters, under 2.x names and rules."""
from __future__ import annotations

from ...dtypes import convert_dtype
from ...errors import FluidcError
from ...param_attr import ParamAttr
from .. import nn as _nn
from ..helper import FLOAT_DTYPES, LayerHelper, check_dtype, check_variable_and_dtype


def fc(x, size, num_flatten_dims=1, weight_attr=None, bias_attr=None, activation=None, name=None):
    """Fully connected layer (2.x names for fluid.layers.fc)."""
    return _nn.fc(x, size, num_flatten_dims, weight_attr, bias_attr, activation, name)


def embedding(input, size, is_sparse=False, is_distributed=False, padding_idx=None,
              param_attr=None, dtype="float32"):
    """Rows of a [vocab, dim] table looked up by ids of any shape: ids.shape + [dim]
    (lookup_table_v2; 1.x's fluid.layers.embedding wants ids ending in 1)."""
    check_variable_and_dtype(input, "input", ("int64",), "embedding")
    check_dtype(convert_dtype(dtype), "dtype", FLOAT_DTYPES, "embedding")
    helper = LayerHelper("embedding")
    vocab = int(size[0])
    if padding_idx is not None and not -vocab <= padding_idx < vocab:
        raise FluidcError(f"embedding: padding_idx {padding_idx} is outside [-{vocab}, {vocab})")
    w = helper.create_parameter(ParamAttr.to_attr(param_attr), [int(d) for d in size], dtype)
    out = helper.create_variable_for_type_inference(w.dtype)
    helper.append_op("lookup_table_v2", inputs={"Ids": [input], "W": [w]}, outputs={"Out": [out]},
                     attrs={"is_sparse": is_sparse, "is_distributed": is_distributed,
                            "padding_idx": -1 if padding_idx is None else padding_idx % vocab})
    return out


def batch_norm(input, act=None, is_test=False, momentum=0.9, epsilon=1e-05, param_attr=None,
               bias_attr=None, data_layout="NCHW", in_place=False, name=None,
               moving_mean_name=None, moving_variance_name=None,
               do_model_average_for_mean_and_var=True, use_global_stats=False):
    """Batch normalization with running statistics (the 1.x layer under 2.x's signature)."""
    return _nn.batch_norm(input, act, is_test, momentum, epsilon, param_attr, bias_attr,
                          data_layout, name, moving_mean_name, moving_variance_name,
                          use_global_stats)
