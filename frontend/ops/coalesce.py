"""coalesce_tensor: Paddle's fusion of several tensors into one flat buffer (FusedOutput), each
Input then a view of its slice (Output, the same vars in Paddle's programs). paddle.nn.SimpleRNN
/ LSTM / GRU put it in the startup program, coalescing the cells' weights into the network's
flat weight for cuDNN (nothing on CPU reads it).

fluidc has no views between vars: FusedOutput gets the inputs' values one after another
(copy_data), or `constant` everywhere (set_constant), and Output the values of Input (the
constant where set_constant), which is what reading either side in Paddle gives right after
the op. Later writes to an Output do not reach FusedOutput. use_align (padding each slice to an
alignment) is implemented as False only, and one of copy_data / set_constant must be set (else
Paddle's values are whatever the buffer held): the rnn layers write use_align=False,
copy_data=True; anything else is an OpError naming it.
"""
from __future__ import annotations

import numpy as np

from ..dtypes import convert_dtype, to_numpy_dtype
from ..errors import OpError
from .registry import OpDef, VarInfo, register, slots

ATTRS = {"copy_data": False, "set_constant": False, "persist_output": False, "constant": 0.0,
         "dtype": 5, "use_align": True, "align_size": -1, "user_defined_size_of_dtype": -1,
         "concated_shapes": [], "concated_ranks": []}


def _check(a) -> None:
    if not (a["copy_data"] or a["set_constant"]):
        raise OpError("op 'coalesce_tensor': with copy_data and set_constant both False "
                      "Paddle leaves the values undefined; fluidc needs one of them")
    if a["use_align"]:
        raise OpError("op 'coalesce_tensor' attribute 'use_align' = True: fluidc implements "
                      "use_align=False (no padding between the slices) only")
    if a["concated_shapes"] or a["concated_ranks"]:
        raise OpError("op 'coalesce_tensor': concated_shapes / concated_ranks are not "
                      "implemented (give the tensors as Input)")


def _infer(ins, a):
    _check(a)
    dtype = convert_dtype(a["dtype"])
    for i, v in enumerate(ins["Input"]):
        if v.dtype != dtype:
            raise OpError(f"op 'coalesce_tensor': Input[{i}] is {v.dtype.name}, the attribute "
                          f"dtype {dtype.name}")
    sizes = [int(np.prod(v.shape)) if all(d >= 0 for d in v.shape) else -1 for v in ins["Input"]]
    total = -1 if -1 in sizes else sum(sizes)
    return {"Output": [VarInfo(tuple(v.shape), v.dtype) for v in ins["Input"]],
            "FusedOutput": [VarInfo((total,), dtype)]}


def _compute(values, a, np_dtype):
    if a["set_constant"]:
        outs = [np.full(np.shape(v), a["constant"], np_dtype) for v in values]
    else:  # copy_data
        outs = [np.array(v, np_dtype, copy=True) for v in values]
    flat = np.concatenate([o.reshape(-1) for o in outs]) if outs else np.zeros(0, np_dtype)
    return {"Output": outs, "FusedOutput": [flat]}


def _reference(ins, a):
    _check(a)
    return _compute([np.asarray(v) for v in ins["Input"]], a, to_numpy_dtype(a["dtype"]))


def _run(ins, outs, a, rng):
    got = _reference({"Input": [v.cpu().numpy() for v in ins["Input"]]}, a)
    for slot, values in got.items():
        for dst, v in zip(outs.get(slot) or (), values):
            if dst is not None:
                dst.copy_(dst.new_tensor(v))


register(OpDef("coalesce_tensor", slots("Input*"), slots("Output*", "FusedOutput"), ATTRS,
               _infer, "extern", reference=_reference, run=_run))
