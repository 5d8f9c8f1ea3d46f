"""float16 and complex data through the compiled backends, against the numpy reference executor.

float16 is stored as float16 and computed in float32, each value rounded to float16 as numpy
(and Paddle's CPU kernels, op by op) do: in generated C (_Float16) and Triton (tl.float16),
fused and unfused. Complex pointwise arithmetic runs as library calls (its numpy expression) between
the generated kernels of the real ops around it; ops without a complex meaning are refused.
"""
import os

import numpy as np
import pytest

import fluidc as paddle
from fluidc.frontend.errors import OpError
from fluidc.frontend.layers.helper import ArgumentTypeError
from fluidc.frontend.ops.define import computes_on_complex
from fluidc.passes.strategy import strategy_for

from op_harness import one_op_program, run_c, run_reference, seeded

os.environ.setdefault("TRITON_INTERPRET", "1")  # as tests/test_triton.py: before kernels load


def _run(main, feed, fetch, place=None, strategy=None):
    program = main if strategy is None else paddle.static.CompiledProgram(
        main, build_strategy=strategy)
    with paddle.static.scope_guard(paddle.static.Scope()):
        return paddle.static.Executor(place or paddle.CPUPlace()).run(
            program, feed=feed, fetch_list=fetch)


def _f16_program(shape):
    main = paddle.static.Program()
    with paddle.static.program_guard(main, paddle.static.Program()):
        x = paddle.static.data("x", shape, "float16")
        y = paddle.static.data("y", shape, "float16")
        z = paddle.sqrt(x * y + x) / (y + 1.0)
        exact = [z, paddle.max(z, axis=0), paddle.tanh(z) * 3 - paddle.cast(
            paddle.cast(x, "float32") * 0.1, "float16"), paddle.minimum(x, y) - x / 3]
        close = [paddle.sum(paddle.exp(x - y), axis=1), paddle.nn.functional.softmax(x),
                 paddle.mean(x * y)]
    return main, exact, close


@pytest.mark.parametrize("shape", [[37, 129], [3, 20000]])
@pytest.mark.parametrize("fused", [True, False])
def test_float16_c_matches_reference(shape, fused):
    main, exact, close = _f16_program(shape)
    rng = seeded(f"f16-{shape}")
    feed = {n: rng.uniform(0, 2, shape).astype("float16") for n in ("x", "y")}
    fetch = [v.name for v in exact + close]
    got = _run(main, feed, fetch, strategy=None if fused else strategy_for([]))
    want = run_reference(main, feed, fetch)
    for name, g, w in zip(fetch, got, want):
        assert g.dtype == np.float16 and g.shape == w.shape, name
    # arithmetic, sqrt and tanh round each value once from float32, as numpy: the same bits
    for name, g, w in zip(fetch[:len(exact)], got, want):
        np.testing.assert_array_equal(g, w, err_msg=name)
    # sums and softmax's reciprocal take other float32 roundings than numpy's float16 ones
    for name, g, w in zip(fetch[len(exact):], got[len(exact):], want[len(exact):]):
        np.testing.assert_allclose(g.astype("f8"), w.astype("f8"), rtol=2e-3, atol=1e-3,
                                   err_msg=name)


def test_float16_triton_matches_c():
    pytest.importorskip("triton")
    main, exact, close = _f16_program([5, 300])
    rng = seeded("f16-triton")
    feed = {n: rng.uniform(0, 2, (5, 300)).astype("float16") for n in ("x", "y")}
    fetch = [v.name for v in exact + close]
    got = _run(main, feed, fetch, place=paddle.CUDAPlace(0))
    want = run_reference(main, feed, fetch)
    for name, g, w in zip(fetch, got, want):
        assert g.dtype == np.float16, name
        np.testing.assert_allclose(g.astype("f8"), w.astype("f8"), rtol=2e-3, atol=1e-3,
                                   err_msg=name)


def _complex(rng, shape, dtype):
    return (rng.uniform(-1, 1, shape) + 1j * rng.uniform(0.5, 1, shape)).astype(dtype)


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex_arithmetic_between_real_kernels(dtype):
    """Complex ops with broadcasting, next to real ops that fuse into kernels around them."""
    rng = seeded(f"complex-{dtype}")
    real = "float32" if dtype == "complex64" else "float64"
    xs, ys = (4, 3, 5), (3, 5)
    feed = {"x": _complex(rng, xs, dtype), "y": _complex(rng, ys, dtype),
            "r": rng.uniform(1, 2, xs).astype(real)}
    main = paddle.static.Program()
    with paddle.static.program_guard(main, paddle.static.Program()):
        x, y = (paddle.static.data(n, list(feed[n].shape), dtype) for n in ("x", "y"))
        r = paddle.static.data("r", list(xs), real)
        outs = [x * y, x - y, x / y + x, paddle.pow(x, paddle.full([1], 2.0, dtype)),
                paddle.multiply(x, x) == x * x, paddle.exp(r) * 2.0 + paddle.sqrt(r),
                paddle.scale(x, 2.0, 0.5)]
    with np.errstate(all="ignore"):
        numpy = [feed["x"] * feed["y"], feed["x"] - feed["y"],
                 feed["x"] / feed["y"] + feed["x"], feed["x"] ** 2,
                 np.ones(xs, bool), np.exp(feed["r"]) * 2 + np.sqrt(feed["r"]),
                 feed["x"] * 2 + 0.5]
    fetch = [o.name for o in outs]
    got = _run(main, feed, fetch)
    want = run_reference(main, feed, fetch)
    rtol = 1e-5 if dtype == "complex64" else 1e-12
    for name, g, w, n in zip(fetch, got, want, numpy):
        assert g.dtype == w.dtype == n.dtype and g.shape == n.shape, name
        if g.dtype.kind == "c":  # the library call is the reference's own expression
            np.testing.assert_array_equal(g, w, err_msg=name)
        np.testing.assert_allclose(g, n, rtol=rtol, err_msg=name)


def test_complex_only_where_numpy_means_paddle():
    """Ordering, abs and casts dropping the imaginary part have no complex meaning here."""
    c, f = {"X": ["complex128"], "Y": ["complex128"]}, {"X": ["float64"], "Y": ["complex128"]}
    assert computes_on_complex("elementwise_mul", c, {"axis": -1})
    assert computes_on_complex("elementwise_div", f, {"axis": -1})
    assert not computes_on_complex("elementwise_max", c, {"axis": -1})
    assert not computes_on_complex("abs", {"X": ["complex64"]}, {})
    assert not computes_on_complex("cast", {"X": ["complex64"]},
                                   {"in_dtype": 23, "out_dtype": 5})
    assert not computes_on_complex("reduce_sum", {"X": ["complex64"]}, {})
    x = paddle.static.data("x", [2, 3], "complex64")
    with pytest.raises(ArgumentTypeError, match="'x' .X. is complex64; fluidc computes on "
                                                "complex data only in arithmetic"):
        paddle.maximum(x, x)


def test_complex_op_without_complex_form_is_refused_when_compiled():
    """An op appended past the layers' checks (block.append_op) is refused by the compiler,
    never run by numpy's complex ordering."""
    x = np.array([1 + 2j, -3 + 0.5j])
    program, feed, names, _ = one_op_program("relu", {"X": x})
    with pytest.raises(OpError, match="op 'relu' has no complex form"):
        run_c(program, feed, [names["Out"]])
