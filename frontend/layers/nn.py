"""Neural-network layers of fluid.layers: fc, activations, losses, metrics, normalization."""
from __future__ import annotations

import numpy as np

from ..dtypes import VarType
from ..errors import FluidcError, ShapeError
from ..framework import Variable
from ..initializer import Constant
from ..param_attr import ParamAttr
from .helper import (ALL_DTYPES, COMPLEX_DTYPES, FLOAT_DTYPES, REAL_DTYPES, ArgumentTypeError,
                     ArgumentValueError, LayerHelper,
                     ShapeAssertionError, append_unary, check_dtype, check_type,
                     check_variable_and_dtype)
from .loss import _hard_label_cross_entropy
from .tensor import fill_constant


def _binary(op_type: str, x: Variable, y: Variable, axis: int = -1, act: str | None = None,
            name: str | None = None) -> Variable:
    helper = LayerHelper(op_type, name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op(op_type, inputs={"X": [x], "Y": [y]}, outputs={"Out": [out]},
                     attrs={"axis": axis})
    return helper.append_activation(out, act)


def fc(input, size: int, num_flatten_dims: int = 1, param_attr=None, bias_attr=None,
       act: str | None = None, name: str | None = None) -> Variable:
    """Fully connected: mul by a [in, size] weight (per input), sum, + bias, activation."""
    helper = LayerHelper("fc", name=name)
    inputs = input if isinstance(input, (list, tuple)) else [input]
    param_attrs = param_attr if isinstance(param_attr, (list, tuple)) else [param_attr] * len(inputs)
    products = []
    for x, pattr in zip(inputs, param_attrs):
        in_dim = int(np.prod(x.shape[num_flatten_dims:]))
        if in_dim <= 0:
            raise FluidcError(f"fc '{helper.name}': input '{x.name}' has shape {list(x.shape)}, "
                              f"whose dims after {num_flatten_dims} must be known")
        w = helper.create_parameter(ParamAttr.to_attr(pattr), [in_dim, size], x.dtype)
        tmp = helper.create_variable_for_type_inference(x.dtype)
        helper.append_op("mul", inputs={"X": [x], "Y": [w]}, outputs={"Out": [tmp]},
                         attrs={"x_num_col_dims": num_flatten_dims, "y_num_col_dims": 1})
        products.append(tmp)
    if len(products) > 1:
        pre_bias = helper.create_variable_for_type_inference(inputs[0].dtype)
        helper.append_op("sum", inputs={"X": products}, outputs={"Out": [pre_bias]})
    else:
        pre_bias = products[0]
    pre_act = helper.append_bias_op(pre_bias, bias_attr, size, dim_start=num_flatten_dims)
    return helper.append_activation(pre_act, act)


def elementwise_add(x, y, axis=-1, act=None, name=None):
    """x + y with Paddle's axis broadcasting."""
    return _binary("elementwise_add", x, y, axis, act, name)


def elementwise_sub(x, y, axis=-1, act=None, name=None):
    """x - y with Paddle's axis broadcasting."""
    return _binary("elementwise_sub", x, y, axis, act, name)


def elementwise_mul(x, y, axis=-1, act=None, name=None):
    """x * y with Paddle's axis broadcasting."""
    return _binary("elementwise_mul", x, y, axis, act, name)


def elementwise_div(x, y, axis=-1, act=None, name=None):
    """x / y with Paddle's axis broadcasting."""
    return _binary("elementwise_div", x, y, axis, act, name)


def elementwise_max(x, y, axis=-1, act=None, name=None):
    """max(x, y) with Paddle's axis broadcasting."""
    return _binary("elementwise_max", x, y, axis, act, name)


def elementwise_min(x, y, axis=-1, act=None, name=None):
    """min(x, y) with Paddle's axis broadcasting."""
    return _binary("elementwise_min", x, y, axis, act, name)


def elementwise_pow(x, y, axis=-1, act=None, name=None):
    """x ** y with Paddle's axis broadcasting."""
    return _binary("elementwise_pow", x, y, axis, act, name)


def relu(x, name=None): return append_unary("relu", x, name)  # noqa: E704
def sigmoid(x, name=None): return append_unary("sigmoid", x, name)  # noqa: E704
def tanh(x, name=None): return append_unary("tanh", x, name)  # noqa: E704
def exp(x, name=None): return append_unary("exp", x, name, REAL_DTYPES)  # noqa: E704
def log(x, name=None): return append_unary("log", x, name, REAL_DTYPES)  # noqa: E704
def sqrt(x, name=None): return append_unary("sqrt", x, name, REAL_DTYPES)  # noqa: E704
def rsqrt(x, name=None): return append_unary("rsqrt", x, name, REAL_DTYPES)  # noqa: E704
def square(x, name=None): return append_unary("square", x, name, REAL_DTYPES)  # noqa: E704
def abs(x, name=None): return append_unary("abs", x, name, REAL_DTYPES)  # noqa: E704,A001


def leaky_relu(x, alpha: float = 0.02, name=None):
    """max(x, alpha * x)."""
    return append_unary("leaky_relu", x, name, alpha=alpha)


def gelu(x, approximate: bool = False, name=None):
    """Gaussian error linear unit (erf, or tanh when approximate)."""
    return append_unary("gelu", x, name, approximate=approximate)


def scale(x, scale: float = 1.0, bias: float = 0.0, bias_after_scale: bool = True, act=None,
          name=None):
    """scale * x + bias (or scale * (x + bias)); a Variable scale is the op's ScaleTensor input."""
    check_variable_and_dtype(x, "x", REAL_DTYPES + COMPLEX_DTYPES, "scale")  # Paddle's list
    helper = LayerHelper("scale", name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    inputs = {"X": [x]}
    attrs = {"bias": float(bias), "bias_after_scale": bias_after_scale}
    if isinstance(scale, Variable):
        inputs["ScaleTensor"] = [scale]
    else:
        attrs["scale"] = float(scale)
    helper.append_op("scale", inputs=inputs, outputs={"Out": [out]}, attrs=attrs)
    return helper.append_activation(out, act)


def softmax(input, use_cudnn: bool = False, name=None, axis: int = -1):
    """exp(x) / sum(exp(x)) along axis."""
    check_variable_and_dtype(input, "x", FLOAT_DTYPES, "softmax")
    return append_unary("softmax", input, name, axis=axis)


def mean(x, name=None):
    """The mean of every element, shape [1] as in Paddle 1.x: a reduce_mean over every axis
    spelt the 1.x way (`dim=[0]`), since the `mean` op itself gives a 0-d result (Paddle 3.x)."""
    check_variable_and_dtype(x, "x", REAL_DTYPES, "mean")
    return _reduce("reduce_mean", x, None, False, name, layer="mean")


def _reduce(op_type: str, input, dim, keep_dim: bool, name, layer: str = "") -> Variable:
    helper = LayerHelper(layer or op_type, name=name)
    out = helper.create_variable_for_type_inference(input.dtype)
    reduce_all = dim is None or dim == [] or (isinstance(dim, (list, tuple)) and
                                             len(dim) == len(input.shape))
    dims = [0] if dim is None else (list(dim) if isinstance(dim, (list, tuple)) else [dim])
    helper.append_op(op_type, inputs={"X": [input]}, outputs={"Out": [out]},
                     attrs={"dim": dims, "keep_dim": keep_dim, "reduce_all": reduce_all})
    return out


def reduce_sum(input, dim=None, keep_dim=False, name=None):
    """Sum over dims (all when None)."""
    return _reduce("reduce_sum", input, dim, keep_dim, name)


def reduce_mean(input, dim=None, keep_dim=False, name=None):
    """Mean over dims (all when None)."""
    return _reduce("reduce_mean", input, dim, keep_dim, name)


def reduce_max(input, dim=None, keep_dim=False, name=None):
    """Max over dims (all when None)."""
    return _reduce("reduce_max", input, dim, keep_dim, name)


def reduce_min(input, dim=None, keep_dim=False, name=None):
    """Min over dims (all when None)."""
    return _reduce("reduce_min", input, dim, keep_dim, name)


def square_error_cost(input, label):
    """(input - label)^2, elementwise."""
    helper = LayerHelper("square_error_cost")
    minus = helper.create_variable_for_type_inference(input.dtype)
    helper.append_op("elementwise_sub", inputs={"X": [input], "Y": [label]},
                     outputs={"Out": [minus]})
    out = helper.create_variable_for_type_inference(input.dtype)
    helper.append_op("square", inputs={"X": [minus]}, outputs={"Out": [out]})
    return out


def mse_loss(input, label):
    """The mean of (input - label)^2 over every element (1.x fluid.layers.mse_loss: reduce_mean
    of square_error_cost); input and label float32 / float64."""
    check_variable_and_dtype(input, "input", ("float32", "float64"), "mse_loss")
    check_variable_and_dtype(label, "label", ("float32", "float64"), "mse_loss")
    return reduce_mean(square_error_cost(input, label))


def cross_entropy(input, label, soft_label: bool = False, ignore_index: int = -100):
    """-log(input[label]) per row (or -sum(label * log(input)) with soft labels).

    Hard labels append cross_entropy2, as Paddle's 1.x layer does since 1.6."""
    if not soft_label:
        return _hard_label_cross_entropy(input, label, ignore_index)
    helper = LayerHelper("cross_entropy")
    out = helper.create_variable_for_type_inference(input.dtype)
    helper.append_op("cross_entropy", inputs={"X": [input], "Label": [label]},
                     outputs={"Y": [out]},
                     attrs={"soft_label": soft_label, "ignore_index": ignore_index})
    return out


def softmax_with_cross_entropy(logits, label, soft_label: bool = False, ignore_index: int = -100,
                               numeric_stable_mode: bool = True, return_softmax: bool = False,
                               axis: int = -1):
    """cross_entropy(softmax(logits), label) in one op; the softmax too when asked."""
    helper = LayerHelper("softmax_with_cross_entropy")
    sm = helper.create_variable_for_type_inference(logits.dtype)
    loss = helper.create_variable_for_type_inference(logits.dtype)
    helper.append_op("softmax_with_cross_entropy", inputs={"Logits": [logits], "Label": [label]},
                     outputs={"Softmax": [sm], "Loss": [loss]},
                     attrs={"soft_label": soft_label, "ignore_index": ignore_index,
                            "numeric_stable_mode": numeric_stable_mode, "axis": axis})
    return (loss, sm) if return_softmax else loss


def topk(input, k: int, name=None):
    """The k largest values of each row and their indices."""
    helper = LayerHelper("top_k", name=name)
    values = helper.create_variable_for_type_inference(input.dtype, stop_gradient=True)
    indices = helper.create_variable_for_type_inference(VarType.INT64, stop_gradient=True)
    helper.append_op("top_k", inputs={"X": [input]},
                     outputs={"Out": [values], "Indices": [indices]}, attrs={"k": k})
    return values, indices


def _pair_list(value, arg: str, sizes: tuple[int, ...]) -> list[int]:
    """An int or a list / tuple of ints as a list of the first size in `sizes`, a list of
    another size repeated to it (unfold's 2 paddings are [top, left] = [bottom, right])."""
    if isinstance(value, int):
        return [value] * sizes[0]
    if isinstance(value, (list, tuple)) and len(value) in sizes \
            and all(isinstance(v, int) for v in value):
        return list(value) * (sizes[0] // len(value))
    raise ArgumentValueError(f"unfold: {arg} must be an int or a list of "
                             f"{' or '.join(map(str, sizes))} ints, got {value!r}")


def unfold(x, kernel_sizes, strides=1, paddings=0, dilations=1, name=None):
    """fluid.layers.unfold / paddle.nn.functional.unfold (im2col): [N, C, H, W] ->
    [N, C * kh * kw, L], each column the cells one sliding window covers (the `unfold` op)."""
    check_variable_and_dtype(x, "x", ("float16", "float32", "float64"), "unfold")
    if len(x.shape) != 4:
        raise ArgumentValueError(f"unfold: input should be the format of [N, C, H, W], got "
                                 f"shape {list(x.shape)}")
    attrs = {"kernel_sizes": _pair_list(kernel_sizes, "kernel_sizes", (2,)),
             "strides": _pair_list(strides, "strides", (2,)),
             "paddings": _pair_list(paddings, "paddings", (4, 2)),
             "dilations": _pair_list(dilations, "dilations", (2,))}
    helper = LayerHelper("unfold", name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op("unfold", inputs={"X": [x]}, outputs={"Y": [out]}, attrs=attrs)
    return out


def affine_grid(theta, out_shape, name=None, align_corners=True):
    """fluid.layers.affine_grid (F.affine_grid): the [N, H, W, 2] (or [N, D, H, W, 3]) grid of the
    affine transforms theta ([N, 2, 3] or [N, 3, 4]) over out_shape ([N, C, H, W] or
    [N, C, D, H, W]: ints, or an int32 Tensor read when the program runs)."""
    if not isinstance(theta, Variable):
        raise ArgumentTypeError("The theta should be a Tensor.")
    check_variable_and_dtype(theta, "theta", ("float32", "float64"), "affine_grid")
    inputs, attrs = {"Theta": [theta]}, {"align_corners": bool(align_corners)}
    if isinstance(out_shape, Variable):
        # int32 in a static program; an eager Tensor of any int type (paddle.to_tensor's int64)
        check_variable_and_dtype(out_shape, "out_shape", ("int32", "int64"), "affine_grid")
        inputs["OutputShape"] = [out_shape]
    elif isinstance(out_shape, (list, tuple)):
        attrs["output_shape"] = [int(v) for v in out_shape]
    else:
        raise ArgumentTypeError("The out_shape should be a list, tuple or Tensor.")
    helper = LayerHelper("affine_grid", name=name)
    out = helper.create_variable_for_type_inference(theta.dtype)
    helper.append_op("affine_grid", inputs=inputs, outputs={"Output": [out]}, attrs=attrs)
    return out


ARGSORT_DTYPES = ("float16", "bfloat16", "float32", "float64", "int16", "int32", "int64", "uint8")


def argsort(input, axis: int = -1, descending: bool = False, name=None, stable: bool = False):
    """(sorted values, their int64 indices) of input along axis (the `argsort` op): a stable
    sort, ascending unless descending."""
    check_variable_and_dtype(input, "input", ARGSORT_DTYPES, "argsort")
    check_type(axis, "axis", (int,), "argsort")
    helper = LayerHelper("argsort", name=name)
    out = helper.create_variable_for_type_inference(input.dtype)
    ids = helper.create_variable_for_type_inference(VarType.INT64, stop_gradient=True)
    helper.append_op("argsort", inputs={"X": [input]}, outputs={"Out": [out], "Indices": [ids]},
                     attrs={"axis": axis, "descending": bool(descending),
                            "stable": bool(stable)})
    return out, ids


def accuracy(input, label, k: int = 1, correct=None, total=None):
    """The fraction of rows whose label is among the top k predictions."""
    check_variable_and_dtype(input, "input", ("float16", "bfloat16", "float32", "float64"),
                             "accuracy")
    helper = LayerHelper("accuracy")
    values, indices = topk(input, k)
    acc = helper.create_variable_for_type_inference(VarType.FP32, stop_gradient=True)
    correct = correct or helper.create_variable_for_type_inference(VarType.INT32, stop_gradient=True)
    total = total or helper.create_variable_for_type_inference(VarType.INT32, stop_gradient=True)
    helper.append_op("accuracy", inputs={"Out": [values], "Indices": [indices], "Label": [label]},
                     outputs={"Accuracy": [acc], "Correct": [correct], "Total": [total]})
    return acc


def _check_target(x: Variable, shape) -> None:
    """Paddle's rules on a reshape target, before any op: one -1 at most, a 0 (copy) only at
    an index x has, no other negative size."""
    for i, d in enumerate(shape):
        if d < -1 or (d == -1 and list(shape[:i]).count(-1)) or (d == 0 and i >= len(x.shape)):
            what = ("copies dim %d, which X does not have" % i if d == 0 else
                    "has more than one -1" if d == -1 else "has a negative size other than -1")
            raise ShapeAssertionError(f"op 'reshape2': shape {list(shape)} {what} (X "
                                       f"'{x.name}' has shape {list(x.shape)})")


def _shape_var(var: Variable, arg: str) -> Variable:
    """A Variable giving reshape's whole target: a 1-D int tensor, kept out of gradients."""
    check_dtype(var.dtype, arg, ("int32", "int64"), "reshape")
    if len(var.shape) != 1:
        raise ShapeError(f"reshape: '{arg}' must be a 1-D int tensor, but '{var.name}' has "
                         f"shape {list(var.shape)}")
    var.stop_gradient = True
    return var


def _dim_var(d, i: int) -> Variable:
    """One dim of a reshape target given as a list holding run-time Variables: a Variable of
    one int (a plain int becomes a fill_constant, as Paddle writes it)."""
    if not isinstance(d, Variable):
        check_type(d, f"shape[{i}]", (int, np.integer), "reshape")
        return fill_constant([1], "int32", int(d))
    check_dtype(d.dtype, f"shape[{i}]", ("int32", "int64"), "reshape")
    if -1 not in d.shape and int(np.prod(d.shape)) != 1:
        raise ShapeError(f"reshape: shape[{i}] must hold one value, but '{d.name}' has shape "
                         f"{list(d.shape)}")
    d.stop_gradient = True
    return d


def reshape(x, shape, actual_shape=None, act=None, inplace: bool = False, name=None):
    """x with a new shape (0 copies a dim, -1 is inferred)."""
    check_variable_and_dtype(x, "x", ALL_DTYPES, "reshape")
    check_type(shape, "shape", (list, tuple, Variable), "reshape")
    inputs = {"X": [x]}
    if isinstance(actual_shape, Variable):  # 1.x: it overrides `shape` when the program runs
        inputs["Shape"] = [_shape_var(actual_shape, "actual_shape")]
    # Variables are read when the plan is built (passes/shape_inputs.py), as Paddle reads them
    # when the program runs: a value known at build time may still be rewritten later (a loop).
    if isinstance(shape, Variable):
        inputs["Shape"], shape = [_shape_var(shape, "shape")], []
    elif any(isinstance(d, Variable) for d in shape):
        inputs["ShapeTensor"] = [_dim_var(d, i) for i, d in enumerate(shape)]
        shape = [-1 if isinstance(d, Variable) else d for d in shape]
    for i, d in enumerate(shape):
        check_type(d, f"shape[{i}]", (int, np.integer), "reshape")
    if len(inputs) == 1:
        _check_target(x, shape)
    helper = LayerHelper("reshape2", name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    xshape = helper.create_variable_for_type_inference(x.dtype, stop_gradient=True)
    helper.append_op("reshape2", inputs=inputs, outputs={"Out": [out], "XShape": [xshape]},
                     attrs={"shape": [int(d) for d in shape]})
    return helper.append_activation(out, act)


def transpose(x, perm, name=None):
    """x with its dims permuted."""
    check_variable_and_dtype(x, "x", ALL_DTYPES, "transpose")
    check_type(perm, "perm", (list, tuple), "transpose")
    if len(perm) != len(x.shape) or any(not -len(x.shape) <= p < len(x.shape) for p in perm):
        raise ShapeError(f"transpose: perm {list(perm)} must hold {len(x.shape)} axes of x "
                         f"'{x.name}' {list(x.shape)}, each less than {len(x.shape)}")
    helper = LayerHelper("transpose2", name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    xshape = helper.create_variable_for_type_inference(x.dtype, stop_gradient=True)
    helper.append_op("transpose2", inputs={"X": [x]}, outputs={"Out": [out], "XShape": [xshape]},
                     attrs={"axis": [int(d) for d in perm]})
    return out


def dropout(x, dropout_prob: float, is_test: bool = False, seed=None, name=None,
            dropout_implementation: str = "downgrade_in_infer"):
    """Zero elements with probability dropout_prob while training."""
    helper = LayerHelper("dropout", name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    mask = helper.create_variable_for_type_inference(VarType.UINT8, stop_gradient=True)
    seed = seed if seed is not None else helper.main_program.random_seed
    helper.append_op("dropout", inputs={"X": [x]}, outputs={"Out": [out], "Mask": [mask]},
                     attrs={"dropout_prob": float(dropout_prob), "is_test": is_test,
                            "fix_seed": bool(seed), "seed": int(seed or 0),
                            "dropout_implementation": dropout_implementation})
    return out


def batch_norm(input, act=None, is_test: bool = False, momentum: float = 0.9,
               epsilon: float = 1e-5, param_attr=None, bias_attr=None, data_layout: str = "NCHW",
               name=None, moving_mean_name=None, moving_variance_name=None,
               use_global_stats: bool = False):
    """Normalize over the batch (and spatial dims) per channel, with running statistics."""
    helper = LayerHelper("batch_norm", name=name)
    check_variable_and_dtype(input, "input", ("float16", "bfloat16", "float32", "float64"),
                             "batch_norm")
    if not 2 <= len(input.shape) <= 5:
        raise ShapeError(f"batch_norm: input '{input.name}' must have rank 2 to 5, got shape "
                         f"{list(input.shape)}")
    c = input.shape[1] if data_layout == "NCHW" else input.shape[-1]
    dtype = input.dtype
    scale = helper.create_parameter(ParamAttr.to_attr(param_attr), [c], dtype,
                                    default_initializer=Constant(1.0))
    bias = helper.create_parameter(ParamAttr.to_attr(bias_attr), [c], dtype, is_bias=True)
    stats = []
    for stat_name, value in ((moving_mean_name, 0.0), (moving_variance_name, 1.0)):
        attr = ParamAttr(name=stat_name, initializer=Constant(value), trainable=False)
        stats.append(helper.create_parameter(attr, [c], dtype))
    mean_var, var_var = stats
    saved_mean = helper.create_variable_for_type_inference(dtype, stop_gradient=True)
    saved_var = helper.create_variable_for_type_inference(dtype, stop_gradient=True)
    out = helper.create_variable_for_type_inference(dtype)
    inputs = {"X": [input], "Scale": [scale], "Bias": [bias], "Mean": [mean_var],
              "Variance": [var_var]}
    if isinstance(momentum, Variable):  # Paddle's MomentumTensor: a [1] float32 var
        check_variable_and_dtype(momentum, "momentum", ("float32",), "batch_norm")
        inputs["MomentumTensor"], momentum = [momentum], 0.9
    helper.append_op("batch_norm", inputs=inputs,
                     outputs={"Y": [out], "MeanOut": [mean_var], "VarianceOut": [var_var],
                              "SavedMean": [saved_mean], "SavedVariance": [saved_var]},
                     attrs={"momentum": momentum, "epsilon": epsilon, "is_test": is_test,
                            "data_layout": data_layout, "use_global_stats": use_global_stats})
    return helper.append_activation(out, act)


def embedding(input, size, is_sparse: bool = False, is_distributed: bool = False,
              padding_idx=None, param_attr=None, dtype="float32"):
    """Rows of a [vocab, dim] table looked up by ids (lookup_table: ids end in a dim of 1)."""
    helper = LayerHelper("embedding")
    w = helper.create_parameter(ParamAttr.to_attr(param_attr), list(size), dtype,
                                )
    out = helper.create_variable_for_type_inference(w.dtype)
    pad = -1 if padding_idx is None else (padding_idx if padding_idx >= 0 else size[0] + padding_idx)
    helper.append_op("lookup_table", inputs={"Ids": [input], "W": [w]}, outputs={"Out": [out]},
                     attrs={"is_sparse": is_sparse, "is_distributed": is_distributed,
                            "padding_idx": pad})
    return out


def mul(x, y, x_num_col_dims: int = 1, y_num_col_dims: int = 1, name=None):
    """x flattened to 2-D at x_num_col_dims times y flattened at y_num_col_dims."""
    helper = LayerHelper("mul", name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op("mul", inputs={"X": [x], "Y": [y]}, outputs={"Out": [out]},
                     attrs={"x_num_col_dims": x_num_col_dims, "y_num_col_dims": y_num_col_dims})
    return out


def matmul(x, y, transpose_x: bool = False, transpose_y: bool = False, alpha: float = 1.0,
           name=None):
    """Batched matrix product with optional transposes and scale."""
    helper = LayerHelper("matmul", name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op("matmul", inputs={"X": [x], "Y": [y]}, outputs={"Out": [out]},
                     attrs={"transpose_X": transpose_x, "transpose_Y": transpose_y,
                            "alpha": float(alpha)})
    return out
