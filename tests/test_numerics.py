"""Numbers that must match real Paddle 3.3.1 (tests/fixtures/paddle/numerics.npz, written by
tests/fixtures/make_numerics_fixtures.py) and the NaN/Inf decisions of docs/numerics.md: each
case runs on the compiled C executor and on the numpy reference executor."""
import json
import os

import numpy as np
import pytest

import fluidc as fluid
import fluidc as paddle

from op_harness import one_op_program, run_c, run_reference
from test_grad_check import GradCase, op, run_grad_check

FIX = np.load(os.path.join(os.path.dirname(__file__), "fixtures", "paddle", "numerics.npz"))
TOL = {np.dtype("float32"): (2e-6, 1e-6), np.dtype("float64"): (1e-12, 1e-12)}


def cases(prefix: str) -> list[str]:
    return sorted({k.split("/")[0] for k in FIX.files if k.startswith(prefix)})


def arr(case: str, kind: str, name: str) -> np.ndarray:
    return FIX[f"{case}/{kind}/{name}"]


def run_op(op_type: str, ins: dict, attrs: dict, outs: list[str]) -> list[list[np.ndarray]]:
    """The op's outputs `outs` on the C executor and on the reference executor."""
    program, feed, names, _ = one_op_program(op_type, ins, attrs, outs)
    fetch = [names[s] for s in outs]
    return [run_c(program, feed, fetch), run_reference(program, feed, fetch)]


def assert_paddle(got: np.ndarray, want: np.ndarray, what: str) -> None:
    assert got.shape == want.shape, f"{what}: shape {got.shape}, Paddle {want.shape}"
    rtol, atol = TOL[want.dtype]
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, equal_nan=True, err_msg=what)


# --- 1 and 4: pools -----------------------------------------------------------------------------

@pytest.mark.parametrize("case", cases("pool_"))
def test_pool_matches_paddle(case):
    attrs = json.loads(str(FIX[f"{case}/attrs"]))
    x, out = arr(case, "in", "X"), arr(case, "out", "Out")
    for got in run_op("pool2d", {"X": x}, attrs, ["Out"]):
        assert_paddle(got[0], out, f"{case} Out")
    if out.size:
        ins = {"X": x, "Out": out, "Out@GRAD": arr(case, "out", "dOut")}
        for got in run_op("pool2d_grad", ins, attrs, ["X@GRAD"]):
            assert_paddle(got[0], arr(case, "out", "dX"), f"{case} dX")


POOL_FD = {  # windows hanging past the padded edge (ceil_mode), inclusive and exclusive
    "avg_inclusive_ceil": {"pooling_type": "avg", "ksize": [3, 3], "strides": [2, 2],
                           "paddings": [1, 1], "ceil_mode": True, "exclusive": False},
    "avg_inclusive_ceil_asym": {"pooling_type": "avg", "ksize": [3, 2], "strides": [2, 2],
                                "paddings": [1, 0, 0, 1], "ceil_mode": True, "exclusive": False},
    "max_2x2_on_1x1": {"pooling_type": "max", "ksize": [2, 2], "strides": [2, 2]},
}


@pytest.mark.parametrize("key", sorted(POOL_FD))
def test_pool_grad_matches_finite_differences(key):
    shape = (1, 2, 1, 1) if "1x1" in key else (1, 2, 5, 7)
    x = np.random.default_rng(5).permutation(np.prod(shape)).reshape(shape) * 0.1
    run_grad_check(GradCase(lambda v: op("pool2d", POOL_FD[key], X=v["x"]), {"x": x}),
                   f"pool2d-{key}")


# --- 2: the softmax family on logits more than 64 apart ---------------------------------------

@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("op_type", ["softmax", "log_softmax"])
def test_softmax_clips_at_minus_64_as_paddle(op_type, dtype):
    case = f"{op_type}_{dtype}"
    x, out = arr(case, "in", "X"), arr(case, "out", "Out")
    for got in run_op(op_type, {"X": x}, {}, ["Out"]):
        assert_paddle(got[0], out, f"{case} Out")
    ins = {"Out": out, "Out@GRAD": arr(case, "in", "dOut")}
    for got in run_op(op_type + "_grad", ins, {}, ["X@GRAD"]):
        assert_paddle(got[0], arr(case, "out", "dX"), f"{case} dX")


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("label", ["hard", "soft"])
def test_softmax_with_cross_entropy_matches_paddle(label, dtype):
    """Through the executor: hard labels take the fused row-kernel rewrite."""
    case = f"swce_{label}_{dtype}"
    x, lab = arr(case, "in", "Logits"), arr(case, "in", "Label")
    attrs = {"soft_label": label == "soft"}
    for sm, loss in run_op("softmax_with_cross_entropy", {"Logits": x, "Label": lab}, attrs,
                           ["Softmax", "Loss"]):
        assert_paddle(sm, arr(case, "out", "Softmax"), f"{case} Softmax")
        assert_paddle(loss, arr(case, "out", "Loss"), f"{case} Loss")
    ins = {"Label": lab, "Softmax": arr(case, "out", "Softmax"),
           "Loss@GRAD": arr(case, "in", "dLoss")}
    for got in run_op("softmax_with_cross_entropy_grad", ins, attrs, ["Logits@GRAD"]):
        assert_paddle(got[0], arr(case, "out", "dLogits"), f"{case} dLogits")


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_cross_entropy_after_softmax_matches_paddle(dtype):
    """1.x cross_entropy and cross_entropy2 on Paddle's (clipped) softmax: loss 64, not 1e20."""
    case = f"ce_after_softmax_{dtype}"
    p, lab, dy = (arr(case, "in", n) for n in ("X", "Label", "dY"))
    y, dx = arr(case, "out", "Y"), arr(case, "out", "dX")
    for got in run_op("cross_entropy", {"X": p, "Label": lab}, {}, ["Y"]):
        assert_paddle(got[0], y, f"{case} cross_entropy")
    for got in run_op("cross_entropy_grad", {"X": p, "Label": lab, "Y@GRAD": dy}, {},
                      ["X@GRAD"]):
        assert_paddle(got[0], dx, f"{case} cross_entropy_grad")
    for got, match in run_op("cross_entropy2", {"X": p, "Label": lab}, {}, ["Y", "MatchX"]):
        assert_paddle(got, y, f"{case} cross_entropy2")
    xshape = np.zeros(p.shape + (0,), p.dtype)
    for got in run_op("cross_entropy_grad2", {"Label": lab, "MatchX": match, "XShape": xshape,
                                              "Y@GRAD": dy}, {}, ["X@GRAD"]):
        assert_paddle(got[0], dx, f"{case} cross_entropy_grad2")


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_softmax_then_cross_entropy_program_matches_paddle(dtype):
    """fluid.layers.softmax + cross_entropy in one program: the loss of a label 100 below the
    max is 64 + log(sum), as Paddle's."""
    case = f"ce_after_softmax_{dtype}"
    x = arr(f"softmax_{dtype}", "in", "X")
    main, start = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, start):
        xv = fluid.data("x", list(x.shape), dtype)
        lv = fluid.data("label", [x.shape[0], 1], "int64")
        loss = fluid.layers.cross_entropy(fluid.layers.softmax(xv), lv)
    got, = fluid.Executor(fluid.CPUPlace()).run(
        main, feed={"x": x, "label": arr(case, "in", "Label")}, fetch_list=[loss])
    assert_paddle(got, arr(case, "out", "Y"), case)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_functional_cross_entropy_matches_paddle(dtype):
    case = f"F_cross_entropy_{dtype}"
    x = arr(case, "in", "X")
    main, start = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, start):
        xv = paddle.static.data("x", list(x.shape), dtype)
        xv.stop_gradient = False
        lv = paddle.static.data("label", [x.shape[0], 1], "int64")
        loss = paddle.nn.functional.cross_entropy(xv, lv)
        dx = paddle.static.gradients([loss], [xv])[0]
    exe = paddle.static.Executor(paddle.CPUPlace())
    got_loss, got_dx = exe.run(main, feed={"x": x, "label": arr(case, "in", "Label")},
                               fetch_list=[loss, dx])
    assert_paddle(np.asarray(got_loss).reshape(()), arr(case, "out", "Loss").reshape(()), case)
    assert_paddle(got_dx, arr(case, "out", "dX"), case + " dX")


# --- 3: batch_norm over one value per channel -------------------------------------------------

@pytest.mark.parametrize("case", cases("bn_one_value_"))
def test_batch_norm_one_value_per_channel_passes_through(case):
    i = {n: arr(case, "in", n) for n in ("X", "Scale", "Bias", "Mean", "Variance", "dY")}
    o = {n: arr(case, "out", n) for n in ("Y", "MeanOut", "VarianceOut", "SavedMean",
                                           "SavedVariance", "dX", "dScale", "dBias")}
    fwd = ["Y", "MeanOut", "VarianceOut", "SavedMean", "SavedVariance"]
    bn_ins = {k: i[k] for k in ("X", "Scale", "Bias", "Mean", "Variance")}
    for got in run_op("batch_norm", bn_ins, {}, fwd):
        for slot, g in zip(fwd, got):
            assert_paddle(g, o[slot], f"{case} {slot}")
    ins = {"X": i["X"], "Scale": i["Scale"], "Bias": i["Bias"], "SavedMean": o["SavedMean"],
           "SavedVariance": o["SavedVariance"], "Y@GRAD": i["dY"]}
    for got in run_op("batch_norm_grad", ins, {}, ["X@GRAD", "Scale@GRAD", "Bias@GRAD"]):
        for slot, g in zip(("dX", "dScale", "dBias"), got):
            assert_paddle(g, o[slot], f"{case} {slot}")


# --- 5: NaN, Inf, negatives, denormals (the decisions of docs/numerics.md) --------------------

SPECIAL = arr("special_unary", "in", "X")


@pytest.mark.parametrize("op_type", ["log", "exp", "scale"])
def test_unary_special_values_match_paddle(op_type):
    """log of negatives is NaN, of zeros -inf; denormals are kept, not flushed, as Paddle."""
    for got in run_op(op_type, {"X": SPECIAL}, {}, ["Out"]):
        assert_paddle(got[0], arr("special_unary", "out", op_type), op_type)


def test_relu_and_sqrt_keep_ieee_semantics():
    """Decisions that differ from Paddle's CPU kernels: relu(NaN) is NaN (Paddle: 0), so a NaN
    reaches the loss and the inf/NaN checks of loss scaling; sqrt(inf) is inf and sqrt of a
    denormal is its root (Paddle's vectorized sqrt gives NaN and 0)."""
    with np.errstate(invalid="ignore"):
        want_relu = np.where(SPECIAL > 0, SPECIAL, np.where(np.isnan(SPECIAL), SPECIAL, 0))
        want_sqrt = np.sqrt(SPECIAL)
    for op_type, want in (("relu", want_relu), ("sqrt", want_sqrt)):
        for got in run_op(op_type, {"X": SPECIAL}, {}, ["Out"]):
            np.testing.assert_array_equal(got[0], want.astype(np.float32), err_msg=op_type)
    paddle_relu = arr("special_unary", "out", "relu")
    assert paddle_relu[0] == 0 and np.isnan(want_relu[0])  # the documented difference


@pytest.mark.parametrize("op_type,key", [("softmax", "Out"), ("log_softmax", "log")])
def test_softmax_rows_with_nan_and_inf_match_paddle(op_type, key):
    """A NaN or +inf in a row makes the row NaN; -inf is clipped at -64 (1.2e-28, not 0)."""
    x = arr("special_softmax", "in", "X")
    for got in run_op(op_type, {"X": x}, {}, ["Out"]):
        assert_paddle(got[0], arr("special_softmax", "out", key), op_type)


def test_max_pool_propagates_nan():
    """Decision: a window holding NaN gives NaN (Paddle's CPU kernel drops a NaN unless it is the
    window's last cell: [[NaN, 1], [4, 5]] gives 5 there)."""
    x = arr("special_max_pool", "in", "X")
    attrs = {"pooling_type": "max", "ksize": [2, 2], "strides": [2, 2]}
    for got in run_op("pool2d", {"X": x}, attrs, ["Out"]):
        assert np.isnan(got[0]).all()
    assert arr("special_max_pool", "out", "Out").ravel()[0] == 5  # Paddle's
