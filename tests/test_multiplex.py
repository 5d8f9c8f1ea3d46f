"""paddle.multiplex and its grad against numpy (row i from candidate index[i]; each candidate's
grad the rows that chose it), float32 / float64 / int candidates, int32 / int64 index, fused,
unfused and on the reference executor; an index naming no candidate and the argument errors.
Paddle's own numbers: tests/paddle_tests/test_layers_book.py's make_multiplex."""
import numpy as np
import pytest

import fluidc as paddle
from fluidc.frontend.errors import FluidcError

from op_harness import fused_unfused_reference

paddle.enable_static()


@pytest.mark.parametrize("seed", range(4))
def test_multiplex_and_grad_match_numpy(seed):
    rng = np.random.default_rng(seed)
    dtype = ("float32", "float64")[seed % 2]
    k, n = int(rng.integers(2, 5)), int(rng.integers(1, 6))
    shape = [n] + [int(d) for d in rng.integers(1, 4, int(rng.integers(1, 3)))]
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        xs = [paddle.static.data(f"x{j}", shape, dtype) for j in range(k)]
        for x in xs:
            x.stop_gradient = False
        index = paddle.static.data("index", [n, 1], ("int32", "int64")[seed // 2])
        out = paddle.multiplex(xs, index)
        w = paddle.static.data("w", shape, dtype)
        grads = paddle.static.gradients([paddle.sum(out * w)], xs)
    feed = {f"x{j}": rng.standard_normal(shape).astype(dtype) for j in range(k)}
    feed["index"] = rng.integers(0, k, (n, 1)).astype(("int32", "int64")[seed // 2])
    feed["w"] = rng.standard_normal(shape).astype(dtype)
    rows = feed["index"][:, 0]
    want = np.stack([feed[f"x{j}"] for j in range(k)])[rows, np.arange(n)]
    mask = lambda j: (rows == j).reshape((-1,) + (1,) * (len(shape) - 1))  # noqa: E731
    want_grads = [np.where(mask(j), feed["w"], 0) for j in range(k)]
    fetch = [out] + grads
    runs = fused_unfused_reference(main, feed, fetch)
    for which, (got, *got_grads) in runs.items():
        np.testing.assert_array_equal(got, want, err_msg=which)
        for j, (g, wg) in enumerate(zip(got_grads, want_grads)):
            np.testing.assert_array_equal(g, wg, err_msg=f"{which} x{j}")


def test_multiplex_of_ints_and_a_bad_index():
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        a, b = (paddle.static.data(n, [3, 2], "int64") for n in ("a", "b"))
        out = paddle.multiplex([a, b], paddle.static.data("i", [3, 1], "int32"))
    exe = paddle.static.Executor(paddle.CPUPlace())
    feed = {"a": np.arange(6).reshape(3, 2), "b": -np.arange(6).reshape(3, 2),
            "i": np.array([[1], [0], [1]], "int32")}
    (got,) = exe.run(main, feed=feed, fetch_list=[out])
    np.testing.assert_array_equal(got, [[0, -1], [2, 3], [-4, -5]])
    with pytest.raises(FluidcError, match="Ids"):
        exe.run(main, feed={**feed, "i": np.array([[2], [0], [1]], "int32")}, fetch_list=[out])


def test_multiplex_argument_errors():
    with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):
        x = paddle.static.data("x", [3, 2], "float32")
        i = paddle.static.data("i", [3, 1], "int32")
        with pytest.raises(ValueError, match="at least 2"):
            paddle.multiplex([x], i)
        with pytest.raises(TypeError, match="index"):
            paddle.multiplex([x, x], paddle.static.data("f", [3, 1], "float32"))
