"""Parameter groups with their own optimizer options (beta1 / beta2 / epsilon for the Adams,
momentum / use_nesterov for Momentum, a group's weight_decay and grad_clip): the cases of
fixtures/optimizer_group_cases.py trained in dygraph (opt.step()) and in a static program, each
against real Paddle 3.3.1's numbers (fixtures/optimizer_groups.npz, Paddle's dygraph) and
against the same training written in numpy."""
import os
import sys

import numpy as np
import pytest

import fluidc as paddle

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "fixtures"))
from optimizer_group_cases import (CASES, PARAMS, STEPS, make_optimizer, net,  # noqa: E402
                                   start_values, train_dygraph)

PADDLE = np.load(os.path.join(HERE, "fixtures", "optimizer_groups.npz"))
DEFAULTS = {"Adam": {"beta1": 0.9, "beta2": 0.999, "epsilon": 1e-8},
            "AdamW": {"beta1": 0.9, "beta2": 0.999, "epsilon": 1e-8, "weight_decay": 0.01},
            "Adamax": {"beta1": 0.9, "beta2": 0.999, "epsilon": 1e-8},
            "Momentum": {"use_nesterov": False}}
GROUP_OF = {"w1": 0, "b1": 0, "w2": 1, "b2": 1}


# -- the numpy reference ------------------------------------------------------------------------
def loss_and_grads(p, x, y):
    h = np.tanh(x @ p["w1"] + p["b1"])
    out = h @ p["w2"] + p["b2"]
    d_out = 2 * (out - y) / out.size
    dh = d_out @ p["w2"].T * (1 - h * h)
    return np.mean((out - y) ** 2), {"w1": x.T @ dh, "b1": dh.sum(0), "w2": h.T @ d_out,
                                     "b2": d_out.sum(0)}


def adam(p, g, s, o, lr):
    b1, b2, eps = o["beta1"], o["beta2"], o["epsilon"]
    b1p, b2p = s.get("b1p", b1), s.get("b2p", b2)  # the pows start at the group's betas
    s["m"] = b1 * s.get("m", 0) + (1 - b1) * g
    s["v"] = b2 * s.get("v", 0) + (1 - b2) * g * g
    lr_t = lr * np.sqrt(1 - b2p) / (1 - b1p)
    s["b1p"], s["b2p"] = b1p * b1, b2p * b2
    return p - lr_t * s["m"] / (np.sqrt(s["v"]) + eps * np.sqrt(1 - b2p))


def adamw(p, g, s, o, lr):
    return adam(p * (1 - lr * o["weight_decay"]), g, s, o, lr)


def adamax(p, g, s, o, lr):
    b1, b2 = o["beta1"], o["beta2"]
    b1p = s.get("b1p", b1)
    s["m"] = b1 * s.get("m", 0) + (1 - b1) * g
    s["u"] = np.maximum(b2 * s.get("u", 0) + o["epsilon"], np.abs(g))
    s["b1p"] = b1p * b1
    return p - lr / (1 - b1p) * s["m"] / s["u"]


def momentum(p, g, s, o, lr):
    mu = o["momentum"]
    s["v"] = mu * s.get("v", 0) + g
    return p - lr * (g + mu * s["v"] if o["use_nesterov"] else s["v"])


UPDATES = {"Adam": adam, "AdamW": adamw, "Adamax": adamax, "Momentum": momentum}


def numpy_train(name):
    """The case in float64: each group's options over the optimizer's, a group's rate a
    multiple of the optimizer's, its clip a global norm over the group's gradients, a
    weight_decay an L2 term in the gradient (AdamW's: the decoupled coefficient)."""
    kind, args, *groups = CASES[name]
    values, x, y = start_values()
    params = {k: v.astype("float64") for k, v in values.items()}
    state = {k: {} for k in PARAMS}
    losses = []
    for _ in range(STEPS):
        loss, grads = loss_and_grads(params, x, y)
        losses.append(loss)
        for index, options in enumerate(groups):
            o = {**DEFAULTS[kind], **args, **options}
            lr = args["learning_rate"] * options.get("learning_rate", 1.0)
            names = [k for k in PARAMS if GROUP_OF[k] == index]
            g = {k: grads[k] for k in names}
            if o.get("grad_clip") is not None:
                norm = np.sqrt(sum((v * v).sum() for v in g.values()))
                g = {k: v * o["grad_clip"][1] / max(o["grad_clip"][1], norm)
                     for k, v in g.items()}
            for k in names:
                if kind != "AdamW" and o.get("weight_decay"):
                    g[k] = g[k] + o["weight_decay"] * params[k]
                params[k] = UPDATES[kind](params[k], g[k], state[k], o, lr)
    return np.array(losses), params


# -- fluidc's static program ----------------------------------------------------------------------
def train_static(name):
    values, x, y = start_values()
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        xv = paddle.static.data("x", list(x.shape), "float32")
        yv = paddle.static.data("y", list(y.shape), "float32")
        l1, l2, loss_of = net(paddle)
        loss = loss_of(xv, yv)
        make_optimizer(paddle, name, l1.parameters(), l2.parameters()).minimize(loss)
    place = paddle.CPUPlace()
    exe = paddle.static.Executor(place)
    exe.run(startup)
    scope = paddle.static.global_scope()
    names = {"w1": l1.weight.name, "b1": l1.bias.name, "w2": l2.weight.name,
             "b2": l2.bias.name}
    for k, n in names.items():
        scope.find_var(n).get_tensor().set(values[k], place)
    losses = [exe.run(main, feed={"x": x, "y": y}, fetch_list=[loss])[0] for _ in range(STEPS)]
    final = {k: np.array(scope.find_var(n).get_tensor()) for k, n in names.items()}
    return np.array(losses, "float32").reshape(-1), final


def check(losses, final, want_losses, want, rtol, atol):
    np.testing.assert_allclose(losses, want_losses, rtol=rtol, atol=atol)
    for k in PARAMS:
        np.testing.assert_allclose(final[k], want[k], rtol=rtol, atol=atol, err_msg=k)


def paddle_numbers(name):
    return PADDLE[f"{name}/loss"], {k: PADDLE[f"{name}/{k}"] for k in PARAMS}


@pytest.mark.parametrize("name", list(CASES))
def test_numpy_reference_matches_paddle(name):
    """The reference itself, against Paddle (so it cannot agree with fluidc by a shared
    mistake)."""
    check(*numpy_train(name), *paddle_numbers(name), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("name", list(CASES))
def test_dygraph_step(name):
    losses, final = train_dygraph(paddle, name)
    paddle.enable_static()
    check(losses, final, *paddle_numbers(name), rtol=1e-5, atol=1e-6)
    check(losses, final, *numpy_train(name), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("name", list(CASES))
def test_static_program(name):
    losses, final = train_static(name)
    check(losses, final, *paddle_numbers(name), rtol=1e-5, atol=1e-6)
    check(losses, final, *numpy_train(name), rtol=1e-4, atol=1e-5)


def test_group_options_in_the_ops():
    """As Paddle appends them: group 2's adam ops carry its beta1 / epsilon, its beta1_pow
    starts at its beta1; group 1's keep the optimizer's."""
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [2, 4], "float32")
        l1, l2 = paddle.nn.Linear(4, 5), paddle.nn.Linear(5, 3)
        loss = paddle.mean(l2(l1(x)))
        paddle.optimizer.Adam(0.1, beta1=0.8, parameters=[
            {"params": l1.parameters()},
            {"params": l2.parameters(), "beta1": 0.5, "epsilon": 1e-3}]).minimize(loss)
    adam_ops = {op.input("Param")[0]: op for op in main.global_block().ops if op.type == "adam"}
    pow_init = {op.output("Out")[0]: op.attr("value") for op in startup.global_block().ops
                if op.type == "fill_constant"}
    for layer, beta1, eps in ((l1, 0.8, 1e-8), (l2, 0.5, 1e-3)):
        for p in layer.parameters():
            op = adam_ops[p.name]
            assert op.attr("beta1") == pytest.approx(beta1)
            assert op.attr("epsilon") == pytest.approx(eps)
            assert op.attr("beta2") == pytest.approx(0.999)
            assert pow_init[op.input("Beta1Pow")[0]] == pytest.approx(beta1)


def _params():
    paddle.disable_static()
    try:
        return paddle.nn.Linear(2, 2).parameters()
    finally:
        paddle.enable_static()


@pytest.mark.parametrize("make,error,words", [
    # an option the optimizer does not take per group, named
    (lambda ps: paddle.optimizer.Adam(0.1, parameters=[{"params": ps, "momentum": 0.9}]),
     ValueError, "['momentum']"),
    (lambda ps: paddle.optimizer.SGD(0.1, parameters=[{"params": ps, "beta1": 0.5}]),
     ValueError, "['beta1']"),
    (lambda ps: paddle.optimizer.Momentum(0.1, parameters=[{"params": ps, "beta2": 0.5}]),
     ValueError, "['beta2']"),
    # a group's value is checked as the constructor checks it
    (lambda ps: paddle.optimizer.Adamax(0.1, parameters=[{"params": ps, "beta2": 1.0}]),
     ValueError, "beta2"),
    (lambda ps: paddle.optimizer.AdamW(0.1, parameters=[{"params": ps, "weight_decay": "x"}]),
     TypeError, "weight_decay"),
    (lambda ps: paddle.optimizer.Adam(0.1, parameters=[{"params": ps, "grad_clip": 1.0}]),
     TypeError, "grad_clip"),
    (lambda ps: paddle.optimizer.Adam(0.1, parameters=[{"params": ps[:1]},
                                                       {"params": ps}]),
     ValueError, "more than one parameter group"),
    (lambda ps: paddle.optimizer.Adam(0.1, parameters=[{"params": set(ps)}]),
     TypeError, "ordered collections"),
    (lambda ps: paddle.optimizer.Adam(0.1, parameters=[{"beta1": 0.5}]),
     ValueError, "'params'"),
])
def test_group_errors(make, error, words):
    with pytest.raises(error) as info:
        make(_params())
    assert words in str(info.value)
