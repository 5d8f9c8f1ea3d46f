"""Control flow with sub-blocks: paddle.static.nn.cond / case / switch_case / while_loop against
numpy and the reference executor, gradients through cond from fluidc's own append_backward,
and Paddle 3.3.1's own cond/while programs (fixtures written
by tests/fixtures/make_control_flow_fixtures.py) run here with Paddle's numbers."""
import os

import numpy as np
import pytest

import fluidc as paddle
from fluidc.frontend.errors import FluidcError
from fluidc.runtime import proto
from fluidc.runtime.program_desc import BLOCK, parse_program, serialize_program
from fluidc.runtime.reference import ReferencePlan

FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures", "paddle", "control_flow")
nn = paddle.static.nn


def _programs():
    return paddle.static.Program(), paddle.static.Program()


def _run(main, feed, fetch, startup=None, scope=None):
    exe = paddle.static.Executor(paddle.CPUPlace())
    scope = scope or paddle.static.Scope()
    if startup is not None:
        exe.run(startup, scope=scope)
    return exe.run(main, feed=feed, fetch_list=fetch, scope=scope), scope


def test_cond_with_parameters_in_branches_matches_numpy():
    main, startup = _programs()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [4, 3], "float32")
        p = paddle.static.data("p", [1], "bool")
        out = nn.cond(p, lambda: nn.fc(x, 2), lambda: nn.fc(x, 2) * 3.0)
    ops = [op.type for op in main.global_block().ops]
    assert ops == ["conditional_block", "logical_not", "conditional_block", "cast",
                   "select_input"]
    xv = np.random.default_rng(0).standard_normal((4, 3)).astype("float32")
    exe = paddle.static.Executor(paddle.CPUPlace())
    scope = paddle.static.Scope()
    exe.run(startup, scope=scope)
    w = {n: np.array(scope.find_var(n)._tensor.numpy())
         for n in ("fc_0.w_0", "fc_0.b_0", "fc_1.w_0", "fc_1.b_0")
         if scope.find_var(n) is not None}
    names = sorted(w)
    (b0, w0), (b1, w1) = (w[names[0]], w[names[1]]), (w[names[2]], w[names[3]])
    for pv, want in ((True, xv @ w0 + b0), (False, (xv @ w1 + b1) * 3.0)):
        (got,) = exe.run(main, feed={"x": xv, "p": np.array([pv])}, fetch_list=[out],
                         scope=scope)
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_case_and_switch_case_pick_the_branch_numpy_says():
    main, startup = _programs()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [3], "float32")
        k = paddle.static.data("k", [1], "int32")
        c = nn.case([(x.sum() > 10.0, lambda: x * 2.0), (x.sum() > 0.0, lambda: x + 1.0)],
                    default=lambda: x * 0.0)
        s = nn.switch_case(k, {1: lambda: x - 1.0, 3: lambda: x * x}, default=lambda: -x)
    for xv in (np.array([5., 5., 5.]), np.array([1., 2., 3.]), np.array([-1., -2., 0.])):
        for kv in (1, 3, 7):
            (cv, sv), _ = _run(main, {"x": xv.astype("float32"), "k": np.array([kv], "int32")},
                               [c, s])
            want_c = xv * 2 if xv.sum() > 10 else xv + 1 if xv.sum() > 0 else xv * 0
            want_s = {1: xv - 1, 3: xv * xv}.get(kv, -xv)
            np.testing.assert_allclose(cv, want_c)
            np.testing.assert_allclose(sv, want_s)


def test_while_loop_matches_numpy():
    main, startup = _programs()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [2, 3], "float32")
        i = paddle.full([1], 0, "int64")
        n = paddle.static.data("n", [1], "int64")
        i_out, y = nn.while_loop(lambda i, y: i < n, lambda i, y: [i + 1, y * 0.5 + 1.0], [i, x])
    assert [op.type for op in main.global_block().ops][-1] == "while"
    xv = np.arange(6, dtype="float32").reshape(2, 3)
    for steps in (0, 1, 5):
        (iv, yv), _ = _run(main, {"x": xv, "n": np.array([steps])}, [i_out, y])
        want = xv.copy()
        for _ in range(steps):
            want = want * 0.5 + 1.0
        assert iv.tolist() == [steps]
        np.testing.assert_allclose(yv, want, rtol=1e-6)


def _nested_program():
    main, startup = _programs()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [2, 3], "float32")
        i = paddle.full([1], 0, "int64")
        n = paddle.full([1], 6, "int64")
        two = paddle.full([1], 2, "int64")

        def body(i, x):
            x = nn.cond(i < two, lambda: x * 2.0, lambda: x - 1.0)
            return [i + 1, x]

        outs = nn.while_loop(lambda i, x: i < n, body, [i, x])
    return main, outs


def test_cond_nested_in_while_matches_numpy_and_the_reference_executor():
    main, (i_out, y) = _nested_program()
    xv = np.arange(6, dtype="float32").reshape(2, 3)
    (iv, yv), scope = _run(main, {"x": xv}, [i_out, y])
    want = xv.copy()
    for k in range(6):
        want = want * 2.0 if k < 2 else want - 1.0
    assert iv.tolist() == [6]
    np.testing.assert_allclose(yv, want)
    ref = ReferencePlan(main, ["x"], [i_out.name, y.name]).run({"x": xv},
                                                                paddle.static.Scope())
    np.testing.assert_allclose(ref[1], want)


def test_saved_cond_program_keeps_block_attrs_and_runs_after_loading():
    main, (i_out, y) = _nested_program()
    data = serialize_program(main)
    msg = proto.ProgramDesc()
    msg.ParseFromString(data)
    # the while body (block 1) holds the cond's two branch blocks
    assert [b.parent_idx for b in msg.blocks] == [-1, 0, 1, 1]
    attrs = {a.name: a for op in msg.blocks[0].ops if op.type == "while" for a in op.attrs}
    assert attrs["sub_block"].type == BLOCK and attrs["sub_block"].block_idx == 1
    loaded = parse_program(data)
    xv = np.ones((2, 3), "float32")
    (want,), _ = _run(main, {"x": xv}, [y])
    (got,), _ = _run(loaded, {"x": xv}, [y.name])
    np.testing.assert_allclose(got, want)


def test_paddle_cond_training_program_runs_with_paddles_numbers():
    """Paddle's cond + append_backward + sgd program (conditional_block_grad, select_output)
    trained three steps here from Paddle's initial parameters."""
    ref = np.load(os.path.join(FIXTURES, "expected.npz"))
    with open(os.path.join(FIXTURES, "cond_train.pdmodel"), "rb") as f:
        main = parse_program(f.read())
    types = {op.type for b in main.blocks for op in b.ops}
    assert {"conditional_block", "conditional_block_grad", "select_input",
            "select_output"} <= types
    exe = paddle.static.Executor(paddle.CPUPlace())
    scope = paddle.static.Scope()
    params = [str(n) for n in ref["cond_params"]]
    for name in params:
        scope.var(name).get_tensor().set(ref[f"cond_init_{name}"], paddle.CPUPlace())
    for v in main.global_block().vars.values():  # sgd's learning rate (Paddle's startup sets it)
        if v.persistable and v.name.startswith("learning_rate"):
            scope.var(v.name).get_tensor().set(np.array([0.1], "float32"), paddle.CPUPlace())
    for step in range(3):
        (loss,) = exe.run(main, feed={"x": ref[f"cond_x_{step}"], "p": ref[f"cond_p_{step}"]},
                          fetch_list=[str(ref["cond_loss_name"])], scope=scope)
        np.testing.assert_allclose(loss, ref[f"cond_loss_{step}"], rtol=1e-5)
        for name in params:
            np.testing.assert_allclose(np.array(scope.find_var(name).get_tensor()),
                                       ref[f"cond_{name}_{step}"], rtol=1e-5, atol=1e-7)


def test_paddle_while_with_nested_cond_runs_with_paddles_numbers():
    ref = np.load(os.path.join(FIXTURES, "expected.npz"))
    with open(os.path.join(FIXTURES, "while_cond.pdmodel"), "rb") as f:
        main = parse_program(f.read())
    fetch = [op.input("X")[0] for op in main.global_block().ops if op.type == "fetch"]
    (iv, yv), _ = _run(main, {"x": ref["while_x"]}, fetch)
    np.testing.assert_array_equal(iv, ref["while_i"])
    np.testing.assert_allclose(yv, ref["while_y"], rtol=1e-6)


def _cond_training_program():
    """loss = mean(cond(p, fc_a(x), 3 * fc_b(x)) ** 2), minimized by SGD(0.1)."""
    main, startup = _programs()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [4, 3], "float32")
        p = paddle.static.data("p", [1], "bool")
        out = nn.cond(p, lambda: nn.fc(x, 2), lambda: nn.fc(x, 2) * 3.0)
        loss = paddle.mean(out * out)
        paddle.optimizer.SGD(learning_rate=0.1).minimize(loss)
    conds = [op for op in main.global_block().ops if op.type == "conditional_block"]
    # each branch's (w, b), read off its conditional_block's inputs
    branches = [tuple(sorted((n for n in op.input("Input") if n != "x"), reverse=True))
                for op in conds]
    return main, startup, loss, branches


def _numpy_loss(params, branches, xv, pv):
    w, b = (params[n] for n in branches[0 if pv else 1])
    y = xv @ w + b
    y = y if pv else 3.0 * y
    return float(np.mean(y * y))


def _finite_difference_grads(params, branches, xv, pv, eps=1e-4):
    grads = {}
    for name, value in params.items():
        g = np.zeros_like(value)
        for idx in np.ndindex(value.shape):
            for sign in (1, -1):
                moved = dict(params)
                moved[name] = value.astype("float64").copy()
                moved[name][idx] += sign * eps
                g[idx] += sign * _numpy_loss(moved, branches, xv, pv) / (2 * eps)
        grads[name] = g
    return grads


def test_cond_backward_builds_paddles_grad_blocks():
    main, _, _, branches = _cond_training_program()
    block = main.global_block()
    grads = [op for op in block.ops if op.type == "conditional_block_grad"]
    forward = [op for op in block.ops if op.type == "conditional_block"]
    # one grad op per branch, in reverse order, after select_input's grad (select_output)
    types = [op.type for op in block.ops]
    assert types.index("select_output") < types.index("conditional_block_grad")
    assert [g.input("Out") for g in grads] == [f.output("Out") for f in forward[::-1]]
    for g, f in zip(grads, forward[::-1]):
        assert g.input("Input") == f.input("Input") and g.input("Cond") == f.input("Cond")
        assert g.input("Out@GRAD") == [n + "@GRAD" for n in f.output("Out")]
        gb = main.block(g.attr("sub_block"))
        assert gb.parent_idx == 0 and gb.forward_block_idx == f.attr("sub_block")
        assert gb.ops[0].type == "assign" and gb.ops[0].input("X") == g.input("Out@GRAD")
        # x is data (stop_gradient): no grad for it; the branch's params get theirs
        assert g.output("Input@GRAD") == [n + "@GRAD" if n != "x" else "@EMPTY@"
                                          for n in g.input("Input")]
    assert sorted(n for pair in branches for n in pair) == sorted(
        p.name for p in block.all_parameters())


def test_cond_branches_train_with_sgd_as_numpy_and_finite_differences_say():
    main, startup, loss, branches = _cond_training_program()
    exe = paddle.static.Executor(paddle.CPUPlace())
    scope = paddle.static.Scope()
    exe.run(startup, scope=scope)
    names = [n for pair in branches for n in pair]
    params = {n: np.array(scope.find_var(n).get_tensor()).astype("float64") for n in names}
    rng = np.random.default_rng(3)
    for step, pv in enumerate((True, False, False, True, False)):
        xv = rng.standard_normal((4, 3)).astype("float32")
        got = exe.run(main, feed={"x": xv, "p": np.array([pv])},
                      fetch_list=[loss] + [n + "@GRAD" for n in names], scope=scope)
        fd = _finite_difference_grads(params, branches, xv.astype("float64"), pv)
        np.testing.assert_allclose(got[0], _numpy_loss(params, branches, xv, pv), rtol=1e-5)
        for name, g in zip(names, got[1:]):
            np.testing.assert_allclose(g, fd[name], rtol=1e-3, atol=1e-4,
                                       err_msg=f"step {step} {name}")
        untaken = branches[1 if pv else 0]
        for name in untaken:  # the untaken branch's grads are zeros, as Paddle's
            assert not np.any(got[1 + names.index(name)])
        params = {n: params[n] - 0.1 * fd[n] for n in names}
        for name in names:
            np.testing.assert_allclose(np.array(scope.find_var(name).get_tensor()),
                                       params[name], rtol=1e-4, atol=1e-5)


def test_cond_training_program_saves_and_loads_with_its_grad_blocks():
    main, startup, loss, branches = _cond_training_program()
    data = serialize_program(main)
    msg = proto.ProgramDesc()
    msg.ParseFromString(data)
    assert [(b.parent_idx, b.forward_block_idx) for b in msg.blocks] == [
        (-1, -1), (0, -1), (0, -1), (0, 2), (0, 1)]
    loaded = parse_program(data)
    assert [b.forward_block_idx for b in loaded.blocks] == [-1, -1, -1, 2, 1]
    names = [n for pair in branches for n in pair]
    exe = paddle.static.Executor(paddle.CPUPlace())
    scopes = [paddle.static.Scope(), paddle.static.Scope()]
    exe.run(startup, scope=scopes[0])
    for n in [v.name for v in main.global_block().vars.values() if v.persistable]:
        scopes[1].var(n).get_tensor().set(np.array(scopes[0].find_var(n).get_tensor()),
                                          paddle.CPUPlace())
    rng = np.random.default_rng(5)
    for pv in (False, True, False):
        feed = {"x": rng.standard_normal((4, 3)).astype("float32"), "p": np.array([pv])}
        (want,) = exe.run(main, feed=feed, fetch_list=[loss], scope=scopes[0])
        (got,) = exe.run(loaded, feed=feed, fetch_list=[loss.name], scope=scopes[1])
        np.testing.assert_allclose(got, want, rtol=1e-6)
    for n in names:
        np.testing.assert_allclose(np.array(scopes[1].find_var(n).get_tensor()),
                                   np.array(scopes[0].find_var(n).get_tensor()), rtol=1e-6)


def test_gradients_through_case_nested_conds_match_numpy():
    """case nests a cond in the false branch of another: the inner grad blocks are children
    of the outer grad block; x feeds every branch, so its grads are summed."""
    main, startup = _programs()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [3], "float32")
        x.stop_gradient = False
        c = nn.case([(x.sum() > 10.0, lambda: x * 2.0), (x.sum() > 0.0, lambda: x * x)],
                    default=lambda: x * 0.5)
        (gx,) = paddle.static.gradients([paddle.mean(c)], [x])
    for xv in ([5., 5., 5.], [1., 2., 3.], [-1., -2., 0.]):
        xv = np.array(xv, "float32")
        (got,), _ = _run(main, {"x": xv}, [gx])
        want = (np.full(3, 2.0) if xv.sum() > 10 else 2 * xv if xv.sum() > 0
                else np.full(3, 0.5)) / 3
        np.testing.assert_allclose(got, want, rtol=1e-6)


# -- Variable == / !=, branches of different shapes, loop-var structures ----------------------

def test_variable_equality_builds_paddles_equal_and_not_equal_ops():
    """`x == y` / `x != y` with a Variable or a number build equal / not_equal (bool vars,
    broadcast as Paddle's), so `(i % 2) == 0` is a cond predicate; other operands compare by
    identity and hashing stays by identity."""
    rng = np.random.default_rng(3)
    main, startup = _programs()
    with paddle.static.program_guard(main, startup):
        a = paddle.static.data("a", [4, 3], "int64")
        b = paddle.static.data("b", [3], "int64")
        i = paddle.static.data("i", [1], "int32")
        eq, ne, even = a == b, a != 2, (i % 2) == 0
        flipped = 1 == a  # int.__eq__ gives way to Variable.__eq__
        out = nn.cond(even, lambda: paddle.full([1], 1.0), lambda: paddle.full([1], -1.0))
    assert [v.dtype for v in (eq, ne, even, flipped)] == [paddle.bool] * 4
    assert eq.shape == (4, 3) and even.shape == (1,)
    assert (a == None) is False and (a != "a") is True and a in {a} and b not in {a}
    av, bv = rng.integers(0, 3, (4, 3)), rng.integers(0, 3, 3)
    for iv in (2, 5):
        got, _ = _run(main, {"a": av, "b": bv, "i": np.array([iv], "int32")},
                      [eq, ne, flipped, out])
        np.testing.assert_array_equal(got[0], av == bv)
        np.testing.assert_array_equal(got[1], av != 2)
        np.testing.assert_array_equal(got[2], av == 1)
        assert got[3].tolist() == [1.0 if iv % 2 == 0 else -1.0]


def test_apis_taking_lists_of_variables_match_them_by_identity():
    """fluidc's own code finds vars in lists by identity: with == building ops, a membership
    test by == would take any var for any other (and append equal ops to the program)."""
    main, startup = _programs()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [2, 3], "float32")
        x.stop_gradient = False
        h1 = nn.fc(x, 3)
        h2 = nn.fc(h1, 2)
        loss = paddle.mean(h2)
        w2 = main.global_block().var("fc_1.w_0")
        pairs = paddle.static.append_backward(loss, parameter_list=[w2])
        gx, gh = paddle.static.gradients([loss], [x, h1])
    assert [p.name for p, _ in pairs] == ["fc_1.w_0"]
    types = [op.type for op in main.global_block().ops]
    assert "equal" not in types and "not_equal" not in types
    xv = np.random.default_rng(0).standard_normal((2, 3)).astype("float32")
    (lv, gxv, ghv), _ = _run(main, {"x": xv}, [loss, gx, gh], startup)
    assert gxv.shape == (2, 3) and ghv.shape == (2, 3) and np.isfinite(lv)


def _branch_program(n: int, a: int, b: int):
    """cond / case / switch_case whose branches give values of different shapes ([n, a],
    [n, 2b], [n, a + b]), read by ops after them, and a switch_case nested in a cond."""
    main, startup = _programs()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [n, a], "float32")
        y = paddle.static.data("y", [n, b], "float32")
        p = paddle.static.data("p", [1], "bool")
        k = paddle.static.data("k", [1], "int32")
        c = nn.cond(p, lambda: x * 2.0, lambda: paddle.concat([y, y], axis=1))
        s = nn.switch_case(k, {0: lambda: x + 1.0, 1: lambda: y * y},
                           default=lambda: paddle.concat([x, y], axis=1))
        e = nn.case([(paddle.logical_not(p), lambda: y - 1.0)], default=lambda: x)
        nested = nn.cond(p, lambda: nn.switch_case(k, [lambda: x, lambda: y]),
                         lambda: paddle.concat([x, x], axis=1))
        total = paddle.sum(c, axis=1) + paddle.mean(s, axis=1) + paddle.sum(nested * 3.0, axis=1)
    return main, [c, s, e, nested, total]


def _branch_numpy(xv, yv, pv, kv):
    c = xv * 2 if pv else np.concatenate([yv, yv], 1)
    s = {0: xv + 1, 1: yv * yv}.get(kv, np.concatenate([xv, yv], 1))
    e = xv if pv else yv - 1
    nested = ([xv, yv][min(kv, 1)] if pv else np.concatenate([xv, xv], 1))
    return [c, s, e, nested, c.sum(1) + s.mean(1) + (nested * 3).sum(1)]


@pytest.mark.parametrize("seed", range(3))
def test_branches_of_different_shapes_give_the_taken_ones_value(seed):
    """Paddle merges the branches' shapes (the dims they disagree on are -1); the value has the
    taken branch's shape, and the ops after it run on it: fused, unfused and on the reference
    executor, for random shapes."""
    rng = np.random.default_rng(seed)
    n, a = (int(d) for d in rng.integers(1, 5, 2))
    b = a + int(rng.integers(1, 3))  # a != 2b and a != b: every join has two shapes
    main, outs = _branch_program(n, a, b)
    assert outs[0].shape == (n, -1) and outs[3].shape == (n, -1)
    plain = paddle.static.BuildStrategy()
    plain.fuse_all = False
    unfused = paddle.static.CompiledProgram(main, build_strategy=plain)
    exe = paddle.static.Executor(paddle.CPUPlace())
    names = [v.name for v in outs]
    for pv in (True, False):
        for kv in (0, 1, 4):
            feed = {"x": rng.standard_normal((n, a)).astype("float32"),
                    "y": rng.standard_normal((n, b)).astype("float32"),
                    "p": np.array([pv]), "k": np.array([kv], "int32")}
            want = _branch_numpy(feed["x"], feed["y"], pv, kv)
            fused = exe.run(main, feed=feed, fetch_list=outs)
            flat = exe.run(unfused, feed=feed, fetch_list=outs)
            ref = ReferencePlan(main, list(feed), names).run(feed, paddle.static.Scope())
            for got in (fused, flat, ref):
                for g, w in zip(got, want):
                    assert g.shape == w.shape
                    np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)


def test_gradient_through_branches_of_different_shapes_matches_numpy():
    rng = np.random.default_rng(7)
    n, a = 3, 4
    main, startup = _programs()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [n, a], "float32")
        x.stop_gradient = False
        p = paddle.static.data("p", [1], "bool")
        out = nn.cond(p, lambda: x[:, :1] * 3.0, lambda: paddle.concat([x, x * x], axis=1))
        loss = paddle.mean(out)
        (gx,) = paddle.static.gradients([loss], [x])
    for pv in (True, False):
        xv = rng.standard_normal((n, a)).astype("float32")
        feed = {"x": xv, "p": np.array([pv])}
        (lv, gv), _ = _run(main, feed, [loss, gx])
        if pv:
            want_l, want_g = (xv[:, :1] * 3).mean(), np.zeros_like(xv)
            want_g[:, 0] = 3.0 / n
        else:
            want_l, want_g = np.concatenate([xv, xv * xv], 1).mean(), (1 + 2 * xv) / (2 * n * a)
        np.testing.assert_allclose(lv, want_l, rtol=1e-5)
        np.testing.assert_allclose(gv, want_g, rtol=1e-5, atol=1e-7)
        ref = ReferencePlan(main, list(feed), [gx.name]).run(feed, paddle.static.Scope())
        np.testing.assert_allclose(ref[0], want_g, rtol=1e-5, atol=1e-7)


def test_fed_persistable_var_is_set_in_the_scope_for_the_branches():
    """As Paddle's feed op, feeding a persistable var sets it in the scope, where the branch
    blocks (compiled on their own) read it."""
    main, startup = _programs()
    with paddle.static.program_guard(main, startup):
        img = paddle.static.data("img", [-1, 3], "float32")
        img.persistable = True
        p = paddle.static.data("p", [1], "bool")
        out = nn.cond(p, lambda: paddle.mean(img), lambda: paddle.sum(img))
    for rows, pv in ((2, True), (4, False)):
        v = np.arange(rows * 3, dtype="float32").reshape(rows, 3)
        (got,), scope = _run(main, {"img": v, "p": np.array([pv])}, [out])
        np.testing.assert_allclose(got, v.mean() if pv else v.sum())
        np.testing.assert_array_equal(np.array(scope.find_var("img").get_tensor()), v)


def test_while_loop_takes_dicts_and_nested_lists_and_returns_the_parent_vars():
    main, startup = _programs()
    with paddle.static.program_guard(main, startup):
        i = paddle.full([1], 0, "int64")
        n = paddle.full([1], 4, "int64")
        state = {"acc": paddle.full([2], 1.0), "hist": [paddle.full([1], 0.0)]}

        def body(i, state):
            state["acc"] = state["acc"] * 2.0
            state["hist"][0] = state["hist"][0] + 1.0
            return [i + 1, state]

        i_out, out = nn.while_loop(lambda i, s: i < n, body, [i, state])
    assert out["acc"] is state["acc"] and out["hist"][0] is state["hist"][0]
    assert all(v.block.idx == 0 for v in (i_out, out["acc"], out["hist"][0]))
    (iv, acc, hist), _ = _run(main, {}, [i_out, out["acc"], out["hist"][0]])
    assert iv.tolist() == [4] and acc.tolist() == [16.0, 16.0] and hist.tolist() == [4.0]


def test_structure_errors_of_while_loop_and_cond_are_paddles():
    main, startup = _programs()
    with paddle.static.program_guard(main, startup):
        i = paddle.full([1], 0, "int64")
        p = paddle.static.data("p", [1], "bool")
        v = paddle.full([1], 1.0)

        def grows(i, d):
            d["new"] = paddle.full([1], 2.0)
            return [i + 1, d]

        with pytest.raises(ValueError, match="same arity"):
            nn.while_loop(lambda i, d: i < 3, grows, [i, {"v": v}])
        with pytest.raises(ValueError, match="same arity"):
            nn.while_loop(lambda i, l: i < 3, lambda i, l: [i + 1, l + [v]], [i, [v]])
        with pytest.raises(ValueError, match="Incompatible return values"):
            nn.cond(p, lambda: {"a": v}, lambda: {"b": v})
        with pytest.raises(TypeError):
            nn.cond(p, lambda: v, lambda: v, name=set())


def test_minimize_inside_a_branch_runs_its_grad_block():
    """Paddle's TestMultiTask minimizes inside case branches: the grad and update ops go to a
    new block (child of the branch's parent, the branch its forward block) holding the grads
    through the fc layer outside the branch; a conditional_block_grad on the branch's
    condition runs it after the branch, as Paddle's legacy ConditionalBlock appends it. The
    fetched loss is the forward value; the taken branch's Adam makes its first step."""
    main, startup = _programs()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [2, 4], "float32")
        p = paddle.static.data("p", [1], "bool")

        def train(scale):
            loss = paddle.mean(nn.fc(x, 1) * scale)
            paddle.optimizer.Adam(0.1).minimize(loss)
            return loss

        out = nn.cond(p, lambda: train(1.0), lambda: train(-2.0))
    ops = main.global_block().ops
    branches = [main.block(op.attr("sub_block")) for op in ops if op.type == "conditional_block"]
    grad_blocks = [b for b in main.blocks if b.forward_block_idx >= 0]
    assert sorted(b.forward_block_idx for b in grad_blocks) == [b.idx for b in branches]
    assert [b.parent_idx for b in grad_blocks] == [0, 0]
    assert [main.block(op.attr("sub_block")) for op in ops
            if op.type == "conditional_block_grad"] == grad_blocks
    for b in grad_blocks:
        types = [op.type for op in b.ops]
        assert types.count("adam") == 2 and "elementwise_add_grad" in types
    for branch in branches:
        assert not any(op.type.endswith("_grad") or op.type == "adam" for op in branch.ops)
    exe = paddle.static.Executor(paddle.CPUPlace())
    scope = paddle.static.Scope()
    exe.run(startup, scope=scope)
    names = ["fc_0.w_0", "fc_0.b_0", "fc_1.w_0", "fc_1.b_0"]
    before = {n: np.array(scope.find_var(n).get_tensor()) for n in names}
    xv = np.random.default_rng(2).standard_normal((2, 4)).astype("float32")
    for pv, k, scale in ((True, 0, 1.0), (False, 1, -2.0)):
        (got,) = exe.run(main, feed={"x": xv, "p": np.array([pv])}, fetch_list=[out],
                         scope=scope)
        w, b = before[f"fc_{k}.w_0"], before[f"fc_{k}.b_0"]
        np.testing.assert_allclose(got, ((xv @ w + b) * scale).mean(), rtol=1e-5)
        # Adam's first step: lr times the sign of the grad (d loss / dw = scale * x's row mean)
        grads = {"w": scale * xv.mean(0)[:, None], "b": np.full(1, scale)}
        for part, g in grads.items():
            n = f"fc_{k}.{part}_0"
            np.testing.assert_allclose(np.array(scope.find_var(n).get_tensor()),
                                       before[n] - 0.1 * np.sign(g), rtol=1e-5, atol=1e-6)


def test_branches_of_different_shapes_inside_a_while_body():
    """The loop vars keep their shapes; the body's own plan is staged at the join."""
    rng = np.random.default_rng(11)
    main, startup = _programs()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [3, 5], "float32")
        p = paddle.static.data("p", [1], "bool")
        i, s = paddle.full([1], 0, "int64"), paddle.full([1], 0.0)

        def body(i, s):
            v = nn.cond(p, lambda: x[:, :2] * 2.0, lambda: paddle.concat([x, x], axis=0))
            return [i + 1, s + paddle.mean(v)]

        _, total = nn.while_loop(lambda i, s: i < 4, body, [i, s])
    for pv in (True, False):
        feed = {"x": rng.standard_normal((3, 5)).astype("float32"), "p": np.array([pv])}
        (got,), _ = _run(main, feed, [total])
        want = 4 * ((feed["x"][:, :2] * 2).mean() if pv else feed["x"].mean())
        np.testing.assert_allclose(got, [want], rtol=1e-5)
        ref = ReferencePlan(main, list(feed), [total.name]).run(feed, paddle.static.Scope())
        np.testing.assert_allclose(ref[0], [want], rtol=1e-5)


def test_nested_branches_of_different_shapes_with_parameters_match_the_reference():
    """The split is the outer branch's conditional_block (its block holds the join): it runs on
    the host, its parameters bound from the scope."""
    main, startup = _programs()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [2, 4], "float32")
        p = paddle.static.data("p", [1], "bool")
        k = paddle.static.data("k", [1], "int32")
        out = nn.cond(p, lambda: nn.switch_case(k, [lambda: nn.fc(x, 2), lambda: nn.fc(x, 3)]),
                      lambda: x)
        total = paddle.sum(out * 2.0)
    exe = paddle.static.Executor(paddle.CPUPlace())
    scope = paddle.static.Scope()
    exe.run(startup, scope=scope)
    rng = np.random.default_rng(5)
    for pv, kv, cols in ((True, 0, 2), (True, 1, 3), (False, 1, 4)):
        feed = {"x": rng.standard_normal((2, 4)).astype("float32"), "p": np.array([pv]),
                "k": np.array([kv], "int32")}
        got = exe.run(main, feed=feed, fetch_list=[out, total], scope=scope)
        ref = ReferencePlan(main, list(feed), [out.name, total.name]).run(feed, scope)
        assert got[0].shape == (2, cols)
        for g, r in zip(got, ref):
            np.testing.assert_allclose(g, r, rtol=1e-5, atol=1e-6)
