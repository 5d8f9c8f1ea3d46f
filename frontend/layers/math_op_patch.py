"""Variable's operators (x + y, 2 * x, -x, x @ w, x < y, x[1:, None]) and the tensor methods Paddle patches
onto static Variables (x.reshape(...), x.astype(...), x.sum(), x.ndim, x.T).

`monkey_patch_variable()` installs the methods; the public face calls it once, as Paddle's does.
`x == y` / `x != y` build Paddle's `equal` / `not_equal` ops (a bool var) when y is a Variable or
a number, as Paddle's; anything else compares by identity. Hashing stays by identity, so vars
key dicts and sets, but `var in some_list`, `list.index(var)` and `list.remove(var)` compare
with `==` (a Variable, always true): fluidc's own code tests membership of vars by identity.
"""
from __future__ import annotations

from numbers import Number

from ..dtypes import VarType, convert_dtype
from ..framework import Variable
from . import api2, nn, tensor
from .api2 import manipulation, search, shaping
from .helper import LayerHelper, static_inplace
from .indexing import getitem

_INT_DTYPES = (VarType.INT8, VarType.UINT8, VarType.INT16, VarType.INT32, VarType.INT64)


def binary_op(x: Variable, other, op_type: str, reverse: bool) -> Variable:
    """x <op> other, where other is a Variable or a Python number."""
    helper = LayerHelper(op_type)
    if isinstance(other, Number) and not isinstance(other, bool):
        # Paddle's promotion with a Python number: a bool var becomes float32 (a float number)
        # or int64; an int var becomes float32 with a float number or in a division
        if x.dtype == VarType.BOOL:
            x = tensor.cast(x, "float32" if isinstance(other, float) else "int64")
        if x.dtype in _INT_DTYPES and (isinstance(other, float) or op_type == "elementwise_div"):
            x = tensor.cast(x, "float32")
        if op_type == "scale":
            return _scale(helper, x, float(other), 0.0)
        if op_type == "elementwise_add":
            return _scale(helper, x, 1.0, float(other))
        if op_type == "elementwise_sub" and not reverse:
            return _scale(helper, x, 1.0, -float(other))
        if op_type == "elementwise_sub":
            return _scale(helper, x, -1.0, float(other))
        if op_type == "elementwise_mul":
            return _scale(helper, x, float(other), 0.0)
        if op_type == "elementwise_div" and not reverse:
            return _scale(helper, x, 1.0 / float(other), 0.0)
        other = tensor.fill_constant([1], x.dtype, float(other))
    elif not isinstance(other, Variable):
        raise TypeError(f"cannot apply {op_type} to Variable '{x.name}' and a "
                        f"{type(other).__name__}; use a Variable or a number")
    if op_type == "elementwise_div" and x.dtype in _INT_DTYPES and other.dtype in _INT_DTYPES:
        x, other = tensor.cast(x, "float32"), tensor.cast(other, "float32")
    a, b = (other, x) if reverse else (x, other)
    out = helper.create_variable_for_type_inference(x.dtype)
    if op_type == "matmul_v2":
        helper.append_op(op_type, inputs={"X": [a], "Y": [b]}, outputs={"Out": [out]},
                         attrs={"trans_x": False, "trans_y": False})
    else:
        helper.append_op(op_type, inputs={"X": [a], "Y": [b]}, outputs={"Out": [out]})
    return out


def _scale(helper: LayerHelper, x: Variable, scale: float, bias: float) -> Variable:
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op("scale", inputs={"X": [x]}, outputs={"Out": [out]},
                     attrs={"scale": scale, "bias": bias})
    return out


def _operator(op_type: str, reverse: bool = False):
    def method(self, other):
        return binary_op(self, other, op_type, reverse)
    method.__name__ = op_type
    return method


def _equality(op_type: str):
    def method(self, other):
        if isinstance(other, bool):  # a bool is an int to Paddle's operators
            other = int(other)
        if not isinstance(other, (Variable, Number)):
            return NotImplemented  # Python then compares by identity
        return binary_op(self, other, op_type, False)
    method.__name__ = op_type
    return method


def astype(self: Variable, dtype) -> Variable:
    """This var converted to `dtype` (itself when it already has that dtype)."""
    return self if convert_dtype(dtype) == self.dtype else tensor.cast(self, dtype)


def dim(self: Variable) -> int:
    """The number of dims."""
    return len(self.shape)


def item(self: Variable) -> Variable:
    """The var itself (static graphs have no values to take); it must be at most 1-D."""
    if len(self.shape) > 1:
        raise TypeError(f"Required input var should be 1-D Variable, but received {list(self.shape)}")
    return self


def _transposed(self: Variable) -> Variable:
    return api2.transpose(self, list(range(len(self.shape)))[::-1])


# Operators: Paddle's op for each (number operands become scale ops or [1] constants).
_OPERATORS = {
    "__add__": ("elementwise_add", False), "__radd__": ("elementwise_add", True),
    "__sub__": ("elementwise_sub", False), "__rsub__": ("elementwise_sub", True),
    "__mul__": ("elementwise_mul", False), "__rmul__": ("elementwise_mul", True),
    "__truediv__": ("elementwise_div", False), "__rtruediv__": ("elementwise_div", True),
    "__floordiv__": ("elementwise_floordiv", False),
    "__rfloordiv__": ("elementwise_floordiv", True),
    "__mod__": ("elementwise_mod", False), "__rmod__": ("elementwise_mod", True),
    "__pow__": ("elementwise_pow", False), "__rpow__": ("elementwise_pow", True),
    "__matmul__": ("matmul_v2", False), "__rmatmul__": ("matmul_v2", True),
    "__lt__": ("less_than", False), "__le__": ("less_equal", False),
    "__gt__": ("greater_than", False), "__ge__": ("greater_equal", False),
}

# Tensor methods (paddle.tensor's tensor_method_func) that fluidc has, with 2.x signatures.
_METHODS = {
    "abs": api2.abs, "add": api2.add, "subtract": api2.subtract, "multiply": api2.multiply,
    "divide": api2.divide, "maximum": api2.maximum, "minimum": api2.minimum,
    "matmul": api2.matmul, "mean": api2.mean, "sum": api2.sum, "max": api2.max,
    "min": api2.min, "exp": api2.exp, "log": api2.log, "sqrt": api2.sqrt,
    "square": api2.square, "tanh": api2.tanh, "scale": api2.scale, "cast": api2.cast,
    "concat": api2.concat, "flatten": api2.flatten, "reshape": api2.reshape,
    "transpose": api2.transpose, "rsqrt": nn.rsqrt, "sigmoid": nn.sigmoid,
    "moveaxis": manipulation.moveaxis, "t": manipulation.t, "reshape_": manipulation.reshape_,
    "add_": static_inplace(api2.add, "add"), "subtract_": static_inplace(api2.subtract, "subtract"),
    "scale_": api2.scale_, "squeeze": shaping.squeeze, "unsqueeze": shaping.unsqueeze,
    "argmax": search.argmax, "argmin": search.argmin, "flatten_": api2.flatten_,
    "floor_divide": api2.floor_divide, "remainder": api2.remainder, "mod": api2.mod,
    "floor_mod": api2.floor_mod, "remainder_": static_inplace(api2.remainder, "remainder"),
}


def _refuse_setitem(self, index, value) -> None:
    """Paddle 3.3.1's static Variable.__setitem__: an error pointing at paddle.static.setitem
    (a dygraph Tensor assigns in place: its own __setitem__)."""
    raise RuntimeError("In static mode, the __setitem__ (looks like: x[indices] = values) should "
                       "not be used. Please use x = paddle.static.setitem(x, indices, values)")


def monkey_patch_variable() -> None:
    """Install the operators and tensor methods on Variable."""
    for name, (op_type, reverse) in _OPERATORS.items():
        setattr(Variable, name, _operator(op_type, reverse))
    Variable.__eq__, Variable.__ne__ = _equality("equal"), _equality("not_equal")
    Variable.__hash__ = object.__hash__
    Variable.__neg__ = lambda self: _scale(LayerHelper("scale"), self, -1.0, 0.0)
    Variable.__abs__ = lambda self: api2.abs(self)
    Variable.__getitem__ = getitem
    Variable.__setitem__ = _refuse_setitem
    for name, fn in _METHODS.items():
        setattr(Variable, name, fn)
    Variable.astype = astype
    Variable.dim = Variable.ndimension = dim
    Variable.ndim = property(dim)
    Variable.T = property(_transposed)
    Variable.item = item
