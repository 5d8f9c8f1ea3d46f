"""Gradients through while loops (while_grad): append_backward / gradients on random small loop
programs (nested loops too, and zero iterations) against central finite differences, the
compiled runtime against the reference executor, loop-invariant inputs' grads summed over the
iterations, two backward passes over one loop, a cond inside the body, and a program with
while_grad saved and loaded."""
import numpy as np
import pytest

import fluidc as paddle
from fluidc.frontend.ops.registry import EMPTY_VAR
from fluidc.runtime.program_desc import parse_program, serialize_program
from fluidc.runtime.reference import ReferencePlan

nn = paddle.static.nn
SHAPE = [2, 3]

# body updates of a loop var a, given another loop var b and a loop-invariant input w
_UPDATES = [
    lambda a, b, w: a * w + b,
    lambda a, b, w: paddle.tanh(a) * 0.5 + b * w,
    lambda a, b, w: a * b * 0.3 + w,
    lambda a, b, w: paddle.scale(a, 0.7, bias=0.1) - b * 0.2,
    lambda a, b, w: a + paddle.tanh(w * b),
]


def _loop(rng, vs, w, depth):
    """while_loop over the float vars vs (and a counter), each updated by a random rule; at
    depth 2 the body holds a loop of its own. Returns the new values."""
    trips = int(rng.integers(0, 4)) if depth == 1 else int(rng.integers(1, 3))
    rules = [(int(rng.integers(len(_UPDATES))), int(rng.integers(len(vs))))
             for _ in vs]
    inner = depth > 1 and bool(rng.integers(2))
    inner_rng = np.random.default_rng(int(rng.integers(1 << 30)))
    limit = paddle.full([1], trips, "int64")

    def body(i, *xs):
        xs = [_UPDATES[k](x, xs[j], w) for x, (k, j) in zip(xs, rules)]
        if inner:
            xs = _loop(inner_rng, xs, w, depth - 1)
        return [i + 1] + list(xs)

    out = nn.while_loop(lambda i, *xs: i < limit, body,
                        [paddle.full([1], 0, "int64")] + list(vs))
    return out[1:]


def _random_program(seed, depth):
    rng = np.random.default_rng(seed)
    main, startup = paddle.static.Program(), paddle.static.Program()
    n = int(rng.integers(1, 3))
    with paddle.static.program_guard(main, startup):
        xs = [paddle.static.data(f"x{k}", SHAPE, "float64") for k in range(n)]
        w = paddle.static.data("w", SHAPE, "float64")
        for v in xs + [w]:
            v.stop_gradient = False
        outs = _loop(rng, xs, w, depth)
        loss = paddle.mean(paddle.add_n([o * float(c + 1) for c, o in enumerate(outs)]))
        grads = paddle.static.gradients([loss], xs + [w])
    feed = {v.name: rng.uniform(-1, 1, SHAPE) for v in xs + [w]}
    return main, loss, [v.name for v in xs + [w]], grads, feed


def _run(main, feed, fetch):
    exe = paddle.static.Executor(paddle.CPUPlace())
    return exe.run(main, feed=feed, fetch_list=fetch, scope=paddle.static.Scope())


def _finite_differences(main, loss, names, feed, eps=1e-6):
    out = []
    for name in names:
        g = np.zeros(SHAPE)
        for idx in np.ndindex(*SHAPE):
            values = []
            for sign in (1, -1):
                f = {k: v.copy() for k, v in feed.items()}
                f[name][idx] += sign * eps
                values.append(_run(main, f, [loss])[0])
            g[idx] = (values[0] - values[1]) / (2 * eps)
        out.append(g)
    return out


@pytest.mark.parametrize("seed,depth", [(s, 1) for s in range(4)] + [(s, 2) for s in range(4, 7)])
def test_while_gradients_match_finite_differences(seed, depth):
    main, loss, names, grads, feed = _random_program(seed, depth)
    got = iter(_run(main, feed, [g for g in grads if g is not None]))
    for name, g, want in zip(names, grads, _finite_differences(main, loss, names, feed)):
        # None: the loss does not depend on the input
        g = np.zeros(SHAPE) if g is None else next(got)
        np.testing.assert_allclose(g, want, rtol=1e-5, atol=1e-7, err_msg=name)


@pytest.mark.parametrize("seed,depth", [(11, 1), (12, 2), (13, 2)])
def test_compiled_while_grad_matches_the_reference_executor(seed, depth):
    main, loss, names, grads, feed = _random_program(seed, depth)
    fetch = [loss.name] + [g.name for g in grads if g is not None]
    got = _run(main, feed, fetch)
    want = ReferencePlan(main, list(feed), fetch).run(feed, paddle.static.Scope())
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-12)


def _param_loop(trips):
    """y = x; `trips` times y = tanh(fc(y)) with one fc's parameters: their grads are sums
    over the iterations."""
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [4, 3], "float32")
        limit = paddle.full([1], trips, "int64")
        w = paddle.create_parameter([3, 3], "float32", name="w")
        b = paddle.create_parameter([3], "float32", name="b", is_bias=True)
        _, y = nn.while_loop(lambda i, y: i < limit,
                             lambda i, y: [i + 1, paddle.tanh(paddle.matmul(y, w) + b)],
                             [paddle.full([1], 0, "int64"), paddle.scale(x, 1.0)])
        loss = paddle.mean(y * y)
        pairs = paddle.static.append_backward(loss)
    return main, startup, x, loss, dict((p.name, g) for p, g in pairs)


@pytest.mark.parametrize("trips", [0, 1, 3])
def test_parameters_used_in_the_body_get_grads_summed_over_iterations(trips):
    main, startup, x, loss, grads = _param_loop(trips)
    assert sorted(grads) == ["b", "w"]
    exe = paddle.static.Executor(paddle.CPUPlace())
    scope = paddle.static.Scope()
    exe.run(startup, scope=scope)
    w = np.asarray(scope.find_var("w").get_tensor())
    b = np.asarray(scope.find_var("b").get_tensor())
    xv = np.random.default_rng(trips).uniform(-1, 1, (4, 3)).astype("float32")
    gw, gb = exe.run(main, feed={"x": xv}, fetch_list=[grads["w"], grads["b"]], scope=scope)
    # numpy: forward keeping each iteration's input, then back through them in reverse
    ys = [xv.astype(np.float64)]
    for _ in range(trips):
        ys.append(np.tanh(ys[-1] @ w + b))
    g = 2 * ys[-1] / ys[-1].size
    want_w, want_b = np.zeros_like(w, np.float64), np.zeros_like(b, np.float64)
    for k in range(trips, 0, -1):
        pre = g * (1 - ys[k] ** 2)
        want_w += ys[k - 1].T @ pre
        want_b += pre.sum(0)
        g = pre @ w.T
    np.testing.assert_allclose(gw, want_w, rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(gb, want_b, rtol=1e-4, atol=1e-6)


def test_while_grad_op_and_its_grad_block_are_paddles():
    main, _, _, _, _ = _param_loop(2)
    ops = {op.type: op for op in main.global_block().ops}
    grad = ops["while_grad"]
    fwd = ops["while"]
    assert grad.input("X") == fwd.input("X")
    assert set(grad.input("Out")) == set(fwd.output("Out")) - set(fwd.input("Condition"))
    assert grad.input("Out@GRAD") == [n + "@GRAD" for n in grad.input("Out")]
    assert len(grad.output("X@GRAD")) == len(grad.input("X"))
    block = main.block(grad.attr("sub_block"))
    assert block.forward_block_idx == fwd.attr("sub_block")
    assert block.parent_idx == 0
    # the int counter and the limit get no grad
    wanted = dict(zip(grad.input("X"), grad.output("X@GRAD")))
    assert [n for n, g in wanted.items() if g == EMPTY_VAR] and wanted["w"] == "w@GRAD"


def test_program_with_while_grad_saves_and_loads():
    main, startup, x, loss, grads = _param_loop(3)
    exe = paddle.static.Executor(paddle.CPUPlace())
    scope = paddle.static.Scope()
    exe.run(startup, scope=scope)
    xv = np.random.default_rng(0).uniform(-1, 1, (4, 3)).astype("float32")
    fetch = [loss.name, grads["w"].name]
    want = exe.run(main, feed={"x": xv}, fetch_list=fetch, scope=scope)
    loaded = parse_program(serialize_program(main))
    got = exe.run(loaded, feed={"x": xv}, fetch_list=fetch, scope=scope)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-6)


def test_zero_iterations_pass_the_loop_vars_grads_through():
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [3], "float32")
        x.stop_gradient = False
        limit = paddle.static.data("n", [1], "int64")
        _, y = nn.while_loop(lambda i, y: i < limit, lambda i, y: [i + 1, y * 2.0],
                             [paddle.full([1], 0, "int64"), x])
        loss = paddle.sum(y * 3.0)
        gx, = paddle.static.gradients([loss], [x])
    xv = np.ones(3, "float32")
    for n, factor in ((0, 3.0), (1, 6.0), (3, 24.0)):
        got, = _run(main, {"x": xv, "n": np.array([n], "int64")}, [gx])
        np.testing.assert_allclose(got, np.full(3, factor))


def test_two_backward_passes_run_over_one_loop():
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [3], "float64")
        x.stop_gradient = False
        limit = paddle.full([1], 3, "int64")
        _, y = nn.while_loop(lambda i, y: i < limit, lambda i, y: [i + 1, paddle.tanh(y) * 1.5],
                             [paddle.full([1], 0, "int64"), paddle.scale(x, 1.0)])
        g1, = paddle.static.gradients([paddle.sum(y)], [x])
        g2, = paddle.static.gradients([paddle.sum(y * y)], [x])
    xv = np.array([0.1, -0.4, 0.7])
    ys = [xv]
    for _ in range(3):
        ys.append(np.tanh(ys[-1]) * 1.5)
    for g, seed in ((g1, np.ones(3)), (g2, 2 * ys[-1])):
        dy = seed
        for k in range(3, 0, -1):
            dy = dy * 1.5 * (1 - np.tanh(ys[k - 1]) ** 2)
        got, = _run(main, {"x": xv}, [g])
        np.testing.assert_allclose(got, dy, rtol=1e-12)
    both = _run(main, {"x": xv}, [g1, g2])
    np.testing.assert_allclose(both[0], _run(main, {"x": xv}, [g1])[0], rtol=1e-12)


def test_cond_inside_the_loop_body_differentiates():
    """y = tanh(y * w) on odd iterations, y * y + w on even ones (a cond in the body)."""
    main = paddle.static.Program()
    with paddle.static.program_guard(main, paddle.static.Program()):
        x = paddle.static.data("x", [3], "float64")
        w = paddle.static.data("w", [3], "float64")
        for v in (x, w):
            v.stop_gradient = False
        limit = paddle.full([1], 4, "int64")

        def body(i, y):
            y = nn.cond(paddle.cast(i % 2, "bool"), lambda: paddle.tanh(y * w),
                        lambda: y * y + w)
            return [i + 1, y]

        _, y = nn.while_loop(lambda i, y: i < limit, body,
                             [paddle.full([1], 0, "int64"), paddle.scale(x, 1.0)])
        loss = paddle.sum(y)
        grads = paddle.static.gradients([loss], [x, w])

    def numpy_loss(xv, wv):
        y = xv.copy()
        for i in range(4):
            y = np.tanh(y * wv) if i % 2 else y * y + wv
        return y.sum()

    rng = np.random.default_rng(0)
    feed = {"x": rng.uniform(-1, 1, 3), "w": rng.uniform(-1, 1, 3)}
    fetch = [loss.name] + [g.name for g in grads]
    got = _run(main, feed, fetch)
    np.testing.assert_allclose(got[0], numpy_loss(feed["x"], feed["w"]), rtol=1e-12)
    eps = 1e-6
    for name, g in zip(["x", "w"], got[1:]):
        want = []
        for k in range(3):
            hi, lo = ({n: v.copy() for n, v in feed.items()} for _ in range(2))
            hi[name][k] += eps
            lo[name][k] -= eps
            want.append((numpy_loss(hi["x"], hi["w"]) - numpy_loss(lo["x"], lo["w"])) / (2 * eps))
        np.testing.assert_allclose(g, want, rtol=1e-6, atol=1e-9, err_msg=name)
    ref = ReferencePlan(main, list(feed), fetch).run(feed, paddle.static.Scope())
    for g, r in zip(got, ref):
        np.testing.assert_allclose(g, r, rtol=1e-12)


def _array_chain(trips):
    """x written at index i = 0 of an array, then `trips` times arr[i + 1] = 2 * arr[i] with the
    counter incremented in place (a 1.x While over a tensor array), loss = sum(arr[i]) after the
    loop: d loss / dx = 2^trips. The grad op of the write before the loop reads the counter."""
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [3], "float64")
        x.stop_gradient = False
        i = paddle.full([1], 0, "int64")
        arr = paddle.tensor.array_write(x, i)
        n = paddle.full([1], trips, "int64")
        cond = paddle.less_than(i, n)
        loop = paddle.static.nn.control_flow.While(cond)
        with loop.block():
            prev = paddle.tensor.array_read(arr, i)
            paddle.increment(i)
            paddle.tensor.array_write(prev * 2.0, i, arr)
            paddle.assign(paddle.less_than(i, n), cond)
        loss = paddle.sum(paddle.tensor.array_read(arr, i))
        gx, = paddle.static.gradients([loss], [x])
    return main, [loss.name, gx.name, i.name]


@pytest.mark.parametrize("trips", [0, 1, 3])
def test_a_counter_incremented_in_the_body_is_restored_by_while_grad(trips):
    """Paddle's grad block undoes the body's in-place increment (increment's grad op), so
    after while_grad the counter is back at 0 and the write before the loop gets the grad of
    arr[0]: Paddle 3.3.1 gives x@GRAD = 8 and a fetched counter of 0 for 3 trips. Without the
    restore the grad of arr[trips] (1) reached x."""
    main, fetch = _array_chain(trips)
    feed = {"x": np.array([1.0, -2.0, 0.5])}
    loss, gx, counter = _run(main, feed, fetch)
    np.testing.assert_allclose(loss, feed["x"].sum() * 2 ** trips)
    np.testing.assert_array_equal(gx, np.full(3, 2.0 ** trips))
    assert counter.tolist() == [0]
    want = ReferencePlan(main, list(feed), fetch).run(feed, paddle.static.Scope())
    for got, w in zip((loss, gx, counter), want):
        np.testing.assert_array_equal(got, w)
