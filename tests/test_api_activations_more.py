"""paddle.nn.functional's hardtanh, hardshrink, softshrink, tanhshrink, thresholded_relu, celu,
glu, prelu and maxout (frontend/layers/api2/activations_more.py) and their paddle.nn Layers
(activation_layers_more.py): static programs against numpy forms of Paddle's formulas,
gradients against central differences, dygraph, real Paddle 3.3.1's numbers and the errors."""
import numpy as np
import pytest

import fluidc as paddle

F = paddle.nn.functional
nn = paddle.nn
RNG = np.random.default_rng(5)
F32 = np.float32


# --- numpy forms of Paddle's formulas (thresholds as Paddle's float32 attributes) -----------

def np_hardtanh(x, min=-1.0, max=1.0):  # noqa: A002
    return np.clip(x, F32(min), F32(max))


def np_hardshrink(x, threshold=0.5):
    return np.where(np.abs(x) >= F32(threshold), x, 0.0).astype(x.dtype)


def np_softshrink(x, threshold=0.5):
    t = F32(threshold)
    return np.where(x > t, x - t, np.where(x < -t, x + t, 0.0)).astype(x.dtype)


def np_tanhshrink(x):
    return x - np.tanh(x)


def np_thresholded_relu(x, threshold=1.0, value=0.0):
    return np.where(x > F32(threshold), x, F32(value)).astype(x.dtype)


def np_celu(x, alpha=1.0):
    return np.maximum(0, x) + np.minimum(0, alpha * (np.exp(x / alpha) - 1))


def np_glu(x, axis=-1):
    a, b = np.split(x, 2, axis=axis)
    return a / (1 + np.exp(-b))


def np_prelu(x, w, data_format="NCHW"):
    if w.size > 1 and data_format[1] == "C":
        w = w.reshape([-1] + [1] * (x.ndim - 2))
    return np.where(x > 0, x, w * x)


def np_maxout(x, groups, axis=1):
    axis = axis % 4
    shape = list(x.shape)
    shape[axis:axis + 1] = [shape[axis] // groups, groups]
    return x.reshape(shape).max(axis + 1)


# --- runners ---------------------------------------------------------------------------------

def run_static(fn, arrays, wrt=(), weight=None):
    """fn over static.data of arrays run by the Executor, then for each index in wrt the
    gradient of sum(out * weight) with respect to that array."""
    paddle.enable_static()
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        vs = [paddle.static.data(f"in{i}", list(a.shape), str(a.dtype))
              for i, a in enumerate(arrays)]
        out = fn(*vs)
        fetch, feed = [out], {f"in{i}": a for i, a in enumerate(arrays)}
        if wrt:
            for i in wrt:
                vs[i].stop_gradient = False
            w = paddle.static.data("w", list(weight.shape), str(weight.dtype))
            feed["w"] = weight
            fetch += paddle.static.gradients([paddle.sum(out * w)], [vs[i] for i in wrt])
    exe = paddle.static.Executor(paddle.CPUPlace())
    exe.run(startup)
    got = exe.run(main, feed=feed, fetch_list=fetch)
    paddle.disable_static()
    return got


def central_differences(f, arrays, wrt, weight, eps=1e-6):
    """d sum(f(*arrays) * weight) / d arrays[wrt], numerically (float64)."""
    grad = np.zeros_like(arrays[wrt])
    for i in np.ndindex(grad.shape):
        sums = []
        for step in (eps, -eps):
            args = [a.copy() for a in arrays]
            args[wrt][i] += step
            sums.append(np.sum(f(*args) * weight))
        grad[i] = (sums[0] - sums[1]) / (2 * eps)
    return grad


def away_from(x, points, gap=0.05):
    """x with entries within gap of any of points pushed off them (no kink inside a step)."""
    for p in points:
        near = np.abs(x - p) < gap
        x = np.where(near, p + np.where(x >= p, gap, -gap) * 2, x)
    return x


# --- forward against numpy -------------------------------------------------------------------

UNARY = [  # (fluidc call, numpy form, kinks for the gradient check)
    (lambda x: F.hardtanh(x), np_hardtanh, (-1.0, 1.0)),
    (lambda x: F.hardtanh(x, -0.5, 2.0), lambda x: np_hardtanh(x, -0.5, 2.0), (-0.5, 2.0)),
    (lambda x: F.hardshrink(x), np_hardshrink, (-0.5, 0.5)),
    (lambda x: F.hardshrink(x, 1.2), lambda x: np_hardshrink(x, 1.2), (-1.2, 1.2)),
    (lambda x: F.softshrink(x), np_softshrink, (-0.5, 0.5)),
    (lambda x: F.softshrink(x, 0.0), lambda x: np_softshrink(x, 0.0), (0.0,)),
    (lambda x: F.tanhshrink(x), np_tanhshrink, ()),
    (lambda x: F.thresholded_relu(x), np_thresholded_relu, (1.0,)),
    (lambda x: F.thresholded_relu(x, -0.3, 0.7), lambda x: np_thresholded_relu(x, -0.3, 0.7),
     (-0.3,)),
    (lambda x: F.celu(x), np_celu, (0.0,)),
    (lambda x: F.celu(x, 0.4), lambda x: np_celu(x, 0.4), (0.0,)),
    (lambda x: F.celu(x, -1.5), lambda x: np_celu(x, -1.5), (0.0,)),
    (lambda x: F.glu(x), np_glu, ()),
    (lambda x: F.glu(x, axis=0), lambda x: np_glu(x, 0), ()),
]
SHAPES = [(4, 6), (2, 4, 6), (6, 2)]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("case", range(len(UNARY)))
def test_forward_static(case, shape, dtype):
    fn, ref, kinks = UNARY[case]
    x = (RNG.uniform(-3, 3, shape)).astype(dtype)
    flat = x.reshape(-1)
    flat[:len(kinks)] = kinks  # the thresholds themselves
    (got,) = run_static(fn, [x])
    assert got.dtype == np.dtype(dtype)
    # float64 to 2e-7: celu's 1 / alpha is a float32 scale attribute
    np.testing.assert_allclose(got, ref(x), rtol=1e-6 if dtype == "float32" else 2e-7,
                               atol=1e-7)


@pytest.mark.parametrize("case", range(len(UNARY)))
def test_gradient_central_differences(case):
    fn, ref, kinks = UNARY[case]
    x = away_from(RNG.uniform(-3, 3, (4, 6)), kinks)
    w = RNG.uniform(-1, 1, ref(x).shape)
    _, grad = run_static(fn, [x], wrt=[0], weight=w)
    np.testing.assert_allclose(grad, central_differences(ref, [x], 0, w), rtol=1e-6,
                               atol=1e-8)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_threshold_edges_are_float32_attributes(dtype):
    """As Paddle's float32 attribute: a float64 0.3 is below hardshrink's 0.3, a float32 kept."""
    x = np.array([-0.3, 0.3, 0.7], dtype)
    (got,) = run_static(lambda v: F.hardshrink(v, 0.3), [x])
    kept = dtype == "float32"
    np.testing.assert_array_equal(got, np.array([-0.3, 0.3, 0.7], dtype) * [kept, kept, 1])


# --- prelu and maxout ------------------------------------------------------------------------

PRELU = [  # (x shape, weight shape, data_format)
    ((2, 3, 4, 5), (3,), "NCHW"), ((2, 4, 5, 3), (3,), "NHWC"), ((2, 3, 4, 5), (1,), "NCHW"),
    ((3, 4), (4,), "NC"), ((2, 3, 5), (3,), "NCL"), ((2, 5, 3), (3,), "NLC"),
    ((2, 3, 2, 2, 2), (3,), "NCDHW"), ((2, 2, 2, 2, 3), (3,), "NDHWC"), ((4, 5), (), "NCHW"),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", PRELU)
def test_prelu_static(case, dtype):
    shape, wshape, fmt = case
    x = RNG.uniform(-2, 2, shape).astype(dtype)
    x.reshape(-1)[0] = 0.0
    w = RNG.uniform(-1, 1, wshape).astype(dtype)
    (got,) = run_static(lambda a, b: F.prelu(a, b, data_format=fmt), [x, w])
    np.testing.assert_allclose(got, np_prelu(x, w, fmt), rtol=1e-6)


@pytest.mark.parametrize("case", [PRELU[0], PRELU[1], PRELU[2]])
def test_prelu_gradients(case):
    shape, wshape, fmt = case
    x = away_from(RNG.uniform(-2, 2, shape), (0.0,))
    w = RNG.uniform(-1, 1, wshape)
    out_w = RNG.uniform(-1, 1, shape)
    _, gx, gw = run_static(lambda a, b: F.prelu(a, b, data_format=fmt), [x, w], wrt=[0, 1],
                           weight=out_w)
    ref = lambda a, b: np_prelu(a, b, fmt)  # noqa: E731
    np.testing.assert_allclose(gx, central_differences(ref, [x, w], 0, out_w), rtol=1e-6,
                               atol=1e-8)
    np.testing.assert_allclose(gw, central_differences(ref, [x, w], 1, out_w), rtol=1e-6,
                               atol=1e-8)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape,groups,axis", [((2, 6, 3, 4), 2, 1), ((2, 6, 3, 4), 3, 1),
                                               ((2, 3, 4, 6), 3, -1), ((1, 2, 2, 4), 4, 3),
                                               ((2, 5, 1, 1), 1, 1)])
def test_maxout_static_and_gradient(shape, groups, axis, dtype):
    x = RNG.permutation(np.prod(shape)).reshape(shape).astype(dtype) / 7  # no ties
    w = RNG.uniform(-1, 1, np_maxout(x, groups, axis).shape)
    got, grad = run_static(lambda v: F.maxout(v, groups, axis), [x], wrt=[0],
                           weight=w.astype(dtype))
    np.testing.assert_allclose(got, np_maxout(x, groups, axis), rtol=1e-7)
    x64 = x.astype("float64")
    np.testing.assert_allclose(grad, central_differences(lambda v: np_maxout(v, groups, axis),
                                                         [x64], 0, w), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("x,groups,axis,out,grad", [
    # Paddle 3.3.1's values (dygraph): at a tie the gradient goes to the first maximal input
    ([1, 1, 0, 2, 3, 3], 2, 1, [1, 2, 3], [1, 0, 0, 1, 1, 0]),
    ([5, 5, 5, 0, 1, 1], 3, -1, [5, 1], [1, 0, 0, 0, 1, 0]),
])
def test_maxout_ties_send_the_gradient_to_the_first_maximum(x, groups, axis, out, grad):
    shape = (1, 6, 1, 1) if axis == 1 else (1, 1, 1, 6)
    xs = np.array(x, "float32").reshape(shape)
    got, got_grad = run_static(lambda v: F.maxout(v, groups, axis), [xs], wrt=[0],
                               weight=np.ones(np_maxout(xs, groups, axis).shape, "float32"))
    np.testing.assert_array_equal(got.ravel(), out)
    np.testing.assert_array_equal(got_grad.ravel(), grad)


# --- real Paddle 3.3.1 ----------------------------------------------------------------------

EDGES = np.array([-2.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0], "float32")
MAXOUT_X = np.array([[[[1., 5.]], [[3., 2.]], [[-1., 0.]], [[4., 4.5]]]], "float32")
PADDLE = [  # (call, Paddle 3.3.1 dygraph output, Paddle 3.3.1 gradient of out.sum())
    (F.hardtanh, EDGES, [-1.0, -1.0, -0.5, 0.0, 0.5, 1.0, 1.0],
     [0.0, 0.0, 1.0, 1.0, 1.0, 0.0, 0.0]),
    (F.hardshrink, EDGES, [-2.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0],
     [1.0, 1.0, 1.0, 0.0, 1.0, 1.0, 1.0]),
    (F.softshrink, EDGES, [-1.5, -0.5, 0.0, 0.0, 0.0, 0.5, 1.5],
     [1.0, 1.0, 0.0, 0.0, 0.0, 1.0, 1.0]),
    (F.tanhshrink, EDGES, [-1.0359723567962646, -0.23840582370758057, -0.037882834672927856,
                           0.0, 0.037882834672927856, 0.23840582370758057, 1.0359723567962646],
     [0.9293491840362549, 0.5800256729125977, 0.21355228126049042, 0.0, 0.21355228126049042,
      0.5800256729125977, 0.9293491840362549]),
    (lambda t: F.thresholded_relu(t, 1.0, 0.3), EDGES, [0.3] * 6 + [2.0], [0.0] * 6 + [1.0]),
    (lambda t: F.celu(t, 0.7), EDGES,
     [-0.659797191619873, -0.5322442650794983, -0.3573208451271057, 0.0, 0.5, 1.0, 2.0],
     [0.057432614266872406, 0.23965102434158325, 0.4895416498184204, 1.0, 1.0, 1.0, 1.0]),
    (lambda t: F.celu(t, -0.7), EDGES,
     [-11.48819637298584, -2.220913887023926, -0.7299088835716248, 0.0, 0.5, 1.0, 2.0],
     [17.41170883178711, 4.172734260559082, 2.042726993560791, 1.0, 1.0, 1.0, 1.0]),
    (F.glu, EDGES[:6].reshape(1, 6), [[-1.0, -0.622459352016449, -0.36552929878234863]],
     [[0.5, 0.622459352016449, 0.7310585975646973, -0.5, -0.23500370979309082,
       -0.09830596297979355]]),
    (lambda t: F.maxout(t, 2), MAXOUT_X, [[[[3.0, 5.0]], [[4.0, 4.5]]]],
     [[[[0.0, 1.0]], [[1.0, 0.0]], [[0.0, 0.0]], [[1.0, 1.0]]]]),
]


@pytest.mark.parametrize("i", range(len(PADDLE)))
def test_matches_paddle_3_3_1_dygraph(i):
    fn, x, expected, expected_grad = PADDLE[i]
    t = paddle.to_tensor(x, stop_gradient=False)
    out = fn(t)
    out.sum().backward()
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(t.grad.numpy(), expected_grad, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("i", range(len(PADDLE)))
def test_matches_paddle_3_3_1_static(i):
    fn, x, expected, _ = PADDLE[i]
    (got,) = run_static(fn, [x])
    np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-7)


def test_prelu_matches_paddle_3_3_1():
    x = paddle.to_tensor(np.arange(-6, 6, dtype="float32").reshape(1, 4, 3) / 4,
                         stop_gradient=False)
    w = paddle.to_tensor(np.array([0.1, 0.2, -0.3, 0.4], "float32"), stop_gradient=False)
    y = F.prelu(x, w)
    (y * y).sum().backward()
    # Paddle 3.3.1's values
    np.testing.assert_allclose(y.numpy(), [[[-0.15, -0.125, -0.1], [-0.15, -0.1, -0.05],
                                            [0.0, 0.25, 0.5], [0.75, 1.0, 1.25]]], rtol=1e-6)
    np.testing.assert_allclose(x.grad.numpy(), [[[-0.03, -0.025, -0.02], [-0.06, -0.04, -0.02],
                                                 [0.0, 0.5, 1.0], [1.5, 2.0, 2.5]]],
                               rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(w.grad.numpy(), [0.9625000357627869, 0.3500000238418579, 0, 0],
                               rtol=1e-6)


# --- Layers ----------------------------------------------------------------------------------

@pytest.mark.parametrize("layer,fn", [
    (lambda: nn.Hardtanh(-0.5, 0.5), lambda x: np_hardtanh(x, -0.5, 0.5)),
    (lambda: nn.Hardshrink(), np_hardshrink),
    (lambda: nn.Softshrink(threshold=0.2), lambda x: np_softshrink(x, 0.2)),
    (lambda: nn.Tanhshrink(), np_tanhshrink),
    (lambda: nn.ThresholdedReLU(0.5, value=-1.0), lambda x: np_thresholded_relu(x, 0.5, -1.0)),
    (lambda: nn.CELU(alpha=2.0), lambda x: np_celu(x, 2.0)),
    (lambda: nn.GLU(axis=1), lambda x: np_glu(x, 1)),
    (lambda: nn.Maxout(2), lambda x: np_maxout(x, 2)),
    (lambda: nn.Maxout(3, axis=-1), lambda x: np_maxout(x, 3, -1)),
])
def test_layers_dygraph_and_static(layer, fn):
    x = RNG.uniform(-2, 2, (2, 6, 3, 6)).astype("float32")
    # atol: tanhshrink's x - tanh(x) cancels near 0
    np.testing.assert_allclose(layer()(paddle.to_tensor(x)).numpy(), fn(x), rtol=1e-6,
                               atol=1e-7)
    (got,) = run_static(lambda v: layer()(v), [x])
    np.testing.assert_allclose(got, fn(x), rtol=1e-6, atol=1e-7)


def test_prelu_layer_parameter_and_training():
    layer = nn.PReLU(num_parameters=3, init=0.1, data_format="NHWC")
    assert [n for n, _ in layer.named_parameters()] == ["_weight"]
    np.testing.assert_array_equal(layer._weight.numpy(), np.full(3, 0.1, "float32"))
    assert list(layer.state_dict()) == ["_weight"]
    opt = paddle.optimizer.SGD(learning_rate=0.5, parameters=layer.parameters())
    x = RNG.uniform(-2, 2, (4, 2, 3)).astype("float32")
    target = np_prelu(x, np.array([0.3, -0.2, 0.6], "float32"), "NHWC")
    losses = []
    for _ in range(60):
        loss = ((layer(paddle.to_tensor(x)) - paddle.to_tensor(target)) ** 2).mean()
        loss.backward()
        opt.step()
        opt.clear_grad()
        losses.append(float(loss.numpy()))
    assert losses[-1] < 1e-3 * losses[0]
    np.testing.assert_allclose(layer._weight.numpy(), [0.3, -0.2, 0.6], atol=1e-3)


def test_prelu_layer_static_trains():
    paddle.enable_static()
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [4, 2, 3], "float32")
        layer = nn.PReLU(2, weight_attr=paddle.ParamAttr(
            initializer=paddle.nn.initializer.Constant(0.5)))
        loss = paddle.mean(layer(x) * layer(x))
        paddle.optimizer.SGD(learning_rate=0.1).minimize(loss)
    exe = paddle.static.Executor(paddle.CPUPlace())
    exe.run(startup)
    x_np = -np.ones((4, 2, 3), "float32")
    first = exe.run(main, feed={"x": x_np}, fetch_list=[loss])[0]
    second = exe.run(main, feed={"x": x_np}, fetch_list=[loss])[0]
    paddle.disable_static()
    # mean(w^2) with x = -1: w 0.5 -> 0.5 - 0.1 * 2 * 0.5 / 2 (per-channel mean weight 1/2)
    np.testing.assert_allclose(first, 0.25, rtol=1e-6)
    np.testing.assert_allclose(second, 0.45 ** 2, rtol=1e-6)


# --- errors ----------------------------------------------------------------------------------

def test_errors():
    x = paddle.to_tensor(np.zeros((2, 4, 3, 3), "float32"))
    with pytest.raises(ValueError, match="threshold must be no less than zero. Received: -1"):
        F.softshrink(x, -1.0)
    with pytest.raises(ZeroDivisionError, match="alpha cannot be 0 for celu"):
        F.celu(x, 0.0)
    with pytest.raises(ValueError, match=r"Expected value range of `axis` is \[-4, 4\)"):
        F.glu(x, axis=4)
    with pytest.raises(ValueError, match="must be even"):
        F.glu(x, axis=2)
    with pytest.raises(ValueError, match="divisible by Attr\\(groups\\)"):
        F.maxout(x, 3)
    with pytest.raises(ValueError, match="Attr\\(axis\\) should be 1"):
        F.maxout(x, 2, axis=2)
    with pytest.raises(ValueError, match="weight size should be equal to x input channel"):
        F.prelu(x, paddle.to_tensor(np.ones([3], "float32")))
    with pytest.raises(ValueError, match="data_format must be one of"):
        F.prelu(x, paddle.to_tensor(np.ones([4], "float32")), data_format="CHWN")
    with pytest.raises(ValueError, match="dim count of weight"):
        F.prelu(x, paddle.to_tensor(np.ones([2, 2], "float32")))
    with pytest.raises(TypeError):
        nn.Maxout()
    ints = paddle.to_tensor(np.zeros((2, 4), "int32"))
    for fn in (F.hardtanh, F.hardshrink, F.softshrink, F.tanhshrink, F.thresholded_relu,
               F.celu, F.glu):
        with pytest.raises(TypeError):
            fn(ints)
    with pytest.raises(TypeError):
        F.prelu(ints, paddle.to_tensor(np.ones([1], "float32")))


def test_static_dtype_error_message():
    paddle.enable_static()
    try:
        with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):
            x = paddle.static.data("x", [2, 3], "int64")
            with pytest.raises(TypeError, match="hardshrink"):
                F.hardshrink(x)
    finally:
        paddle.disable_static()


# --- log_loss and dice_loss ------------------------------------------------------------------

def np_log_loss(p, y, epsilon=1e-4):
    return -y * np.log(p + epsilon) - (1 - y) * np.log(1 - p + epsilon)


def np_dice(p, label, epsilon=1e-5):
    one_hot = np.eye(p.shape[-1])[label[..., 0]]
    dims = tuple(range(1, p.ndim))
    inse = (p * one_hot).sum(dims)
    return np.mean(1 - 2 * inse / (p.sum(dims) + one_hot.sum(dims) + epsilon))


@pytest.mark.parametrize("shape", [(5, 1), (3, 4)])
def test_log_loss_static_and_gradient(shape):
    p = RNG.uniform(0.05, 0.95, shape).astype("float32")
    y = RNG.integers(0, 2, shape).astype("float32")
    w = RNG.uniform(-1, 1, shape).astype("float32")
    got, grad = run_static(lambda a, b: F.log_loss(a, b, epsilon=1e-3), [p, y], wrt=[0],
                           weight=w)
    np.testing.assert_allclose(got, np_log_loss(p, y, 1e-3), rtol=1e-5)
    numeric = central_differences(lambda a, b: np_log_loss(a, b, 1e-3),
                                  [p.astype("float64"), y.astype("float64")], 0, w)
    np.testing.assert_allclose(grad, numeric, rtol=1e-5)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(4, 3), (2, 3, 5), (2, 2, 2, 4)])
def test_dice_loss_static_and_gradient(shape, dtype):
    p = RNG.uniform(0, 1, shape).astype(dtype)
    label = RNG.integers(0, shape[-1], shape[:-1] + (1,)).astype("int64")
    got, grad = run_static(lambda a, b: F.dice_loss(a, b), [p, label], wrt=[0],
                           weight=np.array(1.0, dtype))
    np.testing.assert_allclose(got, np_dice(p, label), rtol=1e-6)
    numeric = central_differences(np_dice, [p.astype("float64"), label], 0, 1.0)
    np.testing.assert_allclose(grad, numeric, rtol=1e-5, atol=1e-7)


def test_losses_match_paddle_3_3_1():
    p = paddle.to_tensor(np.array([[0.2], [0.9], [0.0]], "float32"))
    y = paddle.to_tensor(np.array([[1.0], [0.0], [1.0]], "float32"))
    # Paddle 3.3.1's values
    np.testing.assert_allclose(F.log_loss(p, y).numpy(),
                               [[1.6089379787445068], [2.3015854358673096], [9.21034049987793]],
                               rtol=1e-6)
    probs = paddle.to_tensor(np.array([[0.2, 0.3, 0.5], [0.7, 0.1, 0.2]], "float32"))
    np.testing.assert_allclose(
        F.dice_loss(probs, paddle.to_tensor(np.array([[2], [0]], "int64"))).numpy(),
        0.40000301599502563, rtol=1e-6)  # Paddle 3.3.1's value


def test_loss_errors():
    p = paddle.to_tensor(np.full((2, 3), 0.5, "float32"))
    with pytest.raises(TypeError):
        F.log_loss(p.astype("float64"), p.astype("float64"))
    with pytest.raises(ValueError, match="last dimension of label should be 1"):
        F.dice_loss(p, paddle.to_tensor(np.zeros((2, 3), "int64")))
    with pytest.raises(ValueError, match="rank of input and label should be equal"):
        F.dice_loss(p, paddle.to_tensor(np.zeros((2, 1, 1), "int64")))
    with pytest.raises(TypeError):
        F.dice_loss(p, paddle.to_tensor(np.zeros((2, 1), "float32")))
