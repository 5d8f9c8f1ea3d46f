"""Random programs of sibling products: several matmuls of one X (or of earlier results) whose
epilogues read each other's products (where / compare / add / maximum / clip / relu), with some
products and intermediates fetched and the gradients of a mean taken, so products are stored,
die inside another product's kernel, or are summed into. Every BuildStrategy variant of
test_random_aliasing (in-place writes, memory reuse, epilogue fusion each off alone) must give
the numpy reference executor's values: an epilogue operand in the product's storage once read
the product instead (a silent wrong result, found by random Paddle programs).
Random attention programs likewise: batched products over heads split by reshape2 +
transpose2 and merged back, whose head copies fold into the products' strides
(attention.fold_heads) unless something else reads, fetches or rewrites them."""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import fluidc as paddle
from fluidc.frontend import unique_name
from test_random_aliasing import STRATEGIES, check_against_reference

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")


@st.composite
def sibling_products(draw):
    """(program, feeds {name: shape}, state {name: shape}, fetch names, dtype)."""
    m, k, n = (draw(st.integers(1, 6)) for _ in range(3))
    dtype = draw(st.sampled_from(["float32", "float64"]))
    feeds, state = {"x": (m, k), "c": (m, n)}, {}
    main, startup = paddle.static.Program(), paddle.static.Program()
    with unique_name.guard(), paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [m, k], dtype)
        x.stop_gradient = False
        c = paddle.static.data("c", [m, n], dtype)
        values, products = [c], []
        for i in range(draw(st.integers(2, 4))):
            w = paddle.static.create_parameter([k, n], dtype, name=f"w{i}")
            state[w.name] = (k, n)
            products.append(paddle.matmul(x, w))
        values += products

        def pick():  # mostly a product: epilogues reading other products are the point
            pool = products if draw(st.integers(0, 9)) < 7 else values
            return pool[draw(st.integers(0, len(pool) - 1))]
        for _ in range(draw(st.integers(1, 6))):
            kind = draw(st.sampled_from(["where", "add", "maximum", "clip", "relu", "multiply"]))
            a, b, d = pick(), pick(), pick()
            if kind == "where":
                values.append(paddle.where(paddle.greater_than(a, b), a, d))
            elif kind == "clip":
                values.append(paddle.clip(a, -0.5, 0.5))
            elif kind == "relu":
                values.append(paddle.nn.functional.relu(a))
            else:
                values.append(getattr(paddle, kind)(a, b))
        if draw(st.booleans()):  # a second layer: a product of a result
            w = paddle.static.create_parameter([n, n], dtype, name="w_out")
            state[w.name] = (n, n)
            values.append(paddle.matmul(values[-1], w))
        last = values[draw(st.integers(1, len(values) - 1))] if draw(st.booleans()) else pick()
        # clip's and relu's grads read their input: the product they take stays stored
        loss = paddle.mean(draw(st.sampled_from([lambda v: v, paddle.nn.functional.relu,
                                                 lambda v: paddle.clip(v, -0.5, 0.5)]))(last))
        grads = paddle.static.append_backward(loss) if draw(st.booleans()) else []
    picked = draw(st.lists(st.sampled_from([v.name for v in values[1:]]), min_size=1,
                           max_size=4, unique=True))
    fetch = [loss.name] + picked + [g.name for _, g in grads][:2]
    return main, feeds, state, fetch, dtype


@st.composite
def head_products(draw):
    """(program, feeds, state, fetch names, dtype): q, k, v split into heads off x [b, s, h*d]
    (by projections or x itself), scores q k^T (or k q^T), a softmax or a pointwise op,
    times v, merged back; some split heads also read by a pointwise op or fetched, a head
    split with another permutation, and the gradients of a mean, sometimes."""
    b, s, h, d = (draw(st.integers(1, 4)) for _ in range(4))
    dtype = draw(st.sampled_from(["float32", "float64"]))
    feeds, state = {"x": (b, s, h * d)}, {}
    main, startup = paddle.static.Program(), paddle.static.Program()
    with unique_name.guard(), paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [b, s, h * d], dtype)
        x.stop_gradient = False
        heads, extra = [], []
        for i in range(3):
            t = x
            if draw(st.booleans()):
                w = paddle.static.create_parameter([h * d, h * d], dtype, name=f"w{i}")
                state[w.name] = (h * d, h * d)
                t = paddle.matmul(x, w)
            if draw(st.integers(0, 3)):  # heads split off [b, s, h, d]
                heads.append(paddle.transpose(paddle.reshape(t, [b, s, h, d]), [0, 2, 1, 3]))
            else:  # a transpose that is no head split: never folded
                heads.append(paddle.transpose(paddle.reshape(t, [b, h, s, d]), [0, 1, 2, 3]))
            if draw(st.integers(0, 3)) == 0:  # another reader of the split heads
                extra.append(paddle.tanh(heads[-1]))
        q, k, v = heads
        scores = paddle.matmul(q, k, transpose_y=True) if draw(st.booleans()) else \
            paddle.matmul(k, q, transpose_y=True)
        att = paddle.nn.functional.softmax(scores) if draw(st.booleans()) else \
            paddle.tanh(scores)
        ctx = paddle.matmul(att, v, transpose_x=draw(st.booleans()))
        merged = paddle.reshape(paddle.transpose(ctx, [0, 2, 1, 3]), [b, -1])
        loss = paddle.mean(merged * merged) + sum(paddle.mean(e) for e in extra)
        grads = paddle.static.append_backward(loss) if draw(st.booleans()) else []
    values = [q, k, v, ctx, merged] + extra
    picked = draw(st.lists(st.sampled_from([t.name for t in values]), max_size=2, unique=True))
    fetch = [loss.name] + picked + [g.name for _, g in grads][:3]
    return main, feeds, state, fetch, dtype


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(head_products(), st.integers(0, 2**31))
def test_head_products_agree_with_reference(prog, seed):
    paddle.enable_static()
    check_against_reference(prog, seed, [paddle.CPUPlace()], STRATEGIES)


@pytest.mark.slow
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(head_products(), st.integers(0, 2**31))
def test_head_products_agree_with_reference_slow(prog, seed):
    paddle.enable_static()
    check_against_reference(prog, seed, [paddle.CPUPlace()], STRATEGIES)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sibling_products(), st.integers(0, 2**31))
def test_sibling_products_agree_with_reference(prog, seed):
    paddle.enable_static()
    check_against_reference(prog, seed, [paddle.CPUPlace()], STRATEGIES)


@pytest.mark.slow
@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sibling_products(), st.integers(0, 2**31))
def test_sibling_products_agree_with_reference_slow(prog, seed):
    paddle.enable_static()
    check_against_reference(prog, seed, [paddle.CPUPlace()], STRATEGIES)
