"""paddle.save / paddle.load with eager tensors, in Paddle's dygraph layout: a state dict (a dict
of tensors, optionally with a nested dict such as an optimizer's 'LR_Scheduler') is pickled as
structured name -> numpy array plus the 'StructuredToParameterName@@' table (structured name ->
tensor name); any other object has each tensor as a (name, array) tuple (Paddle 2.1's form).
Loading in dygraph mode gives tensors back where static mode gives LoDTensors."""
from __future__ import annotations

import numpy as np

from ..frontend.framework import framework_mode
from ..runtime import io as _io
from ..runtime.load_result import NAME_TABLE, _convert
from .tensor import Tensor, new_tensor


def _is_state_dict(obj) -> bool:
    """A dict of tensors (and dicts holding none, such as a schedule's state), as Paddle's
    _is_state_dict decides."""
    if not isinstance(obj, dict) or not any(isinstance(v, Tensor) for v in obj.values()):
        return False
    return all(isinstance(v, Tensor) or (isinstance(v, dict) and not any(
        isinstance(u, Tensor) for u in v.values())) for v in obj.values())


def saved_form(obj):
    """obj with its eager tensors as Paddle's dygraph paddle.save writes them."""
    if _is_state_dict(obj):
        out, table = {}, {}
        for k, v in obj.items():
            if isinstance(v, Tensor):
                out[k] = v.numpy()
                table[k] = v.name
            else:
                out[k] = v
        out[NAME_TABLE] = table
        return out
    if isinstance(obj, Tensor):
        return (obj.name, obj.numpy())
    if isinstance(obj, dict):
        return {k: saved_form(v) for k, v in obj.items()}
    if type(obj) in (list, tuple):
        return type(obj)(saved_form(v) for v in obj)
    return obj


def save(obj, path, protocol: int = 4, **configs) -> None:
    """paddle.save: eager tensors in Paddle's dygraph layout, the rest as runtime.io.save."""
    if isinstance(obj, Tensor) and configs.get("use_binary_format"):
        from ..runtime.tensor import LoDTensor
        t = LoDTensor()
        t.set(obj.value())
        obj = t
    _io.save(saved_form(obj), path, protocol, **configs)


def load(path, **configs):
    """paddle.load: after paddle.disable_static() arrays come back as tensors (unless
    return_numpy), as Paddle's dygraph load gives them; otherwise what Paddle's static load
    gives (LoDTensors, which set_state_dict takes as well)."""
    if framework_mode() != "dygraph" or configs.get("return_numpy"):
        return _io.load(path, **configs)
    obj = _io.load(path, **{**configs, "return_numpy": True})
    from ..runtime.tensor import LoDTensor
    return _convert(obj, lambda a: isinstance(a, (np.ndarray, LoDTensor)),
                    lambda a: new_tensor(np.array(a, copy=True)))
