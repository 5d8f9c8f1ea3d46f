"""Optimizers beyond sgd/momentum/adam: each update op compiled to C (and through its numpy
reference) against an independent numpy formula; whole training runs against real Paddle's
numbers (tests/fixtures/optimizers.npz); the Paddle surface (names, argument errors, attrs
stored as float32, the learning-rate var's dtype)."""
import os
import sys

import numpy as np
import pytest

import fluidc as paddle
from fluidc.frontend.ops.registry import OpDesc

from ref_harness import RNG, run_ops  # noqa: E402

FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures")
sys.path.insert(0, FIXTURES)
from optimizer_cases import cases, train  # noqa: E402

F32 = np.float32


def run_compiled(op_type, ins: dict, outs: list, attrs: dict) -> dict:
    """One op over fed arrays in a program run by the Executor (C kernels)."""
    main, startup = paddle.Program(), paddle.Program()
    with paddle.program_guard(main, startup):
        block = main.global_block()
        for name, arr in ins.items():
            block.create_var(name=name, shape=arr.shape, dtype=str(arr.dtype), is_data=True)
        for name in outs:
            block.create_var(name="out_" + name)
        block.append_op(op_type, {s: [s] for s in ins}, {s: ["out_" + s] for s in outs}, attrs)
    got = paddle.Executor(paddle.CPUPlace()).run(main, feed=ins, fetch_list=["out_" + s
                                                                             for s in outs])
    return dict(zip(outs, got))


def both(op_type, ins, outs, attrs):
    """The op's results compiled and through its reference (composites lowered), checked equal."""
    compiled = run_compiled(op_type, ins, outs, attrs)
    env = {k: v.copy() for k, v in ins.items()}
    run_ops([OpDesc(op_type, {s: [s] for s in ins}, {s: ["ref_" + s] for s in outs}, attrs)], env)
    for s in outs:
        np.testing.assert_allclose(compiled[s], env["ref_" + s], rtol=2e-6, atol=1e-7)
    return compiled


def _arrays(*names, shape=(3, 4)):
    return {n: RNG.standard_normal(shape).astype(F32) for n in names}


def test_adagrad():
    a = _arrays("Param", "Grad")
    a["Moment"] = np.abs(RNG.standard_normal((3, 4))).astype(F32)
    a["LearningRate"] = np.array([0.1], F32)
    out = both("adagrad", a, ["ParamOut", "MomentOut"], {"epsilon": 1e-6})
    m = a["Moment"] + a["Grad"] ** 2
    np.testing.assert_allclose(out["MomentOut"], m, rtol=1e-6)
    np.testing.assert_allclose(out["ParamOut"], a["Param"] - 0.1 * a["Grad"] / (np.sqrt(m) + 1e-6),
                               rtol=1e-5)


@pytest.mark.parametrize("centered", [False, True])
def test_rmsprop(centered):
    a = _arrays("Param", "Grad", "Moment")
    a["MeanGrad"] = a["Grad"] * F32(0.1)  # keeps the centered variance positive
    a["MeanSquare"] = np.abs(RNG.standard_normal((3, 4))).astype(F32) + 1
    a["LearningRate"] = np.array([0.05], F32)
    attrs = {"epsilon": 1e-6, "decay": 0.9, "momentum": 0.5, "centered": centered}
    out = both("rmsprop", a, ["ParamOut", "MomentOut", "MeanSquareOut", "MeanGradOut"], attrs)
    g = a["Grad"]
    ms = 0.9 * a["MeanSquare"] + 0.1 * g * g
    mg = 0.9 * a["MeanGrad"] + 0.1 * g if centered else a["MeanGrad"]
    var = ms - mg * mg if centered else ms
    mom = 0.5 * a["Moment"] + 0.05 * g / np.sqrt(var + 1e-6)
    for slot, want in (("MeanSquareOut", ms), ("MeanGradOut", mg), ("MomentOut", mom),
                       ("ParamOut", a["Param"] - mom)):
        np.testing.assert_allclose(out[slot], want, rtol=1e-5, atol=1e-6)


def test_adamax():
    a = _arrays("Param", "Grad", "Moment")
    a["InfNorm"] = np.abs(RNG.standard_normal((3, 4))).astype(F32)
    a["LearningRate"], a["Beta1Pow"] = np.array([0.1], F32), np.array([0.81], F32)
    out = both("adamax", a, ["ParamOut", "MomentOut", "InfNormOut"],
               {"beta1": 0.9, "beta2": 0.99, "epsilon": 1e-8})
    m = 0.9 * a["Moment"] + 0.1 * a["Grad"]
    u = np.maximum(0.99 * a["InfNorm"] + 1e-8, np.abs(a["Grad"]))
    np.testing.assert_allclose(out["InfNormOut"], u, rtol=1e-6)
    np.testing.assert_allclose(out["ParamOut"], a["Param"] - 0.1 / (1 - 0.81) * m / u, rtol=1e-5)


def test_adadelta():
    a = _arrays("Param", "Grad")
    a["AvgSquaredGrad"] = np.abs(RNG.standard_normal((3, 4))).astype(F32)
    a["AvgSquaredUpdate"] = np.abs(RNG.standard_normal((3, 4))).astype(F32)
    a["LearningRate"] = np.array([0.5], F32)
    out = both("adadelta", a, ["ParamOut", "AvgSquaredGradOut", "AvgSquaredUpdateOut"],
               {"rho": 0.9, "epsilon": 1e-5})
    g = a["Grad"]
    asg = 0.9 * a["AvgSquaredGrad"] + 0.1 * g * g
    update = -np.sqrt((a["AvgSquaredUpdate"] + 1e-5) / (asg + 1e-5)) * g
    for slot, want in (("AvgSquaredGradOut", asg), ("ParamOut", a["Param"] + 0.5 * update),
                       ("AvgSquaredUpdateOut", 0.9 * a["AvgSquaredUpdate"] + 0.1 * update ** 2)):
        np.testing.assert_allclose(out[slot], want, rtol=1e-5, atol=1e-6)


def _adam_inputs():
    a = _arrays("Param", "Grad", "Moment1")
    a["Moment2"] = np.abs(RNG.standard_normal((3, 4))).astype(F32)
    a["LearningRate"] = np.array([0.01], F32)
    a["Beta1Pow"], a["Beta2Pow"] = np.array([0.9], F32), np.array([0.999], F32)
    return a


@pytest.mark.parametrize("with_decay,lr_ratio", [(True, 1.0), (False, 1.0), (True, 0.5)])
def test_adamw(with_decay, lr_ratio):
    a = _adam_inputs()
    attrs = {"coeff": 0.1, "with_decay": with_decay, "lr_ratio": lr_ratio, "epsilon": 1e-8}
    out = both("adamw", a, ["ParamOut", "Moment1Out", "Moment2Out", "Beta1PowOut",
                            "Beta2PowOut"], attrs)
    lr = 0.01 * lr_ratio
    p = a["Param"] * (1 - lr * 0.1) if with_decay else a["Param"]
    m1 = 0.9 * a["Moment1"] + 0.1 * a["Grad"]
    m2 = 0.999 * a["Moment2"] + 0.001 * a["Grad"] ** 2
    lr_t = lr * np.sqrt(1 - 0.999) / (1 - 0.9)
    want = p - lr_t * m1 / (np.sqrt(m2) + 1e-8 * np.sqrt(1 - 0.999))
    np.testing.assert_allclose(out["ParamOut"], want, rtol=1e-5, atol=1e-7)  # float32 near 0
    np.testing.assert_allclose(out["Beta1PowOut"], [0.81], rtol=1e-6)


@pytest.mark.parametrize("weight_decay,always_adapt", [(0.1, False), (0.0, False), (0.0, True)])
def test_lamb(weight_decay, always_adapt):
    a = _adam_inputs()
    attrs = {"weight_decay": weight_decay, "always_adapt": always_adapt, "epsilon": 1e-6}
    out = both("lamb", a, ["ParamOut", "Moment1Out", "Moment2Out", "Beta1PowOut",
                           "Beta2PowOut"], attrs)
    p, g = a["Param"].astype(np.float64), a["Grad"].astype(np.float64)
    m1 = 0.9 * a["Moment1"] + 0.1 * g
    m2 = 0.999 * a["Moment2"] + 0.001 * g * g
    r = (m1 / 0.1) / (np.sqrt(m2 / 0.001) + 1e-6) + weight_decay * p
    ratio = np.linalg.norm(p) / np.linalg.norm(r) if weight_decay > 0 or always_adapt else 1.0
    np.testing.assert_allclose(out["ParamOut"], p - 0.01 * ratio * r, rtol=1e-5)
    np.testing.assert_allclose(out["Beta2PowOut"], [0.999 * 0.999], rtol=1e-6)


@pytest.mark.parametrize("scale", [0.1, 10.0])
def test_clip_by_norm_and_squared_l2_norm(scale):
    x = (RNG.standard_normal((5, 6)) * scale).astype(F32)
    out = both("clip_by_norm", {"X": x}, ["Out"], {"max_norm": 1.0})
    norm = np.linalg.norm(x.astype(np.float64))
    np.testing.assert_allclose(out["Out"], x / norm if norm > 1 else x, rtol=1e-5)
    sq = both("squared_l2_norm", {"X": x}, ["Out"], {})
    np.testing.assert_allclose(sq["Out"], [norm ** 2], rtol=1e-5)


def test_increment_and_cos():
    counter = np.array([41], np.int64)
    np.testing.assert_array_equal(both("increment", {"X": counter}, ["Out"], {"step": 1.0})["Out"],
                                  [42])
    x = np.array([0.0, 1.0, np.pi], F32)
    np.testing.assert_allclose(both("cos", {"X": x}, ["Out"], {})["Out"], np.cos(x), atol=1e-7)


@pytest.mark.parametrize("name", sorted(cases(paddle)))
def test_training_matches_paddle(name):
    """Losses, rates and parameters after each case's steps equal real Paddle's."""
    ref = np.load(os.path.join(FIXTURES, "optimizers.npz"))
    losses, lrs, final = train(paddle, name)
    f64 = cases(paddle)[name][2] == "float64"
    rtol, atol = (1e-12, 1e-14) if f64 else (1e-5, 1e-6)
    np.testing.assert_allclose(losses, ref[f"{name}/loss"], rtol=rtol, atol=atol)
    np.testing.assert_allclose(lrs, ref[f"{name}/lr"], rtol=1e-12)
    for p, value in final.items():
        np.testing.assert_allclose(value, ref[f"{name}/{p}"], rtol=rtol, atol=atol, err_msg=p)


def _minimize(make_opt, dtype="float32"):
    main, startup = paddle.Program(), paddle.Program()
    with paddle.program_guard(main, startup):
        x = paddle.static.data("x", [None, 4], dtype)
        w = paddle.create_parameter([4, 2], dtype, attr=paddle.ParamAttr(name="w"))
        loss = paddle.layers.mean(paddle.matmul(x, w))
        make_opt().minimize(loss)
    return main, startup


def test_names_1x_and_2x():
    for name in ("SGD", "Momentum", "Adam", "AdamW", "Adagrad", "RMSProp", "Adamax", "Lamb",
                 "Adadelta"):
        assert getattr(paddle.optimizer, name) is getattr(paddle.optimizer, name + "Optimizer")
    import fluidc.optimizer as opt_pkg  # a real package
    assert opt_pkg.lr.NoamDecay is paddle.optimizer.lr.NoamDecay


@pytest.mark.parametrize("make,error", [
    (lambda: paddle.optimizer.Momentum(learning_rate=None), ValueError),
    (lambda: paddle.optimizer.Momentum(0.1, momentum=None), ValueError),
    (lambda: paddle.optimizer.Adam(None), AssertionError),  # Paddle asserts
    (lambda: paddle.optimizer.Adam(0.1, beta1=1.0), ValueError),
    (lambda: paddle.optimizer.Adamax(0.1, beta2=-0.5), ValueError),
    (lambda: paddle.optimizer.RMSProp(0.1, epsilon=-1.0), ValueError),
    (lambda: paddle.optimizer.AdamW(0.1, weight_decay="0.1"), TypeError),
    (lambda: paddle.optimizer.SGD("0.1"), TypeError),
    (lambda: paddle.optimizer.SGD(0.1, grad_clip=1.0), TypeError),
    (lambda: paddle.optimizer.SGD(0.1, weight_decay="l2"), TypeError),
    (lambda: paddle.optimizer.SGD(1), TypeError),  # Paddle takes a float rate, not an int
    (lambda: paddle.optimizer.Adam(0.1, parameters={"params": []}), TypeError),
    # parameter groups: only the options the optimizer takes per group; all or none are groups
    (lambda: paddle.optimizer.Adam(0.1, parameters=[{"params": [], "momentum": 0.5}]),
     ValueError),
    (lambda: paddle.optimizer.Adam(0.1, parameters=[{"params": [], "beta1": 1.5}]), ValueError),
    (lambda: paddle.optimizer.Adam(0.1, parameters=[{"params": []}, 3]), TypeError),
])
def test_argument_errors(make, error):
    with pytest.raises(error):
        make()


def test_ops_as_paddle_appends_them():
    main, startup = _minimize(lambda: paddle.optimizer.Adamax(0.1, beta1=0.8))
    ops = [op for op in main.global_block().ops if op.type in ("adamax", "scale")]
    assert [op.type for op in ops] == ["adamax", "scale"]
    assert ops[0].attr("beta1") == float(np.float32(0.8)) != 0.8  # float attrs are float32
    assert ops[1].input("X") == ops[1].output("Out") == ["w_beta1_pow_acc_0"]
    names = {v.name for v in main.list_vars() if v.persistable}
    assert {"w_moment_0", "w_inf_norm_0"} <= names


def test_apply_gradients_returns_the_update_pass():
    """As Paddle: the per-parameter rate's scale, the update and what follows it (adamax's
    beta-pow scale); accumulators keyed name -> parameter name, under Paddle's _*_acc_str."""
    main, startup = paddle.Program(), paddle.Program()
    with paddle.program_guard(main, startup):
        x = paddle.static.data("x", [None, 4], "float32")
        w = paddle.create_parameter([4, 2], "float32", attr=paddle.ParamAttr(
            name="w", learning_rate=0.5))
        loss = paddle.layers.mean(paddle.matmul(x, w))
        opt = paddle.optimizer.Adamax(0.1)
        ops, _ = opt.minimize(loss)
    assert [op.type for op in ops] == ["scale", "adamax", "scale"]
    assert ops[0].attr("scale") == 0.5
    assert set(opt._accumulators) == {opt._moment_acc_str, opt._inf_norm_acc_str,
                                      opt._beta1_pow_acc_str}
    assert opt._accumulators["inf_norm"]["w"].name == "w_inf_norm_0"
    # the rate's fill_constant before the accumulators', as Paddle 2.x orders them
    assert [op.output("Out")[0] for op in startup.global_block().ops] == [
        "w", "learning_rate_0", "w_moment_0", "w_inf_norm_0", "w_beta1_pow_acc_0"]


def test_append_regularization_ops_is_public():
    main, _ = _minimize(lambda: paddle.optimizer.SGD(0.1))
    block = main.global_block()
    w = block.var("w")
    pg = [(w, block.var("w@GRAD"))]
    before = len(block.ops)
    out = paddle.optimizer.Adam(0.1).append_regularization_ops(pg, paddle.regularizer.L1Decay(0.1))
    assert len(out) == 1 and [op.type for op in block.ops[before:]] == ["sign", "scale", "sum"]


def test_learning_rate_var_follows_the_loss_dtype():
    for dtype, want in (("float64", paddle.VarType.FP64), ("float32", paddle.VarType.FP32)):
        main, _ = _minimize(lambda: paddle.optimizer.Adam(0.1), dtype)
        (rate,) = [v for v in main.list_vars() if v.name.startswith("learning_rate")]
        assert rate.dtype == want and rate.persistable
