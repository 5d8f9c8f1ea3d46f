"""Int arguments given as Variables and read when the program runs (passes/shape_inputs.py folds
them into the op): paddle.topk's k (K), paddle.expand's shape (Shape, expand_shapes_tensor),
paddle.unsqueeze's axis (AxesTensor, AxesTensorList), paddle.split's axis and sections
(AxisTensor, SectionsTensorList), paddle.slice's starts / ends (StartsTensor, EndsTensor, also
through the gradient). Random shapes and fed values, the compiled run checked against numpy and
against the numpy reference executor; a plan is made per fed value."""
import numpy as np
import pytest

import fluidc as paddle
from fluidc.frontend.errors import OpError
from fluidc.runtime import executor as executor_mod


def _exe():
    return paddle.static.Executor(paddle.CPUPlace())


def _both(monkeypatch, main, feed, fetch):
    """The compiled run and the reference executor's run of main."""
    got = _exe().run(main, feed=feed, fetch_list=fetch)
    monkeypatch.setattr(executor_mod, "find_compiler", lambda: None)
    monkeypatch.setattr(executor_mod, "_warned_no_compiler", True)
    ref = _exe().run(main, feed=feed, fetch_list=fetch)
    monkeypatch.undo()
    return got, ref


def _check(monkeypatch, main, feed, fetch, expected):
    got, ref = _both(monkeypatch, main, feed, fetch)
    for g, r, e in zip(got, ref, expected):
        np.testing.assert_array_equal(g, e)
        np.testing.assert_array_equal(r, e)


@pytest.mark.parametrize("seed", range(3))
def test_topk_fed_k(monkeypatch, seed):
    rng = np.random.default_rng(seed)
    shape = tuple(rng.integers(2, 7, size=3))
    axis = int(rng.integers(-3, 3))
    main = paddle.static.Program()
    with paddle.static.program_guard(main, paddle.static.Program()):
        x = paddle.static.data("x", list(shape), "float64")
        k = paddle.static.data("k", [1], "int32")
        values, indices = paddle.topk(x, k, axis=axis, largest=bool(seed % 2))
        assert values.shape[axis] == -1
    for kv in rng.integers(1, shape[axis] + 1, size=2):
        xv = rng.permutation(np.prod(shape)).reshape(shape).astype("float64")  # no ties
        order = np.argsort(-xv if seed % 2 else xv, axis=axis)
        idx = np.take(order, np.arange(kv), axis=axis)
        _check(monkeypatch, main, {"x": xv, "k": np.array([kv], "int32")}, [values, indices],
               [np.take_along_axis(xv, idx, axis), idx])


@pytest.mark.parametrize("seed", range(3))
def test_expand_fed_shape_and_shape_list(monkeypatch, seed):
    rng = np.random.default_rng(seed)
    target = [int(d) for d in rng.integers(1, 5, size=3)]
    main = paddle.static.Program()
    with paddle.static.program_guard(main, paddle.static.Program()):
        x = paddle.static.data("x", [1, target[2]], "float32")
        shape = paddle.static.data("shape", [3], "int32")
        d0 = paddle.static.data("d0", [1], "int64")
        whole = paddle.expand(x, shape)
        listed = paddle.expand(x, [d0, target[1], -1])
        assert tuple(whole.shape) == (-1, -1, -1) and tuple(listed.shape) == (-1, target[1], -1)
    xv = rng.standard_normal((1, target[2])).astype("float32")
    want = np.broadcast_to(xv, target)
    _check(monkeypatch, main, {"x": xv, "shape": np.array(target, "int32"),
                               "d0": np.array([target[0]], "int64")}, [whole, listed],
           [want, want])


@pytest.mark.parametrize("seed", range(3))
def test_unsqueeze_fed_axes(monkeypatch, seed):
    rng = np.random.default_rng(seed)
    shape = [int(d) for d in rng.integers(1, 5, size=2)]
    main = paddle.static.Program()
    with paddle.static.program_guard(main, paddle.static.Program()):
        x = paddle.static.data("x", shape, "float32")
        axes = paddle.static.data("axes", [2], "int64")
        a0 = paddle.static.data("a0", [1], "int32")
        whole = paddle.unsqueeze(x, axes)
        listed = paddle.unsqueeze(x, [a0, 0])
        assert tuple(whole.shape) == (-1,) * 4 and tuple(listed.shape) == (-1,) * 4
    xv = rng.standard_normal(shape).astype("float32")
    for first in (0, 2, -1):
        want = np.expand_dims(np.expand_dims(xv, first), 0)
        want_whole = np.expand_dims(np.expand_dims(xv, first), 1 if first >= 0 else -1)
        _check(monkeypatch, main, {"x": xv, "axes": np.array([first, 1 if first >= 0 else -1],
                                                             "int64"),
                                   "a0": np.array([first], "int32")}, [whole, listed],
               [want_whole, want])


@pytest.mark.parametrize("seed", range(3))
def test_split_fed_axis_and_sections(monkeypatch, seed):
    rng = np.random.default_rng(seed)
    shape = [4, 6, 6]
    main = paddle.static.Program()
    with paddle.static.program_guard(main, paddle.static.Program()):
        x = paddle.static.data("x", shape, "float64")
        axis = paddle.static.data("axis", [1], "int32")
        sec = paddle.static.data("sec", [1], "int32")
        by_axis = paddle.split(x, 2, axis=axis)
        by_sections = paddle.split(x, [sec, -1], axis=1)
    xv = rng.standard_normal(shape)
    for a, s in ((1, 2), (2, 5), (0, 1)):
        _check(monkeypatch, main, {"x": xv, "axis": np.array([a], "int32"),
                                   "sec": np.array([s], "int32")}, by_axis + by_sections,
               np.split(xv, 2, axis=a) + np.split(xv, [s], axis=1))


def test_split_with_a_tensor_axis_has_no_gradient():
    x = paddle.static.data("x", [4, 6], "float32")
    x.stop_gradient = False
    parts = paddle.split(x, 2, axis=paddle.static.data("axis", [1], "int32"))
    with pytest.raises(OpError, match="tensor axis"):
        paddle.static.append_backward(paddle.mean(parts[0]))


@pytest.mark.parametrize("seed", range(3))
def test_slice_fed_starts_ends_and_gradient(monkeypatch, seed):
    rng = np.random.default_rng(seed)
    shape = [5, 6, 4]
    main = paddle.static.Program()
    with paddle.static.program_guard(main, paddle.static.Program()):
        x = paddle.static.data("x", shape, "float64")
        x.stop_gradient = False
        starts = paddle.static.data("starts", [2], "int32")
        ends = paddle.static.data("ends", [2], "int64")
        out = paddle.slice(x, axes=[0, 2], starts=starts, ends=ends)
        assert tuple(out.shape) == (-1, 6, -1)
        w = paddle.static.data("w", [-1, 6, -1], "float64")
        (dx,) = paddle.static.gradients([paddle.sum(paddle.multiply(out, w))], [x])
    xv = rng.standard_normal(shape)
    for s, e in (([1, 0], [4, 3]), ([-2, 1], [100, -1])):
        index = np.s_[s[0]:e[0], :, s[1]:e[1]]
        wv = rng.standard_normal(xv[index].shape)
        want_dx = np.zeros_like(xv)
        want_dx[index] = wv
        got, ref = _both(monkeypatch, main, {"x": xv, "starts": np.array(s, "int32"),
                                             "ends": np.array(e, "int64"), "w": wv}, [out, dx])
        for g, r, want in zip(got, ref, (xv[index], want_dx)):
            np.testing.assert_array_equal(g, want)
            np.testing.assert_array_equal(r, want)


def test_slice_bounds_computed_in_a_loop_are_never_taken_as_their_initial_value():
    """paddle.slice(x, [0], [i], [i + 1]) with a while_loop counter i: the bounds are tensors
    read when the program runs, never i's initial fill_constant value (x[0] every step); fluidc
    refuses the body, whose output shape they decide."""
    main = paddle.static.Program()
    with paddle.static.program_guard(main, paddle.static.Program()):
        x = paddle.static.data("x", [4, 3], "float32")
        i = paddle.full([1], 0, "int64")
        z = paddle.zeros([1, 3], "float32")

        def cond(i, z):
            return paddle.less_than(i, paddle.full([1], 4, "int64"))

        def body(i, z):
            return i + 1, z + paddle.slice(x, [0], [i], [i + 1])

        _, total = paddle.static.nn.while_loop(cond, body, [i, z])
    with pytest.raises(ValueError, match="loop var"):
        _exe().run(main, feed={"x": np.ones((4, 3), "float32")}, fetch_list=[total])


@pytest.mark.parametrize("bounds", [(1, 4, 0, 6), (-4, 100, -1, -2), (0, 6, 3, 3)])
def test_getitem_with_tensor_slice_bounds(monkeypatch, bounds):
    """x[s:e, i, 1:v] with int Variables s, e, i, v (paddle.full): every bound becomes
    StartsTensor / EndsTensor, folded before the run (the index i, -1 included, keeps dropping
    its dim); a fed bound is refused by name (a fed value is not propagated through the concat
    of the bounds), never read wrong."""
    rng = np.random.default_rng(0)
    main = paddle.static.Program()
    with paddle.static.program_guard(main, paddle.static.Program()):
        x = paddle.static.data("x", [6, 5, 7], "float64")
        s, e, i, v = (paddle.full([], b, "int64") for b in bounds)
        out = x[s:e, i, 1:v]
        assert tuple(out.shape) == (-1, -1)
        fed = paddle.static.data("fed", [], "int64")
        refused = x[fed:3]
    xv = rng.standard_normal((6, 5, 7))
    sv, ev, iv, vv = bounds
    _check(monkeypatch, main, {"x": xv}, [out], [xv[sv:ev, iv, 1:vv]])
    with pytest.raises(OpError, match="must be fed, or be computed from constants"):
        _exe().run(main, feed={"x": xv, "fed": np.array(1, "int64")}, fetch_list=[refused])
