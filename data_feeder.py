"""fluid.data_feeder: DataFeeder (re-export)."""
from .runtime.feeder import DataFeeder

__all__ = ["DataFeeder"]
