"""fluid.layers for CNNs, transformer blocks and shape plumbing: conv2d, pool2d, layer_norm, the
views, split/slice/gather/stack/expand, argmax and the newer activations."""
from __future__ import annotations

import math

from ..dtypes import VarType, convert_dtype
from ..errors import FluidcError, ShapeError
from ..framework import Variable
from ..initializer import Constant, Normal
from ..param_attr import ParamAttr
from .helper import (ArgumentTypeError, ArgumentValueError, LayerHelper, append_unary,
                     check_variable_and_dtype)


def _pair(v, what: str, layer: str) -> list[int]:
    v = list(v) if isinstance(v, (list, tuple)) else [v, v]
    if len(v) != 2:
        raise ArgumentValueError(f"{layer}: {what} must be an int or 2 ints, got {v}")
    return [int(d) for d in v]


def _padding(padding, layer: str, data_format: str = "NCHW") -> tuple[list[int], str]:
    """(paddings, padding_algorithm) from an int, 2 or 4 ints, 'SAME' / 'VALID', or one
    [before, after] pair per dim of the input, those of the batch and channel dims [0, 0]."""
    if isinstance(padding, str):
        algo = padding.upper()
        if algo not in ("SAME", "VALID"):
            raise ArgumentValueError(f"{layer}: padding {padding!r} must be 'SAME', 'VALID' or "
                                     f"ints")
        return [0, 0], algo
    p = list(padding) if isinstance(padding, (list, tuple)) else [padding, padding]
    if len(p) == 4 and all(isinstance(d, (list, tuple)) for d in p):
        spatial = [1, 2] if data_format == "NHWC" else [2, 3]
        if any(list(d) != [0, 0] for i, d in enumerate(p) if i not in spatial):
            raise ArgumentValueError(f"{layer}: non-zero padding {p} in the batch or channel "
                                     f"dims of {data_format} data")
        p = [d for i in spatial for d in p[i]]
    if len(p) not in (2, 4):
        raise ArgumentValueError(f"{layer}: padding must be an int, 2 or 4 ints, or 4 pairs, "
                                 f"got {p}")
    return [int(d) for d in p], "EXPLICIT"


def _check_format(fmt: str, layer: str) -> None:
    if fmt not in ("NCHW", "NHWC"):
        raise ArgumentValueError(f"{layer}: data_format must be 'NCHW' or 'NHWC', got {fmt!r}")


def _out(helper: LayerHelper, op_type: str, inputs: dict, attrs: dict, dtype=None,
         slot: str = "Out", xshape: bool = False):
    x = next(iter(inputs.values()))[0]
    out = helper.create_variable_for_type_inference(dtype if dtype is not None else x.dtype)
    outputs = {slot: [out]}
    if xshape:
        outputs["XShape"] = [helper.create_variable_for_type_inference(x.dtype,
                                                                       stop_gradient=True)]
    helper.append_op(op_type, inputs=inputs, outputs=outputs, attrs=attrs)
    return out


def conv2d(input, num_filters: int, filter_size, stride=1, padding=0, dilation=1, groups=None,
           param_attr=None, bias_attr=None, use_cudnn: bool = True, act=None, name=None,
           data_format: str = "NCHW") -> Variable:
    """2-D convolution (+ bias, activation); the filter is [num_filters, C / groups, kh, kw]."""
    helper = LayerHelper("conv2d", name=name)
    # Paddle's checks, in its order; each bad argument is a ValueError naming it
    check_variable_and_dtype(input, "input", ("float16", "bfloat16", "float32", "float64"),
                             "conv2d")
    if len(input.shape) != 4:
        raise ShapeError(f"conv2d '{helper.name}': input '{input.name}' must have 4 "
                                 f"dims, got shape {list(input.shape)}")
    if not isinstance(use_cudnn, bool):
        raise ArgumentValueError(f"conv2d '{helper.name}': use_cudnn must be a bool, got "
                                 f"{use_cudnn!r}")
    _check_format(data_format, helper.name)
    c = input.shape[1 if data_format == "NCHW" else 3]
    if c < 0:
        raise ArgumentValueError(f"conv2d '{helper.name}': the channels of input "
                                 f"'{input.name}' {list(input.shape)} must be known")
    groups = 1 if groups is None else groups
    if groups <= 0:
        raise ArgumentValueError(f"conv2d '{helper.name}': groups must be positive, got "
                                 f"{groups}")
    if c % groups:
        raise ArgumentValueError(f"conv2d '{helper.name}': {c} channels do not split into "
                                 f"groups={groups}")
    k = _pair(filter_size, "filter_size", helper.name)
    stride = _pair(stride, "stride", helper.name)
    dilation = _pair(dilation, "dilation", helper.name)
    paddings, algo = _padding(padding, helper.name, data_format)
    if k[0] * k[1] * c <= 0:
        raise ArgumentValueError(f"conv2d '{helper.name}': filter_size {k} on {c} channels "
                                 f"gives no filter elements")
    op_type = ("depthwise_conv2d" if c == groups and num_filters % c == 0 and not use_cudnn
               else "conv2d")
    std = (2.0 / (k[0] * k[1] * c)) ** 0.5
    w = helper.create_parameter(ParamAttr.to_attr(param_attr), [num_filters, c // groups] + k,
                                input.dtype, default_initializer=Normal(0.0, std))
    pre_bias = helper.create_variable_for_type_inference(input.dtype)
    helper.append_op(op_type, inputs={"Input": [input], "Filter": [w]},
                     outputs={"Output": [pre_bias]},
                     attrs={"strides": stride, "paddings": paddings,
                            "padding_algorithm": algo, "groups": groups,
                            "dilations": dilation, "use_cudnn": use_cudnn,
                            "data_format": data_format})
    pre_act = helper.append_bias_op(pre_bias, bias_attr, num_filters,
                                    dim_start=1 if data_format == "NCHW" else 3)
    return helper.append_activation(pre_act, act)


def pool2d(input, pool_size=-1, pool_type: str = "max", pool_stride=1, pool_padding=0,
           global_pooling: bool = False, use_cudnn: bool = True, ceil_mode: bool = False,
           name=None, exclusive: bool = True, data_format: str = "NCHW") -> Variable:
    """Max or average pooling over pool_size windows (the whole map when global_pooling)."""
    helper = LayerHelper("pool2d", name=name)
    _check_format(data_format, helper.name)
    if pool_type not in ("max", "avg"):
        raise FluidcError(f"pool2d '{helper.name}': pool_type must be 'max' or 'avg', "
                          f"got {pool_type!r}")
    if not global_pooling and pool_size == -1:
        raise FluidcError(f"pool2d '{helper.name}': pool_size is required unless "
                          f"global_pooling")
    paddings, algo = _padding(pool_padding, helper.name, data_format)
    return _out(helper, "pool2d", {"X": [input]}, {
        "pooling_type": pool_type, "ksize": _pair(pool_size, "pool_size", helper.name),
        "global_pooling": global_pooling, "strides": _pair(pool_stride, "pool_stride", helper.name),
        "paddings": paddings, "padding_algorithm": algo, "use_cudnn": use_cudnn,
        "ceil_mode": ceil_mode, "exclusive": exclusive, "data_format": data_format})


def adaptive_pool2d(input, pool_size, pool_type: str = "max", require_index: bool = False,
                    name=None) -> Variable:
    """Pooling to a fixed pool_size output, windows spread evenly over the input."""
    helper = LayerHelper("adaptive_pool2d", name=name)
    if require_index:
        raise FluidcError(f"adaptive_pool2d '{helper.name}': require_index is not supported")
    return _out(helper, "pool2d", {"X": [input]}, {
        "pooling_type": pool_type, "ksize": _pair(pool_size, "pool_size", helper.name),
        "adaptive": True})


def layer_norm(input, scale: bool = True, shift: bool = True, begin_norm_axis: int = 1,
               epsilon: float = 1e-05, param_attr=None, bias_attr=None, act=None,
               name=None) -> Variable:
    """Normalize over the dims from begin_norm_axis on, then scale and shift."""
    helper = LayerHelper("layer_norm", name=name)
    dtype = input.dtype
    right = math.prod(input.shape[begin_norm_axis:])
    if right <= 0:
        raise FluidcError(f"layer_norm '{helper.name}': the dims of input '{input.name}' "
                          f"{list(input.shape)} from begin_norm_axis={begin_norm_axis} must "
                          f"be known")
    inputs = {"X": [input]}
    if scale:
        inputs["Scale"] = [helper.create_parameter(ParamAttr.to_attr(param_attr), [right], dtype,
                                                   default_initializer=Constant(1.0))]
    if shift:
        inputs["Bias"] = [helper.create_parameter(ParamAttr.to_attr(bias_attr), [right], dtype,
                                                  is_bias=True)]
    out = helper.create_variable_for_type_inference(dtype)
    mean = helper.create_variable_for_type_inference(dtype, stop_gradient=True)
    var = helper.create_variable_for_type_inference(dtype, stop_gradient=True)
    helper.append_op("layer_norm", inputs=inputs,
                     outputs={"Y": [out], "Mean": [mean], "Variance": [var]},
                     attrs={"epsilon": float(epsilon), "begin_norm_axis": begin_norm_axis})
    return helper.append_activation(out, act)


def flatten(x, axis: int = 1, name=None) -> Variable:
    """x as a matrix: the dims before axis by the dims from axis on (flatten2)."""
    return _out(LayerHelper("flatten2", name=name), "flatten2", {"X": [x]}, {"axis": axis},
                xshape=True)


def squeeze(input, axes, name=None) -> Variable:
    """input without the listed size-1 dims (squeeze2)."""
    return _out(LayerHelper("squeeze2", name=name), "squeeze2", {"X": [input]},
                {"axes": [int(a) for a in axes]}, xshape=True)


def unsqueeze(input, axes, name=None) -> Variable:
    """input with size-1 dims inserted at axes (unsqueeze2)."""
    axes = [axes] if isinstance(axes, int) else [int(a) for a in axes]
    return _out(LayerHelper("unsqueeze2", name=name), "unsqueeze2", {"X": [input]},
                {"axes": axes}, xshape=True)


def split(input, num_or_sections, dim: int = -1, name=None) -> list[Variable]:
    """input cut along dim into num equal parts or parts of the given sizes (one may be -1)."""
    helper = LayerHelper("split", name=name)
    if isinstance(num_or_sections, int):
        n, attrs = num_or_sections, {"num": num_or_sections, "sections": [], "axis": dim}
    else:
        n = len(num_or_sections)
        attrs = {"num": 0, "sections": [int(s) for s in num_or_sections], "axis": dim}
    outs = [helper.create_variable_for_type_inference(input.dtype) for _ in range(n)]
    helper.append_op("split", inputs={"X": [input]}, outputs={"Out": outs}, attrs=attrs)
    return outs


def slice(input, axes, starts, ends) -> Variable:  # noqa: A001
    """input[starts:ends] along axes (negative bounds count from the end)."""
    return _out(LayerHelper("slice"), "slice", {"Input": [input]},
                {"axes": list(axes), "starts": [int(s) for s in starts],
                 "ends": [int(e) for e in ends], "infer_flags": [1] * len(axes),
                 "decrease_axis": []})


def gather(input, index, overwrite: bool = True) -> Variable:
    """Rows of input picked by a 1-D index."""
    return _out(LayerHelper("gather"), "gather", {"X": [input], "Index": [index]},
                {"overwrite": overwrite})


def stack(x, axis: int = 0, name=None) -> Variable:
    """Tensors of one shape stacked along a new axis."""
    xs = list(x) if isinstance(x, (list, tuple)) else [x]
    return _out(LayerHelper("stack", name=name), "stack", {"X": xs}, {"axis": axis}, slot="Y")


def expand(x, expand_times, name=None) -> Variable:
    """x repeated expand_times along each dim; fluidc covers repeats of size-1 dims (expand_v2)."""
    helper = LayerHelper("expand", name=name)
    if len(expand_times) != len(x.shape):
        raise FluidcError(f"expand '{helper.name}': expand_times {list(expand_times)} must have "
                          f"one entry per dim of x {list(x.shape)}")
    shape = []
    for d, t in zip(x.shape, expand_times):
        if t != 1 and d != 1:
            raise FluidcError(f"expand '{helper.name}': repeating dim of size {d} of x "
                              f"{list(x.shape)} (tiling) is not supported; only size-1 dims")
        shape.append(-1 if t == 1 else int(t))
    return _out(helper, "expand_v2", {"X": [x]}, {"shape": shape})


def expand_v2(x, shape, name=None) -> Variable:
    """x broadcast to shape (-1 keeps x's dim): paddle.expand."""
    return _out(LayerHelper("expand_v2", name=name), "expand_v2", {"X": [x]},
                {"shape": [int(d) for d in shape]})


def fill_constant_batch_size_like(input, shape, dtype, value, input_dim_idx: int = 0,
                                  output_dim_idx: int = 0, force_cpu: bool = False) -> Variable:
    """A filled tensor of `shape` whose output_dim_idx dim is input's input_dim_idx dim."""
    helper = LayerHelper("fill_constant_batch_size_like")
    dtype = convert_dtype(dtype)
    out = helper.create_variable_for_type_inference(dtype, stop_gradient=True)
    helper.append_op("fill_constant_batch_size_like", inputs={"Input": [input]},
                     outputs={"Out": [out]},
                     attrs={"shape": [int(d) for d in shape], "dtype": int(dtype),
                            "value": float(value), "input_dim_idx": input_dim_idx,
                            "output_dim_idx": output_dim_idx, "force_cpu": force_cpu})
    return out


def argmax(x, axis: int = 0) -> Variable:
    """The int64 index of the largest value along axis."""
    return _out(LayerHelper("arg_max"), "arg_max", {"X": [x]}, {"axis": axis},
                dtype=VarType.INT64)


def argmin(x, axis: int = 0) -> Variable:
    """The int64 index of the smallest value along axis."""
    return _out(LayerHelper("arg_min"), "arg_min", {"X": [x]}, {"axis": axis},
                dtype=VarType.INT64)


def hard_swish(x, threshold: float = 6.0, scale: float = 6.0, offset: float = 3.0,
               name=None) -> Variable:
    """x * min(max(x + offset, 0), threshold) / scale."""
    return append_unary("hard_swish", x, name, threshold=float(threshold), scale=float(scale),
                        offset=float(offset))


def swish(x, beta: float = 1.0, name=None) -> Variable:
    """x * sigmoid(beta * x)."""
    return append_unary("swish", x, name, beta=float(beta))


def silu(x, name=None) -> Variable:
    """x * sigmoid(x)."""
    return append_unary("silu", x, name)


def clip(x, min: float, max: float, name=None) -> Variable:  # noqa: A002
    """x limited to [min, max]."""
    return _out(LayerHelper("clip", name=name), "clip", {"X": [x]},
                {"min": float(min), "max": float(max)})


def clip_by_norm(x, max_norm, name=None) -> Variable:
    """x scaled down to L2 norm max_norm when its norm is larger (paddle.nn.clip.clip_by_norm;
    float16 / float32 and a float max_norm, as Paddle checks)."""
    check_variable_and_dtype(x, "X", ("float16", "float32", "bfloat16"), "clip_by_norm")
    if not isinstance(max_norm, float):
        raise ArgumentTypeError(f"The type of 'max_norm' in clip_by_norm must be <class "
                                f"'float'>, but received {type(max_norm)}.")
    return _out(LayerHelper("clip_by_norm", name=name), "clip_by_norm", {"X": [x]},
                {"max_norm": max_norm})
