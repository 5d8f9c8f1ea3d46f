"""Training through paddle.static.nn.cond / while_loop / case / switch_case inside a
paddle.jit.to_static forward: the to_static node's backward is the static backward of its
control-flow ops (autograd._Tape reruns the call's ops with its sub-blocks). Checked against the
same Layer run eagerly (where cond / while_loop are Python if / while) from the same weights,
against real Paddle 3.3.1's to_static training through cond
(tests/fixtures/make_jit_control_flow_fixtures.py) and against finite differences."""
import os
import sys

import numpy as np
import pytest

import fluidc as paddle
import fluidc.nn.functional as F
from fluidc.static.nn import case, cond, switch_case, while_loop

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures"))
from jit_control_flow_case import make_net, train  # noqa: E402

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "paddle",
                        "dygraph")


def test_training_through_cond_and_while_loop_matches_eager():
    e_losses, e_grads, e_params = train(paddle, to_static=False)
    s_losses, s_grads, s_params = train(paddle, to_static=True)
    np.testing.assert_allclose(s_losses, e_losses, rtol=1e-5)
    for e, s in zip(e_grads, s_grads):
        assert sorted(e) == sorted(s)
        for k in e:
            np.testing.assert_allclose(s[k], e[k], rtol=1e-4, atol=1e-6, err_msg=k)
    for k in e_params:
        np.testing.assert_allclose(s_params[k], e_params[k], rtol=1e-4, atol=1e-6, err_msg=k)


def test_training_through_cond_matches_paddle():
    fixture = np.load(os.path.join(FIXTURES, "jit_control_flow.npz"))
    losses, grads, state = train(paddle, to_static=True, loop=False)
    np.testing.assert_allclose(losses, fixture["losses"], rtol=2e-6)
    for step, g in enumerate(grads):
        assert sorted(g) == sorted(k.split("/")[2] for k in fixture
                                   if k.startswith(f"grad/{step}/"))
        for k, v in g.items():
            np.testing.assert_allclose(v, fixture[f"grad/{step}/{k}"], rtol=1e-5, atol=1e-6,
                                       err_msg=f"step {step}: {k}")
    for k, v in state.items():
        np.testing.assert_allclose(v, fixture[f"state/{k}"], rtol=1e-5, atol=1e-6, err_msg=k)


def test_one_trace_per_loop_count():
    net = make_net(paddle)
    forward = paddle.jit.to_static(net.forward)
    x = paddle.to_tensor(np.ones((2, 4), "float32"))
    for n in (1, 2, 3, 1):
        forward(x, n).sum().backward()
    assert len(forward.program_cache) == 3


def _numeric_grad(f, x, eps=1e-6):
    g = np.zeros_like(x)
    for i in range(x.size):
        d = np.zeros_like(x)
        d.flat[i] = eps
        g.flat[i] = (f(x + d) - f(x - d)) / (2 * eps)
    return g


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_gradient_through_cond_and_while_loop_matches_finite_differences(sign):
    w = paddle.to_tensor(np.array([[0.3, -0.2], [0.1, 0.4]]), stop_gradient=False)

    @paddle.jit.to_static
    def f(x):
        y = cond(x.sum() > 0, lambda: paddle.matmul(x, w), lambda: paddle.exp(x) - x * x)
        _, y = while_loop(lambda i, y: i < 3, lambda i, y: [i + 1, paddle.tanh(y) * 1.5 + x],
                          [paddle.full([1], 0, "int64"), y])
        return (y * y).sum()

    x0 = sign * np.array([[0.5, -0.2], [0.3, 0.8]])
    x = paddle.to_tensor(x0, stop_gradient=False)
    f(x).backward()
    with paddle.no_grad():
        numeric_x = _numeric_grad(lambda v: float(f(paddle.to_tensor(v))), x0)
        w0 = w.numpy()

        def of_w(v):
            w.set_value(v)
            return float(f(paddle.to_tensor(x0)))
        numeric_w = _numeric_grad(of_w, w0)
        w.set_value(w0)
    np.testing.assert_allclose(x.grad.numpy(), numeric_x, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(w.grad.numpy(), numeric_w if sign > 0 else 0 * w0,
                               rtol=1e-6, atol=1e-8)


def test_cond_nested_in_while_loop_trains_as_eager():
    w = paddle.to_tensor(np.array([[0.3, -0.2], [0.1, 0.4]]), stop_gradient=False)

    def body(x):
        def step(i, y):
            y = cond(y.sum() > 0, lambda: paddle.tanh(paddle.matmul(y, w)), lambda: y * y + x)
            return [i + 1, y]
        # x * 1.0: a loop var is written in place by the static loop, x is read in the body
        _, y = while_loop(lambda i, y: i < 4, step, [paddle.full([1], 0, "int64"), x * 1.0])
        return (y * y).sum()

    traced = paddle.jit.to_static(body)
    for sign in (1.0, -1.0):  # the branches taken differ per iteration
        x0 = sign * np.array([[0.5, -0.2], [0.3, 0.8]])
        grads = []
        for fn in (traced, body):
            x = paddle.to_tensor(x0, stop_gradient=False)
            fn(x).backward()
            grads.append((x.grad.numpy(), w.grad.numpy()))
            w.clear_grad()
        for got, want in zip(*grads):
            np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


def test_loop_var_the_body_also_reads_keeps_its_value():
    """while_loop started from x, the body reading x too: to_static gives eager's value and
    gradient (the traced loop updates copies of its vars, as dygraph and Paddle's PIR do);
    a legacy static program updates x in place, as Paddle's legacy while_loop does."""
    def body(x):
        _, h = while_loop(lambda i, h: i < 3, lambda i, h: [i + 1, h * 2 + x],
                          [paddle.full([1], 0, "int64"), x])
        return (h * h).sum() + x.sum()

    x0 = np.array([1.0, 2.0])
    results = []
    for fn in (paddle.jit.to_static(body), body):
        x = paddle.to_tensor(x0, stop_gradient=False)
        loss = fn(x)
        loss.backward()
        results.append((loss.numpy(), x.grad.numpy(), x.numpy()))
    for got, want in zip(*results):
        np.testing.assert_allclose(got, want, rtol=1e-12)
    np.testing.assert_allclose(results[1][0], (15 ** 2 + 30 ** 2) + 3.0)

    paddle.enable_static()
    try:
        main = paddle.static.Program()
        with paddle.static.program_guard(main, paddle.static.Program()):
            x = paddle.static.data("x", [2], "float64")
            _, h = while_loop(lambda i, h: i < 3, lambda i, h: [i + 1, h * 2 + x],
                              [paddle.full([1], 0, "int64"), x])
            got = paddle.static.Executor(paddle.CPUPlace()).run(
                main, feed={"x": x0}, fetch_list=[h, x])
    finally:
        paddle.disable_static()
    np.testing.assert_allclose(got[0], [27.0, 54.0])  # Paddle 3.3.1's legacy program: x updated
    np.testing.assert_allclose(got[1], [27.0, 54.0])


def test_batch_norm_running_statistics_update_through_control_flow():
    """A to_static Layer with batch_norm before a cond: after training calls its running
    mean and variance, and its gradients, are the eager Layer's."""
    class Net(paddle.nn.Layer):
        def __init__(self):
            super().__init__()
            self.bn = paddle.nn.BatchNorm1D(3)
            self.fc = paddle.nn.Linear(3, 3)

        def forward(self, x):
            h = self.bn(x)
            return cond(h.sum() > -1e3, lambda: self.fc(h), lambda: h * 2)

    net, eager = Net(), Net()
    eager.set_state_dict(net.state_dict())
    x = paddle.to_tensor(np.random.default_rng(0).standard_normal((8, 3)).astype("float32") + 1)
    traced = paddle.jit.to_static(net)
    for _ in range(2):
        traced(x).sum().backward()
        eager(x).sum().backward()
    for got, want in ((net.bn._mean, eager.bn._mean), (net.bn._variance, eager.bn._variance),
                      (net.bn.weight.grad, eager.bn.weight.grad),
                      (net.fc.weight.grad, eager.fc.weight.grad)):
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6, atol=1e-12)
    assert abs(net.bn._mean.numpy()).min() > 0.1  # two updates toward the batch mean (~1)


def test_case_and_switch_case_train_as_eager():
    def body(x, k):
        y = case([(x.mean() > 1, lambda: x * 3), (x.mean() > 0, lambda: paddle.tanh(x))],
                 default=lambda: x * x)
        return switch_case(k, {0: lambda: y + x, 1: lambda: paddle.exp(y)},
                           default=lambda: y * 2).sum()

    traced = paddle.jit.to_static(body)
    for shift in (2.0, 0.5, -1.0):
        for k in range(3):
            x0 = np.array([0.2, 0.4, -0.3], "float32") + shift
            got, want = (paddle.to_tensor(x0, stop_gradient=False) for _ in range(2))
            index = paddle.to_tensor(np.array([k], "int64"))
            traced(got, index).backward()
            body(want, index).backward()
            np.testing.assert_allclose(got.grad.numpy(), want.grad.numpy(), rtol=1e-5,
                                       err_msg=f"shift {shift}, branch {k}")


def test_two_calls_and_eager_ops_around_them():
    net = make_net(paddle)
    forward = paddle.jit.to_static(net.forward)
    eager = make_net(paddle)
    x0 = np.random.default_rng(0).standard_normal((3, 4)).astype("float32")

    def loss(fn):
        x = paddle.to_tensor(x0, stop_gradient=False)
        a = fn(x * 2, 2)
        b = fn(paddle.tanh(a.sum(1, keepdim=True)) * x, 1)  # the second call reads the first's
        out = (a * b).mean()
        out.backward()
        return float(out), x.grad.numpy()
    got, want = loss(forward), loss(eager)
    np.testing.assert_allclose(got[0], want[0], rtol=1e-5)
    np.testing.assert_allclose(got[1], want[1], rtol=1e-4, atol=1e-6)
    for (k, p), q in zip(net.named_parameters(), eager.parameters()):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-4, atol=1e-6,
                                   err_msg=k)


def test_random_op_inside_a_branch_is_refused_for_backward():
    @paddle.jit.to_static
    def f(x):
        return cond(x.sum() > 0, lambda: F.dropout(x, 0.5), lambda: x * 2).sum()

    with pytest.raises(NotImplementedError, match="random op 'dropout'"):
        f(paddle.to_tensor(np.ones(4, "float32"), stop_gradient=False)).backward()


def test_random_op_outside_the_control_flow_keeps_its_numbers():
    paddle.seed(1)

    @paddle.jit.to_static
    def f(x):
        d = F.dropout(x, 0.5)
        return cond(d.sum() > 0, lambda: d * 3, lambda: d * d), d

    x = paddle.to_tensor(np.ones(64, "float32"), stop_gradient=False)
    y, d = f(x)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 3 * d.numpy())  # the forward's mask (kept / 2)


def test_create_graph_through_control_flow_is_refused():
    @paddle.jit.to_static
    def f(x):
        return cond(x.sum() > 0, lambda: x * x, lambda: -x).sum()

    x = paddle.to_tensor(np.ones(3, "float32"), stop_gradient=False)
    with pytest.raises(NotImplementedError, match="create_graph"):
        paddle.grad(f(x), x, create_graph=True)
