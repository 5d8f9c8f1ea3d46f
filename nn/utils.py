"""paddle.nn.utils: a model's parameters as one vector, and back."""
import math

from ..dygraph.autograd import no_grad
from ..frontend.layers.api2 import concat, reshape
from ..frontend.layers.api2.manipulation import split
from ..frontend.layers.tensor import assign

__all__ = ["parameters_to_vector", "vector_to_parameters"]


def parameters_to_vector(parameters, name=None):
    """The parameters flattened and concatenated in order: one 1-D tensor."""
    return concat([reshape(p, [-1]) for p in parameters], axis=0, name=name)


def vector_to_parameters(vec, parameters, name=None):
    """vec's consecutive slices, reshaped, written into the parameters (outside autograd)."""
    parameters = list(parameters)
    with no_grad():
        parts = split(vec, [math.prod(p.shape) for p in parameters]) if len(parameters) > 1 \
            else [vec]
        for p, part in zip(parameters, parts):
            assign(reshape(part, list(p.shape)), output=p)
