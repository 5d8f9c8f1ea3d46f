"""fluid.io / paddle.io: the save and load API, readers, datasets and samplers (re-exports;
the code lives in runtime/)."""
from .runtime.io import (is_belong_to_optimizer, is_parameter, is_persistable, load_inference_model,
                         load_params, load_persistables, load_vars, save_inference_model,
                         save_params, save_persistables, save_vars)
from .runtime.program_desc import parse_program, serialize_program
from .runtime.pyreader import DataLoader, Dataset, IterableDataset, PyReader, TensorDataset
from .runtime.sampler import (BatchSampler, RandomSampler, Sampler, SequenceSampler,
                              SubsetRandomSampler, WeightedRandomSampler)
from .runtime.reader import (batch, buffered, cache, chain, compose, firstn, map_readers,
                             multiprocess_reader, shuffle, xmap_readers)

__all__ = ["save_vars", "save_params", "save_persistables", "load_vars", "load_params",
           "load_persistables", "save_inference_model", "load_inference_model", "is_parameter",
           "is_persistable", "is_belong_to_optimizer", "parse_program", "serialize_program",
           "DataLoader", "Dataset", "IterableDataset", "PyReader", "TensorDataset",
           "batch", "buffered", "cache", "chain", "compose", "firstn", "map_readers",
           "multiprocess_reader", "shuffle", "xmap_readers", "BatchSampler", "RandomSampler",
           "Sampler", "SequenceSampler", "SubsetRandomSampler", "WeightedRandomSampler"]
