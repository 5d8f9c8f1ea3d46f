"""The C backend's promises: NaN/Inf as numpy, denormals intact, a disk cache written atomically."""
import os
import subprocess
import sys

import numpy as np

import fluidc as fluid
from fluidc.codegen import compiler


def _run_unary(layer, values, dtype="float32", **kw):
    x = fluid.layers.data(name="x", shape=[len(values)], dtype=dtype, append_batch_size=False)
    out = layer(x, **kw)
    got, = fluid.Executor(fluid.CPUPlace()).run(feed={"x": np.array(values, dtype)},
                                                fetch_list=[out])
    return got


SPECIAL = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-40, 3.0, -3.0] * 3  # long enough for simd


def test_nan_and_inf_propagate_like_numpy_through_vectorized_math():
    x = np.array(SPECIAL, "float32")
    with np.errstate(all="ignore"):
        cases = {
            fluid.layers.exp: np.exp(x), fluid.layers.tanh: np.tanh(x),
            fluid.layers.log: np.log(x), fluid.layers.sqrt: np.sqrt(x),
            fluid.layers.relu: np.maximum(x, 0), fluid.layers.abs: np.abs(x),
            fluid.layers.sigmoid: 1 / (1 + np.exp(-x)),
        }
    for layer, want in cases.items():
        got = _run_unary(layer, SPECIAL)
        np.testing.assert_allclose(got, want, rtol=1e-6, equal_nan=True,
                                   err_msg=layer.__name__)


def test_elementwise_max_min_let_nan_win():
    a = np.array([np.nan, 1.0, 2.0, np.nan] * 4, "float32")
    b = np.array([1.0, np.nan, 1.0, np.nan] * 4, "float32")
    x = fluid.layers.data(name="a", shape=[16], dtype="float32", append_batch_size=False)
    y = fluid.layers.data(name="b", shape=[16], dtype="float32", append_batch_size=False)
    hi, lo = fluid.layers.elementwise_max(x, y), fluid.layers.elementwise_min(x, y)
    got_hi, got_lo = fluid.Executor(fluid.CPUPlace()).run(feed={"a": a, "b": b},
                                                          fetch_list=[hi, lo])
    np.testing.assert_array_equal(got_hi, np.maximum(a, b))
    np.testing.assert_array_equal(got_lo, np.minimum(a, b))


def test_loading_kernels_keeps_denormals_for_the_whole_process():
    tiny = np.float32(1e-40)
    assert tiny != 0
    got = _run_unary(fluid.layers.scale, [1e-40] * 8, scale=0.5)
    assert (got > 0).all()  # the kernel itself computes in denormals
    # numpy and torch still see denormals after the library is loaded (no crtfastmath.o).
    assert np.float32(1e-40) * np.float32(0.5) > 0
    import torch
    assert (torch.tensor([1e-40]) * 0.5).item() > 0


def test_integer_division_by_zero_does_not_crash():
    x = fluid.layers.data(name="x", shape=[4], dtype="int64", append_batch_size=False)
    y = fluid.layers.data(name="y", shape=[4], dtype="int64", append_batch_size=False)
    out = fluid.layers.elementwise_div(x, y)
    got, = fluid.Executor(fluid.CPUPlace()).run(
        feed={"x": np.array([7, -7, 5, 1]), "y": np.array([2, 2, 0, 1])}, fetch_list=[out])
    assert got.tolist()[:2] == [3, -3] and got[3] == 1


def test_compiled_library_is_cached_on_disk_and_reused(tmp_path, monkeypatch):
    monkeypatch.setenv("FLUIDC_CACHE_DIR", str(tmp_path))
    src = "void f(void **restrict s) { *(int *)s[0] = 42; }\n"
    lib = compiler.load_c(src)
    files = sorted(p.suffix for p in tmp_path.iterdir())
    assert files == [".c", ".so"]  # no temporary build dir left behind
    assert compiler.load_c(src) is lib
    # A fresh process finds the library on disk and compiles nothing.
    code = ("import os, fluidc.codegen.compiler as c; "
            "c._build = lambda *a: (_ for _ in ()).throw(SystemExit('recompiled')); "
            f"c.load_c({src!r}); print('ok')")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env={**os.environ, "FLUIDC_CACHE_DIR": str(tmp_path)})
    assert out.stdout.strip() == "ok", out.stderr
