"""Constants held in an op's attributes (set_value, assign_value). Paddle 3.3.1 keeps them in
`values`, a list of Scalars (AttrType SCALARS: bool, int64, float64 or complex128 each, the
only form complex constants have); older Paddle wrote one typed list per dtype
(`fp32_values`, ...), which Paddle 3.3.1 converts into `values` when it loads a program whose
op_version_map gives the op a version below CURRENT_VERSIONS (or none). fluidc reads both
forms and writes built ops in 3.3.1's (runtime/program_desc.py)."""
from __future__ import annotations

import numpy as np

# older Paddle's attribute -> the numpy dtype its items are read as
LEGACY = {"bool_values": np.bool_, "fp32_values": np.float32, "int32_values": np.int32,
          "int64_values": np.int64, "fp64_values": np.float64, "fp16_values": np.float16}
# Paddle 3.3.1's op versions at which these ops hold `values` (its op_version_map)
CURRENT_VERSIONS = {"set_value": 4, "assign_value": 1}
# ops whose `values` / LEGACY attributes Paddle 3.3.1 converts (a grad op copies its forward's)
OPS = ("set_value", "set_value_grad", "assign_value")


def held(attrs: dict) -> list:
    """The op's constant as a flat list of Python numbers: `values`, else the one legacy list
    holding items (as Paddle's converter takes it), else []."""
    if attrs.get("values"):
        return list(attrs["values"])
    for key, kind in LEGACY.items():
        if len(attrs.get(key) or ()):
            return np.asarray(attrs[key], kind).tolist()
    return []


def as_array(attrs: dict, dtype) -> np.ndarray:
    """The op's constant, flat, in `dtype` (a complex item in a real dtype is refused, as
    numpy would drop its imaginary part)."""
    items = held(attrs)
    dtype = np.dtype(dtype)
    if dtype.kind != "c" and any(isinstance(v, complex) for v in items):
        raise TypeError(f"a {dtype.name} op holds complex constants {items[:4]!r}: its values "
                        f"must be real")
    return np.asarray(items, dtype)


def as_scalars(array: np.ndarray) -> list:
    """An array's items as `values` holds them (Paddle's `array.ravel().tolist()`)."""
    return np.asarray(array).reshape(-1).tolist()


def folded(attrs: dict) -> dict:
    """attrs in Paddle 3.3.1's form: the constant in `values`, no legacy lists."""
    out = {k: v for k, v in attrs.items() if k not in LEGACY}
    out["values"] = held(attrs)
    return out
