"""LayerHelper: what every layer does — name itself, make parameters and temporaries, append ops —
and the checks of a layer's arguments (check_type / check_dtype / check_variable_and_dtype, with
Paddle's exception types and messages naming argument, layer and what is accepted)."""
from __future__ import annotations

import warnings

from typing import Any

import numpy as np

from .. import unique_name
from ..dtypes import VarType, convert_dtype, dtype_name
from ..errors import FluidcError, ShapeError
from ..framework import (Parameter, Variable, building_program, building_startup_program,
                         default_main_program, default_startup_program, framework_mode)
from ..initializer import Constant, Xavier
from ..ops import get_op_def
from ..ops.define import computes_on_complex
from ..param_attr import ParamAttr

# The dtype groups layers accept (Paddle's check_dtype lists, spelled as fluidc's dtype names).
FLOAT_DTYPES = ("float16", "bfloat16", "float32", "float64")
INT_DTYPES = ("int8", "uint8", "int16", "int32", "int64")
COMPLEX_DTYPES = ("complex64", "complex128")
ALL_DTYPES = ("bool",) + INT_DTYPES + FLOAT_DTYPES + COMPLEX_DTYPES
# Complex data moves through ops of these kinds (and complex-safe pointwise ops).
_COMPLEX_KINDS = ("view", "extern", "feed", "fetch")
_COMPLEX_VAR_TYPES = frozenset(convert_dtype(n) for n in COMPLEX_DTYPES)


class ArgumentTypeError(FluidcError, TypeError):
    """A layer argument of a type or dtype the layer does not take (Paddle raises TypeError)."""


class ArgumentValueError(FluidcError, ValueError):
    """A layer argument of the right type whose value the layer refuses (Paddle's ValueError)."""


class ShapeAssertionError(ShapeError, AssertionError):
    """Axes or sizes no tensor can take, where Paddle's layer asserts (an AssertionError)."""


def _type_names(expected) -> str:
    types = expected if isinstance(expected, tuple) else (expected,)
    return " or ".join(t.__name__ for t in types)


def check_type(value, arg: str, expected, layer: str, hint: str = "") -> None:
    """Raise an ArgumentTypeError naming the argument, the layer and the expected types unless
    value is an instance of `expected` (a type or a tuple of types)."""
    if not isinstance(value, expected):
        raise ArgumentTypeError(f"The type of '{arg}' in {layer} must be {_type_names(expected)}, "
                                f"but received {type(value).__name__}. {hint}".rstrip())


def check_dtype(dtype, arg: str, dtypes: tuple[str, ...], layer: str, hint: str = "") -> None:
    """Raise an ArgumentTypeError naming the argument, the layer and the accepted dtypes unless
    `dtype` is one of `dtypes` (a name no dtype has is refused the same way)."""
    try:
        name = dtype_name(dtype)
    except FluidcError:
        name = repr(dtype)
    if name not in dtypes:
        raise ArgumentTypeError(f"The data type of '{arg}' in {layer} must be one of "
                                f"{list(dtypes)}, but received {name}. {hint}".rstrip())


def check_variable_and_dtype(x, arg: str, dtypes: tuple[str, ...], layer: str,
                             hint: str = "") -> None:
    """check_type(x, Variable) then check_dtype(x.dtype): Paddle's check on a layer's inputs."""
    check_type(x, arg, Variable, layer, hint)
    check_dtype(x.dtype, arg, dtypes, layer, hint)


def _vars(vs) -> list:
    return [v for v in (vs if isinstance(vs, (list, tuple)) else [vs]) if isinstance(v, Variable)]


def _check_complex(op_type: str, inputs: dict, outputs: dict, attrs: dict) -> None:
    """Complex vars reach ops that move data and pointwise ops computing on them as Paddle's
    complex kernels do (computes_on_complex); any other op on them is an error naming it."""
    if get_op_def(op_type).kind in _COMPLEX_KINDS:
        return
    bad = next(((slot, v) for args in (inputs, outputs) for slot, vs in args.items()
                for v in _vars(vs) if v.dtype in _COMPLEX_VAR_TYPES), None)
    if bad is None:
        return
    dtypes = {slot: [v.dtype for v in _vars(vs)] for slot, vs in inputs.items() if _vars(vs)}
    if computes_on_complex(op_type, dtypes, attrs):
        return
    slot, v = bad
    raise ArgumentTypeError(
        f"op '{op_type}': '{v.name}' ({slot}) is {dtype_name(v.dtype)}; fluidc computes on "
        f"complex data only in arithmetic (add, sub, mul, div, pow, exp, log, sqrt, tanh, "
        f"equal) and in ops that reshape, transpose, concatenate, slice or feed/fetch it")


class LayerHelper:
    """Names a layer (fc_0, ...) and creates its parameters, temporaries and ops."""

    def __init__(self, layer_type: str, name: str | None = None, **kwargs: Any) -> None:
        self.layer_type = layer_type
        self.name = name or unique_name.generate(layer_type)
        self.kwargs = kwargs

    @property
    def main_program(self):
        return building_program()

    @property
    def startup_program(self):
        return building_startup_program()

    @property
    def block(self):
        return self.main_program.current_block()

    def append_op(self, type: str, inputs: dict | None = None, outputs: dict | None = None,
                  attrs: dict | None = None, **kwargs: Any):
        """block.append_op, after checking that no complex var reaches an arithmetic op."""
        _check_complex(type, inputs or {}, outputs or {}, attrs or {})
        return self.block.append_op(type, inputs, outputs, attrs, **kwargs)

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
        programs = [(self.main_program, self.startup_program)]
        if getattr(self.main_program, "eager", False) and framework_mode() is None:
            # Not asked for dygraph: declared in the default programs too, so a layer made
            # before a static program starts also works in it (docs: "Dygraph").
            programs.append((default_main_program(), default_startup_program()))
        return [self._declare(main, startup, name, shape, dtype, attr, init)
                for main, startup in programs][0]

    @staticmethod
    def _declare(main, startup, name: str, shape, dtype, attr: ParamAttr, init) -> Parameter:
        """The parameter in main, initialized by startup (at once when both are the eager
        program)."""
        param = main.global_block().create_parameter(
            name, shape, dtype, trainable=attr.trainable, regularizer=attr.regularizer,
            optimize_attr={"learning_rate": attr.learning_rate})
        param.need_clip = attr.need_clip  # read by gradient clipping
        param.do_model_average = attr.do_model_average  # moving averages take it
        if main is startup:  # dygraph: initialized at once
            init(param, main.global_block())
            return param
        startup_block = startup.global_block()
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


REAL_DTYPES = INT_DTYPES + FLOAT_DTYPES


def append_unary(op_type: str, x, name=None, dtypes: tuple[str, ...] = FLOAT_DTYPES, **attrs):
    """op_type(x): one op X -> Out of x's dtype, x checked as Paddle's layers check it (a
    Variable of one of `dtypes`, else an ArgumentTypeError, a TypeError)."""
    check_variable_and_dtype(x, "x", dtypes, op_type)
    helper = LayerHelper(op_type, name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op(op_type, inputs={"X": [x]}, outputs={"Out": [out]}, attrs=attrs)
    return out


def static_inplace(fn, name: str):
    """paddle.<name>_ / Variable.<name>_: in a static program Paddle appends the plain op (a new
    output var, x untouched) and warns so; fluidc does the same. A dygraph Tensor x takes the
    result as its own value (Tensor._write) and is returned, as Paddle's inplace kernels write
    x itself."""
    def inplace(*args, **kwargs):
        out = fn(*args, **kwargs)
        write = getattr(args[0] if args else kwargs.get("x"), "_write", None)
        if write is not None:
            return write(out)
        warnings.warn(f"In static graph mode, {name}_() is the same as {name}() and does not "
                      f"perform inplace operation.", stacklevel=2)
        return out
    inplace.__name__, inplace.__doc__ = name + "_", static_inplace.__doc__.replace("<name>", name)
    return inplace
