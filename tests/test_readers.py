"""Reader decorators (fluidc.reader) and DataFeeder: composition, threads that never outlive
their loop, errors that reach the consumer with their traceback."""
import threading
import time
import traceback

import numpy as np
import pytest

import fluidc as fluid
import fluidc.reader as reader
from fluidc.frontend.errors import FeedError, FluidcError
from fluidc.runtime.feeder import DataFeeder
from fluidc.runtime.reader import batch


@pytest.fixture(autouse=True)
def no_threads_left():
    before = set(threading.enumerate())
    yield
    deadline = time.monotonic() + 2
    while set(threading.enumerate()) - before and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not set(threading.enumerate()) - before, "a reader left a thread behind"


def numbers(n):
    return lambda: iter(range(n))


def test_batch_and_drop_last():
    assert list(batch(numbers(5), 2)()) == [[0, 1], [2, 3], [4]]
    assert list(batch(numbers(5), 2, drop_last=True)()) == [[0, 1], [2, 3]]
    with pytest.raises(FluidcError, match="batch_size"):
        batch(numbers(5), 0)
    with pytest.raises(TypeError, match="callable"):
        batch(range(5), 2)


def test_shuffle_keeps_the_samples():
    out = list(reader.shuffle(numbers(100), 10)())
    assert sorted(out) == list(range(100)) and out != list(range(100))


def test_chain_compose_map_firstn_cache():
    assert list(reader.chain(numbers(2), numbers(3))()) == [0, 1, 0, 1, 2]
    pairs = lambda: iter([(1, 2), (3, 4)])  # noqa: E731
    assert list(reader.compose(numbers(2), pairs)()) == [(0, 1, 2), (1, 3, 4)]
    with pytest.raises(reader.ComposeNotAligned):
        list(reader.compose(numbers(2), numbers(3))())
    assert list(reader.compose(numbers(2), numbers(3), check_alignment=False)()) == [(0, 0), (1, 1)]
    assert list(reader.map_readers(lambda a, b: a + b, numbers(3), numbers(3))()) == [0, 2, 4]
    assert list(reader.firstn(numbers(10), 3)()) == [0, 1, 2]
    calls = []

    def once():
        calls.append(1)
        return iter(range(3))
    cached = reader.cache(once)
    assert list(cached()) == list(cached()) == [0, 1, 2] and len(calls) == 1


def test_buffered_reads_ahead_and_stops_when_the_loop_breaks():
    produced = []

    def slow():
        for i in range(1000):
            produced.append(i)
            yield i
    it = reader.buffered(slow, 4)()
    assert next(it) == 0
    time.sleep(0.05)
    assert 2 <= len(produced) <= 7  # read ahead, bounded by the buffer
    it.close()  # what breaking out of a for loop does
    assert len(produced) < 20
    assert list(reader.buffered(numbers(50), 3)()) == list(range(50))
    assert list(reader.buffered(numbers(0), 3)()) == []


def _failing():
    yield 1
    raise KeyError("boom in the generator")


def test_buffered_reraises_with_the_original_traceback():
    it = reader.buffered(_failing, 2)()
    assert next(it) == 1
    with pytest.raises(KeyError, match="boom") as e:
        next(it)
    assert "_failing" in "".join(traceback.format_tb(e.value.__traceback__))


@pytest.mark.parametrize("order", [True, False])
def test_xmap_readers(order):
    out = list(reader.xmap_readers(lambda x: x * 2, numbers(50), 3, 8, order=order)())
    assert (out if order else sorted(out)) == [2 * i for i in range(50)]


def test_xmap_readers_break_and_error():
    it = reader.xmap_readers(lambda x: x, numbers(10000), 2, 4)()
    next(it)
    it.close()

    def bad(x):
        raise ValueError("mapper failed")
    with pytest.raises(ValueError, match="mapper failed"):
        list(reader.xmap_readers(bad, numbers(10), 2, 4)())


def test_data_feeder_builds_arrays_and_lod():
    words = fluid.layers.data(name="words", shape=[1], dtype="int64", lod_level=1)
    img = fluid.layers.data(name="img", shape=[2, 2], dtype="float32")
    label = fluid.layers.data(name="label", shape=[1], dtype="int64")
    feeder = DataFeeder([words, img, label], fluid.CPUPlace())
    feed = feeder.feed([([1, 2, 3], np.ones((2, 2)), 0), ([4, 5], np.zeros(4), 1)])
    assert feed["words"].lod() == [[0, 3, 5]] and np.array(feed["words"]).shape == (5, 1)
    img, label = np.array(feed["img"]), np.array(feed["label"])
    assert feed["img"].shape() == [2, 2, 2] and feed["img"].lod() == []
    assert img.dtype == np.float32 and img[0].sum() == 4 and img[1].sum() == 0
    assert label.tolist() == [[0], [1]] and label.dtype == np.int64
    nested = fluid.layers.data(name="para", shape=[1], dtype="int64", lod_level=2)
    feed = DataFeeder([nested], None).feed([([[1, 2], [3]],), ([[4]],)])
    assert feed["para"].recursive_sequence_lengths() == [[2, 1], [2, 1, 1]]


def test_data_feeder_names_the_bad_sample():
    fluid.layers.data(name="img", shape=[3], dtype="float32")
    fluid.layers.data(name="label", shape=[1], dtype="int64")
    feeder = DataFeeder(["img", "label"], fluid.CPUPlace())
    with pytest.raises(FeedError, match=r"sample 2: field 0 \(var 'img'.*shape \[4\]"):
        feeder.feed([(np.ones(3), 0), (np.ones(3), 1), (np.ones(4), 0)])
    with pytest.raises(FeedError, match=r"sample 1: field 1 \(var 'label'.*float64"):
        feeder.feed([(np.ones(3), 0), (np.ones(3), 0.5)])
    with pytest.raises(FeedError, match="sample 0 has 1 fields"):
        feeder.feed([(np.ones(3),)])
    with pytest.raises(FeedError, match=r"sample 0: field 0 .* \[2\] per sample"):
        feeder.feed([(np.ones(2), 0)])
