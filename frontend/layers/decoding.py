"""The layers of Paddle 1.x's beam-search decoder: beam_search, beam_search_decode, and the
lod_reset / is_empty it uses (ops in frontend/ops/beam_search.py, lod_reset.py)."""
from __future__ import annotations

from ..dtypes import VarType
from ..framework import Variable
from .helper import LayerHelper, check_type, check_variable_and_dtype


def beam_search(pre_ids, pre_scores, ids, scores, beam_size: int, end_id: int, level: int = 0,
                is_accumulated: bool = True, name=None, return_parent_idx: bool = False):
    """One step of beam search: the beam_size best (prefix, id, score) of each source.
    Returns (selected_ids, selected_scores[, parent_idx])."""
    layer = "beam_search"
    check_variable_and_dtype(pre_ids, "pre_ids", ("int64",), layer)
    check_variable_and_dtype(pre_scores, "pre_scores", ("float32", "float64"), layer)
    check_variable_and_dtype(scores, "scores", ("float32", "float64"), layer)
    if ids is not None:
        check_variable_and_dtype(ids, "ids", ("int64",), layer)
    for arg, value in (("beam_size", beam_size), ("end_id", end_id), ("level", level)):
        check_type(value, arg, int, layer)
    check_type(is_accumulated, "is_accumulated", bool, layer)
    helper = LayerHelper(layer, name=name)
    selected_ids = helper.create_variable_for_type_inference(VarType.INT64, stop_gradient=True)
    selected_scores = helper.create_variable_for_type_inference(scores.dtype,
                                                                stop_gradient=True)
    parent_idx = helper.create_variable_for_type_inference(VarType.INT32, stop_gradient=True)
    inputs = {"pre_ids": [pre_ids], "pre_scores": [pre_scores], "scores": [scores]}
    if ids is not None:
        inputs["ids"] = [ids]
    helper.append_op(layer, inputs, {"selected_ids": [selected_ids],
                                     "selected_scores": [selected_scores],
                                     "parent_idx": [parent_idx]},
                     {"level": level, "beam_size": beam_size, "end_id": end_id,
                      "is_accumulated": is_accumulated})
    if return_parent_idx:
        return selected_ids, selected_scores, parent_idx
    return selected_ids, selected_scores


def beam_search_decode(ids, scores, beam_size: int, end_id: int, name=None):
    """The hypotheses of every source traced back through the arrays of beam_search steps:
    (sentence_ids, sentence_scores), LoD [hypotheses per source, words per hypothesis]."""
    layer = "beam_search_decode"
    for arg, value in (("ids", ids), ("scores", scores)):
        check_type(value, arg, Variable, layer)
        if value.type != VarType.LOD_TENSOR_ARRAY:
            raise TypeError(f"{layer}: '{arg}' must be a tensor array (create_array), "
                            f"got '{value.name}' of type {value.type.name}")
    check_type(beam_size, "beam_size", int, layer)
    check_type(end_id, "end_id", int, layer)
    helper = LayerHelper(layer, name=name)
    sentence_ids = helper.create_variable_for_type_inference(VarType.INT64, stop_gradient=True)
    sentence_scores = helper.create_variable_for_type_inference(scores.dtype,
                                                                stop_gradient=True)
    helper.append_op(layer, {"Ids": [ids], "Scores": [scores]},
                     {"SentenceIds": [sentence_ids], "SentenceScores": [sentence_scores]},
                     {"beam_size": beam_size, "end_id": end_id})
    return sentence_ids, sentence_scores


def lod_reset(x, y=None, target_lod=None):
    """x with y's LoD (or y's values as one LoD level), or with target_lod."""
    check_variable_and_dtype(x, "x", ("bool", "float32", "float64", "int32", "int64"),
                             "lod_reset")
    helper = LayerHelper("lod_reset")
    out = helper.create_variable_for_type_inference(x.dtype)
    if y is not None:
        check_type(y, "y", Variable, "lod_reset")
        helper.append_op("lod_reset", {"X": [x], "Y": [y]}, {"Out": [out]})
    elif target_lod is not None:
        check_type(target_lod, "target_lod", (list, tuple), "lod_reset")
        helper.append_op("lod_reset", {"X": [x]}, {"Out": [out]},
                         {"target_lod": [int(o) for o in target_lod]})
    else:
        raise ValueError("lod_reset: y and target_lod should not be both none.")
    return out


def is_empty(x, cond=None):
    """A bool [1] var: whether x has no elements (written into cond where given)."""
    check_variable_and_dtype(x, "x", ("bool", "float32", "float64", "int32", "int64"),
                             "is_empty")
    helper = LayerHelper("is_empty")
    if cond is None:
        cond = helper.create_variable_for_type_inference(VarType.BOOL, stop_gradient=True)
    else:
        check_type(cond, "cond", Variable, "is_empty")
    helper.append_op("is_empty", {"X": [x]}, {"Out": [cond]})
    return cond
