"""fluid.layers.Print / paddle.static.Print."""
from __future__ import annotations

from ..errors import FluidcError
from ..framework import Variable
from .helper import LayerHelper

_PHASES = ("FORWARD", "BACKWARD", "BOTH")


def Print(input: Variable, first_n: int = -1, message: str | None = None, summarize: int = 20,  # noqa: N802
          print_tensor_name: bool = True, print_tensor_type: bool = True,
          print_tensor_shape: bool = True, print_tensor_layout: bool = True,
          print_tensor_lod: bool = True, print_phase: str = "both") -> Variable:
    """input, passed through a print op: each run prints it (its name, message, LoD, place,
    shape, layout, dtype and first `summarize` values, as Paddle) for the first first_n runs
    (all if -1); print_phase 'backward' prints its gradient instead, 'both' both. Use the
    returned var downstream: the gradient flows (and prints) through it."""
    if not isinstance(input, Variable):
        raise TypeError(f"Print: input must be a Variable, got {type(input).__name__}")
    if str(print_phase).upper() not in _PHASES:
        raise FluidcError(f"Print: print_phase must be 'forward', 'backward' or 'both', got "
                          f"{print_phase!r}")
    helper = LayerHelper("print")
    out = helper.create_variable_for_type_inference(input.dtype)
    helper.append_op("print", inputs={"In": [input]}, outputs={"Out": [out]},
                     attrs={"first_n": int(first_n), "summarize": int(summarize),
                            "message": message or "", "print_tensor_name": print_tensor_name,
                            "print_tensor_type": print_tensor_type,
                            "print_tensor_shape": print_tensor_shape,
                            "print_tensor_layout": print_tensor_layout,
                            "print_tensor_lod": print_tensor_lod,
                            "print_phase": str(print_phase).upper()})
    return out
