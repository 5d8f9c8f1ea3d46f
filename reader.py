"""fluidc.reader (paddle.reader): reader decorators; readers are no-argument callables
returning iterables of samples. It is also fluid.reader (Paddle's base.reader, the DataLoader
module), whose public keep_data_loader_order it carries too."""
from .runtime.pyreader import DataLoaderBase, keep_data_loader_order  # noqa: F401
from .runtime.reader import (ComposeNotAligned, batch, buffered, cache, chain, compose,  # noqa: F401
                             firstn, map_readers, multiprocess_reader, shuffle, xmap_readers)

__all__ = ["ComposeNotAligned", "batch", "buffered", "cache", "chain", "compose", "firstn",
           "map_readers", "multiprocess_reader", "shuffle", "xmap_readers"]
