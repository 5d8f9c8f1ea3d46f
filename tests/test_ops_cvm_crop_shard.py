"""paddle.shard_index, paddle.crop (crop_tensor) and paddle.static.nn.continuous_value_model
(cvm): values and gradients against numpy over random cases, compiled and on the reference
executor alike; the fixed cases' numbers are Paddle 3.3.1's (FLAGS_enable_pir_api=0)."""
import numpy as np
import pytest

import fluidc as paddle

from op_harness import compiled_and_reference


def _program():
    return paddle.static.program_guard(paddle.static.Program(), paddle.static.Program())


# --- shard_index --------------------------------------------------------------------------

@pytest.mark.parametrize("seed", range(4))
def test_shard_index_matches_numpy(monkeypatch, seed):
    rng = np.random.default_rng(seed)
    index_num, nshards = int(rng.integers(2, 40)), int(rng.integers(1, 6))
    shard_id, ignore = int(rng.integers(0, nshards)), int(rng.integers(-9, 0))
    dtype = ("int32", "int64")[seed % 2]
    with _program():
        x = paddle.static.data("x", [-1, 3, 1], dtype)
        out = paddle.shard_index(x, index_num, nshards, shard_id, ignore_value=ignore)
        main = x.block.program
    ids = rng.integers(0, index_num, (5, 3, 1)).astype(dtype)
    size = -(-index_num // nshards)
    want = np.where(ids // size == shard_id, ids % size, ignore)
    for run in compiled_and_reference(monkeypatch, main, {"x": ids}, [out]):
        np.testing.assert_array_equal(run[0], want)
        assert run[0].dtype == np.dtype(dtype)


def test_shard_index_paddle_numbers_and_errors(monkeypatch):
    with _program():
        x = paddle.static.data("x", [-1, 1], "int64")
        out = paddle.shard_index(x, 20, 2, 1, ignore_value=-1)
        main = x.block.program
        with pytest.raises(ValueError, match="shard_id"):
            paddle.shard_index(x, 20, 2, 2)
        with pytest.raises(TypeError):
            paddle.shard_index(paddle.static.data("f", [-1, 1], "float32"), 20, 2, 0)
    got, ref = compiled_and_reference(monkeypatch, main, {"x": np.array([[1], [10], [15], [19]])}, [out])
    for run in (got, ref):
        np.testing.assert_array_equal(run[0], [[-1], [0], [5], [9]])
    exe = paddle.static.Executor(paddle.CPUPlace())
    for bad in (20, -1):  # Paddle's kernel raises on ids outside [0, index_num) (ValueError)
        with pytest.raises(ValueError, match=f"holds {bad}"):
            exe.run(main, feed={"x": np.array([[3], [bad]])}, fetch_list=[out])


# --- crop ---------------------------------------------------------------------------------

def _crop_np(x, shape, offsets):
    return x[tuple(slice(o, d if s == -1 else o + s) for d, s, o in zip(x.shape, shape, offsets))]


@pytest.mark.parametrize("seed", range(6))
def test_crop_values_and_gradient_match_numpy(monkeypatch, seed):
    """shape / offsets as int lists, as fed 1-D tensors, and as lists mixing ints and fed
    one-value tensors; dX puts dOut back at the offsets."""
    rng = np.random.default_rng(seed)
    xshape = [int(d) for d in rng.integers(2, 7, size=int(rng.integers(1, 4)))]
    offsets = [int(rng.integers(0, d)) for d in xshape]
    shape = [int(rng.integers(1, d - o + 1)) if rng.random() < 0.7 else -1
             for d, o in zip(xshape, offsets)]
    form = seed % 3
    feed = {}
    with _program():
        x = paddle.static.data("x", xshape, "float64")
        x.stop_gradient = False
        if form == 0:
            s_arg, o_arg = shape, offsets
        elif form == 1:
            s_arg = paddle.static.data("s", [len(xshape)], "int32")
            o_arg = paddle.static.data("o", [len(xshape)], "int64")
            feed.update(s=np.array(shape, "int32"), o=np.array(offsets, "int64"))
        else:
            s_arg, o_arg = list(shape), list(offsets)
            s_arg[0] = paddle.static.data("s0", [1], "int32")
            o_arg[-1] = paddle.static.data("o1", [1], "int64")
            feed.update(s0=np.array([shape[0]], "int32"), o1=np.array([offsets[-1]], "int64"))
        out = paddle.crop(x, s_arg, o_arg)
        w = paddle.static.data("w", [-1] * len(xshape), "float64")
        (dx,) = paddle.static.gradients([paddle.sum(paddle.multiply(out, w))], [x])
        main = x.block.program
    xv = rng.standard_normal(xshape)
    want = _crop_np(xv, shape, offsets)
    wv = rng.standard_normal(want.shape)
    want_dx = np.zeros_like(xv)
    _crop_np(want_dx, shape, offsets)[...] = wv
    feed.update(x=xv, w=wv)
    for run in compiled_and_reference(monkeypatch, main, feed, [out, dx]):
        np.testing.assert_array_equal(run[0], want)
        np.testing.assert_array_equal(run[1], want_dx)


def test_crop_paddle_numbers_and_errors():
    with _program():
        x = paddle.static.data("x", [3, 4], "float32")
        out = paddle.crop(x, shape=[2, -1], offsets=[1, 1])
        assert tuple(out.shape) == (2, 3)
        d = paddle.static.data("d", [1], "int32")
        assert tuple(paddle.crop(x, shape=[d, 2]).shape) == (-1, -1)
        with pytest.raises(ValueError, match="dim 1"):
            paddle.crop(x, shape=[2, 4], offsets=[1, 1])  # Paddle: offsets + shape > dim
        with pytest.raises(ValueError, match=r"offsets\[0\]"):
            paddle.crop(x, shape=[1, 1], offsets=[-1, 0])
        with pytest.raises(ValueError, match=r"shape\[1\]"):
            paddle.crop(x, shape=[1, -2])
        with pytest.raises(TypeError):
            paddle.crop(x, shape=[1.5, 2])
        main = x.block.program
    got = paddle.static.Executor(paddle.CPUPlace()).run(
        main, feed={"x": np.arange(12, dtype="float32").reshape(3, 4),
                    "d": np.array([2], "int32")}, fetch_list=[out])
    np.testing.assert_array_equal(got[0], [[5, 6, 7], [9, 10, 11]])


# --- cvm ----------------------------------------------------------------------------------

def test_cvm_paddle_numbers_and_gradient_rule(monkeypatch):
    """Paddle 3.3.1's Y for both modes, and its cvm_grad rule: dX's count columns are CVM's
    values (not the derivative), the rest dY's."""
    xv = np.arange(15, dtype="float32").reshape(3, 5) / 4
    cv = np.array([[1, 2], [3, 4], [5, 6]], "float32")
    dyv = np.arange(15, dtype="float32").reshape(3, 5) + 1
    with _program():
        x = paddle.static.data("x", [3, 5], "float32")
        x.stop_gradient = False
        c = paddle.static.data("c", [3, 2], "float32")
        y = paddle.static.nn.continuous_value_model(x, c, True)
        y2 = paddle.static.nn.continuous_value_model(x, c, False)
        assert tuple(y.shape) == (3, 5) and tuple(y2.shape) == (3, 3)
        dy = paddle.static.data("dy", [3, 5], "float32")
        dy2 = paddle.static.data("dy2", [3, 3], "float32")
        (dx,) = paddle.static.gradients([y], [x], target_gradients=[dy])
        (dx2,) = paddle.static.gradients([y2], [x], target_gradients=[dy2])
        main = x.block.program
    feed = {"x": xv, "c": cv, "dy": dyv, "dy2": dyv[:, 2:] * 10}
    want_y = [[0., 0.22314355, 0.5, 0.75, 1.],
              [0.8109302, 0.10536057, 1.75, 2., 2.25],
              [1.2527629, 0.06899297, 3., 3.25, 3.5]]
    want_dx = [[1., 2., 3., 4., 5.], [3., 4., 8., 9., 10.], [5., 6., 13., 14., 15.]]
    for run in compiled_and_reference(monkeypatch, main, feed, [y, y2, dx, dx2]):
        np.testing.assert_allclose(run[0], want_y, rtol=1e-5, atol=1e-6)
        np.testing.assert_array_equal(run[1], xv[:, 2:])
        np.testing.assert_array_equal(run[2], want_dx)
        np.testing.assert_array_equal(run[3], np.concatenate([cv, dyv[:, 2:] * 10], 1))


def test_cvm_checks():
    with _program():
        c = paddle.static.data("c", [3, 2], "float32")
        with pytest.raises(TypeError):
            paddle.static.nn.continuous_value_model(paddle.static.data("i", [3, 5], "int64"), c)
        with pytest.raises(ValueError, match="CVM"):
            paddle.static.nn.continuous_value_model(
                paddle.static.data("x", [3, 5], "float32"),
                paddle.static.data("c3", [3, 3], "float32"))


# --- spectral_norm ------------------------------------------------------------------------

def _spectral_np(w, u, v, dim, iters, eps, dy):
    """Out and Paddle's dWeight rule, by numpy: power iteration on w with `dim` as rows."""
    m = np.moveaxis(w, dim, 0).reshape(w.shape[dim], -1)
    for _ in range(iters):
        v = m.T @ u
        v = v / (np.sqrt((v * v).sum()) + eps)
        u = m @ v
        u = u / (np.sqrt((u * u).sum()) + eps)
    sigma = u @ (m @ v)
    dm = np.moveaxis(dy, dim, 0).reshape(m.shape)
    dwm = dm * (1 - np.outer(u, v) * (m / sigma).sum()) / sigma
    moved = np.moveaxis(w, dim, 0).shape
    return w / sigma, np.moveaxis(dwm.reshape(moved), 0, dim)


def _spectral_program(shape, dim, iters):
    """(main, startup, U, V, Out, dWeight) of spectral_norm on a fed weight."""
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        w = paddle.static.data("w", list(shape), "float64")
        w.stop_gradient = False
        out = paddle.static.nn.spectral_norm(w, dim=dim, power_iters=iters)
        u, v = main.global_block().all_parameters()
        dy = paddle.static.data("dy", list(shape), "float64")
        (dw,) = paddle.static.gradients([out], [w], target_gradients=[dy])
        return main, startup, u, v, out, dw


def test_spectral_norm_paddle_numbers(monkeypatch):
    main, _, u, v, out, dw = _spectral_program((2, 3), 0, 1)
    scope = paddle.static.global_scope()
    feed = {"w": np.array([[1., 2, 3], [4, 5, 6]]), "dy": np.array([[1., 0, 0], [0, 1, 2]])}
    scope.var(u.name).get_tensor().set(np.array([1., 0]), paddle.CPUPlace())
    scope.var(v.name).get_tensor().set(np.array([1., 1, 1]), paddle.CPUPlace())
    for run in compiled_and_reference(monkeypatch, main, feed, [out, dw]):
        np.testing.assert_allclose(run[0], [[0.1071233394, 0.2142466787, 0.3213700181],
                                            [0.4284933574, 0.5356166968, 0.6427400362]],
                                   rtol=1e-9)
        np.testing.assert_allclose(run[1], [[0.0813083707, 0, 0],
                                            [0, -0.010887946, -0.1397871773]], rtol=1e-8)


@pytest.mark.parametrize("seed", range(5))
def test_spectral_norm_matches_numpy(monkeypatch, seed):
    """Random ranks 2-5, dim 0 / 1 and 0-3 power iterations; U and V are the parameters the
    startup program draws, which the op leaves as they were."""
    rng = np.random.default_rng(seed)
    shape = tuple(int(d) for d in rng.integers(1, 5, size=int(rng.integers(2, 6))))
    dim, iters = seed % 2, int(rng.integers(0, 4))
    main, startup, u, v, out, dw = _spectral_program(shape, dim, iters)
    paddle.static.Executor(paddle.CPUPlace()).run(startup)
    scope = paddle.static.global_scope()
    uv = [np.array(scope.find_var(p.name).get_tensor()) for p in (u, v)]
    feed = {"w": rng.standard_normal(shape), "dy": rng.standard_normal(shape)}
    want_out, want_dw = _spectral_np(feed["w"], *uv, dim, iters, 1e-12, feed["dy"])
    for run in compiled_and_reference(monkeypatch, main, feed, [out, dw, u, v]):
        np.testing.assert_allclose(run[0], want_out, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(run[1], want_dw, rtol=1e-9, atol=1e-12)
        np.testing.assert_array_equal(run[2], uv[0])
        np.testing.assert_array_equal(run[3], uv[1])


def test_spectral_norm_layer_and_checks():
    with _program():
        w = paddle.static.data("w", [4, 3], "float32")
        layer = paddle.nn.SpectralNorm([4, 3], dim=1, power_iters=2)
        assert [p.shape for p in (layer.weight_u, layer.weight_v)] == [(3,), (4,)]
        assert layer.weight_u.stop_gradient and layer.weight_v.stop_gradient
        assert tuple(layer(w).shape) == (4, 3)
        with pytest.raises(ValueError, match="dim"):
            paddle.static.nn.spectral_norm(w, dim=2)
        with pytest.raises(TypeError):
            paddle.static.nn.spectral_norm(w, eps=1)
        with pytest.raises(TypeError):
            paddle.static.nn.spectral_norm(paddle.static.data("i", [4, 3], "int32"))
        with pytest.raises(ValueError, match="rank"):
            paddle.static.nn.spectral_norm(paddle.static.data("r1", [4], "float32"))
