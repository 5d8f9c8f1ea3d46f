"""The 2.x surface: paddle.nn.functional against real Paddle's numbers (fixtures made by
tests/fixtures/make_functional_fixtures.py), paddle.static.nn, the paddle.nn layer classes and
initializers, fluid.nets, and 2.x's 0-d full reductions, in static programs run by fluidc."""
import os

import numpy as np
import pytest

import fluidc as paddle
import fluidc as fluid
from fluidc.frontend.errors import FluidcError
from fluidc.runtime.lod import create_lod_tensor

F = paddle.nn.functional
nn = paddle.nn
FIXTURE = os.path.join(os.path.dirname(__file__), "fixtures", "paddle", "functional.npz")
RNG = np.random.default_rng(3)

# The calls of make_functional_fixtures.py, over fluidc Variables.
CASES = {
    "ce_mean": lambda x, y: F.cross_entropy(x, y),
    "ce_label_n1_sum": lambda x, y: F.cross_entropy(x, y, reduction="sum"),
    "ce_none": lambda x, y: F.cross_entropy(x, y, reduction="none"),
    "ce_ignore_pos": lambda x, y: F.cross_entropy(x, y, ignore_index=2),
    "ce_ignore_neg": lambda x, y: F.cross_entropy(x, y),
    "ce_weight": lambda x, y, w: F.cross_entropy(x, y, weight=w),
    "ce_weight_ignore": lambda x, y, w: F.cross_entropy(x, y, weight=w, ignore_index=1),
    "ce_weight_none": lambda x, y, w: F.cross_entropy(x, y, weight=w, reduction="none"),
    "ce_soft": lambda x, y: F.cross_entropy(x, y, soft_label=True),
    "ce_soft_weight": lambda x, y, w: F.cross_entropy(x, y, soft_label=True, weight=w),
    "ce_no_softmax": lambda x, y: F.cross_entropy(x, y, use_softmax=False),
    "ce_axis1": lambda x, y: F.cross_entropy(x, y, axis=1, reduction="none"),
    "mse": lambda x, y: F.mse_loss(x, y),
    "mse_sum": lambda x, y: F.mse_loss(x, y, reduction="sum"),
    "l1": lambda x, y: F.l1_loss(x, y),
    "l1_none": lambda x, y: F.l1_loss(x, y, reduction="none"),
    "nll": lambda x, y: F.nll_loss(x, y),
    "nll_weight_sum": lambda x, y, w: F.nll_loss(x, y, weight=w, reduction="sum"),
    "nll_4d_none": lambda x, y: F.nll_loss(x, y, reduction="none"),
    "bce": lambda x, y: F.binary_cross_entropy(x, y),
    "bce_weight_none": lambda x, y, w: F.binary_cross_entropy(x, y, weight=w, reduction="none"),
    "bce_logits": lambda x, y: F.binary_cross_entropy_with_logits(x, y),
    "bce_logits_pos_weight": lambda x, y, p: F.binary_cross_entropy_with_logits(
        x, y, pos_weight=p, reduction="sum"),
    "log_softmax": lambda x: F.log_softmax(x),
    "log_softmax_axis0": lambda x: F.log_softmax(x, axis=0),
    "softplus": lambda x: F.softplus(x, beta=2.0, threshold=5.0),
    "elu": lambda x: F.elu(x, alpha=0.5),
    "selu": lambda x: F.selu(x),
    "relu6": lambda x: F.relu6(x),
    "hardsigmoid": lambda x: F.hardsigmoid(x),
    "log_sigmoid": lambda x: F.log_sigmoid(x),
    "softsign": lambda x: F.softsign(x),
    "cumsum": lambda x: paddle.cumsum(x, axis=1),
    "cumsum_flat": lambda x: paddle.cumsum(x),
    "pow": lambda x: paddle.pow(x, 2.5),
    "normalize": lambda x: F.normalize(x, axis=1),
    "normalize_p1": lambda x: F.normalize(x, p=1, axis=0),
    "cosine_similarity": lambda x, y: F.cosine_similarity(x, y),
    "one_hot": lambda x: F.one_hot(x, 4),
    "linear": lambda x, w, b: F.linear(x, w, b),
    "embedding": lambda i, w: F.embedding(i, w, padding_idx=1),
    "conv2d": lambda x, w, b: F.conv2d(x, w, b, stride=2, padding=1),
    "max_pool2d": lambda x: F.max_pool2d(x, 3, stride=2, padding=1),
    "avg_pool2d": lambda x: F.avg_pool2d(x, 3, stride=2, padding=1),
    "avg_pool2d_incl": lambda x: F.avg_pool2d(x, 3, stride=2, padding=1, exclusive=False),
    "adaptive_avg_pool2d": lambda x: F.adaptive_avg_pool2d(x, 3),
    "dropout_infer_downscale": lambda x: F.dropout(x, 0.3, training=False,
                                                   mode="downscale_in_infer"),
    "mean": lambda x: paddle.mean(x),
    "sum_axis": lambda x: paddle.sum(x, axis=1),
    "max": lambda x: paddle.max(x),
}


def _run(main, startup, feed, fetch):
    exe = paddle.Executor(paddle.CPUPlace())
    exe.run(startup)
    return exe.run(main, feed=feed, fetch_list=fetch)


@pytest.mark.parametrize("name", sorted(CASES))
def test_functional_matches_paddle(name):
    data = np.load(FIXTURE)
    inputs = [data[f"{name}/in/{i}"] for i in range(4) if f"{name}/in/{i}" in data]
    main, startup = paddle.Program(), paddle.Program()
    with paddle.program_guard(main, startup):
        vs = [paddle.static.data(f"in{i}", a.shape, a.dtype.name) for i, a in enumerate(inputs)]
        out = CASES[name](*vs)
    got, = _run(main, startup, {f"in{i}": a for i, a in enumerate(inputs)}, [out])
    want = data[f"{name}/out"]
    assert got.shape == want.shape, f"{name}: shape {got.shape}, Paddle {want.shape}"
    assert tuple(out.shape) == want.shape
    np.testing.assert_allclose(got, want.astype(got.dtype), rtol=2e-5, atol=2e-6, err_msg=name)


def test_full_reductions_are_0d_in_2x_and_1_in_1x():
    x = paddle.static.data("x", [3, 4], "float32")
    ops_2x = [paddle.mean(x), paddle.sum(x), paddle.max(x), paddle.min(x)]
    ops_1x = [fluid.layers.mean(x), fluid.layers.reduce_sum(x), fluid.layers.reduce_max(x)]
    assert all(tuple(v.shape) == () for v in ops_2x)
    assert all(tuple(v.shape) == (1,) for v in ops_1x)
    reduce_ops = [op for op in paddle.default_main_program().global_block().ops
                  if op.type == "reduce_sum"]
    assert reduce_ops[0].attr("dim") == [] and reduce_ops[0].attr("reduce_all")
    xv = RNG.standard_normal((3, 4)).astype(np.float32)
    got = paddle.Executor(paddle.CPUPlace()).run(feed={"x": xv}, fetch_list=ops_2x + ops_1x)
    assert [g.shape for g in got] == [()] * 4 + [(1,)] * 3
    assert float(got[0]) == pytest.approx(float(xv.mean()), rel=1e-6)


def test_0d_loss_trains_with_sgd():
    x = paddle.static.data("x", [None, 3], "float32")
    y = paddle.static.data("y", [None, 1], "float32")
    loss = F.mse_loss(nn.Linear(3, 1)(x), y)
    assert tuple(loss.shape) == ()
    paddle.optimizer.SGD(learning_rate=0.1).minimize(loss)
    exe = paddle.Executor(paddle.CPUPlace())
    exe.run(paddle.default_startup_program())
    xv = RNG.standard_normal((32, 3)).astype(np.float32)
    yv = xv @ np.array([[1.0], [-2.0], [0.5]], np.float32) + 0.3
    losses = [float(exe.run(feed={"x": xv, "y": yv}, fetch_list=[loss])[0]) for _ in range(60)]
    assert losses[-1] < 0.01 * losses[0]


def test_dropout_2x_signature():
    x = paddle.static.data("x", [50, 40], "float32")
    train = F.dropout(x, p=0.4)
    along = F.dropout(x, p=0.5, axis=0)
    infer = F.dropout(x, p=0.4, training=False)
    assert F.dropout(x, p=0.0) is x
    op = paddle.default_main_program().global_block().ops[0]
    assert op.type == "dropout" and op.attr("dropout_implementation") == "upscale_in_train"
    xv = np.ones((50, 40), np.float32)
    t, a, i = paddle.Executor(paddle.CPUPlace()).run(feed={"x": xv},
                                                     fetch_list=[train, along, infer])
    assert set(np.unique(t)) <= {0.0, np.float32(1 / 0.6)} and 0.3 < (t == 0).mean() < 0.5
    rows = np.unique(a, axis=1)  # whole rows dropped or kept, kept ones scaled by 2
    assert rows.shape[1] == 1 and set(np.unique(a)) <= {0.0, 2.0}
    np.testing.assert_array_equal(i, xv)
    with pytest.raises(FluidcError, match="mode"):
        F.dropout(x, 0.5, mode="bad")


def test_static_nn_embedding_takes_ids_of_any_shape():
    ids = paddle.static.data("ids", [None, 3], "int64")
    emb = paddle.static.nn.embedding(ids, size=[10, 4], padding_idx=0)
    assert tuple(emb.shape) == (-1, 3, 4)
    op = paddle.default_main_program().global_block().ops[-1]
    assert op.type == "lookup_table_v2"
    iv = np.array([[1, 0, 9], [3, 3, 2]], np.int64)
    got, w = _run(paddle.default_main_program(), paddle.default_startup_program(), {"ids": iv},
                  [emb, "embedding_0.w_0"])
    want = w[iv]
    want[iv == 0] = 0
    np.testing.assert_allclose(got, want)


def test_static_nn_layers_and_sequence_names():
    img = paddle.static.data("img", [None, 3, 8, 8], "float32")
    c = paddle.static.nn.conv2d(img, 4, 3, padding=1)
    b = paddle.static.nn.batch_norm(c, act="relu")
    h = paddle.static.nn.fc(paddle.flatten(b, 1), 5, activation="tanh")
    assert tuple(h.shape) == (-1, 5)
    for name in ("sequence_conv", "sequence_pool", "sequence_softmax", "sequence_expand",
                 "sequence_concat", "sequence_reshape", "sequence_first_step",
                 "sequence_last_step"):
        assert callable(getattr(paddle.static.nn, name))
        assert getattr(paddle.static.nn.sequence_lod, name) is getattr(paddle.static.nn, name)
    out, = _run(paddle.default_main_program(), paddle.default_startup_program(),
                {"img": RNG.standard_normal((2, 3, 8, 8)).astype(np.float32)}, [h])
    assert out.shape == (2, 5) and np.all(np.abs(out) <= 1)


# --- layer classes ----------------------------------------------------------------------------

def test_layer_classes_create_parameters_named_as_paddle():
    lin, conv = nn.Linear(4, 5), nn.Conv2D(3, 4, 3)
    bn, ln, emb = nn.BatchNorm2D(4), nn.LayerNorm(8), nn.Embedding(10, 4)
    names = [p.name for layer in (lin, conv, bn, ln, emb) for p in layer.parameters()]
    assert names == ["linear_0.w_0", "linear_0.b_0", "conv2d_0.w_0", "conv2d_0.b_0",
                     "batch_norm2d_0.w_0", "batch_norm2d_0.b_0", "batch_norm2d_0.w_1",
                     "batch_norm2d_0.w_2", "layer_norm_0.w_0", "layer_norm_0.b_0",
                     "embedding_0.w_0"]
    startup = {op.output("Out")[0]: op for op in
               paddle.default_startup_program().global_block().ops}
    assert startup["linear_0.w_0"].type == "uniform_random"
    assert startup["linear_0.w_0"].attr("max") == pytest.approx((6 / 9) ** 0.5)
    assert startup["conv2d_0.w_0"].attr("std") == pytest.approx((2 / 27) ** 0.5)
    assert startup["batch_norm2d_0.w_2"].attr("value") == 1.0
    assert not [p for p in bn.parameters() if p.name.endswith("w_1")][0].trainable


def test_sequential_mlp_vs_numpy_with_initializers():
    init = nn.initializer
    w1 = RNG.standard_normal((4, 6)).astype(np.float32)
    model = nn.Sequential(
        nn.Linear(4, 6, weight_attr=paddle.ParamAttr(initializer=init.Assign(w1)),
                  bias_attr=paddle.ParamAttr(initializer=init.Constant(0.5))),
        nn.GELU(), nn.LayerNorm(6), nn.Dropout(0.5), nn.Linear(6, 3), nn.Softmax())
    model.eval()
    x = paddle.static.data("x", [None, 4], "float32")
    y = model(x)
    assert len(model.parameters()) == 6
    xv = RNG.standard_normal((5, 4)).astype(np.float32)
    got, w2, b2 = _run(paddle.default_main_program(), paddle.default_startup_program(),
                       {"x": xv}, [y, model[4].weight.name, model[4].bias.name])
    from math import erf
    h = xv @ w1 + 0.5
    h = 0.5 * h * (1 + np.vectorize(erf)(h / np.sqrt(2)))
    h = (h - h.mean(1, keepdims=True)) / np.sqrt(h.var(1, keepdims=True) + 1e-5)
    logits = h @ w2 + b2
    e = np.exp(logits - logits.max(1, keepdims=True))
    np.testing.assert_allclose(got, e / e.sum(1, keepdims=True), rtol=1e-4, atol=1e-5)


def test_cnn_layers_and_losses_train():
    model = nn.Sequential(nn.Conv2D(1, 4, 3, padding=1), nn.BatchNorm2D(4), nn.ReLU(),
                          nn.MaxPool2D(2), nn.AvgPool2D(2), nn.Flatten(), nn.Linear(16, 3))
    x = paddle.static.data("x", [None, 1, 8, 8], "float32")
    label = paddle.static.data("label", [None, 1], "int64")
    logits = model(x)
    loss = nn.CrossEntropyLoss()(logits, label) + nn.MSELoss()(logits, logits) + \
        nn.L1Loss()(logits, logits)
    paddle.optimizer.Adam(learning_rate=0.05).minimize(loss)
    exe = paddle.Executor(paddle.CPUPlace())
    exe.run(paddle.default_startup_program())
    xv = RNG.standard_normal((24, 1, 8, 8)).astype(np.float32)
    lv = (xv.mean((1, 2, 3)) > 0).astype(np.int64).reshape(-1, 1) + \
        (xv[:, 0, :4].mean((1, 2)) > 0).astype(np.int64).reshape(-1, 1)
    losses = [float(exe.run(feed={"x": xv, "label": lv}, fetch_list=[loss])[0])
              for _ in range(40)]
    assert losses[-1] < 0.5 * losses[0]


@pytest.mark.parametrize("make,want_std", [
    (lambda i: i.XavierNormal(), (2 / (20 + 30)) ** 0.5),
    (lambda i: i.KaimingNormal(), (2 / 20) ** 0.5),
    (lambda i: i.Normal(0.0, 0.3), 0.3)])
def test_normal_initializers(make, want_std):
    lin = nn.Linear(20, 30, weight_attr=paddle.ParamAttr(initializer=make(nn.initializer)))
    exe = paddle.Executor(paddle.CPUPlace())
    exe.run(paddle.default_startup_program())
    w = np.array(paddle.global_scope().find_var(lin.weight.name).get_tensor())
    assert abs(w.std() - want_std) < 0.15 * want_std


@pytest.mark.parametrize("make,limit", [
    (lambda i: i.XavierUniform(), (6 / 50) ** 0.5),
    (lambda i: i.KaimingUniform(), (6 / 20) ** 0.5),
    (lambda i: i.Uniform(-0.2, 0.2), 0.2)])
def test_uniform_initializers(make, limit):
    lin = nn.Linear(20, 30, weight_attr=paddle.ParamAttr(initializer=make(nn.initializer)))
    op = [o for o in paddle.default_startup_program().global_block().ops
          if o.output("Out")[0] == lin.weight.name][0]
    assert op.type == "uniform_random" and op.attr("max") == pytest.approx(limit)


def test_assign_initializer_checks_the_shape():
    with pytest.raises(FluidcError, match="Assign"):
        nn.Linear(2, 2, weight_attr=paddle.ParamAttr(
            initializer=nn.initializer.Assign(np.zeros((3, 2)))))


# --- fluid.nets -------------------------------------------------------------------------------

def test_nets_glu_and_attention_vs_numpy():
    x = fluid.data("x", [None, 6], "float32")
    q = fluid.data("q", [None, 3, 4], "float32")
    k = fluid.data("k", [None, 5, 4], "float32")
    v = fluid.data("v", [None, 5, 2], "float32")
    g = fluid.nets.glu(x, dim=-1)
    att = fluid.nets.scaled_dot_product_attention(q, k, v)
    assert tuple(att.shape) == (-1, 3, 2)
    xv = RNG.standard_normal((2, 6)).astype(np.float32)
    qv, kv, vv = (RNG.standard_normal(s).astype(np.float32) for s in
                  ((2, 3, 4), (2, 5, 4), (2, 5, 2)))
    got_g, got_a = paddle.Executor(paddle.CPUPlace()).run(
        feed={"x": xv, "q": qv, "k": kv, "v": vv}, fetch_list=[g, att])
    np.testing.assert_allclose(got_g, xv[:, :3] / (1 + np.exp(-xv[:, 3:])), rtol=1e-5)
    s = qv @ kv.transpose(0, 2, 1) / 2.0
    e = np.exp(s - s.max(-1, keepdims=True))
    np.testing.assert_allclose(got_a, (e / e.sum(-1, keepdims=True)) @ vv, rtol=1e-5,
                               atol=1e-6)


def test_nets_multi_head_attention_and_conv_nets_build_and_run():
    q = fluid.data("q", [None, 3, 8], "float32")
    att = fluid.nets.scaled_dot_product_attention(q, q, q, num_heads=2, dropout_rate=0.1)
    img = fluid.data("img", [None, 1, 12, 12], "float32")
    c = fluid.nets.simple_img_conv_pool(img, 4, 3, pool_size=2, pool_stride=2, act="relu")
    grp = fluid.nets.img_conv_group(c, [3, 3], 2, conv_act="relu", conv_with_batchnorm=True,
                                    conv_batchnorm_drop_rate=[0.2, 0.0], pool_stride=2)
    assert tuple(c.shape) == (-1, 4, 5, 5) and tuple(grp.shape) == (-1, 3, 2, 2)
    exe = paddle.Executor(paddle.CPUPlace())
    exe.run(paddle.default_startup_program())
    a, gv = exe.run(feed={"q": RNG.standard_normal((2, 3, 8)).astype(np.float32),
                          "img": RNG.standard_normal((2, 1, 12, 12)).astype(np.float32)},
                    fetch_list=[att, grp])
    assert a.shape == (2, 3, 8) and gv.shape == (2, 3, 2, 2) and np.isfinite(a).all()


def test_nets_sequence_conv_pool_recommender_style():
    words = fluid.data("words", [None, 1], "int64", lod_level=1)
    emb = fluid.layers.embedding(words, size=[20, 4])
    pooled = fluid.nets.sequence_conv_pool(emb, num_filters=3, filter_size=3, act="tanh",
                                           pool_type="sum")
    cats = fluid.data("cats", [None, 1], "int64", lod_level=1)
    cat = paddle.static.nn.sequence_lod.sequence_pool(
        fluid.layers.embedding(cats, size=[5, 3]), pool_type="sum")
    score = F.cosine_similarity(pooled, cat)
    loss = paddle.mean(F.square_error_cost(paddle.scale(score, 5.0),
                                           fluid.data("y", [None], "float32")))
    fluid.optimizer.SGD(0.1).minimize(loss)
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(fluid.default_startup_program())
    place = fluid.CPUPlace()
    feed = {"words": create_lod_tensor(np.array([[1], [4], [7], [2], [9]]), [[3, 2]], place),
            "cats": create_lod_tensor(np.array([[1], [3], [0]]), [[2, 1]], place),
            "y": np.array([4.0, 1.0], np.float32)}
    losses = [float(exe.run(feed=feed, fetch_list=[loss])[0]) for _ in range(25)]
    assert losses[-1] < losses[0]


def test_channel_dropout_zeroes_whole_channels():
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [8, 16, 3, 3], "float32")
        nchw = paddle.nn.functional.dropout2d(x, p=0.5)
        nhwc = paddle.nn.functional.dropout2d(x, p=0.5, data_format="NHWC")
    xv = np.ones((8, 16, 3, 3), np.float32)
    a, b = paddle.static.Executor(paddle.CPUPlace()).run(main, feed={"x": xv},
                                                         fetch_list=[nchw, nhwc])
    # each (sample, channel) is all 0 or all 1 / (1 - p), by channel axis 1 or 3
    assert set(np.unique(a)) <= {0.0, 2.0} and (a.min(axis=(2, 3)) == a.max(axis=(2, 3))).all()
    assert (b.min(axis=(1, 2)) == b.max(axis=(1, 2))).all()
    assert 0.3 < (a[:, :, 0, 0] == 0).mean() < 0.7


def test_alpha_dropout_keeps_selu_statistics():
    # Kept elements are a * x + b, dropped ones a * alpha_p + b, with alpha_p = -alpha * scale
    # of SELU; for standard normal x the output keeps mean 0 and variance 1.
    p = 0.2
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [400, 500], "float64")
        out = paddle.nn.functional.alpha_dropout(x, p=p)
    xv = np.random.default_rng(5).standard_normal((400, 500))
    (got,) = paddle.static.Executor(paddle.CPUPlace()).run(main, feed={"x": xv}, fetch_list=[out])
    alpha_p = -1.6732632423543772 * 1.0507009873554805
    a = ((1 - p) * (1 + p * alpha_p ** 2)) ** -0.5
    b = -a * alpha_p * p
    kept = np.isclose(got, a * xv + b)
    assert np.allclose(got[~kept], a * alpha_p + b)
    assert abs((~kept).mean() - p) < 0.01
    assert abs(got.mean()) < 0.01 and abs(got.var() - 1) < 0.02


def test_layer_add_parameter_registers_and_checks_like_paddle():
    class Net(paddle.nn.Layer):
        def __init__(self):
            super().__init__()
            self.w = self.add_parameter("w_0", self.create_parameter([2, 3]))

    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        net = Net()
        assert len(net.parameters()) == 1 and net.parameters()[0] is net.w and net.w_0 is net.w
        assert net.add_parameter("none", None) is None and len(net.parameters()) == 1
        with pytest.raises(TypeError):
            net.add_parameter(1, net.w)
        for bad in ("", "a.b", "training"):  # empty, dotted, an existing attribute
            with pytest.raises(KeyError):
                net.add_parameter(bad, net.w)
        with pytest.raises(TypeError):
            net.add_parameter("x", np.zeros(2))
