"""One Executor run from several threads: every run owns its buffers (a plan instance per
concurrent run), plans are built once whichever threads ask, and runs that write persistables
(training steps) are serialized per scope, so results equal the single-threaded ones."""
import sys
import threading

import numpy as np
import pytest

import fluidc as fluid
from fluidc.runtime import executor as executor_mod

THREADS = 4


@pytest.fixture(autouse=True)
def often_switching_threads():
    """Switch threads every few microseconds (not every 5 ms), so runs interleave inside the
    executor's Python code too, not only around the kernels (which release the GIL)."""
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)
    yield
    sys.setswitchinterval(old)


def _mlp(optimizer=None):
    main, startup = fluid.Program(), fluid.Program()
    startup.random_seed = 7
    with fluid.program_guard(main, startup):
        x = fluid.layers.data(name="x", shape=[32], dtype="float32")
        y = fluid.layers.data(name="y", shape=[1], dtype="int64")
        h = fluid.layers.fc(x, size=64, act="relu")
        logits = fluid.layers.fc(h, size=10)
        loss = fluid.layers.mean(fluid.layers.softmax_with_cross_entropy(logits, y))
        test = main.clone(for_test=True)
        (optimizer or fluid.optimizer.Adam(learning_rate=0.01)).minimize(loss)
    return main, startup, test, logits.name, loss.name


def _batches(n, seed, rows=16):
    rng = np.random.default_rng(seed)
    return [{"x": rng.standard_normal((rows, 32)).astype("float32"),
             "y": rng.integers(0, 10, (rows, 1)).astype("int64")} for _ in range(n)]


def _threads(work):
    errors = []

    def guarded(t):
        try:
            work(t)
        except BaseException as e:  # noqa: BLE001 - reported by the test
            errors.append(e)

    ts = [threading.Thread(target=guarded, args=(t,)) for t in range(THREADS)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    if errors:
        raise errors[0]


def _params(scope, program):
    return {p.name: np.array(scope.find_var(p.name).get_tensor()) for p in program.all_parameters()}


def _init(exe, startup, main, state=None):
    scope = fluid.Scope()
    exe.run(startup, scope=scope)
    for n, v in (state or {}).items():
        scope.find_var(n).get_tensor().set(v, fluid.CPUPlace())
    return scope


def check_forward(runs, shared_scope):
    main, startup, test, logits, loss = _mlp()
    exe = fluid.Executor(fluid.CPUPlace())
    data = _batches(8, 0) + _batches(4, 1, rows=5)  # two feed signatures: two plans
    scopes = [_init(exe, startup, main)]
    state = _params(scopes[0], main)
    if not shared_scope:
        scopes += [_init(exe, startup, main, state) for _ in range(THREADS - 1)]
    expect = [exe.run(test, feed=d, fetch_list=[logits, loss], scope=scopes[0]) for d in data]
    wrong = []

    def work(t):
        scope = scopes[0 if shared_scope else t]
        for i in range(runs):
            k = (i * 7 + t) % len(data)
            got = exe.run(test, feed=data[k], fetch_list=[logits, loss], scope=scope)
            if not all(np.array_equal(g, e) for g, e in zip(got, expect[k])):
                wrong.append((t, i))

    _threads(work)
    assert wrong == [], f"{len(wrong)} of {THREADS * runs} runs gave other numbers"


def check_training_scope_per_thread(steps):
    main, startup, test, logits, loss = _mlp()
    exe = fluid.Executor(fluid.CPUPlace())
    state = _params(_init(exe, startup, main), main)
    data = [_batches(steps, 10 + t) for t in range(THREADS)]
    expect = []
    for t in range(THREADS):  # single-threaded, one after another
        scope = _init(exe, startup, main, state)
        losses = [exe.run(main, feed=d, fetch_list=[loss], scope=scope)[0] for d in data[t]]
        expect.append((losses, _params(scope, main)))
    scopes = [_init(exe, startup, main, state) for _ in range(THREADS)]
    got = [None] * THREADS

    def work(t):
        got[t] = [exe.run(main, feed=d, fetch_list=[loss], scope=scopes[t])[0] for d in data[t]]

    _threads(work)
    for t in range(THREADS):
        assert not np.isnan(np.concatenate(got[t])).any()
        np.testing.assert_array_equal(np.concatenate(got[t]), np.concatenate(expect[t][0]))
        for n, v in _params(scopes[t], main).items():
            np.testing.assert_array_equal(v, expect[t][1][n], err_msg=n)


def check_training_one_scope(steps):
    # Runs into one scope are serialized: T x steps runs of one batch are T * steps optimizer
    # steps in some order, so the losses are the sequential ones and so are the parameters.
    main, startup, test, logits, loss = _mlp()
    exe = fluid.Executor(fluid.CPUPlace())
    state = _params(_init(exe, startup, main), main)
    feed = _batches(1, 3)[0]
    seq_scope = _init(exe, startup, main, state)
    seq = [exe.run(main, feed=feed, fetch_list=[loss], scope=seq_scope)[0].item()
           for _ in range(THREADS * steps)]
    scope = _init(exe, startup, main, state)
    losses = []

    def work(t):
        for _ in range(steps):
            losses.append(exe.run(main, feed=feed, fetch_list=[loss], scope=scope)[0].item())

    _threads(work)
    assert not np.isnan(losses).any()
    assert sorted(losses) == sorted(seq)
    plan, = [p for p in exe._plans.values() if p.lowered.fetches == [loss]]
    assert plan.locks and len(plan._free) == 1  # serialized runs share one instance
    seq_params = _params(seq_scope, main)
    for n, v in _params(scope, main).items():
        np.testing.assert_array_equal(v, seq_params[n], err_msg=n)


def test_forward_from_threads_into_one_scope():
    check_forward(runs=60, shared_scope=True)


def test_forward_from_threads_with_a_scope_each():
    check_forward(runs=60, shared_scope=False)


def test_training_from_threads_with_a_scope_each():
    check_training_scope_per_thread(steps=25)


def test_training_from_threads_into_one_scope():
    check_training_one_scope(steps=25)


def test_threads_missing_plans_at_once_build_each_once(monkeypatch):
    main, startup, test, logits, loss = _mlp()
    exe = fluid.Executor(fluid.CPUPlace())
    scope = _init(exe, startup, main)
    data = [_batches(1, 20 + r, rows=r)[0] for r in (2, 3, 4)]
    expect = [fluid.Executor(fluid.CPUPlace()).run(test, feed=d, fetch_list=[logits],
                                                   scope=scope)[0] for d in data]
    builds = []
    real = executor_mod.Executor._build
    monkeypatch.setattr(executor_mod.Executor, "_build",
                        lambda self, *a, **k: builds.append(1) or real(self, *a, **k))
    barrier = threading.Barrier(THREADS)

    def work(t):
        barrier.wait()
        for k in range(len(data)):
            got, = exe.run(test, feed=data[(k + t) % 3], fetch_list=[logits], scope=scope)
            np.testing.assert_array_equal(got, expect[(k + t) % 3])

    _threads(work)
    assert len(builds) == 3 and len(exe._plans) == 4  # and the startup program's


def test_concurrent_runs_get_instances_of_their_own():
    main, startup, test, logits, loss = _mlp()
    exe = fluid.Executor(fluid.CPUPlace())
    scope = _init(exe, startup, main)
    feed = _batches(1, 5)[0]
    exe.run(test, feed=feed, fetch_list=[logits], scope=scope)
    plan, = [p for p in exe._plans.values() if p.lowered.fetches == [logits]]
    _threads(lambda t: [exe.run(test, feed=feed, fetch_list=[logits], scope=scope)
                        for _ in range(30)])
    instances = list(plan._free)
    assert plan in instances and 1 <= len(instances) <= THREADS
    assert all(i.module is plan.module and i._generators is plan._generators
               for i in instances)  # one compiled module, shared
    assert len({id(i.table) for i in instances}) == len(instances)  # buffers of their own
    assert len({next(iter(i.arena.values())).data_ptr() for i in instances}) == len(instances)


@pytest.mark.slow
def test_stress_forward_and_training_from_threads():
    check_forward(runs=1200, shared_scope=True)
    check_forward(runs=1200, shared_scope=False)
    check_training_scope_per_thread(steps=300)
    check_training_one_scope(steps=300)
