"""paddle.norm: the ops Paddle's static graph appends for it (p_norm, frobenius_norm)."""
from __future__ import annotations

from ...errors import FluidcError
from ...framework import Variable
from ..helper import LayerHelper


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
