"""Slicing and assigning with bounds held in tensors, against numpy over random cases, compiled
and on the reference executor alike: paddle.strided_slice with tensor starts / ends / strides
(1-D tensors and lists of one-value tensors) and its gradient, Variable.__getitem__ with a
tensor step, paddle.static.setitem / Tensor.__setitem__ with tensor bounds, None and bool
masks; dygraph in-place methods (x.add_(y), ...) writing x itself."""
import numpy as np
import pytest

import fluidc as paddle

from op_harness import compiled_and_reference


def _random_slice(rng, size):
    step = int(rng.choice([-3, -2, -1, 1, 2, 3]))
    start, stop = (int(v) for v in rng.integers(-size - 2, size + 2, 2))
    return start, stop, step


@pytest.mark.parametrize("seed", range(6))
def test_strided_slice_tensor_bounds_match_numpy(monkeypatch, seed):
    rng = np.random.default_rng(seed)
    shape = tuple(int(d) for d in rng.integers(2, 6, 3))
    axes = sorted(rng.choice(3, int(rng.integers(1, 4)), replace=False).tolist())
    bounds = [_random_slice(rng, shape[a]) for a in axes]
    starts, ends, strides = ([b[i] for b in bounds] for i in range(3))
    how = ["list", "tensor", "attr"][seed % 3]
    x_np = rng.standard_normal(shape)
    feed = {"x": x_np}
    main = paddle.static.Program()
    with paddle.static.program_guard(main, paddle.static.Program()):
        x = paddle.static.data("x", list(shape), "float64")
        x.stop_gradient = False

        def arg(name, values):
            if how == "attr":
                return values
            if how == "tensor":
                feed[name] = np.array(values, "int32")
                return paddle.static.data(name, [len(values)], "int32")
            return [paddle.full([1], v, "int64") for v in values]
        out = paddle.strided_slice(x, axes, arg("s", starts), arg("e", ends), arg("k", strides))
        (gx,) = paddle.static.gradients([paddle.sum(out * out)], [x])
    index = [slice(None)] * 3
    for a, b in zip(axes, bounds):
        index[a] = slice(*b)
    want = x_np[tuple(index)]
    want_grad = np.zeros_like(x_np)
    want_grad[tuple(index)] = 2 * want
    for run in compiled_and_reference(monkeypatch, main, feed, [out, gx]):
        np.testing.assert_array_equal(run[0], want)
        np.testing.assert_allclose(run[1], want_grad, rtol=1e-12)


def test_getitem_with_a_tensor_step_matches_numpy(monkeypatch):
    """x[a:b:k] with tensor a, k: before, a tensor step was taken for 1 (a silently wrong
    slice); it is a strided_slice with StridesTensor now."""
    x_np = np.arange(60.0).reshape(3, 4, 5)
    main = paddle.static.Program()
    with paddle.static.program_guard(main, paddle.static.Program()):
        x = paddle.static.data("x", [3, 4, 5], "float64")
        minus1 = paddle.full([], -1, "int32")
        two = paddle.full([], 2, "int64")
        outs = [x[minus1:0:minus1], x[:, 0:4:two, -1:0:minus1], x[1:3, ::2, 4:1:minus1]]
        with pytest.raises(ValueError, match="start or end is None"):
            x[::two]
    for run in compiled_and_reference(monkeypatch, main, {"x": x_np}, outs):
        np.testing.assert_array_equal(run[0], x_np[-1:0:-1])
        np.testing.assert_array_equal(run[1], x_np[:, 0:4:2, -1:0:-1])
        np.testing.assert_array_equal(run[2], x_np[1:3, ::2, 4:1:-1])


@pytest.mark.parametrize("seed", range(4))
def test_static_setitem_tensor_bounds_and_none_match_numpy(monkeypatch, seed):
    rng = np.random.default_rng(seed)
    x_np = rng.standard_normal((4, 5, 6))
    a, b = int(rng.integers(-4, 4)), int(rng.integers(-5, 5))
    start, stop, step = _random_slice(rng, 6)
    main = paddle.static.Program()
    with paddle.static.program_guard(main, paddle.static.Program()):
        x = paddle.static.data("x", [4, 5, 6], "float64")
        ta, tb = paddle.full([], a, "int32"), paddle.full([], b, "int64")
        ts, te, tk = (paddle.full([], v, "int32") for v in (start, stop, step))
        v = paddle.static.data("v", [6], "float64")
        y1 = paddle.static.setitem(x, (ta, tb), v)  # one row by two index tensors
        y2 = paddle.static.setitem(x, (slice(None), None, 1, slice(ts, te, tk)), 7.5)
        y3 = paddle.static.setitem(x, x > 0.5, -1.0)
        y4 = paddle.static.setitem(x, [True, False, True, False], v)
    v_np = rng.standard_normal(6)
    want1, want2, want3, want4 = (x_np.copy() for _ in range(4))
    want1[a, b] = v_np
    want2[:, None, 1, start:stop:step] = 7.5
    want3[x_np > 0.5] = -1.0
    want4[[True, False, True, False]] = v_np
    for run in compiled_and_reference(monkeypatch, main, {"x": x_np, "v": v_np}, [y1, y2, y3, y4]):
        for got, want in zip(run, (want1, want2, want3, want4)):
            np.testing.assert_array_equal(got, want)


def test_dygraph_setitem_bool_mask_and_none_with_gradients():
    paddle.disable_static()
    try:
        x_np = np.arange(1.0, 25.0).reshape(2, 3, 4)
        v_np = np.array([10.0, 20.0, 30.0, 40.0])
        x = paddle.to_tensor(x_np, stop_gradient=False)
        v = paddle.to_tensor(v_np, stop_gradient=False)
        y = x * 1.0
        rows = x_np.sum(-1) > 30  # a mask over the first two dims: each row takes v
        y[paddle.to_tensor(rows)] = v
        y[0, None, 1] = 0.5
        assert y.inplace_version == 2
        (y * y).sum().backward()
        want = x_np.copy()
        want[rows] = v_np
        want[0, 1] = 0.5
        np.testing.assert_array_equal(y.numpy(), want)
        kept = np.broadcast_to(~rows[..., None], x_np.shape).copy()
        kept[0, 1] = False
        np.testing.assert_array_equal(x.grad.numpy(), np.where(kept, 2 * x_np, 0.0))
        written = rows.copy()
        written[0, 1] = False
        np.testing.assert_allclose(v.grad.numpy(), 2 * v_np * written.sum())
        with pytest.raises(IndexError, match="did not match"):
            y[paddle.to_tensor(np.array([True, False, True]))] = 0.0
        with pytest.raises(IndexError, match="broadcast to the dims after the mask"):
            y[y > 0] = v
    finally:
        paddle.enable_static()


def test_dygraph_inplace_methods_write_the_tensor_itself():
    """x.add_(y), x.remainder_(y), x.scale_(...), x.flatten_(): x takes the result and is
    returned, as Paddle's inplace kernels write it (they returned a new tensor, x untouched);
    a leaf that needs a gradient is refused, as in Paddle."""
    paddle.disable_static()
    try:
        x = paddle.to_tensor(np.array([5.0, 7.0]))
        assert x.add_(paddle.to_tensor(np.array([1.0, 2.0]))) is x
        x.remainder_(paddle.to_tensor(np.array([4.0, 4.0])))
        x.scale_(2.0, 1.0)
        np.testing.assert_array_equal(x.numpy(), [5.0, 3.0])
        assert x.inplace_version == 3
        m = paddle.to_tensor(np.ones((2, 3, 4)))
        m.flatten_(1, 2)
        assert list(m.shape) == [2, 12]
        a = paddle.to_tensor(np.array([1.0, 2.0]), stop_gradient=False)
        b = a * 3.0
        b.add_(a)  # b = 4a: the gradient flows through the in-place op
        b.sum().backward()
        np.testing.assert_array_equal(a.grad.numpy(), [4.0, 4.0])
        with pytest.raises(ValueError, match="inplace"):
            a.add_(a)
    finally:
        paddle.enable_static()
