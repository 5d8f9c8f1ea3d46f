"""paddle.scatter and its grad against numpy, overwrite (the last duplicate id wins) and
accumulate (indexed rows zeroed, every update added), with duplicate ids, int32 / int64 ids of
shape [M] and [M, 1], fused, unfused and on the reference executor; Paddle's grad in both
modes (dX: dOut with the indexed rows zeroed; dUpdates: dOut's indexed rows); an out-of-range
id and the argument errors. Paddle's own numbers: test_layers_book.py's make_scatter."""
import numpy as np
import pytest

import fluidc as paddle
from fluidc.frontend.errors import FluidcError

from op_harness import fused_unfused_reference

paddle.enable_static()


def np_scatter(x, ids, upd, overwrite):
    out = x.copy()
    if overwrite:
        last = {int(i): k for k, i in enumerate(ids)}
        for i, k in last.items():
            out[i] = upd[k]
    else:
        for i in set(int(i) for i in ids):
            out[i] = upd[ids == i].sum(axis=0)
    return out


@pytest.mark.parametrize("seed", range(4))
def test_scatter_and_grad_match_numpy(seed):
    rng = np.random.default_rng(seed)
    dtype, overwrite = ("float32", "float64")[seed % 2], seed < 2
    n, m = int(rng.integers(2, 7)), int(rng.integers(1, 8))
    tail = [int(d) for d in rng.integers(1, 4, int(rng.integers(0, 3)))]
    id_shape = [m] if seed % 3 else [m, 1]
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [n] + tail, dtype)
        ids = paddle.static.data("ids", id_shape, ("int64", "int32")[seed // 2])
        upd = paddle.static.data("upd", [m] + tail, dtype)
        x.stop_gradient = upd.stop_gradient = False
        out = paddle.scatter(x, ids, upd, overwrite=overwrite)
        w = paddle.static.data("w", [n] + tail, dtype)
        dx, du = paddle.static.gradients([paddle.sum(out * w)], [x, upd])
    feed = {"x": rng.standard_normal([n] + tail).astype(dtype),
            "ids": rng.integers(0, n, id_shape).astype(("int64", "int32")[seed // 2]),
            "upd": rng.standard_normal([m] + tail).astype(dtype),
            "w": rng.standard_normal([n] + tail).astype(dtype)}
    flat = feed["ids"].reshape(-1)
    want = np_scatter(feed["x"], flat, feed["upd"], overwrite)
    want_dx = feed["w"].copy()
    want_dx[flat] = 0
    want_du = feed["w"][flat]
    fetch = [out, dx, du]
    runs = fused_unfused_reference(main, feed, fetch)
    rtol = 1e-6 if dtype == "float32" else 1e-14
    for which, (got, got_dx, got_du) in runs.items():
        np.testing.assert_allclose(got, want, rtol=rtol, err_msg=which)
        np.testing.assert_array_equal(got_dx, want_dx, err_msg=which)
        np.testing.assert_array_equal(got_du, want_du, err_msg=which)


def test_scatter_refuses_an_id_out_of_range_and_bad_arguments():
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [3, 2], "float32")
        ids = paddle.static.data("ids", [1], "int64")
        out = paddle.scatter(x, ids, paddle.static.data("u", [1, 2], "float32"))
        with pytest.raises(TypeError, match="overwrite"):
            paddle.scatter(x, ids, x, overwrite=1)
        with pytest.raises(TypeError, match="scatter"):
            paddle.scatter(paddle.static.data("b", [3, 2], "bool"), ids, x)
        with pytest.raises(FluidcError, match="Updates"):
            paddle.scatter(x, ids, paddle.static.data("v", [1, 3], "float32"))
    feed = {"x": np.zeros((3, 2), "float32"), "u": np.ones((1, 2), "float32")}
    exe = paddle.static.Executor(paddle.CPUPlace())
    (got,) = exe.run(main, feed={**feed, "ids": np.array([2])}, fetch_list=[out])
    np.testing.assert_array_equal(got, [[0, 0], [0, 0], [1, 1]])
    with pytest.raises(FluidcError, match="Ids"):
        exe.run(main, feed={**feed, "ids": np.array([3])}, fetch_list=[out])
