"""Gradients through nested control flow: loops inside branches, branches inside loops, and
vars a block overwrites in place (tests/fixtures/control_flow_grad_cases.py), checked by finite
differences, against real Paddle 3.3.1's numbers (tests/fixtures/make_control_flow_grads.py)
where its legacy backward gets them right, and every BuildStrategy against the numpy reference
executor; then the backward of random control-flow programs (random_control_flow.py), compiled
against the reference executor."""
import os
import sys

import numpy as np
import pytest

import fluidc as fluid
import fluidc as paddle
from fluidc.frontend import unique_name

from op_harness import run_reference

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures"))
import control_flow_grad_cases as cases  # noqa: E402
import random_control_flow  # noqa: E402
from test_random_control_flow import STRATEGIES, _strategy  # noqa: E402

FIXTURE = os.path.join(os.path.dirname(__file__), "fixtures", "paddle", "control_flow_grads.npz")
with np.load(FIXTURE) as _f:
    PADDLE = {k: _f[k] for k in _f.files}
X = PADDLE["x"]


def _compiled(program, feed, names, flags):
    compiled = fluid.CompiledProgram(program, build_strategy=_strategy(flags))
    return fluid.Executor(fluid.CPUPlace()).run(compiled, feed=dict(feed), fetch_list=names,
                                                scope=fluid.Scope())


def _finite_difference(program, feed, loss, eps=1e-3):
    """d loss / d x by central differences of the reference executor's loss."""
    x = feed["x"].astype(np.float64)
    out = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        for sign in (1, -1):
            moved = x.copy()
            moved[i] += sign * eps
            got = run_reference(program, {**feed, "x": moved.astype(np.float32)}, [loss])[0]
            out[i] += sign * float(got) / (2 * eps)
    return out


@pytest.mark.parametrize("flags", cases.FLAGS, ids=lambda f: "".join(str(int(b)) for b in f))
@pytest.mark.parametrize("case", list(cases.CASES))
def test_grad_matches_finite_differences_paddle_and_reference(case, flags):
    with unique_name.guard():
        program, loss = cases.build(paddle, case)
    feed = {"x": X, "c": np.array([flags[0]]), "c2": np.array([flags[1]])}
    names = [loss.name, "x@GRAD"]
    want = run_reference(program, feed, names)
    np.testing.assert_allclose(want[1], _finite_difference(program, feed, loss.name),
                               rtol=1e-3, atol=2e-4, err_msg="reference vs finite differences")
    key = f"{case}/{int(flags[0])}{int(flags[1])}"
    if f"{key}/x@GRAD" in PADDLE:
        np.testing.assert_allclose(want[0], PADDLE[f"{key}/loss"], rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(want[1], PADDLE[f"{key}/x@GRAD"], rtol=1e-4, atol=1e-6,
                                   err_msg="reference vs Paddle")
    for label in ("defaults", "all_off"):
        for name, g, w in zip(names, _compiled(program, feed, names, STRATEGIES[label]), want):
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6, err_msg=f"{name} ({label})")


def _random_backward(seed):
    """A random control-flow program with the backward of mean(last fetch ** 2) to its float
    feeds; returns it, its feeds and the loss and grads to fetch."""
    with unique_name.guard():
        program, feed, fetch = random_control_flow.build(paddle, seed)
        block = program.global_block()
        with fluid.program_guard(program, fluid.Program()):
            for n in feed:
                if n.startswith("x"):
                    block.var(n).stop_gradient = False
            last = block.var(fetch[-1])
            loss = paddle.mean(last * last)
            fluid.backward.append_backward(loss)
    grads = [n + "@GRAD" for n in feed if n.startswith("x") and block.has_var(n + "@GRAD")]
    return program, feed, [loss.name] + grads


# seeds whose backward once failed (a grad block nested in another's not seeing the outer
# forward block's vars: 1, 9; a branch's grad in a loop's grad block naming versions: 21, 49,
# 50, 100; a branch's grad recomputing a nested branch that may keep an outer var: 43, 91;
# the reference executor zero-filling an untaken branch's output: 56; its while_grad reading
# an input as overwritten after the loop: 66), then a few more
SEEDS = [1, 9, 21, 43, 49, 50, 56, 66, 91, 100, 0, 2, 3]


@pytest.mark.parametrize("seed", SEEDS)
def test_random_control_flow_backward_matches_reference(seed):
    program, feed, names = _random_backward(seed)
    want = run_reference(program, feed, names)
    for label in ("defaults", "all_off"):
        for name, g, w in zip(names, _compiled(program, feed, names, STRATEGIES[label]), want):
            np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-5,
                                       err_msg=f"seed {seed} {name} ({label})")
