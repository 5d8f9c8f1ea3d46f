"""Reader decorators. A reader is a no-argument callable returning an iterable of samples;
each decorator takes readers and returns a new one, so they compose.

Readers that run ahead on a thread (buffered, xmap_readers, and the PyReader built on
BackgroundFeed) stop it when the consumer stops early: breaking out of the loop closes the
generator, which signals the thread and joins it. An exception raised by the wrapped reader
is re-raised to the consumer at its next read, with the original traceback.
"""
from __future__ import annotations

import itertools
import queue
import random
import threading
import time
from typing import Any, Callable, Iterable, Iterator

from ..frontend.errors import FluidcError

Reader = Callable[[], Iterable[Any]]


class ComposeNotAligned(FluidcError, ValueError):
    """compose(check_alignment=True) found readers of different lengths."""


class _Failed:
    """An exception raised on a producer thread, carried to the consumer."""

    def __init__(self, error: BaseException) -> None:
        self.error = error


_END = object()


class BackgroundFeed:
    """A daemon thread iterating `source()` (through `convert`) into a queue of `capacity`.

    get() returns the next item, raises StopIteration at the end, or re-raises the producer's
    exception; stop() ends the thread early and joins it.
    """

    def __init__(self, source: Reader, capacity: int, convert: Callable | None = None,
                 name: str = "fluidc-reader") -> None:
        if capacity < 1:
            raise FluidcError(f"a reader's buffer capacity must be at least 1, got {capacity}")
        self._queue: queue.Queue = queue.Queue(maxsize=capacity)
        self._stop = threading.Event()
        self._source, self._convert = source, convert
        self._thread = threading.Thread(target=self._produce, name=name, daemon=True)
        self._done = False
        self._thread.start()

    def _put(self, item) -> bool:
        """Blocking put that gives up when stop() is called."""
        while not self._stop.is_set():
            try:
                self._queue.put(item, timeout=0.05)
                return True
            except queue.Full:
                continue
        return False

    def _produce(self) -> None:
        it = None
        try:
            it = iter(self._source())
            for item in it:
                if self._stop.is_set() or not self._put(
                        self._convert(item) if self._convert else item):
                    return
            self._put(_END)
        except BaseException as e:  # noqa: BLE001 - handed to the consumer, never lost
            self._put(_Failed(e))
        finally:
            close = getattr(it, "close", None)
            if close is not None:
                try:
                    close()  # the user's generator runs its finally blocks on this thread
                except Exception:  # noqa: BLE001
                    pass

    def get(self):
        """The next item; StopIteration at the end; the producer's exception, re-raised."""
        if self._done:
            raise StopIteration
        item = self._queue.get()
        if item is _END:
            self._done = True
            self._thread.join()
            raise StopIteration
        if isinstance(item, _Failed):
            self._done = True
            self._thread.join()
            raise item.error  # keeps the frames of the source where it was raised
        return item

    def __iter__(self) -> Iterator:
        try:
            while True:
                try:
                    yield self.get()
                except StopIteration:
                    return
        finally:
            self.stop()

    def stop(self, timeout: float = 30.0) -> None:
        """End the thread (once the source yields its current item) and join it."""
        self._stop.set()
        self._done = True
        deadline = time.monotonic() + timeout
        while self._thread.is_alive() and time.monotonic() < deadline:
            _drain(self._queue)
            self._thread.join(0.01)
        _drain(self._queue)

    @property
    def alive(self) -> bool:
        return self._thread.is_alive()


def _check_reader(reader, who: str) -> None:
    if not callable(reader):
        raise TypeError(f"{who} takes readers: no-argument callables returning iterables, got "
                        f"{type(reader).__name__} (pass the function, not its result)")


def batch(reader: Reader, batch_size: int, drop_last: bool = False) -> Reader:
    """Samples grouped into lists of batch_size (the last one shorter unless drop_last)."""
    _check_reader(reader, "batch")
    if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
        raise FluidcError(f"batch_size must be a positive int, got {batch_size!r}")

    def batch_reader():
        b = []
        for sample in reader():
            b.append(sample)
            if len(b) == batch_size:
                yield b
                b = []
        if b and not drop_last:
            yield b
    return batch_reader


def shuffle(reader: Reader, buf_size: int) -> Reader:
    """Samples shuffled within windows of buf_size."""
    _check_reader(reader, "shuffle")

    def shuffle_reader():
        buf = []
        for sample in reader():
            buf.append(sample)
            if len(buf) >= buf_size:
                random.shuffle(buf)
                yield from buf
                buf = []
        random.shuffle(buf)
        yield from buf
    return shuffle_reader


def buffered(reader: Reader, size: int) -> Reader:
    """The same samples, read ahead by a thread into a buffer of `size`."""
    _check_reader(reader, "buffered")
    return lambda: iter(BackgroundFeed(reader, size, name="fluidc-buffered"))


def chain(*readers: Reader) -> Reader:
    """The samples of each reader in turn."""
    for r in readers:
        _check_reader(r, "chain")
    return lambda: itertools.chain.from_iterable(r() for r in readers)


def compose(*readers: Reader, check_alignment: bool = True) -> Reader:
    """Samples of all readers side by side, flattened into one tuple per step."""
    for r in readers:
        _check_reader(r, "compose")

    def flat(x) -> tuple:
        return tuple(x) if isinstance(x, tuple) else (x,)

    def compose_reader():
        its = [iter(r()) for r in readers]
        if not check_alignment:
            for items in zip(*its):
                yield sum((flat(x) for x in items), ())
            return
        for items in itertools.zip_longest(*its, fillvalue=_END):
            if any(x is _END for x in items):
                raise ComposeNotAligned("compose: the readers yield different numbers of "
                                        "samples (pass check_alignment=False to stop at the "
                                        "shortest)")
            yield sum((flat(x) for x in items), ())
    return compose_reader


def map_readers(func: Callable, *readers: Reader) -> Reader:
    """func applied to the samples of the readers, step by step."""
    for r in readers:
        _check_reader(r, "map_readers")
    return lambda: map(func, *[r() for r in readers])


def firstn(reader: Reader, n: int) -> Reader:
    """The first n samples."""
    _check_reader(reader, "firstn")
    return lambda: itertools.islice(reader(), n)


def cache(reader: Reader) -> Reader:
    """All samples read once into memory, then served from there on every pass."""
    _check_reader(reader, "cache")
    data: list = []
    filled = False

    def cache_reader():
        nonlocal filled
        if not filled:
            data[:] = list(reader())
            filled = True
        return iter(data)
    return cache_reader


def xmap_readers(mapper: Callable, reader: Reader, process_num: int, buffer_size: int,
                 order: bool = False) -> Reader:
    """mapper applied to the samples by process_num threads; order keeps the input order."""
    _check_reader(reader, "xmap_readers")

    def xreader():
        # Threads map (index, sample) pairs; the consumer restores order when asked.
        stop = threading.Event()
        inq: queue.Queue = queue.Queue(buffer_size)
        outq: queue.Queue = queue.Queue(buffer_size)

        def put(q, item) -> bool:
            while not stop.is_set():
                try:
                    q.put(item, timeout=0.05)
                    return True
                except queue.Full:
                    continue
            return False

        def feed():
            try:
                for i, sample in enumerate(reader()):
                    if not put(inq, (i, sample)):
                        return
            except BaseException as e:  # noqa: BLE001
                put(outq, (-1, _Failed(e)))
            for _ in range(process_num):
                put(inq, _END)

        def work():
            while not stop.is_set():
                try:
                    item = inq.get(timeout=0.05)
                except queue.Empty:
                    continue
                if item is _END:
                    put(outq, (-1, _END))
                    return
                i, sample = item
                try:
                    put(outq, (i, mapper(sample)))
                except BaseException as e:  # noqa: BLE001
                    put(outq, (i, _Failed(e)))
                    return

        threads = [threading.Thread(target=feed, daemon=True)] + [
            threading.Thread(target=work, daemon=True) for _ in range(process_num)]
        for t in threads:
            t.start()
        try:
            finished, pending, want = 0, {}, 0
            while finished < process_num:
                i, value = outq.get()
                if value is _END:
                    finished += 1
                    continue
                if isinstance(value, _Failed):
                    raise value.error
                if not order:
                    yield value
                    continue
                pending[i] = value
                while want in pending:
                    yield pending.pop(want)
                    want += 1
            for i in sorted(pending):
                yield pending[i]
        finally:
            stop.set()
            for t in threads:
                while t.is_alive():
                    _drain(inq), _drain(outq)
                    t.join(0.01)
    return xreader


def _drain(q: queue.Queue) -> None:
    try:
        while True:
            q.get_nowait()
    except queue.Empty:
        pass


class MultiprocessReaderError(FluidcError, SystemError, ValueError):
    """A reader run by multiprocess_reader failed in its process (the message carries why).
    Paddle raises ValueError when the combined reader is iterated directly and SystemError
    when a DataLoader reads it: this error is both, so code written for either catches it."""


def _read_into(reader: Reader, q, index: int) -> None:
    """A multiprocess_reader worker: every sample, then the end mark (or the failure)."""
    try:
        for sample in reader():
            if sample is None:
                raise ValueError("sample has None")
            q.put((index, sample))
        q.put((index, _END_MARK))
    except BaseException as e:  # noqa: BLE001 (reported to the consumer, which raises)
        q.put((index, _Failed(RuntimeError(f"{type(e).__name__}: {e}"))))


_END_MARK = "__fluidc_reader_end__"


def multiprocess_reader(readers: list, use_pipe: bool = True, queue_size: int = 1000) -> Reader:
    """The samples of several readers, each read in a process of its own (forked), in the
    order they arrive. A reader that fails, or yields None, fails the combined reader.
    use_pipe is accepted for Paddle's signature: samples always travel through one queue."""
    import multiprocessing
    if not isinstance(readers, (list, tuple)) or not readers:
        raise ValueError("multiprocess_reader: readers must be a non-empty list or tuple")
    for r in readers:
        _check_reader(r, "multiprocess_reader")
    ctx = multiprocessing.get_context("fork")

    def reader():
        q = ctx.Queue(queue_size)
        procs = [ctx.Process(target=_read_into, args=(r, q, i), daemon=True)
                 for i, r in enumerate(readers)]
        for p in procs:
            p.start()
        try:
            finished = 0
            while finished < len(procs):
                try:
                    index, sample = q.get(timeout=1.0)
                except queue.Empty:
                    dead = [i for i, p in enumerate(procs) if p.exitcode not in (None, 0)]
                    if dead:
                        raise MultiprocessReaderError(
                            f"multiprocess_reader: the process of reader {dead[0]} died "
                            f"(exit code {procs[dead[0]].exitcode})") from None
                    continue
                if isinstance(sample, _Failed):
                    raise MultiprocessReaderError(
                        f"multiprocess_reader: reader {index} raised {sample.error}")
                if isinstance(sample, str) and sample == _END_MARK:
                    finished += 1
                else:
                    yield sample
        finally:
            for p in procs:
                if p.is_alive():
                    p.terminate()
                p.join()
            q.close()
            q.join_thread()
    return reader
