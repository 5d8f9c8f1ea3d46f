"""Plans hand big values to the caller and read big feeds in place, library calls included
(runtime/plan.py `_plan_direct_io`: a library call's tensor is pointed at the run's array):
to_static training with saved activations passed that way keeps eager's losses and
parameters, a value handed over is never written by a later run, and feeds are read, never
written."""
import numpy as np
import pytest

import fluidc as fluid
import fluidc as paddle
from fluidc.dygraph.runner import PROGRAMS

OPTIMIZERS = {
    "sgd": lambda ps: paddle.optimizer.SGD(learning_rate=0.05, parameters=ps),
    "momentum": lambda ps: paddle.optimizer.Momentum(learning_rate=0.05, momentum=0.9,
                                                     parameters=ps),
    "adam": lambda ps: paddle.optimizer.Adam(learning_rate=0.01, parameters=ps),
    "adamw": lambda ps: paddle.optimizer.AdamW(learning_rate=0.01, weight_decay=0.1,
                                               parameters=ps),
}


def _net(rng):
    """A random attention-like block over [4, 64, D] (every activation >= 64 KB, so handed
    over): products, batched products and transposes (library calls), random activations."""
    nn, F = paddle.nn, paddle.nn.functional
    d = int(rng.choice([64, 96]))
    acts = [F.relu, F.gelu, paddle.tanh, F.sigmoid, lambda t: t * t]
    act = acts[int(rng.integers(len(acts)))]
    residual, norm = bool(rng.integers(2)), bool(rng.integers(2))

    class Block(nn.Layer):
        def __init__(self):
            super().__init__()
            self.q, self.k, self.v = nn.Linear(d, d), nn.Linear(d, d), nn.Linear(d, d)
            self.out = nn.Linear(d, d)
            self.ln = nn.LayerNorm(d)

        def forward(self, x):
            scores = paddle.matmul(self.q(x), self.k(x), transpose_y=True) * (d ** -0.5)
            ctx = paddle.matmul(F.softmax(scores), self.v(x))
            ctx = paddle.transpose(paddle.transpose(ctx, [0, 2, 1]) * 0.5, [0, 2, 1])
            h = act(self.out(ctx))
            h = h + x if residual else h
            return self.ln(h) if norm else h
    return Block, d


def _train(make_net, state, x_np, optimizer, to_static, steps=3):
    net = make_net()
    net.set_state_dict(state)
    fwd = paddle.jit.to_static(net) if to_static else net
    opt = OPTIMIZERS[optimizer](net.parameters())
    x = paddle.to_tensor(x_np)
    losses = []
    for _ in range(steps):
        loss = paddle.mean(paddle.square(fwd(x)))
        loss.backward()
        opt.step()
        opt.clear_grad()
        losses.append(float(loss))
    return losses, {k: v.numpy() for k, v in net.state_dict().items()}


def _handed_over_by_library_calls() -> int:
    """How many vars the dygraph executor's plans pass to or from library calls in place."""
    return sum(len(getattr(p, "library_io", ())) for p in PROGRAMS._executor._plans.values())


@pytest.mark.parametrize("seed,optimizer", [(0, "sgd"), (1, "momentum"), (2, "adam"),
                                            (3, "adamw")])
def test_random_blocks_train_as_eager(seed, optimizer):
    paddle.disable_static()
    rng = np.random.default_rng(seed)
    make_net, d = _net(rng)
    paddle.seed(seed)
    state = {k: v.numpy() for k, v in make_net().state_dict().items()}
    x_np = rng.standard_normal((4, 64, d)).astype("float32")
    eager_losses, eager_params = _train(make_net, state, x_np, optimizer, False)
    losses, params = _train(make_net, state, x_np, optimizer, True)
    assert _handed_over_by_library_calls() > 0  # the path under test ran
    np.testing.assert_allclose(losses, eager_losses, rtol=1e-6)
    for name, value in params.items():
        np.testing.assert_allclose(value, eager_params[name], rtol=1e-6, atol=1e-6,
                                   err_msg=name)


def test_two_calls_before_one_backward_keep_their_saved_values():
    """Two to_static calls on different inputs, then one backward through both: the second
    run must not have written into what the first handed over (the first call's tape node
    holds those arrays)."""
    paddle.disable_static()
    rng = np.random.default_rng(7)
    make_net, d = _net(rng)
    paddle.seed(7)
    net = make_net()
    xs = [rng.standard_normal((4, 64, d)).astype("float32") for _ in range(2)]
    grads = []
    for fwd in (net, paddle.jit.to_static(make_net())):
        if fwd is not net:
            fwd.set_state_dict(net.state_dict())
        outs = [fwd(paddle.to_tensor(x)) for x in xs]
        kept = [o.numpy() for o in outs]
        loss = paddle.mean(paddle.square(outs[0])) + paddle.mean(outs[1] * outs[1] * 3.0)
        loss.backward()
        grads.append([p.grad.numpy() for p in fwd.parameters()])
        for o, k in zip(outs, kept):
            np.testing.assert_array_equal(o.numpy(), k)  # outputs unchanged by later runs
    for got, want in zip(grads[1], grads[0]):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


@pytest.fixture
def library_products(monkeypatch):
    """Products as library calls (batched ones are generated where the choice says so)."""
    monkeypatch.setenv("FLUIDC_PRODUCTS", "library")


def _batched_product_program():
    """x [8, 64, 64] @ x^T (a library call under library_products) and its exp: both
    fetched, >= 64 KB each."""
    fluid.enable_static()
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = fluid.data("x", [8, 64, 64], "float32")
        y = paddle.matmul(x, x, transpose_y=True)
        z = paddle.exp(y * 0.01)
    return main, x, y, z


def test_handed_over_results_are_never_rewritten(library_products):
    main, _, y, z = _batched_product_program()
    exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
    rng = np.random.default_rng(0)
    feeds = [rng.standard_normal((8, 64, 64)).astype("float32") for _ in range(3)]
    want = [np.matmul(f, f.transpose(0, 2, 1)) for f in feeds]
    first = exe.run(main, feed={"x": feeds[0]}, fetch_list=[y, z], scope=scope)
    plan = next(p for p in exe._plans.values() if hasattr(p, "library_io"))
    assert plan.library_io  # y: written by the library product, handed over
    kept = [a.copy() for a in first]
    second = exe.run(main, feed={"x": feeds[1]}, fetch_list=[y, z], scope=scope)
    for a, k in zip(first, kept):
        np.testing.assert_array_equal(a, k)
    assert not any(np.shares_memory(a, b) for a in first for b in second)
    np.testing.assert_allclose(second[0], want[1], rtol=1e-5, atol=1e-4)
    # a result the caller dropped is written again (no fresh pages), one still held is not
    address = second[0].ctypes.data
    del second
    third = exe.run(main, feed={"x": feeds[2]}, fetch_list=[y, z], scope=scope)
    assert third[0].ctypes.data == address
    np.testing.assert_allclose(third[0], want[2], rtol=1e-5, atol=1e-4)
    np.testing.assert_array_equal(first[0], kept[0])
    assert all(t.numel() == 0 for t in plan.handles.values())  # nothing held between runs


def test_feeds_are_read_in_place_never_written(library_products):
    main, _, y, _ = _batched_product_program()
    exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
    rng = np.random.default_rng(1)
    x = rng.standard_normal((8, 64, 64)).astype("float32")
    before = x.copy()
    got, = exe.run(main, feed={"x": x}, fetch_list=[y], scope=scope)
    np.testing.assert_array_equal(x, before)
    x *= 2.0  # the same array with new values: read afresh by the next run
    again, = exe.run(main, feed={"x": x}, fetch_list=[y], scope=scope)
    np.testing.assert_allclose(again, 4.0 * got, rtol=1e-5, atol=1e-4)
    ro = x.copy()
    ro.flags.writeable = False  # a read-only feed is copied for the library call
    third, = exe.run(main, feed={"x": ro}, fetch_list=[y], scope=scope)
    np.testing.assert_array_equal(third, again)
    odd = np.asfortranarray(x)  # so is a non-contiguous one
    np.testing.assert_array_equal(exe.run(main, feed={"x": odd}, fetch_list=[y],
                                          scope=scope)[0], again)


def test_concurrent_runs_each_use_their_own_arrays(library_products):
    """Runs in several threads at once (each on an instance of its own, with its own library
    call tensors) each get the product of their own feed."""
    import threading
    main, _, y, z = _batched_product_program()
    exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
    rng = np.random.default_rng(2)
    feeds = [rng.standard_normal((8, 64, 64)).astype("float32") for _ in range(4)]
    exe.run(main, feed={"x": feeds[0]}, fetch_list=[y, z], scope=scope)  # compiled once
    errors = []

    def work(f):
        try:
            for _ in range(5):
                got, = exe.run(main, feed={"x": f}, fetch_list=[y], scope=scope)
                np.testing.assert_allclose(got, np.matmul(f, f.transpose(0, 2, 1)),
                                           rtol=1e-5, atol=1e-4)
        except Exception as e:  # noqa: BLE001 (reported below)
            errors.append(e)
    threads = [threading.Thread(target=work, args=(f,)) for f in feeds]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors[0]
