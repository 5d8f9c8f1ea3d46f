"""The C backend's promises: NaN/Inf as numpy, denormals intact, a disk cache written atomically."""
import json
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


# Run in a child process: before the C guarded it, INT_MIN / -1 killed Python with SIGFPE.
_INT_MIN_CHILD = """
import json, sys
import numpy as np
import fluidc as fluid
block = fluid.default_main_program().global_block()
outs, feed = [], {}
for dt in ("int32", "int64"):
    x = block.create_var(name="x_" + dt, shape=[8], dtype=dt, is_data=True)
    y = block.create_var(name="y_" + dt, shape=[8], dtype=dt, is_data=True)
    m = int(np.iinfo(dt).min)
    feed[x.name] = np.array([m, m, m, m + 1, 7, -7, m, np.iinfo(dt).max], dt)
    feed[y.name] = np.array([-1, 1, 2, -1, -1, -1, m, -1], dt)
    for op in ("elementwise_div", "elementwise_floordiv", "elementwise_mod"):
        o = block.create_var(name=op + "_" + dt, dtype=dt)
        block.append_op(op, {"X": [x], "Y": [y]}, {"Out": [o]}, {})
        outs.append(o.name)
got = fluid.Executor(fluid.CPUPlace()).run(feed=feed, fetch_list=outs)
json.dump({n: g.tolist() for n, g in zip(outs, got)}, sys.stdout)
"""


def test_integer_min_divided_by_minus_one_is_numpys_answer(tmp_path):
    out = subprocess.run([sys.executable, "-c", _INT_MIN_CHILD], capture_output=True, text=True,
                         env={**os.environ, "FLUIDC_CACHE_DIR": str(tmp_path)}, timeout=300)
    assert out.returncode == 0, f"child exited {out.returncode}:\n{out.stderr[-2000:]}"
    got = json.loads(out.stdout)
    for dt in ("int32", "int64"):
        m, top = int(np.iinfo(dt).min), int(np.iinfo(dt).max)
        x = np.array([m, m, m, m + 1, 7, -7, m, top], dt)
        y = np.array([-1, 1, 2, -1, -1, -1, m, -1], dt)
        # Truncating division has no numpy integer ufunc (the reference goes through float64,
        # inexact near 2**63): exact quotients, wrapped to the dtype as numpy's ops wrap.
        trunc = [int(a) // int(b) if (int(a) < 0) == (int(b) < 0) else -(-int(a) // int(b))
                 for a, b in zip(x, y)]
        bits = np.iinfo(dt).bits
        trunc = [(v + 2 ** (bits - 1)) % 2 ** bits - 2 ** (bits - 1) for v in trunc]
        with np.errstate(all="ignore"):  # numpy warns of the overflow it wraps
            want = {"elementwise_div": np.array(trunc, dt),
                    "elementwise_floordiv": np.floor_divide(x, y), "elementwise_mod": np.mod(x, y)}
            assert np.trunc(np.true_divide(x[:1], y[:1])).astype(dt)[0] == m  # numpy's INT_MIN/-1
        for op, w in want.items():
            assert got[f"{op}_{dt}"] == w.tolist(), (op, dt)
        assert got[f"elementwise_div_{dt}"][0] == got[f"elementwise_floordiv_{dt}"][0] == m
        assert got[f"elementwise_mod_{dt}"][0] == 0


def test_compiled_library_is_cached_on_disk_and_reused(tmp_path, monkeypatch):
    monkeypatch.setenv("FLUIDC_CACHE_DIR", str(tmp_path))
    src = "void f(void **restrict s) { *(int *)s[0] = 42; }\n"
    lib = compiler.load_c(src)
    files = sorted(p.suffix for p in tmp_path.iterdir())
    assert files == [".c", ".meta", ".so"]  # no temporary build dir left behind
    assert compiler.load_c(src) is lib
    # A fresh process finds the library on disk and compiles nothing.
    code = ("import os, fluidc.codegen.compiler as c; "
            "c._build = lambda *a: (_ for _ in ()).throw(SystemExit('recompiled')); "
            f"c.load_c({src!r}); print('ok')")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env={**os.environ, "FLUIDC_CACHE_DIR": str(tmp_path)})
    assert out.stdout.strip() == "ok", out.stderr
