"""Column reductions (over dims outside the contiguous one) and what row fusion puts around
them: the C backend blocks the columns (codegen/c_columns.py), each pass reading every row's
contiguous slice once. Random statistics programs (mean, variance, normalize with a scale and
shift; max/min/sum/prod; softmax over a leading axis) over random shapes (block remainders,
size-1 dims, several kept dims, float32 and float64) run fused, unfused and on the numpy
reference executor, and on Triton's interpreter; the user's way of writing column statistics
(mean over axis 0 without keep_dim) is one kernel."""
from __future__ import annotations

import os

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

os.environ.setdefault("TRITON_INTERPRET", "1")  # read when Triton kernels load: before any is

import fluidc as fluid
from fluidc.codegen.c_columns import COLUMN_BLOCK
from fluidc.passes.fuse import Kernel
from fluidc.passes.pipeline import lower_for_batch
from fluidc.runtime import tiered
from fluidc.runtime.plan import Plan

from op_harness import append, data_var, run_reference

EPS = 1e-5


@pytest.fixture(autouse=True, scope="module")
def _compiled_runs():
    """Every run here on the compiled C (a first run could otherwise go on tier 0, numpy)."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("FLUIDC_TIERED", "0")
        yield


TOL = {"float32": (2e-5, 2e-5), "float64": (1e-11, 1e-12)}
# Column counts around the block width (remainders, a single column, several blocks).
COLUMNS = [1, 3, COLUMN_BLOCK - 1, COLUMN_BLOCK, COLUMN_BLOCK + 5, 2 * COLUMN_BLOCK + 17]


@st.composite
def statistics_programs(draw, max_rows: int = 300):
    """(program, feed {name: array}, fetch names): statistics over leading or middle axes."""
    dtype = draw(st.sampled_from(["float32", "float64"]))
    cols = draw(st.sampled_from(COLUMNS))
    rank = draw(st.integers(2, 3))
    lead = [draw(st.sampled_from([1, 2, 7, max_rows])) for _ in range(rank - 1)]
    shape = (*lead, cols)
    # Leading axes (the mean without keep_dim broadcasts back by numpy's rule), or a middle
    # axis of a 3-D shape (kept dims on both sides: keep_dim needed).
    axes = draw(st.sampled_from([[0]] + ([[0, 1], [1]] if rank == 3 else [])))
    keep = True if axes == [1] else draw(st.booleans())
    program = fluid.Program()
    block = program.global_block()
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    feed = {"x": (rng.standard_normal(shape) * 2 + 1).astype(dtype),
            "g": rng.standard_normal(cols).astype(dtype),
            "b": rng.standard_normal(cols).astype(dtype)}
    if draw(st.integers(0, 4)) == 0:  # a NaN in one column: max/min/sum must carry it
        feed["x"][(0,) * (rank - 1) + (cols // 2,)] = np.nan
    for name, value in feed.items():
        data_var(block, name, value)

    def op(op_type, inputs, attrs=None):
        return append(block, op_type, inputs, attrs or {})[1]["Out"].name

    red = {"dim": axes, "keep_dim": keep}
    mu = op("reduce_mean", {"X": ["x"]}, red)
    d = op("elementwise_sub", {"X": ["x"], "Y": [mu]})
    sq = op("square", {"X": [d]}) if draw(st.booleans()) else \
        op("elementwise_mul", {"X": [d], "Y": [d]})
    var = op("reduce_mean", {"X": [sq]}, red)
    std = op("sqrt", {"X": [op("scale", {"X": [var]}, {"bias": EPS})]})
    out = op("elementwise_add", {"X": [op("elementwise_mul", {"X": [
        op("elementwise_div", {"X": [d], "Y": [std]})], "Y": ["g"]})], "Y": ["b"]})
    fetch = [out] + draw(st.lists(st.sampled_from([mu, var, std]), max_size=2, unique=True))
    for kind in draw(st.lists(st.sampled_from(["reduce_max", "reduce_min", "reduce_sum",
                                               "reduce_prod"]), max_size=2, unique=True)):
        x = op("scale", {"X": ["x"]}, {"scale": 0.01, "bias": 1.0}) if kind == "reduce_prod" \
            else "x"
        fetch.append(op(kind, {"X": [x]}, red))
    if draw(st.booleans()):
        fetch.append(op("softmax", {"X": ["x"]}, {"axis": 0}))
    return program, feed, fetch


def _check(got, want, fetch, program, what, rows: int = 1):
    """`rows`: the elements each column statistic sums. numpy's float32 sums over a strided
    axis accumulate one by one in float32 (the C sums in double), so the reference's own
    error grows with the row count: the float32 tolerance grows as its square root."""
    for name, g, w in zip(fetch, got, want):
        assert g.dtype == w.dtype and g.shape == w.shape, (what, name, g.shape, w.shape)
        rtol, atol = TOL[w.dtype.name]
        if w.dtype == np.float32:
            rtol, atol = (t * max(1.0, np.sqrt(rows / 1000)) for t in (rtol, atol))
        np.testing.assert_allclose(g, w, rtol=rtol, atol=atol, equal_nan=True,
                                   err_msg=f"{what}: {name} of\n{program}")


def _fused_unfused_and_reference_agree(prog) -> None:
    program, feed, fetch = prog
    unfused = fluid.BuildStrategy()
    unfused.fuse_all = False
    exe = fluid.Executor(fluid.CPUPlace())
    with np.errstate(all="ignore"):
        want = run_reference(program, feed, fetch)
        for variant, what in ((program, "fused"),
                              (fluid.CompiledProgram(program, build_strategy=unfused),
                               "unfused")):
            with fluid.scope_guard(fluid.Scope()):
                _check(exe.run(variant, feed=feed, fetch_list=fetch), want, fetch, program, what,
                       feed["x"].size // feed["x"].shape[-1])


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(statistics_programs())
def test_column_statistics_fused_unfused_and_reference_agree(prog):
    _fused_unfused_and_reference_agree(prog)


@pytest.mark.slow
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(statistics_programs())
def test_column_statistics_agree_campaign(prog):
    _fused_unfused_and_reference_agree(prog)


@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(statistics_programs(max_rows=20))
def test_column_statistics_on_triton_agree_with_reference(prog):
    pytest.importorskip("triton")
    program, feed, fetch = prog
    with np.errstate(all="ignore"), fluid.scope_guard(fluid.Scope()):
        want = run_reference(program, feed, fetch)
        got = fluid.Executor(fluid.CUDAPlace(0)).run(program, feed=feed, fetch_list=fetch)
    _check(got, want, fetch, program, "triton")


def _user_column_statistics(rows: int, cols: int, keepdim: bool = False):
    """The 2.x API as a user writes it: mean over axis 0 (without keep_dim by default)."""
    paddle = fluid
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [rows, cols], "float32")
        g = paddle.static.data("g", [cols], "float32")
        b = paddle.static.data("b", [cols], "float32")
        mu = paddle.mean(x, axis=0, keepdim=keepdim)
        var = paddle.mean(paddle.square(x - mu), axis=0, keepdim=keepdim)
        out = (x - mu) / paddle.sqrt(var + EPS) * g + b
    return main, out


@pytest.mark.parametrize("keepdim", [False, True])
def test_tier0_computes_column_statistics_as_the_compiled_kernel_bit_for_bit(keepdim):
    """Tier 0 (numpy, first runs) multiplies by the reciprocal of the standard deviation
    where the C does, so both give the same bits."""
    rows, cols = 48, COLUMN_BLOCK + 3
    main, out = _user_column_statistics(rows, cols, keepdim)
    lp = lower_for_batch(main, ["x", "g", "b"], [out.name], rows)
    first = Plan(lp, 0, module=tiered.NumpyModule(lp.steps, lp.infos, lp.storage))
    compiled = Plan(lp, 0)
    rng = np.random.default_rng(11)
    exact = 0
    for _ in range(4):
        feed = {"x": rng.standard_normal((rows, cols)).astype("float32") * 3 + 1,
                "g": rng.standard_normal(cols).astype("float32"),
                "b": rng.standard_normal(cols).astype("float32")}
        want, = compiled.run(feed, fluid.Scope())
        try:
            got, = first.run(feed, fluid.Scope())
        except tiered.NotExact:  # a sum whose rounding depends on the order: not tier 0's
            continue
        exact += 1
        np.testing.assert_array_equal(got, want)
    assert exact


def test_user_column_statistics_are_one_blocked_kernel():
    rows, cols = 333, COLUMN_BLOCK + 7
    main, out = _user_column_statistics(rows, cols)
    rng = np.random.default_rng(3)
    feed = {"x": rng.standard_normal((rows, cols)).astype("float32") * 3 + 2,
            "g": rng.standard_normal(cols).astype("float32"),
            "b": rng.standard_normal(cols).astype("float32")}
    exe = fluid.Executor(fluid.CPUPlace())
    got, = exe.run(main, feed=feed, fetch_list=[out])
    plan = next(iter(exe._plans.values()))
    assert [type(s) for s in plan.lowered.steps] == [Kernel]
    assert plan.lowered.steps[0].axes == (0,)
    # The blocked layout: the columns advance by blocks, each pass walking the rows.
    assert f"c0 += {COLUMN_BLOCK}" in plan.module.source
    x = feed["x"].astype(np.float64)
    want = (x - x.mean(0)) / np.sqrt(x.var(0) + EPS) * feed["g"] + feed["b"]
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    _check([got], run_reference(main, feed, [out.name]), [out.name], main, "reference")


@pytest.mark.parametrize("shapes", [
    ((64, 1, 256), (1, 128, 256), (256,)),
    ((5, 1, 131), (1, 7, 131), (131,)),
    ((3, 1, 1), (1, 9, 1), (1,)),
    ((1, 6, 1), (4, 1, 3), (3,)),
])
def test_broadcast_chains_over_size_one_dims_agree_with_reference(shapes):
    paddle = fluid
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        a, b, c = (paddle.static.data(n, s, "float32") for n, s in zip("abc", shapes))
        out = paddle.nn.functional.relu(a * b + c) - c
    rng = np.random.default_rng(5)
    feed = {n: rng.standard_normal(s).astype("float32") for n, s in zip("abc", shapes)}
    got, = fluid.Executor(fluid.CPUPlace()).run(main, feed=feed, fetch_list=[out])
    want = np.maximum(feed["a"] * feed["b"] + feed["c"], 0) - feed["c"]
    np.testing.assert_array_equal(got, want.astype(np.float32))
