"""paddle.norm (the ops Paddle's static graph appends for it: p_norm, frobenius_norm) and
paddle.addmm."""
from __future__ import annotations

import numpy as np

from ...errors import FluidcError
from ...framework import Variable
from ..helper import ArgumentValueError, LayerHelper, check_variable_and_dtype


def addmm(input, x, y, beta: float = 1.0, alpha: float = 1.0, name=None) -> Variable:
    """paddle.addmm: beta * input + alpha * (x @ y), input broadcasting to [x rows, y columns];
    alpha and beta are float32 attributes, as in Paddle's ProgramDesc."""
    for arg, v in (("Input", input), ("X", x), ("Y", y)):
        check_variable_and_dtype(v, arg, ("float32", "float64"), "addmm")
    xs, ys, ins = list(x.shape), list(y.shape), list(input.shape)
    if not len(xs) == len(ys) == 2:
        raise ArgumentValueError(f"The dimension of x, y should be 2 but receive x's shape: "
                                 f"{xs}, y's shape: {ys}")
    if xs[1] != ys[0]:
        raise ArgumentValueError(f"The input Variable x's width must be equal with Variable y' "
                                 f"height. But received x's shape = {xs}, y's shape = {ys}.")
    if len(ins) == 2:
        for i, (dim, want, side) in enumerate(((ins[0], xs[0], "x"), (ins[1], ys[1], "y"))):
            if dim not in (want, 1):
                raise ArgumentValueError(f"When {side}'s dimension[{i}] is not equal with "
                                         f"input's dimension[{i}], input's dimension[{i}] must "
                                         f"be 1 but got {dim}")
    elif len(ins) == 1:
        if ins[0] not in (ys[1], 1):
            raise ArgumentValueError(f"The input's shape: {ins} is not broadcastable with "
                                     f"[x.shape[0], y.shape[1]]: [{xs[0]},{ys[1]}]")
    else:
        raise ArgumentValueError(f"The dimension of input should be 2 or 1 but receive input's "
                                 f"shape: {ins}")
    helper = LayerHelper("addmm", name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op("addmm", inputs={"Input": [input], "X": [x], "Y": [y]},
                     outputs={"Out": [out]},
                     attrs={"Alpha": float(np.float32(alpha)), "Beta": float(np.float32(beta))})
    return out


def _append(op_type: str, x: Variable, attrs: dict, name) -> Variable:
    helper = LayerHelper(op_type, name=name)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op(op_type, inputs={"X": [x]}, outputs={"Out": [out]}, attrs=attrs)
    return out


def _vector_norm(x: Variable, p: float, axis, keepdim: bool, name) -> Variable:
    """p_norm over one axis, or (axis None) over every element."""
    return _append("p_norm", x, {"axis": -1 if axis is None else int(axis), "porder": float(p),
                                 "keepdim": bool(keepdim), "asvector": axis is None,
                                 "epsilon": 1e-12}, name)


def norm(x: Variable, p=None, axis=None, keepdim: bool = False, name=None) -> Variable:
    """The vector norm of order p (2 if None; 'fro' is 2; inf/-inf the largest/smallest
    magnitude; 0 the count of nonzeros) over `axis` (every element if None), or the Frobenius
    norm over two axes."""
    if isinstance(axis, tuple):
        axis = list(axis)
    if isinstance(axis, list) and len(axis) == 1:
        axis = axis[0]
    if isinstance(p, str) and p != "fro":
        raise FluidcError(f"norm: p {p!r} is not supported; give a number or 'fro'")
    if axis is None or isinstance(axis, int):
        return _vector_norm(x, 2.0 if p in (None, "fro") else p, axis, keepdim, name)
    if not (isinstance(axis, list) and len(axis) == 2):
        raise FluidcError(f"norm: axis must be None, an int or two ints, got {axis!r}")
    if p != "fro":  # p None is 2 here: the spectral norm, as Paddle's
        raise FluidcError(f"norm: the matrix norm of order {2 if p is None else p!r} over axes "
                          f"{axis} is not supported; fluidc computes p='fro' over two axes")
    return _append("frobenius_norm", x, {"dim": [int(a) for a in axis], "keep_dim": bool(keepdim),
                                         "reduce_all": False}, name)
