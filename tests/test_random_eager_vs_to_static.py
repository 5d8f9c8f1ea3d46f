"""Random small nets (Linear, LayerNorm, activations, residuals, softmax, row reductions,
reshape / transpose views, slices, cumsum, where and a cond on the input) trained for a few
steps with SGD, Momentum or Adam, the batch size changing every step (the dynamic batch dim of
the compiled programs): run eagerly, through paddle.jit.to_static and as a static program
(optimizer.minimize, Executor) from the same weights, the outputs, every parameter's gradient
(eager and to_static) and the parameters after each update must agree."""
import numpy as np
import pytest

import fluidc as paddle

STEPS = 4
TOL = dict(rtol=1e-4, atol=1e-5)


def make_net(seed, init=True):
    nn, F = paddle.nn, paddle.nn.functional
    rng = np.random.default_rng(seed)
    width = int(rng.choice([3, 4, 6]))
    plan = [int(rng.integers(12)) for _ in range(int(rng.integers(2, 7)))]
    picks = [int(rng.integers(j + 1)) for j in range(len(plan))]  # earlier values to reuse
    branch = bool(rng.integers(2))

    class Net(nn.Layer):
        def __init__(self):
            super().__init__()
            self.fcs = nn.LayerList([nn.Linear(width, width) for _ in plan])
            self.ln = nn.LayerNorm(width)
            self.head = nn.Linear(width, 2)

        def forward(self, x):
            h, hs = x, [x]
            for j, k in enumerate(plan):
                fc = self.fcs[j]
                if k == 0:
                    h = F.relu(fc(h))
                elif k == 1:
                    h = paddle.tanh(fc(h)) + h
                elif k == 2:
                    h = self.ln(h)
                elif k == 3:
                    h = F.softmax(h, axis=-1) * h
                elif k == 4:
                    h = h - h.mean(axis=1, keepdim=True)
                elif k == 5:
                    h = paddle.reshape(paddle.transpose(paddle.reshape(h, [-1, width, 1]),
                                                        [0, 2, 1]), [-1, width])
                elif k == 6:
                    h = F.sigmoid(fc(h)) * hs[picks[j]]
                elif k == 7:
                    h = paddle.maximum(h, fc(h))
                elif k == 8:
                    h = paddle.concat([h[:, 1:], h[:, :1]], axis=1)
                elif k == 9:
                    h = paddle.cumsum(h, axis=1) * 0.5
                elif k == 10:
                    h = paddle.where(h > 0, h, fc(h) * 0.1)
                else:
                    h = F.gelu(fc(h))
                hs.append(h)
            if branch:  # on an input element: never a tie of roundings
                h = paddle.static.nn.cond(x[0, 0] > 0, lambda: F.relu(h), lambda: paddle.tanh(h))
            return self.head(h)

    net = Net()
    if init:
        values = np.random.default_rng(seed + 1)
        net.set_state_dict({k: paddle.to_tensor((values.standard_normal(v.shape) * 0.5)
                                                .astype("float32"))
                            for k, v in net.state_dict().items()})
    return net, width


def _optimizer(seed, params=None):
    kind = seed % 3
    # Adam's epsilon keeps a gradient of rounding size (a dead unit's) from taking a full step
    return (paddle.optimizer.SGD(learning_rate=0.1, parameters=params) if kind == 0 else
            paddle.optimizer.Momentum(learning_rate=0.05, momentum=0.9, parameters=params)
            if kind == 1 else
            paddle.optimizer.Adam(learning_rate=0.02, epsilon=1e-4, parameters=params))


def _batches(seed, width):
    data = np.random.default_rng(seed + 3)
    return [data.standard_normal((int(data.integers(1, 6)), width)).astype("float32")
            for _ in range(STEPS)]


def train(seed, to_static):
    """(outputs, grads by parameter name, parameters by name) of each step."""
    net, width = make_net(seed)
    forward = paddle.jit.to_static(net.forward) if to_static else net.forward
    params = net.parameters()
    opt = _optimizer(seed, params)
    names = {id(p): k for k, p in net.named_parameters()}
    steps = []
    for batch in _batches(seed, width):
        y = forward(paddle.to_tensor(batch))
        (y * y).mean().backward()
        grads = {names[id(p)]: p.grad.numpy() for p in params if p.grad is not None}
        opt.step()
        opt.clear_grad()
        steps.append((y.numpy(), grads, {k: v.numpy() for k, v in net.state_dict().items()}))
    return steps


@pytest.mark.parametrize("seed", range(6))
def test_to_static_trains_as_eager(seed):
    for step, (eager, static) in enumerate(zip(train(seed, False), train(seed, True))):
        np.testing.assert_allclose(static[0], eager[0], **TOL, err_msg=f"step {step} output")
        assert sorted(static[1]) == sorted(eager[1]), step
        for k in eager[1]:
            np.testing.assert_allclose(static[1][k], eager[1][k], **TOL,
                                       err_msg=f"step {step} grad {k}")
        for k in eager[2]:
            np.testing.assert_allclose(static[2][k], eager[2][k], **TOL,
                                       err_msg=f"step {step} param {k}")


def train_static(seed):
    """(outputs, parameters by name) of each step of the net as a static program."""
    eager, width = make_net(seed)
    paddle.enable_static()
    try:
        main, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, startup):
            net, _ = make_net(seed, init=False)
            x = paddle.static.data("x", [-1, width], "float32")
            y = net(x)
            _optimizer(seed).minimize((y * y).mean())
        exe, scope = paddle.static.Executor(paddle.CPUPlace()), paddle.static.Scope()
        exe.run(startup, scope=scope)
        params = net.state_dict()
        for k, v in eager.state_dict().items():
            scope.find_var(params[k].name).get_tensor().set(v.numpy(), paddle.CPUPlace())
        steps = []
        for batch in _batches(seed, width):
            out, = exe.run(main, feed={"x": batch}, fetch_list=[y], scope=scope)
            steps.append((out, {k: np.array(scope.find_var(v.name).get_tensor())
                                for k, v in params.items()}))
        return steps
    finally:
        paddle.disable_static()


@pytest.mark.parametrize("seed", range(3))
def test_static_program_trains_as_eager(seed):
    for step, (eager, static) in enumerate(zip(train(seed, False), train_static(seed))):
        np.testing.assert_allclose(static[0], eager[0], **TOL, err_msg=f"step {step} output")
        for k in eager[2]:
            np.testing.assert_allclose(static[1][k], eager[2][k], **TOL,
                                       err_msg=f"step {step} param {k}")
