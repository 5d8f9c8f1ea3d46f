"""nn ops: inference (concrete and -1 dims), references against torch, extern runs against the
references, and every grad against central finite differences of the forward reference."""
import numpy as np
import pytest
import torch

from fluidc.frontend.dtypes import VarType
from fluidc.frontend.errors import OpError, ShapeError
from fluidc.frontend.ops import math, nn, reduce, tensor  # noqa: F401  (registration)
from fluidc.frontend.ops.registry import VarInfo, get_op_def, grad_name

from ref_harness import RNG, _info, check_grad, check_run, infer, make_fwd, run_extern, run_ops  # noqa: F401


def _softmax(x, axis=-1):
    return torch.softmax(torch.from_numpy(x), axis).numpy()


# --- softmax ---

def test_softmax_infer():
    assert infer("softmax", {"X": [((-1, 10), 5)]})["Out"][0].shape == (-1, 10)
    assert infer("softmax", {"X": [((4, 3, 2), 6)]}, {"axis": 1})["Out"][0].dtype == VarType.FP64


@pytest.mark.parametrize("axis", [-1, 1, 0])
def test_softmax_reference_and_lowering(axis):
    x = RNG.standard_normal((3, 4, 5)).astype(np.float32)
    d = get_op_def("softmax")
    ref = d.reference({"X": [x]}, d.complete_attrs({"axis": axis}))["Out"][0]
    np.testing.assert_allclose(ref, _softmax(x, axis), rtol=1e-5, atol=1e-6)
    fwd, env = make_fwd("softmax", {"X": x}, {"axis": axis})
    lowered = run_ops([fwd], env)["out_Out"]
    np.testing.assert_allclose(lowered, ref, rtol=1e-5, atol=1e-6)
    assert {o.type for o in get_op_def("softmax").lower(
        fwd, {"X_0": _info(x), "out_Out": _info(x)}, lambda vi: "t")} == \
        {"reduce_max", "elementwise_sub", "clip", "exp", "reduce_sum", "elementwise_div"}


@pytest.mark.parametrize("lower", [True, False])
def test_softmax_grad(lower):
    x = RNG.standard_normal((3, 4))
    check_grad("softmax", {"X": x}, {"axis": -1}, ["X"], lower=lower)
    check_grad("softmax", {"X": RNG.standard_normal((2, 3, 2))}, {"axis": 1}, ["X"], lower=lower)


@pytest.mark.parametrize("op,value", [("softmax", 1.0), ("log_softmax", 0.0)])
@pytest.mark.parametrize("x", [0.3, -7.0, np.inf, np.nan])
def test_softmax_of_0d_is_constant(op, value, x):
    # Paddle's kernels fill a 0-D output (softmax 1, log_softmax 0) whatever x holds.
    from fluidc.frontend.ops import loss  # noqa: F401  (registers log_softmax)
    x = np.array(x, np.float32)
    d = get_op_def(op)
    assert infer(op, {"X": [((), 5)]})["Out"][0].shape == ()
    assert d.reference({"X": [x]}, d.complete_attrs({}))["Out"][0] == value
    fwd, env = make_fwd(op, {"X": x}, {})
    got = run_ops([fwd], env)["out_Out"]
    assert got.shape == () and got == value
    check_grad(op, {"X": np.array(0.4)}, {}, ["X"], lower=True)
    check_grad(op, {"X": np.array(0.4)}, {}, ["X"], lower=False)


# --- cross_entropy ---

def test_cross_entropy_infer():
    out = infer("cross_entropy", {"X": [((-1, 10), 5)], "Label": [((-1, 1), 3)]})["Y"][0]
    assert out.shape == (-1, 1) and out.dtype == VarType.FP32
    soft = infer("cross_entropy", {"X": [((8, 10), 5)], "Label": [((8, 10), 5)]},
                 {"soft_label": True})
    assert soft["Y"][0].shape == (8, 1)
    with pytest.raises(ShapeError, match="cross_entropy"):
        infer("cross_entropy", {"X": [((8, 10), 5)], "Label": [((8, 10), 3)]})


def _probs(shape):
    return _softmax(RNG.standard_normal(shape))


def test_cross_entropy_reference_and_run():
    p = _probs((5, 4)).astype(np.float32)
    label = np.array([[0], [3], [1], [-100], [2]], np.int64)
    y = check_run("cross_entropy", {"X": [p], "Label": [label]}, {})["Y"][0]
    keep = label[:, 0] != -100
    want = torch.nn.functional.nll_loss(torch.log(torch.from_numpy(p)), torch.from_numpy(
        label[:, 0]), reduction="none", ignore_index=-100).numpy()
    np.testing.assert_allclose(y[:, 0], want, rtol=1e-5)
    assert y[~keep, 0].tolist() == [0.0]
    soft = _probs((5, 4)).astype(np.float32)
    ys = check_run("cross_entropy", {"X": [p], "Label": [soft]}, {"soft_label": True})["Y"][0]
    np.testing.assert_allclose(ys[:, 0], -(soft * np.log(p)).sum(1), rtol=1e-5)
    # A zero probability gives Paddle's huge finite loss, not inf.
    zero = np.array([[0.0, 1.0]], np.float32)
    assert check_run("cross_entropy", {"X": [zero], "Label": [np.array([[0]])]}, {})["Y"][0] \
        == pytest.approx(1e20)


def test_cross_entropy_grad():
    label = np.array([[0], [3], [-100], [2]], np.int64)
    fwd, g = check_grad("cross_entropy", {"X": _probs((4, 4)) + 0.1, "Label": label}, {}, ["X"],
                        outs=("Y",))
    check_run("cross_entropy_grad", {"X": [_probs((4, 4))], "Label": [label],
                                     "Y@GRAD": [RNG.standard_normal((4, 1))]}, {})
    soft = _probs((4, 4))
    check_grad("cross_entropy", {"X": _probs((4, 4)) + 0.1, "Label": soft},
               {"soft_label": True}, ["X"], outs=("Y",))
    check_run("cross_entropy_grad", {"X": [_probs((4, 4))], "Label": [soft],
                                     "Y@GRAD": [RNG.standard_normal((4, 1))]},
              {"soft_label": True})


# --- softmax_with_cross_entropy ---

def test_softmax_with_cross_entropy_infer():
    out = infer("softmax_with_cross_entropy", {"Logits": [((-1, 10), 5)],
                                               "Label": [((-1, 1), 3)]})
    assert out["Softmax"][0].shape == (-1, 10) and out["Loss"][0].shape == (-1, 1)
    out = infer("softmax_with_cross_entropy", {"Logits": [((2, 5, 3), 5)],
                                               "Label": [((2, 1, 3), 3)]}, {"axis": 1})
    assert out["Loss"][0].shape == (2, 1, 3)


@pytest.mark.parametrize("axis", [-1, 1])
def test_softmax_with_cross_entropy_reference(axis):
    x = RNG.standard_normal((4, 5, 3)).astype(np.float32)
    lshape = list(x.shape)
    lshape[axis] = 1
    label = RNG.integers(0, x.shape[axis], lshape).astype(np.int64)
    label.reshape(-1)[0] = -100
    got = check_run("softmax_with_cross_entropy", {"Logits": [x], "Label": [label]},
                    {"axis": axis})
    want = torch.nn.functional.cross_entropy(
        torch.from_numpy(np.moveaxis(x, axis, 1)),
        torch.from_numpy(np.squeeze(np.moveaxis(label, axis, 1), 1)),
        reduction="none", ignore_index=-100).numpy()
    np.testing.assert_allclose(np.squeeze(np.moveaxis(got["Loss"][0], axis, 1), 1), want,
                               rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got["Softmax"][0], _softmax(x, axis), rtol=1e-5, atol=1e-6)
    soft = _softmax(RNG.standard_normal(x.shape), axis).astype(np.float32)
    got = check_run("softmax_with_cross_entropy", {"Logits": [x], "Label": [soft]},
                    {"axis": axis, "soft_label": True})
    np.testing.assert_allclose(
        got["Loss"][0], -(soft * torch.log_softmax(torch.from_numpy(x), axis).numpy()).sum(
            axis, keepdims=True), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("attrs", [{}, {"axis": 0}, {"soft_label": True},
                                   {"use_softmax": False}])
def test_softmax_with_cross_entropy_grad(attrs):
    x = RNG.standard_normal((3, 4))
    axis = attrs.get("axis", -1)
    if attrs.get("soft_label"):
        label = _softmax(RNG.standard_normal(x.shape), axis)
    else:
        lshape = list(x.shape)
        lshape[axis] = 1
        label = RNG.integers(0, x.shape[axis], lshape).astype(np.int64)
        label.reshape(-1)[-1] = -100
    if not attrs.get("use_softmax", True):
        x = _softmax(x) + 0.05
    fwd, grads = check_grad("softmax_with_cross_entropy", {"Logits": x, "Label": label}, attrs,
                            ["Logits"], outs=("Loss",))
    env = run_ops([fwd], make_fwd("softmax_with_cross_entropy", {"Logits": x, "Label": label},
                                  attrs)[1], lower=False)
    check_run("softmax_with_cross_entropy_grad",
              {"Label": [label], "Softmax": [env["out_Softmax"]],
               "Loss@GRAD": [RNG.standard_normal(env["out_Loss"].shape)]}, attrs)


# --- top_k, accuracy ---

def test_top_k():
    out = infer("top_k", {"X": [((-1, 10), 5)]}, {"k": 3})
    assert out["Out"][0].shape == (-1, 3) and out["Indices"][0].dtype == VarType.INT64
    with pytest.raises(ShapeError, match="top_k"):
        infer("top_k", {"X": [((2, 2), 5)]}, {"k": 3})
    x = RNG.permutation(24).reshape(2, 3, 4).astype(np.float32)
    got = check_run("top_k", {"X": [x]}, {"k": 2})
    v, i = torch.topk(torch.from_numpy(x), 2)
    np.testing.assert_array_equal(got["Out"][0], v.numpy())
    np.testing.assert_array_equal(got["Indices"][0], i.numpy())
    assert get_op_def("top_k").grad is None


def test_accuracy():
    out = infer("accuracy", {"Out": [((-1, 2), 5)], "Indices": [((-1, 2), 3)],
                             "Label": [((-1, 1), 3)]})
    assert out["Accuracy"][0] == VarInfo((), VarType.FP32)  # 0-d, as in Paddle 3.x
    assert out["Correct"][0].dtype == out["Total"][0].dtype == VarType.INT32
    idx = np.array([[0, 1], [2, 3], [1, 0], [3, 2]], np.int64)
    label = np.array([[1], [1], [0], [0]], np.int64)
    got = check_run("accuracy", {"Out": [idx.astype(np.float32)], "Indices": [idx],
                                 "Label": [label]}, {})
    assert got["Accuracy"][0].tolist() == 0.5
    assert got["Correct"][0].tolist() == 2 and got["Total"][0].tolist() == 4


# --- dropout ---

def test_dropout_infer():
    out = infer("dropout", {"X": [((-1, 7), 5)]})
    assert out["Out"][0].shape == (-1, 7) and out["Mask"][0] == VarInfo((-1, 7), VarType.UINT8)


@pytest.mark.parametrize("impl", ["downgrade_in_infer", "upscale_in_train"])
def test_dropout(impl):
    x = RNG.standard_normal((200, 50)).astype(np.float32)
    a = {"dropout_prob": 0.3, "dropout_implementation": impl}
    test_out = check_run("dropout", {"X": [x]}, {**a, "is_test": True})["Out"][0]
    np.testing.assert_allclose(test_out, x * (0.7 if impl == "downgrade_in_infer" else 1.0),
                               rtol=1e-6)
    scale = 1.0 if impl == "downgrade_in_infer" else 1 / 0.7
    for out in (run_extern("dropout", {"X": [x]}, a),
                get_op_def("dropout").reference({"X": [x]}, get_op_def("dropout")
                                                .complete_attrs(a))):
        mask = out["Mask"][0]
        assert mask.dtype == np.uint8 and abs(mask.mean() - 0.7) < 0.02
        np.testing.assert_allclose(out["Out"][0], x * mask * scale, rtol=1e-6)
    # The runtime's generator drives it; fix_seed makes it repeat.
    m1 = run_extern("dropout", {"X": [x]}, a, torch.Generator().manual_seed(1))["Mask"][0]
    m2 = run_extern("dropout", {"X": [x]}, a, torch.Generator().manual_seed(2))["Mask"][0]
    assert (m1 != m2).any()
    fixed = [run_extern("dropout", {"X": [x]}, {**a, "fix_seed": True, "seed": 5},
                        torch.Generator().manual_seed(s))["Mask"][0] for s in (1, 2)]
    np.testing.assert_array_equal(*fixed)
    assert get_op_def("dropout").stateful


@pytest.mark.parametrize("impl", ["downgrade_in_infer", "upscale_in_train"])
def test_dropout_grad(impl):
    a = {"dropout_prob": 0.4, "dropout_implementation": impl, "fix_seed": True, "seed": 7}
    fwd, grads = check_grad("dropout", {"X": RNG.standard_normal((4, 5))}, a, ["X"])
    assert fwd.output("Mask")[0] in get_op_def("dropout").grad(fwd)[0].input_arg_names


def test_dropout_grad_dtype_whatever_the_input_order():
    a = {"dropout_prob": 0.4}
    d = np.ones((2, 2), np.float32)
    m = np.array([[1, 0], [0, 1]], np.uint8)
    got = get_op_def("dropout_grad").reference({"Mask": [m], "Out@GRAD": [d]},
                                               get_op_def("dropout_grad").complete_attrs(a))
    assert got["X@GRAD"][0].dtype == np.float32


# --- batch_norm ---

def _bn_inputs(shape, c, dtype=np.float64):
    return {"X": RNG.standard_normal(shape).astype(dtype),
            "Scale": RNG.uniform(0.5, 1.5, c).astype(dtype),
            "Bias": RNG.standard_normal(c).astype(dtype),
            "Mean": RNG.standard_normal(c).astype(dtype),
            "Variance": RNG.uniform(0.5, 2, c).astype(dtype)}


def test_batch_norm_infer():
    ins = {"X": [((-1, 3, 8, 8), 5)], **{s: [((3,), 5)] for s in
                                         ("Scale", "Bias", "Mean", "Variance")}}
    out = infer("batch_norm", ins)
    assert out["Y"][0].shape == (-1, 3, 8, 8) and out["MeanOut"][0].shape == (3,)
    assert out["SavedVariance"][0].shape == (3,)
    nhwc = infer("batch_norm", {**ins, "X": [((-1, 8, 8, 3), 5)]}, {"data_layout": "NHWC"})
    assert nhwc["Y"][0].shape == (-1, 8, 8, 3)
    with pytest.raises(ShapeError, match="batch_norm"):
        infer("batch_norm", {**ins, "X": [((-1, 4, 8, 8), 5)]})


@pytest.mark.parametrize("layout", ["NCHW", "NHWC"])
def test_batch_norm_train_reference(layout):
    shape = (4, 3, 2, 5) if layout == "NCHW" else (4, 2, 5, 3)
    ins = _bn_inputs(shape, 3, np.float32)
    a = {"momentum": 0.8, "epsilon": 1e-3, "data_layout": layout}
    got = check_run("batch_norm", {k: [v] for k, v in ins.items()}, a, rtol=1e-4, atol=1e-5)
    x = torch.from_numpy(ins["X"] if layout == "NCHW" else np.moveaxis(ins["X"], -1, 1))
    rm, rv = torch.from_numpy(ins["Mean"].copy()), torch.from_numpy(ins["Variance"].copy())
    y = torch.nn.functional.batch_norm(x, rm, rv, torch.from_numpy(ins["Scale"]),
                                       torch.from_numpy(ins["Bias"]), training=True,
                                       momentum=0.2, eps=1e-3).numpy()
    y = y if layout == "NCHW" else np.moveaxis(y, 1, -1)
    np.testing.assert_allclose(got["Y"][0], y, rtol=1e-4, atol=1e-5)
    red = tuple(i for i in range(4) if i != (1 if layout == "NCHW" else 3))
    bmean, bvar = ins["X"].mean(red), ins["X"].var(red)
    np.testing.assert_allclose(got["MeanOut"][0], ins["Mean"] * 0.8 + bmean * 0.2, rtol=1e-5)
    np.testing.assert_allclose(got["VarianceOut"][0], ins["Variance"] * 0.8 + bvar * 0.2,
                               rtol=1e-5)
    np.testing.assert_allclose(got["SavedMean"][0], bmean, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got["SavedVariance"][0], 1 / np.sqrt(bvar + 1e-3), rtol=1e-5)


def test_batch_norm_updates_running_stats_in_place():
    ins = _bn_inputs((4, 3), 3, np.float32)
    d = get_op_def("batch_norm")
    a = d.complete_attrs({})
    t = {k: torch.from_numpy(v.copy()) for k, v in ins.items()}
    outs = {"Y": [torch.empty(4, 3)], "MeanOut": [t["Mean"]], "VarianceOut": [t["Variance"]],
            "SavedMean": [torch.empty(3)], "SavedVariance": [torch.empty(3)]}
    d.run({k: [v] for k, v in t.items()}, outs, a, None)
    ref = d.reference({k: [v] for k, v in ins.items()}, a)
    np.testing.assert_allclose(t["Mean"].numpy(), ref["MeanOut"][0], rtol=1e-6)
    np.testing.assert_allclose(outs["Y"][0].numpy(), ref["Y"][0], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("attrs", [{"is_test": True}, {"use_global_stats": True}])
def test_batch_norm_global_stats(attrs):
    ins = _bn_inputs((2, 3, 4), 3, np.float32)
    got = check_run("batch_norm", {k: [v] for k, v in ins.items()}, attrs)
    v = (1, 3, 1)
    want = (ins["X"] - ins["Mean"].reshape(v)) / np.sqrt(ins["Variance"].reshape(v) + 1e-5) \
        * ins["Scale"].reshape(v) + ins["Bias"].reshape(v)
    np.testing.assert_allclose(got["Y"][0], want, rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(got["MeanOut"][0], ins["Mean"])


@pytest.mark.parametrize("attrs", [{}, {"data_layout": "NHWC"}, {"use_global_stats": True}])
def test_batch_norm_grad(attrs):
    shape = (3, 2, 2)
    fwd, grads = check_grad("batch_norm", _bn_inputs(shape, 2), attrs, ["X", "Scale", "Bias"],
                            outs=("Y",), tol=1e-4)
    env = run_ops([fwd], make_fwd("batch_norm", _bn_inputs(shape, 2), attrs)[1], lower=False)
    ins = {s: [env[f"{s}_0"]] for s in ("X", "Scale", "Bias", "Mean", "Variance")}
    ins.update({"SavedMean": [env["out_SavedMean"]], "SavedVariance": [env["out_SavedVariance"]],
                "Y@GRAD": [RNG.standard_normal(shape)]})
    check_run("batch_norm_grad", ins, attrs)


# --- lookup_table / lookup_table_v2 ---

def test_lookup_table_infer():
    w = [((10, 4), 5)]
    assert infer("lookup_table", {"W": w, "Ids": [((-1, 1), 3)]})["Out"][0].shape == (-1, 4)
    assert infer("lookup_table", {"W": w, "Ids": [((-1, 5, 1), 3)]})["Out"][0].shape == (-1, 5, 4)
    assert infer("lookup_table_v2", {"W": w, "Ids": [((-1, 5), 3)]})["Out"][0].shape == (-1, 5, 4)
    with pytest.raises(ShapeError, match="lookup_table"):
        infer("lookup_table", {"W": w, "Ids": [((-1, 5), 3)]})


@pytest.mark.parametrize("op,ids_shape", [("lookup_table", (6, 1)), ("lookup_table", (2, 3, 1)),
                                          ("lookup_table_v2", (2, 3))])
@pytest.mark.parametrize("pad", [-1, 2])
def test_lookup_table(op, ids_shape, pad):
    w = RNG.standard_normal((5, 3))
    ids = RNG.integers(0, 5, ids_shape).astype(np.int64)
    ids.reshape(-1)[:2] = [2, 4]
    out = check_run(op, {"W": [w], "Ids": [ids]}, {"padding_idx": pad})["Out"][0]
    lead = ids_shape[:-1] if op == "lookup_table" else ids_shape
    want = torch.nn.functional.embedding(torch.from_numpy(ids.reshape(lead)), torch.from_numpy(w),
                                         padding_idx=None if pad == -1 else pad).numpy()
    if pad != -1:
        want[ids.reshape(lead) == pad] = 0
    np.testing.assert_allclose(out, want)
    fwd, grads = check_grad(op, {"W": w, "Ids": ids}, {"padding_idx": pad}, ["W"])
    if pad != -1:
        assert not grads[grad_name("W_0")][pad].any()
    check_run(op + "_grad", {"W": [w], "Ids": [ids],
                             "Out@GRAD": [RNG.standard_normal(lead + (3,))]}, {"padding_idx": pad})


def test_unknown_attr_and_slot_errors():
    with pytest.raises(OpError, match="softmax"):
        get_op_def("softmax").complete_attrs({"axes": 1})
    with pytest.raises(OpError, match="dropout"):
        nn.dropout_scales({"dropout_prob": 0.5, "dropout_implementation": "bogus"})
