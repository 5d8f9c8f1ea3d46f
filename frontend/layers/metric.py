"""Metric layers whose state lives in persistable vars: paddle.static.auc."""
from __future__ import annotations

from .. import unique_name
from ..dtypes import VarType
from ..framework import Variable
from ..ops.metric import stat_shape
from .helper import LayerHelper, check_type, check_variable_and_dtype
from .tensor import create_global_var


def auc(input: Variable, label: Variable, curve: str = "ROC", num_thresholds: int = 2 ** 12 - 1,
        topk: int = 1, slide_steps: int = 1, ins_tag_weight: Variable | None = None):
    """ROC AUC of input[:, -1] (the positive class's probability) against label (> 0 positive),
    as Paddle's static.auc: (auc over every batch run so far, auc over the last slide_steps
    batches, [batch_stat_pos, batch_stat_neg, stat_pos, stat_neg]), the stats persistable
    int64 counts made zero by the startup program."""
    check_variable_and_dtype(input, "input", ("float32", "float64"), "auc")
    check_variable_and_dtype(label, "label", ("int32", "int64"), "auc")
    check_type(num_thresholds, "num_thresholds", int, "auc")
    check_type(slide_steps, "slide_steps", int, "auc")
    if ins_tag_weight is not None:
        check_variable_and_dtype(ins_tag_weight, "ins_tag_weight", ("float32", "float64"), "auc")
    helper = LayerHelper("auc")

    def stats(shape) -> Variable:
        return create_global_var(shape, 0, VarType.INT64, persistable=True,
                                 name=unique_name.generate_with_ignorable_key(
                                     f"{helper.name}.tmp"))

    # Paddle declares the batch stats [(1 + slide_steps) * buckets + 1] and its op makes them
    # stat_shape's [1, buckets] at the first run when slide_steps is 0; fluidc's persistables
    # keep their shape, so they are declared as the op leaves them (the same for slide_steps > 0).
    batch_pos, batch_neg = (stats(list(stat_shape(num_thresholds, slide_steps)))
                            for _ in range(2))
    stat_pos, stat_neg = (stats(list(stat_shape(num_thresholds, 0))) for _ in range(2))
    results = []
    for pos, neg, steps in ((batch_pos, batch_neg, slide_steps), (stat_pos, stat_neg, 0)):
        out = helper.create_variable_for_type_inference(VarType.FP64, stop_gradient=True)
        inputs = {"Predict": [input], "Label": [label], "StatPos": [pos], "StatNeg": [neg]}
        if ins_tag_weight is not None:
            inputs["InsTagWeight"] = [ins_tag_weight]
        helper.append_op("auc", inputs=inputs,
                         outputs={"AUC": [out], "StatPosOut": [pos], "StatNegOut": [neg]},
                         attrs={"curve": curve, "num_thresholds": num_thresholds,
                                "slide_steps": steps})
        results.append(out)
    batch_auc, global_auc = results
    return global_auc, batch_auc, [batch_pos, batch_neg, stat_pos, stat_neg]
