"""PyReader / DataLoader.from_generator (iterable and start/reset modes) and the 2.x
Dataset/DataLoader: training through them, and nothing left behind or lost."""
import multiprocessing
import threading
import time
import traceback

import numpy as np
import pytest

import fluidc as fluid
import fluidc.reader as fluidc_reader
from fluidc.frontend.errors import FeedError
from fluidc.runtime.pyreader import DataLoader, Dataset, EOFException, PyReader

BATCH, N = 16, 128
W_TRUE = np.random.default_rng(3).normal(size=(8, 3))


@pytest.fixture(autouse=True)
def nothing_left_behind():
    before = set(threading.enumerate())
    yield
    deadline = time.monotonic() + 3
    while (set(threading.enumerate()) - before or multiprocessing.active_children()) and \
            time.monotonic() < deadline:
        time.sleep(0.01)
    assert not set(threading.enumerate()) - before, "a reader left a thread behind"
    assert not multiprocessing.active_children(), "a loader left a worker process behind"


def samples(n=N, seed=0):
    def gen():
        rng = np.random.default_rng(seed)
        for _ in range(n):
            x = rng.normal(size=8).astype("float32")
            yield x, np.array([int(np.argmax(x @ W_TRUE))], "int64")
    return gen


def classifier():
    """image/label data vars -> (loss, acc) with an Adam step appended."""
    x = fluid.layers.data(name="image", shape=[8], dtype="float32")
    y = fluid.layers.data(name="label", shape=[1], dtype="int64")
    pred = fluid.layers.fc(fluid.layers.fc(x, 32, act="relu"), 3, act="softmax")
    loss = fluid.layers.mean(fluid.layers.cross_entropy(pred, y))
    acc = fluid.layers.accuracy(pred, y)
    return x, y, loss, acc


def test_iterable_pyreader_trains():
    x, y, loss, acc = classifier()
    fluid.optimizer.Adam(0.01).minimize(loss)
    reader = PyReader(feed_list=[x, y], capacity=4, iterable=True)
    reader.decorate_sample_generator(samples(), batch_size=BATCH, drop_last=True)
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(fluid.default_startup_program())
    losses = []
    for _ in range(8):
        for data in reader():
            assert isinstance(data, list) and set(data[0]) == {"image", "label"}
            losses.append(float(exe.run(feed=data, fetch_list=[loss])[0][0]))
    assert len(losses) == 8 * N // BATCH and np.mean(losses[-8:]) < 0.6 * np.mean(losses[:8])


def test_non_iterable_start_eof_reset_two_epochs():
    x, y, loss, _ = classifier()
    reader = DataLoader.from_generator(feed_list=[x, y], capacity=2, iterable=False)
    reader.set_sample_list_generator(fluidc_reader.batch(samples(40), 16))
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(fluid.default_startup_program())
    for _ in range(2):
        reader.start()
        steps = 0
        try:
            while True:
                exe.run(fetch_list=[loss])
                steps += 1
        except fluid.core.EOFException:
            reader.reset()
        assert steps == 3  # 16 + 16 + 8 (sample lists are not dropped)
    with pytest.raises(fluid.FluidcError, match="not started"):
        exe.run(fetch_list=[loss])


def test_batch_generator_and_return_list():
    x, y, loss, _ = classifier()

    def batches():
        for i in range(3):
            yield np.ones((4, 8), "float32") * i, np.zeros((4, 1), "int64")
    reader = DataLoader.from_generator(feed_list=[x, y], capacity=2, return_list=True)
    reader.set_batch_generator(batches)
    got = [b for b in reader()]
    assert len(got) == 3 and got[2][0][0, 0] == 2 and got[0][1].shape == (4, 1)


def test_lod_samples_through_a_reader():
    words = fluid.layers.data(name="words", shape=[1], dtype="int64", lod_level=1)
    emb = fluid.layers.embedding(words, size=[10, 4])
    pooled = fluid.layers.sequence_pool(emb, "average")
    reader = PyReader(feed_list=[words], capacity=2)
    reader.decorate_sample_list_generator(lambda: iter([[([1, 2, 3],), ([4],)],
                                                        [([5, 6],), ([7, 8],), ([9],)]]))
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(fluid.default_startup_program())
    shapes = [exe.run(feed=d, fetch_list=[pooled])[0].shape for d in reader()]
    assert shapes == [(2, 4), (3, 4)]


def test_train_and_test_programs_each_with_a_reader():
    """The docs' PyReader example: unique_name.guard()-built programs, synthetic data."""
    def network(startup, main):
        with fluid.program_guard(main, startup), fluid.unique_name.guard():
            x, y, loss, acc = classifier()
            reader = PyReader(feed_list=[x, y], capacity=8, iterable=False)
            return reader, loss, acc
    startup, train_prog, test_prog = fluid.Program(), fluid.Program(), fluid.Program()
    train_reader, loss, _ = network(startup, train_prog)
    with fluid.program_guard(train_prog, startup), fluid.unique_name.guard():
        fluid.optimizer.Adam(0.01).minimize(loss)
    test_reader, _, test_acc = network(fluid.Program(), test_prog)
    train_reader.decorate_sample_generator(samples(), batch_size=BATCH)
    test_reader.decorate_sample_generator(samples(64, seed=9), batch_size=BATCH)
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup)
    for _ in range(6):
        train_reader.start()
        try:
            while True:
                exe.run(train_prog, fetch_list=[loss])
        except fluid.core.EOFException:
            train_reader.reset()
    test_reader.start()
    accs = []
    try:
        while True:
            accs.append(float(exe.run(test_prog, fetch_list=[test_acc])[0]))
    except fluid.core.EOFException:
        test_reader.reset()
    assert len(accs) == 4 and np.mean(accs) > 0.6  # chance is 1/3


def _bad_generator():
    yield np.ones(8, "float32"), np.array([0], "int64")
    raise RuntimeError("disk on fire")


@pytest.mark.parametrize("iterable", [True, False])
def test_generator_error_reaches_the_main_thread_with_its_traceback(iterable):
    x, y, loss, _ = classifier()
    reader = PyReader(feed_list=[x, y], capacity=2, iterable=iterable)
    reader.decorate_sample_generator(_bad_generator, batch_size=1)
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(fluid.default_startup_program())
    with pytest.raises(RuntimeError, match="disk on fire") as e:
        if iterable:
            for data in reader():
                exe.run(feed=data, fetch_list=[loss])
        else:
            reader.start()
            for _ in range(3):
                exe.run(fetch_list=[loss])
    assert "_bad_generator" in "".join(traceback.format_tb(e.value.__traceback__))
    reader.reset()


def test_bad_sample_is_named_by_index():
    x, y, loss, _ = classifier()
    reader = PyReader(feed_list=[x, y], capacity=2)

    def gen():
        yield np.ones(8, "float32"), np.array([0], "int64")
        yield np.ones(7, "float32"), np.array([0], "int64")
    reader.decorate_sample_generator(gen, batch_size=2)
    with pytest.raises(FeedError, match=r"sample 1: field 0 \(var 'image'"):
        list(reader())


def test_reset_mid_epoch_and_break_leave_nothing_behind():
    x, y, loss, _ = classifier()
    reader = PyReader(feed_list=[x, y], capacity=2, iterable=False)
    reader.decorate_sample_generator(samples(10 ** 6), batch_size=4)
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(fluid.default_startup_program())
    reader.start()
    exe.run(fetch_list=[loss])
    reader.reset()  # mid-epoch
    it_reader = PyReader(feed_list=[x, y], capacity=2)
    it_reader.decorate_sample_generator(samples(10 ** 6), batch_size=4)
    for i, data in enumerate(it_reader()):
        if i == 2:
            break


def test_empty_reader_ends_the_epoch_cleanly():
    x, y, loss, _ = classifier()
    reader = PyReader(feed_list=[x, y], capacity=2)
    reader.decorate_sample_generator(lambda: iter([]), batch_size=4)
    assert list(reader()) == []
    ni = PyReader(feed_list=[x, y], capacity=2, iterable=False)
    ni.decorate_batch_generator(lambda: iter([]))
    ni.start()
    with pytest.raises(EOFException):
        fluid.Executor(fluid.CPUPlace()).run(fetch_list=[loss])
    ni.reset()


class Synthetic(Dataset):
    def __init__(self, n=64):
        self.x = np.random.default_rng(5).normal(size=(n, 8)).astype("float32")

    def __getitem__(self, i):
        if i < 0:
            raise IndexError(i)
        return self.x[i], np.array([int(np.argmax(self.x[i] @ W_TRUE))], "int64")

    def __len__(self):
        return len(self.x)


class Broken(Synthetic):
    def __getitem__(self, i):
        if i == 37:
            raise ValueError("sample 37 is corrupt")
        return super().__getitem__(i)


@pytest.mark.parametrize("workers", [0, 2])
def test_paddle_io_dataloader(workers):
    x, y, loss, _ = classifier()
    fluid.optimizer.Adam(0.01).minimize(loss)
    loader = DataLoader(Synthetic(), feed_list=[x, y], batch_size=16, shuffle=True,
                        drop_last=True, num_workers=workers)
    assert len(loader) == 4
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(fluid.default_startup_program())
    seen = 0
    for data in loader():
        exe.run(feed=data, fetch_list=[loss])
        seen += data[0]["image"].shape()[0]  # a DenseTensor, as Paddle's loader gives
    assert seen == 64
    for i, _ in enumerate(loader):  # leaving mid-epoch stops the workers
        if i == 1:
            break


def test_len_counts_batches_without_drawing_an_order():
    import random
    for n, size, drop, want in ((64, 16, True, 4), (65, 16, True, 4), (65, 16, False, 5),
                                (3, 16, False, 1), (3, 16, True, 0)):
        loader = DataLoader(Synthetic(n), batch_size=size, shuffle=True, drop_last=drop,
                            return_list=True)
        state = random.getstate()
        assert len(loader) == want
        assert random.getstate() == state  # len() shuffled nothing
        assert len(list(loader)) == want


@pytest.mark.parametrize("workers", [0, 2])
def test_dataloader_error_names_its_origin(workers):
    x, y, loss, _ = classifier()
    loader = DataLoader(Broken(), feed_list=[x, y], batch_size=8, num_workers=workers)
    with pytest.raises(ValueError, match="sample 37 is corrupt") as e:
        list(loader)
    text = "".join(traceback.format_exception(e.value))
    assert "__getitem__" in text


@pytest.mark.parametrize("return_list", [True, False])
@pytest.mark.parametrize("drop_last", [True, False])
def test_dataloader_with_two_places_gives_each_its_batch(return_list, drop_last):
    """As Paddle 3.3.1 (checked there): 20 samples in batches of 3 on two places are 3 steps of
    two consecutive batches; the 7th batch (drop_last=False) fills no step and is dropped."""
    class Numbered(Dataset):
        def __getitem__(self, i):
            return np.full([4], i, "float32"), np.array([i], "int64")

        def __len__(self):
            return 20
    image = fluid.static.data("image", [None, 4], "float32")
    label = fluid.static.data("label", [None, 1], "int64")
    loader = DataLoader(Numbered(), feed_list=[image, label], batch_size=3, drop_last=drop_last,
                        places=[fluid.CPUPlace()] * 2, return_list=return_list)
    assert len(loader) == (6 if drop_last else 7)
    steps = list(loader)
    assert len(steps) == 3 and all(len(step) == 2 for step in steps)
    for s, step in enumerate(steps):
        for place, batch in enumerate(step):
            first = 3 * (2 * s + place)
            images = batch[0] if return_list else batch["image"]
            labels = batch[1] if return_list else batch["label"]
            np.testing.assert_array_equal(np.array(images)[:, 0], np.arange(first, first + 3))
            np.testing.assert_array_equal(np.array(labels)[:, 0], np.arange(first, first + 3))
