"""paddle.unique_consecutive: runs of equal consecutive elements collapsed to one (the
unique_consecutive op), with each element's run and each run's length on request."""
from __future__ import annotations

from ...dtypes import convert_dtype
from ...framework import Variable
from ..helper import LayerHelper, check_dtype, check_type, check_variable_and_dtype


def unique_consecutive(x: Variable, return_inverse: bool = False, return_counts: bool = False,
                       axis: int | None = None, dtype="int64", name: str | None = None):
    """Out, then (as asked) Index (the run of each element, or of each slice along axis) and
    Counts (each run's length), of int type `dtype`; a lone Out is returned unwrapped."""
    layer = "unique_consecutive"
    check_variable_and_dtype(x, "input", ("float32", "float64", "int32", "int64"), layer)
    check_type(return_inverse, "return_inverse", bool, layer)
    check_type(return_counts, "return_counts", bool, layer)
    check_dtype(dtype, "dtype", ("int32", "int64"), layer)
    if axis is not None:
        check_type(axis, "axis", int, layer)
    index_dtype = convert_dtype(dtype)
    helper = LayerHelper(layer, name=name)
    out = helper.create_variable_for_type_inference(x.dtype, stop_gradient=True)
    inverse = helper.create_variable_for_type_inference(index_dtype, stop_gradient=True)
    counts = helper.create_variable_for_type_inference(index_dtype, stop_gradient=True)
    helper.append_op(layer, inputs={"X": [x]},
                     outputs={"Out": [out], "Index": [inverse], "Counts": [counts]},
                     attrs={"dtype": int(index_dtype), "return_inverse": return_inverse,
                            "return_counts": return_counts,
                            "axis": [] if axis is None else [axis]})
    outs = [out] + [inverse] * return_inverse + [counts] * return_counts
    return outs[0] if len(outs) == 1 else tuple(outs)


__all__ = ["unique_consecutive"]
