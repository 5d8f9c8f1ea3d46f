"""Paddle's VarType codes and their numpy, torch and C counterparts."""
from __future__ import annotations

import enum

import numpy as np

from .errors import FluidcError


class VarType(enum.IntEnum):
    """framework.proto's VarType.Type: tensor element types and variable kinds."""

    BOOL = 0
    INT16 = 1
    INT32 = 2
    INT64 = 3
    FP16 = 4
    FP32 = 5
    FP64 = 6
    LOD_TENSOR = 7
    SELECTED_ROWS = 8
    FEED_MINIBATCH = 9
    FETCH_LIST = 10
    STEP_SCOPES = 11
    LOD_RANK_TABLE = 12
    LOD_TENSOR_ARRAY = 13
    PLACE_LIST = 14
    READER = 15
    RAW = 17
    TUPLE = 18
    SIZE_T = 19
    UINT8 = 20
    INT8 = 21
    BF16 = 22
    COMPLEX64 = 23
    COMPLEX128 = 24

    def __str__(self) -> str:
        """As Paddle prints dtypes: paddle.float32 for an element type, VarType.X for a kind."""
        name = _PRINTED.get(self)
        return f"paddle.{name}" if name else f"VarType.{self.name}"

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)


_NUMPY = {
    VarType.BOOL: np.dtype(np.bool_),
    VarType.INT8: np.dtype(np.int8),
    VarType.UINT8: np.dtype(np.uint8),
    VarType.INT16: np.dtype(np.int16),
    VarType.INT32: np.dtype(np.int32),
    VarType.INT64: np.dtype(np.int64),
    VarType.FP16: np.dtype(np.float16),
    VarType.FP32: np.dtype(np.float32),
    VarType.FP64: np.dtype(np.float64),
    VarType.COMPLEX64: np.dtype(np.complex64),
    VarType.COMPLEX128: np.dtype(np.complex128),
    VarType.BF16: np.dtype(np.uint16),  # numpy has no bfloat16: Paddle gives its bits as uint16
}
_FROM_NUMPY = {v: k for k, v in _NUMPY.items()}
_NAMES = {
    "bool": VarType.BOOL, "int8": VarType.INT8, "uint8": VarType.UINT8, "int16": VarType.INT16,
    "int32": VarType.INT32, "int64": VarType.INT64, "float16": VarType.FP16,
    "float32": VarType.FP32, "float64": VarType.FP64, "bfloat16": VarType.BF16,
    "complex64": VarType.COMPLEX64, "complex128": VarType.COMPLEX128,
}
_PRINTED = {**{v: k for k, v in _NAMES.items()}, VarType.RAW: "raw"}


# paddle.float32, paddle.int64, ...: the dtype constants of Paddle's namespace. They are VarType
# members, so they equal a Variable's dtype and pass wherever a dtype is taken.
DTYPE_CONSTANTS = {name: _NAMES[name] for name in (
    "bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
    "float64", "complex64", "complex128")}


def convert_dtype(dtype) -> VarType:
    """Any spelling of a dtype (VarType, 'float32', np.float32, np.dtype, torch dtype) -> VarType."""
    if isinstance(dtype, VarType):
        return dtype
    if isinstance(dtype, str):
        key = dtype.lower()
        if key in _NAMES:
            return _NAMES[key]
        try:  # numpy's spellings, as Paddle reads them: 'float' is float64, 'int' int64
            return _FROM_NUMPY[np.dtype(key)]
        except (TypeError, KeyError):
            raise FluidcError(f"unknown dtype {dtype!r}; expected one of "
                              f"{sorted(_NAMES)}") from None
    if isinstance(dtype, int) and not isinstance(dtype, bool):
        return VarType(dtype)
    if type(dtype).__module__ == "torch":
        return convert_dtype(str(dtype).replace("torch.", ""))
    try:
        return _FROM_NUMPY[np.dtype(dtype)]
    except (TypeError, KeyError):
        raise FluidcError(f"unknown dtype {dtype!r}") from None


def to_numpy_dtype(dtype) -> np.dtype:
    """VarType (or any spelling) -> numpy dtype."""
    vt = convert_dtype(dtype)
    if vt not in _NUMPY:
        raise FluidcError(f"dtype {vt.name} has no numpy counterpart")
    return _NUMPY[vt]


_SPELLINGS: dict = {}  # VarType -> its spelling, asked for every var an op touches


def dtype_name(dtype) -> str:
    """The Paddle spelling ('float32', 'int64', ...) of a dtype."""
    name = _SPELLINGS.get(dtype) if isinstance(dtype, VarType) else None
    if name is None:
        name = to_numpy_dtype(dtype).name if convert_dtype(dtype) != VarType.BF16 else "bfloat16"
        if isinstance(dtype, VarType):
            _SPELLINGS[dtype] = name
    return name


def is_float(dtype) -> bool:
    """Whether gradients can flow through values of this dtype."""
    return convert_dtype(dtype) in (VarType.FP16, VarType.FP32, VarType.FP64, VarType.BF16)


# paddle.set_default_dtype: the float dtype of creation ops and parameters given no dtype
DEFAULT_DTYPE_CHOICES = ("float16", "float32", "float64", "bfloat16")
_default = {"dtype": "float32"}


def set_default_dtype(d) -> None:
    """paddle.set_default_dtype: d is a name, a numpy float type or a Paddle dtype constant
    of float16 / float32 / float64 / bfloat16; anything else is a TypeError, as in Paddle."""
    if isinstance(d, type):
        if d not in (np.float16, np.float32, np.float64):
            raise TypeError(f"set_default_dtype only supports [float16, float32, float64] , but "
                            f"received {d.__name__}")
        d = d.__name__
    elif isinstance(d, VarType):
        d = dtype_name(d) if d in _NUMPY or d == VarType.BF16 else d.name
    if not any(d == choice for choice in DEFAULT_DTYPE_CHOICES):  # a str or an np.dtype
        raise TypeError(f"set_default_dtype only supports [{', '.join(DEFAULT_DTYPE_CHOICES)}] "
                        f", but received {d}")
    _default["dtype"] = str(d)


def get_default_dtype() -> str:
    """paddle.get_default_dtype: 'float32' unless set_default_dtype chose another."""
    return _default["dtype"]


def default_float(dtype):
    """dtype, or the default dtype when it is None."""
    return _default["dtype"] if dtype is None else dtype
