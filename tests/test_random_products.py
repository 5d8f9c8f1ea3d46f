"""Random programs of sibling products: several matmuls of one X (or of earlier results) whose
epilogues read each other's products (where / compare / add / maximum / clip / relu), with some
products and intermediates fetched and the gradients of a mean taken, so products are stored,
die inside another product's kernel, or are summed into. Every BuildStrategy variant of
test_random_aliasing (in-place writes, memory reuse, epilogue fusion each off alone) must give
the numpy reference executor's values: an epilogue operand in the product's storage once read
the product instead (a silent wrong result, found by random Paddle programs)."""
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
