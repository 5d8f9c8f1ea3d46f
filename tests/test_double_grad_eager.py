"""paddle.grad(create_graph=True) through the ops given second derivatives for the dygraph
tape (softmax, sqrt, rsqrt, divide, multiply / add / subtract with broadcasting, mean, pow, gelu,
layer_norm): the Hessian applied to a direction against central finite differences of the first
gradient, a WGAN-GP gradient penalty end to end, a clear error for an op without one, and the
static gradient of a gradient through elementwise_div_grad_grad."""
import numpy as np
import pytest

import fluidc as paddle
import fluidc.nn as nn
import fluidc.nn.functional as F

EPS = 1e-6

# name -> (function of the differentiated inputs, their shapes, their value range); float64
CASES = {
    "softmax": (lambda a, b: F.softmax(a * b, axis=-1) * b, [(3, 4), (3, 4)], (0.2, 1.0)),
    "softmax_axis0": (lambda a: F.softmax(a, axis=0) * a, [(3, 4)], (0.2, 1.0)),
    "sqrt": (lambda a, b: paddle.sqrt(a * b) * a, [(3, 4), (3, 4)], (0.5, 2.0)),
    "divide": (lambda a, b: paddle.divide(a, b) * a, [(3, 4), (3, 4)], (0.5, 2.0)),
    "divide_broadcast_y": (lambda a, b: paddle.divide(a * a, b) + paddle.divide(b, a),
                           [(3, 4), (4,)], (0.5, 2.0)),
    "divide_broadcast_x": (lambda a, b: paddle.divide(a, b) * b, [(4,), (3, 4)], (0.5, 2.0)),
    "divide_one_side": (lambda a, b: paddle.divide(a, b.detach()) * a
                        + paddle.divide(a.detach(), b) * b, [(3, 4), (3, 4)], (0.5, 2.0)),
    "multiply_broadcast": (lambda a, b: paddle.multiply(a, b) * paddle.multiply(b, a),
                           [(2, 3, 4), (4,)], (0.2, 1.0)),
    "add_subtract_broadcast": (lambda a, b: paddle.add(a, b) * paddle.subtract(a, b) * a,
                               [(3, 4), (1, 4)], (0.2, 1.0)),
    "mean": (lambda a, b: paddle.mean(a * b) * a + paddle.mean(a * a, axis=0), [(3, 4), (3, 4)],
             (0.2, 1.0)),
    "pow": (lambda a, b: paddle.pow(a, 3.0) * b + paddle.pow(a * b, 0.5), [(3, 4), (3, 4)],
            (0.5, 2.0)),
    "gelu": (lambda a, b: F.gelu(a * b) * a, [(3, 4), (3, 4)], (-2.0, 2.0)),
    "gelu_tanh": (lambda a, b: F.gelu(a * b, approximate=True) * a, [(3, 4), (3, 4)],
                  (-2.0, 2.0)),
    # layer_norm_grad lowers into ops holding rsqrt: its second derivative is checked here
    "layer_norm": (lambda a, w, b: F.layer_norm(a, [4], weight=w, bias=b) * a,
                   [(3, 4), (4,), (4,)], (-1.0, 1.0)),
}


def _first_grad(fn, arrays, create_graph):
    ts = [paddle.to_tensor(a, stop_gradient=False) for a in arrays]
    return ts, paddle.grad(paddle.sum(fn(*ts)), ts, create_graph=create_graph)


def _numeric(f, arrays, i):
    g = np.zeros_like(arrays[i])
    for k in range(g.size):
        hi, lo = [a.copy() for a in arrays], [a.copy() for a in arrays]
        hi[i].flat[k] += EPS
        lo[i].flat[k] -= EPS
        g.flat[k] = (f(*hi) - f(*lo)) / (2 * EPS)
    return g


@pytest.mark.parametrize("case", sorted(CASES))
def test_second_derivative_matches_finite_differences(case):
    fn, shapes, (low, high) = CASES[case]
    rng = np.random.default_rng(sum(map(ord, case)))
    arrays = [rng.uniform(low, high, s) for s in shapes]
    direction = [rng.standard_normal(s) for s in shapes]
    ts, grads = _first_grad(fn, arrays, create_graph=True)
    assert all(not g.stop_gradient for g in grads)
    gv = paddle.add_n([paddle.sum(g * paddle.to_tensor(v)) for g, v in zip(grads, direction)])
    hv = paddle.grad(gv, ts)

    def directional(*arrs):
        return sum(float((g.numpy() * v).sum())
                   for g, v in zip(_first_grad(fn, list(arrs), False)[1], direction))
    for i, h in enumerate(hv):
        np.testing.assert_allclose(h.numpy(), _numeric(directional, arrays, i),
                                   rtol=1e-5, atol=1e-6, err_msg=f"{case}: input {i}")


class Critic(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(3, 8)
        self.fc2 = nn.Linear(8, 1)

    def forward(self, x):
        return self.fc2(paddle.tanh(self.fc1(x)))


def _penalty(critic, real, fake, alpha, create_graph):
    """WGAN-GP: mean((||d critic(x_hat) / d x_hat|| - 1)^2) at x_hat between real and fake."""
    x_hat = paddle.to_tensor(alpha * real + (1 - alpha) * fake, stop_gradient=False)
    (g,) = paddle.grad(critic(x_hat).sum(), x_hat, create_graph=create_graph)
    norm = paddle.sqrt(paddle.sum(g * g, axis=1) + 1e-12)
    return paddle.mean(paddle.pow(norm - 1.0, 2.0))


def test_wgan_gp_gradient_penalty_trains():
    paddle.seed(4)
    critic = Critic()
    rng = np.random.default_rng(4)
    for p in critic.parameters():
        p.set_value(rng.standard_normal(p.shape).astype("float32"))
    real = rng.standard_normal((5, 3)).astype("float32")
    fake = rng.standard_normal((5, 3)).astype("float32") + 1
    alpha = rng.uniform(0, 1, (5, 1)).astype("float32")
    gp = _penalty(critic, real, fake, alpha, create_graph=True)
    loss = critic(paddle.to_tensor(fake)).mean() - critic(paddle.to_tensor(real)).mean() \
        + 10 * gp
    loss.backward()
    w = critic.fc1.weight
    analytic = w.grad.numpy().astype("float64")

    def total(v):
        w.set_value(v.astype("float32"))
        with paddle.no_grad():
            out = critic(paddle.to_tensor(fake)).mean() - critic(paddle.to_tensor(real)).mean()
        return float(out) + 10 * float(_penalty(critic, real, fake, alpha, create_graph=False))
    w0 = w.numpy().astype("float64")
    numeric = np.zeros_like(w0)
    eps = 1e-2
    for k in range(w0.size):
        d = np.zeros_like(w0)
        d.flat[k] = eps
        numeric.flat[k] = (total(w0 + d) - total(w0 - d)) / (2 * eps)
    w.set_value(w0.astype("float32"))
    np.testing.assert_allclose(analytic, numeric, rtol=2e-2, atol=2e-3)
    # and it trains: the penalty falls under Adam on it alone
    opt = paddle.optimizer.Adam(learning_rate=0.05, parameters=critic.parameters())
    opt.clear_grad()
    first = None
    for _ in range(15):
        gp = _penalty(critic, real, fake, alpha, create_graph=True)
        first = float(gp) if first is None else first
        gp.backward()
        opt.step()
        opt.clear_grad()
    assert float(_penalty(critic, real, fake, alpha, create_graph=False)) < 0.5 * first


def test_op_without_a_second_derivative_is_named():
    x = paddle.to_tensor(np.array([0.5, -1.0, 2.0]), stop_gradient=False)
    with pytest.raises(NotImplementedError, match="'abs_grad'"):  # never a silent zero
        paddle.grad(paddle.sum(paddle.abs(x) * x), x, create_graph=True)


def test_second_derivative_through_saved_statistics_is_refused():
    x = paddle.to_tensor(np.random.default_rng(1).standard_normal((4, 3)), stop_gradient=False)
    bn = nn.BatchNorm1D(3)
    with pytest.raises(NotImplementedError, match="'batch_norm' reads its output Saved"):
        paddle.grad(paddle.sum(bn(paddle.cast(x, "float32")) ** 2), x, create_graph=True)


@pytest.mark.parametrize("xs,ys,axis", [((3, 4), (3, 4), -1), ((3, 4), (4,), -1),
                                        ((2, 3, 4), (3,), 1)])
def test_static_double_grad_of_divide(xs, ys, axis):
    """paddle.static.gradients of a gradient through elementwise_div_grad_grad."""
    paddle.enable_static()
    try:
        main, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, startup):
            x, y, dout = (paddle.static.data(n, list(s), "float64")
                          for n, s in (("x", xs), ("y", ys), ("dout", xs)))
            for v in (x, y, dout):
                v.stop_gradient = False
            block = main.global_block()
            out = block.create_var(name="out", shape=xs, dtype=x.dtype)
            block.append_op("elementwise_div", {"X": [x], "Y": [y]}, {"Out": [out]},
                            {"axis": axis})
            gx, gy = paddle.static.gradients([out], [x, y], [dout])
            target = paddle.sum(gx * gx) + paddle.sum(gy * gx.sum())
            grads = paddle.static.gradients([target], [x, y, dout])
        assert "elementwise_div_grad_grad" in [op.type for op in block.ops]
        rng = np.random.default_rng(0)
        feed = {"x": rng.normal(size=xs), "y": rng.uniform(0.5, 2.0, ys),
                "dout": rng.normal(size=xs)}
        exe = paddle.static.Executor(paddle.CPUPlace())
        got = exe.run(main, feed=feed, fetch_list=grads)
        for name, g in zip(["x", "y", "dout"], got):
            def f(v, name=name):
                return float(exe.run(main, feed=dict(feed, **{name: v}), fetch_list=[target])[0])
            numeric = _numeric(f, [feed[name]], 0)
            np.testing.assert_allclose(g, numeric, rtol=1e-5, atol=1e-7, err_msg=f"d/d{name}")
    finally:
        paddle.disable_static()
