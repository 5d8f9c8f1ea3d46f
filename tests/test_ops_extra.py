"""The ops added for Paddle's 1.x/2.x layers: activations (relu6 ... pow), log_softmax, cumsum,
cross_entropy2, sigmoid_cross_entropy_with_logits, bce_loss, nll_loss, cos_sim, one_hot_v2 and
sequence_conv. Each: the numpy reference against an independent formula, grads against central
finite differences, and the compiled C executor (fused and unfused) against the reference."""
import numpy as np
import pytest

import fluidc as fluid
from fluidc.frontend.errors import OpError, ShapeError
from fluidc.frontend.ops.registry import LOD_ATTR, get_op_def
from fluidc.passes.strategy import strategy_for
from fluidc.runtime.lod import create_lod_tensor

from op_harness import assert_same, one_op_program, reference_op, run_c
from ref_harness import check_grad, check_run, infer

RNG = np.random.default_rng(5)


def _sig(x):
    return 1 / (1 + np.exp(-x))


SELU = (1.0507009873554805, 1.6732632423543772)
# op, attrs, numpy formula, kinks to keep finite differences away from
ACTS = [
    ("relu6", {}, lambda x, a: np.clip(x, 0, 6), [0, 6]),
    ("relu6", {"threshold": 4.0}, lambda x, a: np.clip(x, 0, 4), [0, 4]),
    ("hard_sigmoid", {}, lambda x, a: np.clip(0.2 * x + 0.5, 0, 1), [-2.5, 2.5]),
    ("hard_sigmoid", {"slope": 1 / 6, "offset": 0.5}, lambda x, a: np.clip(x / 6 + 0.5, 0, 1),
     [-3, 3]),
    ("logsigmoid", {}, lambda x, a: np.log(_sig(x)), []),
    ("softsign", {}, lambda x, a: x / (1 + np.abs(x)), [0]),
    ("selu", {}, lambda x, a: SELU[0] * np.where(x > 0, x, SELU[1] * (np.exp(x) - 1)), [0]),
    ("elu", {"alpha": 0.7}, lambda x, a: np.where(x > 0, x, 0.7 * (np.exp(x) - 1)), [0]),
    ("softplus", {}, lambda x, a: np.log1p(np.exp(x)), []),
    ("softplus", {"beta": 2.0, "threshold": 3.0},
     lambda x, a: np.where(2 * x > 3, x, np.log1p(np.exp(2 * x)) / 2), [1.5]),
    ("pow", {"factor": 3.0}, lambda x, a: x ** 3, []),
]


def _away_from(x, kinks):
    for k in kinks:
        x[np.abs(x - k) < 1e-2] += 0.05
    return x


@pytest.mark.parametrize("op,attrs,formula,kinks", ACTS,
                         ids=[f"{a[0]}-{a[1]}" for a in ACTS])
def test_activation(op, attrs, formula, kinks):
    assert infer(op, {"X": [((-1, 7), 5)]}, attrs)["Out"][0].shape == (-1, 7)
    x = _away_from(RNG.uniform(-8, 8, (6, 9)), kinks)
    d = get_op_def(op)
    got = d.reference({"X": [x]}, d.complete_attrs(attrs))["Out"][0]
    np.testing.assert_allclose(got, formula(x, attrs), rtol=1e-12, atol=1e-12)
    check_grad(op, {"X": _away_from(RNG.uniform(-5, 5, (3, 4)), kinks)}, attrs, ["X"])
    for dt in ("float32", "float64"):
        program, feed, names, desc = one_op_program(op, {"X": x.astype(dt)}, attrs)
        assert_same(run_c(program, feed, [names["Out"]])[0],
                    reference_op(desc, feed)[names["Out"]], f"{op} {dt}")


def test_logsigmoid_and_softplus_do_not_overflow():
    x = np.array([-1000.0, -50.0, 0.0, 50.0, 1000.0], np.float32)
    for op, want in (("logsigmoid", np.minimum(x, 0) - np.log1p(np.exp(-np.abs(x)))),
                     ("softplus", np.where(x > 20, x, np.log1p(np.exp(np.minimum(x, 20)))))):
        program, feed, names, _ = one_op_program(op, {"X": x})
        got = run_c(program, feed, [names["Out"]])[0]
        np.testing.assert_allclose(got, want.astype(np.float32), rtol=1e-6, atol=1e-7)
        assert np.isfinite(got).all()


def test_pow_factor_tensor_overrides_the_attribute():
    x = RNG.uniform(0.5, 2.0, (3, 4))
    ins = {"X": x, "FactorTensor": np.array([2.5])}
    d = get_op_def("pow")
    got = d.reference({k: [v] for k, v in ins.items()}, d.complete_attrs({"factor": 9.0}))
    np.testing.assert_allclose(got["Out"][0], x ** 2.5)
    check_grad("pow", ins, {"factor": 9.0}, ["X"])
    program, feed, names, desc = one_op_program("pow", ins, {"factor": 9.0})
    np.testing.assert_allclose(run_c(program, feed, [names["Out"]])[0], x ** 2.5, rtol=1e-12)


def test_activations_fuse_into_one_kernel_and_match_unfused():
    x = fluid.data("x", [4, 6], "float32")
    L = fluid.layers
    y = L.softsign(L.elu(L.relu6(L.logsigmoid(L.softplus(L.selu(L.hard_sigmoid(x))))), 0.5))
    xv = RNG.uniform(-4, 4, (4, 6)).astype(np.float32)
    main = fluid.default_main_program()
    exe = fluid.Executor(fluid.CPUPlace())
    fused, = exe.run(main, feed={"x": xv}, fetch_list=[y])
    plain = fluid.CompiledProgram(main, build_strategy=strategy_for([]))
    unfused, = exe.run(plain, feed={"x": xv}, fetch_list=[y])
    want = reference_op_chain(main, {"x": xv}, y.name)
    np.testing.assert_allclose(fused, want, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(unfused, want, rtol=1e-6, atol=1e-7)


def reference_op_chain(program, feed, name):
    values = dict(feed)
    for op in program.global_block().ops:
        values.update(reference_op(op.desc, values))
    return values[name]


# --- log_softmax -----------------------------------------------------------------------------

@pytest.mark.parametrize("shape,axis", [((4, 7), -1), ((3, 4, 5), 1), ((6,), 0)])
def test_log_softmax(shape, axis):
    x = RNG.standard_normal(shape) * 4
    d = get_op_def("log_softmax")
    got = d.reference({"X": [x]}, d.complete_attrs({"axis": axis}))["Out"][0]
    e = np.exp(x - x.max(axis, keepdims=True))
    np.testing.assert_allclose(got, np.log(e / e.sum(axis, keepdims=True)), rtol=1e-12)
    check_grad("log_softmax", {"X": RNG.standard_normal(shape)}, {"axis": axis}, ["X"])
    check_grad("log_softmax", {"X": RNG.standard_normal(shape)}, {"axis": axis}, ["X"],
               lower=False)
    program, feed, names, desc = one_op_program("log_softmax", {"X": x.astype(np.float32)},
                                                {"axis": axis})
    assert_same(run_c(program, feed, [names["Out"]])[0], reference_op(desc, feed)[names["Out"]])


# --- cumsum ----------------------------------------------------------------------------------

def _np_cumsum(x, axis, flatten, exclusive, reverse):
    v = x.reshape(-1) if flatten else x
    axis = -1 if flatten else axis
    if reverse:
        v = np.flip(v, axis)
    s = np.cumsum(v, axis)
    if exclusive:
        s = s - v
    return np.flip(s, axis) if reverse else s


@pytest.mark.parametrize("attrs", [{"axis": 1}, {"axis": 0, "exclusive": True},
                                   {"axis": -1, "reverse": True},
                                   {"axis": 1, "exclusive": True, "reverse": True},
                                   {"flatten": True}])
def test_cumsum(attrs):
    x = RNG.standard_normal((3, 5))
    a = get_op_def("cumsum").complete_attrs(attrs)
    want = _np_cumsum(x, a["axis"], a["flatten"], a["exclusive"], a["reverse"])
    got = check_run("cumsum", {"X": [x]}, attrs, rtol=1e-12, atol=1e-12)["Out"][0]
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    assert infer("cumsum", {"X": [((3, 5), 6)]}, attrs)["Out"][0].shape == want.shape
    check_grad("cumsum", {"X": x}, attrs, ["X"])
    check_run("cumsum_grad", {"X": [x], "Out@GRAD": [RNG.standard_normal(want.shape)]}, attrs,
              rtol=1e-12, atol=1e-12)


# --- cross_entropy2 --------------------------------------------------------------------------

def _probs(n, c):
    e = np.exp(RNG.standard_normal((n, c)))
    return e / e.sum(1, keepdims=True)


def test_cross_entropy2():
    x, label = _probs(5, 4), np.array([[0], [3], [1], [2], [3]])
    label[2] = -100
    got = check_run("cross_entropy2", {"X": [x], "Label": [label]}, {}, rtol=1e-12)
    want = -np.log(x[np.arange(5), label.ravel().clip(0)])
    want[2] = 0
    np.testing.assert_allclose(got["Y"][0].ravel(), want, rtol=1e-12)
    assert got["XShape"][0].shape == (5, 4, 0)
    check_grad("cross_entropy2", {"X": x, "Label": label}, {}, ["X"], outs=("Y",))
    check_run("cross_entropy_grad2", {"Label": [label], "MatchX": [got["MatchX"][0]],
                                      "XShape": [got["XShape"][0]],
                                      "Y@GRAD": [RNG.standard_normal((5, 1))]}, {}, rtol=1e-12)
    with pytest.raises(ShapeError, match="cross_entropy2.*Label"):
        infer("cross_entropy2", {"X": [((5, 4), 6)], "Label": [((5, 2), 3)]})


def test_fluid_cross_entropy_saves_cross_entropy2_and_trains():
    x = fluid.data("x", [None, 4], "float32")
    label = fluid.data("label", [None, 1], "int64")
    loss = fluid.layers.mean(fluid.layers.cross_entropy(fluid.layers.softmax(
        fluid.layers.fc(x, 4)), label))
    types = [op.type for op in fluid.default_main_program().global_block().ops]
    assert "cross_entropy2" in types
    fluid.optimizer.SGD(0.5).minimize(loss)
    assert "cross_entropy_grad2" in [op.type for op in
                                     fluid.default_main_program().global_block().ops]
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(fluid.default_startup_program())
    xv = RNG.standard_normal((16, 4)).astype(np.float32)
    lv = xv.argmax(1).reshape(-1, 1)
    losses = [float(exe.run(feed={"x": xv, "label": lv}, fetch_list=[loss])[0][0])
              for _ in range(30)]
    assert losses[-1] < 0.5 * losses[0]


# --- sigmoid_cross_entropy_with_logits, bce_loss --------------------------------------------

@pytest.mark.parametrize("pos_weight", [False, True])
@pytest.mark.parametrize("normalize", [False, True])
def test_sigmoid_cross_entropy_with_logits(pos_weight, normalize):
    """Paddle 3.3.1's kernel: pos_weight weighs the softplus term as given; a label truncating
    to ignore_index gives 0; normalize divides by the count of labels farther than 1e-6 from
    ignore_index (-1.5 counts, though it truncates to -1 and is ignored)."""
    x, label = RNG.standard_normal((4, 5)) * 3, RNG.uniform(0, 1, (4, 5))
    label[0, 0], label[1, 1], label[2, 2] = -1, -1.5, -1.0000001
    attrs = {"ignore_index": -1, "normalize": normalize}
    ins = {"X": x, "Label": label}
    softplus = np.log1p(np.exp(-np.abs(x))) + np.maximum(-x, 0)  # log(1 + exp(-x))
    if pos_weight:
        ins["pos_weight"] = RNG.uniform(0.5, 2, (4, 5))
        want = (1 - label) * x + ins["pos_weight"] * softplus
    else:
        want = x - x * label + softplus
    want[0, 0] = want[1, 1] = want[2, 2] = 0
    if normalize:
        want /= label.size - 2  # -1 and -1.0000001 are within 1e-6 of ignore_index
    program, feed, names, desc = one_op_program("sigmoid_cross_entropy_with_logits", ins, attrs)
    np.testing.assert_allclose(reference_op(desc, feed)[names["Out"]], want, rtol=1e-10,
                               atol=1e-12)
    check_grad("sigmoid_cross_entropy_with_logits", ins, attrs, ["X"])
    program, feed, names, desc = one_op_program(
        "sigmoid_cross_entropy_with_logits", {k: v.astype(np.float32) for k, v in ins.items()},
        attrs)
    assert_same(run_c(program, feed, [names["Out"]])[0], reference_op(desc, feed)[names["Out"]])


def test_bce_loss():
    x, label = RNG.uniform(0.05, 0.95, (3, 4)), RNG.uniform(0, 1, (3, 4))
    x[0, 0] = 0.0  # log(0) clamps to -100
    d = get_op_def("bce_loss")
    got = d.reference({"X": [x], "Label": [label]}, {})["Out"][0]
    with np.errstate(divide="ignore"):
        want = -(label * np.maximum(np.log(x), -100) + (1 - label) * np.log(1 - x))
    np.testing.assert_allclose(got, want, rtol=1e-12)
    x[0, 0] = 0.3
    check_grad("bce_loss", {"X": x, "Label": label}, {}, ["X"])


# --- nll_loss --------------------------------------------------------------------------------

@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("weighted", [False, True])
def test_nll_loss(reduction, weighted):
    x, label = np.log(_probs(6, 4)), np.array([0, 3, 1, -100, 2, 3])
    ins = {"X": [x], "Label": [label]}
    w = np.ones(4)
    if weighted:
        w = RNG.uniform(0.5, 2, 4)
        ins["Weight"] = [w]
    got = check_run("nll_loss", ins, {"reduction": reduction}, rtol=1e-12)
    keep = label != -100
    per = np.where(keep, -w[label.clip(0)] * x[np.arange(6), label.clip(0)], 0)
    total = (w[label.clip(0)] * keep).sum()
    want = {"none": per, "sum": per.sum(), "mean": per.sum() / total}[reduction]
    np.testing.assert_allclose(got["Out"][0], want, rtol=1e-12)
    np.testing.assert_allclose(got["Total_weight"][0], total, rtol=1e-12)
    check_grad("nll_loss", {k: v[0] for k, v in ins.items()}, {"reduction": reduction}, ["X"])


# --- cos_sim ---------------------------------------------------------------------------------

@pytest.mark.parametrize("y_rows", [5, 1])
def test_cos_sim(y_rows):
    x, y = RNG.standard_normal((5, 3)), RNG.standard_normal((y_rows, 3))
    got = check_run("cos_sim", {"X": [x], "Y": [y]}, {}, rtol=1e-12)
    yb = np.broadcast_to(y, x.shape)
    want = (x * yb).sum(1) / np.linalg.norm(x, axis=1) / np.linalg.norm(yb, axis=1)
    np.testing.assert_allclose(got["Out"][0].ravel(), want, rtol=1e-12)
    assert got["YNorm"][0].shape == (y_rows, 1)
    check_grad("cos_sim", {"X": x, "Y": y}, {}, ["X", "Y"])
    with pytest.raises(ShapeError, match="cos_sim"):
        infer("cos_sim", {"X": [((5, 3), 6)], "Y": [((2, 3), 6)]})


# --- one_hot ---------------------------------------------------------------------------------

def test_one_hot_v2_and_one_hot():
    ids = np.array([[1], [0], [3]])
    got = check_run("one_hot_v2", {"X": [ids]}, {"depth": 4})["Out"][0]
    np.testing.assert_array_equal(got, np.eye(4, dtype=np.float32)[ids])
    assert got.shape == (3, 1, 4)
    got1 = check_run("one_hot", {"X": [ids]}, {"depth": 4})["Out"][0]
    np.testing.assert_array_equal(got1, np.eye(4, dtype=np.float32)[ids.ravel()])
    with pytest.raises(OpError, match="outside"):
        get_op_def("one_hot_v2").reference({"X": [np.array([4])]},
                                           get_op_def("one_hot_v2").complete_attrs({"depth": 4}))
    lax = check_run("one_hot_v2", {"X": [np.array([4, 1])]},
                    {"depth": 4, "allow_out_of_range": True})["Out"][0]
    np.testing.assert_array_equal(lax, [[0, 0, 0, 0], [0, 1, 0, 0]])


# --- sequence_conv ---------------------------------------------------------------------------

def _np_sequence_conv(x, w, lens, start, length):
    out, offs = np.zeros((x.shape[0], w.shape[1])), np.concatenate([[0], np.cumsum(lens)])
    for s, e in zip(offs, offs[1:]):
        for t in range(s, e):
            window = [x[r] if s <= r < e else np.zeros(x.shape[1])
                      for r in range(t + start, t + start + length)]
            out[t] = np.concatenate(window) @ w
    return out


@pytest.mark.parametrize("lens,start,length", [([3, 1, 4], -1, 3), ([2, 0, 5], 0, 2),
                                               ([5], -2, 4)])
def test_sequence_conv_reference_and_grads(lens, start, length):
    x = RNG.standard_normal((sum(lens), 2))
    w = RNG.standard_normal((length * 2, 3))
    attrs = {"contextStart": start, "contextLength": length}
    lod = {"X": [(tuple(np.concatenate([[0], np.cumsum(lens)]).tolist()),)]}
    a = {**get_op_def("sequence_conv").complete_attrs(attrs), LOD_ATTR: lod}
    got = check_run_with_attrs("sequence_conv", {"X": [x], "Filter": [w]}, a)
    np.testing.assert_allclose(got, _np_sequence_conv(x, w, lens, start, length), rtol=1e-12)
    d = get_op_def("sequence_conv_grad")
    dout = RNG.standard_normal(got.shape)
    grads = d.reference({"X": [x], "Filter": [w], "Out@GRAD": [dout]}, a)

    def loss(xv, wv):
        return (_np_sequence_conv(xv, wv, lens, start, length) * dout).sum()
    for name, arr in (("X", x), ("Filter", w)):
        num = np.zeros_like(arr)
        for i in np.ndindex(arr.shape):
            p, m = arr.copy(), arr.copy()
            p[i] += 1e-6
            m[i] -= 1e-6
            args = (p, w) if name == "X" else (x, p)
            argm = (m, w) if name == "X" else (x, m)
            num[i] = (loss(*args) - loss(*argm)) / 2e-6
        np.testing.assert_allclose(grads[name + "@GRAD"][0], num, rtol=1e-6, atol=1e-8)


def check_run_with_attrs(op, ins, a):
    """The extern run and the reference of an op given complete attrs (LoD included)."""
    import torch
    d = get_op_def(op)
    ref = d.reference(ins, a)["Out"][0]
    out = torch.zeros(ref.shape, dtype=torch.float64)
    d.run({k: [torch.from_numpy(v) for v in vs] for k, vs in ins.items()}, {"Out": [out]}, a,
          None)
    np.testing.assert_allclose(out.numpy(), ref, rtol=1e-12)
    return ref


def test_sequence_conv_layer_trains_through_the_executor():
    x = fluid.layers.data("x", [2], "float64", lod_level=1)
    x.stop_gradient = False
    out = fluid.layers.sequence_conv(x, 3, filter_size=3, bias_attr=False)
    block = fluid.default_main_program().global_block()
    assert [op.type for op in block.ops] == ["sequence_conv"]
    assert block.ops[0].attr("contextStart") == -1
    loss = fluid.layers.reduce_sum(out)
    fluid.backward.append_backward(loss)
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(fluid.default_startup_program())
    xv = RNG.standard_normal((5, 2))
    w = np.array(fluid.global_scope().find_var("sequence_conv_0.w_0").get_tensor())
    got, dx = exe.run(feed={"x": create_lod_tensor(xv, [[2, 3]], fluid.CPUPlace())},
                      fetch_list=[out, "x@GRAD"], return_numpy=False)  # LoD fetches
    got, dx = np.array(got), np.array(dx)
    np.testing.assert_allclose(got, _np_sequence_conv(xv, w, [2, 3], -1, 3), rtol=1e-12)
    assert dx.shape == xv.shape


def test_sequence_conv_refuses_what_it_does_not_do():
    with pytest.raises(OpError, match="paddingTrainable"):
        infer("sequence_conv", {"X": [((5, 2), 6)], "Filter": [((6, 3), 6)]},
              {"paddingTrainable": True})
    with pytest.raises(ShapeError, match="contextLength"):
        infer("sequence_conv", {"X": [((5, 2), 6)], "Filter": [((5, 3), 6)]})
