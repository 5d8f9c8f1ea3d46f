"""paddle.norm's matrix norms (svd for 2 / -2 / 'nuc', p_norm + reduce for 1 / -1 / inf /
-inf) and vector norms over several axes, F.pad's constant pad of every dim, tensor pads and
circular pads wrapping more than once, and paddle.remainder / floor_divide with
elementwise_mod's gradient: against numpy over random cases, compiled and on the reference
executor alike."""
import numpy as np
import pytest

import fluidc as paddle

from op_harness import compiled_and_reference

F = paddle.nn.functional


@pytest.mark.parametrize("p", [2, -2, "nuc", "fro", 1, -1, np.inf, -np.inf])
def test_matrix_norms_match_numpy(monkeypatch, p):
    rng = np.random.default_rng(abs(hash(str(p))) % 1000)
    x_np = rng.standard_normal((3, 4, 5))
    main = paddle.static.Program()
    cases = [([0, 1], False), ([2, 0], True), ([-1, -2], False)]
    with paddle.static.program_guard(main, paddle.static.Program()):
        x = paddle.static.data("x", [3, 4, 5], "float64")
        outs = [paddle.norm(x, p=p, axis=axis, keepdim=keep) for axis, keep in cases]
    for run in compiled_and_reference(monkeypatch, main, {"x": x_np}, outs):
        for got, (axis, keep) in zip(run, cases):
            want = np.linalg.norm(x_np, ord=p, axis=tuple(axis), keepdims=keep)
            assert got.shape == want.shape
            np.testing.assert_allclose(got, want, rtol=1e-10)


def test_vector_norms_over_several_axes_and_errors(monkeypatch):
    x_np = np.random.default_rng(1).standard_normal((2, 3, 4))
    x_np[0, 1, 2] = 0.0
    main = paddle.static.Program()
    orders = [3, 0, np.inf, -np.inf]
    with paddle.static.program_guard(main, paddle.static.Program()):
        x = paddle.static.data("x", [2, 3, 4], "float64")
        outs = [paddle.norm(x, p=p, axis=[0, 1, 2], keepdim=True) for p in orders]
        with pytest.raises(ValueError, match="only valid p type"):
            paddle.norm(x, p=[1], axis=-1)
        with pytest.raises(ValueError, match="just support p value"):
            paddle.norm(x, p="unsupported", axis=[0, 1])
        with pytest.raises(ValueError, match="length of list == 2"):
            paddle.norm(x, p="nuc", axis=[0, 1, 2])
    wants = [np.sum(np.abs(x_np) ** 3) ** (1 / 3), np.count_nonzero(x_np),
             np.abs(x_np).max(), np.abs(x_np).min()]
    for run in compiled_and_reference(monkeypatch, main, {"x": x_np}, outs):
        for got, want in zip(run, wants):
            assert got.shape == (1, 1, 1)
            # pow takes its factor (1 / 3) as a float32 attribute, as Paddle's
            np.testing.assert_allclose(got.reshape(()), want, rtol=1e-7)


def test_svd_op_reconstructs_its_input(monkeypatch):
    """U diag(S) VH = X, S descending and equal to numpy's, U / VH orthonormal: the op's
    outputs (their signs fixed alike on both executors)."""
    x_np = np.random.default_rng(2).standard_normal((2, 5, 3))
    main = paddle.static.Program()
    with paddle.static.program_guard(main, paddle.static.Program()):
        x = paddle.static.data("x", [2, 5, 3], "float64")
        block = main.global_block()
        outs = [block.create_var(name=n, dtype="float64") for n in ("u", "s", "vh")]
        block.append_op("svd", inputs={"X": [x]},
                        outputs={"U": [outs[0]], "S": [outs[1]], "VH": [outs[2]]},
                        attrs={"full_matrices": False})
    got, ref = compiled_and_reference(monkeypatch, main, {"x": x_np}, outs)
    for u, s, vh in (got, ref):
        np.testing.assert_allclose(u @ (s[..., None] * vh), x_np, atol=1e-12)
        np.testing.assert_allclose(s, np.linalg.svd(x_np, compute_uv=False), rtol=1e-12)
        np.testing.assert_allclose(u.swapaxes(-1, -2) @ u, np.broadcast_to(np.eye(3), (2, 3, 3)),
                                   atol=1e-12)
    for a, b in zip(got, ref):
        np.testing.assert_allclose(a, b, atol=1e-12)


@pytest.mark.parametrize("seed", range(4))
def test_pad_every_dim_tensor_pads_and_wrapping_circular_match_numpy(monkeypatch, seed):
    rng = np.random.default_rng(seed)
    x3 = rng.standard_normal((2, 3, 4))
    x5 = rng.standard_normal((1, 2, 2, 3, 2))
    every = [int(v) for v in rng.integers(0, 3, 6)]
    wraps = [int(v) for v in rng.integers(0, 6, 6)]
    main = paddle.static.Program()
    with paddle.static.program_guard(main, paddle.static.Program()):
        a = paddle.static.data("a", [2, 3, 4], "float64")
        b = paddle.static.data("b", [1, 2, 2, 3, 2], "float64")
        b.stop_gradient = False
        pads = paddle.static.data("pads", [2], "int32")
        outs = [F.pad(a, every, value=-2.0),  # every dim, from the first (pad_from_left_axis)
                F.pad(a, every[:4], value=3.0),  # the last two dims, last dim first
                F.pad(a, pads, mode="reflect", data_format="NLC"),
                F.pad(b, wraps, mode="circular")]
        (gb,) = paddle.static.gradients([paddle.sum(outs[3] * outs[3])], [b])
    feed = {"a": x3, "b": x5, "pads": np.array([1, 2], "int32")}
    np_wraps = [(0, 0), (0, 0), tuple(wraps[4:6]), tuple(wraps[2:4]), tuple(wraps[0:2])]
    circ = np.pad(x5, np_wraps, mode="wrap")
    src = np.pad(np.arange(x5.size).reshape(x5.shape), np_wraps, mode="wrap")
    want_gb = np.zeros(x5.size)
    np.add.at(want_gb, src.ravel(), 2 * circ.ravel())
    wants = [np.pad(x3, np.reshape(every, (3, 2)), constant_values=-2.0),
             np.pad(x3, [(0, 0), tuple(every[2:4]), tuple(every[0:2])], constant_values=3.0),
             np.pad(x3, [(0, 0), (1, 2), (0, 0)], mode="reflect"), circ]
    for run in compiled_and_reference(monkeypatch, main, feed, outs + [gb]):
        for got, want in zip(run, wants):
            np.testing.assert_array_equal(got, want)
        np.testing.assert_allclose(run[4], want_gb.reshape(x5.shape), rtol=1e-12)


@pytest.mark.parametrize("dtype", ["int32", "int64", "float32", "float64"])
def test_remainder_floor_divide_and_the_mod_gradient_match_numpy(monkeypatch, dtype):
    rng = np.random.default_rng(7)
    x_np = rng.uniform(-50, 50, (3, 1, 4)).astype(dtype)
    y_np = rng.uniform(-9, 9, (1, 5, 4)).astype(dtype)
    y_np[y_np == 0] = 3
    main = paddle.static.Program()
    with paddle.static.program_guard(main, paddle.static.Program()):
        x = paddle.static.data("x", [3, 1, 4], dtype)
        y = paddle.static.data("y", [1, 5, 4], dtype)
        fetch = [paddle.remainder(x, y), paddle.floor_divide(x, y), x % y, x.floor_divide(y)]
        if dtype.startswith("float"):
            x.stop_gradient = y.stop_gradient = False
            fetch += paddle.static.gradients([paddle.sum(fetch[0] * fetch[0])], [x, y])
    rem, quo = np.remainder(x_np, y_np), np.floor_divide(x_np, y_np)
    tol = dict(rtol=1e-5, atol=1e-4) if dtype == "float32" else dict(rtol=1e-12, atol=1e-12)
    for run in compiled_and_reference(monkeypatch, main, {"x": x_np, "y": y_np}, fetch):
        np.testing.assert_allclose(run[0], rem, **tol)
        np.testing.assert_array_equal(run[1], quo)
        np.testing.assert_allclose(run[2], rem, **tol)
        np.testing.assert_array_equal(run[3], quo)
        if dtype.startswith("float"):  # d(x mod y)/dx = 1, /dy = -floor(x / y)
            np.testing.assert_allclose(run[4], (2 * rem).sum(1, keepdims=True), **tol)
            np.testing.assert_allclose(run[5], (-2 * rem * quo).sum(0, keepdims=True), **tol)
