"""Gradients of integer tensors, as Paddle 3.3.1's eager autograd gives them.

Paddle's eager mode differentiates an int32 / int64 tensor whose stop_gradient is False like a
float one: each op's grad kernel runs in the tensor's dtype, so gradients are integers
computed in integer arithmetic (remainder's dY = -dOut * floor(X / Y), a mean's 1 / n
truncated), and they flow through casts both ways (a float tensor cast to int and back gets
the int path's gradient). Where an op's grad kernel has no int registration (matmul_grad), or
the op has no gradient (argmax, comparisons: their outputs stop gradients), nothing flows.
Nor does Paddle add int gradients: an int tensor read by several ops (x * x) is a
NotImplementedError, here as there (check_sums). Paddle's legacy static backward appends int
grad ops too, but its executor has no int kernels for many (remainder_grad: "no kernels
registered"); fluidc's static backward keeps to float vars, and only the programs dygraph's
backward builds (Program._int_grads) follow eager mode.

fluidc gives an int var a gradient there when the op making it is one of INT_GRAD_OPS: the ops
whose grad ops run on ints as Paddle's kernels do, each checked against Paddle's eager numbers
(tests/test_int_grads.py, fixtures from tests/fixtures/make_int_grad_fixtures.py). An int
var made by any other op carries none, as before."""
from __future__ import annotations

from ..frontend.dtypes import VarType, convert_dtype, dtype_name, is_float

INT_DTYPES = (VarType.INT32, VarType.INT64)
INT_GRAD_OPS = frozenset({
    "elementwise_add", "elementwise_sub", "elementwise_mul", "elementwise_mod",
    "elementwise_max", "elementwise_min", "scale", "cast", "assign", "abs", "clip", "where",
    "reshape2", "transpose2", "unsqueeze2", "squeeze2", "flatten_contiguous_range", "slice",
    "expand_v2", "concat", "stack", "gather", "reduce_sum", "reduce_mean"})


def carries_grad(program, dtype, producers: list[str]) -> bool:
    """Whether a var of `dtype` made by ops of types `producers` (none: a leaf) may get a
    gradient in `program`."""
    if is_float(dtype):
        return True
    return program._int_grads and convert_dtype(dtype) in INT_DTYPES and \
        all(p in INT_GRAD_OPS for p in producers)


def check_sums(summed: list) -> None:
    """Paddle's eager autograd adds float gradients only: in an eager program, a gradient of an
    int tensor with several contributions (`summed`: the dtypes of the vars whose gradients
    are summed) is its NotImplementedError."""
    for dtype in summed:
        if not is_float(dtype):
            raise NotImplementedError(
                f"Gradient accumulation of data type {dtype_name(dtype)} is not supported in "
                f"eager mode (as in Paddle): an int tensor read by several ops, or twice by one, "
                f"gets more than one gradient")
