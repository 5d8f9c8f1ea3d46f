"""fluid.metrics: host-side metrics over fetched numpy batches (update/eval)."""
from .runtime.metrics import (Accuracy, Auc, ChunkEvaluator, CompositeMetric, EditDistance,
                              MetricBase, Precision, Recall)

__all__ = ["MetricBase", "CompositeMetric", "Precision", "Recall", "Accuracy", "ChunkEvaluator",
           "EditDistance", "Auc"]
