"""paddle.jit.to_static and InputSpec: training through a traced program gives eager's and real
Paddle 3.3.1's losses and gradients (tests/fixtures/make_dygraph_fixtures.py), programs are
retraced exactly when the signature changes, Python control flow on traced values is refused
at the user's line, and cond / while_loop become control-flow ops."""
import os
import sys

import numpy as np
import pytest

import fluidc as paddle
import fluidc.nn as nn
from fluidc.static import InputSpec

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures"))
from dygraph_cases import train  # noqa: E402

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "paddle",
                        "dygraph")
TRAIN = np.load(os.path.join(FIXTURES, "train.npz"))


@pytest.mark.parametrize("case", ["mlp_adam", "mlp_sgd_step_decay", "cnn_momentum",
                                  "transformer_momentum"])
def test_to_static_training_matches_eager_and_paddle(case):
    _, _, eager_losses, eager_grads = train(paddle, case)
    model, _, losses, grads = train(paddle, case, to_static=True)
    assert len(model.forward.program_cache) == 1  # one trace for every step
    np.testing.assert_allclose(losses, eager_losses, rtol=1e-6)
    np.testing.assert_allclose(losses, TRAIN[f"to_static/{case}/losses"], rtol=2e-6)
    assert sorted(grads) == sorted(eager_grads)
    for name, g in grads.items():
        np.testing.assert_allclose(g, eager_grads[name], rtol=1e-5, atol=1e-6, err_msg=name)
        np.testing.assert_allclose(g, TRAIN[f"to_static/{case}/grad/{name}"], rtol=1e-5,
                                   atol=1e-6, err_msg=name)


def test_to_static_updates_batch_norm_statistics_as_eager():
    paddle.seed(3)
    eager = nn.Sequential(nn.Linear(4, 3), nn.BatchNorm1D(3))
    traced = nn.Sequential(nn.Linear(4, 3), nn.BatchNorm1D(3))
    traced.set_state_dict(eager.state_dict())
    traced = paddle.jit.to_static(traced)
    x = paddle.to_tensor(np.random.default_rng(0).standard_normal((6, 4)).astype("float32"))
    for _ in range(2):
        eager(x).sum().backward()
        traced(x).sum().backward()
    for (k, a), b in zip(eager.state_dict().items(), traced.state_dict().values()):
        np.testing.assert_allclose(b.numpy(), a.numpy(), rtol=1e-6, atol=1e-7, err_msg=k)
    for a, b in zip(eager.parameters(), traced.parameters()):
        if a.grad is not None:
            np.testing.assert_allclose(b.grad.numpy(), a.grad.numpy(), rtol=1e-5, atol=1e-6)


def test_retraced_when_the_signature_changes():
    class Net(nn.Layer):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 2)
            self.drop = nn.Dropout(0.5)

        @paddle.jit.to_static
        def forward(self, x, scale=1.0):
            return self.drop(self.fc(x)) * scale

    net = Net()
    cache = net.forward.program_cache
    x3 = paddle.ones([3, 4])
    net(x3)
    net(paddle.zeros([3, 4]))  # same signature: no trace
    assert len(cache) == 1
    net(paddle.ones([5, 4]))  # a new shape
    assert len(cache) == 2
    net(x3, scale=2.0)  # a new Python argument
    assert len(cache) == 3
    net.eval()  # a new mode: dropout is gone
    out = net(x3)
    assert len(cache) == 4
    np.testing.assert_allclose(out.numpy(), net.fc(x3).numpy(), rtol=1e-6)
    net(x3)
    assert len(cache) == 4
    traced = net.forward.concrete_program
    net.fc.weight.stop_gradient = True  # a frozen parameter: the same key, traced again
    net(x3).sum().backward()
    assert len(cache) == 4 and net.forward.concrete_program is not traced
    assert net.fc.weight.grad is None and net.fc.bias.grad is not None


def test_input_spec_with_none_dims_serves_every_batch_size():
    fc = nn.Linear(6, 2)
    traced = paddle.jit.to_static(nn.Sequential(fc),
                                  input_spec=[InputSpec(shape=[None, 6], dtype="float32")])
    for n in (1, 4, 7):
        x = paddle.randn([n, 6])
        np.testing.assert_allclose(traced(x).numpy(), fc(x).numpy(), rtol=1e-6)
    assert len(traced.forward.program_cache) == 1
    with pytest.raises(ValueError, match=r"shape \[3, 5\].*\[-1, 6\]"):
        traced(paddle.randn([3, 5]))


def test_function_gradients_reach_inputs_and_outer_tensors():
    w = paddle.to_tensor(np.array([[1.0, 2.0], [3.0, 4.0]], "float32"), stop_gradient=False)

    @paddle.jit.to_static
    def f(x):
        return paddle.matmul(x, w).tanh().sum()

    x = paddle.to_tensor(np.array([[0.1, -0.2]], "float32"), stop_gradient=False)
    f(x).backward()
    got = x.grad.numpy(), w.grad.numpy()
    x.clear_grad(False)
    w.clear_grad(False)
    paddle.matmul(x, w).tanh().sum().backward()
    np.testing.assert_allclose(got[0], x.grad.numpy(), rtol=1e-6)
    np.testing.assert_allclose(got[1], w.grad.numpy(), rtol=1e-6)
    with paddle.no_grad():
        assert f(x).stop_gradient
    np.testing.assert_allclose(f(x.numpy()).numpy(), f(x).numpy())  # numpy in: a tensor
    main = paddle.static.Program()
    with paddle.static.program_guard(main):
        static_x = paddle.static.data("x", [1, 2], "float32")
    with pytest.raises(TypeError, match="takes eager tensors"):
        f(static_x)


def test_python_if_on_a_traced_tensor_names_the_line():
    @paddle.jit.to_static
    def f(x):
        if x.mean() > 0:  # the line the error names
            return x
        return -x

    line = f.dygraph_function.__code__.co_firstlineno + 2
    with pytest.raises(TypeError, match=rf"{os.path.basename(__file__)}:{line}: `if`"):
        f(paddle.ones([2]))

    @paddle.jit.to_static
    def g(x):
        return x * float(x.sum())

    with pytest.raises(paddle.jit.TracedValueError, match=r"float\(\) on tensor"):
        g(paddle.ones([2]))

    def rows(x):
        total = 0
        for row in x:  # unrolled for a known first dim, refused for an unknown one
            total = total + row
        return total

    x = paddle.to_tensor(np.arange(6, dtype="float32").reshape(3, 2))
    np.testing.assert_allclose(paddle.jit.to_static(rows)(x).numpy(), [6.0, 9.0])
    any_rows = paddle.jit.to_static(rows, input_spec=[InputSpec([None, 2])])
    with pytest.raises(TypeError, match=r"test_jit.py:\d+: a Python `for` loop"):
        any_rows(x)


def test_cond_and_while_loop_become_control_flow_ops():
    @paddle.jit.to_static
    def f(x, n):
        y = paddle.static.nn.cond(x.mean() > 0, lambda: x * 2, lambda: -x)
        i = paddle.full([1], 0, "int64")
        _, y = paddle.static.nn.while_loop(lambda i, y: i < n, lambda i, y: [i + 1, y + 1],
                                           [i, y])
        return y

    x = np.array([1.0, 2.0], "float32")
    np.testing.assert_allclose(f(paddle.to_tensor(x), 3).numpy(), x * 2 + 3)
    np.testing.assert_allclose(f(paddle.to_tensor(-x), 3).numpy(), x + 3)  # same program
    assert len(f.program_cache) == 1
    types = [op.type for op in f.concrete_program.main_program.global_block().ops]
    assert "conditional_block" in types and "while" in types
    xt = paddle.to_tensor(x, stop_gradient=False)
    f(xt, 3).sum().backward()  # training through them: tests/test_jit_control_flow.py
    np.testing.assert_allclose(xt.grad.numpy(), [2.0, 2.0])


def test_static_mode_calls_the_function_body():
    @paddle.jit.to_static
    def f(x):
        return x * 2

    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [2], "float32")
        y = f(x)
    exe = paddle.static.Executor(paddle.CPUPlace())
    out, = exe.run(main, feed={"x": np.array([1.0, 2.0], "float32")}, fetch_list=[y])
    np.testing.assert_allclose(out, [2.0, 4.0])


def test_input_spec():
    spec = InputSpec(shape=[None, 784], dtype="float32", name="x")
    assert spec.shape == (-1, 784) and spec.dtype == paddle.float32
    assert repr(spec) == ("InputSpec(shape=(-1, 784), dtype=paddle.float32, name=x, "
                          "stop_gradient=False)")
    assert spec.batch(8).shape == (8, -1, 784) and spec.unbatch().shape == (784,)
    assert InputSpec.from_tensor(paddle.ones([2, 3]), name="t").shape == (2, 3)
    assert spec == InputSpec([-1, 784], "float32", "x") and len({spec, spec}) == 1
    with pytest.raises(TypeError, match="shape"):
        InputSpec(784)
    with pytest.raises(ValueError, match="dim"):
        InputSpec([-2, 3])
    with pytest.raises(TypeError, match="input_spec"):
        paddle.jit.to_static(lambda x: x, input_spec=spec)


@pytest.mark.parametrize("seed", range(4))
def test_random_programs_match_eager(seed):
    """Random chains of ops and shapes: to_static's outputs and gradients are eager's."""
    F = paddle.nn.functional
    rng = np.random.default_rng(seed)
    acts = [F.relu, paddle.tanh, F.sigmoid, F.gelu, lambda t: F.softmax(t, axis=-1),
            lambda t: t * t, lambda t: F.layer_norm(t, t.shape[-1:])]
    n, d = int(rng.integers(1, 6)), int(rng.integers(2, 9))
    widths = [d] + [int(rng.integers(2, 9)) for _ in range(int(rng.integers(1, 4)))]
    weights = [paddle.to_tensor(rng.standard_normal((a, b)).astype("float32") * 0.5,
                                stop_gradient=False) for a, b in zip(widths, widths[1:])]
    chosen = [acts[i] for i in rng.integers(0, len(acts), len(weights))]
    residual = bool(rng.integers(0, 2))

    def body(x):
        h = x
        for w, act in zip(weights, chosen):
            h = act(paddle.matmul(h, w))
        return (h.sum(axis=-1) + (x.mean(axis=-1) if residual else 0.0)).mean()

    x_np = rng.standard_normal((n, d)).astype("float32")
    results = []
    for fn in (body, paddle.jit.to_static(body)):
        x = paddle.to_tensor(x_np, stop_gradient=False)
        loss = fn(x)
        loss.backward()
        results.append([float(loss), x.grad.numpy()] + [w.grad.numpy() for w in weights])
        for t in [x] + weights:
            t.clear_grad(False)
    for got, want in zip(results[1], results[0]):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_int_inputs_and_outputs_and_embedding_gradients():
    class Net(nn.Layer):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(10, 4)
            self.fc = nn.Linear(4, 3)

        def forward(self, ids, x):
            h = self.fc(self.emb(ids).sum(axis=1) + x)
            return h, paddle.cast(h > 0, "int64"), paddle.shape(h)

    eager, traced = Net(), Net()
    traced.set_state_dict(eager.state_dict())
    traced = paddle.jit.to_static(traced)
    ids = paddle.to_tensor(np.array([[1, 2], [3, 1]]))
    x = paddle.to_tensor(np.random.default_rng(1).standard_normal((2, 4)).astype("float32"))
    for net in (eager, traced):
        h, positive, shape = net(ids, x)
        assert positive.stop_gradient and shape.stop_gradient and not h.stop_gradient
        np.testing.assert_array_equal(shape.numpy(), [2, 3])
        np.testing.assert_array_equal(positive.numpy(), (h.numpy() > 0).astype("int64"))
        (h * h).sum().backward()
    for a, b in zip(eager.parameters(), traced.parameters()):
        np.testing.assert_allclose(b.grad.numpy(), a.grad.numpy(), rtol=1e-5, atol=1e-6)
