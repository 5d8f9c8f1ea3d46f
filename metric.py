"""paddle.metric: the 2.x metrics (update/accumulate/reset/name) and the static accuracy op."""
from .frontend.layers.nn import accuracy
from .runtime.metrics import BinaryPrecision as Precision
from .runtime.metrics import BinaryRecall as Recall
from .runtime.metrics import Metric
from .runtime.metrics import RocAuc as Auc
from .runtime.metrics import TopkAccuracy as Accuracy

__all__ = ["Metric", "Accuracy", "Precision", "Recall", "Auc", "accuracy"]
