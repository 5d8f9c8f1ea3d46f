"""Metrics over tag and token sequences (LoD, or padded with lengths): fluid.layers.chunk_eval
and edit_distance (also paddle.nn.functional.loss.edit_distance)."""
from __future__ import annotations

from ..dtypes import VarType
from ..framework import Variable
from .helper import LayerHelper, check_variable_and_dtype


def chunk_eval(input: Variable, label: Variable, chunk_scheme: str, num_chunk_types: int,
               excluded_chunk_types=None, seq_length: Variable | None = None):
    """(precision, recall, f1_score, num_infer_chunks, num_label_chunks, num_correct_chunks) of
    the chunks tagged in input against label (int64 tags, LoD sequences or padded rows with
    seq_length), as Paddle's chunk_eval op counts them."""
    helper = LayerHelper("chunk_eval")
    check_variable_and_dtype(input, "input", ["int64"], "chunk_eval")
    check_variable_and_dtype(label, "label", ["int64"], "chunk_eval")
    metrics = [helper.create_variable_for_type_inference(VarType.FP32, stop_gradient=True)
               for _ in range(3)]
    counts = [helper.create_variable_for_type_inference(VarType.INT64, stop_gradient=True)
              for _ in range(3)]
    inputs = {"Inference": [input], "Label": [label]}
    if seq_length is not None:
        inputs["SeqLength"] = [seq_length]
    names = ("Precision", "Recall", "F1-Score", "NumInferChunks", "NumLabelChunks",
             "NumCorrectChunks")
    helper.append_op("chunk_eval", inputs=inputs,
                     outputs={n: [v] for n, v in zip(names, metrics + counts)},
                     attrs={"num_chunk_types": num_chunk_types, "chunk_scheme": chunk_scheme,
                            "excluded_chunk_types": list(excluded_chunk_types or [])})
    return (*metrics, *counts)


def edit_distance(input: Variable, label: Variable, normalized: bool = True,
                  ignored_tokens=None, input_length: Variable | None = None,
                  label_length: Variable | None = None):
    """(distance [num_seq, 1] float32, sequence_num [1] int64): the Levenshtein distance of
    each input sequence to its label (divided by the label's length if normalized), LoD
    sequences or padded rows with input_length / label_length. ignored_tokens is refused, as
    Paddle 3.3.1 refuses it."""
    if ignored_tokens is not None and len(ignored_tokens) > 0:
        raise ValueError(f"Expected ignored_tokens is None (got {ignored_tokens})")
    helper = LayerHelper("edit_distance")
    check_variable_and_dtype(input, "input", ["int64"], "edit_distance")
    check_variable_and_dtype(label, "label", ["int64"], "edit_distance")
    inputs = {"Hyps": [input], "Refs": [label]}
    if input_length is not None and label_length is not None:
        inputs.update(HypsLength=[input_length], RefsLength=[label_length])
    out = helper.create_variable_for_type_inference(VarType.FP32, stop_gradient=True)
    seq_num = helper.create_variable_for_type_inference(VarType.INT64, stop_gradient=True)
    helper.append_op("edit_distance", inputs=inputs,
                     outputs={"Out": [out], "SequenceNum": [seq_num]},
                     attrs={"normalized": bool(normalized)})
    return out, seq_num
