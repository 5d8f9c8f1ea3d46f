"""paddle.jit.to_static and paddle.static.InputSpec (docs/architecture.md, "Dygraph": to_static).

A to_static function is traced once per input signature (tensor shapes, dtypes and
stop_gradient, the other arguments, the layer's train/eval modes): its body runs under a
program_guard, so every layer appends static ops to a fresh Program, and each eager tensor it
reads (parameters, buffers, closed-over tensors) becomes an input var of that program fed with
the tensor's value at each call. Later calls run the program (compiled and fused like any
program). With gradients wanted, the call is one node of the eager tape holding the program's
ops: the tape's backward is the static backward of those ops, fused with the rest of the tape.
"""
from __future__ import annotations

import functools
import inspect

import numpy as np

from ..frontend.dtypes import dtype_name, to_numpy_dtype
from ..frontend.framework import Variable, in_dygraph_mode
from .jit_program import (ConcreteProgram, InputSpec, TracedValueError, _leaves, run_capture,
                          trace)
from .tensor import Tensor, new_tensor

_enabled = [True]


def enable_to_static(enable: bool) -> None:
    """paddle.jit.enable_to_static: False runs to_static functions eagerly."""
    if not isinstance(enable, bool):
        raise TypeError(f"The type of 'enable_to_static' should be bool, but received "
                        f"{type(enable).__name__}")
    _enabled[0] = enable


def _static_key(obj):
    """A hashable key of the non-tensor parts of the arguments."""
    if isinstance(obj, (list, tuple)):
        return (type(obj).__name__,) + tuple(_static_key(v) for v in obj)
    if isinstance(obj, dict):
        return ("dict",) + tuple((k, _static_key(v)) for k, v in obj.items())
    if isinstance(obj, (Variable, InputSpec)):
        return "<tensor>"
    try:
        hash(obj)
        return obj
    except TypeError:
        return ("repr", repr(obj))


def _arg_names(function, n_skip: int, args, kwargs) -> list[str]:
    """A name per tensor leaf of the arguments: the parameter's name (x, or x_0, x_1 ... for
    nested tensors), as Paddle names a to_static program's inputs."""
    try:
        params = list(inspect.signature(function).parameters)[n_skip:]
    except (TypeError, ValueError):
        params = []
    names = []
    for i, a in enumerate(args):
        base = params[i] if i < len(params) else f"arg_{i}"
        leaves = _leaves(a)
        names += [base] if len(leaves) == 1 and leaves[0] is a else \
            [f"{base}_{j}" for j in range(len(leaves))]
    for k, a in kwargs.items():
        leaves = _leaves(a)
        names += [k] if len(leaves) == 1 and leaves[0] is a else \
            [f"{k}_{j}" for j in range(len(leaves))]
    return names


class StaticFunction:
    """A to_static function or method: traced per signature, then run as a program."""

    def __init__(self, function, input_spec=None, instance=None) -> None:
        if isinstance(function, StaticFunction):
            function = function.dygraph_function
        if input_spec is not None and not isinstance(input_spec, (list, tuple)):
            raise TypeError(f"The type of 'input_spec' should be one of (list, tuple), but "
                            f"received {type(input_spec).__name__}")
        self.dygraph_function = function
        self._input_spec = None if input_spec is None else list(input_spec)
        # the tensor entries (InputSpecs, tensors) in order: input_spec may also hold the
        # values of non-tensor arguments, as Paddle's
        self._tensor_specs = _leaves(self._input_spec or [])
        self._instance = instance
        self.program_cache: dict = {}
        self._last = None
        functools.update_wrapper(self, function)

    @property
    def input_spec(self):
        return self._input_spec

    def __get__(self, instance, owner=None):
        if instance is None or self._instance is not None:
            return self
        bound = instance.__dict__.setdefault("_static_functions", {})
        if id(self) not in bound:
            bound[id(self)] = StaticFunction(self.dygraph_function, self._input_spec, instance)
        return bound[id(self)]

    def _modes(self) -> tuple:
        layer = self._instance
        if layer is None or not hasattr(layer, "sublayers"):
            return ()
        return tuple(lay.training for lay in [layer] + layer.sublayers())

    def _leaf_key(self, i: int, t) -> tuple:
        """What of tensor leaf i decides the trace (its input_spec's shape, checked against
        it, or its own)."""
        if isinstance(t, InputSpec):
            return t._key()
        spec = self._tensor_specs[i] if i < len(self._tensor_specs) else None
        if isinstance(spec, InputSpec) and isinstance(t, Tensor):
            _check_spec(spec, t, i)
            return spec.shape, int(spec.dtype), t.stop_gradient
        return tuple(t.shape), int(t.dtype), t.stop_gradient

    def _specs(self, leaves: list, names: list[str]) -> list[InputSpec]:
        """An InputSpec per tensor leaf: input_spec's (checked against the tensor) or the
        tensor's own shape."""
        given = self._tensor_specs
        specs = []
        for i, (t, name) in enumerate(zip(leaves, names)):
            spec = given[i] if i < len(given) else None
            if isinstance(spec, Variable):
                spec = InputSpec.from_tensor(spec)
            if isinstance(spec, InputSpec):
                if isinstance(t, Tensor):
                    _check_spec(spec, t, i)
                specs.append(InputSpec(spec.shape, spec.dtype, spec.name or name,
                                       t.stop_gradient if isinstance(t, Tensor)
                                       else spec.stop_gradient))
            elif isinstance(t, InputSpec):
                specs.append(InputSpec(t.shape, t.dtype, t.name or name, t.stop_gradient))
            else:
                specs.append(InputSpec(t.shape, t.dtype, name, t.stop_gradient))
        return specs

    def get_concrete_program(self, *args, **kwargs) -> ConcreteProgram:
        """The traced program for these arguments (tensors or InputSpecs), from the cache or
        traced now."""
        return self._concrete(args, kwargs, _leaves([list(args), dict(kwargs)]))

    def _concrete(self, args, kwargs, leaves: list) -> ConcreteProgram:
        key = (tuple(self._leaf_key(i, t) for i, t in enumerate(leaves)),
               _static_key(list(args)), _static_key(dict(kwargs)), self._modes())
        found = self.program_cache.get(key)
        if found is None or found.stale():
            n_skip = 1 if self._instance is not None else 0
            specs = self._specs(leaves, _arg_names(self.dygraph_function, n_skip, args, kwargs))
            found = self.program_cache[key] = trace(self.dygraph_function, self._instance,
                                                    args, kwargs, specs, run_capture)
        self._last = found
        return found

    @property
    def concrete_program(self) -> ConcreteProgram:
        """The program of the input_spec (or of the last call)."""
        if self._input_spec is not None:
            return self.get_concrete_program(*self._input_spec)
        if self._last is None:
            raise ValueError(f"No valid transformed program for {self.dygraph_function.__name__}:"
                             f" call it once or give to_static an input_spec")
        return self._last

    def __call__(self, *args, **kwargs):
        instance = [self._instance] if self._instance is not None else []
        if not _enabled[0] or not in_dygraph_mode():  # static mode: its body builds ops
            return self.dygraph_function(*instance, *args, **kwargs)
        args, kwargs = _numpy_to_tensors(args), _numpy_to_tensors(kwargs)
        tensors = _leaves([list(args), dict(kwargs)])
        for t in tensors:
            if not isinstance(t, Tensor):
                raise TypeError(f"a paddle.jit.to_static function takes eager tensors; got "
                                f"{type(t).__name__} '{getattr(t, 'name', t)}'")
        concrete = self._concrete(args, kwargs, tensors)
        return concrete.run([t.value() for t in tensors], tensors)


def _numpy_to_tensors(obj):
    """numpy arrays in the arguments as tensors, as Paddle's to_static takes them."""
    if isinstance(obj, np.ndarray):
        return new_tensor(obj)
    if isinstance(obj, (list, tuple)):
        return type(obj)(_numpy_to_tensors(v) for v in obj)
    if isinstance(obj, dict):
        return {k: _numpy_to_tensors(v) for k, v in obj.items()}
    return obj


def check_compatible(own: list, given: list) -> None:
    """jit.save's input_spec against a to_static function's own (Paddle's rule): over their
    common length, tensor specs of the same rank and dtype whose dims agree where both are
    known, and equal non-tensor values."""
    for i, (a, b) in enumerate(zip(own, given)):
        specs = [s if not isinstance(s, Variable) else InputSpec.from_tensor(s) for s in (a, b)]
        if all(isinstance(s, InputSpec) for s in specs):
            a, b = specs
            ok = (len(a.shape) == len(b.shape) and a.dtype == b.dtype and
                  all(-1 in (d, e) or d == e for d, e in zip(a.shape, b.shape)))
        else:
            ok = not any(isinstance(s, InputSpec) for s in specs) and a == b
        if not ok:
            raise ValueError(f"The {i}-th element of the input_spec given to jit.save ({b!r}) "
                             f"is not compatible with the to_static function's input_spec "
                             f"({a!r})")


def _check_spec(spec: InputSpec, t: Tensor, i: int) -> None:
    shape = list(t.shape)
    if len(spec.shape) != len(shape) or any(d not in (-1, s) for d, s in zip(spec.shape, shape)):
        raise ValueError(f"input {i} of the to_static function has shape {shape}, which its "
                         f"InputSpec {list(spec.shape)} does not allow")
    if to_numpy_dtype(spec.dtype) != t.value().dtype:
        raise ValueError(f"input {i} of the to_static function is "
                         f"{dtype_name(t.dtype)}, its InputSpec says {dtype_name(spec.dtype)}")


def to_static(function=None, input_spec=None, build_strategy=None, backend=None, **kwargs):
    """paddle.jit.to_static: a function, a method (as a decorator) or a Layer (its forward)
    traced into programs; called with only options, a decorator."""
    if function is None:
        return lambda f: to_static(f, input_spec, build_strategy, backend, **kwargs)
    from ..frontend.layers.api2.layer import Layer
    if isinstance(function, Layer):
        forward = type(function).forward
        static = StaticFunction(forward, input_spec, function)
        object.__setattr__(function, "forward", static)
        return function
    if not callable(function):
        raise TypeError(f"paddle.jit.to_static takes a function or a Layer, got "
                        f"{type(function).__name__}")
    if inspect.ismethod(function):
        return StaticFunction(function.__func__, input_spec, function.__self__)
    return StaticFunction(function, input_spec)


def not_to_static(function=None):
    """paddle.jit.not_to_static: fluidc traces through any Python function, so a marker."""
    return function


__all__ = ["InputSpec", "StaticFunction", "TracedValueError", "enable_to_static",
           "not_to_static", "to_static"]
