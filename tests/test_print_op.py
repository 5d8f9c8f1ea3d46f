"""paddle.static.Print against Paddle 3.3.1's stdout for the same program
(tests/fixtures/paddle/print_op.txt, made by tests/fixtures/make_print_fixture.py), and the
print op's side effect: kept by a run's pruning and constant folding, in program order, its
input passed through (and its gradient, printed in the backward pass)."""
from __future__ import annotations

import os
import sys

import numpy as np

import fluidc as paddle

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")
sys.path.insert(0, FIXTURES)
from print_cases import RUNS, build  # noqa: E402


def _blocks(text: str) -> list[str]:
    """One printed tensor per block: each ends with its '  - data:' line."""
    blocks, current = [], []
    for line in text.splitlines():
        current.append(line)
        if line.startswith("  - data:"):
            blocks.append("\n".join(current))
            current = []
    assert not current, f"unterminated print: {current}"
    return blocks


def _run(program, feed, fetch_list, runs=1):
    exe = paddle.static.Executor(paddle.CPUPlace())
    return [exe.run(program, feed=feed, fetch_list=fetch_list) for _ in range(runs)]


def test_print_output_matches_paddle(capfd):
    main, startup, feed, fetch_list = build(paddle)
    paddle.static.Executor(paddle.CPUPlace()).run(startup)
    capfd.readouterr()
    _run(main, feed, fetch_list, RUNS)
    got = _blocks(capfd.readouterr().out)
    with open(os.path.join(FIXTURES, "paddle", "print_op.txt")) as f:
        want = _blocks(f.read())
    # Paddle's executor orders independent ops its own way; the printed tensors are the same.
    assert sorted(got) == sorted(want)
    # fluidc prints in program order: forward prints, then the gradients' in backward order.
    names = [b.splitlines()[0] for b in got[:7]]
    assert names[0] == "Variable: x" and names[1] == "Variable: scale_0.tmp_0"
    assert names[-2:] == ["Variable: print_5.tmp_0@GRAD", "Variable: print_0.tmp_0@GRAD"]


def test_print_passes_its_input_and_gradient_through(capfd):
    main = paddle.static.Program()
    with paddle.static.program_guard(main):
        x = paddle.static.data("x", [3], "float32")
        x.stop_gradient = False
        shown = paddle.static.Print(x * 3.0, print_phase="forward")
        (grad,) = paddle.static.gradients(paddle.sum(shown * shown), x)
    xv = np.array([1.0, -2.0, 0.5], "float32")
    out, g = _run(main, {"x": xv}, [shown, grad])[0]
    np.testing.assert_array_equal(out, xv * 3)
    np.testing.assert_allclose(g, 18 * xv, rtol=1e-6)
    assert capfd.readouterr().out.count("  - data:") == 1  # forward only


def test_print_runs_though_nothing_reads_it_and_is_not_folded(capfd):
    main = paddle.static.Program()
    with paddle.static.program_guard(main):
        x = paddle.static.data("x", [2], "float32")
        y = x + 1.0
        paddle.static.Print(y, message="unread", print_tensor_name=False)
        paddle.static.Print(paddle.ones([2], "float32"), message="constant",
                            print_tensor_name=False)
    _run(main, {"x": np.zeros(2, "float32")}, [y], runs=2)
    printed = capfd.readouterr().out
    assert printed.index("message: unread") < printed.index("message: constant")
    # each run prints both (a folded print would have printed once, at compile time)
    assert printed.count("data: [1.000000 1.000000]") == 4


def test_pruned_copy_drops_prints_the_targets_do_not_need():
    main = paddle.static.Program()
    with paddle.static.program_guard(main):
        x = paddle.static.data("x", [2], "float32")
        y = paddle.scale(x, 2.0)
        paddle.static.Print(y)
    pruned = main._prune_with_input(["x"], [y])
    assert [op.type for op in pruned.global_block().ops] == ["scale"]


def test_first_n_counts_runs(capfd):
    main = paddle.static.Program()
    with paddle.static.program_guard(main):
        x = paddle.static.data("x", [1], "float32")
        paddle.static.Print(x, first_n=2, summarize=-1)
    _run(main, {"x": np.ones(1, "float32")}, [], runs=4)
    assert capfd.readouterr().out.count("Variable: x") == 2
