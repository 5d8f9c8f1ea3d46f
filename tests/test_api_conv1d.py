"""paddle.nn.functional's conv1d, max_pool1d, avg_pool1d, adaptive_avg_pool1d and
adaptive_max_pool1d (frontend/layers/api2/conv1d.py) and paddle.nn's Conv1D, MaxPool1D,
AvgPool1D, AdaptiveAvgPool1D and AdaptiveMaxPool1D (conv1d_layers.py): static programs against
numpy references, conv1d's gradients against central differences, dygraph, the Layers (Conv1D
trained one SGD step), real Paddle 3.3.1's numbers and the argument errors."""
import math

import numpy as np
import pytest

import fluidc as paddle
from test_api_activations_more import central_differences, run_static

F = paddle.nn.functional
nn = paddle.nn
RNG = np.random.default_rng(7)


# --- numpy references (NCL) ------------------------------------------------------------------

def _same(length, k, s):
    """Paddle's 'SAME' (before, after) padding; its dilation is then 1."""
    total = max((math.ceil(length / s) - 1) * s + k - length, 0)
    return total // 2, total - total // 2


def np_conv1d(x, w, b=None, stride=1, padding=(0, 0), dilation=1, groups=1):
    k = w.shape[2]
    if padding == "SAME":
        padding, dilation = _same(x.shape[2], k, stride), 1
    xp = np.pad(x, [(0, 0), (0, 0), tuple(padding)])
    n_out = (xp.shape[2] - (k - 1) * dilation - 1) // stride + 1
    cin, cout = w.shape[1], w.shape[0] // groups
    out = np.zeros((x.shape[0], w.shape[0], n_out))
    for o in range(w.shape[0]):
        g = o // cout
        for i in range(n_out):
            win = xp[:, g * cin:(g + 1) * cin, i * stride:i * stride + (k - 1) * dilation + 1:
                     dilation]
            out[:, o, i] = np.einsum("nck,ck->n", win, w[o])
    return out if b is None else out + b[None, :, None]


def np_pool1d(x, kind, k, s=None, padding=(0, 0), ceil_mode=False, exclusive=True):
    s = s or k
    if padding == "SAME":
        padding = _same(x.shape[2], k, s)
    length, (before, after) = x.shape[2], padding
    span = length + before + after - k
    n_out = (span + s - 1) // s + 1 if ceil_mode else span // s + 1
    out = np.zeros(x.shape[:2] + (n_out,))
    for i in range(n_out):
        start = i * s - before
        lo, hi = max(start, 0), min(start + k, length)
        # inclusive: Paddle counts the window's cells inside the padded input (a ceil_mode
        # window past the padding counts fewer than k; the tests' such paddings are symmetric)
        count = hi - lo if exclusive else min(start + k, length + after) - start
        win = x[:, :, lo:hi]
        out[:, :, i] = win.max(2) if kind == "max" else win.sum(2) / count
    return out


def np_adaptive1d(x, kind, n):
    length = x.shape[2]
    cols = [x[:, :, i * length // n:-(-(i + 1) * length // n)] for i in range(n)]
    return np.stack([c.max(2) if kind == "max" else c.mean(2) for c in cols], 2)


def nlc(fn):
    """fn of NCL arrays as one of NLC arrays."""
    return lambda x, *a: fn(x.transpose(0, 2, 1), *a).transpose(0, 2, 1)


# --- conv1d: static mode against numpy, gradients ----------------------------------------------

CONV = [  # (x shape (NCL), weight shape, fluidc kwargs, numpy kwargs)
    ((2, 3, 9), (4, 3, 3), {}, {}),
    ((2, 3, 9), (4, 3, 3), dict(stride=2, padding=1), dict(stride=2, padding=(1, 1))),
    ((1, 4, 10), (6, 2, 3), dict(padding=[2, 1], dilation=2, groups=2),
     dict(padding=(2, 1), dilation=2, groups=2)),
    ((2, 2, 8), (3, 2, 4), dict(stride=3, padding="SAME"), dict(stride=3, padding="SAME")),
    ((2, 2, 8), (3, 2, 2), dict(padding="valid", stride=[2]), dict(stride=2)),
    ((1, 3, 7), (3, 1, 3), dict(padding=[[0, 0], [0, 0], [1, 2]], groups=3),
     dict(padding=(1, 2), groups=3)),
]


@pytest.mark.parametrize("i", range(len(CONV)))
@pytest.mark.parametrize("data_format", ["NCL", "NLC"])
def test_conv1d_static(i, data_format):
    xs, ws, kw, ref_kw = CONV[i]
    x, w, b = RNG.normal(size=xs), RNG.normal(size=ws), RNG.normal(size=ws[0])
    if data_format == "NLC" and isinstance(kw.get("padding"), list) and \
            isinstance(kw["padding"][0], list):
        kw = dict(kw, padding=[[0, 0], [1, 2], [0, 0]])
    ref = np_conv1d(x, w, b, **ref_kw)
    if data_format == "NLC":
        x, ref = x.transpose(0, 2, 1), ref.transpose(0, 2, 1)
    (got,) = run_static(lambda xv, wv, bv: F.conv1d(xv, wv, bv, data_format=data_format, **kw),
                        [x, w, b])
    np.testing.assert_allclose(got, ref, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("data_format", ["NCL", "NLC"])
def test_conv1d_gradients(data_format):
    x, w = RNG.normal(size=(2, 4, 6)), RNG.normal(size=(2, 2, 3))
    ref = lambda a, b: np_conv1d(a, b, None, 2, (1, 0), 1, 2)  # noqa: E731
    if data_format == "NLC":
        x, ref = x.transpose(0, 2, 1), nlc(ref)
    weight = RNG.uniform(0.5, 1.5, ref(x, w).shape)
    got = run_static(lambda xv, wv: F.conv1d(xv, wv, stride=2, padding=[1, 0], groups=2,
                                             data_format=data_format), [x, w], (0, 1), weight)
    np.testing.assert_allclose(got[0], ref(x, w), rtol=1e-10, atol=1e-12)
    for wrt in (0, 1):
        np.testing.assert_allclose(got[1 + wrt], central_differences(ref, [x, w], wrt, weight),
                                   rtol=1e-6, atol=1e-8)


# --- pooling: static mode against numpy ----------------------------------------------------------

POOLS = [  # (fluidc call, numpy reference)
    (lambda v: F.max_pool1d(v, 3), lambda a: np_pool1d(a, "max", 3)),
    (lambda v: F.max_pool1d(v, 3, 2, 1, ceil_mode=True),
     lambda a: np_pool1d(a, "max", 3, 2, (1, 1), True)),
    (lambda v: F.max_pool1d(v, [2], stride=1, padding=[1, 0]),
     lambda a: np_pool1d(a, "max", 2, 1, (1, 0))),
    (lambda v: F.max_pool1d(v, 4, 3, "SAME"), lambda a: np_pool1d(a, "max", 4, 3, "SAME")),
    (lambda v: F.avg_pool1d(v, 3, 2, 1), lambda a: np_pool1d(a, "avg", 3, 2, (1, 1))),
    (lambda v: F.avg_pool1d(v, 3, 2, 1, exclusive=False, ceil_mode=True),
     lambda a: np_pool1d(a, "avg", 3, 2, (1, 1), True, False)),
    (lambda v: F.avg_pool1d(v, 2, padding="VALID"), lambda a: np_pool1d(a, "avg", 2)),
    (lambda v: F.avg_pool1d(v, 3, 1, [[0, 0], [0, 0], [2, 2]], exclusive=False),
     lambda a: np_pool1d(a, "avg", 3, 1, (2, 2), exclusive=False)),
    (lambda v: F.adaptive_avg_pool1d(v, 4), lambda a: np_adaptive1d(a, "avg", 4)),
    (lambda v: F.adaptive_avg_pool1d(v, [3]), lambda a: np_adaptive1d(a, "avg", 3)),
    (lambda v: F.adaptive_max_pool1d(v, 4), lambda a: np_adaptive1d(a, "max", 4)),
    (lambda v: F.adaptive_max_pool1d(v, 1), lambda a: np_adaptive1d(a, "max", 1)),
]


@pytest.mark.parametrize("i", range(len(POOLS)))
@pytest.mark.parametrize("length", [7, 10])
def test_pools_static(i, length):
    fn, ref = POOLS[i]
    x = RNG.normal(size=(2, 3, length))
    (got,) = run_static(fn, [x])
    np.testing.assert_allclose(got, ref(x), rtol=1e-12, atol=1e-12)


def test_max_pool1d_mask():
    x = RNG.normal(size=(2, 3, 9))
    paddle.enable_static()
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        v = paddle.static.data("x", [2, 3, 9], "float64")
        outs = F.max_pool1d(v, 3, 2, 1, return_mask=True)
    exe = paddle.static.Executor(paddle.CPUPlace())
    out, mask = exe.run(main, feed={"x": x}, fetch_list=list(outs))
    paddle.disable_static()
    np.testing.assert_allclose(out, np_pool1d(x, "max", 3, 2, (1, 1)))
    np.testing.assert_array_equal(np.take_along_axis(x, mask.astype("int64"), 2), out)


def test_avg_pool1d_gradient():
    x = RNG.normal(size=(1, 2, 7))
    ref = lambda a: np_pool1d(a, "avg", 3, 2, (1, 1))  # noqa: E731
    weight = RNG.uniform(0.5, 1.5, ref(x).shape)
    got = run_static(lambda v: F.avg_pool1d(v, 3, 2, 1), [x], (0,), weight)
    np.testing.assert_allclose(got[1], central_differences(ref, [x], 0, weight), rtol=1e-6,
                               atol=1e-8)


# --- dygraph -------------------------------------------------------------------------------------

def test_dygraph_values_and_conv1d_gradient():
    paddle.disable_static()
    x, w, b = RNG.normal(size=(2, 4, 9)), RNG.normal(size=(6, 2, 3)), RNG.normal(size=6)
    xt, wt = paddle.to_tensor(x, stop_gradient=False), paddle.to_tensor(w, stop_gradient=False)
    out = F.conv1d(xt, wt, paddle.to_tensor(b), stride=2, padding=1, groups=2)
    ref = lambda a, c: np_conv1d(a, c, b, 2, (1, 1), 1, 2)  # noqa: E731
    np.testing.assert_allclose(out.numpy(), ref(x, w), rtol=1e-10, atol=1e-12)
    weight = RNG.uniform(0.5, 1.5, out.shape)
    paddle.sum(out * paddle.to_tensor(weight)).backward()
    for t, wrt in ((xt, 0), (wt, 1)):
        np.testing.assert_allclose(t.grad.numpy(), central_differences(ref, [x, w], wrt, weight),
                                   rtol=1e-6, atol=1e-8)
    for fn, ref in POOLS:
        np.testing.assert_allclose(fn(paddle.to_tensor(x)).numpy(), ref(x), rtol=1e-12)


# --- real Paddle 3.3.1 ---------------------------------------------------------------------------

PX = np.array([[[0.0, 0.9636, 0.5155, -0.6878, -0.8835, 0.2151, 0.9985],
                [0.3191, -0.8278, -0.762, 0.4202, 0.9868, 0.1078, -0.9291]]])
PW = np.array([[[1.0, 0.7648, 0.17]], [[-0.5048, -0.9422, -0.9365]],
               [[-0.4903, 0.1865, 0.7756]], [[0.9999, 0.7539, 0.1534]]])
PB = np.array([0.1, -0.2, 0.3, -0.4])
# Paddle 3.3.1's values (dygraph, float64, paddle.nn.functional.<fn>(...).numpy().round(6))
PADDLE_3_3_1 = [
    (lambda x, w, b: F.conv1d(x, w, b, stride=2, padding=[1, 2], groups=2),
     [[[0.263812, 1.340928, -1.226934, 1.078753], [-1.102411, -0.528005, 0.778194, -1.249369],
       [-0.28253, 0.889664, 0.361624, 0.073869], [-0.286415, -1.73773, 0.780643, -0.992659]]]),
    (lambda x, w, b: F.conv1d(paddle.transpose(x, [0, 2, 1]), w, padding="SAME", dilation=2,
                              groups=2, data_format="NLC"),
     [[[0.163812, -0.902411, -0.58253, 0.113585], [0.824596, -1.39067, -0.901847, -0.421901],
       [1.240928, -0.328005, 0.589664, -1.33773], [-0.160724, 1.215219, 1.217338, -0.29376],
       [-1.326934, 0.978194, 0.061624, 1.180643], [-0.549247, -0.691772, -1.184333, 0.925448],
       [0.978753, -1.049369, -0.226131, -0.592659]]]),
    (lambda x, w, b: F.max_pool1d(x, 3, 2, 1, return_mask=True, ceil_mode=True)[0],
     [[[0.9636, 0.9636, 0.2151, 0.9985], [0.3191, 0.4202, 0.9868, 0.1078]]]),
    (lambda x, w, b: F.max_pool1d(x, 3, 2, 1, return_mask=True, ceil_mode=True)[1],
     [[[1, 1, 5, 6], [0, 3, 4, 5]]]),
    (lambda x, w, b: F.avg_pool1d(x, 3, 2, 1, exclusive=False, ceil_mode=True),
     [[[0.3212, 0.263767, -0.452067, 0.404533], [-0.169567, -0.389867, 0.504933, -0.273767]]]),
    (lambda x, w, b: F.avg_pool1d(x, 3, 2, 1),
     [[[0.4818, 0.263767, -0.452067, 0.6068], [-0.25435, -0.389867, 0.504933, -0.41065]]]),
    (lambda x, w, b: F.adaptive_avg_pool1d(x, 3),
     [[[0.493033, -0.351933, 0.110033], [-0.423567, 0.215, 0.055167]]]),
    (lambda x, w, b: F.adaptive_max_pool1d(x, 3),
     [[[0.9636, 0.5155, 0.9985], [0.3191, 0.9868, 0.9868]]]),
]


@pytest.mark.parametrize("i", range(len(PADDLE_3_3_1)))
def test_matches_paddle_3_3_1(i):
    fn, expected = PADDLE_3_3_1[i]
    paddle.disable_static()
    got = fn(*[paddle.to_tensor(a) for a in (PX, PW, PB)]).numpy()
    np.testing.assert_allclose(got, expected, rtol=0, atol=6e-7)
    (got,) = run_static(fn, [PX, PW, PB])
    np.testing.assert_allclose(got, expected, rtol=0, atol=6e-7)


def test_avg_pool1d_ceil_window_past_padding_matches_paddle_3_3_1():
    x = np.arange(10.0).reshape(1, 1, 10)
    # Paddle 3.3.1's value (dygraph): the last window holds x[9] and one padding cell
    expected = [[[0.33333333, 2.0, 4.0, 6.0, 8.0, 4.5]]]
    fn = lambda v: F.avg_pool1d(v, 3, 2, 1, exclusive=False, ceil_mode=True)  # noqa: E731
    np.testing.assert_allclose(run_static(fn, [x])[0], expected, rtol=1e-7)
    paddle.disable_static()
    np.testing.assert_allclose(fn(paddle.to_tensor(x)).numpy(), expected, rtol=1e-7)


# --- the Layer classes ---------------------------------------------------------------------------

LAYERS = [  # (Layer, numpy reference)
    (lambda: nn.MaxPool1D(3, 2, padding=1), lambda a: np_pool1d(a, "max", 3, 2, (1, 1))),
    (lambda: nn.AvgPool1D(3, stride=2, padding=1, exclusive=False),
     lambda a: np_pool1d(a, "avg", 3, 2, (1, 1), exclusive=False)),
    (lambda: nn.AdaptiveAvgPool1D(3), lambda a: np_adaptive1d(a, "avg", 3)),
    (lambda: nn.AdaptiveMaxPool1D(output_size=4), lambda a: np_adaptive1d(a, "max", 4)),
]


@pytest.mark.parametrize("i", range(len(LAYERS)))
def test_pool_layers(i):
    make, ref = LAYERS[i]
    x = RNG.normal(size=(2, 3, 9))
    assert isinstance(make(), nn.Layer)
    (got,) = run_static(lambda v: make()(v), [x])
    np.testing.assert_allclose(got, ref(x), rtol=1e-12)
    paddle.disable_static()
    np.testing.assert_allclose(make()(paddle.to_tensor(x)).numpy(), ref(x), rtol=1e-12)


def test_conv1d_layer_parameters_and_dygraph():
    paddle.disable_static()
    layer = nn.Conv1D(4, 6, 3, stride=2, padding=1, groups=2, data_format="NLC")
    assert layer.weight.shape == [6, 2, 3] and layer.bias.shape == [6]
    assert [n for n, _ in layer.named_parameters()] == ["weight", "bias"]
    x = RNG.normal(size=(2, 8, 4)).astype("float32")
    ref = nlc(lambda a: np_conv1d(a, layer.weight.numpy(), layer.bias.numpy(), 2, (1, 1), 1, 2))
    np.testing.assert_allclose(layer(paddle.to_tensor(x)).numpy(), ref(x), rtol=1e-5,
                               atol=1e-6)
    assert nn.Conv1D(4, 6, 3, bias_attr=False).bias is None


def test_conv1d_layer_static_sgd_step():
    x = RNG.normal(size=(2, 3, 8)).astype("float32")
    w0, b0 = (RNG.normal(size=(4, 3, 3)).astype("float32"),
              RNG.normal(size=4).astype("float32"))
    g = RNG.uniform(0.5, 1.5, (2, 4, 4)).astype("float32")
    paddle.enable_static()
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        xv = paddle.static.data("x", [2, 3, 8], "float32")
        gv = paddle.static.data("g", [2, 4, 4], "float32")
        layer = nn.Conv1D(3, 4, 3, stride=2, padding=[1, 0], weight_attr=paddle.ParamAttr(
            initializer=nn.initializer.Assign(w0)), bias_attr=paddle.ParamAttr(
            initializer=nn.initializer.Assign(b0)))
        out = layer(xv)
        loss = paddle.sum(out * gv)
        paddle.optimizer.SGD(learning_rate=0.1).minimize(loss)
    exe = paddle.static.Executor(paddle.CPUPlace())
    exe.run(startup)
    (got,) = exe.run(main, feed={"x": x, "g": g}, fetch_list=[out])
    scope = paddle.static.global_scope()
    w1 = np.array(scope.find_var(layer.weight.name).get_tensor())
    b1 = np.array(scope.find_var(layer.bias.name).get_tensor())
    paddle.disable_static()
    x64, w64 = x.astype("float64"), w0.astype("float64")
    ref = lambda a, w: np_conv1d(a, w, None, 2, (1, 0))  # noqa: E731
    np.testing.assert_allclose(got, ref(x64, w64) + b0[None, :, None], rtol=1e-5, atol=1e-5)
    dw = central_differences(ref, [x64, w64], 1, g.astype("float64"))
    np.testing.assert_allclose(w1, w0 - 0.1 * dw, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(b1, b0 - 0.1 * g.sum((0, 2)), rtol=1e-5, atol=1e-5)


def test_exported():
    for name in ("conv1d", "max_pool1d", "avg_pool1d", "adaptive_avg_pool1d",
                 "adaptive_max_pool1d"):
        assert callable(getattr(F, name))
    for name in ("Conv1D", "MaxPool1D", "AvgPool1D", "AdaptiveAvgPool1D", "AdaptiveMaxPool1D"):
        assert issubclass(getattr(nn, name), nn.Layer)


# --- argument errors ------------------------------------------------------------------------------

def _d(shape, dtype="float32"):
    return paddle.static.data(f"d{RNG.integers(1 << 30)}", list(shape), dtype)


ERRORS = [  # (call, error type) -- Paddle 3.3.1's types for the same calls
    (lambda: F.conv1d(_d((2, 3, 8)), _d((4, 3, 3)), data_format="NCHW"), ValueError),
    (lambda: F.conv1d(_d((2, 3, 8, 1)), _d((4, 3, 3))), ValueError),
    (lambda: F.conv1d(_d((2, 3, 8), "int32"), _d((4, 3, 3), "int32")), TypeError),
    (lambda: F.conv1d(_d((2, 3, 8)), _d((4, 3, 3)), groups=0), ValueError),
    (lambda: F.conv1d(_d((2, 3, 8)), _d((4, 1, 3)), groups=2), ValueError),
    (lambda: F.conv1d(_d((2, 4, 8)), _d((3, 2, 3)), groups=2), ValueError),
    (lambda: F.conv1d(_d((2, 3, 8)), _d((4, 3, 3)), padding=-1), ValueError),
    (lambda: F.conv1d(_d((2, 3, 8)), _d((4, 3, 3)), padding="FULL"), ValueError),
    (lambda: F.conv1d(_d((2, 3, 8)), _d((4, 3, 3)), padding=[1, 2, 3]), ValueError),
    (lambda: F.conv1d(_d((2, 3, 8)), _d((4, 3, 3)), padding=[[0, 1], [0, 0], [1, 1]]),
     ValueError),
    (lambda: F.conv1d(_d((2, 3, 8)), _d((4, 3, 3)), stride=[1, 2]), ValueError),
    (lambda: F.max_pool1d(_d((2, 3)), 2), ValueError),
    (lambda: F.max_pool1d(_d((2, 3, 8), "int32"), 2), TypeError),
    (lambda: F.max_pool1d(_d((2, 3, 8)), 0), ValueError),
    (lambda: F.max_pool1d(_d((2, 3, 8)), 2, padding="VALID", ceil_mode=True), ValueError),
    (lambda: F.avg_pool1d(_d((2, 3, 8)), 2, stride=[1, 1]), ValueError),
    (lambda: F.avg_pool1d(_d((2, 3, 8)), 2, padding="FULL"), ValueError),
    (lambda: F.avg_pool1d(_d((2, 3, 8), "int64"), 2), TypeError),
    (lambda: F.adaptive_avg_pool1d(_d((2, 3, 8, 1)), 2), ValueError),
    (lambda: F.adaptive_max_pool1d(_d((2, 8)), 2), ValueError),
    (lambda: nn.MaxPool1D(2, bogus=1), TypeError),
]


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_errors(i):
    call, error = ERRORS[i]
    paddle.enable_static()
    try:
        with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):
            with pytest.raises(error):
                call()
    finally:
        paddle.disable_static()


def test_adaptive_max_pool1d_mask_not_supported():
    with pytest.raises(ValueError, match="return_mask"):
        F.adaptive_max_pool1d(paddle.to_tensor(PX), 3, return_mask=True)
