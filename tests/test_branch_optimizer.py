"""Optimizers minimizing inside ConditionalBlock branches (Paddle's append_backward in a
sub-block: grads through the branch and the blocks around it, the updates in the grad block,
run by the conditional_block_grad the block appends) against real Paddle's numbers
(tests/fixtures/paddle/branch_optimizer.npz, written by make_branch_optimizer_fixtures.py from
branch_optimizer_cases.py), and the program they build."""
import os
import sys

import numpy as np

import fluidc as paddle
import fluidc as fluid

FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures")
sys.path.insert(0, FIXTURES)
sys.path.insert(0, os.path.dirname(__file__))
from branch_optimizer_cases import _start_values, branch_optimizers  # noqa: E402
from op_harness import run_reference  # noqa: E402

paddle.enable_static()
REF = np.load(os.path.join(FIXTURES, "paddle", "branch_optimizer.npz"))


def test_branch_optimizers_match_paddle():
    got = branch_optimizers(paddle, fluid.layers.ConditionalBlock)
    assert sorted(got) == sorted(REF.files)
    for k in sorted(got):
        np.testing.assert_allclose(got[k], REF[k], rtol=2e-5, atol=1e-6, err_msg=k)
    # both branches trained: every parameter moved, on Adam's runs and on SGD's
    start = _start_values()
    for epoch in (0, 1):
        for name, value in start.items():
            assert not np.allclose(got[f"epoch{epoch}/{name}"], value), (epoch, name)
        start = {n: got[f"epoch{epoch}/{n}"] for n in start}


def test_grad_block_and_its_run():
    """The program Paddle builds: each branch's grad block (child of block 0, the branch its
    forward block) holds the grads through the fc layers outside the branch and the updates;
    a conditional_block_grad on the branch's condition follows its conditional_block."""
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [2, 4], "float32")
        loss = paddle.mean(paddle.static.nn.fc(x, 3))
        cond = paddle.static.data("c", [1], "bool")
        with fluid.layers.ConditionalBlock([cond], is_scalar_condition=True).block():
            paddle.optimizer.SGD(0.1).minimize(loss)
    ops = [op.type for op in main.global_block().ops]
    assert ops[-2:] == ["conditional_block", "conditional_block_grad"]
    grad_block = main.block(main.global_block().ops[-1].attr("sub_block"))
    assert (grad_block.parent_idx, grad_block.forward_block_idx) == (0, 1)
    assert [op.type for op in grad_block.ops] == [
        "fill_constant", "reduce_mean_grad", "elementwise_add_grad", "mul_grad", "sgd", "sgd"]
    exe = paddle.static.Executor(paddle.CPUPlace())
    exe.run(startup)
    w = paddle.static.global_scope().find_var(main.all_parameters()[0].name).get_tensor()
    before = np.array(w)
    xs = np.ones((2, 4), "float32")
    exe.run(main, feed={"x": xs, "c": np.array([False])})
    np.testing.assert_array_equal(np.array(w), before)  # branch not taken: no update
    exe.run(main, feed={"x": xs, "c": np.array([True])})
    # d mean(x @ w + b) / dw = mean over rows and columns: x's column sums / 6
    np.testing.assert_allclose(np.array(w), before - 0.1 * np.full((4, 3), 2 / 6), rtol=1e-6)


def test_reference_executor_runs_the_grad_block():
    """The numpy reference executor trains the branch as the compiled plan does: Adam in the
    taken branch of a cond, three runs alternating the branches."""
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [3, 4], "float32")
        p = paddle.static.data("p", [1], "bool")
        hidden = paddle.static.nn.fc(x, 5, activation="tanh")

        def train(scale):
            loss = paddle.mean(paddle.static.nn.fc(hidden, 2) * scale)
            paddle.optimizer.Adam(0.05).minimize(loss)
            return loss

        paddle.static.nn.cond(p, lambda: train(1.0), lambda: train(-0.5))
    names = [v.name for v in main.all_parameters()]
    exe = paddle.static.Executor(paddle.CPUPlace())
    scopes = [paddle.static.Scope(), paddle.static.Scope()]
    exe.run(startup, scope=scopes[0])
    for n in names + [v.name for v in startup.global_block().vars.values() if v.persistable]:
        value = scopes[0].find_var(n)
        if value is not None:
            scopes[1].var(n).get_tensor().set(np.array(value.get_tensor()), paddle.CPUPlace())
    start = {n: np.array(scopes[0].find_var(n).get_tensor()) for n in names}
    xv = np.random.default_rng(3).standard_normal((3, 4)).astype("float32")
    for taken in (True, False, True):
        feed = {"x": xv, "p": np.array([taken])}
        exe.run(main, feed=feed, scope=scopes[0])
        run_reference(main, feed, [], scopes[1])
    for n in names:
        compiled = np.array(scopes[0].find_var(n).get_tensor())
        np.testing.assert_allclose(np.array(scopes[1].find_var(n).get_tensor()), compiled,
                                   rtol=1e-5, atol=1e-6, err_msg=n)
        assert not np.allclose(compiled, start[n]), n  # every parameter trained
