"""paddle.nn layer classes for static programs: a layer creates its parameters in the default
programs when constructed (named as Paddle names them: linear_0.w_0, ...) and appends its ops
each time it is called."""
from __future__ import annotations

import math
import re
from collections import OrderedDict

from ... import unique_name
from ...dtypes import default_float
from ...errors import FluidcError
from ...framework import Variable
from ...initializer import Constant, Normal
from ...param_attr import ParamAttr
from ..helper import ArgumentValueError, LayerHelper
from . import flatten as _flatten
from . import functional as F


def _snake(name: str) -> str:
    """Paddle's layer-name rule: Linear -> linear, BatchNorm2D -> batch_norm2d."""
    s = re.sub("(.)([A-Z][a-z]+)", r"\1_\2", name)
    return re.sub("([a-z])([A-Z])", r"\1_\2", s).lower()


class Layer:
    """The base of the layer classes: parameters, sub-layers, train/eval and __call__."""

    def __init__(self, name_scope: str | None = None, dtype="float32") -> None:
        object.__setattr__(self, "_parameters", OrderedDict())
        object.__setattr__(self, "_sub_layers", OrderedDict())
        object.__setattr__(self, "_buffers", OrderedDict())
        object.__setattr__(self, "_non_persistable", set())
        self.training = True
        self._dtype = dtype
        self._full_name = unique_name.generate(name_scope or _snake(type(self).__name__))

    def full_name(self) -> str:
        """The layer's unique name, the prefix of its parameters' names."""
        return self._full_name

    def create_parameter(self, shape, attr=None, dtype=None, is_bias=False,
                         default_initializer=None):
        """A parameter named <full_name>.w_N (b_N for biases), or None when attr is False;
        dtype None is the default dtype (paddle.get_default_dtype), as in Paddle."""
        helper = LayerHelper(type(self).__name__, name=self._full_name)
        return helper.create_parameter(ParamAttr.to_attr(attr), [int(d) for d in shape],
                                       default_float(dtype or None), is_bias,
                                       default_initializer)

    def add_parameter(self, name, parameter):
        """Registers parameter (a Parameter or None) under name and returns it."""
        from ...framework import Parameter
        if not isinstance(name, str):
            raise TypeError(f"The name of parameter should be a string, but received "
                            f"{type(name).__name__}")
        if not name or "." in name:
            raise KeyError(f"The name of parameter can not be empty or contain \".\", "
                           f"but received {name!r}")
        if hasattr(self, name) and name not in self._parameters:
            raise KeyError(f"The parameter '{name}' already exists.")
        if parameter is not None and not isinstance(parameter, Parameter):
            raise TypeError(f"The parameter to be added should be a Parameter, but received "
                            f"{type(parameter).__name__}")
        self._parameters[name] = parameter
        object.__setattr__(self, name, parameter)
        return parameter

    def __setattr__(self, name, value):
        from ...framework import Parameter
        if isinstance(value, Parameter):
            self._parameters[name] = value
        elif isinstance(value, Layer):
            self._sub_layers[name] = value
        object.__setattr__(self, name, value)

    def parameters(self, include_sublayers: bool = True) -> list:
        """This layer's parameters, then its sub-layers' (each once, also one registered
        under two names)."""
        out = []
        mine = list(self._parameters.values())
        subs = [p for layer in self._sub_layers.values() for p in layer.parameters()] \
            if include_sublayers else []
        for p in mine + subs:
            if p is not None and all(p is not q for q in out):
                out.append(p)
        return out

    def sublayers(self) -> list:
        """The direct and nested sub-layers."""
        out = []
        for layer in self._sub_layers.values():
            out += [layer] + layer.sublayers()
        return out

    def named_sublayers(self, prefix: str = "", include_self: bool = False):
        """(structured name, layer) of every nested sub-layer, each once, depth first."""
        seen = set()
        stack = [(prefix, self)]
        while stack:
            name, layer = stack.pop(0)
            if id(layer) in seen:
                continue
            seen.add(id(layer))
            if layer is not self or include_self:
                yield name, layer
            subs = [(f"{name}.{k}" if name else k, v) for k, v in layer._sub_layers.items()
                    if v is not None]
            stack = subs + stack

    def children(self):
        return iter(v for v in self._sub_layers.values() if v is not None)

    def named_children(self):
        return iter((k, v) for k, v in self._sub_layers.items() if v is not None)

    def add_sublayer(self, name: str, sublayer):
        """Registers sublayer under name (setattr) and returns it."""
        if not isinstance(sublayer, Layer) and sublayer is not None:
            raise TypeError(f"The sublayer to be added should be a Layer, but received "
                            f"{type(sublayer).__name__}")
        self._sub_layers[name] = sublayer
        object.__setattr__(self, name, sublayer)
        return sublayer

    def named_parameters(self, prefix: str = "", include_sublayers: bool = True):
        """(structured name, parameter) pairs: 'weight', '0.bias', ... each parameter once."""
        seen = set()
        layers = self.named_sublayers(prefix, include_self=True) if include_sublayers \
            else [(prefix, self)]
        for lname, layer in layers:
            for k, p in layer._parameters.items():
                if p is not None and id(p) not in seen:
                    seen.add(id(p))
                    yield (f"{lname}.{k}" if lname else k), p

    def register_buffer(self, name: str, tensor, persistable: bool = True) -> None:
        """A non-parameter state tensor (in state_dict when persistable)."""
        if not isinstance(name, str) or not name or "." in name:
            raise KeyError(f"The name of buffer can not be empty or contain \".\", but "
                           f"received {name!r}")
        if tensor is not None and not isinstance(tensor, Variable):
            raise TypeError(f"The registered buffer should be a Paddle.Tensor, but received "
                            f"{type(tensor).__name__}.")
        self._buffers[name] = tensor
        if persistable:
            self._non_persistable.discard(name)
        else:
            self._non_persistable.add(name)
        object.__setattr__(self, name, tensor)

    def named_buffers(self, prefix: str = "", include_sublayers: bool = True):
        layers = self.named_sublayers(prefix, include_self=True) if include_sublayers \
            else [(prefix, self)]
        for lname, layer in layers:
            for k, b in layer._buffers.items():
                if b is not None:
                    yield (f"{lname}.{k}" if lname else k), b

    def buffers(self, include_sublayers: bool = True) -> list:
        return [b for _, b in self.named_buffers(include_sublayers=include_sublayers)]

    def state_dict(self, destination=None, include_sublayers: bool = True,
                   structured_name_prefix: str = "", use_hook: bool = True):
        """Structured name -> parameter or persistable buffer, as Paddle's Layer.state_dict."""
        out = OrderedDict() if destination is None else destination
        layers = self.named_sublayers(include_self=True) if include_sublayers \
            else [("", self)]
        for lname, layer in layers:
            items = [(k, p) for k, p in layer._parameters.items() if p is not None]
            items += [(k, b) for k, b in layer._buffers.items()
                      if b is not None and k not in layer._non_persistable]
            for k, v in items:
                out[structured_name_prefix + (f"{lname}.{k}" if lname else k)] = v
        return out

    to_static_state_dict = state_dict

    def set_state_dict(self, state_dict, use_structured_name: bool = True):
        """Load values by structured name (or by parameter name); returns (missing keys,
        unexpected keys), warning about both as Paddle does."""
        import warnings
        own = self.state_dict()
        if not use_structured_name:
            own = OrderedDict((v.name, v) for v in own.values())
        missing = [k for k in own if k not in state_dict]
        unexpected = [k for k in state_dict if k not in own]
        for k in missing:
            warnings.warn(f"{k} is not found in the provided dict.")
        for k in unexpected:
            warnings.warn(f"{k} is unexpected in the provided dict.")
        for k, var in own.items():
            if k in state_dict:
                value = state_dict[k]
                array = value.numpy() if hasattr(value, "numpy") else value
                var.set_value(array)
        return missing, unexpected

    set_dict = load_dict = set_state_dict

    def clear_gradients(self, set_to_zero: bool = True) -> None:
        for p in self.parameters():
            if getattr(p, "trainable", True) and hasattr(p, "clear_grad"):
                p.clear_grad(set_to_zero)

    def train(self) -> None:
        """Training mode (dropout drops, batch_norm uses batch statistics)."""
        for layer in [self] + self.sublayers():
            object.__setattr__(layer, "training", True)

    def eval(self) -> None:
        """Inference mode."""
        for layer in [self] + self.sublayers():
            object.__setattr__(layer, "training", False)

    def forward(self, *inputs, **kwargs):
        raise FluidcError(f"{type(self).__name__} defines no forward")

    def __call__(self, *inputs, **kwargs):
        return self.forward(*inputs, **kwargs)


class Sequential(Layer):
    """Layers applied in order."""

    def __init__(self, *layers) -> None:
        super().__init__()
        items = layers[0].items() if len(layers) == 1 and isinstance(layers[0], dict) else \
            [(str(i), layer) for i, layer in enumerate(layers)]
        for name, layer in items:
            setattr(self, name, layer)

    def __getitem__(self, i):
        return list(self._sub_layers.values())[i]

    def __len__(self) -> int:
        return len(self._sub_layers)

    def forward(self, x):
        for layer in self._sub_layers.values():
            x = layer(x)
        return x


class LayerList(Layer):
    """A list of sub-layers registered under '0', '1', ... (parameters found through it)."""

    def __init__(self, sublayers=None) -> None:
        super().__init__()
        for i, layer in enumerate(sublayers or ()):
            self.add_sublayer(str(i), layer)

    def _items(self) -> list:
        return list(self._sub_layers.values())

    def __getitem__(self, i):
        if isinstance(i, slice):
            return LayerList(self._items()[i])
        return self._items()[i]

    def __setitem__(self, i, layer) -> None:
        key = list(self._sub_layers)[i]
        self.add_sublayer(key, layer)

    def __len__(self) -> int:
        return len(self._sub_layers)

    def __iter__(self):
        return iter(self._items())

    def append(self, sublayer):
        self.add_sublayer(str(len(self)), sublayer)
        return self

    def extend(self, sublayers):
        for layer in sublayers:
            self.append(layer)
        return self

    def insert(self, index: int, sublayer) -> None:
        items = self._items()
        items.insert(index, sublayer)
        self._sub_layers.clear()
        for i, layer in enumerate(items):
            self.add_sublayer(str(i), layer)


class ParameterList(Layer):
    """A list of parameters registered under '0', '1', ..."""

    def __init__(self, parameters=None) -> None:
        super().__init__()
        for p in parameters or ():
            self.append(p)

    def __getitem__(self, i):
        return list(self._parameters.values())[i]

    def __len__(self) -> int:
        return len(self._parameters)

    def __iter__(self):
        return iter(self._parameters.values())

    def append(self, parameter):
        self.add_parameter(str(len(self)), parameter)
        return self


def _activation(name: str, fn, doc: str, **defaults):
    """A parameterless layer applying fn(x, **its constructor arguments)."""
    def __init__(self, *args, name=None, **kwargs):
        Layer.__init__(self)
        self._kwargs = {**defaults, **dict(zip(defaults, args)), **kwargs}

    def forward(self, x):
        return fn(x, **self._kwargs)
    return type(name, (Layer,), {"__init__": __init__, "forward": forward, "__doc__": doc})


ReLU = _activation("ReLU", F.relu, "max(x, 0).")
ReLU6 = _activation("ReLU6", F.relu6, "min(max(x, 0), 6).")
Sigmoid = _activation("Sigmoid", F.sigmoid, "1 / (1 + exp(-x)).")
Tanh = _activation("Tanh", F.tanh, "tanh(x).")
GELU = _activation("GELU", F.gelu, "Gaussian error linear unit.", approximate=False)
LeakyReLU = _activation("LeakyReLU", F.leaky_relu, "x or negative_slope * x.",
                        negative_slope=0.01)
Softmax = _activation("Softmax", F.softmax, "softmax along axis.", axis=-1)
LogSoftmax = _activation("LogSoftmax", F.log_softmax, "log(softmax) along axis.", axis=-1)
ELU = _activation("ELU", F.elu, "x or alpha * (exp(x) - 1).", alpha=1.0)
Softplus = _activation("Softplus", F.softplus, "log(1 + exp(beta x)) / beta.", beta=1.0,
                       threshold=20.0)
Hardsigmoid = _activation("Hardsigmoid", F.hardsigmoid, "max(0, min(1, x / 6 + 0.5)).")
Hardswish = _activation("Hardswish", F.hardswish, "x * relu6(x + 3) / 6.")
Silu = _activation("Silu", F.silu, "x * sigmoid(x).")
Swish = _activation("Swish", F.swish, "x * sigmoid(x).")
LogSigmoid = _activation("LogSigmoid", F.log_sigmoid, "log(sigmoid(x)).")
Softsign = _activation("Softsign", F.softsign, "x / (1 + |x|).")
SELU = _activation("SELU", F.selu, "scale * (x or alpha * (exp(x) - 1)).",
                   scale=1.0507009873554804934193349852946,
                   alpha=1.6732632423543772848170429916717)


class Linear(Layer):
    """x @ weight [in_features, out_features] + bias."""

    def __init__(self, in_features: int, out_features: int, weight_attr=None, bias_attr=None,
                 name=None) -> None:
        super().__init__()
        self.weight = self.create_parameter([in_features, out_features], weight_attr)
        self.bias = self.create_parameter([out_features], bias_attr, is_bias=True)

    def forward(self, x):
        return F.linear(x, self.weight, self.bias)


class _ConvBase(Layer):
    """Convolution over _N dims with an [out, in / groups, *kernel] weight (He-normal) and an
    [out] bias."""

    _N = 0

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 dilation=1, groups=1, padding_mode="zeros", weight_attr=None, bias_attr=None,
                 data_format=None) -> None:
        super().__init__()
        name = type(self).__name__
        if padding_mode != "zeros":
            raise FluidcError(f"{name}: padding_mode {padding_mode!r} is not supported")
        if in_channels % groups:
            raise FluidcError(f"{name}: {in_channels} channels do not split into {groups} groups")
        k = F._ints(kernel_size, self._N, "kernel_size", name)
        std = math.sqrt(2.0 / (math.prod(k) * in_channels / groups))
        self.weight = self.create_parameter([out_channels, in_channels // groups] + k,
                                            weight_attr, default_initializer=Normal(0.0, std))
        self.bias = self.create_parameter([out_channels], bias_attr, is_bias=True)
        self._conv = dict(stride=stride, padding=padding, dilation=dilation, groups=groups,
                          data_format=data_format or F._CHANNEL_FIRST[self._N])

    def forward(self, x):
        fn = F.conv2d if self._N == 2 else F.conv3d
        return fn(x, self.weight, self.bias, **self._conv)


class Conv2D(_ConvBase):
    """2-D convolution with a [out, in / groups, kh, kw] weight and an [out] bias."""

    _N = 2


class Conv3D(_ConvBase):
    """3-D convolution with an [out, in / groups, kd, kh, kw] weight and an [out] bias."""

    _N = 3


class _ConvTransposeBase(Layer):
    """Transposed convolution with an [in, out / groups, *kernel] weight and an [out] bias."""

    _N = 0

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 output_padding=0, groups=1, dilation=1, weight_attr=None, bias_attr=None,
                 data_format=None) -> None:
        super().__init__()
        name = type(self).__name__
        if in_channels % groups or out_channels % groups:
            raise FluidcError(f"{name}: {in_channels} / {out_channels} channels do not split "
                              f"into {groups} groups")
        k = F._ints(kernel_size, self._N, "kernel_size", name)
        self.weight = self.create_parameter([in_channels, out_channels // groups] + k,
                                            weight_attr)
        self.bias = self.create_parameter([out_channels], bias_attr, is_bias=True)
        self._conv = dict(stride=stride, padding=padding, output_padding=output_padding,
                          groups=groups, dilation=dilation,
                          data_format=data_format or F._CHANNEL_FIRST[self._N])

    def forward(self, x, output_size=None):
        fn = F.conv2d_transpose if self._N == 2 else F.conv3d_transpose
        return fn(x, self.weight, self.bias, output_size=output_size, **self._conv)


class Conv2DTranspose(_ConvTransposeBase):
    _N = 2


class Conv3DTranspose(_ConvTransposeBase):
    _N = 3


class Bilinear(Layer):
    """out[n, k] = x1[n] @ weight[k] @ x2[n] + bias[k], weight [out, in1, in2]."""

    def __init__(self, in1_features, in2_features, out_features, weight_attr=None,
                 bias_attr=None, name=None) -> None:
        super().__init__()
        self.weight = self.create_parameter([out_features, in1_features, in2_features],
                                            weight_attr)
        self.bias = self.create_parameter([1, out_features], bias_attr, is_bias=True)

    def forward(self, x1, x2):
        return F.bilinear(x1, x2, self.weight, self.bias)


class MaxPool2D(Layer):
    """Max pooling over kernel_size windows."""

    def __init__(self, kernel_size, stride=None, padding=0, return_mask=False, ceil_mode=False,
                 data_format="NCHW", name=None) -> None:
        super().__init__()
        self._args = dict(kernel_size=kernel_size, stride=stride, padding=padding,
                          return_mask=return_mask, ceil_mode=ceil_mode, data_format=data_format)

    def forward(self, x):
        return F.max_pool2d(x, **self._args)


class AvgPool2D(Layer):
    """Average pooling over kernel_size windows."""

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, exclusive=True,
                 divisor_override=None, data_format="NCHW", name=None) -> None:
        super().__init__()
        self._args = dict(kernel_size=kernel_size, stride=stride, padding=padding,
                          ceil_mode=ceil_mode, exclusive=exclusive,
                          divisor_override=divisor_override, data_format=data_format)

    def forward(self, x):
        return F.avg_pool2d(x, **self._args)


class _BatchNormBase(Layer):
    def __init__(self, num_features, momentum=0.9, epsilon=1e-05, weight_attr=None,
                 bias_attr=None, data_format="NCHW", use_global_stats=None, name=None) -> None:
        super().__init__()
        self.weight = self.create_parameter([num_features], weight_attr,
                                            default_initializer=Constant(1.0))
        self.bias = self.create_parameter([num_features], bias_attr, is_bias=True)
        stat = ParamAttr(initializer=Constant(0.0), trainable=False)
        self._mean = self.create_parameter([num_features], stat)
        self._variance = self.create_parameter(
            [num_features], ParamAttr(initializer=Constant(1.0), trainable=False))
        self._args = dict(momentum=momentum, epsilon=epsilon, data_format=data_format,
                          use_global_stats=use_global_stats)

    # BatchNorm1D / 2D / 3D take these data formats and input ranks (Paddle's ValueErrors)
    _formats: tuple[str, ...] = ()
    _ranks: tuple[int, ...] = ()

    def forward(self, x):
        fmt, name = self._args["data_format"], type(self).__name__
        if self._formats and fmt not in self._formats:
            raise ArgumentValueError(f"{name}: data_format must be one of "
                                     f"{list(self._formats)}, got {fmt!r}")
        if self._ranks and hasattr(x, "shape") and len(x.shape) not in self._ranks:
            ranks = " or ".join(map(str, self._ranks))
            raise ArgumentValueError(f"{name}: expected an input of {ranks} dims, got shape "
                                     f"{list(x.shape)}")
        return F.batch_norm(x, self._mean, self._variance, self.weight, self.bias,
                            training=self.training, **self._args)


class BatchNorm2D(_BatchNormBase):
    """Batch normalization of [N, C, H, W] maps per channel."""
    _formats, _ranks = ("NCHW", "NHWC"), (4,)


class BatchNorm1D(_BatchNormBase):
    """Batch normalization of [N, C] or [N, C, L] inputs per channel."""
    _formats, _ranks = ("NC", "NCL", "NLC"), (2, 3)

    def __init__(self, num_features, momentum=0.9, epsilon=1e-05, weight_attr=None,
                 bias_attr=None, data_format="NCL", use_global_stats=None, name=None) -> None:
        super().__init__(num_features, momentum, epsilon, weight_attr, bias_attr, data_format,
                         use_global_stats, name)


class BatchNorm3D(_BatchNormBase):
    """Batch normalization of [N, C, D, H, W] volumes per channel."""
    _formats, _ranks = ("NCDHW", "NDHWC"), (5,)

    def __init__(self, num_features, momentum=0.9, epsilon=1e-05, weight_attr=None,
                 bias_attr=None, data_format="NCDHW", use_global_stats=None, name=None) -> None:
        super().__init__(num_features, momentum, epsilon, weight_attr, bias_attr, data_format,
                         use_global_stats, name)


class BatchNorm(_BatchNormBase):
    """The 1.x-style BatchNorm layer: num_channels, an optional act, is_test."""

    def __init__(self, num_channels, act=None, is_test=False, momentum=0.9, epsilon=1e-05,
                 param_attr=None, bias_attr=None, dtype="float32", data_layout="NCHW",
                 in_place=False, moving_mean_name=None, moving_variance_name=None,
                 do_model_average_for_mean_and_var=True, use_global_stats=False,
                 trainable_statistics=False) -> None:
        super().__init__(num_channels, momentum, epsilon, param_attr, bias_attr, data_layout,
                         use_global_stats)
        self._act, self._is_test = act, is_test
        self._trainable_statistics = trainable_statistics

    def forward(self, x):
        out = F.batch_norm(x, self._mean, self._variance, self.weight, self.bias,
                           training=self.training and not self._is_test, **self._args,
                           trainable_statistics=self._trainable_statistics)
        return LayerHelper("batch_norm").append_activation(out, self._act)


class LayerNorm(Layer):
    """Normalization over the trailing normalized_shape dims, then weight and bias."""

    def __init__(self, normalized_shape, epsilon=1e-05, weight_attr=None, bias_attr=None,
                 name=None) -> None:
        super().__init__()
        shape = [normalized_shape] if isinstance(normalized_shape, int) else \
            list(normalized_shape)
        size = math.prod(shape)
        self._shape, self._epsilon = shape, epsilon
        self.weight = self.create_parameter([size], weight_attr,
                                            default_initializer=Constant(1.0))
        self.bias = self.create_parameter([size], bias_attr, is_bias=True)

    def forward(self, x):
        return F.layer_norm(x, self._shape, self.weight, self.bias, self._epsilon)


class GroupNorm(Layer):
    """Normalization over groups of channels, then a per-channel weight and bias."""

    def __init__(self, num_groups, num_channels, epsilon=1e-05, weight_attr=None, bias_attr=None,
                 data_format="NCHW", name=None) -> None:
        super().__init__()
        self._args = dict(num_groups=num_groups, epsilon=epsilon, data_format=data_format)
        self.weight = None if weight_attr is False else self.create_parameter(
            [num_channels], weight_attr, default_initializer=Constant(1.0))
        self.bias = None if bias_attr is False else self.create_parameter(
            [num_channels], bias_attr, is_bias=True)

    def forward(self, x):
        return F.group_norm(x, weight=self.weight, bias=self.bias, **self._args)


class _InstanceNormBase(Layer):
    """Normalization of each channel of each example over its spatial dims (inputs of rank
    _RANK), then a per-channel weight and bias."""

    _RANK, _FORMAT = 0, ""

    def __init__(self, num_features, epsilon=1e-05, momentum=0.9, weight_attr=None,
                 bias_attr=None, data_format=None, name=None) -> None:
        super().__init__()
        self._epsilon, self._data_format = epsilon, data_format or self._FORMAT
        self.weight = None if weight_attr is False else self.create_parameter(
            [num_features], weight_attr, default_initializer=Constant(1.0))
        self.bias = None if bias_attr is False else self.create_parameter(
            [num_features], bias_attr, is_bias=True)

    def forward(self, x):
        if isinstance(x, Variable) and len(x.shape) != self._RANK:
            raise ArgumentValueError(f"{type(self).__name__}: expected a {self._RANK}-D input, "
                                     f"got shape {list(x.shape)}")
        return F.instance_norm(x, weight=self.weight, bias=self.bias, eps=self._epsilon,
                               data_format=self._data_format)


class InstanceNorm1D(_InstanceNormBase):
    _RANK, _FORMAT = 3, "NCL"


class InstanceNorm2D(_InstanceNormBase):
    _RANK, _FORMAT = 4, "NCHW"


class InstanceNorm3D(_InstanceNormBase):
    _RANK, _FORMAT = 5, "NCDHW"


class Embedding(Layer):
    """A [num_embeddings, embedding_dim] table looked up by ids of any shape."""

    def __init__(self, num_embeddings, embedding_dim, padding_idx=None, max_norm=None,
                 norm_type=2.0, sparse=False, weight_attr=None, scale_grad_by_freq=False,
                 name=None) -> None:
        super().__init__()
        self.weight = self.create_parameter([num_embeddings, embedding_dim], weight_attr)
        self._args = dict(padding_idx=padding_idx, max_norm=max_norm, sparse=sparse,
                          scale_grad_by_freq=scale_grad_by_freq)

    def forward(self, x):
        return F.embedding(x, self.weight, **self._args)


class Dropout(Layer):
    """Dropout while training (the layer's train()/eval() mode), identity or scaling after."""

    def __init__(self, p=0.5, axis=None, mode="upscale_in_train", name=None) -> None:
        super().__init__()
        self._args = dict(p=p, axis=axis, mode=mode)

    def forward(self, x):
        return F.dropout(x, training=self.training, **self._args)


class Flatten(Layer):
    """Dims start_axis..stop_axis merged into one."""

    def __init__(self, start_axis=1, stop_axis=-1) -> None:
        super().__init__()
        self._axes = (start_axis, stop_axis)

    def forward(self, x):
        return _flatten(x, *self._axes)


class Unfold(Layer):
    """F.unfold as a layer (im2col of sliding windows)."""

    def __init__(self, kernel_sizes, dilations=1, paddings=0, strides=1, name=None) -> None:
        super().__init__()
        self._args = dict(kernel_sizes=kernel_sizes, dilations=dilations, paddings=paddings,
                          strides=strides)
        self._name = name

    def forward(self, x):
        return F.unfold(x, name=self._name, **self._args)


class _PadNd(Layer):
    """F.pad of the spatial dims by `padding`: a list (or int Variable) of two values per
    spatial dim, or one int for all of them."""
    spatial = 0

    def __init__(self, padding, mode="constant", value=0.0, data_format=None,
                 name=None) -> None:
        super().__init__()
        self._pad = [padding] * 2 * self.spatial if isinstance(padding, int) else \
            padding if isinstance(padding, Variable) else list(padding)
        self._args = dict(mode=mode, value=value, data_format=data_format, name=name)

    def forward(self, x):
        return F.pad(x, self._pad, **self._args)


class Pad1D(_PadNd):
    """F.pad of a 3-D input by [left, right] (NCL / NLC)."""
    spatial = 1

    def __init__(self, padding, mode="constant", value=0.0, data_format="NCL", name=None):
        super().__init__(padding, mode, value, data_format, name)


class Pad2D(_PadNd):
    """F.pad of a 4-D input by [left, right, top, bottom] (NCHW / NHWC)."""
    spatial = 2

    def __init__(self, padding, mode="constant", value=0.0, data_format="NCHW", name=None):
        super().__init__(padding, mode, value, data_format, name)


class Pad3D(_PadNd):
    """F.pad of a 5-D input by [left, right, top, bottom, front, back] (NCDHW / NDHWC)."""
    spatial = 3

    def __init__(self, padding, mode="constant", value=0.0, data_format="NCDHW", name=None):
        super().__init__(padding, mode, value, data_format, name)


class CrossEntropyLoss(Layer):
    """F.cross_entropy with the constructor's settings."""

    def __init__(self, weight=None, ignore_index=-100, reduction="mean", soft_label=False,
                 axis=-1, use_softmax=True, label_smoothing=0.0, name=None) -> None:
        super().__init__()
        self._args = dict(weight=weight, ignore_index=ignore_index, reduction=reduction,
                          soft_label=soft_label, axis=axis, use_softmax=use_softmax,
                          label_smoothing=label_smoothing)

    def forward(self, input, label=None, *, target=None):
        return F.cross_entropy(input, label, **self._args, target=target)


class MSELoss(Layer):
    """Mean (or summed) squared error."""

    def __init__(self, reduction="mean") -> None:
        super().__init__()
        self._reduction = reduction

    def forward(self, input, label):
        return F.mse_loss(input, label, self._reduction)


class L1Loss(Layer):
    """Mean (or summed) absolute error."""

    def __init__(self, reduction="mean", name=None) -> None:
        super().__init__()
        self._reduction = reduction

    def forward(self, input, label):
        return F.l1_loss(input, label, self._reduction)


class PixelShuffle(Layer):
    """F.pixel_shuffle with the constructor's factor and data format."""

    def __init__(self, upscale_factor, data_format="NCHW", name=None) -> None:
        super().__init__()
        F._check_upscale_factor(upscale_factor)
        F._check_pixel_shuffle_format(data_format)
        self._upscale_factor, self._data_format = upscale_factor, data_format

    def forward(self, x):
        return F.pixel_shuffle(x, self._upscale_factor, self._data_format)


class BCELoss(Layer):
    """F.binary_cross_entropy of probabilities, with an optional weight."""

    def __init__(self, weight=None, reduction="mean", name=None) -> None:
        super().__init__()
        F._check_reduction(reduction, "bce_loss")
        self._weight, self._reduction = weight, reduction

    def forward(self, input, label):
        return F.binary_cross_entropy(input, label, self._weight, self._reduction)


class BCEWithLogitsLoss(Layer):
    """F.binary_cross_entropy_with_logits, with optional weight and pos_weight."""

    def __init__(self, weight=None, reduction="mean", pos_weight=None, name=None) -> None:
        super().__init__()
        F._check_reduction(reduction, "BCEWithLogitsLoss")
        self._weight, self._reduction, self._pos_weight = weight, reduction, pos_weight

    def forward(self, logit, label):
        return F.binary_cross_entropy_with_logits(logit, label, self._weight, self._reduction,
                                                  self._pos_weight)


class NLLLoss(Layer):
    """F.nll_loss of log-probabilities, with optional class weights and an ignored label."""

    def __init__(self, weight=None, ignore_index=-100, reduction="mean", name=None) -> None:
        super().__init__()
        F._check_reduction(reduction, "nll_loss")
        self._args = dict(weight=weight, ignore_index=ignore_index, reduction=reduction,
                          name=name)

    def forward(self, input, label):
        return F.nll_loss(input, label, **self._args)


class KLDivLoss(Layer):
    """F.kl_div of log-probabilities from a target distribution."""

    def __init__(self, reduction="mean", log_target=False) -> None:
        super().__init__()
        self._reduction, self._log_target = reduction, log_target

    def forward(self, input, label):
        return F.kl_div(input, label, self._reduction, self._log_target)


__all__ = ["Layer", "Sequential", "LayerList", "ParameterList", "ReLU", "ReLU6", "Sigmoid",
           "Tanh", "GELU", "LeakyReLU",
           "Softmax", "LogSoftmax", "ELU", "Softplus", "Hardsigmoid", "Hardswish", "Silu",
           "Swish", "LogSigmoid", "Softsign", "SELU", "Linear", "Conv2D", "MaxPool2D",
           "AvgPool2D", "BatchNorm", "BatchNorm1D", "BatchNorm2D", "BatchNorm3D", "LayerNorm",
           "Embedding", "Dropout", "Flatten", "CrossEntropyLoss", "MSELoss", "L1Loss", "BCELoss",
           "BCEWithLogitsLoss", "NLLLoss", "KLDivLoss", "PixelShuffle"]
