"""print: writes a tensor to stdout in Paddle's format when it runs, and passes it through.

`print` is Paddle's op (In -> Out, its attributes; its grad is a print of Out@GRAD with
is_forward false, so print_phase picks the pass that prints). It lowers to `print_value`, a
side-effect extern that knows the printed var's name (an attribute: after lowering, vars may
carry plan-internal names), its LoD (plans are per LoD) and counts its runs for first_n.
"""
from __future__ import annotations

import sys
import threading

import numpy as np

from ..dtypes import dtype_name
from .define import same_as
from .registry import LOD_ATTR, OpDef, OpDesc, VarInfo, grad_name, register, slots

PRINT_ATTRS = {"first_n": -1, "message": "", "summarize": 20, "print_tensor_name": True,
               "print_tensor_type": True, "print_tensor_shape": True,
               "print_tensor_layout": True, "print_tensor_lod": True, "print_phase": "BOTH",
               "is_forward": True}
_VERSION = "@@v"  # the pipeline's suffix for a re-written var's later values
_lock = threading.Lock()  # one tensor's lines at a time, as Paddle's formatter


class RunCount:
    """How many times one lowered print ran; copies of the op share it."""

    def __init__(self) -> None:
        self.n = 0

    def __deepcopy__(self, memo) -> "RunCount":
        return self

    def __copy__(self) -> "RunCount":
        return self


def format_tensor(value: np.ndarray, name: str, lod, attrs: dict, place: str) -> str:
    """Paddle's TensorFormatter text: the enabled fields, then the first `summarize` values
    (all if -1), each as a float32 with six decimals."""
    lines = []
    if attrs["print_tensor_name"] and name:
        lines.append(f"Variable: {name}")
    if attrs["message"]:
        lines.append(f"  - message: {attrs['message']}")
    if attrs["print_tensor_lod"]:
        levels = "".join("{" + ", ".join(str(int(o)) for o in level) + "}" for level in lod or ())
        lines.append(f"  - lod: {{{levels}}}")
    lines.append(f"  - place: {place}")
    if attrs["print_tensor_shape"]:
        lines.append(f"  - shape: [{', '.join(str(d) for d in value.shape)}]")
    if attrs["print_tensor_layout"]:
        lines.append("  - layout: NCHW")
    if attrs["print_tensor_type"]:
        lines.append(f"  - dtype: {dtype_name(value.dtype)}")
    flat = value.reshape(-1)
    if attrs["summarize"] != -1:
        flat = flat[:max(int(attrs["summarize"]), 0)]
    lines.append("  - data: [" + " ".join(f"{v:.6f}" for v in flat.astype(np.float32)) + "]")
    return "\n".join(lines) + "\n"


def _prints(attrs: dict) -> bool:
    """Whether this run prints: the op's pass is one print_phase names, within first_n runs."""
    phase = attrs["print_phase"].upper()
    if phase == ("BACKWARD" if attrs["is_forward"] else "FORWARD"):
        return False
    with _lock:
        attrs["run_count"].n += 1
        return attrs["first_n"] <= 0 or attrs["run_count"].n <= attrs["first_n"]


def _emit(value: np.ndarray, attrs: dict, place: str) -> None:
    if _prints(attrs):
        lod = (attrs.get(LOD_ATTR, {}).get("In") or [None])[0]
        text = format_tensor(value, attrs["var_name"], lod, attrs, place)
        with _lock:
            sys.stdout.write(text)
            sys.stdout.flush()


def _run(ins, outs, attrs, rng) -> None:
    x = ins["In"][0]
    device = x.device
    place = "Place(cpu)" if device.type == "cpu" else f"Place(gpu:{device.index or 0})"
    _emit(x.detach().cpu().numpy(), attrs, place)
    outs["Out"][0].copy_(x)


def _reference(ins, attrs):
    x = np.asarray(ins["In"][0])
    _emit(x, attrs, "Place(cpu)")
    return {"Out": [x.copy()]}


def _lower(op: OpDesc, infos: dict[str, VarInfo], new_var) -> list[OpDesc]:
    name = op.input("In")[0].split(_VERSION)[0]
    return [OpDesc("print_value", {"In": op.input("In")}, {"Out": op.output("Out")},
                   dict(op.attrs, var_name=name, run_count=RunCount()))]


def _grad(op: OpDesc) -> list[OpDesc]:
    return [OpDesc("print", {"In": [grad_name(op.output("Out")[0])]},
                   {"Out": [grad_name(op.input("In")[0])]}, dict(op.attrs, is_forward=False))]


def _lod(in_lods, attrs, in_infos):
    return {"Out": [in_lods["In"][0]]}


register(OpDef("print", slots("In"), slots("Out"), PRINT_ATTRS, same_as("In", "Out"),
               "composite", grad=_grad, lower=_lower, lod=_lod, side_effect=True))
register(OpDef("print_value", slots("In"), slots("Out"),
               dict(PRINT_ATTRS, var_name="", run_count=None, **{LOD_ATTR: {}}),
               same_as("In", "Out"), "extern", reference=_reference, run=_run, lod=_lod,
               side_effect=True))
