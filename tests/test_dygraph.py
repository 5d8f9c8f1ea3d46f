"""Dygraph mode: the mode rule, eager tensors, and autograd (gradients of eager ops against
finite differences, eager results against the static executor's)."""
import subprocess
import sys

import numpy as np
import pytest

import fluidc as paddle
import fluidc.nn.functional as F
from fluidc.dygraph.autograd import FreedGraphError
from fluidc.frontend import framework


def test_fresh_script_is_dygraph_and_static_apis_switch():
    code = ("import fluidc as paddle\n"
            "a = paddle.in_dynamic_mode()\n"
            "t = paddle.ones([2])\n"
            "x = paddle.static.data('x', [None, 2])\n"
            "b = paddle.in_dynamic_mode()\n"
            "print(a, type(t).__name__, b, type(x).__name__)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120)
    assert out.stdout.split() == ["True", "Tensor", "False", "Variable"], out.stderr


def test_mode_rule():
    assert paddle.in_dynamic_mode()
    with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):
        assert not paddle.in_dynamic_mode()
        v = paddle.ones([2])
        assert not isinstance(v, paddle.Tensor)
    assert paddle.in_dynamic_mode()
    paddle.enable_static()
    assert not paddle.in_dynamic_mode()
    paddle.disable_static()
    paddle.static.data("x", [None, 2])  # a static program under way: dygraph still, as asked
    assert paddle.in_dynamic_mode()
    framework.set_mode(None)
    assert not paddle.in_dynamic_mode()  # the default: static once a static program started


def test_unset_mode_bridges_to_a_static_program_started_later():
    """Layers and tensors made before a static program starts serve in it: parameters are
    declared there too, eager tensors are captured as constants."""
    lin = paddle.nn.Linear(2, 3)
    c = paddle.full([3], 2.0)
    assert isinstance(c, paddle.Tensor) and isinstance(lin.weight, paddle.Tensor)
    x = paddle.static.data("x", [None, 2], "float32")
    assert not paddle.in_dynamic_mode()
    y = lin(x) * c
    exe = paddle.static.Executor()
    exe.run(paddle.static.default_startup_program())
    w = paddle.static.global_scope().find_var(lin.weight.name).get_tensor().numpy()
    feed = np.ones((4, 2), "float32")
    got, const = exe.run(feed={"x": feed}, fetch_list=[y, c])
    np.testing.assert_allclose(got, (feed @ w + lin.bias.numpy()) * 2, rtol=1e-6)
    np.testing.assert_array_equal(const, [2.0, 2.0, 2.0])


def test_tensor_basics():
    x = paddle.to_tensor([[1.0, 2.0], [3.0, 4.0]])
    assert x.shape == [2, 2] and x.dtype == paddle.float32 and x.stop_gradient
    assert paddle.to_tensor([1, 2]).dtype == paddle.int64
    assert paddle.to_tensor(np.ones(2)).dtype == paddle.float64
    assert paddle.to_tensor(True).dtype == paddle.bool
    assert paddle.to_tensor([1, 2], dtype="float32").dtype == paddle.float32
    y = (x * 2 + 1) / 2
    np.testing.assert_allclose(y.numpy(), (x.numpy() * 2 + 1) / 2)
    assert x[1, 0].item() == 3.0 and float(x[0][1]) == 2.0
    np.testing.assert_array_equal(x[:, 1].numpy(), [2.0, 4.0])
    assert x.astype("int32").dtype == paddle.int32
    assert paddle.zeros([2, 3]).shape == [2, 3]
    np.testing.assert_array_equal(paddle.arange(5).numpy(), np.arange(5))
    np.testing.assert_array_equal(paddle.full([2], 7, "int64").numpy(), [7, 7])
    assert paddle.randn([3, 4]).shape == [3, 4]
    np.testing.assert_allclose(paddle.matmul(x, x).numpy(), x.numpy() @ x.numpy())
    assert "Tensor(shape=[2, 2], dtype=paddle.float32" in repr(x)
    a = x.numpy()
    a[0, 0] = 100  # numpy() is a copy
    assert x.numpy()[0, 0] == 1.0
    with pytest.raises(ValueError):
        x.item()
    with pytest.raises(TypeError):
        paddle.to_tensor(["a"])


def test_seed_restarts_eager_random_numbers():
    paddle.seed(3)
    a, d = paddle.randn([5]), F.dropout(paddle.ones([50]), 0.5)
    paddle.seed(3)
    b, e = paddle.randn([5]), F.dropout(paddle.ones([50]), 0.5)
    assert not np.array_equal(a.numpy(), paddle.randn([5]).numpy())
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    np.testing.assert_array_equal(d.numpy(), e.numpy())


def test_stop_gradient_no_grad_detach():
    w = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    c = paddle.to_tensor([3.0, 4.0])
    assert not (w * c).stop_gradient and (c * c).stop_gradient
    with paddle.no_grad():
        assert (w * c).stop_gradient
    assert w.detach().stop_gradient

    @paddle.no_grad()
    def f(t):
        return t * 2
    assert f(w).stop_gradient
    loss = paddle.sum(w * c + w.detach() * 5)
    loss.backward()
    np.testing.assert_allclose(w.grad.numpy(), [3.0, 4.0])
    paddle.sum(w * w).backward()  # accumulates
    np.testing.assert_allclose(w.grad.numpy(), [5.0, 8.0])
    w.clear_grad()
    np.testing.assert_allclose(w.grad.numpy(), [0.0, 0.0])
    assert c.grad is None


def test_backward_twice_needs_retain_graph():
    w = paddle.to_tensor([1.0, 2.0], stop_gradient=False)
    y = paddle.sum(paddle.exp(w))
    y.backward(retain_graph=True)
    y.backward()
    np.testing.assert_allclose(w.grad.numpy(), 2 * np.exp([1.0, 2.0]), rtol=1e-6)
    with pytest.raises(FreedGraphError):
        y.backward()
    with pytest.raises(RuntimeError):
        paddle.to_tensor([1.0]).backward()


def test_paddle_grad():
    x = paddle.to_tensor([1.0, 2.0, 3.0], stop_gradient=False)
    h = x * x
    y = paddle.sum(h * 3)
    z = paddle.to_tensor([1.0], stop_gradient=False)
    gx, gh = paddle.grad(y, [x, h], retain_graph=True)
    np.testing.assert_allclose(gx.numpy(), 6 * x.numpy())
    np.testing.assert_allclose(gh.numpy(), [3.0, 3.0, 3.0])
    assert x.grad is None  # paddle.grad does not accumulate
    with pytest.raises(ValueError, match="allow_unused"):
        paddle.grad(y, [z], retain_graph=True)
    assert paddle.grad(y, [z], allow_unused=True, retain_graph=True) == [None]
    (g,) = paddle.grad(y, x, grad_outputs=paddle.to_tensor(2.0))
    np.testing.assert_allclose(g.numpy(), 12 * x.numpy())
    (g,) = paddle.grad(paddle.sum(x * x), x, create_graph=True)
    assert not g.stop_gradient  # recorded: differentiable again
    with pytest.raises(NotImplementedError, match="abs_grad"):  # no double grad: said so
        paddle.grad(paddle.sum(paddle.abs(x * x + 1)), x, create_graph=True)


# name -> (function of the differentiated inputs, their shapes); inputs are float64
GRAD_CASES = {
    "add_broadcast": (lambda a, b: a + b, [(3, 4), (4,)]),
    "sub_mul_div": (lambda a, b: (a - b) * a / (b * b + 2), [(3, 4), (3, 4)]),
    "matmul": (lambda a, b: paddle.matmul(a, b), [(3, 4), (4, 2)]),
    "matmul_transpose": (lambda a, b: paddle.matmul(a, b, transpose_y=True), [(3, 4), (2, 4)]),
    "relu_tanh_sigmoid": (lambda a: F.relu(a) + paddle.tanh(a) + F.sigmoid(a), [(4, 5)]),
    "exp_log_sqrt": (lambda a: paddle.exp(a) + paddle.log(a * a + 1) + paddle.sqrt(a * a + 1),
                     [(6,)]),
    "gelu_softmax": (lambda a: F.gelu(a) * F.softmax(a, axis=-1), [(3, 5)]),
    "log_softmax": (lambda a: F.log_softmax(a, axis=1), [(3, 5)]),
    "mean_sum_axis": (lambda a: paddle.mean(a, axis=1) + paddle.sum(a, axis=1), [(3, 4)]),
    "reshape_transpose": (lambda a: paddle.transpose(paddle.reshape(a, [4, 3]), [1, 0]),
                          [(3, 4)]),
    "concat_index": (lambda a, b: paddle.concat([a, b], axis=0)[1:, ::2], [(2, 4), (3, 4)]),
    "pow_square_clip": (lambda a: paddle.pow(a * a + 1, 1.5) + paddle.square(a)
                        + paddle.clip(a, -0.3, 0.3), [(5,)]),
    "layer_norm": (lambda a, w, b: F.layer_norm(a, [4], w, b), [(3, 4), (4,), (4,)]),
    "linear": (lambda a, w, b: F.linear(a, w, b), [(3, 4), (4, 2), (2,)]),
    "conv2d": (lambda a, w: F.conv2d(a, w, padding=1), [(1, 1, 4, 4), (2, 1, 3, 3)]),
    "max_avg_pool": (lambda a: F.max_pool2d(a, 2) + F.avg_pool2d(a, 2), [(1, 2, 4, 4)]),
    "batch_norm_train": (lambda a, w, b: F.batch_norm(
        a, paddle.zeros([2], "float64"), paddle.ones([2], "float64"), w, b, training=True),
        [(3, 2, 2, 2), (2,), (2,)]),
    "stack_split": (lambda a, b: paddle.split(paddle.stack([a, b]), 2, axis=2)[1], [(2, 4)] * 2),
    "unsqueeze_squeeze_expand": (lambda a: paddle.expand(paddle.unsqueeze(paddle.squeeze(a), 0),
                                                          [3, 4]), [(1, 4)]),
}


def _numeric_grad(f, arrays, i, eps=1e-6):
    base = [a.copy() for a in arrays]
    g = np.zeros_like(arrays[i])
    for idx in np.ndindex(arrays[i].shape):
        vals = []
        for sign in (1, -1):
            moved = [a.copy() for a in base]
            moved[i][idx] += sign * eps
            vals.append(f(*moved))
        g[idx] = (vals[0] - vals[1]) / (2 * eps)
    return g


@pytest.mark.parametrize("case", sorted(GRAD_CASES))
def test_eager_grad_matches_finite_differences(case):
    fn, shapes = GRAD_CASES[case]
    rng = np.random.default_rng(sum(map(ord, case)))
    arrays = [rng.uniform(0.2, 1.0, s) * rng.choice([-1, 1], s) for s in shapes]
    weights = None

    def scalar(*arrs):
        nonlocal weights
        ts = [paddle.to_tensor(a, stop_gradient=False) for a in arrs]
        out = fn(*ts)
        if weights is None:  # a fixed random cotangent makes every output element count
            weights = rng.standard_normal(out.shape)
        return paddle.sum(out * paddle.to_tensor(weights)), ts

    loss, ts = scalar(*arrays)
    loss.backward()
    for i, t in enumerate(ts):
        numeric = _numeric_grad(lambda *a: scalar(*a)[0].item(), arrays, i)
        np.testing.assert_allclose(t.grad.numpy(), numeric, rtol=1e-5, atol=1e-6,
                                   err_msg=f"{case}: input {i}")


def test_eager_equals_static_executor(rng):
    x = rng.standard_normal((4, 6)).astype("float32")
    w = rng.standard_normal((6, 3)).astype("float32")

    def net(xv, wv):
        h = F.relu(paddle.matmul(xv, wv)) + 0.5
        return paddle.mean(F.softmax(h, axis=1) * h, axis=0)

    eager = net(paddle.to_tensor(x), paddle.to_tensor(w)).numpy()
    paddle.enable_static()
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        xv = paddle.static.data("x", [4, 6], "float32")
        wv = paddle.static.data("w", [6, 3], "float32")
        out = net(xv, wv)
    (static,) = paddle.static.Executor().run(main, feed={"x": x, "w": w}, fetch_list=[out])
    np.testing.assert_array_equal(eager, static)


def test_control_flow_runs_as_python():
    x = paddle.to_tensor([2.0], stop_gradient=False)
    y = paddle.static.nn.cond(x > 0, lambda: x * 3, lambda: -x)
    np.testing.assert_allclose(y.numpy(), [6.0])
    i, s = paddle.static.nn.while_loop(lambda i, s: i < 3, lambda i, s: [i + 1, s * x],
                                       [paddle.to_tensor([0]), paddle.to_tensor([1.0])])
    assert i.item() == 3
    s.backward()
    np.testing.assert_allclose(x.grad.numpy(), [12.0])  # d(x^3)/dx


# create_graph: first gradients as recorded ops, differentiated again; name -> (function of
# the inputs, their shapes). The Hessian-vector product of f along a fixed direction is checked
# against finite differences of the first gradient (itself checked above).
DOUBLE_CASES = {
    "mul_add_sub": (lambda a, b: a * a * b - b * 3 + a, [(3, 4), (3, 4)]),
    "broadcast_mul": (lambda a, b: a * b * b, [(3, 4), (4,)]),
    "mean_sum_axis": (lambda a, b: paddle.mean(a * b, axis=1) * paddle.sum(a, axis=1),
                      [(3, 4), (3, 4)]),
    "scale": (lambda a, b: paddle.scale(a * b, scale=3.0, bias=1.0) * a, [(2, 3), (2, 3)]),
    "matmul": (lambda a, b: paddle.matmul(a, b) * paddle.matmul(a, b), [(3, 4), (4, 2)]),
    "matmul_transposed": (lambda a, b: paddle.matmul(a, b, transpose_x=True, transpose_y=True)
                          * paddle.sum(a), [(4, 3), (2, 4)]),
    "batched_linear": (lambda a, w, b: F.linear(a, w, b) * F.linear(a, w, b),
                       [(2, 3, 4), (4, 2), (2,)]),
    "relu_mlp": (lambda a, w: paddle.matmul(F.relu(paddle.matmul(a, w)), w, transpose_y=True)
                 * a, [(3, 4), (4, 4)]),
    "tanh_sigmoid_mlp": (lambda a, w: F.sigmoid(paddle.matmul(paddle.tanh(paddle.matmul(a, w)),
                                                              w)), [(3, 4), (4, 4)]),
    "exp_log_square": (lambda a, b: paddle.exp(a * b) + paddle.log(paddle.square(a) + b * b)
                       + paddle.square(b), [(2, 3), (2, 3)]),
}


def _first_grad(fn, arrays, create_graph):
    ts = [paddle.to_tensor(a, stop_gradient=False) for a in arrays]
    grads = paddle.grad(paddle.sum(fn(*ts)), ts, create_graph=create_graph)
    return ts, grads


@pytest.mark.parametrize("case", sorted(DOUBLE_CASES))
def test_double_grad_matches_finite_differences(case):
    fn, shapes = DOUBLE_CASES[case]
    rng = np.random.default_rng(sum(map(ord, case)))
    arrays = [rng.uniform(0.2, 1.0, s) * rng.choice([-1, 1], s) for s in shapes]
    direction = [rng.standard_normal(s) for s in shapes]
    ts, grads = _first_grad(fn, arrays, create_graph=True)
    # d/dx_i of <grad f, direction>: the Hessian applied to the direction
    gv = paddle.add_n([paddle.sum(g * paddle.to_tensor(v)) for g, v in zip(grads, direction)])
    hv = paddle.grad(gv, ts)

    def directional(*arrs):
        return sum(float((g.numpy() * v).sum())
                   for g, v in zip(_first_grad(fn, list(arrs), False)[1], direction))
    for i, h in enumerate(hv):
        np.testing.assert_allclose(h.numpy(), _numeric_grad(directional, arrays, i),
                                   rtol=1e-5, atol=1e-6, err_msg=f"{case}: input {i}")


def test_setitem_values_and_errors():
    a = np.arange(24, dtype="float32").reshape(2, 3, 4)
    x, want = paddle.to_tensor(a), a.copy()
    for index, value in [(0, 1.0), ((slice(None), slice(1, 3)), np.full((2, 4), 7.0)),
                         ((-1, slice(None, None, 2)), np.array([[5.0], [6.0]])),
                         ((Ellipsis, 3), 9), ((1, 2, -1), paddle.to_tensor(-4.0)),
                         ((slice(None), 0), paddle.to_tensor(np.ones((4,), "float64"))),
                         (slice(None, None, -1), np.arange(4.0))]:
        x[index] = value
        given = np.asarray(getattr(value, "numpy", lambda: value)())
        want[index] = given.reshape(()) if given.ndim > np.ndim(want[index]) else given
        np.testing.assert_array_equal(x.numpy(), want, err_msg=repr(index))
    assert x.dtype == paddle.float32
    x[0, 0, 0] = paddle.to_tensor([8.0])  # a [1] value sets one element, as in Paddle
    assert x.numpy()[0, 0, 0] == 8
    i = paddle.to_tensor(np.array(3, "int32"))
    v = paddle.to_tensor(np.array([3, 4], "int64"))
    v[i - 2] = 7  # a one-value int tensor as the index
    np.testing.assert_array_equal(v.numpy(), [3, 7])
    with pytest.raises(ValueError):  # the value does not broadcast to the region
        x[0] = np.ones((2, 2))
    with pytest.raises(IndexError):
        x[5] = 1.0
    with pytest.raises(IndexError):  # an int-list (advanced) index out of range
        x[[0, 2]] = 1.0
    x[[1, 0]] = 1.0  # every element: as numpy (tests/test_setitem_advanced.py)
    assert (x.numpy() == 1).all()
    leaf = paddle.to_tensor(a, stop_gradient=False)
    with pytest.raises(ValueError, match="inplace"):
        leaf[0] = 1.0
    with paddle.no_grad():
        leaf[0] = 1.0  # allowed where nothing is recorded
    assert (leaf.numpy()[0] == 1).all()


def test_setitem_gradients_match_finite_differences():
    rng = np.random.default_rng(7)
    arrays = [rng.standard_normal((3, 4)), rng.standard_normal((2,)), rng.standard_normal((3, 4))]

    def scalar(*arrs):
        w, v, c = [paddle.to_tensor(a, stop_gradient=False) for a in arrs]
        y = w * 2
        y[1:, 1:3] = v * v  # broadcast over the rows
        y[0, -1] = paddle.sum(v)
        return paddle.sum(y * y * paddle.to_tensor(arrs[2])), (w, v)

    loss, (w, v) = scalar(*arrays)
    loss.backward()
    for i, t in enumerate((w, v)):
        numeric = _numeric_grad(lambda *a: scalar(*a)[0].item(), arrays, i)
        np.testing.assert_allclose(t.grad.numpy(), numeric, rtol=1e-5, atol=1e-6,
                                   err_msg=f"input {i}")


@pytest.mark.parametrize("make_opt", [
    lambda ps: paddle.optimizer.SGD(learning_rate=0.5, parameters=ps),
    lambda ps: paddle.optimizer.Adam(learning_rate=0.1, parameters=ps,
                                     weight_decay=paddle.regularizer.L2Decay(0.01))])
def test_step_writes_new_arrays_and_a_retained_tape_keeps_its_values(make_opt):
    """An update gives each parameter a new array (the old one, which the retained tape still
    reads, is never written), and the values equal the same steps through the static program
    the optimizer builds."""
    paddle.disable_static()
    rng = np.random.default_rng(4)
    lin = paddle.nn.Linear(3, 2)
    w0 = rng.standard_normal((3, 2)).astype("float32")
    lin.weight.set_value(w0)
    x = paddle.to_tensor(rng.standard_normal((5, 3)).astype("float32"))
    opt = make_opt(lin.parameters())
    loss = paddle.mean(lin(x) ** 2)
    loss.backward(retain_graph=True)
    g1 = lin.weight.grad.numpy()
    before = lin.weight.value()
    opt.step()
    assert lin.weight.value() is not before
    np.testing.assert_array_equal(before, w0)  # the old array is untouched
    assert not np.allclose(lin.weight.numpy(), w0)
    opt.clear_grad()
    loss.backward()  # the retained graph: the values of the forward, not the updated ones
    np.testing.assert_array_equal(lin.weight.grad.numpy(), g1)
    # Three more steps against the optimizer's update program run in a scope of its own
    for _ in range(3):
        w, b = lin.weight.numpy(), lin.bias.numpy()
        opt.clear_grad()
        paddle.mean(lin(x) ** 2).backward()
        grads = {p.name: p.grad.numpy() for p in lin.parameters()}
        opt.step()
        # SGD: w - lr * (g); the Adam case is pinned by Paddle's numbers elsewhere: here only
        # that each step moved every parameter and wrote nothing it was given
        if isinstance(opt, paddle.optimizer.SGD):
            np.testing.assert_allclose(lin.weight.numpy(), w - 0.5 * grads[lin.weight.name],
                                       rtol=1e-6)
            np.testing.assert_allclose(lin.bias.numpy(), b - 0.5 * grads[lin.bias.name],
                                       rtol=1e-6)
        assert not np.allclose(lin.weight.numpy(), w) and not np.allclose(lin.bias.numpy(), b)
