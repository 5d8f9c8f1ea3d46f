"""Asynchronous feeding: PyReader / DataLoader.from_generator (a background thread fills a
bounded queue of batches) and the 2.x Dataset / DataLoader (optionally with worker processes).

Double buffering: with use_double_buffer the producer thread also converts each batch into
its feed arrays (stacking, casting, LoD), so the training loop only copies ready buffers; the
queue holds `capacity` such batches. Every thread or process a reader starts ends when its
epoch ends, when the loop over it is left (the generator is closed), or at reset().
"""
from __future__ import annotations

import multiprocessing
import queue
import random
import traceback
from typing import Any, Callable, Iterable, Iterator

import numpy as np

from ..frontend import framework
from ..frontend.errors import FeedError, FluidcError
from ..frontend.framework import Variable, default_main_program
from .feeder import DataFeeder
from .load_result import _convert
from .reader import BackgroundFeed, batch as batch_reader
from .tensor import LoDTensor, to_torch


class EOFException(FluidcError):
    """A non-iterable reader has no more batches this epoch: reset() it, then start() again."""


def _tensor(value, lod=None) -> LoDTensor:
    """A batch value as the DenseTensor (LoDTensor) Paddle's static readers yield: arrays are
    wrapped without a copy."""
    if isinstance(value, LoDTensor):
        return value
    return LoDTensor(to_torch(np.asarray(value)), lod)


def _listed(value):
    """A value for return_list=True batches: the array itself, a LoDTensor where there is LoD."""
    return value if not isinstance(value, LoDTensor) or value.lod() else value.numpy()


def _wrap(raw: dict[str, tuple]) -> dict:
    """(data, offsets) pairs -> feed values, LoDTensors with their LoD."""
    return {n: _tensor(d, lod) for n, (d, lod) in raw.items()}


class DataLoaderBase:
    """Paddle's base.reader.DataLoaderBase: what a loader is (called, it gives its batches;
    iterating it is each loader's own)."""

    def __call__(self):
        return self

    def __iter__(self):
        raise NotImplementedError

    def __next__(self):
        raise NotImplementedError


class GeneratorLoader(DataLoaderBase):
    """fluid.io.PyReader and fluid.io.DataLoader.from_generator: batches from a Python
    generator, read ahead on a thread, in iterable or non-iterable (start/reset) mode."""

    def __init__(self, feed_list: list | None = None, capacity: int | None = None,
                 use_double_buffer: bool = True, iterable: bool = True,
                 return_list: bool = False, use_multiprocess: bool = False,
                 drop_last: bool = True) -> None:
        if not feed_list and not (iterable and return_list):
            raise FluidcError("PyReader/DataLoader needs feed_list: the data vars it feeds")
        self.feed_list = list(feed_list or [])
        self.feed_names = [v.name if isinstance(v, Variable) else str(v) for v in self.feed_list]
        self.capacity = int(capacity) if capacity else 64
        self.use_double_buffer, self.iterable, self.return_list = (
            use_double_buffer, iterable, return_list)
        self._source: Callable[[], Iterable] | None = None
        self._convert: Callable[[Any], dict] = lambda item: item
        self._feed: BackgroundFeed | None = None  # non-iterable mode's running epoch
        self._live: set[BackgroundFeed] = set()  # iterable mode's running epochs
        if not iterable:
            program = (self.feed_list[0].block.program if isinstance(self.feed_list[0], Variable)
                       else default_main_program())
            program.__dict__.setdefault("_py_readers", []).append(self)

    # -- sources ----------------------------------------------------------------------------
    def decorate_sample_generator(self, sample_generator, batch_size: int,
                                  drop_last: bool = True, places=None) -> None:
        """Samples (tuples, one field per feed var) batched by batch_size."""
        self.decorate_sample_list_generator(
            batch_reader(sample_generator, batch_size, drop_last), places)

    def decorate_sample_list_generator(self, reader, places=None) -> None:
        """Batches given as lists of samples, converted as DataFeeder does (LoD included)."""
        feeder = DataFeeder(self.feed_list, places)
        self._set(reader, lambda samples: _wrap(feeder.convert(samples)))

    def decorate_batch_generator(self, reader, places=None) -> None:
        """Batches given as one array (or LoDTensor) per feed var."""
        names = self.feed_names

        def convert(batch) -> dict:
            if isinstance(batch, dict):
                return batch
            values = list(batch)
            if len(values) != len(names):
                raise FeedError(f"a batch has {len(values)} arrays, but the reader feeds "
                                f"{len(names)} vars {names}")
            return {n: _tensor(v) for n, v in zip(names, values)}
        self._set(reader, convert)

    set_sample_generator = decorate_sample_generator
    set_sample_list_generator = decorate_sample_list_generator
    set_batch_generator = decorate_batch_generator
    decorate_tensor_provider = decorate_batch_generator
    decorate_paddle_reader = decorate_sample_list_generator

    def _set(self, reader, convert) -> None:
        if not callable(reader):
            raise TypeError(f"a reader is a no-argument callable returning batches, got "
                            f"{type(reader).__name__} (pass the function, not its result)")
        self._source, self._convert = reader, convert

    def _start_feed(self) -> BackgroundFeed:
        if self._source is None:
            raise FluidcError("the reader has no data source: call decorate_sample_generator, "
                              "decorate_sample_list_generator or decorate_batch_generator first")
        return BackgroundFeed(self._source, self.capacity,
                              self._convert if self.use_double_buffer else None)

    def _ready(self, item) -> dict:
        return item if self.use_double_buffer else self._convert(item)

    # -- iterable mode ----------------------------------------------------------------------
    def __call__(self) -> Iterator:
        """One epoch of batches: [feed dict] (or a list of arrays with return_list)."""
        if not self.iterable:
            raise FluidcError("this reader is not iterable (iterable=False): call start(), run "
                              "until fluid.core.EOFException, then reset()")
        return self._epoch()

    __iter__ = __call__

    def _epoch(self) -> Iterator:
        feed = self._start_feed()
        self._live.add(feed)
        try:
            while True:
                try:
                    item = self._ready(feed.get())
                except StopIteration:
                    return
                yield [_listed(item[n]) for n in self.feed_names] if self.return_list \
                    else [item]
        finally:
            feed.stop()
            self._live.discard(feed)

    # -- non-iterable mode ------------------------------------------------------------------
    def start(self) -> None:
        """Begin an epoch: the thread starts filling the queue."""
        if self.iterable:
            raise FluidcError("start() is for non-iterable readers; iterate this one instead")
        if self._feed is not None:
            raise FluidcError("the reader is already started: reset() it after EOFException")
        self._feed = self._start_feed()

    def reset(self) -> None:
        """End the epoch (mid-epoch too): stop and join the thread, drop queued batches."""
        feed, self._feed = self._feed, None
        for f in [feed, *self._live]:
            if f is not None:
                f.stop()
        self._live.clear()

    def next_feed(self) -> dict:
        """The next batch's feed dict (the executor calls this); EOFException at the end."""
        if self._feed is None:
            raise FluidcError(f"the reader of {self.feed_names} is not started: call "
                              f"reader.start() before exe.run")
        try:
            return self._ready(self._feed.get())
        except StopIteration:
            raise EOFException("the reader has no more batches: call reader.reset(), then "
                               "reader.start() for the next epoch") from None

    def __del__(self) -> None:
        try:
            self.reset()
        except Exception:  # noqa: BLE001 - interpreter shutdown
            pass


PyReader = GeneratorLoader


class Dataset:
    """2.x map-style dataset: __getitem__(i) returns one sample (a tuple of fields)."""

    def __getitem__(self, idx):
        raise NotImplementedError(f"{type(self).__name__} must implement __getitem__")

    def __len__(self) -> int:
        raise NotImplementedError(f"{type(self).__name__} must implement __len__")


class IterableDataset(Dataset):
    """2.x iterable dataset: __iter__ yields samples."""

    def __iter__(self):
        raise NotImplementedError(f"{type(self).__name__} must implement __iter__")


class TensorDataset(Dataset):
    """Samples i of each array, side by side."""

    def __init__(self, tensors: list) -> None:
        self.tensors = [np.asarray(t) for t in tensors]
        if len({len(t) for t in self.tensors}) > 1:
            raise FluidcError("TensorDataset: the arrays differ in length")

    def __getitem__(self, idx):
        return tuple(t[idx] for t in self.tensors)

    def __len__(self) -> int:
        return len(self.tensors[0])


def default_collate(samples: list) -> list[np.ndarray]:
    """Field k of every sample stacked into one array."""
    return [np.stack([np.asarray(s[k]) for s in samples]) for k in range(len(samples[0]))]


# Paddle's fluid.reader.keep_data_loader_order: whether a loader feeding several places must
# hand them batches in the generator's order. fluidc's loaders always do, which is one of the
# orders the unordered mode allows, so the setting is kept for callers to read back only.
_keep_order = [True]


def keep_data_loader_order(*args):
    """The setting with no argument; with one bool, sets it."""
    if not args:
        return _keep_order[0]
    if len(args) != 1 or not isinstance(args[0], bool):
        raise AssertionError(f"keep_data_loader_order takes nothing or one bool, got {args!r}")
    _keep_order[0] = args[0]


def _per_place(epoch: Iterator, count: int) -> Iterator:
    """Paddle's multi-place steps: each gives `count` consecutive batches, one per place (a list
    of feed dicts, or with return_list a list per place of the fields); a last step the batches
    cannot fill is dropped, as Paddle drops it."""
    group = []
    for batch in epoch:
        group += batch if isinstance(batch, list) and batch and isinstance(batch[0], dict) \
            else [batch]
        if len(group) == count:
            yield group
            group = []


class DataLoader:
    """2.x paddle.io.DataLoader for static programs: batches of a Dataset, read ahead by a thread
    (num_workers=0) or computed by worker processes (num_workers > 0)."""

    def __init__(self, dataset: Dataset, feed_list: list | None = None, places=None,
                 return_list: bool = False, batch_sampler=None, batch_size: int = 1,
                 shuffle: bool = False, drop_last: bool = False, collate_fn=None,
                 num_workers: int = 0, use_buffer_reader: bool = True, prefetch_factor: int = 2,
                 use_shared_memory: bool = True, timeout: float = 0, worker_init_fn=None,
                 persistent_workers: bool = False) -> None:
        if batch_size is not None and (not isinstance(batch_size, int) or batch_size < 1):
            raise FluidcError(f"DataLoader: batch_size must be a positive int, got {batch_size!r}")
        self.dataset, self.batch_sampler = dataset, batch_sampler
        self.batch_size, self.shuffle, self.drop_last = batch_size, shuffle, drop_last
        self.num_workers, self.prefetch = int(num_workers), max(1, int(prefetch_factor))
        self.return_list, self.worker_init_fn = return_list, worker_init_fn
        # dygraph (no feed_list): batches come as lists of eager tensors, as Paddle's
        self._eager = framework.eager_tensor if framework.in_dygraph_mode() and \
            not feed_list else None
        self._place_count = len(places) if isinstance(places, (list, tuple)) and places else 1
        self.timeout = timeout or None
        self.use_buffer_reader = use_buffer_reader
        self.feed_names = [v.name if isinstance(v, Variable) else str(v)
                           for v in (feed_list or [])]
        feeder = DataFeeder(feed_list) if feed_list else None
        if batch_size is None and batch_sampler is None:
            # no auto-batching: each dataset item is a batch already (one index per "batch")
            convert = collate_fn or (lambda sample: sample)
            self._collate = lambda samples: ("user", convert(samples[0]))
        elif collate_fn is not None:
            self._collate = lambda samples: ("user", collate_fn(samples))
        elif feeder is not None:
            self._collate = lambda samples: ("raw", feeder.convert(samples))
        else:
            self._collate = lambda samples: ("user", default_collate(samples))
        self._live: set = set()

    from_generator = staticmethod(GeneratorLoader)

    def _index_batches(self) -> list[list[int]]:
        if self.batch_sampler is not None:
            return [list(b) for b in self.batch_sampler]
        order = list(range(len(self.dataset)))
        if self.shuffle:
            random.shuffle(order)
        if self.batch_size is None:
            return [[i] for i in order]
        n = self.batch_size
        batches = [order[i:i + n] for i in range(0, len(order), n)]
        if self.drop_last and batches and len(batches[-1]) < n:
            batches.pop()
        return batches

    def __len__(self) -> int:
        """Batches an epoch yields, counted without drawing an order (no shuffle, no use of
        Python's random state)."""
        if self.batch_sampler is not None:
            return len(self.batch_sampler)
        count = len(self.dataset)
        if self.batch_size is None:
            return count
        whole, rest = divmod(count, self.batch_size)
        return whole + (1 if rest and not self.drop_last else 0)

    def _present(self, made):
        """[feed dict] for exe.run(feed=...), or the list of arrays with return_list."""
        kind, value = made
        if kind == "raw":
            value = _wrap(value)
        elif not isinstance(value, dict) and self.feed_names and not self.return_list:
            value = {n: _tensor(v) if isinstance(v, np.ndarray) else v
                     for n, v in zip(self.feed_names, value)}
        if self._eager is not None:
            return _convert(value, lambda a: isinstance(a, np.ndarray), self._eager)
        if self.return_list:
            return [_listed(value[n]) for n in self.feed_names] if isinstance(value, dict) \
                else value
        return [value] if isinstance(value, dict) else value

    def _batches(self) -> Iterator:
        """The made batches in order, computed on this thread (the buffer's producer)."""
        if isinstance(self.dataset, IterableDataset):
            batches = ([sample] for sample in self.dataset) if self.batch_size is None else \
                batch_reader(lambda: iter(self.dataset), self.batch_size, self.drop_last)()
            yield from (self._collate(b) for b in batches)
            return
        for idx in self._index_batches():
            yield self._collate([self.dataset[i] for i in idx])

    def __iter__(self) -> Iterator:
        if self.num_workers > 0 and not isinstance(self.dataset, IterableDataset):
            epoch = self._worker_epoch()
        else:
            epoch = self._thread_epoch()
        return epoch if self._place_count == 1 else _per_place(epoch, self._place_count)

    __call__ = __iter__

    def _thread_epoch(self) -> Iterator:
        if not self.use_buffer_reader:
            for made in self._batches():
                yield self._present(made)
            return
        feed = BackgroundFeed(self._batches, max(2, self.prefetch), name="fluidc-dataloader")
        self._live.add(feed)
        try:
            while True:
                try:
                    made = feed.get()
                except StopIteration:
                    return
                yield self._present(made)
        finally:
            feed.stop()
            self._live.discard(feed)

    def _worker_epoch(self) -> Iterator:
        pool = _WorkerPool(self.dataset, self._collate, self.num_workers, self.worker_init_fn)
        self._live.add(pool)
        try:
            for made in pool.run(self._index_batches(), self.prefetch, self.timeout):
                yield self._present(made)
        finally:
            pool.shutdown()
            self._live.discard(pool)

    def reset(self) -> None:
        """Stop any epoch in flight (threads and worker processes end)."""
        for live in list(self._live):
            live.stop() if isinstance(live, BackgroundFeed) else live.shutdown()
        self._live.clear()


class _RemoteTraceback(Exception):
    """The traceback of an exception raised in a DataLoader worker process."""

    def __str__(self) -> str:
        return "\n" + self.args[0]


def _worker_loop(dataset, collate, tasks, results, worker_id: int, init_fn) -> None:
    """A worker process: make the batches whose indices arrive on `tasks`."""
    results.cancel_join_thread()  # exiting never waits on a pipe nobody reads any more
    try:
        if init_fn is not None:
            init_fn(worker_id)
    except Exception as e:  # noqa: BLE001
        results.put((-1, None, _picklable(e), traceback.format_exc()))
        return
    while True:
        task = tasks.get()
        if task is None:
            return
        n, idx = task
        try:
            results.put((n, collate([dataset[i] for i in idx]), None, None))
        except Exception as e:  # noqa: BLE001 - sent to the main process, never lost
            results.put((n, None, _picklable(e), traceback.format_exc()))


def _picklable(e: BaseException) -> BaseException:
    import pickle
    try:
        pickle.dumps(e)
        return e
    except Exception:  # noqa: BLE001
        return FluidcError(f"{type(e).__name__}: {e}")


class _WorkerPool:
    """num_workers processes making batches by index; results reordered in the main process."""

    def __init__(self, dataset, collate, num_workers: int, init_fn) -> None:
        methods = multiprocessing.get_all_start_methods()
        ctx = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
        self.tasks = [ctx.Queue() for _ in range(num_workers)]
        self.results = ctx.Queue()
        self.procs = [ctx.Process(target=_worker_loop, daemon=True, name=f"fluidc-worker-{i}",
                                  args=(dataset, collate, self.tasks[i], self.results, i, init_fn))
                      for i in range(num_workers)]
        for p in self.procs:
            p.start()
        self.closed = False

    def run(self, batches: list, prefetch: int, timeout: float | None) -> Iterator:
        sent, done, pending = 0, 0, {}
        ahead = prefetch * len(self.procs)
        while done < len(batches):
            while sent < len(batches) and sent - done < ahead:
                self.tasks[sent % len(self.procs)].put((sent, batches[sent]))
                sent += 1
            while done not in pending:
                n, made, err, tb = self._get(timeout)
                if err is not None:
                    raise err from _RemoteTraceback(tb)
                pending[n] = made
            yield pending.pop(done)
            done += 1

    def _get(self, timeout: float | None):
        waited = 0.0
        while True:
            try:
                return self.results.get(timeout=0.5)
            except queue.Empty:
                waited += 0.5
                dead = [p.name for p in self.procs if not p.is_alive()]
                if dead:
                    raise FluidcError(f"DataLoader worker(s) {dead} exited unexpectedly") from None
                if timeout is not None and waited >= timeout:
                    raise FluidcError(f"DataLoader: no batch from the workers in {timeout} s") \
                        from None

    def shutdown(self) -> None:
        """Stop the workers and join them (terminating any that do not stop)."""
        if self.closed:
            return
        self.closed = True
        for q in self.tasks:
            try:
                q.put(None)
            except Exception:  # noqa: BLE001
                pass
        for p in self.procs:
            p.join(2.0)
            if p.is_alive():
                p.terminate()
                p.join(2.0)
        for q in [*self.tasks, self.results]:
            q.cancel_join_thread()
            q.close()
