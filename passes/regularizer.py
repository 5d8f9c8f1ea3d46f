"""Weight decay as Paddle appends it: a decay term per parameter (scale for L2, sign + scale for
L1) added to the gradient by an in-place `sum`. The parameter's own regularizer (ParamAttr)
wins over the optimizer's."""
from __future__ import annotations

from ..frontend import unique_name
from ..frontend.framework import Parameter, Variable


class WeightDecayRegularizer:
    """Base: `regularizer(param, grad, block)` appends the decay term's ops and returns it."""

    def __init__(self, coeff: float = 0.0, *, regularization_coeff: float | None = None) -> None:
        if regularization_coeff is not None:  # fluid 1.x's name (L2DecayRegularizer(...))
            coeff = regularization_coeff
        if coeff is None:
            raise ValueError(f"{type(self).__name__}: coeff must be a float, got None")
        self._coeff = coeff

    def _term(self, block, like: Variable) -> Variable:
        return block.create_var(name=unique_name.generate("_generated_var"), shape=like.shape,
                                dtype=like.dtype, lod_level=like.lod_level)

    def __call__(self, param: Parameter, grad: Variable, block) -> Variable:
        raise NotImplementedError


class L2Decay(WeightDecayRegularizer):
    """decay = coeff * param (the gradient of 0.5 * coeff * ||param||^2)."""

    def __call__(self, param, grad, block):
        decay = self._term(block, param)
        block.append_op("scale", {"X": [param]}, {"Out": [decay]}, {"scale": float(self._coeff)})
        return decay

    def __str__(self) -> str:
        return f"L2Decay, coeff={self._coeff:f}"


class L1Decay(WeightDecayRegularizer):
    """decay = coeff * sign(param) (the gradient of coeff * ||param||_1)."""

    def __call__(self, param, grad, block):
        sign = self._term(block, param)
        block.append_op("sign", {"X": [param]}, {"Out": [sign]})
        decay = self._term(block, param)
        block.append_op("scale", {"X": [sign]}, {"Out": [decay]}, {"scale": float(self._coeff)})
        return decay

    def __str__(self) -> str:
        return f"L1Decay, coeff={self._coeff:f}"


L2DecayRegularizer, L1DecayRegularizer = L2Decay, L1Decay


def as_regularizer(weight_decay) -> WeightDecayRegularizer | None:
    """The optimizer's weight_decay/regularization argument: None, a float (L2) or a regularizer."""
    if weight_decay is None or isinstance(weight_decay, WeightDecayRegularizer):
        return weight_decay
    if isinstance(weight_decay, (int, float)) and not isinstance(weight_decay, bool):
        return L2Decay(float(weight_decay))
    raise TypeError(f"weight_decay must be a float or a regularizer (L1Decay, L2Decay), got "
                    f"{type(weight_decay).__name__}")


def append_regularization_ops(params_grads, regularization=None):
    """grad += the decay term of each parameter (its own regularizer, else `regularization`)."""
    out = []
    for param, grad in params_grads:
        reg = getattr(param, "regularizer", None) or regularization
        if grad is None or reg is None:
            out.append((param, grad))
            continue
        block = grad.block
        term = reg(param, grad, block)
        block.append_op("sum", {"X": [grad, term]}, {"Out": [grad]})
        out.append((param, grad))
    return out
