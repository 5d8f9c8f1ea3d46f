"""paddle.norm (the ops Paddle's static graph appends for it: p_norm, frobenius_norm) and
paddle.addmm."""
from __future__ import annotations

import numpy as np

from ...framework import Variable
from .. import conv as _conv
from .. import nn as _nn
from .. import tensor as _tensor
from ..helper import ArgumentValueError, LayerHelper, check_type, check_variable_and_dtype


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


def _vector_norm(x: Variable, p, axis, keepdim: bool, name) -> Variable:
    """Paddle's vector_norm: p_norm over one axis or (axis None) every element; over several
    axes |x|^p summed and raised to 1/p (inf / -inf: the largest / smallest |x|, 0: the count
    of nonzeros), as Paddle appends them."""
    if isinstance(p, bool) or not isinstance(p, (int, float)):
        raise ArgumentValueError(f"only valid p type is int and float, found {type(p)}")
    if isinstance(axis, list) and len(axis) == 1:
        axis = axis[0]
    if axis is None or isinstance(axis, int):
        if axis is not None:
            check_type(axis, "axis", int, "p_norm")
        check_variable_and_dtype(x, "input", ("float16", "uint16", "float32", "float64"),
                                 "p_norm")
        return _append("p_norm", x, {"axis": -1 if axis is None else int(axis),
                                     "porder": float(p), "keepdim": bool(keepdim),
                                     "asvector": axis is None, "epsilon": 1e-12}, name)
    if not isinstance(axis, list):
        raise ArgumentValueError(f"norm: axis must be None, an int or a list of ints, got "
                                 f"{axis!r}")
    reduce = dict(dim=[int(a) for a in axis], keep_dim=bool(keepdim), reduce_all=False)
    if p in (np.inf, -np.inf):
        return _append("reduce_max" if p > 0 else "reduce_min", _append("abs", x, {}, None),
                       reduce, name)
    if p == 0:
        nonzero = _tensor.cast(x != _tensor.fill_constant([1], x.dtype, 0.0), x.dtype)
        return _append("reduce_sum", nonzero, reduce, name)
    powered = _append("pow", _append("abs", x, {}, None), {"factor": float(p)}, None)
    return _append("pow", _append("reduce_sum", powered, reduce, None),
                   {"factor": float(1.0 / p)}, name)


_MATRIX_ORDERS = ("fro", "nuc", np.inf, -np.inf, 1, -1, 2, -2)


def _matrix_norm(x: Variable, p, axis: list, keepdim: bool, name) -> Variable:
    """Paddle's matrix_norm over two axes: 'fro' (frobenius_norm), 'nuc' / 2 / -2 (the sum /
    largest / smallest singular value: svd of x with the two axes moved last), 1 / -1 / inf /
    -inf (the largest / smallest column or row sum of |x|: p_norm of order 1 then reduce_max /
    min)."""
    if len(axis) != 2:
        raise ArgumentValueError(f"except axis type int or list (length of list == 2), found "
                                 f"{len(axis)}")
    if not any(p == q and type(p) is not bool for q in _MATRIX_ORDERS if
               isinstance(p, str) == isinstance(q, str)):
        raise ArgumentValueError(f"just support p value 'fro','nuc',1,-1,inf,-inf,2,-2 if axis "
                                 f"is 2D, found {p}")
    if p == "fro":
        return _append("frobenius_norm", x, {"dim": [int(a) for a in axis],
                                             "keep_dim": bool(keepdim), "reduce_all": False},
                       name)
    rank = len(x.shape)
    dim0, dim1 = (int(d) % rank for d in axis)
    if p == "nuc" or abs(p) == 2:  # the sum / largest / smallest singular value
        moved = [d for d in range(rank) if d not in (dim0, dim1)] + [dim0, dim1]
        helper = LayerHelper("svd")
        u, s, vh = (helper.create_variable_for_type_inference(x.dtype) for _ in range(3))
        helper.append_op("svd", inputs={"X": [_nn.transpose(x, moved)]},
                         outputs={"U": [u], "S": [s], "VH": [vh]},
                         attrs={"full_matrices": False})
        out = _append("reduce_sum" if p == "nuc" else "reduce_max" if p > 0 else "reduce_min",
                      s, {"dim": [-1], "keep_dim": False, "reduce_all": False},
                      None if keepdim else name)
        if not keepdim:
            return out
        back = [moved.index(d) for d in range(rank)]
        return _nn.transpose(_conv.unsqueeze(_conv.unsqueeze(out, [-1]), [-1]), back)
    if abs(p) == np.inf:
        dim0, dim1 = dim1, dim0
    if not keepdim and dim0 < dim1:
        dim1 -= 1
    sums = _vector_norm(x, 1.0, dim0, keepdim, None)
    return _append("reduce_max" if p > 0 else "reduce_min", sums,
                   {"dim": [dim1], "keep_dim": bool(keepdim), "reduce_all": False}, name)


def norm(x: Variable, p=None, axis=None, keepdim: bool = False, name=None) -> Variable:
    """paddle.norm: the vector norm of order p (2 if None; 'fro' is 2) over `axis` (every
    element if None; see _vector_norm), or a matrix norm over two axes (_matrix_norm), as
    Paddle 3.3.1 dispatches them."""
    if isinstance(axis, tuple):
        axis = list(axis)
    if isinstance(axis, list) and len(axis) == 1:
        axis = axis[0]
    if isinstance(p, str):
        if p == "fro" and (axis is None or isinstance(axis, int)):
            return _vector_norm(x, 2, axis, keepdim, name)
        return _matrix_norm(x, p, list(range(len(x.shape))) if axis is None else axis,
                            keepdim, name)
    p = 2.0 if p is None else p
    if isinstance(axis, list) and len(axis) == 2:
        return _matrix_norm(x, p, axis, keepdim, name)
    return _vector_norm(x, p, axis, keepdim, name)
