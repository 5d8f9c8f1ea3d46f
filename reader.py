"""fluidc.reader (paddle.reader): reader decorators; readers are no-argument callables
returning iterables of samples."""
from .runtime.reader import (ComposeNotAligned, batch, buffered, cache, chain, compose,  # noqa: F401
                             firstn, map_readers, multiprocess_reader, shuffle, xmap_readers)

__all__ = ["ComposeNotAligned", "batch", "buffered", "cache", "chain", "compose", "firstn",
           "map_readers", "multiprocess_reader", "shuffle", "xmap_readers"]
