"""Tensor-valued arguments and Paddle's argument checks: F.one_hot with a Variable num_classes
(depth_tensor), paddle.scale with a Variable scale (ScaleTensor), random ops shaped by
paddle.shape(x) (ShapeTensorList; F.dropout along axes of unknown size), paddle.assign, and
embedding ids of every int dtype. Compiled runs are checked against numpy and against the
numpy reference executor."""
import numpy as np
import pytest

import fluidc as paddle
from fluidc.frontend.errors import OpError
from fluidc.frontend.layers import tensor as T
from fluidc.runtime import executor as executor_mod

F = paddle.nn.functional


def _exe():
    return paddle.static.Executor(paddle.CPUPlace())


def _reference_exe(monkeypatch):
    """An executor that runs programs on the numpy reference (no C compiler)."""
    monkeypatch.setattr(executor_mod, "find_compiler", lambda: None)
    monkeypatch.setattr(executor_mod, "_warned_no_compiler", True)
    return _exe()


def _one_hot(ids, depth):
    return (ids[..., None] == np.arange(depth)).astype(np.float32)


def test_one_hot_depth_fed_plans_per_value(monkeypatch):
    rng = np.random.default_rng(0)
    x = paddle.static.data("x", [-1, 3], "int64")
    depth = paddle.static.data("depth", [], "int32")
    out = F.one_hot(x, depth)
    assert tuple(out.shape) == (-1, 3, -1)
    exe = _exe()
    for d in (5, 9, 5):
        ids = rng.integers(0, d, size=(4, 3))
        got, = exe.run(feed={"x": ids, "depth": np.array(d, np.int32)}, fetch_list=[out])
        np.testing.assert_array_equal(got, _one_hot(ids, d))
    assert len(exe._plans) == 2  # one per depth value
    ids = rng.integers(0, 7, size=(2, 3))
    ref, = _reference_exe(monkeypatch).run(feed={"x": ids, "depth": np.array(7, np.int32)},
                                           fetch_list=[out])
    np.testing.assert_array_equal(ref, _one_hot(ids, 7))


def test_one_hot_depth_from_assign_and_full():
    x = paddle.static.data("x", [4], "int32")
    outs = [F.one_hot(x, paddle.assign(np.array([6], np.int32))),
            F.one_hot(x, paddle.full([1], 6, "int64"))]
    ids = np.array([0, 5, 2, 2], np.int32)
    for got in _exe().run(feed={"x": ids}, fetch_list=outs):
        np.testing.assert_array_equal(got, _one_hot(ids, 6))


def test_fluid_one_hot_takes_a_variable_depth():
    ids = paddle.static.data("ids", [5, 1], "int64")
    out = paddle.layers.one_hot(ids, paddle.full([1], 4, "int32"))
    iv = np.array([[0], [3], [1], [1], [2]])
    got, = _exe().run(feed={"ids": iv}, fetch_list=[out])
    np.testing.assert_array_equal(got, _one_hot(iv[:, 0], 4))
    with pytest.raises(TypeError, match="one_hot"):
        paddle.layers.one_hot(paddle.static.data("f", [5, 1], "float32"), 4)


def test_one_hot_depth_computed_at_run_time_is_named():
    x = paddle.static.data("x", [4], "int32")
    d = paddle.static.data("d", [1], "float32")
    out = F.one_hot(x, paddle.cast(d, "int32") * 2)  # a cast alone folds (keyed on d)
    with pytest.raises(OpError, match="must be fed"):
        _exe().run(feed={"x": np.zeros(4, np.int32), "d": np.ones(1, np.float32)},
                   fetch_list=[out])


def test_one_hot_argument_errors():
    with pytest.raises(TypeError, match="one_hot_v2"):
        F.one_hot(paddle.static.data("f", [2], "float32"), 3)
    with pytest.raises(TypeError, match="num_classes"):
        F.one_hot(paddle.static.data("i", [2], "int64"), 3.5)
    with pytest.raises(TypeError, match="num_classes"):
        F.one_hot(paddle.static.data("j", [2], "int64"), paddle.static.data("k", [1], "float32"))


@pytest.mark.parametrize("bias_after_scale", [True, False])
def test_scale_by_a_fed_tensor_matches_numpy_and_reference(monkeypatch, bias_after_scale):
    rng = np.random.default_rng(1)
    for shape in [(3, 4), (2, 1, 5), (7,)]:
        main, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, startup):
            x = paddle.static.data("x", list(shape), "float64")
            s = paddle.static.data("s", [1], "float64")
            out = paddle.scale(x, scale=s, bias=0.5, bias_after_scale=bias_after_scale)
            assert main.global_block().ops[-1].input("ScaleTensor") == ["s"]
        xv, sv = rng.normal(size=shape), rng.normal(size=(1,))
        want = xv * sv + 0.5 if bias_after_scale else (xv + 0.5) * sv
        got, = _exe().run(main, feed={"x": xv, "s": sv}, fetch_list=[out])
        np.testing.assert_allclose(got, want, rtol=1e-12)
        ref, = _reference_exe(monkeypatch).run(main, feed={"x": xv, "s": sv}, fetch_list=[out])
        np.testing.assert_allclose(ref, want, rtol=1e-12)
        monkeypatch.undo()


def test_scale_tensor_gradient_and_shape_check():
    x = paddle.static.data("x", [2, 3], "float64")
    x.stop_gradient = False
    s = paddle.static.data("s", [1], "float64")
    loss = paddle.mean(paddle.scale(x, s, bias=1.0))
    dx, = paddle.static.gradients([loss], [x])
    got, = _exe().run(feed={"x": np.ones((2, 3)), "s": np.array([-1.5])}, fetch_list=[dx])
    np.testing.assert_allclose(got, np.full((2, 3), -1.5 / 6))
    with pytest.raises(paddle.FluidcError, match="ScaleTensor must hold one value"):
        paddle.scale(x, paddle.static.data("s2", [2], "float64"))


def test_scale_checks_and_inplace():
    with pytest.raises(TypeError, match="'x' in scale"):
        paddle.scale([10])
    with pytest.raises(TypeError, match="'x' in scale"):
        paddle.scale(paddle.static.data("b", [2], "bool"))
    x = paddle.static.data("x", [3], "float32")
    with pytest.warns(UserWarning, match="scale_"):
        y = x.scale_(2.0, 1.0)
    got, = _exe().run(feed={"x": np.arange(3, dtype=np.float32)}, fetch_list=[y])
    np.testing.assert_array_equal(got, [1, 3, 5])


def test_random_shape_from_paddle_shape_follows_the_feed(monkeypatch):
    x = paddle.static.data("x", [-1, -1], "float32")
    h = paddle.exp(x)  # an intermediate var: its shape is inferred from the feed's
    u = T.uniform_random([T.shape(h)[1], 3, T.shape(x)[0]], "float32", 2.0, 3.0)
    for exe in (_exe(), _reference_exe(monkeypatch)):
        for shape in [(4, 6), (2, 5), (4, 6)]:
            got, = exe.run(feed={"x": np.zeros(shape, np.float32)}, fetch_list=[u])
            assert got.shape == (shape[1], 3, shape[0])
            assert got.min() >= 2.0 and got.max() < 3.0 and np.unique(got).size == got.size


@pytest.mark.parametrize("axis", [0, 1, [0, 1]])
def test_dropout_along_axes_of_unknown_size(axis):
    p = 0.6
    x = paddle.static.data("x", [-1, -1], "float64")
    out = F.dropout(x, p=p, axis=axis, training=True, mode="upscale_in_train")
    axes = [axis] if isinstance(axis, int) else axis
    exe = _exe()
    rng = np.random.default_rng(2)
    kept = []
    paddle.seed(7)
    for shape in [(40, 30), (50, 45)]:
        xv = rng.uniform(1, 2, size=shape)
        got, = exe.run(feed={"x": xv}, fetch_list=[out])
        mask = (got != 0).astype(np.float64)
        np.testing.assert_allclose(got, mask * xv / (1 - p), rtol=1e-12)
        for a in range(2):  # one draw per index of the dropped axes, shared along the others
            if a not in axes:
                assert (np.diff(mask, axis=a) == 0).all()
        kept.append(mask.mean())
    assert all(0.15 < k < 0.65 for k in kept)  # keep probability 0.4, >= 30 draws


def _assign_fetch(*values):
    main = paddle.static.Program()
    with paddle.static.program_guard(main, paddle.static.Program()):
        outs = [paddle.assign(v) for v in values]
    return _exe().run(main, fetch_list=outs)


def test_assign_constants_keep_value_and_dtype():
    arrays = [np.array([[0.1, 1e300], [-2.5, 3.0]]), np.array([1.5, -0.25], np.float32),
              np.array([2 ** 40, -3], np.int64), np.array([[7]], np.int32),
              np.array([True, False])]
    for a, got in zip(arrays, _assign_fetch(*arrays)):
        assert got.dtype == a.dtype
        np.testing.assert_array_equal(got, a)
    # Python values as Paddle takes them: a scalar is a [1] array, int -> int64, float -> float64
    got = _assign_fetch(3, 2.5, True, [1, 2], (0.5, 1.5))
    want = [np.array([3]), np.array([2.5]), np.array([True]), np.array([1, 2]),
            np.array([0.5, 1.5])]
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_array_equal(g, w)


def test_assign_variables_and_output():
    x = paddle.static.data("x", [2, 3], "float32")
    y = paddle.assign(x)
    z = paddle.static.data("z", [2, 3], "float32")
    same = paddle.assign(z, output=z)
    assert same is z
    w = paddle.full([2, 3], 0.0, "float32")
    paddle.assign(paddle.exp(x), output=w)
    legacy = paddle.layers.assign(np.arange(6, dtype=np.float32).reshape(2, 3))
    xv = np.random.default_rng(3).normal(size=(2, 3)).astype(np.float32)
    gy, gw, gl = _exe().run(feed={"x": xv, "z": xv}, fetch_list=[y, w, legacy])
    np.testing.assert_array_equal(gy, xv)
    np.testing.assert_allclose(gw, np.exp(xv), rtol=1e-6)
    np.testing.assert_array_equal(gl, np.arange(6).reshape(2, 3))


def test_assign_argument_errors():
    with pytest.raises(TypeError, match="'input' in assign"):
        paddle.assign("abc")
    with pytest.raises(TypeError, match="numpy array"):
        paddle.assign(np.zeros(3, np.float16))
    with pytest.raises(ValueError, match="inhomogeneous"):  # numpy's error, as in Paddle
        paddle.assign([[1, 2], [3]])
    with pytest.raises(ValueError, match="stacking them needs one dtype"):  # Paddle's stack
        paddle.assign([paddle.static.data("v", [1], "float32"), 2.0])    # refuses them too


@pytest.mark.parametrize("dtype", ["uint8", "int8", "int16", "int32", "int64"])
def test_embedding_ids_of_every_int_dtype(monkeypatch, dtype):
    rng = np.random.default_rng(4)
    ids = paddle.static.data("ids", [3, 4], dtype)
    table = paddle.static.data("w", [10, 5], "float32")
    out = F.embedding(ids, table, padding_idx=2)
    iv = rng.integers(0, 10, size=(3, 4)).astype(dtype)
    wv = rng.normal(size=(10, 5)).astype(np.float32)
    want = wv[iv.astype(np.int64)]
    want[iv == 2] = 0
    got, = _exe().run(feed={"ids": iv, "w": wv}, fetch_list=[out])
    np.testing.assert_array_equal(got, want)
    ref, = _reference_exe(monkeypatch).run(feed={"ids": iv, "w": wv}, fetch_list=[out])
    np.testing.assert_array_equal(ref, want)


def test_embedding_and_log_softmax_argument_errors():
    with pytest.raises(TypeError, match="'input' in embedding"):
        F.embedding(paddle.static.data("f", [2], "float32"), paddle.static.data("w", [4, 2],
                                                                                  "float32"))
    ids = paddle.static.data("i", [2], "int32")
    with pytest.raises(TypeError, match="'input' in embedding"):  # static.nn's takes int64 only
        paddle.static.nn.embedding(ids, size=(4, 2))
    with pytest.raises(TypeError, match="'dtype' in embedding"):
        paddle.static.nn.embedding(paddle.static.data("j", [2], "int64"), (4, 2), dtype="int32")
    with pytest.raises(TypeError, match="log_softmax"):
        F.log_softmax(ids)
    x = paddle.static.data("x", [2, 3], "float32")
    with pytest.raises(TypeError, match="float32 or float64"):
        F.log_softmax(x, dtype="int64")
    out = F.log_softmax(ids, dtype="float64")  # an int x cast to a float dtype, as in Paddle
    got, = _exe().run(feed={"i": np.array([1, 3], np.int32)}, fetch_list=[out])
    np.testing.assert_allclose(got, np.array([1, 3]) - np.log(np.exp(1) + np.exp(3)))


def test_fill_constant_shape_and_value_tensors_match_the_reference(monkeypatch):
    s = paddle.static.data("s", [2], "int64")
    d = paddle.static.data("d", [1], "int32")
    v = paddle.static.data("v", [1], "float64")
    outs = [paddle.full(s, 2.5), paddle.full([d, 3], v, "float32"),
            paddle.tensor.fill_constant([2, d], "int64", 2 ** 40),
            paddle.full([2], 1 - 2j), paddle.full(3, True)]
    feed = {"s": np.array([3, 2], np.int64), "d": np.array([4], np.int32),
            "v": np.array([0.1], np.float64)}
    want = [np.full((3, 2), 2.5, np.float32), np.full((4, 3), 0.1, np.float32),
            np.full((2, 4), 2 ** 40, np.int64), np.full(2, 1 - 2j, np.complex128),
            np.full(3, True)]
    for exe in (_exe(), _reference_exe(monkeypatch)):
        for g, w in zip(exe.run(feed=feed, fetch_list=outs), want):
            assert g.dtype == w.dtype
            np.testing.assert_array_equal(g, w)


def test_fill_constant_argument_errors():
    with pytest.raises(TypeError, match="'dtype' in fill_constant"):
        paddle.full([1], 5, dtype="uint4")
    with pytest.raises(TypeError, match="integers"):
        paddle.tensor.fill_constant([1.5], "float32", 1)
    with pytest.raises(ValueError, match=">= 0"):
        paddle.full([2, -1], 1.0)
    with pytest.raises(TypeError, match="'shape' in fill_constant"):
        paddle.full(paddle.static.data("f", [2], "float32"), 1.0)
    with pytest.raises(TypeError, match="'out' in fill_constant"):
        paddle.tensor.fill_constant([1], "float64", 5, out=paddle.static.data("i", [1], "int32"))
    with pytest.raises(TypeError, match="fill_value"):
        paddle.full([1], [1.0])


@pytest.mark.parametrize("shapes", [([2, 4], [2, 2, 4], [2, 2, 4]), ([3, 2, 2, 4], [2, 2, 1],
                                                                      [2, 2, 1]),
                                    ([5], [5], [5]), ([2, 1], [1, 3], [2, 3])])
def test_where_broadcasts_like_numpy(monkeypatch, shapes):
    rng = np.random.default_rng(5)
    cs, xs, ys = shapes
    c = paddle.static.data("c", cs, "bool")
    x = paddle.static.data("x", xs, "float64")
    y = paddle.static.data("y", ys, "float64")
    out = paddle.where(c, x, y)
    feed = {"c": rng.random(cs) < 0.4, "x": rng.normal(size=xs), "y": rng.normal(size=ys)}
    want = np.where(feed["c"], feed["x"], feed["y"])
    for exe in (_exe(), _reference_exe(monkeypatch)):
        got, = exe.run(feed=feed, fetch_list=[out])
        np.testing.assert_array_equal(got, want)


def test_where_scalars_and_errors():
    c = paddle.static.data("c", [4], "bool")
    out = paddle.where(c, 1.0, 2)  # 0-d float32 and int64 constants, x's dtype wins
    got, = _exe().run(feed={"c": np.array([True, False, True, False])}, fetch_list=[out])
    np.testing.assert_array_equal(got, [1, 2, 1, 2])
    assert got.dtype == np.float32
    with pytest.raises(ValueError, match="both or neither"):
        paddle.where(c, 1.0)
    with pytest.raises(TypeError, match="'condition' in where"):
        paddle.where(paddle.static.data("i", [4], "int32"), 1.0, 2.0)
    with pytest.raises(paddle.FluidcError, match="nonzero"):
        paddle.where(c)


def test_concat_axis_and_reshape_dims_from_variables_are_read_when_planned(monkeypatch):
    """A Variable axis or dim is an input (AxisTensor, ShapeTensor), as in Paddle: build-time
    shapes are -1 there, the values are read when the plan is built, and the gradient of a
    concat along a tensor axis splits along that axis too."""
    x = paddle.static.data("x", [2, 3], "float32")
    x.stop_gradient = False
    axis = paddle.full([1], 1, "int64")
    cat = paddle.concat([x, x * 2.0], axis=axis)
    rows = paddle.reshape(cat, [paddle.full([1], 3, "int32"), -1])
    assert cat.shape == (-1, -1) and rows.shape == (-1, -1)  # as Paddle's
    loss = paddle.mean(rows * rows)
    dx, = paddle.static.gradients([loss], [x])
    xv = np.arange(6, dtype="float32").reshape(2, 3)
    want = np.concatenate([xv, 2 * xv], axis=1).reshape(3, -1)
    for exe in (_exe(), _reference_exe(monkeypatch)):
        got_rows, got_dx = exe.run(feed={"x": xv}, fetch_list=[rows, dx])
        np.testing.assert_allclose(got_rows, want)
        np.testing.assert_allclose(got_dx, (2 * xv + 8 * xv) / want.size, rtol=1e-6)


def test_a_loop_counter_as_a_reshape_dim_is_never_frozen_at_its_first_value():
    """The counter is written by fill_constant before the loop and by increment inside it: a
    value taken from the first write when the layer is built would be wrong on later trips
    (a silent wrong result). fluidc reads shape values when the plan is built and refuses,
    naming the op, a value that a loop rewrites."""
    x = paddle.static.data("x", [6], "float32")
    i = paddle.full([1], 1, "int32")
    acc = paddle.zeros([1], "float32")

    def body(i, acc):
        rows = paddle.reshape(x, [i, -1])  # [1, 6] on the first trip, [2, 3] on the second
        return [paddle.increment(i), acc + paddle.sum(rows[0])]

    i, acc = paddle.static.nn.while_loop(lambda i, acc: i < 3, body, [i, acc])
    exe = _exe()
    exe.run(paddle.static.default_startup_program())
    with pytest.raises(OpError, match="op 'reshape2': its shape input"):
        exe.run(feed={"x": np.arange(6, dtype="float32")}, fetch_list=[acc])
