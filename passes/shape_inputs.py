"""Shape inputs: ops whose output shape comes from the values of small int inputs (reshape2's
Shape and ShapeTensor, OpDef.shape_inputs). fluidc plans have concrete shapes, so such values
are folded into the op's attributes before shape inference: fed values (the executor keys its
plans on them) and values a fill_constant of the program fixes (what Paddle writes for the plain
ints of a shape list)."""
from __future__ import annotations

import numpy as np

from ..frontend.dtypes import to_numpy_dtype
from ..frontend.errors import OpError
from ..frontend.ops import OpDesc, get_op_def
from ..frontend.ops.tensor import fill_value


def shape_input_names(ops: list[OpDesc]) -> list[str]:
    """The vars read by the shape inputs of `ops`, in order of first use."""
    names: dict[str, None] = {}
    for op in ops:
        for slot in get_op_def(op.type).shape_inputs:
            names.update(dict.fromkeys(op.inputs.get(slot, ())))
    return list(names)


def _constants(ops: list[OpDesc]) -> dict[str, np.ndarray]:
    """Vars written once, by a fill_constant reading no tensor: their values."""
    writers: dict[str, list[OpDesc]] = {}
    for op in ops:
        for n in op.output_arg_names:
            writers.setdefault(n, []).append(op)
    fills = {n: get_op_def("fill_constant").complete_attrs(w[0].attrs)
             for n, w in writers.items()
             if len(w) == 1 and w[0].type == "fill_constant" and not w[0].input_arg_names}
    return {n: np.full(a["shape"], fill_value(a), to_numpy_dtype(a["dtype"]))
            for n, a in fills.items()}


def fold_shape_inputs(ops: list[OpDesc], fed: dict[str, np.ndarray]) -> list[OpDesc]:
    """`ops` with every shape input folded into its op's attributes, from the fed values or
    the program's constants; an OpError names an op whose shape input has neither."""
    if not any(get_op_def(op.type).shape_inputs for op in ops):
        return ops
    known = {**_constants(ops), **fed}
    out = []
    for op in ops:
        opdef = get_op_def(op.type)
        given = [s for s in opdef.shape_inputs if op.inputs.get(s)]
        if not given:
            out.append(op)
            continue
        missing = [n for s in given for n in op.inputs[s] if n not in known]
        if missing:
            raise OpError(f"op '{op.type}': its shape input(s) {missing} must be fed or made "
                          f"by fill_constant; fluidc needs their values to plan the run")
        attrs = opdef.fold(dict(op.attrs), {s: [known[n] for n in op.inputs[s]] for s in given})
        inputs = {k: v for k, v in op.inputs.items() if k not in given}
        out.append(OpDesc(op.type, inputs, dict(op.outputs), attrs))
    return out
