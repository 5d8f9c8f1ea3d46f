"""What paddle.load hands back from a pickle, as Paddle's static mode does.

Paddle pickles a tensor as a bare numpy array (2.0+) or, in 2.1's format, as a (name, array)
tuple. Loading in static mode turns those back into DenseTensors (LoDTensor) unless
return_numpy=True: when the object holds any (name, array) tuple, only those tuples are turned
(into a tensor, or into the bare array with return_numpy); otherwise every array is. A dict saved
with a "StructuredToParameterName@@" table (a dygraph Layer's state dict) turns only the arrays its
table names, and loses the table unless keep_name_table=True.
"""
from __future__ import annotations

import numpy as np

from .tensor import LoDTensor

NAME_TABLE = "StructuredToParameterName@@"


def _is_named_array(obj) -> bool:
    return type(obj) is tuple and len(obj) == 2 and isinstance(obj[0], str) and \
        isinstance(obj[1], np.ndarray)


def _contains(obj, test) -> bool:
    if test(obj):
        return True
    if isinstance(obj, dict):
        return any(_contains(v, test) for v in obj.values())
    if type(obj) in (list, tuple):
        return any(_contains(v, test) for v in obj)
    return False


def _convert(obj, test, convert):
    """obj with every part passing `test` replaced by convert(part); containers rebuilt with their
    own type (dicts and lists in place, as Paddle does)."""
    if test(obj):
        return convert(obj)
    if isinstance(obj, dict):
        for k in list(obj):
            obj[k] = _convert(obj[k], test, convert)
        return obj
    if type(obj) is list:
        for i, v in enumerate(obj):
            obj[i] = _convert(v, test, convert)
        return obj
    if type(obj) is tuple:
        return tuple(_convert(v, test, convert) for v in obj)
    if type(obj) is set:
        return {_convert(v, test, convert) for v in obj}
    return obj


def as_tensor(arr: np.ndarray) -> LoDTensor:
    """A LoDTensor holding a copy of arr."""
    t = LoDTensor()
    t.set(arr)
    return t


def parse_load_result(obj, return_numpy: bool, keep_name_table: bool = False):
    """Paddle's static-mode paddle.load result for the unpickled `obj`."""
    def array(a):
        return a if return_numpy else as_tensor(a)

    if isinstance(obj, dict) and NAME_TABLE in obj:
        for key in obj[NAME_TABLE]:
            if isinstance(obj.get(key), np.ndarray):
                obj[key] = array(obj[key])
        if not keep_name_table:
            del obj[NAME_TABLE]
        return obj
    if _contains(obj, _is_named_array):
        return _convert(obj, _is_named_array, lambda t: array(t[1]))
    return _convert(obj, lambda a: isinstance(a, np.ndarray), array)
