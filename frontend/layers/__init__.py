"""fluid.layers: functions that append ops (and parameters) to the default programs."""
from .nn import *  # noqa: F401,F403
from .nn import abs, accuracy, batch_norm, cross_entropy, dropout, elementwise_add, \
    elementwise_div, elementwise_max, elementwise_min, elementwise_mul, elementwise_pow, \
    elementwise_sub, embedding, exp, fc, gelu, leaky_relu, log, matmul, mean, mul, reduce_max, \
    reduce_mean, reduce_min, reduce_sum, relu, reshape, rsqrt, scale, sigmoid, softmax, \
    softmax_with_cross_entropy, sqrt, square, square_error_cost, tanh, topk, transpose  # noqa: F401
from .tensor import assign, cast, concat, create_global_var, create_parameter, data, \
    fill_constant, gaussian_random, ones, uniform_random, zeros  # noqa: F401
