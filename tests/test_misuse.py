"""A misuse campaign: bad feeds, bad fetches, bad layer arguments, bad attributes, indices out of
range and empty batches. Each case either runs as Paddle 3.3.1 runs it (the expected values
below were read off Paddle) or raises a fluidc error of the type Paddle's tests expect, whose
message names the var, op or argument at fault. Nothing crashes and nothing reaches a
generated kernel or torch with a bad value."""
import os

import numpy as np
import pytest

os.environ.setdefault("TRITON_INTERPRET", "1")  # read when kernels load; as in test_triton.py
import fluidc as fluid  # noqa: E402
from fluidc.frontend.errors import (FeedError, FetchError, FluidcError, IndexRangeError, OpError,  # noqa: E402
                                    ShapeError)

L = fluid.layers
X = np.random.default_rng(0).random((5, 4)).astype("float32")
Y = np.array([[0], [2], [1], [1], [0]], "int64")


def _classifier():
    x = fluid.data("x", [-1, 4])
    y = fluid.data("y", [-1, 1], "int64")
    h = L.fc(x, 3)
    loss = L.mean(L.softmax_with_cross_entropy(h, y))
    orphan = fluid.default_main_program().global_block().create_var(
        name="orphan", shape=[2], dtype="float32")
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(fluid.default_startup_program())
    return exe, x, y, h, loss, orphan


# (case, run kwargs from (x, y, h, loss, orphan), expected error or None, message pattern)
FEEDS = [
    ("missing label", lambda x, y, h, l, o: dict(feed={"x": X}, fetch_list=[l]),
     FeedError, "'y' is needed"),
    ("float64 into float32", lambda x, y, h, l, o: dict(feed={"x": X.astype("f8"), "y": Y},
                                                        fetch_list=[l]), FeedError, "'x'.*float32"),
    ("int32 into float32", lambda x, y, h, l, o: dict(feed={"x": X.astype("i4"), "y": Y},
                                                      fetch_list=[l]), FeedError, "'x'.*int32"),
    ("bool into float32", lambda x, y, h, l, o: dict(feed={"x": X > 0.5, "y": Y},
                                                     fetch_list=[l]), FeedError, "'x'.*bool"),
    ("float labels", lambda x, y, h, l, o: dict(feed={"x": X, "y": Y.astype("f4")},
                                                fetch_list=[l]), FeedError, "'y'.*int64"),
    ("wrong rank", lambda x, y, h, l, o: dict(feed={"x": X.reshape(5, 2, 2), "y": Y},
                                              fetch_list=[l]), FeedError, r"'x'.*\[5, 2, 2\]"),
    ("wrong dim", lambda x, y, h, l, o: dict(feed={"x": X[:, :3], "y": Y}, fetch_list=[l]),
     FeedError, r"'x'.*\[5, 3\]"),
    # Paddle's feed check passes a feed with fewer dims than declared; the op then rejects it
    ("1-D labels", lambda x, y, h, l, o: dict(feed={"x": X, "y": Y.ravel()}, fetch_list=[l]),
     ShapeError, r"Label shape \[5\]"),
    ("scalar feed", lambda x, y, h, l, o: dict(feed={"x": np.float32(3), "y": Y},
                                               fetch_list=[l]), FeedError, r"'x'.*received fed shape \[\]"),
    ("string feed", lambda x, y, h, l, o: dict(feed={"x": "abc", "y": Y}, fetch_list=[l]),
     FeedError, "'x'.*str"),
    ("None feed", lambda x, y, h, l, o: dict(feed={"x": None, "y": Y}, fetch_list=[l]),
     FeedError, "'x' is None"),
    ("object array", lambda x, y, h, l, o: dict(
        feed={"x": np.array([object()] * 20).reshape(5, 4), "y": Y}, fetch_list=[l]),
     FeedError, "'x'.*object"),
    ("ragged list", lambda x, y, h, l, o: dict(feed={"x": [[1.0, 2.0], [3.0]], "y": Y},
                                               fetch_list=[l]), FeedError, "'x'"),
    ("rows differ", lambda x, y, h, l, o: dict(feed={"x": X, "y": Y[:4]}, fetch_list=[l]),
     ShapeError, "softmax_with_cross_entropy.*Label"),
    ("feed not a dict", lambda x, y, h, l, o: dict(feed=[X, Y], fetch_list=[l]),
     FeedError, "dict"),
    ("Variable keys", lambda x, y, h, l, o: dict(feed={x: X, y: Y}, fetch_list=[l]),
     FeedError, "var names"),
    ("unknown fetch", lambda x, y, h, l, o: dict(feed={"x": X, "y": Y}, fetch_list=["nope"]),
     FetchError, "'nope'"),
    ("fetch nothing writes", lambda x, y, h, l, o: dict(feed={"x": X, "y": Y}, fetch_list=[o]),
     FetchError, "'orphan' has no value"),
    ("fetch an int", lambda x, y, h, l, o: dict(feed={"x": X, "y": Y}, fetch_list=[3]),
     TypeError, "int"),
    ("program a str", lambda x, y, h, l, o: dict(program="main", feed={"x": X, "y": Y},
                                                 fetch_list=[l]), TypeError, "str"),
    ("scope an int", lambda x, y, h, l, o: dict(feed={"x": X, "y": Y}, fetch_list=[l], scope=3),
     TypeError, "Scope"),
    # what Paddle runs
    ("list feed", lambda x, y, h, l, o: dict(feed={"x": X.tolist(), "y": Y.tolist()},
                                             fetch_list=[l]), None, None),
    ("Fortran order", lambda x, y, h, l, o: dict(feed={"x": np.asfortranarray(X), "y": Y},
                                                 fetch_list=[l]), None, None),
    ("negative strides", lambda x, y, h, l, o: dict(feed={"x": X[::-1], "y": Y[::-1]},
                                                    fetch_list=[l]), None, None),
    ("one target unlisted", lambda x, y, h, l, o: dict(feed={"x": X, "y": Y}, fetch_list=l),
     None, None),
    ("NaN features", lambda x, y, h, l, o: dict(feed={"x": X * np.nan, "y": Y}, fetch_list=[l]),
     None, None),
]


@pytest.mark.parametrize("case,kwargs,error,pattern", FEEDS, ids=[c[0] for c in FEEDS])
def test_bad_feeds_and_fetches(case, kwargs, error, pattern):
    exe, x, y, h, loss, orphan = _classifier()
    kw = kwargs(x, y, h, loss, orphan)
    if error is None:
        got = exe.run(**kw)
        feed = {k: np.asarray(v) for k, v in kw["feed"].items()}
        want = exe.run(feed={"x": np.ascontiguousarray(feed["x"], "float32"),
                             "y": np.ascontiguousarray(feed["y"], "int64")}, fetch_list=[loss])
        np.testing.assert_array_equal(got[0], want[0])
        return
    with pytest.raises(error, match=pattern):
        exe.run(**kw)


def test_unknown_feed_is_ignored_with_a_warning():
    exe, x, y, h, loss, _ = _classifier()
    with pytest.warns(UserWarning, match="'zz' is not a var"):
        got = exe.run(feed={"x": X, "y": Y, "zz": X}, fetch_list=[loss])
    np.testing.assert_array_equal(got[0], exe.run(feed={"x": X, "y": Y}, fetch_list=[loss])[0])


def _x(shape=(-1, 4), dtype="float32", name="x"):
    return fluid.data(name, list(shape), dtype)


# (case, build, expected error, message pattern): Paddle rejects each of these too.
BUILDS = [
    ("fc on an array", lambda: L.fc(np.ones((2, 4), "float32"), 3), TypeError, "ndarray"),
    ("fc size 0", lambda: L.fc(_x(), 0), FluidcError, r"\[4, 0\]"),
    ("fc size 2.5", lambda: L.fc(_x(), 2.5), TypeError, r"\[4, 2.5\]"),
    ("fc unknown act", lambda: L.fc(_x(), 2, act="relux"), OpError, "'relux'"),
    ("data dtype", lambda: fluid.data("x", [2], "float33"), FluidcError, "'float33'"),
    ("data shape str", lambda: fluid.data("x", [2, "a"]), TypeError, "'x'.*'a'"),
    ("data shape -5", lambda: fluid.data("x", [2, -5]), ValueError, "'x'.*-5"),
    ("data twice", lambda: (fluid.data("x", [2]), fluid.data("x", [3])), ValueError,
     "'x' exists already"),
    ("two -1 in reshape", lambda: L.reshape(_x(), [-1, -1]), ShapeError, "reshape2"),
    ("reshape count", lambda: L.reshape(_x((2, 4)), [3, 3]), ShapeError, "reshape2"),
    ("concat dims", lambda: L.concat([_x((2, 4)), _x((3, 5), name="y")], axis=0), ShapeError,
     "concat"),
    ("add shapes", lambda: L.elementwise_add(_x((2, 4)), _x((2, 5), name="y")), ShapeError,
     "elementwise_add"),
    ("matmul shapes", lambda: L.matmul(_x((2, 4)), _x((5, 3), name="y")), ShapeError, "matmul"),
    ("conv2d on 2-D", lambda: L.conv2d(_x((2, 4)), 3, 3), ShapeError, "conv2d"),
    ("conv2d stride 0", lambda: L.conv2d(_x((1, 1, 4, 4)), 2, 3, stride=0), ShapeError,
     "strides"),
    ("conv2d groups", lambda: L.conv2d(_x((1, 3, 4, 4)), 2, 3, groups=2), FluidcError, "groups"),
    ("pool2d on 2-D", lambda: L.pool2d(_x((2, 4)), 2), ShapeError, "pool2d"),
    ("batch_norm on 1-D", lambda: L.batch_norm(_x((4,))), ShapeError, "rank 2 to 5"),
    ("dropout p=2", lambda: L.dropout(_x(), 2.0), OpError, "dropout_prob"),
    ("softmax axis 5", lambda: L.softmax(_x(), axis=5), ShapeError, "softmax.*axis 5"),
    ("reduce dim 5", lambda: L.reduce_sum(_x(), dim=5), ShapeError, "reduce_sum.*dim"),
    ("transpose perm", lambda: L.transpose(_x((2, 4)), [0, 0]), ShapeError, "transpose2"),
    ("slice axis", lambda: L.slice(_x((2, 4)), axes=[3], starts=[0], ends=[1]), ShapeError,
     "slice"),
    ("split uneven", lambda: L.split(_x((2, 5)), 2, dim=1), ShapeError, "split"),
    ("embedding 1-D size", lambda: L.embedding(_x((-1, 1), "int64"), size=[10]), ShapeError,
     "W must be 2-D"),
    ("embedding float ids", lambda: L.embedding(_x((-1, 1)), size=[10, 2]), OpError,
     "Ids must be int"),
    ("gather float index", lambda: L.gather(_x((4, 2)), _x((2,), name="i")), OpError,
     "Index must be int"),
    ("cast dtype", lambda: L.cast(_x(), "float99"), FluidcError, "'float99'"),
    ("fill negative", lambda: L.fill_constant([2, -3], "float32", 1.0), ValueError,
     "fill_constant"),
    ("fill past int64", lambda: L.fill_constant([2 ** 40, 2 ** 40], "float32", 1.0), OpError,
     "int64"),
    ("top_k 0", lambda: L.topk(_x(), 0), ShapeError, "k=0"),
    ("top_k past the dim", lambda: L.topk(_x((2, 4)), 9), ShapeError, "k=9"),
    ("layer_norm axis", lambda: L.layer_norm(_x(), begin_norm_axis=5), ShapeError,
     "begin_norm_axis"),
    ("unsqueeze axis", lambda: L.unsqueeze(_x((2, 4)), [7]), ShapeError, "unsqueeze2"),
    ("stack shapes", lambda: L.stack([_x((2, 4)), _x((2, 5), name="y")]), ShapeError, "stack"),
    ("expand rank", lambda: L.expand(_x((2, 4)), [2]), FluidcError, "expand_times"),
    ("program_guard a str", lambda: fluid.program_guard("a").__enter__(), TypeError, "Program"),
    ("SGD rate a str", lambda: fluid.optimizer.SGD("0.1"), TypeError, "str"),
    ("minimize a vector", lambda: fluid.optimizer.SGD(0.1).minimize(L.fc(_x(), 2)), FluidcError,
     "one value"),
    ("minimize an array", lambda: fluid.optimizer.SGD(0.1).minimize(np.ones(1)), TypeError,
     "ndarray"),
]


@pytest.mark.parametrize("case,build,error,pattern", BUILDS, ids=[c[0] for c in BUILDS])
def test_bad_layer_arguments(case, build, error, pattern):
    with pytest.raises(error, match=pattern):
        build()


def _append_scale(attrs):
    block = fluid.default_main_program().global_block()
    x = _x()
    out = block.create_var(name="out", dtype="float32")
    block.append_op("scale", inputs={"X": [x]}, outputs={"Out": [out]}, attrs=attrs)


@pytest.mark.parametrize("attrs,pattern", [
    ({"scale": "2"}, "'scale' must be a float.*str"),
    ({"scale": [2.0]}, "'scale' must be a float.*list"),
    ({"bias_after_scale": "yes"}, "'bias_after_scale' must be a bool"),
    ({"bias_after_scale": 2}, "'bias_after_scale' must be a bool"),
    ({"op_role": 1.5}, "'op_role' must be a int"),
    ({"op_callstack": [1, 2]}, "'op_callstack' must be a list of str"),
])
def test_attribute_types_are_checked_at_append_op(attrs, pattern):
    with pytest.raises(OpError, match=pattern):
        _append_scale(attrs)


def test_attribute_values_of_compatible_types_are_taken():
    _append_scale({"scale": 2, "bias": np.float32(0.5), "bias_after_scale": 1})
    _append_scale({"scale": np.int64(3)})


# ---------------------------------------------------------------------------------------------
# Indices out of range: Paddle raises for each of these (and runs the accepted ones).

def _indexed_program(kind):
    if kind == "softmax_with_cross_entropy":
        logits, label = _x((-1, 10)), _x((-1, 1), "int64", "label")
        return L.softmax_with_cross_entropy(logits, label), ("x", "float32", (4, 10))
    if kind == "cross_entropy":
        probs, label = _x((-1, 10)), _x((-1, 1), "int64", "label")
        return L.cross_entropy(L.softmax(probs), label), ("x", "float32", (4, 10))
    if kind == "accuracy":
        probs, label = _x((-1, 10)), _x((-1, 1), "int64", "label")
        return L.accuracy(L.softmax(probs), label), ("x", "float32", (4, 10))
    if kind == "embedding":
        ids = _x((-1, 1), "int64", "label")
        return L.embedding(ids, size=[10, 3]), None
    if kind == "gather":
        table, index = _x((10, 3)), _x((4,), "int64", "label")
        return L.gather(table, index), ("x", "float32", (10, 3))
    raise AssertionError(kind)


@pytest.mark.parametrize("kind,label,ok", [
    ("softmax_with_cross_entropy", 10, False), ("softmax_with_cross_entropy", -1, False),
    ("softmax_with_cross_entropy", 2 ** 31, False), ("softmax_with_cross_entropy", -100, True),
    ("cross_entropy", 10, False), ("cross_entropy", -7, False), ("cross_entropy", 9, True),
    ("accuracy", -1, False), ("accuracy", 10, True), ("accuracy", 2 ** 31, True),
    ("embedding", 10, False), ("embedding", -2, False), ("embedding", 2 ** 40, False),
    ("embedding", 9, True),
    ("gather", 10, False), ("gather", -11, False), ("gather", -10, True), ("gather", 9, True),
])
@pytest.mark.parametrize("executor", ["compiled", "reference"])
def test_indices_out_of_range_raise_naming_op_var_and_value(kind, label, ok, executor):
    out, other = _indexed_program(kind)
    shape = (4,) if kind == "gather" else (4, 1)
    labels = np.zeros(shape, "int64")
    labels[2] = label
    feed = {"label": labels}
    if other:
        feed[other[0]] = np.random.default_rng(1).random(other[2]).astype(other[1])
    if executor == "compiled":
        exe = fluid.Executor(fluid.CPUPlace())
        exe.run(fluid.default_startup_program())
        run = lambda: exe.run(feed=feed, fetch_list=[out])  # noqa: E731
    else:
        from op_harness import run_reference
        exe = fluid.Executor(fluid.CPUPlace())
        exe.run(fluid.default_startup_program())
        run = lambda: run_reference(fluid.default_main_program(), feed, [out.name],  # noqa: E731
                                    fluid.global_scope())
    if ok:
        run()
        return
    op = {"embedding": "lookup_table", "cross_entropy": "cross_entropy2?"}.get(kind, kind)
    with pytest.raises(IndexRangeError, match=rf"'{op}'.*'label'.*holds {label}"):
        run()


def test_index_checks_are_inserted_once_and_split_no_kernel():
    logits, label = _x((-1, 10)), _x((-1, 1), "int64", "label")
    loss = L.mean(L.softmax_with_cross_entropy(L.fc(logits, 10), label))
    fluid.optimizer.SGD(0.1).minimize(loss)
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(fluid.default_startup_program())
    exe.run(feed={"x": np.ones((3, 10), "float32"), "label": np.ones((3, 1), "int64")},
            fetch_list=[loss])
    steps = list(exe._plans.values())[-1].lowered.steps
    checks = [s for s in steps if getattr(s, "op", None) is not None and s.op.type == "check_index"]
    assert len(checks) == 1 and steps[0] is checks[0]


def test_index_check_on_triton():
    pytest.importorskip("triton")
    if os.environ.get("TRITON_INTERPRET") != "1" and not fluid.is_compiled_with_cuda():
        pytest.skip("no GPU, and Triton's interpreter was not chosen before triton loaded")
    out, other = _indexed_program("softmax_with_cross_entropy")
    exe = fluid.Executor(fluid.CUDAPlace(0))
    with pytest.raises(IndexRangeError, match="holds 12"):
        exe.run(feed={"x": np.ones((4, 10), "float32"), "label": np.full((4, 1), 12, "int64")},
                fetch_list=[out])


# ---------------------------------------------------------------------------------------------
# Empty batches: Paddle runs them (a mean over nothing is NaN, parameters stay as they are).

def test_a_training_step_on_an_empty_batch_runs_as_in_paddle():
    x = fluid.data("x", [-1, 4])
    y = fluid.data("y", [-1, 1], "int64")
    h = L.fc(x, 3, act="relu")
    loss = L.mean(L.softmax_with_cross_entropy(h, y))
    fluid.optimizer.SGD(0.1).minimize(loss)
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(fluid.default_startup_program())
    scope = fluid.global_scope()
    before = {p.name: np.array(scope.find_var(p.name).get_tensor())
              for p in fluid.default_main_program().all_parameters()}
    got_loss, got_h = exe.run(feed={"x": X[:0], "y": Y[:0]}, fetch_list=[loss, h])
    assert np.isnan(got_loss).all() and got_h.shape == (0, 3)
    for name, value in before.items():
        np.testing.assert_array_equal(np.array(scope.find_var(name).get_tensor()), value)
    exe.run(feed={"x": X, "y": Y}, fetch_list=[loss])  # the next full batch trains as usual


# ---------------------------------------------------------------------------------------------
# LoD, readers and files used wrongly.

def _sequence_sum():
    x = fluid.data("x", [-1, 3], lod_level=1)
    return L.sequence_pool(x, "sum")


def _lod_tensor(offsets):
    t = fluid.LoDTensor()
    t.set(np.ones((4, 3), "float32"), fluid.CPUPlace())
    t.set_lod([offsets])
    return t


def _fc_with_exe():
    x = fluid.data("x", [-1, 3])
    y = L.fc(x, 2)
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(fluid.default_startup_program())
    return x, y, exe


def _unstarted_reader():
    x, y, exe = _fc_with_exe()
    reader = fluid.io.DataLoader.from_generator(feed_list=[x], capacity=4, iterable=False)
    reader.set_sample_list_generator(lambda: iter([[(np.ones(3, "float32"),)]]))
    exe.run(fetch_list=[y])


def _sourceless_reader():
    x, y, exe = _fc_with_exe()
    next(iter(fluid.io.DataLoader.from_generator(feed_list=[x], capacity=4)))


def _save_unknown_feed(tmp):
    x, y, exe = _fc_with_exe()
    fluid.io.save_inference_model(str(tmp / "m"), ["nope"], [y], exe)


def _save_before_startup(tmp):
    x = fluid.data("x", [-1, 3])
    L.fc(x, 2)
    fluid.io.save_persistables(fluid.Executor(fluid.CPUPlace()), str(tmp / "p"))


def _load_missing_dir(tmp):
    x, y, exe = _fc_with_exe()
    fluid.io.load_persistables(exe, str(tmp / "absent"))


MISC = [
    ("sequence op without LoD", lambda tmp: fluid.Executor(fluid.CPUPlace()).run(
        feed={"x": np.ones((4, 3), "float32")}, fetch_list=[_sequence_sum()]), OpError,
     "sequence_pool.*LoD"),
    ("LoD past the rows", lambda tmp: fluid.Executor(fluid.CPUPlace()).run(
        feed={"x": _lod_tensor([0, 2, 5])}, fetch_list=[_sequence_sum()]), FeedError,
     r"'x'.*\[0, 2, 5\]"),
    ("LoD not increasing", lambda tmp: fluid.Executor(fluid.CPUPlace()).run(
        feed={"x": _lod_tensor([0, 3, 2, 4])}, fetch_list=[_sequence_sum()]), FeedError, "'x'"),
    ("sequence lengths past the data", lambda tmp: fluid.create_lod_tensor(
        np.ones((4, 3)), [[1, 2]], fluid.CPUPlace()), FeedError, r"\[\[1, 2\]\]"),
    ("reader not started", lambda tmp: _unstarted_reader(), FluidcError, "not started"),
    ("reader without a source", lambda tmp: _sourceless_reader(), FluidcError, "no data source"),
    ("save an unknown feed", _save_unknown_feed, FluidcError, "'nope'"),
    ("save before startup", _save_before_startup, FluidcError, "startup"),
    ("load from a missing dir", _load_missing_dir, FluidcError, "absent"),
]


@pytest.mark.parametrize("case,run,error,pattern", MISC, ids=[c[0] for c in MISC])
def test_lod_reader_and_file_misuse(tmp_path, case, run, error, pattern):
    with pytest.raises(error, match=pattern):
        run(tmp_path)
