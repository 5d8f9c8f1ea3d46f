"""paddle.addmm and its grad against numpy (alpha and beta rounded to float32, as Paddle's
ProgramDesc holds them), Input of shape [M, N], [1, N], [M, 1], [N], [1], float32 / float64,
fused, unfused and on the reference executor; Paddle's shape errors."""
import numpy as np
import pytest

import fluidc as paddle

from op_harness import fused_unfused_reference

paddle.enable_static()


@pytest.mark.parametrize("seed", range(5))
def test_addmm_and_grad_match_numpy(seed):
    rng = np.random.default_rng(seed)
    dtype = ("float32", "float64")[seed % 2]
    m, k, n = (int(d) for d in rng.integers(1, 6, 3))
    in_shape = ([m, n], [1, n], [m, 1], [n], [1])[seed]
    alpha, beta = (float(v) for v in rng.uniform(-2, 2, 2))
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        inp = paddle.static.data("inp", in_shape, dtype)
        x = paddle.static.data("x", [m, k], dtype)
        y = paddle.static.data("y", [k, n], dtype)
        for v in (inp, x, y):
            v.stop_gradient = False
        out = paddle.addmm(inp, x, y, beta=beta, alpha=alpha)
        w = paddle.static.data("w", [m, n], dtype)
        grads = paddle.static.gradients([paddle.sum(out * w)], [inp, x, y])
    feed = {"inp": rng.standard_normal(in_shape), "x": rng.standard_normal((m, k)),
            "y": rng.standard_normal((k, n)), "w": rng.standard_normal((m, n))}
    feed = {n_: v.astype(dtype) for n_, v in feed.items()}
    a, b = (np.float64(np.float32(v)) for v in (alpha, beta))
    f = {n_: v.astype(np.float64) for n_, v in feed.items()}
    want = b * f["inp"] + a * f["x"] @ f["y"]
    d_in = b * np.broadcast_to(f["w"], (m, n))
    lead = 2 - len(in_shape)
    axes = tuple(range(lead)) + tuple(lead + i for i, s in enumerate(in_shape)
                                      if s == 1 and (m, n)[lead + i] != 1)
    want_grads = [d_in.sum(axis=axes, keepdims=True).reshape(in_shape) if axes else d_in,
                  a * f["w"] @ f["y"].T, a * f["x"].T @ f["w"]]
    fetch = [out] + grads
    runs = fused_unfused_reference(main, feed, fetch)
    tol = dict(rtol=1e-5, atol=1e-5) if dtype == "float32" else dict(rtol=1e-12, atol=1e-12)
    for which, got in runs.items():
        for name, g, w_ in zip(("out", "dinput", "dx", "dy"), got, [want] + want_grads):
            assert g.dtype == np.dtype(dtype) and g.shape == w_.shape, (which, name)
            np.testing.assert_allclose(g, w_, err_msg=f"{which} {name}", **tol)


@pytest.mark.parametrize("shapes,message", [
    (([2, 3], [2, 4], [5, 3]), "x's width must be equal with Variable y' height"),
    (([2, 2], [2, 4], [4, 3]), "input's dimension\\[1\\] must be 1 but got 2"),
    (([3, 3], [2, 4], [4, 3]), "input's dimension\\[0\\] must be 1 but got 3"),
    (([2], [2, 4], [4, 3]), "not broadcastable"),
    (([2, 3], [2, 4, 1], [4, 3]), "dimension of x, y should be 2"),
])
def test_addmm_shape_errors(shapes, message):
    with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):
        vs = [paddle.static.data(n, s, "float32") for n, s in zip("abc", shapes)]
        with pytest.raises(ValueError, match=message):
            paddle.addmm(*vs)
