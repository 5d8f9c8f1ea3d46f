"""LayerHelper: what every layer does — name itself, make parameters and temporaries, append ops."""
from __future__ import annotations

from typing import Any

import numpy as np

from .. import unique_name
from ..dtypes import VarType, convert_dtype
from ..errors import FluidcError
from ..framework import Parameter, Variable, default_main_program, default_startup_program
from ..initializer import Constant, Xavier
from ..param_attr import ParamAttr


class LayerHelper:
    """Names a layer (fc_0, ...) and creates its parameters, temporaries and ops."""

    def __init__(self, layer_type: str, name: str | None = None, **kwargs: Any) -> None:
        self.layer_type = layer_type
        self.name = name or unique_name.generate(layer_type)
        self.kwargs = kwargs

    @property
    def main_program(self):
        return default_main_program()

    @property
    def startup_program(self):
        return default_startup_program()

    @property
    def block(self):
        return self.main_program.current_block()

    def append_op(self, *args: Any, **kwargs: Any):
        return self.block.append_op(*args, **kwargs)

    def create_variable_for_type_inference(self, dtype=VarType.FP32,
                                           stop_gradient: bool = False) -> Variable:
        """A temporary named <layer>.tmp_N whose shape the appended op infers."""
        return self.block.create_var(
            name=unique_name.generate_with_ignorable_key(f"{self.name}.tmp"),
            dtype=dtype, shape=(), stop_gradient=stop_gradient)

    def create_variable(self, **kwargs: Any) -> Variable:
        return self.block.create_var(**kwargs)

    def create_parameter(self, attr: ParamAttr | bool, shape, dtype=VarType.FP32,
                         is_bias: bool = False, default_initializer=None) -> Parameter | None:
        """A parameter in the main program and its initializer in the startup program."""
        if attr is False:
            return None
        attr = ParamAttr.to_attr(attr)
        if any(not isinstance(d, (int, np.integer)) or isinstance(d, bool) for d in shape):
            raise TypeError(f"layer '{self.name}': parameter shape {list(shape)} must be ints")
        if any(d <= 0 for d in shape):
            raise FluidcError(f"layer '{self.name}': parameter shape {list(shape)} must be known "
                              f"and positive (a size of 0 or an unknown input dim?)")
        suffix = "b" if is_bias else "w"
        name = attr.name or unique_name.generate(f"{self.name}.{suffix}")
        init = attr.initializer or default_initializer or (Constant(0.0) if is_bias else Xavier())
        dtype = convert_dtype(dtype)
        param = self.main_program.global_block().create_parameter(
            name, shape, dtype, trainable=attr.trainable, regularizer=attr.regularizer,
            optimize_attr={"learning_rate": attr.learning_rate}, initializer=init)
        param.need_clip = attr.need_clip  # read by gradient clipping
        startup_block = self.startup_program.global_block()
        if not startup_block.has_var(name):
            sv = startup_block.create_parameter(name, shape, dtype, trainable=attr.trainable)
            init(sv, startup_block)
        return param

    def append_bias_op(self, x: Variable, bias_attr, size: int, dim_start: int = 1) -> Variable:
        """x + bias (a [size] parameter) broadcast at dim_start, or x when bias_attr is False."""
        b = self.create_parameter(bias_attr, [size], x.dtype, is_bias=True)
        if b is None:
            return x
        out = self.create_variable_for_type_inference(x.dtype)
        self.append_op("elementwise_add", inputs={"X": [x], "Y": [b]}, outputs={"Out": [out]},
                       attrs={"axis": dim_start})
        return out

    def append_activation(self, x: Variable, act: str | None) -> Variable:
        """act(x) as an op, or x when act is None."""
        if act is None:
            return x
        out = self.create_variable_for_type_inference(x.dtype)
        self.append_op(act, inputs={"X": [x]}, outputs={"Out": [out]})
        return out
