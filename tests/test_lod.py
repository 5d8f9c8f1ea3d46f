"""LoDTensor as the docs describe it, LoD feeds through the executor, and the LoD stream format."""
import numpy as np
import pytest

import fluidc as fluid
from fluidc.frontend.errors import FeedError, OpError
from fluidc.runtime.lod import create_lod_tensor, create_random_int_lodtensor
from fluidc.runtime.tensor import LoDTensor


def test_docs_two_level_lod_numbers():
    t = create_lod_tensor(np.arange(15, dtype="float32").reshape(15, 1),
                          [[3, 1, 2], [3, 2, 4, 1, 2, 3]], fluid.CPUPlace())
    assert t.lod() == [[0, 3, 4, 6], [0, 3, 5, 9, 10, 12, 15]]
    assert t.recursive_sequence_lengths() == [[3, 1, 2], [3, 2, 4, 1, 2, 3]]
    assert t.shape() == [15, 1] and t.has_valid_recursive_sequence_lengths()
    assert all(type(o) is int for level in t.lod() for o in level)


def test_lod_tensor_set_and_set_lod():
    t = LoDTensor()
    t.set(np.ones((5, 2), "float32"), fluid.CPUPlace())
    t.set_lod([[0, 2, 5]])
    assert t.recursive_sequence_lengths() == [[2, 3]] and t.has_valid_recursive_sequence_lengths()
    t.set_recursive_sequence_lengths([[2, 2]])
    assert t.lod() == [[0, 2, 4]] and not t.has_valid_recursive_sequence_lengths()
    assert np.array(t).shape == (5, 2) and np.array(t).dtype == np.float32


def test_create_from_lists_and_from_lod_tensor():
    t = create_lod_tensor([[1, 2, 3], [4, 5]], [[3, 2]], fluid.CPUPlace())
    assert np.array(t).dtype == np.int64 and np.array(t).ravel().tolist() == [1, 2, 3, 4, 5]
    assert np.array(t).shape == (5, 1) and t.lod() == [[0, 3, 5]]
    u = create_lod_tensor(t, [[1, 4]], fluid.CPUPlace())
    assert u.lod() == [[0, 1, 5]] and t.lod() == [[0, 3, 5]]
    r = create_random_int_lodtensor([[2, 3]], [1], fluid.CPUPlace(), low=0, high=9)
    assert r.shape() == [5, 1] and np.array(r).max() <= 9


def test_lod_that_does_not_cover_the_data_is_rejected():
    with pytest.raises(FeedError, match="do not cover"):
        create_lod_tensor(np.ones((4, 1), "float32"), [[2, 3]], fluid.CPUPlace())
    with pytest.raises(FeedError, match="lengths"):
        create_lod_tensor([[1, 2], [3]], [[1, 2]], fluid.CPUPlace())
    x = fluid.layers.data(name="x", shape=[1], dtype="float32", lod_level=1)
    y = fluid.layers.scale(x, 2.0)
    bad = LoDTensor()
    bad.set(np.ones((4, 1), "float32"))
    bad.set_lod([[0, 2, 5]])
    with pytest.raises(FeedError, match="'x'.*does not cover"):
        fluid.Executor(fluid.CPUPlace()).run(feed={"x": bad}, fetch_list=[y])


def test_lod_flows_through_fc_and_pointwise_ops_to_fetches():
    x = fluid.layers.data(name="x", shape=[3], dtype="float32", lod_level=1)
    h = fluid.layers.relu(fluid.layers.fc(x, 4))
    m = fluid.layers.mean(h)
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(fluid.default_startup_program())
    t = create_lod_tensor(np.random.rand(5, 3).astype("float32"), [[2, 3]], fluid.CPUPlace())
    out, mean = exe.run(feed={"x": t}, fetch_list=[h, m], return_numpy=False)
    assert out.lod() == [[0, 2, 5]] and out.shape() == [5, 4]
    assert mean.lod() == []
    # numpy by default, which cannot carry the LoD: Paddle's executor raises
    with pytest.raises(RuntimeError, match="hold LoD information"):
        exe.run(feed={"x": t}, fetch_list=[h])
    arr, = exe.run(feed={"x": t}, fetch_list=[m])
    assert isinstance(arr, np.ndarray) and arr.size == 1


def test_sequence_op_without_lod_feed_names_the_op():
    x = fluid.layers.data(name="x", shape=[2], dtype="float32", lod_level=1)
    out = fluid.layers.sequence_pool(x, "sum")
    with pytest.raises(OpError, match="sequence_pool.*LoD"):
        fluid.Executor(fluid.CPUPlace()).run(feed={"x": np.ones((3, 2), "float32")},
                                             fetch_list=[out])


def test_plans_are_per_lod():
    x = fluid.layers.data(name="x", shape=[1], dtype="float32", lod_level=1)
    s = fluid.layers.sequence_pool(x, "sum")
    exe = fluid.Executor(fluid.CPUPlace())
    data = np.arange(4, dtype="float32").reshape(4, 1)
    a, = exe.run(feed={"x": create_lod_tensor(data, [[1, 3]], None)}, fetch_list=[s])
    b, = exe.run(feed={"x": create_lod_tensor(data, [[2, 2]], None)}, fetch_list=[s])
    c, = exe.run(feed={"x": create_lod_tensor(data, [[1, 1, 2]], None)}, fetch_list=[s])
    assert a.ravel().tolist() == [0, 6] and b.ravel().tolist() == [1, 5]
    assert c.ravel().tolist() == [0, 1, 5]


def test_lod_is_saved_and_loaded_with_the_tensor():
    tensor_io = pytest.importorskip("fluidc.runtime.tensor_io")
    t = create_lod_tensor(np.arange(6, dtype="float32").reshape(6, 1), [[2, 1], [1, 2, 3]], None)
    back = tensor_io.tensor_from_bytes(tensor_io.tensor_to_bytes(t), "mem", "x")
    assert back.lod() == t.lod() and np.array_equal(np.array(back), np.array(t))


def _bow_sample(rng, vocab):
    n = int(rng.integers(1, 12))
    ids = rng.integers(0, vocab, n)
    return ids, int((ids < vocab // 2).sum() * 2 > n)


def test_bag_of_words_classifier_trains_on_variable_length_sequences():
    rng, vocab = np.random.default_rng(0), 40
    main, startup = fluid.Program(), fluid.Program()
    main.random_seed = startup.random_seed = 7
    with fluid.program_guard(main, startup):
        words = fluid.layers.data(name="words", shape=[1], dtype="int64", lod_level=1)
        label = fluid.layers.data(name="label", shape=[1], dtype="int64")
        emb = fluid.layers.embedding(words, size=[vocab, 16])
        bow = fluid.layers.sequence_pool(emb, "sum")
        pred = fluid.layers.fc(fluid.layers.fc(bow, 16, act="tanh"), 2, act="softmax")
        loss = fluid.layers.mean(fluid.layers.cross_entropy(pred, label))
        acc = fluid.layers.accuracy(pred, label)
        fluid.optimizer.Adam(0.05).minimize(loss)
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup)
    def feed(batch):
        return {"words": create_lod_tensor([b[0] for b in batch], [[len(b[0]) for b in batch]], None),
                "label": np.array([[b[1]] for b in batch], "int64")}
    # Epochs over a fixed set of batches: each distinct LoD compiles one plan, then reuses it.
    batches = [feed([_bow_sample(rng, vocab) for _ in range(32)]) for _ in range(6)]
    losses = [float(exe.run(main, feed=b, fetch_list=[loss])[0][0])
              for _ in range(8) for b in batches]
    held_out = feed([_bow_sample(rng, vocab) for _ in range(64)])
    test_acc, = exe.run(main.clone(for_test=True), feed=held_out, fetch_list=[acc])
    assert np.mean(losses[-6:]) < 0.5 * np.mean(losses[:6])
    assert float(test_acc) > 0.8  # chance is about 0.5
