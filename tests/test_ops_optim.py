"""Optimizer ops: inference (concrete and -1 dims) and the update formulas against independent
torch/numpy computations; adam's lowering against its reference."""
import numpy as np
import pytest
import torch

from fluidc.frontend.dtypes import VarType
from fluidc.frontend.ops import math, optim, reduce  # noqa: F401  (registration)
from fluidc.frontend.ops.registry import OpDesc, VarInfo, get_op_def

from ref_harness import RNG, _info, run_ops  # noqa: E402


def _infer(op_type, ins, attrs=None):
    d = get_op_def(op_type)
    return d.infer({s: [VarInfo(tuple(sh), VarType.FP32)] for s, sh in ins.items()},
                   d.complete_attrs(attrs or {}))


def test_sgd():
    out = _infer("sgd", {"Param": (-1, 4), "Grad": (-1, 4), "LearningRate": (1,)})
    assert out["ParamOut"][0].shape == (-1, 4)
    assert get_op_def("sgd").kind == "pointwise" and get_op_def("sgd").grad is None
    p, g = RNG.standard_normal((3, 4)).astype(np.float32), RNG.standard_normal((3, 4)).astype(
        np.float32)
    lr = np.array([0.1], np.float32)
    env = run_ops([OpDesc("sgd", {"Param": ["p"], "Grad": ["g"], "LearningRate": ["lr"]},
                          {"ParamOut": ["p"]})], {"p": p, "g": g, "lr": lr})
    tp = torch.nn.Parameter(torch.from_numpy(p.copy()))
    tp.grad = torch.from_numpy(g)
    torch.optim.SGD([tp], lr=0.1).step()
    # p - 0.1 g may cancel to a small value: an ulp of |p| apart
    np.testing.assert_allclose(env["p"], tp.detach().numpy(), rtol=1e-6, atol=2e-7)
    assert env["p"].dtype == np.float32


@pytest.mark.parametrize("nesterov,rescale", [(False, 1.0), (True, 1.0), (False, 0.25)])
def test_momentum(nesterov, rescale):
    out = _infer("momentum", {"Param": (-1, 4), "Grad": (-1, 4), "Velocity": (-1, 4),
                              "LearningRate": (1,)}, {"mu": 0.9})
    assert out["ParamOut"][0].shape == out["VelocityOut"][0].shape == (-1, 4)
    p = RNG.standard_normal((3, 4))
    tp = torch.nn.Parameter(torch.from_numpy(p.copy()))
    opt = torch.optim.SGD([tp], lr=0.05, momentum=0.9, nesterov=nesterov)
    env = {"p": p, "v": np.zeros_like(p), "lr": np.array([0.05])}
    op = OpDesc("momentum", {"Param": ["p"], "Grad": ["g"], "Velocity": ["v"],
                             "LearningRate": ["lr"]}, {"ParamOut": ["p"], "VelocityOut": ["v"]},
                {"mu": 0.9, "use_nesterov": nesterov, "rescale_grad": rescale})
    for _ in range(3):  # torch's momentum buffer matches Paddle's velocity (v = mu*v + g)
        g = RNG.standard_normal(p.shape)
        env["g"] = g
        run_ops([op], env)
        # rescale_grad scales the gradient, as documented (docs/numerics.md)
        tp.grad = torch.from_numpy(g * rescale)
        opt.step()
    np.testing.assert_allclose(env["p"], tp.detach().numpy(), rtol=1e-10)


def test_momentum_l2_decay():
    p, g, v = (RNG.standard_normal(5) for _ in range(3))
    d = get_op_def("momentum")
    out = d.reference({"Param": [p], "Grad": [g], "Velocity": [v],
                       "LearningRate": [np.array([0.1])]},
                      d.complete_attrs({"mu": 0.5, "regularization_method": "l2_decay",
                                        "regularization_coeff": 0.01}))
    v_out = 0.5 * v + g + 0.01 * p
    np.testing.assert_allclose(out["VelocityOut"][0], v_out)
    np.testing.assert_allclose(out["ParamOut"][0], p - 0.1 * v_out)


def _adam_env(shape, dtype=np.float64):
    return {"p": RNG.standard_normal(shape).astype(dtype), "m1": np.zeros(shape, dtype),
            "m2": np.zeros(shape, dtype), "lr": np.array([0.01], dtype),
            "b1p": np.array([0.9], dtype), "b2p": np.array([0.999], dtype)}


ADAM_OP = OpDesc("adam", {"Param": ["p"], "Grad": ["g"], "LearningRate": ["lr"],
                          "Moment1": ["m1"], "Moment2": ["m2"], "Beta1Pow": ["b1p"],
                          "Beta2Pow": ["b2p"]},
                 {"ParamOut": ["p"], "Moment1Out": ["m1"], "Moment2Out": ["m2"],
                  "Beta1PowOut": ["b1p"], "Beta2PowOut": ["b2p"]}, {"epsilon": 1e-8})


def test_adam_infer_and_lowering():
    out = _infer("adam", {"Param": (-1, 4), "Grad": (-1, 4), "LearningRate": (1,),
                          "Moment1": (-1, 4), "Moment2": (-1, 4), "Beta1Pow": (1,),
                          "Beta2Pow": (1,)})
    assert out["ParamOut"][0].shape == (-1, 4) and out["Beta1PowOut"][0].shape == (1,)
    d = get_op_def("adam")
    assert d.kind == "composite" and d.grad is None
    env = _adam_env((2, 3))
    ops = d.lower(ADAM_OP, {k: _info(v) for k, v in {**env, "g": env["p"]}.items()},
                  lambda vi: "tmp")
    # adam_update reads the pows before the scale ops advance them in place.
    assert [o.type for o in ops] == ["adam_update", "scale", "scale"]
    assert get_op_def("adam_update").kind == "pointwise"


def test_adam_matches_torch():
    # Paddle's epsilon * sqrt(1 - beta2_pow) is torch's epsilon after bias correction.
    env = _adam_env((3, 4))
    tp = torch.nn.Parameter(torch.from_numpy(env["p"].copy()))
    opt = torch.optim.Adam([tp], lr=0.01, betas=(0.9, 0.999), eps=1e-8)
    for _ in range(4):
        g = RNG.standard_normal((3, 4))
        env["g"] = g
        run_ops([ADAM_OP], env)
        tp.grad = torch.from_numpy(g)
        opt.step()
    np.testing.assert_allclose(env["p"], tp.detach().numpy(), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(env["b1p"], [0.9 ** 5])
    np.testing.assert_allclose(env["b2p"], [0.999 ** 5])


def test_adam_lowering_matches_reference():
    env = {**_adam_env((5,), np.float32), "g": RNG.standard_normal(5).astype(np.float32)}
    env["m1"] = RNG.standard_normal(5).astype(np.float32)
    env["m2"] = RNG.uniform(0.1, 1, 5).astype(np.float32)
    ref = run_ops([ADAM_OP], dict(env), lower=False)
    low = run_ops([ADAM_OP], dict(env), lower=True)
    for k in ("p", "m1", "m2", "b1p", "b2p"):  # float32 steps of O(1) values: an ulp of 1
        np.testing.assert_allclose(low[k], ref[k], rtol=1e-6, atol=2e-7)
        assert low[k].dtype == np.float32
