"""fluid.layers activations beyond nn.py's: relu6, hard_sigmoid, logsigmoid, softsign, selu,
elu, softplus, mish, pow, and cumsum."""
from __future__ import annotations

from ..framework import Variable
from .helper import REAL_DTYPES, LayerHelper, append_unary


def relu6(x, threshold: float = 6.0, name=None) -> Variable:
    """min(max(x, 0), threshold)."""
    return append_unary("relu6", x, name, threshold=float(threshold))


def hard_sigmoid(x, slope: float = 0.2, offset: float = 0.5, name=None) -> Variable:
    """max(0, min(1, slope * x + offset))."""
    return append_unary("hard_sigmoid", x, name, slope=float(slope), offset=float(offset))


def logsigmoid(x, name=None) -> Variable:
    """log(sigmoid(x)), computed without overflow."""
    return append_unary("logsigmoid", x, name)


def softsign(x, name=None) -> Variable:
    """x / (1 + |x|)."""
    return append_unary("softsign", x, name)


def selu(x, scale=None, alpha=None, name=None) -> Variable:
    """scale * (x if x > 0 else alpha * (exp(x) - 1)), with SELU's constants by default."""
    attrs = {}
    if scale is not None:
        attrs["scale"] = float(scale)
    if alpha is not None:
        attrs["alpha"] = float(alpha)
    return append_unary("selu", x, name, **attrs)


def elu(x, alpha: float = 1.0, name=None) -> Variable:
    """x if x > 0 else alpha * (exp(x) - 1)."""
    return append_unary("elu", x, name, alpha=float(alpha))


def softplus(x, beta: float = 1.0, threshold: float = 20.0, name=None) -> Variable:
    """log(1 + exp(beta * x)) / beta (x itself where beta * x > threshold)."""
    return append_unary("softplus", x, name, beta=float(beta), threshold=float(threshold))


def mish(x, threshold: float = 20.0, name=None) -> Variable:
    """x * tanh(softplus(x)), softplus taken as x above threshold and exp(x) below -threshold."""
    return append_unary("mish", x, name, threshold=float(threshold))


def pow(x, factor=1.0, name=None) -> Variable:  # noqa: A001 (Paddle's name)
    """x ** factor; factor may be a [1] Variable."""
    helper = LayerHelper("pow", name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    inputs, attrs = {"X": [x]}, {}
    if isinstance(factor, Variable):
        inputs["FactorTensor"] = [factor]
    else:
        attrs["factor"] = float(factor)
    helper.append_op("pow", inputs=inputs, outputs={"Out": [out]}, attrs=attrs)
    return out


def cumsum(x, axis=None, exclusive=None, reverse=None, name=None) -> Variable:
    """Running sums along axis (of the flattened x when axis is None)."""
    attrs = {"flatten": axis is None, "axis": -1 if axis is None else int(axis)}
    if exclusive is not None:
        attrs["exclusive"] = bool(exclusive)
    if reverse is not None:
        attrs["reverse"] = bool(reverse)
    return append_unary("cumsum", x, name, REAL_DTYPES, **attrs)
