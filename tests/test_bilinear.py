"""F.bilinear / paddle.static.nn.common.bilinear_tensor_product / nn.Bilinear (composed: one
matmul of x1 by the weights side by side, then a product with x2 summed): forward and
gradients equal numpy's einsums."""
import numpy as np
import pytest

import fluidc as fluid
import fluidc as paddle


@pytest.mark.parametrize("n,i,j,k", [(1, 3, 3, 6), (5, 2, 7, 4), (3, 6, 1, 1)])
def test_matches_numpy(n, i, j, k):
    rng = np.random.default_rng(n * 100 + i * 10 + j + k)
    feed = {"x": rng.normal(size=(n, i)), "y": rng.normal(size=(n, j)),
            "w": rng.normal(size=(k, i, j)), "b": rng.normal(size=(1, k)),
            "d": rng.normal(size=(n, k))}
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        x, y, w, b, d = (paddle.static.data(name, list(v.shape), "float64")
                         for name, v in feed.items())
        for v in (x, y, w, b):
            v.stop_gradient = False
        out = paddle.nn.functional.bilinear(x, y, w, b)
        fluid.backward.append_backward(paddle.sum(paddle.multiply(out, d)))
    got = fluid.Executor(fluid.CPUPlace()).run(
        main, feed=feed, fetch_list=[out, "x@GRAD", "y@GRAD", "w@GRAD", "b@GRAD"])
    X, Y, W, B, D = (feed[name] for name in "xywbd")
    want = [np.einsum("ni,kij,nj->nk", X, W, Y) + B, np.einsum("nk,kij,nj->ni", D, W, Y),
            np.einsum("nk,kij,ni->nj", D, W, X), np.einsum("nk,ni,nj->kij", D, X, Y),
            D.sum(0, keepdims=True)]
    for g, r in zip(got, want):
        np.testing.assert_allclose(g, r, rtol=1e-10, atol=1e-12)


def test_layers_and_errors():
    with fluid.program_guard(fluid.Program(), fluid.Program()):
        x = paddle.static.data("x", [-1, 4], "float32")
        y = paddle.static.data("y", [-1, 5], "float32")
        assert paddle.static.nn.common.bilinear_tensor_product(x, y, 6).shape == (-1, 6)
        assert paddle.nn.Bilinear(4, 5, 3)(x, y).shape == (-1, 3)
        with pytest.raises(ValueError, match="do not fit weight"):
            paddle.nn.Bilinear(5, 5, 3)(x, y)
        with pytest.raises(TypeError):
            paddle.nn.functional.bilinear(np.ones([2, 4], "float32"), y,
                                          paddle.static.data("w", [3, 4, 5], "float32"))
