"""paddle.nn.functional's smooth_l1_loss, margin_ranking_loss, hinge_embedding_loss,
soft_margin_loss, pairwise_distance, triplet_margin_loss, sigmoid_focal_loss and
cosine_embedding_loss (frontend/layers/api2/losses_more.py) and their paddle.nn Layers: static
programs against numpy forms of Paddle's documented formulas, gradients against central
differences of those forms, dygraph, real Paddle 3.3.1's numbers and the argument errors."""
import numpy as np
import pytest

import fluidc as paddle
from test_api_activations_more import central_differences, run_static

F = paddle.nn.functional
nn = paddle.nn
RNG = np.random.default_rng(11)
REDUCTIONS = ("mean", "sum", "none")


# --- numpy forms of Paddle's formulas --------------------------------------------------------

def _reduce(loss, reduction):
    return {"mean": np.mean, "sum": np.sum, "none": lambda v: v}[reduction](loss)


def np_smooth_l1(x, y, reduction="mean", delta=1.0, is_huber=True):
    r = np.abs(x - y)
    loss = np.where(r <= delta, 0.5 * r * r, delta * (r - 0.5 * delta))
    return _reduce(loss if is_huber else loss / delta, reduction)


def np_margin_ranking(x, other, label, margin=0.0, reduction="mean"):
    return _reduce(np.maximum(-label * (x - other) + margin, 0.0), reduction)


def np_hinge_embedding(x, label, margin=1.0, reduction="mean"):
    loss = np.where(label == 1, x, 0.0) + np.where(label == -1, np.maximum(margin - x, 0.0), 0.0)
    return _reduce(loss, reduction)


def np_soft_margin(x, label, reduction="mean"):
    return _reduce(np.log(1 + np.exp(-label.astype(x.dtype) * x)), reduction)


def np_pairwise(x, y, p=2.0, epsilon=1e-6, keepdim=False):
    d = np.abs(x - y + epsilon)
    if p == np.inf:
        out = d.max(-1, keepdims=keepdim)
    elif p == -np.inf:
        out = d.min(-1, keepdims=keepdim)
    elif p == 0:
        out = (d != 0).sum(-1, keepdims=keepdim).astype(x.dtype)
    else:
        out = (d ** p).sum(-1, keepdims=keepdim) ** (1.0 / p)
    return out


def np_triplet(x, pos, neg, margin=1.0, p=2, epsilon=1e-6, swap=False, reduction="mean"):
    dp, dn = np_pairwise(x, pos, p, epsilon), np_pairwise(x, neg, p, epsilon)
    if swap:
        dn = np.minimum(dn, np_pairwise(pos, neg, p, epsilon))
    return _reduce(np.maximum(dp - dn + margin, 0.0), reduction)


def np_focal(logit, label, normalizer=None, alpha=0.25, gamma=2.0, reduction="sum"):
    ce = np.maximum(logit, 0) - logit * label + np.log1p(np.exp(-np.abs(logit)))
    p = 1 / (1 + np.exp(-logit))
    p_t = p * label + (1 - p) * (1 - label)
    alpha_t = alpha * label + (1 - alpha) * (1 - label)
    loss = alpha_t * (1 - p_t) ** gamma * ce
    return _reduce(loss if normalizer is None else loss / normalizer, reduction)


def np_cosine_embedding(x1, x2, label, margin=0.0, reduction="mean"):
    cos = (x1 * x2).sum(-1) / np.sqrt(((x1 * x1).sum(-1) + 1e-11) * ((x2 * x2).sum(-1) + 1e-11))
    loss = np.where(label == 1, 1 - cos, 0.0) + np.where(label == -1,
                                                         np.maximum(cos - margin, 0.0), 0.0)
    return _reduce(loss, reduction)


# --- runners ---------------------------------------------------------------------------------

def check(fn, ref, arrays, wrt=0, rtol=1e-6, atol=1e-7):
    """Forward against numpy, and (float64, wrt given) the gradient against central
    differences of the numpy form. atol 1e-7: margins, deltas and epsilons are float32
    attributes, as in Paddle's programs."""
    expected = ref(*arrays)
    weight = RNG.uniform(0.5, 1.5, np.shape(expected)).astype(arrays[0].dtype)
    got = run_static(fn, arrays, () if wrt is None else [wrt], weight)
    assert got[0].shape == np.shape(expected)
    np.testing.assert_allclose(got[0], expected, rtol=rtol, atol=atol)
    if wrt is not None:
        numeric = central_differences(ref, arrays, wrt, weight)
        np.testing.assert_allclose(got[1], numeric, rtol=1e-5, atol=1e-6)


def away(shape, lo=0.05):
    """float64 values in [-2, 2] at least lo from zero (keeps kinks away from eps)."""
    v = RNG.uniform(lo, 2.0, shape)
    return v * RNG.choice([-1.0, 1.0], shape)


def signs(shape, dtype="float64"):
    return RNG.choice([-1, 1], shape).astype(dtype)


SHAPES = [(5,), (3, 4), (2, 3, 4)]


# --- static mode against numpy, gradients ------------------------------------------------------

@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_smooth_l1_loss(shape, reduction):
    x, y = away(shape), away(shape)
    for delta, is_huber in ((1.0, True), (0.5, True), (2.0, False)):
        if np.any(np.abs(np.abs(x - y) - delta) < 1e-3):
            continue
        check(lambda a, b: F.smooth_l1_loss(a, b, reduction, delta, is_huber),
              lambda a, b: np_smooth_l1(a, b, reduction, delta, is_huber), [x, y])
    check(lambda a, b: F.smooth_l1_loss(a, b, reduction), lambda a, b: np_smooth_l1(a, b, reduction),
          [x, y], wrt=1)


def test_smooth_l1_loss_zero_residual_and_float32():
    x = np.array([[0.5, -2.0, 3.0]], "float32")
    got = run_static(lambda a, b: F.smooth_l1_loss(a, b, "none"), [x, x.copy()])[0]
    np.testing.assert_array_equal(got, np.zeros_like(x))
    y = away((4, 3)).astype("float32")
    check(lambda a, b: F.smooth_l1_loss(a, b), np_smooth_l1, [x.repeat(4, 0), y], wrt=None,
          rtol=1e-5)


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("margin", [0.0, 0.3, -0.2])
def test_margin_ranking_loss(shape, reduction, margin):
    x, other, label = away(shape), away(shape), signs(shape)
    keep = np.abs(-label * (x - other) + margin) > 1e-3
    other = np.where(keep, other, other + 0.1)
    for wrt in (0, 1):
        check(lambda a, b, c: F.margin_ranking_loss(a, b, c, margin, reduction),
              lambda a, b, c: np_margin_ranking(a, b, c, margin, reduction), [x, other, label],
              wrt=wrt)


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_hinge_embedding_loss(shape, reduction):
    x, label = away(shape), signs(shape)
    label.flat[0] = 0.0  # neither 1 nor -1: no loss
    for margin in (1.0, 0.5):
        x = np.where(np.abs(x - margin) < 1e-3, x + 0.1, x)
        check(lambda a, b: F.hinge_embedding_loss(a, b, margin, reduction),
              lambda a, b: np_hinge_embedding(a, b, margin, reduction), [x, label])
    check(lambda a, b: F.hinge_embedding_loss(a, b, reduction=reduction),
          lambda a, b: np_hinge_embedding(a, b, reduction=reduction), [x, label])


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_soft_margin_loss(shape, reduction):
    x = away(shape)
    check(lambda a, b: F.soft_margin_loss(a, b, reduction),
          lambda a, b: np_soft_margin(a, b, reduction), [x, signs(shape)])
    check(lambda a, b: F.soft_margin_loss(a, b, reduction),  # int labels, cast
          lambda a, b: np_soft_margin(a, b, reduction), [x, signs(shape, "int64")], wrt=None)


@pytest.mark.parametrize("shape", [(4,), (3, 5), (2, 3, 4)])
@pytest.mark.parametrize("p", [2.0, 1, 3.0, 0.5, np.inf, -np.inf, 0])
@pytest.mark.parametrize("keepdim", [False, True])
def test_pairwise_distance(shape, p, keepdim):
    x, y = away(shape), away(shape)
    check(lambda a, b: F.pairwise_distance(a, b, p, keepdim=keepdim),
          lambda a, b: np_pairwise(a, b, p, keepdim=keepdim), [x, y])
    check(lambda a, b: F.pairwise_distance(a, b, p, epsilon=0.0, keepdim=keepdim),
          lambda a, b: np_pairwise(a, b, p, 0.0, keepdim), [x, y], wrt=None)


@pytest.mark.parametrize("shape", [(3, 5), (2, 3, 4)])
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("p,swap", [(2, False), (2, True), (1, True), (3.0, False)])
def test_triplet_margin_loss(shape, reduction, p, swap):
    x, pos, neg = away(shape), away(shape), away(shape)
    for margin in (1.0, 0.0, 4.0):
        check(lambda a, b, c: F.triplet_margin_loss(a, b, c, margin, p, swap=swap,
                                                    reduction=reduction),
              lambda a, b, c: np_triplet(a, b, c, margin, p, swap=swap, reduction=reduction),
              [x, pos, neg], wrt=None)
    for wrt in (0, 2):
        check(lambda a, b, c: F.triplet_margin_loss(a, b, c, 4.0, p, swap=swap,
                                                    reduction=reduction),
              lambda a, b, c: np_triplet(a, b, c, 4.0, p, swap=swap, reduction=reduction),
              [x, pos, neg], wrt=wrt)


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_sigmoid_focal_loss(shape, reduction):
    logit = RNG.uniform(-3, 3, shape)
    label = RNG.integers(0, 2, shape).astype("float64")
    check(lambda a, b: F.sigmoid_focal_loss(a, b, reduction=reduction),
          lambda a, b: np_focal(a, b, reduction=reduction), [logit, label])
    norm = np.array([2.5])
    check(lambda a, b, c: F.sigmoid_focal_loss(a, b, c, alpha=0.6, gamma=1.5,
                                               reduction=reduction),
          lambda a, b, c: np_focal(a, b, c, 0.6, 1.5, reduction), [logit, label, norm])


def test_sigmoid_focal_loss_0d_normalizer_and_soft_labels():
    logit = RNG.uniform(-3, 3, (4, 2))
    label = RNG.uniform(0, 1, (4, 2))
    check(lambda a, b, c: F.sigmoid_focal_loss(a, b, c, gamma=0.0),
          lambda a, b, c: np_focal(a, b, c, gamma=0.0), [logit, label, np.array(3.0)])


@pytest.mark.parametrize("shape", [(4, 3), (6,), (1, 5)])
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("margin", [0.0, 0.4, -0.6])
@pytest.mark.parametrize("label_dtype", ["int64", "float32", "int32"])
def test_cosine_embedding_loss(shape, reduction, margin, label_dtype):
    x1, x2 = away(shape), away(shape)
    label = signs(shape[:1] if len(shape) == 2 else (1,), label_dtype)
    if len(shape) == 2 and shape[0] > 2:
        label[-1] = 0  # neither 1 nor -1: no loss
    cos = (x1 * x2).sum(-1) / np.sqrt((x1 * x1).sum(-1) * (x2 * x2).sum(-1))
    wrt = 0 if np.all(np.abs(cos - margin) > 1e-3) else None
    check(lambda a, b, c: F.cosine_embedding_loss(a, b, c, margin, reduction),
          lambda a, b, c: np_cosine_embedding(a, b, c, margin, reduction), [x1, x2, label],
          wrt=wrt)


# --- real Paddle 3.3.1's numbers ----------------------------------------------------------------

X = np.array([[0.3, -1.2, 2.0], [1.5, 0.1, -0.7]])
Y = np.array([[-0.4, 0.9, 1.1], [0.2, 0.15, -2.5]])
LAB = np.array([[1.0, -1, 1], [-1, 1, -1]])
NEG = np.array([[1.0, 0.5, -0.3], [-1.1, 0.6, 0.4]])

# Paddle 3.3.1's values (dygraph, float64 inputs; paddle.nn.functional.<fn>(...).numpy()); each
# call takes `t`, which makes its numpy arguments tensors (dygraph) or fed data (static).
FLOAT_LAB = (LAB > 0).astype("float64")
PADDLE = [
    (lambda t: F.smooth_l1_loss(t(X), t(Y), reduction="none", delta=0.8),
     [[0.245, 1.3600000155, 0.4000000012], [0.720000006, 0.00125, 1.1200000119]]),
    (lambda t: F.smooth_l1_loss(t(X), t(Y), reduction="sum", delta=0.8, is_huber=False),
     4.8078125432),
    (lambda t: F.smooth_l1_loss(t(X), t(Y)), 0.7252083333),
    (lambda t: F.margin_ranking_loss(t(X), t(Y), t(LAB), margin=0.5, reduction="none"),
     [[0.0, 0.0, 0.0], [1.8, 0.55, 2.3]]),
    (lambda t: F.margin_ranking_loss(t(X), t(Y), t(LAB)), 0.525),
    (lambda t: F.hinge_embedding_loss(t(X), t(LAB), reduction="none"),
     [[0.3, 2.2, 2.0], [0.0, 0.1, 1.7]]),
    (lambda t: F.hinge_embedding_loss(t(X), t(LAB), margin=2.0, reduction="sum"), 8.8),
    (lambda t: F.soft_margin_loss(t(X), t(LAB.astype("int64")), reduction="sum"), 3.6935617098),
    (lambda t: F.soft_margin_loss(t(X), t(LAB), reduction="none"),
     [[0.5543552445, 0.2632824673, 0.126928011], [1.701413278, 0.6443966601, 0.4031860489]]),
    (lambda t: F.pairwise_distance(t(X), t(Y)), [2.3895604198, 2.2209246048]),
    (lambda t: F.pairwise_distance(t(X), t(Y), p=1, keepdim=True), [[3.700001], [3.150001]]),
    (lambda t: F.pairwise_distance(t(X), t(Y), p=float("inf"), epsilon=0.0), [2.1, 1.8]),
    (lambda t: F.triplet_margin_loss(t(X), t(Y), t(NEG), reduction="none"),
     [0.4450740809, 0.3538700186]),
    (lambda t: F.triplet_margin_loss(t(X), t(Y), t(NEG), margin=3.0, p=1, swap=True,
                                     reduction="sum"), 5.450002),
    (lambda t: F.sigmoid_focal_loss(t(X), t(FLOAT_LAB), reduction="none"),
     [[0.0250983189, 0.0105801592, 0.0004508907], [0.8529542367, 0.0363511844, 0.0332928928]]),
    (lambda t: F.sigmoid_focal_loss(t(X), t(FLOAT_LAB), normalizer=t(np.array([3.0])),
                                    alpha=0.4, gamma=1.5, reduction="mean"), 0.0536959681),
    (lambda t: F.sigmoid_focal_loss(t(X), t(FLOAT_LAB)), 0.9587276827),
    (lambda t: F.cosine_embedding_loss(t(X), t(Y), t(np.array([1, -1])), margin=0.2,
                                       reduction="none"), [0.7119889254, 0.2956247819]),
    (lambda t: F.cosine_embedding_loss(t(X), t(NEG), t(np.array([-1, -1])), margin=-0.5,
                                       reduction="none"), [0.1693812005, 0.0]),
    (lambda t: F.cosine_embedding_loss(t(X), t(Y), t(np.array([1.0, -1.0]))), 0.6038068536),
    (lambda t: nn.SmoothL1Loss(delta=0.5)(t(X), t(Y)), 0.4627083333),
    (lambda t: nn.PairwiseDistance(p=3.0)(t(X), t(Y)), [2.1780876665, 2.0024254142]),
]


@pytest.mark.parametrize("i", range(len(PADDLE)))
def test_matches_paddle_3_3_1_dygraph(i):
    paddle.disable_static()
    fn, expected = PADDLE[i]
    got = fn(paddle.to_tensor)
    np.testing.assert_allclose(got.numpy(), expected, rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("i", range(len(PADDLE)))
def test_matches_paddle_3_3_1_static(i):
    fn, expected = PADDLE[i]
    feed = {}

    def t(a):
        feed[f"v{len(feed)}"] = a
        return paddle.static.data(f"v{len(feed) - 1}", list(a.shape), str(a.dtype))

    paddle.enable_static()
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        out = fn(t)
    exe = paddle.static.Executor(paddle.CPUPlace())
    exe.run(startup)
    got = exe.run(main, feed=feed, fetch_list=[out])[0]
    np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-9)


# --- dygraph: values and gradients ---------------------------------------------------------------

DYGRAPH = {  # name: (call over tensors, numpy form, inputs, index of the differentiated input)
    "smooth_l1": (lambda a, b: F.smooth_l1_loss(a, b, delta=0.7), lambda a, b: np_smooth_l1(
        a, b, delta=0.7), lambda: [away((3, 4)), away((3, 4))], 0),
    "margin_ranking": (lambda a, b, c: F.margin_ranking_loss(a, b, c, 0.2, "sum"),
                       lambda a, b, c: np_margin_ranking(a, b, c, 0.2, "sum"),
                       lambda: [away((6,)), away((6,)), signs((6,))], 1),
    "hinge_embedding": (lambda a, b: F.hinge_embedding_loss(a, b, 0.7),
                        lambda a, b: np_hinge_embedding(a, b, 0.7),
                        lambda: [away((2, 5)), signs((2, 5))], 0),
    "soft_margin": (lambda a, b: F.soft_margin_loss(a, b), np_soft_margin,
                    lambda: [away((4, 3)), signs((4, 3))], 0),
    "pairwise": (lambda a, b: F.pairwise_distance(a, b, 3.0), lambda a, b: np_pairwise(a, b, 3.0),
                 lambda: [away((4, 3)), away((4, 3))], 0),
    "triplet": (lambda a, b, c: F.triplet_margin_loss(a, b, c, 3.0, swap=True),
                lambda a, b, c: np_triplet(a, b, c, 3.0, swap=True),
                lambda: [away((4, 3)), away((4, 3)), away((4, 3))], 1),
    "focal": (lambda a, b: F.sigmoid_focal_loss(a, b, reduction="mean"),
              lambda a, b: np_focal(a, b, reduction="mean"),
              lambda: [away((3, 4)), RNG.integers(0, 2, (3, 4)).astype("float64")], 0),
    "cosine_embedding": (lambda a, b, c: F.cosine_embedding_loss(a, b, c, 0.1, "sum"),
                         lambda a, b, c: np_cosine_embedding(a, b, c, 0.1, "sum"),
                         lambda: [away((5, 3)), away((5, 3)), signs((5,), "int64")], 1),
}


@pytest.mark.parametrize("name", sorted(DYGRAPH))
def test_dygraph_values_and_gradients(name):
    paddle.disable_static()
    fn, ref, make, wrt = DYGRAPH[name]
    arrays = make()
    tensors = [paddle.to_tensor(a, stop_gradient=i != wrt) for i, a in enumerate(arrays)]
    out = fn(*tensors)
    np.testing.assert_allclose(out.numpy(), ref(*arrays), rtol=1e-6, atol=1e-9)
    weight = RNG.uniform(0.5, 1.5, out.shape)
    paddle.sum(out * paddle.to_tensor(weight)).backward()
    np.testing.assert_allclose(tensors[wrt].grad.numpy(),
                               central_differences(ref, arrays, wrt, weight),
                               rtol=1e-5, atol=1e-6)


# --- the Layer classes ---------------------------------------------------------------------------

LAYERS = [  # (Layer, the functional call it equals, inputs)
    (lambda: nn.SmoothL1Loss("sum", delta=0.5, is_huber=False),
     lambda a, b: np_smooth_l1(a, b, "sum", 0.5, False), lambda: [away((3, 4)), away((3, 4))]),
    (lambda: nn.MarginRankingLoss(margin=0.3, reduction="none"),
     lambda a, b, c: np_margin_ranking(a, b, c, 0.3, "none"),
     lambda: [away((5,)), away((5,)), signs((5,))]),
    (lambda: nn.HingeEmbeddingLoss(margin=2.0),
     lambda a, b: np_hinge_embedding(a, b, 2.0), lambda: [away((3, 4)), signs((3, 4))]),
    (lambda: nn.SoftMarginLoss("sum"), lambda a, b: np_soft_margin(a, b, "sum"),
     lambda: [away((3, 4)), signs((3, 4))]),
    (lambda: nn.PairwiseDistance(p=1.0, epsilon=0.0, keepdim=True),
     lambda a, b: np_pairwise(a, b, 1.0, 0.0, True), lambda: [away((3, 4)), away((3, 4))]),
    (lambda: nn.TripletMarginLoss(margin=2.0, p=1.0, swap=True, reduction="sum"),
     lambda a, b, c: np_triplet(a, b, c, 2.0, 1.0, swap=True, reduction="sum"),
     lambda: [away((3, 4)), away((3, 4)), away((3, 4))]),
    (lambda: nn.CosineEmbeddingLoss(margin=-0.3, reduction="none"),
     lambda a, b, c: np_cosine_embedding(a, b, c, -0.3, "none"),
     lambda: [away((4, 3)), away((4, 3)), signs((4,), "int64")]),
]


@pytest.mark.parametrize("i", range(len(LAYERS)))
def test_layers_static_and_dygraph(i):
    make_layer, ref, make = LAYERS[i]
    arrays = make()
    # atol: margins and deltas are float32 attributes (as in Paddle's programs)
    got = run_static(lambda *vs: make_layer()(*vs), arrays)[0]
    np.testing.assert_allclose(got, ref(*arrays), rtol=1e-6, atol=1e-7)
    paddle.disable_static()
    got = make_layer()(*[paddle.to_tensor(a) for a in arrays]).numpy()
    np.testing.assert_allclose(got, ref(*arrays), rtol=1e-6, atol=1e-7)


def test_exported_where_paddle_has_them():
    for name in ("smooth_l1_loss", "margin_ranking_loss", "hinge_embedding_loss",
                 "soft_margin_loss", "triplet_margin_loss", "sigmoid_focal_loss",
                 "cosine_embedding_loss"):
        assert getattr(F, name) is getattr(F.loss, name)
    assert F.pairwise_distance is not None
    for name in ("SmoothL1Loss", "MarginRankingLoss", "HingeEmbeddingLoss", "SoftMarginLoss",
                 "TripletMarginLoss", "CosineEmbeddingLoss"):
        assert getattr(nn, name) is getattr(nn.loss, name)
    assert issubclass(nn.PairwiseDistance, nn.Layer)


# --- argument errors ------------------------------------------------------------------------------

def _data(shape, dtype="float32", name=None):
    return paddle.static.data(name or f"d{RNG.integers(1 << 30)}", list(shape), dtype)


BAD_REDUCTION = [
    lambda a, b, lab: F.smooth_l1_loss(a, b, reduction="avg"),
    lambda a, b, lab: F.margin_ranking_loss(a, b, lab, reduction="avg"),
    lambda a, b, lab: F.hinge_embedding_loss(a, lab, reduction="avg"),
    lambda a, b, lab: F.soft_margin_loss(a, lab, reduction="avg"),
    lambda a, b, lab: F.triplet_margin_loss(a, b, b, reduction="avg"),
    lambda a, b, lab: F.sigmoid_focal_loss(a, lab, reduction="avg"),
    lambda a, b, lab: F.cosine_embedding_loss(a, b, lab[:, 0], reduction="avg"),
]


@pytest.mark.parametrize("i", range(len(BAD_REDUCTION)))
def test_bad_reduction_is_a_value_error(i):
    paddle.enable_static()
    a, b, lab = _data((3, 4)), _data((3, 4)), _data((3, 4))
    with pytest.raises(ValueError, match="'reduction'.*avg"):
        BAD_REDUCTION[i](a, b, lab)


@pytest.mark.parametrize("make", [lambda: nn.MarginRankingLoss(reduction="max"),
                                  lambda: nn.SoftMarginLoss(reduction="max"),
                                  lambda: nn.TripletMarginLoss(reduction="max"),
                                  lambda: nn.CosineEmbeddingLoss(reduction="max")])
def test_layer_constructors_check_reduction(make):
    with pytest.raises(ValueError, match="'reduction'.*max"):
        make()


def test_argument_errors():
    paddle.enable_static()
    f32, i64 = _data((3, 4)), _data((3, 4), "int64")
    with pytest.raises(TypeError, match="input"):
        F.smooth_l1_loss(i64, f32)
    with pytest.raises(TypeError, match="label"):
        F.margin_ranking_loss(f32, f32, i64)
    with pytest.raises(TypeError, match="input"):
        F.hinge_embedding_loss(i64, f32)
    with pytest.raises(TypeError, match="label"):
        F.soft_margin_loss(f32, _data((3, 4), "bool"))
    with pytest.raises(ValueError, match="shape"):
        F.soft_margin_loss(f32, _data((4, 3)))
    with pytest.raises(TypeError, match="porder"):
        F.pairwise_distance(f32, f32, p="2")
    with pytest.raises(TypeError, match="keepdim"):
        F.pairwise_distance(f32, f32, keepdim=1)
    with pytest.raises(TypeError, match="'x'"):
        F.pairwise_distance(i64, f32)
    with pytest.raises(ValueError, match="margin.*-0.5"):
        F.triplet_margin_loss(f32, f32, f32, margin=-0.5)
    with pytest.raises(ValueError, match="positive's shape"):
        F.triplet_margin_loss(f32, f32, _data((3, 5)))
    with pytest.raises(ValueError, match="normalizer"):
        F.sigmoid_focal_loss(f32, f32, normalizer=_data((1, 1)))
    with pytest.raises(TypeError, match="normalizer"):
        F.sigmoid_focal_loss(f32, f32, normalizer=_data((1,), "int64"))
    label = _data((3,), "int64")
    with pytest.raises(ValueError, match="1D target"):
        F.cosine_embedding_loss(f32, f32, _data((3, 1), "int64"))
    with pytest.raises(ValueError, match="input tensor 1 should be equal"):
        F.cosine_embedding_loss(f32, _data((3, 5)), label)
    with pytest.raises(ValueError, match="1D or 2D"):
        F.cosine_embedding_loss(_data((3, 4, 2)), _data((3, 4, 2)), label)
    with pytest.raises(ValueError, match="float32"):
        F.cosine_embedding_loss(i64, i64, label)
    with pytest.raises(ValueError, match="label"):
        F.cosine_embedding_loss(f32, f32, _data((3,), "bool"))
    with pytest.raises(ValueError, match="margin.*1.5"):
        nn.CosineEmbeddingLoss(margin=1.5)
