"""Column kernels whose element stores read no per-column value (a bias grad: the column sum of
the very values stored, as gelu_grad's dX and its bias grad) store each element in the
reduction pass that computes it, instead of a pass of their own computing it again
(codegen/c_columns.py `_stores_in_last_reduction`). Random element chains over random shapes,
their input made by a library call (so the stored values may take its storage in place),
fetched with their column sums / maxima: fused, unfused and the numpy reference agree."""
from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import fluidc as fluid
from fluidc.codegen.c_columns import COLUMN_BLOCK

from op_harness import append, data_var, fused_unfused_reference


@pytest.fixture(autouse=True, scope="module")
def _compiled_runs():
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("FLUIDC_TIERED", "0")
        yield


UNARY = [("tanh", {}), ("exp", {}), ("square", {}), ("gelu", {}), ("sigmoid", {}),
         ("scale", {"scale": 0.5, "bias": 0.25})]


@st.composite
def stored_sums(draw):
    """(program, feed, fetch vars): h = x^T @ w (a library call: transposed X), a random
    element chain v of h and a feed g, its sum (and maybe max) over rows, and v itself or
    v^T @ g (a library call reading it)."""
    dtype = draw(st.sampled_from(["float32", "float64"]))
    rows = draw(st.sampled_from([1, 5, 64, 300]))
    cols = draw(st.sampled_from([1, 3, COLUMN_BLOCK, COLUMN_BLOCK + 5, 2 * COLUMN_BLOCK + 17]))
    k = draw(st.sampled_from([2, 7]))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    feed = {"x": rng.standard_normal((k, rows)).astype(dtype),
            "w": (rng.standard_normal((k, cols)) * 0.5).astype(dtype),
            "g": rng.standard_normal((rows, cols)).astype(dtype)}
    program = fluid.Program()
    block = program.global_block()
    for name, value in feed.items():
        data_var(block, name, value)

    def op(op_type, inputs, attrs=None):
        return append(block, op_type, inputs, attrs or {})[1]["Out"].name

    h = op("matmul_v2", {"X": ["x"], "Y": ["w"]}, {"trans_x": True})
    v = h
    for name, attrs in draw(st.lists(st.sampled_from(UNARY), min_size=1, max_size=3)):
        v = op(name, {"X": [v]}, attrs)
        if draw(st.booleans()):
            v = op(draw(st.sampled_from(["elementwise_mul", "elementwise_add"])),
                   {"X": [v], "Y": ["g"]})
    fetch = [op("reduce_sum", {"X": [v]}, {"dim": [0], "keep_dim": False})]
    if draw(st.booleans()):
        fetch.append(op("reduce_max", {"X": [v]}, {"dim": [0], "keep_dim": False}))
    # the chain fetched, or read by a library call only (then it may live in h's storage)
    fetch.append(v if draw(st.booleans()) else
                 op("matmul_v2", {"X": [v], "Y": ["g"]}, {"trans_x": True}))
    return program, feed, [block.var(n) for n in fetch]


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(stored_sums())
def test_stored_column_sums_fused_unfused_and_reference_agree(prog):
    program, feed, fetch = prog
    with np.errstate(all="ignore"), fluid.scope_guard(fluid.Scope()):
        got = fused_unfused_reference(program, feed, fetch)
    tol = 2e-5 if feed["x"].dtype == np.float32 else 1e-11
    for variant in ("fused", "unfused"):
        for var, g, w in zip(fetch, got[variant], got["reference"]):
            # absolute error relative to the result's scale: a product's sum of large terms
            # (exp of a product) cancels to small elements, rounded differently by each order
            scale = np.nanmax(np.abs(w[np.isfinite(w)]), initial=1.0)
            np.testing.assert_allclose(g, w, rtol=tol, atol=tol * scale,
                                       err_msg=f"{variant}: {var.name} of\n{program}")


def test_the_bias_grad_kernel_computes_each_element_once():
    """gelu_grad times the incoming grad, summed over rows: one pass stores and sums."""
    rows, cols = 256, COLUMN_BLOCK + 3
    program = fluid.Program()
    block = program.global_block()
    rng = np.random.default_rng(5)
    feed = {"x": rng.standard_normal((4, rows)).astype("float32"),
            "w": rng.standard_normal((4, cols)).astype("float32"),
            "d": rng.standard_normal((rows, cols)).astype("float32")}
    for name, value in feed.items():
        data_var(block, name, value)
    h = append(block, "matmul_v2", {"X": ["x"], "Y": ["w"]}, {"trans_x": True})[1]["Out"].name
    dx = append(block, "gelu_grad", {"X": [h], "Out@GRAD": ["d"]}, {},
                outputs=["X@GRAD"])[1]["X@GRAD"].name
    db = append(block, "reduce_sum", {"X": [dx]}, {"dim": [0]})[1]["Out"].name
    exe = fluid.Executor(fluid.CPUPlace())
    got = exe.run(program, feed=feed, fetch_list=[dx, db])
    source = next(iter(exe._plans.values())).module.source
    kernel = source[source.index("gelu_grad"):]
    assert len(re.findall(r"erff\(", kernel.split("\n}\n")[0])) == 1  # computed once
    with np.errstate(all="ignore"), fluid.scope_guard(fluid.Scope()):
        want = fused_unfused_reference(program, feed, [block.var(dx), block.var(db)])[
            "reference"]
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=2e-5, atol=2e-5)


def test_stores_in_place_follow_every_pass_reading_their_storage():
    """Two reductions of a chain whose values take the storage of their input h (read by a
    library call only after): the stores go in the last pass, after the sum's pass has read
    h."""
    rows, cols = 64, COLUMN_BLOCK + 3
    program = fluid.Program()
    block = program.global_block()
    rng = np.random.default_rng(0)
    feed = {"x": rng.standard_normal((3, rows)).astype("float32"),
            "w": rng.standard_normal((3, cols)).astype("float32"),
            "g": rng.standard_normal((rows, cols)).astype("float32")}
    for name, value in feed.items():
        data_var(block, name, value)

    def op(op_type, inputs, attrs=None):
        return append(block, op_type, inputs, attrs or {})[1]["Out"]

    h = op("matmul_v2", {"X": ["x"], "Y": ["w"]}, {"trans_x": True})
    v = op("elementwise_mul", {"X": [op("tanh", {"X": [h]})], "Y": ["g"]})
    fetch = [op("reduce_sum", {"X": [v]}, {"dim": [0]}), op("reduce_max", {"X": [v]}, {"dim": [0]}),
             op("matmul_v2", {"X": [v], "Y": ["g"]}, {"trans_x": True})]
    with fluid.scope_guard(fluid.Scope()):
        got = fused_unfused_reference(program, feed, fetch)
    for variant in ("fused", "unfused"):
        for g, w in zip(got[variant], got["reference"]):
            np.testing.assert_allclose(g, w, rtol=2e-5, atol=2e-5, err_msg=variant)
