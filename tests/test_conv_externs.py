"""The library calls of conv2d, depthwise_conv2d and pool2d and their grads (torch's forward and
backward kernels writing into the preallocated outputs) against the numpy references, over a
grid of attributes (odd sizes, strides, 2- and 4-value paddings, SAME/VALID, dilations, groups,
NHWC, ceil_mode, exclusive, global and adaptive pooling) in float32 and float64; max-pool
gradient ties; grads of dropped outputs; and the compiled programs' gradients against central
finite differences in float64."""
import itertools

import numpy as np
import pytest
import torch

from fluidc.frontend.ops import conv
from fluidc.frontend.ops.registry import get_op_def

from op_harness import seeded
from ref_harness import check_run
from test_grad_check import GradCase, op, run_grad_check

TOL = {np.float32: dict(rtol=2e-4, atol=2e-5), np.float64: dict(rtol=1e-10, atol=1e-11)}
DTYPES = [np.float32, np.float64]


def _nhwc(x):
    return np.ascontiguousarray(x.transpose(0, 2, 3, 1))


def _ref(op_type, ins, attrs):
    d = get_op_def(op_type)
    return d.reference(ins, d.complete_attrs(attrs))


# --- conv2d / depthwise_conv2d -----------------------------------------------------------------

# (op, NCHW input shape, filter shape, attrs)
CONV_GRID = {
    "odd": ("conv2d", (2, 3, 7, 9), (4, 3, 3, 2), {}),
    "stride_pad": ("conv2d", (2, 3, 9, 7), (5, 3, 3, 3), {"strides": [2, 3], "paddings": [1, 2]}),
    "pad4_asym": ("conv2d", (1, 2, 8, 7), (3, 2, 3, 3),
                  {"paddings": [0, 2, 1, 0], "strides": [2, 1]}),
    "pad4_sym": ("conv2d", (1, 2, 6, 7), (3, 2, 3, 3), {"paddings": [1, 1, 2, 2]}),
    "dilation": ("conv2d", (1, 4, 11, 9), (2, 4, 3, 2), {"dilations": [2, 3], "paddings": [2, 1]}),
    "groups": ("conv2d", (2, 6, 7, 7), (9, 2, 3, 3),
               {"groups": 3, "paddings": [1, 1], "strides": [2, 2]}),
    "groups_dilation_asym": ("conv2d", (1, 4, 9, 8), (4, 2, 3, 3),
                             {"groups": 2, "dilations": [2, 2], "paddings": [1, 2, 0, 3]}),
    "depthwise": ("depthwise_conv2d", (2, 4, 7, 6), (8, 1, 3, 3),
                  {"groups": 4, "paddings": [1, 1], "strides": [2, 1]}),
    "same_s2": ("conv2d", (1, 3, 8, 7), (4, 3, 4, 3),
                {"padding_algorithm": "SAME", "strides": [2, 2], "paddings": [5, 5]}),
    "same_even_k": ("conv2d", (2, 2, 5, 6), (3, 2, 2, 2), {"padding_algorithm": "SAME"}),
    "valid": ("conv2d", (1, 3, 7, 8), (2, 3, 3, 3),
              {"padding_algorithm": "VALID", "paddings": [3, 3], "strides": [2, 2]}),
    "one_by_one": ("conv2d", (3, 5, 4, 5), (6, 5, 1, 1), {"strides": [2, 2]}),
}


def _conv_inputs(key, fmt, dtype):
    op_type, xs, ws, attrs = CONV_GRID[key]
    rng = seeded(f"conv-{key}-{fmt}-{np.dtype(dtype).name}")
    x = rng.standard_normal(xs).astype(dtype)
    w = rng.standard_normal(ws).astype(dtype)
    attrs = {**attrs, "data_format": fmt}
    if fmt == "NHWC":
        x = _nhwc(x)
    return op_type, x, w, attrs, rng


@pytest.mark.parametrize("dtype", DTYPES, ids=["f32", "f64"])
@pytest.mark.parametrize("fmt", ["NCHW", "NHWC"])
@pytest.mark.parametrize("key", sorted(CONV_GRID))
def test_conv_run_and_grad_run(key, fmt, dtype):
    op_type, x, w, attrs, rng = _conv_inputs(key, fmt, dtype)
    out = check_run(op_type, {"Input": [x], "Filter": [w]}, attrs, **TOL[dtype])["Output"][0]
    assert out.dtype == dtype
    d = rng.standard_normal(out.shape).astype(dtype)
    got = check_run(op_type + "_grad", {"Input": [x], "Filter": [w], "Output@GRAD": [d]}, attrs,
                    **TOL[dtype])
    assert got["Input@GRAD"][0].shape == x.shape and got["Filter@GRAD"][0].shape == w.shape


def _run_partial(op_type, ins, attrs, slot, others_none):
    """`run` with only `slot` given a tensor (the other outputs absent, or None in their slot),
    filled with NaN first so that a part the run leaves unwritten shows."""
    d = get_op_def(op_type)
    a = d.complete_attrs(attrs)
    want = d.reference(ins, a)[slot][0]
    tins = {s: [torch.from_numpy(np.array(v)) for v in vs] for s, vs in ins.items()}
    outs = {s.name: [None] for s in d.outputs} if others_none else {}
    outs[slot] = [torch.from_numpy(np.full(want.shape, np.nan, want.dtype))]
    d.run(tins, outs, a, None)
    return outs[slot][0].numpy(), want


@pytest.mark.parametrize("key", ["pad4_asym", "groups", "same_s2"])
@pytest.mark.parametrize("fmt", ["NCHW", "NHWC"])
@pytest.mark.parametrize("slot", ["Input@GRAD", "Filter@GRAD"])
@pytest.mark.parametrize("others_none", [False, True], ids=["absent", "none"])
def test_conv_grad_with_one_output(key, fmt, slot, others_none):
    op_type, x, w, attrs, rng = _conv_inputs(key, fmt, np.float64)
    out = _ref(op_type, {"Input": [x], "Filter": [w]}, attrs)["Output"][0]
    ins = {"Input": [x], "Filter": [w], "Output@GRAD": [rng.standard_normal(out.shape)]}
    got, want = _run_partial(op_type + "_grad", ins, attrs, slot, others_none)
    np.testing.assert_allclose(got, want, **TOL[np.float64])


def test_conv_grad_with_no_output_runs_nothing():
    d = get_op_def("conv2d_grad")
    x, w = torch.ones(1, 2, 4, 4), torch.ones(3, 2, 3, 3)
    d.run({"Input": [x], "Filter": [w], "Output@GRAD": [torch.ones(1, 3, 2, 2)]},
          {"Input@GRAD": [None]}, d.complete_attrs({}), None)


# --- pool2d ------------------------------------------------------------------------------------

def _pool_grid():
    """Attribute combinations for inputs with odd dims; _pool_cases keeps those whose every
    window holds a cell of the input (Paddle's output sizes allow windows wholly in the padding
    otherwise)."""
    cases = {}
    for (pt, k, s, p, ceil, excl) in itertools.product(
            ["max", "avg"], [[2, 2], [3, 3], [3, 2]], [[2, 2], [1, 2], [3, 1]],
            [[0, 0], [1, 1], [0, 1, 1, 0], [2, 0, 1, 2]], [False, True], [True, False]):
        if pt == "max" and not excl:
            continue
        a = {"pooling_type": pt, "ksize": k, "strides": s, "paddings": p, "ceil_mode": ceil,
             "exclusive": excl}
        cases["-".join(map(str, [pt, *k, *s, *p, int(ceil), int(excl)]))] = a
    for pt in ("max", "avg"):
        cases[f"{pt}-global"] = {"pooling_type": pt, "global_pooling": True, "ksize": [2, 2],
                                 "paddings": [1, 1]}
        for k in ([2, 3], [3, 4], [1, 5], [7, 9]):
            cases[f"{pt}-adaptive-{k[0]}x{k[1]}"] = {"pooling_type": pt, "adaptive": True,
                                                     "ksize": k}
        for algo, st in (("SAME", [2, 2]), ("SAME", [1, 3]), ("VALID", [2, 1])):
            cases[f"{pt}-{algo}-{st[0]}{st[1]}"] = {"pooling_type": pt, "ksize": [3, 2],
                                                    "strides": st, "padding_algorithm": algo,
                                                    "paddings": [1, 1]}
    return cases


POOL_GRID = _pool_grid()
POOL_SHAPES = [(2, 3, 7, 9), (1, 2, 6, 5)]


def _windows_hold_input(xs, a):
    a = get_op_def("pool2d").complete_attrs({**a, "data_format": "NCHW"})
    _, k, s, pads, out = conv.pool_geometry("pool2d", xs, a)
    rows, cols = conv._windows(a, xs[2:], k, s, pads, out)
    return all(h0 < h1 for h0, h1 in rows) and all(w0 < w1 for w0, w1 in cols)


def _pool_inputs(key, xs, fmt, dtype, values=None):
    a = {**POOL_GRID[key], "data_format": fmt}
    rng = seeded(f"pool-{key}-{xs}-{fmt}-{np.dtype(dtype).name}")
    x = (rng.standard_normal(xs) if values is None else values(rng, xs)).astype(dtype)
    return (_nhwc(x) if fmt == "NHWC" else x), a, rng


def _pool_cases():
    """(key, input shape): each combination once, on the shapes in turn."""
    for i, key in enumerate(sorted(POOL_GRID)):
        for xs in POOL_SHAPES[i % 2:] + POOL_SHAPES[:i % 2]:
            if _windows_hold_input(xs, POOL_GRID[key]):
                yield key, xs
                break


def test_the_pool_grid_covers_every_path():
    """Native torch windows (with and without ceil_mode), explicit padding and adaptive."""
    kinds = set()
    for key, xs in _pool_cases():
        a = get_op_def("pool2d").complete_attrs(POOL_GRID[key])
        _, _, kind, _, _, _, ceil, _ = conv._pool_call(torch.empty(xs), a, "pool2d")
        kinds.add((kind, ceil))
    assert kinds == {("native", False), ("native", True), ("padded", False),
                     ("adaptive", False)}


@pytest.mark.parametrize("dtype", DTYPES, ids=["f32", "f64"])
@pytest.mark.parametrize("key,xs", list(_pool_cases()))
def test_pool_run_and_grad_run(key, xs, dtype):
    for fmt in ("NCHW", "NHWC"):
        x, a, rng = _pool_inputs(key, xs, fmt, dtype)
        out = check_run("pool2d", {"X": [x]}, a, **TOL[dtype])["Out"][0]
        d = rng.standard_normal(out.shape).astype(dtype)
        check_run("pool2d_grad", {"X": [x], "Out": [out], "Out@GRAD": [d]}, a, **TOL[dtype])


def _few_levels(rng, shape):
    """Values from {0, 1, 2} (negated at random per channel): max pools tie all the time."""
    return rng.integers(0, 3, shape) * rng.choice([-1.0, 1.0], shape[:2] + (1, 1))


TIE_SHAPE = (2, 3, 7, 9)
TIE_KEYS = [k for k in sorted(POOL_GRID) if k.startswith("max-") and "adaptive" not in k
            and _windows_hold_input(TIE_SHAPE, POOL_GRID[k])]


@pytest.mark.parametrize("dtype", DTYPES, ids=["f32", "f64"])
@pytest.mark.parametrize("key", TIE_KEYS)
def test_max_pool_grad_ties_go_to_the_first_maximum(key, dtype):
    """As the reference (numpy's argmax over the row-major window): the first maximum of each
    window gets the window's gradient, whichever path (native, explicit padding) computes it.
    Gradients are powers of two, so overlapping windows' sums are exact in any order."""
    for fmt in ("NCHW", "NHWC"):
        x, a, rng = _pool_inputs(key, TIE_SHAPE, fmt, dtype, values=_few_levels)
        out = _ref("pool2d", {"X": [x]}, a)["Out"][0]
        d = (2.0 ** rng.integers(-3, 4, out.shape)).astype(dtype)
        got = check_run("pool2d_grad", {"X": [x], "Out": [out], "Out@GRAD": [d]}, a, rtol=0,
                        atol=0)["X@GRAD"][0]
        # Every window's gradient lands on one cell: ties were broken, not split.
        assert got.sum() == d.sum(), fmt


@pytest.mark.parametrize("key", ["max-adaptive-2x3", "max-adaptive-3x4"])
def test_adaptive_max_pool_grad_ties(key):
    x, a, rng = _pool_inputs(key, (2, 3, 7, 9), "NCHW", np.float64, values=_few_levels)
    out = _ref("pool2d", {"X": [x]}, a)["Out"][0]
    d = 2.0 ** rng.integers(-3, 4, out.shape)
    check_run("pool2d_grad", {"X": [x], "Out": [out], "Out@GRAD": [d]}, a, rtol=0, atol=0)


def test_pool_grad_with_no_output_runs_nothing():
    d = get_op_def("pool2d_grad")
    x = torch.ones(1, 2, 4, 4)
    d.run({"X": [x], "Out": [torch.ones(1, 2, 2, 2)], "Out@GRAD": [torch.ones(1, 2, 2, 2)]},
          {}, d.complete_attrs({"ksize": [2, 2], "strides": [2, 2]}), None)


# --- the compiled programs' gradients against finite differences (float64) ---------------------

R = np.random.default_rng(11)


def _distinct(*shape):
    """Values at least 0.05 apart: one maximum per window, far from eps."""
    n = int(np.prod(shape))
    return (R.permutation(n) * 0.05 - n * 0.025).reshape(shape)


def _conv_case(op_type, xs, ws, attrs):
    # (not "w": the grad check's loss weight is a var of that name)
    return GradCase(lambda v: op(op_type, attrs, out="Output", Input=v["x"], Filter=v["f"]),
                    {"x": R.uniform(-1, 1, xs), "f": R.uniform(-1, 1, ws)}, wrt=("x", "f"))


POOL_FD = {
    "max_overlap_pad": ((1, 2, 5, 7), {"pooling_type": "max", "ksize": [3, 3],
                                       "strides": [2, 2], "paddings": [1, 1]}),
    "max_ceil_nhwc": ((1, 5, 5, 2), {"pooling_type": "max", "ksize": [2, 2], "strides": [2, 2],
                                     "ceil_mode": True, "data_format": "NHWC"}),
    "max_padded_path": ((1, 2, 6, 5), {"pooling_type": "max", "ksize": [3, 2],
                                       "strides": [3, 1], "paddings": [2, 0, 1, 1]}),
    "avg_exclusive_ceil": ((1, 2, 5, 6), {"pooling_type": "avg", "ksize": [3, 3],
                                          "strides": [2, 2], "paddings": [1, 1],
                                          "ceil_mode": True}),
    "avg_inclusive_asym": ((1, 2, 6, 5), {"pooling_type": "avg", "ksize": [3, 2],
                                          "strides": [2, 1], "paddings": [0, 1, 1, 0],
                                          "exclusive": False}),
    "avg_padded_path": ((1, 2, 6, 5), {"pooling_type": "avg", "ksize": [3, 2],
                                       "strides": [3, 1], "paddings": [2, 0, 1, 1],
                                       "exclusive": False}),
    "adaptive_avg": ((1, 2, 5, 7), {"pooling_type": "avg", "adaptive": True, "ksize": [2, 3]}),
    "adaptive_max": ((1, 2, 5, 7), {"pooling_type": "max", "adaptive": True, "ksize": [3, 2]}),
    "global_max_nhwc": ((2, 3, 4, 2), {"pooling_type": "max", "global_pooling": True,
                                       "data_format": "NHWC"}),
    "global_avg": ((2, 3, 4, 5), {"pooling_type": "avg", "global_pooling": True}),
}

FD_CASES = {
    "conv2d-groups_dilation_asym": _conv_case(
        "conv2d", (1, 4, 6, 5), (4, 2, 3, 2),
        {"groups": 2, "dilations": [2, 1], "paddings": [1, 2, 0, 1], "strides": [1, 2]}),
    "conv2d-nhwc_stride": _conv_case("conv2d", (2, 5, 6, 3), (2, 3, 3, 3),
                                     {"data_format": "NHWC", "strides": [2, 2],
                                      "paddings": [1, 1]}),
    "conv2d-same": _conv_case("conv2d", (1, 2, 5, 6), (2, 2, 2, 3),
                              {"padding_algorithm": "SAME", "strides": [2, 1]}),
    "depthwise_conv2d": _conv_case("depthwise_conv2d", (1, 3, 5, 5), (3, 1, 3, 3),
                                   {"groups": 3, "paddings": [1, 1]}),
    **{f"pool2d-{k}": GradCase(lambda v, a=a: op("pool2d", a, X=v["x"]), {"x": _distinct(*xs)})
       for k, (xs, a) in POOL_FD.items()},
}


@pytest.mark.parametrize("key", sorted(FD_CASES))
def test_compiled_grads_match_finite_differences(key):
    run_grad_check(FD_CASES[key], key)


def test_pool_fd_cases_cover_every_path():
    kinds = set()
    for xs, a in POOL_FD.values():
        a = get_op_def("pool2d").complete_attrs(a)
        nchw = xs if a["data_format"] == "NCHW" else (xs[0], xs[3], xs[1], xs[2])
        assert _windows_hold_input(nchw, a)
        kinds.add(conv._pool_call(torch.empty(xs), a, "pool2d")[2:7:4])
    assert kinds == {("native", False), ("native", True), ("padded", False),
                     ("adaptive", False)}
