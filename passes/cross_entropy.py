"""Softmax with cross entropy as one row kernel (and its grad as one pointwise kernel).

softmax_with_cross_entropy over the last axis with hard labels is rewritten into primitives
the fuser joins into one kernel: the row max, d = x - max clipped at -64 (Paddle's kernels
clip there), exp, the row sum, Softmax = e / s, and Loss = log(s) - d[label], where d[label] is
a row sum of d where the class index equals the label (the class indices are a constant [C]
vector). Its grad, (Softmax - onehot(label)) * dLoss, becomes one pointwise kernel. Labels
equal to ignore_index give a zero loss and gradient, as in Paddle. Soft labels, other axes,
labels other than int32 / int64 (no assign_value for the class indices) and more than
MAX_CLASSES classes stay library calls.
"""
from __future__ import annotations

import numpy as np

from ..frontend.dtypes import convert_dtype, to_numpy_dtype
from ..frontend.ops import OpDesc, VarInfo, get_op_def
from ..frontend.ops.nn import SOFTMAX_FLOOR
from .constant_fold import assign_value
from .lower import TempNamer

MAX_CLASSES = 4096


def _fits(op: OpDesc, infos: dict[str, VarInfo], logits_slot: str) -> bool:
    a = op.attrs
    shape = infos[op.input(logits_slot)[0]].shape
    label = infos[op.input("Label")[0]]
    return (not a["soft_label"] and a["use_softmax"] and a["axis"] in (-1, len(shape) - 1)
            and 0 < shape[-1] <= MAX_CLASSES and label.shape[-1:] == (1,)
            and to_numpy_dtype(label.dtype).name in ("int32", "int64"))  # assign_value's ints


def expand_cross_entropy(ops: list[OpDesc], infos: dict[str, VarInfo]) -> list[OpDesc]:
    """The ops with each fitting softmax_with_cross_entropy (and grad) as primitives."""
    namer = TempNamer(infos, "@ce@")
    out: list[OpDesc] = []
    hoisted: list[OpDesc] = []  # the constants, put first: no kernel is split by them
    made: dict[tuple, str] = {}  # one var per distinct constant
    source: OpDesc | None = None  # the op being expanded: the emitted ops' origin

    def emit(op_type: str, inputs: dict, attrs: dict | None = None, name: str | None = None) -> str:
        """Append op_type writing `name` (a new temporary if None); its info goes in infos."""
        opdef = get_op_def(op_type)
        attrs = opdef.complete_attrs(dict(attrs or {}))
        info = opdef.infer({k: [infos[n] for n in v] for k, v in inputs.items()}, attrs)["Out"][0]
        if name is None:
            name = namer(info)
        infos[name] = info
        out.append(OpDesc(op_type, inputs, {"Out": [name]}, attrs,
                          callsite=source.callsite, origin=source.origin or source.type))
        return name

    def constant(value: np.ndarray) -> str:
        """A constant var, made before every op."""
        key = (value.dtype.str, value.shape, value.tobytes())
        if key not in made:
            made[key] = namer(VarInfo(value.shape, convert_dtype(value.dtype)))
            hoisted.append(assign_value(made[key], value))
        return made[key]

    def constants(op: OpDesc, values: str) -> tuple[str, str, str]:
        """(class indices [C], [ignore_index], [0] of the values' dtype)."""
        ldt = to_numpy_dtype(infos[op.input("Label")[0]].dtype)
        return (constant(np.arange(infos[values].shape[-1], dtype=ldt)),
                constant(np.array([op.attrs["ignore_index"]], dtype=ldt)),
                constant(np.zeros(1, to_numpy_dtype(infos[values].dtype))))

    for op in ops:
        source = op
        if op.type == "softmax_with_cross_entropy" and _fits(op, infos, "Logits"):
            x, label = op.input("Logits")[0], op.input("Label")[0]
            index, ignore, zero = constants(op, x)
            row = {"dim": [-1], "keep_dim": True}
            m = emit("reduce_max", {"X": [x]}, row)
            d = emit("clip", {"X": [emit("elementwise_sub", {"X": [x], "Y": [m]})]},
                     {"min": SOFTMAX_FLOOR})
            e = emit("exp", {"X": [d]})
            s = emit("reduce_sum", {"X": [e]}, row)
            emit("elementwise_div", {"X": [e], "Y": [s]}, name=op.output("Softmax")[0])
            hit = emit("equal", {"X": [index], "Y": [label]})
            picked = emit("reduce_sum", {"X": [emit("where", {"Condition": [hit], "X": [d],
                                                               "Y": [zero]})]}, row)
            loss = emit("elementwise_sub", {"X": [emit("log", {"X": [s]})], "Y": [picked]})
            ignored = emit("equal", {"X": [label], "Y": [ignore]})
            emit("where", {"Condition": [ignored], "X": [zero], "Y": [loss]},
                 name=op.output("Loss")[0])
        elif (op.type == "softmax_with_cross_entropy_grad" and op.output("Logits@GRAD")
              and _fits(op, infos, "Softmax")):
            sm, label = op.input("Softmax")[0], op.input("Label")[0]
            index, ignore, zero = constants(op, sm)
            ignored = emit("equal", {"X": [label], "Y": [ignore]})
            dloss = emit("where", {"Condition": [ignored], "X": [zero],
                                   "Y": [op.input("Loss@GRAD")[0]]})
            hit = emit("equal", {"X": [index], "Y": [label]})
            onehot = emit("cast", {"X": [hit]}, {"in_dtype": int(infos[hit].dtype),
                                                 "out_dtype": int(infos[sm].dtype)})
            diff = emit("elementwise_sub", {"X": [sm], "Y": [onehot]})
            emit("elementwise_mul", {"X": [diff], "Y": [dloss]},
                 name=op.output("Logits@GRAD")[0])
        else:
            out.append(op)
    return hoisted + out
