"""Weight decay and gradient clipping: the ops appended as Paddle appends them (so saved programs
read the same), and one SGD step (lr 1, so the update is the processed gradient) against numpy."""
import numpy as np
import pytest

import fluidc as fluid
import fluidc as paddle

X = np.random.default_rng(3).standard_normal((4, 3)).astype(np.float32)
W = {"w": np.random.default_rng(4).standard_normal((3, 2)).astype(np.float32),
     "v": np.random.default_rng(5).standard_normal((3, 2)).astype(np.float32)}


def grads():
    """d mean(x @ w * scale) / dw for loss = mean(x@w) + mean(x@v * 3), per parameter."""
    g = X.T @ np.full((4, 2), 1.0 / 8, np.float32)
    return {"w": g, "v": 3 * g}


def step(make_opt, attrs=None, before_minimize=None):
    """One SGD-like step; returns (program, {param: new value})."""
    attrs = attrs or {}
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [4, 3], "float32")
        p = {n: paddle.create_parameter([3, 2], "float32", attr=paddle.ParamAttr(
            name=n, **attrs.get(n, {}))) for n in W}
        loss = paddle.layers.mean(paddle.matmul(x, p["w"])) + \
            paddle.layers.mean(paddle.scale(paddle.matmul(x, p["v"]), 3.0))
        if before_minimize:
            before_minimize(main)
        make_opt().minimize(loss)
    exe = paddle.static.Executor(paddle.CPUPlace())
    scope = paddle.static.Scope()
    with paddle.static.scope_guard(scope):
        exe.run(startup)
        for n, v in W.items():
            scope.find_var(n).get_tensor().set(v, paddle.CPUPlace())
        exe.run(main, feed={"x": X})
        return main, {n: np.array(scope.find_var(n).get_tensor()) for n in W}


def optimize_ops(main):
    ops = main.global_block().ops
    first = next(i for i, op in enumerate(ops) if op.attr("op_role") == 2)
    return [(op.type, op.input_arg_names, op.output_arg_names) for op in ops[first:]]


def test_l2_decay_as_paddle_appends_it():
    main, new = step(lambda: paddle.optimizer.SGD(1.0, weight_decay=0.1))
    g = grads()
    for n in W:
        np.testing.assert_allclose(W[n] - new[n], g[n] + 0.1 * W[n], rtol=1e-5)
    seq = optimize_ops(main)
    assert [t for t, _, _ in seq] == ["scale", "sum", "scale", "sum", "sgd", "sgd"]
    scale, total = seq[0], seq[1]
    assert scale[1] == ["v"] and total[1] == ["v@GRAD", scale[2][0]] and total[2] == ["v@GRAD"]
    scale_op = next(op for op in main.global_block().ops if op.type == "scale" and
                    op.attr("op_role") == 2)
    assert scale_op.attr("scale") == float(np.float32(0.1)) != 0.1  # stored as float32


def test_l1_decay_and_own_regularizer_wins():
    own = {"w": {"regularizer": paddle.regularizer.L2Decay(0.25)}}
    main, new = step(lambda: paddle.optimizer.SGD(1.0, weight_decay=paddle.regularizer.L1Decay(
        0.5)), own)
    g = grads()
    np.testing.assert_allclose(W["w"] - new["w"], g["w"] + 0.25 * W["w"], rtol=1e-5)
    np.testing.assert_allclose(W["v"] - new["v"], g["v"] + 0.5 * np.sign(W["v"]), rtol=1e-5)
    assert [t for t, _, _ in optimize_ops(main)] == ["sign", "scale", "sum", "scale", "sum",
                                                     "sgd", "sgd"]


def test_fluid_1x_regularization_names():
    main, new = step(lambda: fluid.optimizer.SGDOptimizer(
        learning_rate=1.0, regularization=fluid.regularizer.L2DecayRegularizer(0.5)))
    np.testing.assert_allclose(W["v"] - new["v"], grads()["v"] + 0.5 * W["v"], rtol=1e-5)
    assert fluid.regularizer.L1DecayRegularizer is paddle.regularizer.L1Decay


def test_momentum_folds_l2_into_its_op():
    main, new = step(lambda: paddle.optimizer.Momentum(1.0, momentum=0.9, weight_decay=0.5))
    assert [t for t, _, _ in optimize_ops(main)] == ["momentum", "momentum"]
    op = next(op for op in main.global_block().ops if op.type == "momentum")
    assert op.attr("regularization_method") == "l2_decay"
    np.testing.assert_allclose(W["v"] - new["v"], grads()["v"] + 0.5 * W["v"], rtol=1e-5)


def test_clip_by_value():
    main, new = step(lambda: paddle.optimizer.SGD(1.0, grad_clip=paddle.nn.ClipGradByValue(
        0.2, -0.1)))
    for n, g in grads().items():
        np.testing.assert_allclose(W[n] - new[n], np.clip(g, -0.1, 0.2), rtol=1e-6)
    assert {t for t, _, _ in optimize_ops(main)} == {"clip", "sgd"}


def test_clip_by_norm():
    step_ = step(lambda: paddle.optimizer.SGD(1.0, grad_clip=paddle.nn.ClipGradByNorm(0.5)))[1]
    for n, g in grads().items():
        norm = np.linalg.norm(g)
        np.testing.assert_allclose(W[n] - step_[n], g * 0.5 / norm if norm > 0.5 else g,
                                   rtol=1e-5)


@pytest.mark.parametrize("limit", [0.3, 100.0])
def test_clip_by_global_norm_and_need_clip(limit):
    attrs = {"v": {"need_clip": False}}
    main, new = step(lambda: paddle.optimizer.SGD(
        1.0, grad_clip=paddle.nn.ClipGradByGlobalNorm(limit)), attrs)
    g = grads()
    norm = np.linalg.norm(g["w"])  # v is left out of the norm and unclipped
    np.testing.assert_allclose(W["w"] - new["w"], g["w"] * limit / max(limit, norm), rtol=1e-5)
    np.testing.assert_allclose(W["v"] - new["v"], g["v"], rtol=1e-6)
    types = [t for t, _, _ in optimize_ops(main)]
    assert types == ["squared_l2_norm", "sum", "sqrt", "fill_constant", "elementwise_max",
                     "elementwise_div", "elementwise_mul", "sgd", "sgd"]


def test_global_norm_then_decay_order():
    """Paddle clips first, then adds weight decay to the clipped gradient."""
    new = step(lambda: paddle.optimizer.SGD(1.0, weight_decay=0.5,
                                            grad_clip=paddle.nn.ClipGradByGlobalNorm(0.3)))[1]
    g = grads()
    scale = 0.3 / max(0.3, np.sqrt(sum(np.sum(v ** 2) for v in g.values())))
    for n in W:
        np.testing.assert_allclose(W[n] - new[n], g[n] * scale + 0.5 * W[n], rtol=1e-5)


def test_set_gradient_clip_and_its_precedence():
    def mark(main):
        fluid.clip.set_gradient_clip(fluid.clip.GradientClipByValue(0.05), program=main)

    new = step(lambda: fluid.optimizer.SGD(1.0), before_minimize=mark)[1]
    for n, g in grads().items():
        np.testing.assert_allclose(W[n] - new[n], np.clip(g, -0.05, 0.05), rtol=1e-6)
    # an optimizer's own grad_clip wins over set_gradient_clip
    new = step(lambda: fluid.optimizer.SGD(1.0, grad_clip=fluid.clip.GradientClipByValue(1.0)),
               before_minimize=mark)[1]
    for n, g in grads().items():
        np.testing.assert_allclose(W[n] - new[n], np.clip(g, -1.0, 1.0), rtol=1e-6)


def test_nn_clip_is_a_module():
    import fluidc.nn.clip as clip_module
    assert clip_module is paddle.nn.clip
    assert clip_module.ClipGradByNorm is paddle.nn.ClipGradByNorm is fluid.clip.GradientClipByNorm
    assert clip_module.set_gradient_clip is fluid.clip.set_gradient_clip


def test_need_clip_false_on_block_parameter_keeps_its_gradient():
    """block.create_parameter(need_clip=False), as Paddle's Parameter takes it."""
    block = paddle.static.default_main_program().global_block()
    x = block.create_parameter(name="x", shape=[2, 3], dtype="float32", need_clip=False)
    y = block.create_parameter(name="y", shape=[2, 3], dtype="float32")
    for clip in (paddle.nn.ClipGradByNorm(0.1), paddle.nn.ClipGradByValue(0.1)):
        out = clip([(x, None), (x, y)])
        assert [(p.name, g.name) for p, g in out] == [("x", "y")]


def test_clip_argument_errors():
    with pytest.raises(ValueError):
        paddle.nn.ClipGradByValue(-1.0)
    with pytest.raises(TypeError):
        fluid.clip.set_gradient_clip("value")
    with pytest.raises(TypeError):
        paddle.nn.ClipGradByGlobalNorm(1.0, auto_skip_clip=1)
