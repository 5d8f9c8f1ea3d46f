"""The runtime API Paddle's tests and docs use: places and devices, use_prune and optimizer ops
in fetch_list, paddle.save/load through BytesIO in Paddle's pickle layout, models without
parameters, persistables in memory, create_lod_tensor's errors, readers and metrics."""
import io
import operator
import os
import pickletools

import numpy as np
import pytest

import fluidc as fluid
import fluidc as paddle
from fluidc.frontend.errors import PlaceError

RNG = np.random.default_rng(5)
PICKLES = os.path.join(os.path.dirname(__file__), "fixtures", "paddle", "pickles")


# -- places -------------------------------------------------------------------------------------

def test_cpu_places_honour_cpu_num(monkeypatch, capsys):
    monkeypatch.delenv("CPU_NUM", raising=False)
    assert fluid.cpu_places() == [fluid.CPUPlace()]  # Paddle's default: 1, and it says so
    assert os.environ["CPU_NUM"] == "1"
    monkeypatch.setenv("CPU_NUM", "3")
    assert paddle.static.cpu_places() == [fluid.CPUPlace()] * 3
    assert fluid.cpu_places(2) == [fluid.CPUPlace()] * 2


@pytest.mark.skipif(fluid.is_compiled_with_cuda(), reason="checks the no-GPU answers")
def test_cuda_places_without_a_gpu():
    assert fluid.is_compiled_with_cuda() is False
    for make in (fluid.cuda_places, fluid.cuda_pinned_places, paddle.static.cuda_places):
        with pytest.raises(PlaceError, match="no CUDA GPU"):
            make()
    with pytest.raises(ValueError, match="should not be 'gpu:0'"):
        paddle.set_device("gpu:0")


def test_set_device_chooses_the_executors_default_place():
    assert paddle.get_device() == "cpu"
    assert paddle.set_device("cpu") == fluid.CPUPlace()
    assert fluid.Executor().place == fluid.CPUPlace()
    with pytest.raises(ValueError, match="like 'cpu'"):
        paddle.set_device("tpu")


def test_docs_pyreader_with_cpu_places_runs():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        image = fluid.data("image", [None, 3], "float32")
        out = fluid.layers.scale(image, 2.0)
    reader = fluid.io.PyReader(feed_list=[image], capacity=4, iterable=True)
    batches = [RNG.standard_normal((2, 3)).astype("float32") for _ in range(3)]
    reader.decorate_batch_generator(lambda: iter([(b,) for b in batches]),
                                    places=fluid.cpu_places(1))
    exe = fluid.Executor(fluid.CPUPlace())
    got = [exe.run(main, feed=data, fetch_list=[out])[0] for data in reader()]
    for g, b in zip(got, batches):
        np.testing.assert_allclose(g, 2 * b)


# -- use_prune (cases of Paddle's test_prune.py) --------------------------------------------------

def _net(two_towers=False):
    x = paddle.static.data("x", [-1, 2], "float32")
    label = paddle.static.data("label", [-1, 1], "int64")

    def tower(inp, name):
        y = fluid.layers.fc(inp, 2, act="softmax", param_attr=fluid.ParamAttr(
            name=name, initializer=fluid.initializer.Constant(1.0)))
        return y, fluid.layers.mean(fluid.layers.cross_entropy(y, label))
    y, loss1 = tower(x, "w1")
    if two_towers:
        x2 = paddle.static.data("x2", [-1, 2], "float32")
        loss2 = tower(x2, "w2")[1]
    else:
        loss2 = fluid.layers.mean(fluid.layers.cross_entropy(y, label))
    loss1.persistable = loss2.persistable = True
    return y, loss1, loss2


FEED = {"x": RNG.random((10, 2)).astype("float32"), "label": np.zeros((10, 1), "int64")}


def _w(scope, name="w1"):
    return np.array(scope.find_var(name).get_tensor()).copy()


@pytest.mark.parametrize("place", ["c", "reference"])
def test_ops_writing_a_fed_var_replace_its_value(place):
    """A run executes the program after its feeds, as Paddle's executor does: an assign into a
    fed var, and batch_norm's MeanOut / VarianceOut over fed Mean / Variance, replace the fed
    values for later ops and the fetches (numbers from Paddle 3.3.1). use_prune cuts at the
    feeds instead, as Paddle's pruning does."""
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        x = paddle.static.data("x", [4, 3], "float32")
        m = paddle.static.data("m", [4, 3], "float32")
        paddle.assign(x * 2.0, output=m)
        z = m + 1.0
        block = main.global_block()
        stats = {n: paddle.static.data(n, [3], "float32") for n in ("mean", "var", "s", "b")}
        outs = {n: block.create_var(name=n, dtype="float32") for n in ("y", "sm", "sv", "rs")}
        block.append_op("batch_norm", {"X": [x], "Mean": [stats["mean"]],
                                       "Variance": [stats["var"]], "Scale": [stats["s"]],
                                       "Bias": [stats["b"]]},
                        {"Y": [outs["y"]], "MeanOut": [stats["mean"]],
                         "VarianceOut": [stats["var"]], "SavedMean": [outs["sm"]],
                         "SavedVariance": [outs["sv"]], "ReserveSpace": [outs["rs"]]},
                        {"momentum": 0.5, "epsilon": 1e-5, "is_test": False})
    xv = np.arange(12, dtype="float32").reshape(4, 3) / 10
    feed = {"x": xv, "m": np.zeros((4, 3), "float32"), "mean": np.zeros(3, "float32"),
            "var": np.ones(3, "float32"), "s": np.ones(3, "float32"), "b": np.zeros(3, "float32")}
    fetch = [m, z, stats["mean"], stats["var"]]
    if place == "c":
        got = fluid.Executor(fluid.CPUPlace()).run(main, feed=feed, fetch_list=fetch)
    else:
        from op_harness import run_reference
        got = run_reference(main, feed, [v.name for v in fetch])
    np.testing.assert_allclose(got[0], 2 * xv)
    np.testing.assert_allclose(got[1], 2 * xv + 1)
    np.testing.assert_allclose(got[2], 0.5 * xv.mean(0), rtol=1e-6)
    np.testing.assert_allclose(got[3], 0.5 + 0.5 * xv.var(0), rtol=1e-6)  # biased, as Paddle
    pruned = fluid.Executor(fluid.CPUPlace()).run(main, feed=feed, fetch_list=[z],
                                                  use_prune=True)
    np.testing.assert_allclose(pruned[0], 1.0)  # the fed m: the assign into it is pruned


def test_use_prune_skips_unfetched_persistable_outputs():
    main, startup, scope = fluid.Program(), fluid.Program(), fluid.Scope()
    with fluid.scope_guard(scope), fluid.program_guard(main, startup):
        y, loss1, loss2 = _net()
        exe = fluid.Executor(fluid.CPUPlace())
        exe.run(startup)
        w0 = _w(scope)
        exe.run(main, feed=FEED, fetch_list=[loss1.name], use_prune=True)
        assert scope.find_var(loss1.name) is not None and scope.find_var(loss2.name) is None
        np.testing.assert_array_equal(_w(scope), w0)
        exe.run(main, feed=FEED, fetch_list=[loss1.name])  # no prune: loss2 is written
        assert scope.find_var(loss2.name) is not None


def test_use_prune_keeps_optimizer_ops_and_cuts_at_feeds():
    main, startup, scope = fluid.Program(), fluid.Program(), fluid.Scope()
    with fluid.scope_guard(scope), fluid.program_guard(main, startup):
        y, loss1, loss2 = _net()
        fluid.optimizer.SGD(0.5).minimize(loss1)
        exe = fluid.Executor(fluid.CPUPlace())
        exe.run(startup)
        w0 = _w(scope)
        exe.run(main, feed=FEED, fetch_list=[loss1.name], use_prune=True)
        assert scope.find_var(loss2.name) is None
        np.testing.assert_array_compare(operator.__ne__, w0, _w(scope))
        with pytest.raises(Exception):  # y fed: the optimizer ops need what y cut off
            exe.run(main, feed={y.name: FEED["x"], "label": FEED["label"]},
                    fetch_list=[loss1.name], use_prune=True)


def test_minimize_ops_in_fetch_list_run_only_that_optimizer():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        y, loss1, loss2 = _net()
        sgd = fluid.optimizer.SGD(0.5)
        train1, _ = sgd.minimize(loss1)
        only_first = main.clone()
        sgd.minimize(loss2)
    exe = fluid.Executor(fluid.CPUPlace())
    weights = []
    for program, fetch in ((main, [loss1.name, train1]), (only_first, [loss1.name]),
                           (main, [loss1.name])):
        scope = fluid.Scope()
        with fluid.scope_guard(scope):
            exe.run(startup)
            exe.run(program, feed=FEED, fetch_list=fetch)
            weights.append(_w(scope))
    np.testing.assert_array_equal(weights[0], weights[1])
    np.testing.assert_array_compare(operator.__ne__, weights[2], weights[1])
    with pytest.raises(TypeError, match="not an optimize_op"):
        exe.run(main, feed=FEED, fetch_list=[main.global_block().ops[0]])


def test_pruned_programs_are_cached(monkeypatch):
    calls = []
    original = fluid.Executor._prune_program

    def counting(self, *args):
        calls.append(1)
        return original(*args)
    monkeypatch.setattr(fluid.Executor, "_prune_program", counting)
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        _, loss1, loss2 = _net(two_towers=True)
        train1 = fluid.optimizer.Adam(0.5).minimize(loss1)
        train2 = fluid.optimizer.Adam(0.5).minimize(loss2)
    exe = fluid.Executor(fluid.CPUPlace())
    with fluid.scope_guard(fluid.Scope()):
        exe.run(startup)
        feed = dict(FEED, x2=FEED["x"])
        for i in range(6):
            exe.run(main, feed=feed, fetch_list=[loss1, loss2, train1 if i % 2 else train2])
    assert len(calls) == 2


# -- paddle.save / paddle.load ----------------------------------------------------------------------

def _fixture_values():
    """What make_save_fixtures.py's nested_values() builds."""
    return {"w": np.arange(6, dtype="float32").reshape(2, 3) / 4,
            "b": np.array([1, -2, 3], dtype="int64"), "m": np.ones((2, 2), dtype="float64")}


def test_save_of_nested_tensors_is_paddles_pickle_byte_for_byte():
    v = _fixture_values()

    def tensor(arr):
        t = fluid.LoDTensor()
        t.set(arr, fluid.CPUPlace())
        return t
    obj = {"params": [tensor(v["w"]), (tensor(v["b"]), 3)],
           "extra": {"m": v["m"], "t": tensor(v["m"])}, "tag": "nested"}
    buf = io.BytesIO()
    paddle.save(obj, buf)
    with open(os.path.join(PICKLES, "nested_tensors.pkl"), "rb") as f:
        assert buf.getvalue() == f.read()
    args = [arg for _, arg, _ in pickletools.genops(buf.getvalue()) if arg is not None]
    assert ("builtins", "eval") in zip(args, args[1:])  # tensors in eval('data', {...}) form


def test_binary_format_files_are_paddles_byte_for_byte():
    """make_save_fixtures.py's use_binary_format files: a DenseTensor with LoD and a
    SelectedRows; fluidc writes the same bytes and reads Paddle's back."""
    w = _fixture_values()["w"]
    t = fluid.LoDTensor()
    t.set(w, fluid.CPUPlace())
    t.set_lod([[0, 1, 2]])
    rows = fluid.core.SelectedRows([0, 4, 7], 10)
    rows.get_tensor().set(np.arange(6, dtype="float32").reshape(3, 2), fluid.CPUPlace())
    for obj, name in ((t, "lod_tensor.bin"), (rows, "selected_rows.bin")):
        buf = io.BytesIO()
        paddle.save(obj, buf, use_binary_format=True)
        with open(os.path.join(PICKLES, name), "rb") as f:
            assert buf.getvalue() == f.read(), name
    got = paddle.load(os.path.join(PICKLES, "lod_tensor.bin"))
    assert isinstance(got, fluid.core.DenseTensor) and got.lod() == [[0, 1, 2]]
    np.testing.assert_array_equal(np.array(got), w)
    np.testing.assert_array_equal(paddle.load(os.path.join(PICKLES, "lod_tensor.bin"),
                                              return_numpy=True), w)
    got = paddle.load(os.path.join(PICKLES, "selected_rows.bin"))
    assert isinstance(got, fluid.core.SelectedRows)
    assert got.rows() == [0, 4, 7] and got.height() == 10
    np.testing.assert_array_equal(np.array(got.get_tensor()),
                                  np.arange(6, dtype="float32").reshape(3, 2))


def test_load_turns_arrays_into_tensors_as_paddles_static_mode():
    """What Paddle 3.3.1's static paddle.load gives for these pickles (checked there)."""
    import pickle
    table = {"w": np.ones((2, 2), "float32"), "other": np.zeros(3, "float32"),
             "StructuredToParameterName@@": {"w": "linear_0.w_0"}}

    def kinds(obj):
        return {k: type(v).__name__ for k, v in obj.items()}
    data = pickle.dumps(table, protocol=4)
    assert kinds(paddle.load(io.BytesIO(data))) == {"w": "LoDTensor", "other": "ndarray"}
    assert kinds(paddle.load(io.BytesIO(data), keep_name_table=True)) == \
        {"w": "LoDTensor", "other": "ndarray", "StructuredToParameterName@@": "dict"}
    assert kinds(paddle.load(io.BytesIO(data), return_numpy=True)) == \
        {"w": "ndarray", "other": "ndarray"}
    # (name, array) tuples of 2.1's format: only they become tensors
    got = paddle.load(io.BytesIO(pickle.dumps([("a", np.arange(2.0)), np.zeros(2),
                                               {"k": ("b", np.ones(1))}])))
    assert [type(x).__name__ for x in got] == ["LoDTensor", "ndarray", "dict"]
    assert isinstance(got[2]["k"], fluid.LoDTensor)
    np.testing.assert_array_equal(np.array(got[0]), np.arange(2.0))
    # no tuples: every array becomes a tensor, inside any container
    got = paddle.load(io.BytesIO(pickle.dumps({"s": (np.ones(2), [np.zeros(1)]), "n": 3})))
    assert isinstance(got["s"][0], fluid.LoDTensor) and isinstance(got["s"][1][0], fluid.LoDTensor)
    assert got["n"] == 3


def test_save_configs_as_paddle(tmp_path):
    """pickle_protocol is Paddle's deprecated name of protocol (with its warning); unknown
    configs of paddle.save / paddle.load are ValueErrors."""
    buf = io.BytesIO()
    with pytest.warns(UserWarning, match="'pickle_protocol' is a deprecated argument"):
        paddle.save({"a": np.ones(2)}, buf, pickle_protocol=2)
    assert buf.getvalue()[:2] == b"\x80\x02"
    with pytest.raises(ValueError, match="protocol"):
        paddle.save({"a": 1}, io.BytesIO(), pickle_protocol=5)
    with pytest.raises(ValueError, match=r"additional config \(protocl\) of `paddle.save`"):
        paddle.save({"a": 1}, io.BytesIO(), protocl=2)
    with pytest.raises(ValueError, match=r"additional config \(retrun_numpy\) of `paddle.load`"):
        paddle.load(io.BytesIO(buf.getvalue()), retrun_numpy=True)
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        fluid.layers.create_parameter([2], "float32", name="w")
    fluid.global_scope().var("w").get_tensor().set(np.ones(2, "float32"), fluid.CPUPlace())
    with pytest.warns(UserWarning, match="deprecated"):
        paddle.static.save(main, str(tmp_path / "m"), pickle_protocol=3)
    assert (tmp_path / "m.pdparams").read_bytes()[:2] == b"\x80\x03"


def test_load_from_bytesio_gives_the_nest_back():
    with open(os.path.join(PICKLES, "nested_tensors.pkl"), "rb") as f:
        got = paddle.load(io.BytesIO(f.read()), return_numpy=True)
    v = _fixture_values()
    assert got["tag"] == "nested" and got["params"][1][1] == 3
    assert isinstance(got["params"][1], tuple) and isinstance(got["params"], list)
    for g, w in ((got["params"][0], v["w"]), (got["params"][1][0], v["b"]),
                 (got["extra"]["m"], v["m"]), (got["extra"]["t"], v["m"])):
        assert g.dtype == w.dtype
        np.testing.assert_array_equal(g, w)


def test_save_and_load_a_program_and_a_state_dict_through_bytesio():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        fluid.layers.fc(paddle.static.data("x", [-1, 3], "float32"), 2)
    with fluid.scope_guard(fluid.Scope()):
        fluid.Executor(fluid.CPUPlace()).run(startup)
        state = main.state_dict()
        buf = io.BytesIO()
        paddle.save(state, buf)
        buf.seek(0)
        back = paddle.load(buf)
        assert sorted(back) == sorted(state)
        for name, t in state.items():
            np.testing.assert_array_equal(back[name], np.array(t))
    buf = io.BytesIO()
    paddle.save(main, buf)
    buf.seek(0)
    back = paddle.load(buf)
    assert [op.type for op in back.global_block().ops] == [op.type for op in main.global_block().ops]
    with pytest.raises(ValueError, match="BytesIO"):
        paddle.save(state, io.StringIO())
    with pytest.raises(ValueError):
        paddle.load(io.BytesIO(b"not a paddle file"))


# -- inference models, persistables in memory ------------------------------------------------------

def _parameterless():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = paddle.static.data("x", [-1, 2], "float32")
        y = x * 2.0 + 1.0
    return main, x, y


def test_inference_model_without_parameters(tmp_path):
    main, x, y = _parameterless()
    exe = fluid.Executor(fluid.CPUPlace())
    prefix = str(tmp_path / "m")
    paddle.static.save_inference_model(prefix, [x], [y], exe, program=main)
    assert sorted(os.listdir(tmp_path)) == ["m.pdmodel"]  # as Paddle: no .pdiparams
    prog, feeds, fetches = paddle.static.load_inference_model(prefix, exe)
    xv = RNG.standard_normal((3, 2)).astype("float32")
    (got,) = exe.run(prog, feed={feeds[0]: xv}, fetch_list=fetches)
    np.testing.assert_allclose(got, xv * 2 + 1, rtol=1e-6)
    with pytest.warns(UserWarning, match="no variable in your model"):
        assert paddle.static.serialize_persistables([x], [y], exe, program=main) is None


def test_persistables_through_memory_and_files(tmp_path):
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = paddle.static.data("x", [-1, 3], "float32")
        y = fluid.layers.fc(x, 2)
    exe = fluid.Executor(fluid.CPUPlace())
    xv = RNG.standard_normal((4, 3)).astype("float32")
    with fluid.scope_guard(fluid.Scope()):
        exe.run(startup)
        (want,) = exe.run(main, feed={"x": xv}, fetch_list=[y])
        model = paddle.static.serialize_program([x], [y], program=main)
        params = paddle.static.serialize_persistables([x], [y], exe, program=main)
        normalized = paddle.static.normalize_program(main, [x], [y])
    assert [op.type for op in normalized.global_block().ops][::len(normalized.global_block().ops) - 1] \
        == ["feed", "fetch"]
    paddle.static.save_to_file(str(tmp_path / "p.bin"), params)
    assert paddle.static.load_from_file(str(tmp_path / "p.bin")) == params
    with pytest.raises(ValueError, match="should be bytes"):
        paddle.static.save_to_file(str(tmp_path / "q.bin"), "text")
    with fluid.scope_guard(fluid.Scope()):
        prog, feeds, fetches = paddle.static.load_inference_model(
            None, exe, model_filename=model, params_filename=params)
        (got,) = exe.run(prog, feed={"x": xv}, fetch_list=fetches)
    np.testing.assert_array_equal(got, want)
    with fluid.scope_guard(fluid.Scope()):
        paddle.static.deserialize_persistables(normalized, params, exe)
        (got,) = exe.run(normalized, feed={"x": xv}, fetch_list=[y.name])
    np.testing.assert_array_equal(got, want)


# -- create_lod_tensor errors (Paddle's test_lod_tensor.py) ------------------------------------------

def test_create_lod_tensor_errors_of_paddles_types():
    with pytest.raises(AssertionError):  # sequences whose lengths are not the last level
        fluid.create_lod_tensor([[1, 2, 3], [3, 4]], [[2, 2]], fluid.CPUPlace())
    t = fluid.create_lod_tensor([[np.int64(1), np.int64(2), np.int64(3)], [np.int64(3)]],
                                [[3, 1]], fluid.CPUPlace())
    assert t.recursive_sequence_lengths() == [[3, 1]]
    with pytest.raises(ValueError, match="do not cover"):
        fluid.create_lod_tensor(np.ones((5, 1), "float32"), [[2, 2]], fluid.CPUPlace())
    with pytest.raises(TypeError, match="list of levels"):
        fluid.create_lod_tensor(np.ones((4, 1), "float32"), [2, 2], fluid.CPUPlace())
    with pytest.raises(TypeError):
        fluid.create_lod_tensor("abc", [[2, 2]], fluid.CPUPlace())


# -- readers --------------------------------------------------------------------------------------

def _counting(start, n):
    def reader():
        for i in range(start, start + n):
            yield (i, np.full(2, i, "float32"))
    return reader


def test_multiprocess_reader_reads_every_reader_in_its_process():
    samples = list(fluid.reader.multiprocess_reader([_counting(0, 5), _counting(100, 3)])())
    assert sorted(s[0] for s in samples) == [0, 1, 2, 3, 4, 100, 101, 102]
    assert all(np.array_equal(s[1], np.full(2, s[0], "float32")) for s in samples)

    def failing():
        yield (1,)
        raise KeyError("broken file")
    with pytest.raises(ValueError, match="broken file"):  # Paddle's type
        list(fluid.reader.multiprocess_reader([failing])())
    with pytest.raises(ValueError):
        fluid.reader.multiprocess_reader([])


def test_io_shuffle_is_a_permutation():
    out = [s[0] for s in fluid.io.shuffle(_counting(0, 20), 7)()]
    assert sorted(out) == list(range(20))


# -- metrics --------------------------------------------------------------------------------------

def _auc_by_pairs(scores, labels, buckets):
    """AUC as the probability a positive outranks a negative (ties half), on bucketed scores."""
    b = np.floor(scores * buckets)
    pos, neg = b[labels == 1], b[labels == 0]
    wins = (pos[:, None] > neg[None, :]).sum() + 0.5 * (pos[:, None] == neg[None, :]).sum()
    return wins / (len(pos) * len(neg))


def test_fluid_metrics_against_direct_counts():
    preds = RNG.random((50, 1))
    labels = (RNG.random((50, 1)) > 0.5).astype("int64")
    hard = np.rint(preds)
    tp = int(((hard == 1) & (labels == 1)).sum())
    p, r = fluid.metrics.Precision(), fluid.metrics.Recall()
    comp = fluid.metrics.CompositeMetric()
    comp.add_metric(p)
    comp.add_metric(r)
    comp.update(preds[:20], labels[:20])
    comp.update(preds[20:], labels[20:])
    assert comp.eval() == [tp / int((hard == 1).sum()), tp / int((labels == 1).sum())]
    p.reset()
    assert p.tp == 0 and p.eval() == 0.0

    acc = fluid.metrics.Accuracy()
    for value, weight in ((0.5, 10), (1.0, 30)):
        acc.update(value, weight)
    assert acc.eval() == pytest.approx((5 + 30) / 40)
    with pytest.raises(ValueError, match="no data"):
        fluid.metrics.Accuracy().eval()

    chunk = fluid.metrics.ChunkEvaluator()
    chunk.update(np.array([4]), np.array([5]), np.array([3]))
    prec, rec, f1 = chunk.eval()
    assert (prec, rec) == (0.75, 0.6) and f1 == pytest.approx(2 * 0.75 * 0.6 / 1.35)

    ed = fluid.metrics.EditDistance("ed")
    ed.update(np.array([[0.0], [2.0], [1.0]]), 3)
    assert ed.eval() == (1.0, pytest.approx(2 / 3))

    scores = RNG.random(200)
    y = (RNG.random(200) < scores).astype("int64")  # informative scores
    auc = fluid.metrics.Auc("auc", num_thresholds=200)
    auc.update(np.stack([1 - scores, scores], 1), y)
    assert auc.eval() == pytest.approx(_auc_by_pairs(scores, y, 200), rel=1e-12)


def test_paddle_metric_classes():
    pred = RNG.random((8, 5)).astype("float32")
    label = RNG.integers(0, 5, (8, 1))
    m = paddle.metric.Accuracy(topk=(1, 3))
    correct = m.compute(pred, label)
    top = np.argsort(-pred, axis=1)
    want = [float(np.mean(top[:, :k] == label, axis=0).sum()) for k in (1, 3)]
    assert m.update(correct) == pytest.approx(want)
    assert m.accumulate() == pytest.approx(want) and m.name() == ["acc_top1", "acc_top3"]
    prec = paddle.metric.Precision()
    prec.update(np.array([0.5, 0.2, 0.9]), np.array([0, 0, 1]))  # 0.5 rounds up here
    assert (prec.tp, prec.fp, prec.accumulate(), prec.name()) == (1, 1, 0.5, "precision")
    auc = paddle.metric.Auc(num_thresholds=100)
    scores = RNG.random(60)
    y = (RNG.random(60) < scores).astype("int64")
    auc.update(np.stack([1 - scores, scores], 1), y)
    assert auc.accumulate() == pytest.approx(_auc_by_pairs(scores, y, 100), rel=1e-12)


def test_seed_makes_new_programs_draw_the_same_numbers():
    def draw():
        main, startup = fluid.Program(), fluid.Program()
        with fluid.program_guard(main, startup):
            w = fluid.layers.create_parameter([4, 3], "float32")
        with fluid.scope_guard(fluid.Scope()):
            exe = fluid.Executor(fluid.CPUPlace())
            exe.run(startup)
            return np.array(fluid.global_scope().find_var(w.name).get_tensor())
    paddle.seed(123)
    first = draw()
    paddle.seed(123)
    np.testing.assert_array_equal(draw(), first)
