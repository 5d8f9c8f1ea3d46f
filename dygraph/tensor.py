"""paddle.Tensor in dygraph mode: a Variable of the eager block that holds its value (a numpy
array, never written in place: every op makes new arrays, so a tape node's arrays stay what
the op read). Operators and methods (x + y, x.reshape, x[...]) are the Variable ones, which
append ops to the eager block; this class adds what only a value can answer."""
from __future__ import annotations

import functools

import numpy as np

from ..frontend import bfloat16, unique_name
from ..frontend.dtypes import convert_dtype, dtype_name, to_numpy_dtype
from ..frontend.errors import FluidcError
from ..frontend.framework import Parameter, Variable


_VAR_TYPES: dict = {}  # numpy dtype -> VarType, asked on every op


class Tensor(Variable):
    """An eager tensor: shape and dtype are its value's."""

    _value = None
    _node = None  # the tape node that made the value (None: a leaf)
    _grad = None
    _grad_of = None  # id of the tensor whose grad this is, when backward / clear_grad made it
    _retains_grad = False  # a non-leaf tensor whose backward fills .grad (retain_grads)
    _inplace_version = 0  # how many times x[index] = value wrote this tensor

    @property
    def inplace_version(self) -> int:
        """The count of in-place writes (x[index] = value, x.add_(y), ...) to this tensor, as
        Paddle's."""
        return self._inplace_version

    def _write(self, out: "Tensor") -> "Tensor":
        """Take `out`'s value (and the op that made it) as this tensor's own, as Paddle's
        in-place ops write x itself; refused, as Paddle refuses it, for a leaf that needs a
        gradient while gradients are recorded. Returns self."""
        from . import autograd
        if autograd.grad_enabled() and self.is_leaf and not self.stop_gradient:
            raise ValueError(f"(InvalidArgument) Leaf Tensor ({self.name}) that doesn't stop "
                             f"gradient can't use inplace strategy.")
        self._value = out._value
        self._inplace_version += 1
        if not self.persistable:  # a parameter stays a leaf (written under no_grad)
            self._node, self._stop_gradient = out._node, out.stop_gradient
        return self

    def __init__(self, block, name, shape=None, dtype=None, stop_gradient=True, **kwargs) -> None:
        super().__init__(block, name, shape=shape, dtype=dtype, stop_gradient=stop_gradient,
                         **kwargs)

    # -- what the value decides --------------------------------------------------------------
    @property
    def shape(self) -> list[int]:
        return list(self._value.shape) if self._value is not None else list(self._shape)

    @shape.setter
    def shape(self, value) -> None:
        self._shape = tuple(value)

    @property
    def dtype(self):
        if self._value is None:
            return self._dtype
        dt = self._value.dtype
        found = _VAR_TYPES.get(dt)
        return found if found is not None else _VAR_TYPES.setdefault(dt, convert_dtype(dt))

    @dtype.setter
    def dtype(self, value) -> None:
        self._dtype = value

    @property
    def ndim(self) -> int:
        return len(self.shape)

    dim = ndimension = lambda self: self.ndim  # noqa: E731 (Paddle's aliases)

    @property
    def size(self) -> int:
        return int(np.prod(self.shape))

    @property
    def place(self):
        from ..runtime.place import CPUPlace
        return CPUPlace()

    @property
    def is_leaf(self) -> bool:
        return self._node is None

    def value(self) -> np.ndarray:
        if self._value is None:
            raise FluidcError(f"tensor '{self.name}' holds no value")
        return self._value

    def numpy(self) -> np.ndarray:
        """A copy of the value as a numpy array."""
        return self.value().copy()

    def __array__(self, dtype=None, copy=None):
        a = self.value()
        return a.astype(dtype) if dtype is not None else a.copy()

    def item(self, *index):
        a = self.value()
        if not index and a.size != 1:
            raise ValueError(f"only one element tensor can be converted to Python scalar, "
                             f"but tensor '{self.name}' has {a.size} elements")
        return a.item(*index)

    def tolist(self):
        return self.value().tolist()

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of a 0-D tensor")
        return self.shape[0]

    def __float__(self) -> float:
        return float(self.item())

    def __int__(self) -> int:
        return int(self.item())

    def __index__(self) -> int:
        if dtype_name(self.dtype) not in ("int8", "uint8", "int16", "int32", "int64"):
            raise TypeError(f"only integer tensors can be used as an index, got "
                            f"{dtype_name(self.dtype)}")
        return int(self.item())

    def __setitem__(self, index, value) -> None:
        """x[index] = value (set_value: dygraph/indexing.py)."""
        from .indexing import setitem
        setitem(self, index, value)

    def __bool__(self) -> bool:
        return bool(self.item())

    def __hash__(self) -> int:
        return id(self)

    def __repr__(self) -> str:
        body = np.array2string(self.value(), separator=", ", prefix="       ") \
            if self._value is not None else "(no value)"
        return (f"Tensor(shape={self.shape}, dtype={self._dtype_str()}, place=Place(cpu), "
                f"stop_gradient={self.stop_gradient},\n       {body})")

    __str__ = __repr__

    def _dtype_str(self) -> str:
        return "paddle." + dtype_name(self.dtype)

    # -- autograd ------------------------------------------------------------------------------
    @property
    def grad(self):
        """The accumulated gradient (a Tensor), or None before any backward reached it."""
        return self._grad

    @grad.setter
    def grad(self, value) -> None:
        self._grad = None if value is None else as_tensor(value, self.dtype)

    def gradient(self):
        """The gradient as a numpy array, or None before any backward reached it (Paddle's
        Tensor.gradient)."""
        return None if self._grad is None else np.array(self._grad.value())

    def backward(self, grad_tensor=None, retain_graph: bool = False) -> None:
        """Accumulate d(self)/d(leaf) into every leaf's .grad that needs one."""
        from .autograd import backward
        backward([self], [grad_tensor], retain_graph)

    def retain_grads(self) -> None:
        """Give this non-leaf tensor its gradient in .grad on backward, as leaves get theirs
        (Paddle's retain_grads; a leaf needs none)."""
        self._retains_grad = True

    def clear_grad(self, set_to_zero: bool = True) -> None:
        """Zero the gradient (set_to_zero=False: drop it), as Paddle's clear_grad."""
        if self._grad is not None and set_to_zero:
            g = self._grad
            zero = _cleared(g.value().dtype, g.value().shape)
            if g._grad_of == id(self):
                g._value = zero  # zeroed in place, as Paddle's (a held grad reads zero)
            else:  # a grad the user set is never changed
                self._grad = _new_grad(self, zero)
        else:
            self._grad = None

    clear_gradient = clear_grad

    def detach(self) -> "Tensor":
        """The same value, cut from the tape (stop_gradient)."""
        return new_tensor(self.value())

    def clone(self) -> "Tensor":
        from ..frontend.layers.tensor import assign
        return assign(self)

    def set_value(self, value) -> None:
        """Replace the value (same shape), as Paddle's Tensor.set_value."""
        a = np.asarray(value.value() if isinstance(value, Tensor) else value)
        if self._value is not None and list(a.shape) != self.shape:
            raise ValueError(f"Variable Shape not match, Variable [ {self.name} ] need tensor "
                             f"with shape {self.shape} but load set tensor with shape "
                             f"{list(a.shape)}")
        self._value = np.ascontiguousarray(a if self._value is None else
                                           bfloat16.cast(a, to_numpy_dtype(self.dtype)))

    def _set_array(self, array: np.ndarray) -> None:
        """Take `array` as the new value (an optimizer's update, a loaded state)."""
        self._value = array


class EagerParamBase(Tensor, Parameter):
    """A dygraph parameter: trainable (stop_gradient False) and persistable."""

    def __init__(self, block, name, shape, dtype, **kwargs) -> None:
        Parameter.__init__(self, block, name, shape, dtype, **kwargs)

    def __repr__(self) -> str:
        return "Parameter containing:\n" + Tensor.__repr__(self)

    __str__ = __repr__


def new_tensor(array: np.ndarray, stop_gradient: bool = True, name: str | None = None) -> Tensor:
    """A new leaf tensor of the eager block holding `array` (named `name`: an optimizer's
    state tensors carry their accumulator's name, as Paddle's do)."""
    from .tracer import EAGER_PROGRAM
    block = EAGER_PROGRAM.global_block()
    t = block.add(Tensor(block, name or unique_name.generate("generated_tensor"),
                         stop_gradient=stop_gradient))
    t._value = np.ascontiguousarray(array)
    return t


def add_grad(t: Tensor, g: np.ndarray) -> None:
    """A backward's gradient g into t.grad, as Paddle's: a grad holding a value accumulates in
    place (a `t.grad` the caller held sees the sum); a cleared or absent one gives way to a
    new grad tensor holding g (a held cleared grad stays zero)."""
    prev = t._grad
    value = accumulate(prev, g)
    if prev is not None and prev._grad_of == id(t) and value is not g:
        prev._value = value
    else:
        t._grad = _new_grad(t, value)


def _new_grad(t: Tensor, value: np.ndarray) -> Tensor:
    """A grad tensor of t's holding `value` (a cleared grad's zero, all strides 0, stays a
    broadcast)."""
    g = new_tensor(np.zeros((), value.dtype))
    g._value = value if not any(value.strides) else np.ascontiguousarray(value)
    g._grad_of = id(t)
    return g


@functools.lru_cache(maxsize=1024)
def _cleared(dtype: np.dtype, shape: tuple) -> np.ndarray:
    """A cleared grad's value: zero broadcast to `shape`, holding no memory (read-only, so
    one array serves every grad of that shape)."""
    return np.broadcast_to(np.zeros((), dtype), shape)


def accumulate(grad: "Tensor | None", g: np.ndarray) -> np.ndarray:
    """grad's value plus g: g itself when grad is None or holds one zero for every element
    (a cleared grad, a broadcast: clear_grad)."""
    if grad is None:
        return g
    a = grad.value()
    return g if not any(a.strides) and a.size and a.flat[0] == 0 else a + g


def as_tensor(value, dtype=None) -> Tensor:
    """value if it is a Tensor, else a new leaf holding it."""
    if isinstance(value, Tensor):
        return value
    return new_tensor(bfloat16.cast(value, to_numpy_dtype(dtype)) if dtype else np.asarray(value))
