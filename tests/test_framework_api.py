"""The framework API Paddle's tests use: gradients/append_backward, Program.desc, clone/prune,
random_seed, Variable methods and values, and Paddle's module paths."""
import numpy as np
import pytest

import fluidc as fluid
import fluidc as paddle
from fluidc.frontend.errors import FluidcError

RNG = np.random.default_rng(11)


def _run(main, feed, fetch):
    return fluid.Executor(fluid.CPUPlace()).run(main, feed=feed, fetch_list=fetch)


# -- gradients ----------------------------------------------------------------------------------

def _numeric_grad(f, x, eps=1e-3):
    g = np.zeros_like(x, dtype=np.float64)
    for i in np.ndindex(x.shape):
        hi, lo = x.copy(), x.copy()
        hi[i] += eps
        lo[i] -= eps
        g[i] = (f(hi) - f(lo)) / (2 * eps)
    return g


def test_gradients_match_finite_differences_with_target_gradients():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = paddle.static.data("x", [4, 3], "float64")
        x.stop_gradient = False
        w = paddle.static.data("w", [3, 2], "float64")
        w.stop_gradient = False
        dy = paddle.static.data("dy", [4, 2], "float64")
        h = paddle.matmul(x, w)
        y = paddle.tanh(h) * h
        gx, gw = paddle.static.gradients([y], [x, w], target_gradients=[dy])
    xv, wv, dyv = (RNG.standard_normal(s) for s in ((4, 3), (3, 2), (4, 2)))
    got_x, got_w = _run(main, {"x": xv, "w": wv, "dy": dyv}, [gx, gw])

    def f(xv_, wv_):
        hv = xv_ @ wv_
        return float(np.sum((np.tanh(hv) * hv) * dyv))
    np.testing.assert_allclose(got_x, _numeric_grad(lambda v: f(v, wv), xv), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(got_w, _numeric_grad(lambda v: f(xv, v), wv), rtol=1e-5, atol=1e-7)


def test_gradients_of_a_var_used_twice_sum_both_paths():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = paddle.static.data("x", [2, 3], "float32")
        x.stop_gradient = False
        zero = x - x
        (g0,) = fluid.gradients(zero, x)
        (g1,) = fluid.gradients(x * x, x)
    xv = RNG.standard_normal((2, 3)).astype("float32")
    r0, r1 = _run(main, {"x": xv}, [g0, g1])
    np.testing.assert_array_equal(r0, np.zeros_like(xv))
    np.testing.assert_allclose(r1, 2 * xv, rtol=1e-6)


def test_gradients_names_and_none_as_paddle():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = paddle.static.data("x", [2, 3], "float32")
        x.stop_gradient = False
        z = paddle.static.data("z", [2, 3], "float32")
        y = x * x
        assert [g.name for g in paddle.static.gradients(y, x)] == ["x@GRAD"]
        second = paddle.static.gradients(y, [x, z])
        assert second[0].name == "grad/grad/x@GRAD" and second[1] is None
        assert paddle.static.gradients(y, z) == []  # one input without a grad: Paddle's []
        with pytest.raises(ValueError, match="shapes of target and grad are different"):
            paddle.static.gradients([y], [x], target_gradients=[paddle.static.data("b", [3])])
        with pytest.raises(TypeError):
            paddle.static.gradients([y], ["x"])


def test_append_backward_parameter_list_no_grad_set_and_callbacks():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = fluid.data("x", [-1, 4], "float32")
        h = fluid.layers.fc(x, 3, param_attr=fluid.ParamAttr(name="w1"),
                            bias_attr=fluid.ParamAttr(name="b1"))
        loss = fluid.layers.mean(fluid.layers.fc(h, 1, param_attr=fluid.ParamAttr(name="w2"),
                                                 bias_attr=fluid.ParamAttr(name="b2")))
        seen = []
        pairs = fluid.backward.append_backward(
            loss, parameter_list=["w2", "w1"], no_grad_set={"b1"},
            callbacks=[lambda block, context: seen.append((block.idx, dict(context)))])
    assert [(p.name, g.name) for p, g in pairs] == [("w2", "w2@GRAD"), ("w1", "w1@GRAD")]
    assert not main.global_block().has_var("b1@GRAD") and not main.global_block().has_var("b2@GRAD")
    assert seen and seen[-1][0] == 0 and seen[-1][1]["w1@GRAD"] == "w1"
    writer = [op for op in main.global_block().ops if "w1@GRAD" in op.output_arg_names][-1]
    assert writer.attr("op_role_var")[:2] == ["w1", "w1@GRAD"]
    loss_op = [op for op in main.global_block().ops if loss.name in op.output_arg_names][0]
    assert loss_op.attr("op_role") & 256  # Paddle's OpRole.Loss
    with pytest.raises(TypeError, match="callbacks"):
        fluid.backward.append_backward(loss, callbacks=lambda **_: None)


def test_append_backward_grads_match_finite_differences():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = fluid.data("x", [3, 4], "float64")
        w = fluid.layers.create_parameter([4, 2], "float64", name="w")
        loss = fluid.layers.reduce_sum(fluid.layers.square(fluid.layers.tanh(
            fluid.layers.matmul(x, w))))
        ((p, g),) = paddle.static.append_backward(loss)
    exe = fluid.Executor(fluid.CPUPlace())
    scope = fluid.Scope()
    xv, wv = RNG.standard_normal((3, 4)), RNG.standard_normal((4, 2))
    with fluid.scope_guard(scope):
        exe.run(startup)
        w.set_value(wv)
        (got,) = exe.run(main, feed={"x": xv}, fetch_list=[g])
    want = _numeric_grad(lambda v: float(np.sum(np.tanh(xv @ v) ** 2)), wv)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-8)


def test_append_backward_reaches_a_var_made_from_nothing():
    # A var an input-less op makes (uniform_random, fill_constant) is a leaf for backward: with
    # stop_gradient False it gets a grad, as in Paddle; left True (the default) it gets none.
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = paddle.rand([2, 3], "float64")
        x.stop_gradient = False
        c = paddle.full([2, 3], 2.0, "float64")
        loss = paddle.sum(paddle.tanh(x) * c)
        paddle.static.append_backward(loss)
    block = main.global_block()
    assert not block.has_var(c.name + "@GRAD")
    xv, dx = _run(main, {}, [x, block.var(x.name + "@GRAD")])
    want = _numeric_grad(lambda v: float(np.sum(np.tanh(v) * 2.0)), xv)
    np.testing.assert_allclose(dx, want, rtol=1e-6)


# -- Program ------------------------------------------------------------------------------------

def _mlp():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.unique_name.guard(), fluid.program_guard(main, startup):
        x = paddle.static.data("x", [-1, 2], "float32")
        label = paddle.static.data("label", [-1, 1], "int64")
        y = fluid.layers.fc(x, 2, act="softmax")
        loss = fluid.layers.mean(fluid.layers.cross_entropy(y, label))
    return main, startup, x, y, label, loss


def test_random_seed_must_be_an_integer():
    p = fluid.Program()
    for err in (ValueError, TypeError):  # Paddle 3.x raises ValueError, 1.x TypeError
        with pytest.raises(err, match="must be an integer"):
            p.random_seed = "seed"
    p.random_seed = 5
    assert p.random_seed == 5 and p.clone().random_seed == 5


def test_create_block_and_rollback_as_paddle():
    p = fluid.Program()
    assert (p.current_block().idx, p.current_block().parent_idx) == (0, -1)
    assert (p._create_block().idx, p.current_block().parent_idx) == (1, 0)
    assert (p._create_block().idx, p.current_block().parent_idx) == (2, 1)
    p._rollback()
    assert (p.current_block().idx, p.current_block().parent_idx) == (1, 0)


def test_desc_serializes_the_bytes_a_save_writes(tmp_path):
    main, _, x, y, _, _ = _mlp()
    data = main.desc.serialize_to_string()
    fluid.save(main, str(tmp_path / "m.pdmodel"))
    assert data == (tmp_path / "m.pdmodel").read_bytes()
    back = fluid.Program.parse_from_string(data)
    assert [op.type for op in back.global_block().ops] == [op.type for op in main.global_block().ops]
    assert [v.name for v in back.list_vars()] == [v.name for v in main.list_vars()]


def test_desc_tracks_changes_and_hashes_equal_programs_equally():
    a, b = _mlp()[0], _mlp()[0]
    assert a.desc.need_update()
    a.desc.flush()
    assert not a.desc.need_update()
    assert a.desc.cached_hash_str() == b.desc.cached_hash_str() == a.clone().desc.cached_hash_str()
    before = a.desc.serialize_to_string()
    a.global_block().var("x").desc.set_stop_gradient(False)
    assert a.desc.need_update() and a.desc.serialize_to_string() != before
    assert a.global_block().desc.find_var(b"x").stop_gradient() is False
    assert a.global_block().desc.op_size() == len(a.global_block().ops)


def test_prune_and_prune_with_input_as_paddle():
    main, _, x, y, label, loss = _mlp()
    types = [op.type for op in main.global_block().ops]
    assert [op.type for op in main._prune(targets=loss).global_block().ops] == types
    pruned = main._prune_with_input(feeded_var_names=[y.name, label.name], targets=[loss])
    assert [op.type for op in pruned.global_block().ops] == types[-2:]
    assert [op.type for op in main.global_block().ops] == types  # the original is untouched
    with pytest.raises(ValueError, match="can only be str"):
        main._prune_with_input([2, 3], [])
    with pytest.raises(ValueError, match="can only be Variable or Operator"):
        main._prune(None)


def test_clone_keeps_parameters_and_for_test_drops_training_ops():
    main, startup, x, y, label, loss = _mlp()
    with fluid.program_guard(main, startup):
        fluid.optimizer.SGD(0.1).minimize(loss)
    assert len(main.clone().global_block().all_parameters()) == 2
    test = main.clone(for_test=True)
    assert not any(op.type.endswith("_grad") or op.type == "sgd" for op in test.global_block().ops)


# -- Variable -----------------------------------------------------------------------------------

def test_tensor_methods_on_static_vars():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = paddle.static.data("x", [2, 3], "float32")
        outs = [x.reshape([3, 2]), x.T, x.astype("int64"), x.sum(), x.mean(axis=1), x.exp(),
                x @ x.T, 2.0 ** x, x // 2.0, x % 2.0, x < 1.0, -x, abs(x), x.transpose([1, 0])]
        assert x.astype("float32") is x and x.ndim == 2 and x.dim() == 2 and x.ndimension() == 2
    xv = RNG.uniform(-3, 3, (2, 3)).astype("float32")
    got = _run(main, {"x": xv}, outs)
    want = [xv.reshape(3, 2), xv.T, xv.astype("int64"), xv.sum(), xv.mean(1), np.exp(xv),
            xv @ xv.T, 2.0 ** xv, np.floor_divide(xv, 2.0), np.mod(xv, 2.0), xv < 1.0, -xv,
            np.abs(xv), xv.T]
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)


def test_var_desc_and_identity_equality():
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        x = paddle.static.data("x", [-1, 2], "float32")
    assert x.desc.need_check_feed()
    x.desc.set_need_check_feed(False)
    assert not x.need_check_feed and x.desc.shape() == [-1, 2] and x.desc.name() == "x"
    # == builds Paddle's equal op; hashing (dicts, sets) stays by identity
    with fluid.program_guard(main, fluid.Program()):
        other = paddle.static.data("other", [1])
        eq = x == other
    assert x in {x} and other not in {x} and {x: 1}[x] == 1
    assert isinstance(eq, fluid.Variable) and main.global_block().ops[-1].type == "equal"


def test_parameter_get_value_and_set_value():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        w = fluid.layers.create_parameter([2, 3], "float32", name="gv_w")
    scope = fluid.Scope()
    with fluid.scope_guard(scope):
        fluid.Executor(fluid.CPUPlace()).run(startup)
        new = RNG.standard_normal((2, 3)).astype("float32")
        w.set_value(new)
        np.testing.assert_array_equal(np.array(w.get_value()), new)
        np.testing.assert_array_equal(np.array(w.get_value(scope)), new)
        with pytest.raises(ValueError, match=r"expected a shape \[2, 3\]"):
            w.set_value(np.zeros((3, 2), "float32"))
        with pytest.raises(TypeError):
            w.set_value("zeros")
    with pytest.raises(ValueError, match="Can not find Variable 'gv_w'"):
        w.get_value(fluid.Scope())


# -- modules ------------------------------------------------------------------------------------

def test_paddle_module_paths_import():
    import fluidc.layers as layers
    import fluidc.layers.nn
    from fluidc.backward import append_backward, gradients  # noqa: F401
    from fluidc.executor import Executor, global_scope, scope_guard  # noqa: F401
    from fluidc.framework import Program, default_main_program  # noqa: F401
    from fluidc.initializer import Constant  # noqa: F401
    from fluidc.param_attr import ParamAttr
    assert layers.fc is fluid.layers.fc is fluidc.layers.nn.fc
    assert ParamAttr is fluid.ParamAttr
    assert fluidc.layers.nn is fluid.frontend.layers.nn  # one module, two names
    from fluidc.tensor import creation, manipulation, math, stat
    assert stat.mean is paddle.tensor.mean is paddle.mean
    assert (creation.fill_constant, manipulation.gather, math.prod) == (
        paddle.tensor.fill_constant, paddle.gather, paddle.prod)


def test_non_scalar_loss_is_refused():
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        x = paddle.static.data("x", [2, 3], "float32")
        x.stop_gradient = False
        with pytest.raises(FluidcError, match="must hold one value"):
            fluid.backward.append_backward(x * 2.0)
