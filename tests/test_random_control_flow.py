"""Random control-flow programs (tests/fixtures/random_control_flow.py): cond, case, switch_case
and while_loop whose bodies overwrite and update in place vars of the blocks around them, where
a branch may not be taken and a loop may run no times, among views, reductions and pointwise
ops. Built and run by real Paddle 3.3.1 (tests/fixtures/make_control_flow_random.py; fluidc
loads each ProgramDesc as Paddle saved it), and built by fluidc from the same code: every
BuildStrategy below, with and without fluid.memory_optimize on the program, and the numpy
reference executor must give Paddle's numbers, run after run."""
import os
import sys
import threading

import numpy as np
import pytest

import fluidc as fluid
import fluidc as paddle
from fluidc.frontend import unique_name
from fluidc.runtime.program_desc import parse_program

from op_harness import run_reference

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures"))
import random_control_flow  # noqa: E402

FIXTURE = os.path.join(os.path.dirname(__file__), "fixtures", "paddle",
                       "control_flow_random.npz")
TOL = dict(rtol=2e-5, atol=2e-6)
OFF = dict(memory_optimize=False, enable_inplace=False, fuse_all_optimizer_ops=False,
           fuse_elewise_add_act_ops=False, fuse_reduce_ops=False, fuse_gemm_epilogue=False,
           fold_constants=False, fuse_all=False)
STRATEGIES = {"defaults": {}, "all_off": OFF, "inplace_only": dict(OFF, enable_inplace=True),
              "memory_optimize_only": dict(OFF, memory_optimize=True),
              "fuse_all_off": dict(fuse_all=False)}


def _strategy(flags):
    s = fluid.BuildStrategy()
    for k, v in flags.items():
        setattr(s, k, v)
    return s


def assert_reference_and_compiled_give(program, feed, names, want, rtol=1e-6, atol=1e-7):
    """The reference executor and compiled runs with every optimization on and all off give
    `want` for the fetches `names`."""
    for name, g, w in zip(names, run_reference(program, feed, names), want):
        np.testing.assert_allclose(g, w, rtol=rtol, atol=atol, err_msg=f"{name} (reference)")
    for label in ("defaults", "all_off"):
        compiled = fluid.CompiledProgram(program, build_strategy=_strategy(STRATEGIES[label]))
        got = fluid.Executor(fluid.CPUPlace()).run(compiled, feed=dict(feed), fetch_list=names,
                                                   scope=fluid.Scope())
        for name, g, w in zip(names, got, want):
            np.testing.assert_allclose(g, w, rtol=rtol, atol=atol, err_msg=f"{name} ({label})")


def _paddle_cases():
    with np.load(FIXTURE) as f:
        data = {k: f[k] for k in f.files}
    return data, sorted({k.split("/")[0] for k in data})


DATA, CASES = _paddle_cases()


def check(program, feed, names, want, what, memory_optimize=(False, True), runs=2):
    """The reference executor, then every strategy (and each after memory_optimize) over
    `runs` runs, give `want`."""
    for name, g, w in zip(names, run_reference(program, feed, names), want):
        np.testing.assert_allclose(g, w, err_msg=f"{what} {name} (reference)", **TOL)
    for optimized in memory_optimize:
        if optimized:
            fluid.memory_optimize(program)
        for label, flags in STRATEGIES.items():
            exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
            compiled = fluid.CompiledProgram(program, build_strategy=_strategy(flags))
            for r in range(runs):
                got = exe.run(compiled, feed=dict(feed), fetch_list=names, scope=scope)
                for name, g, w in zip(names, got, want):
                    np.testing.assert_allclose(
                        np.asarray(g).reshape(np.shape(w)), w, **TOL,
                        err_msg=f"{what} {name} ({label}, memory_optimize={optimized}, run {r})")


@pytest.mark.parametrize("case", CASES)
def test_paddle_built_program_gives_paddles_numbers(case):
    program = parse_program(DATA[f"{case}/program"].tobytes(), case)
    feed = {k.split("/")[-1]: DATA[k] for k in DATA if k.startswith(f"{case}/feed/")}
    names = [str(n) for n in DATA[f"{case}/fetch_names"]]
    want = [DATA[f"{case}/out/{i}"] for i in range(len(names))]
    check(program, feed, names, want, f"case {case}")


@pytest.mark.parametrize("case", CASES[:10])
def test_fluidc_built_program_gives_paddles_numbers(case):
    """The same code builds the program with fluidc's cond / case / switch_case / while_loop."""
    with unique_name.guard():
        program, feed, names = random_control_flow.build(paddle, int(case))
    want = [DATA[f"{case}/out/{i}"] for i in range(len(names))]
    assert names == [str(n) for n in DATA[f"{case}/fetch_names"]]
    check(program, feed, names, want, f"seed {case}", memory_optimize=(False,))


def _other_feeds(feed, k):
    """The feed's arrays drawn again (flags and indices too), for the k-th run."""
    rng = np.random.default_rng(1000 + k)
    return {n: np.array([bool(rng.integers(2))]) if v.dtype == np.bool_ else
            rng.integers(0, 4, v.shape).astype(v.dtype) if v.dtype == np.int64 else
            rng.uniform(-1, 1, v.shape).astype(v.dtype) for n, v in feed.items()}


@pytest.mark.parametrize("seed", range(4))
def test_threads_running_one_program_equal_serial_runs(seed):
    """Four threads run one compiled program (control flow: sub-block plans, their runs) on
    eight feeds, switching threads every few microseconds: each result equals the serial
    run's bit for bit."""
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)
    try:
        with unique_name.guard():
            program, feed, names = random_control_flow.build(paddle, seed)
        feeds = [_other_feeds(feed, k) for k in range(8)]
        scope = fluid.Scope()
        serial = [fluid.Executor(fluid.CPUPlace()).run(program, feed=dict(f), fetch_list=names,
                                                       scope=scope) for f in feeds]
        exe, compiled = fluid.Executor(fluid.CPUPlace()), fluid.CompiledProgram(program)
        got, errors = [], []

        def worker(t):
            try:
                for k in list(range(len(feeds)))[t % 2::2] * 2:
                    got.append((k, exe.run(compiled, feed=dict(feeds[k]), fetch_list=names,
                                           scope=scope)))
            except Exception as e:  # noqa: BLE001 - reported below
                errors.append(e)
        threads = [threading.Thread(target=worker, args=(t,)) for t in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(old)
    assert not errors, errors
    assert len(got) == 4 * 8
    for k, outs in got:
        for name, g, w in zip(names, outs, serial[k]):
            np.testing.assert_array_equal(g, w, err_msg=f"seed {seed} feed {k} {name}")


# -- the smallest programs of the wrong results the random programs found ------------------

def _inplace_add(x, y):
    paddle.static.default_main_program().current_block().append_op(
        type="elementwise_add", inputs={"X": [x], "Y": [y]}, outputs={"Out": [x]},
        attrs={"axis": -1})


def _runs(build, feeds):
    """[(what, fetched, the reference's)] for each feed run in turn by one executor under each
    strategy (a later run must not see what an earlier one left in a buffer)."""
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()), unique_name.guard():
        names = [v.name for v in build()]
    out = []
    for label in ("defaults", "all_off"):
        exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
        compiled = fluid.CompiledProgram(main, build_strategy=_strategy(STRATEGIES[label]))
        for r, feed in enumerate(feeds):
            got = exe.run(compiled, feed=feed, fetch_list=names, scope=scope)
            out.append((f"{label} run {r}", got, run_reference(main, feed, names)))
    return out


X = np.array([[0.1, -0.4, 0.7], [-0.9, 0.3, 0.5]], "float32")


def test_branch_updating_an_outer_var_in_place_keeps_it_when_not_taken():
    """s = scale(x); cond(p, lambda: (s += tanh(s); 2x), lambda: 3x): when not taken, s was
    the buffer of its next version as the last run left it (or zeros)."""
    def build():
        x = paddle.static.data("x", [2, 3], "float32")
        p = paddle.static.data("p", [1], "bool")
        s = paddle.scale(x, 1.0)

        def branch():
            _inplace_add(s, paddle.tanh(s))
            return paddle.scale(x, 2.0)
        out = paddle.static.nn.cond(p, branch, lambda: paddle.scale(x, 3.0))
        return [s, out]
    feeds = [{"x": X * k, "p": np.array([taken])} for k, taken in ((1, True), (2, False))]
    expect = [X + np.tanh(X), 2 * X]
    for (what, got, want), e in zip(_runs(build, feeds), expect * 2):
        np.testing.assert_allclose(want[0], e, rtol=1e-6, err_msg=what)
        np.testing.assert_allclose(got[0], e, rtol=1e-6, err_msg=what)


def test_branch_assigning_an_outer_var_keeps_its_earlier_writer():
    """s = exp(x); cond(p, lambda: assign(tanh(x), output=s) ...) untaken: s is still exp(x)
    (the executors pruned exp as overwritten by the cond)."""
    def build():
        x = paddle.static.data("x", [2, 3], "float32")
        p = paddle.static.data("p", [1], "bool")
        s = paddle.exp(x)

        def branch():
            paddle.assign(paddle.tanh(x), output=s)
            return paddle.scale(x, 2.0)
        paddle.static.nn.cond(p, branch, lambda: paddle.scale(x, 3.0))
        return [s]
    feeds = [{"x": X, "p": np.array([taken])} for taken in (True, False)]
    for (what, got, want), e in zip(_runs(build, feeds), [np.tanh(X), np.exp(X)] * 2):
        np.testing.assert_allclose(want[0], e, rtol=1e-6, err_msg=what)
        np.testing.assert_allclose(got[0], e, rtol=1e-6, err_msg=what)


def test_loop_running_no_times_keeps_an_outer_var_its_body_assigns():
    def build():
        x = paddle.static.data("x", [2, 3], "float32")
        n = paddle.static.data("n", [1], "int64")
        s = paddle.exp(x)

        def body(i, v):
            paddle.assign(paddle.tanh(v), output=s)
            return [paddle.increment(i, 1.0), paddle.tanh(v)]
        paddle.static.nn.while_loop(lambda i, v: paddle.less_than(i, n), body,
                                    [paddle.full([1], 0, "int64"), paddle.scale(x, 1.0)])
        return [s]
    feeds = [{"x": X, "n": np.array([k], "int64")} for k in (1, 0)]
    for (what, got, want), e in zip(_runs(build, feeds), [np.tanh(X), np.exp(X)] * 2):
        np.testing.assert_allclose(want[0], e, rtol=1e-6, err_msg=what)
        np.testing.assert_allclose(got[0], e, rtol=1e-6, err_msg=what)


def test_nested_untaken_branch_keeps_an_outer_var():
    """cond(p, lambda: cond(q, lambda: (s += 1; 2x), lambda: 3x), lambda: 4x), p taken."""
    def build():
        x = paddle.static.data("x", [2, 3], "float32")
        p = paddle.static.data("p", [1], "bool")
        q = paddle.static.data("q", [1], "bool")
        s = paddle.exp(x)

        def inner():
            _inplace_add(s, paddle.full([2, 3], 1.0, "float32"))
            return paddle.scale(x, 2.0)

        def outer():
            return paddle.static.nn.cond(q, inner, lambda: paddle.scale(x, 3.0))
        out = paddle.static.nn.cond(p, outer, lambda: paddle.scale(x, 4.0))
        return [s, out]
    feeds = [{"x": X, "p": np.array([True]), "q": np.array([q])} for q in (True, False)]
    expect = [(np.exp(X) + 1, 2 * X), (np.exp(X), 3 * X)]
    for (what, got, want), es in zip(_runs(build, feeds), expect * 2):
        for g, w, e in zip(got, want, es):
            np.testing.assert_allclose(w, e, rtol=1e-6, err_msg=what)
            np.testing.assert_allclose(g, e, rtol=1e-6, err_msg=what)


@pytest.mark.parametrize("trips", [0, 2])
def test_gradient_through_a_loop_whose_counter_is_incremented_in_place(trips):
    """while_loop(i < n, [increment(i), tanh(v)]) differentiated: the while_grad's restored
    counter (a version of i nothing reads) had no shape, so binding the plan failed."""
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()), unique_name.guard():
        x = paddle.static.data("x", [2, 3], "float32")
        x.stop_gradient = False
        n = paddle.full([1], trips, "int64")
        _, v = paddle.static.nn.while_loop(
            lambda i, v: paddle.less_than(i, n),
            lambda i, v: [paddle.increment(i, 1.0), paddle.tanh(v)],
            [paddle.full([1], 0, "int64"), paddle.scale(x, 1.0)])
        loss = paddle.mean(v * v)
        fluid.backward.append_backward(loss)
    names = [loss.name, "x@GRAD"]
    got = fluid.Executor(fluid.CPUPlace()).run(main, feed={"x": X}, fetch_list=names,
                                               scope=fluid.Scope())
    values, grad = [X.astype(np.float64)], None
    for _ in range(trips):
        values.append(np.tanh(values[-1]))
    grad = 2 * values[-1] / X.size
    for t in values[-2::-1][:trips]:
        grad = grad * (1 - np.tanh(t) ** 2)
    for g, w in zip(got, run_reference(main, {"x": X}, names)):
        np.testing.assert_allclose(g, w, rtol=1e-6)
    np.testing.assert_allclose(got[1], grad, rtol=1e-5)
