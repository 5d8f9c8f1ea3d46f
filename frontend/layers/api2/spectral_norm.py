"""paddle.static.nn.spectral_norm and paddle.nn.SpectralNorm: the spectral_norm op over a weight
with its power-iteration vectors U [h] and V [w] as parameters (Normal(0, 1), stop_gradient), as
Paddle creates them (see ops/spectral_norm.py)."""
from __future__ import annotations

import numpy as np

from ...initializer import Normal
from ...param_attr import ParamAttr
from ..helper import ArgumentValueError, LayerHelper, check_type, check_variable_and_dtype
from .layer import Layer


def _uv_shapes(shape, dim: int) -> tuple[list[int], list[int]]:
    h = int(shape[dim])
    return [h], [int(np.prod(shape)) // h]


def _check_dim(shape, dim: int) -> None:
    """static.nn.spectral_norm's checks (ValueErrors)."""
    if 0 in shape:
        raise ArgumentValueError(f"spectral_norm: no dim of the weight may be 0, got {list(shape)}")
    if dim not in (0, 1):
        raise ArgumentValueError(f"The input `dim` must be 0 (if weight in fc) or 1 (if weight "
                                 f"in conv), but received dim={dim}")


def _append(helper: LayerHelper, weight, u, v, dim, power_iters, eps, dtype):
    out = helper.create_variable_for_type_inference(dtype)
    helper.append_op("spectral_norm", inputs={"Weight": [weight], "U": [u], "V": [v]},
                     outputs={"Out": [out]},
                     attrs={"dim": dim, "power_iters": power_iters, "eps": eps})
    return out


def _vectors(create, shape, dim, dtype):
    """U and V, created by create(shape, dtype) and frozen."""
    made = [create(s, dtype) for s in _uv_shapes(shape, dim)]
    for p in made:
        p.stop_gradient = True
    return made


def spectral_norm(weight, dim=0, power_iters=1, eps=1e-12, name=None):
    """paddle.static.nn.spectral_norm: weight divided by its largest singular value (estimated
    by power_iters power iterations) with dim 0 (fc weights) or 1 (conv filters) as rows."""
    check_variable_and_dtype(weight, "weight", ("float32", "float64"), "spectral_norm")
    check_type(dim, "dim", int, "spectral_norm")
    check_type(power_iters, "power_iters", int, "spectral_norm")
    check_type(eps, "eps", float, "spectral_norm")
    _check_dim(weight.shape, dim)
    helper = LayerHelper("spectral_norm", name=name)
    u, v = _vectors(lambda s, dt: helper.create_parameter(
        ParamAttr(), s, dt, default_initializer=Normal(0.0, 1.0)), weight.shape, dim, weight.dtype)
    return _append(helper, weight, u, v, dim, power_iters, eps, weight.dtype)


class SpectralNorm(Layer):
    """paddle.nn.SpectralNorm: spectral_norm of the weight it is called on, with U / V of a
    weight of weight_shape as the layer's parameters weight_u / weight_v."""

    def __init__(self, weight_shape, dim=0, power_iters=1, eps=1e-12, dtype="float32") -> None:
        super().__init__(dtype=dtype)
        # Paddle's asserts; a dim other than 0 / 1 that indexes the shape (-1) is the op's
        # ValueError when the layer is called
        assert np.prod(weight_shape) > 0, "Any dimension of `weight_shape` cannot be equal to 0."
        assert dim < len(weight_shape), (f"The input `dim` should be less than the length of "
                                         f"`weight_shape`, but received dim={dim}")
        self._dim, self._power_iters, self._eps = dim, power_iters, eps
        self.weight_u, self.weight_v = _vectors(
            lambda s, dt: self.create_parameter(s, dtype=dt,
                                                default_initializer=Normal(0.0, 1.0)),
            list(weight_shape), dim, dtype)

    def forward(self, x):
        check_variable_and_dtype(x, "weight", ("float32", "float64"), "SpectralNorm")
        return _append(LayerHelper("spectral_norm", name=self._full_name), x, self.weight_u,
                       self.weight_v, self._dim, self._power_iters, self._eps, self._dtype)
