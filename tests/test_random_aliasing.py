"""Random programs where memory is shared: views (reshape2, transpose2, squeeze2/unsqueeze2,
flatten2, slice) of live values, reassignment (`assign(..., output=existing)`, in-place
elementwise updates), optimizer-like in-place updates of persistable vars, several fetches of
intermediates, and `fluid.memory_optimize` on the program. Every example runs on the C
backend under many BuildStrategy combinations, on the Triton backend (interpreter), and on
the numpy reference executor, which must agree.

Training programs (fc, layer_norm, softmax, reductions, views, residual adds) fetch activation
and parameter gradients together, in float64, against the reference executor's gradients.

The default run has a few hundred examples; `-m slow` runs thousands.
"""
from __future__ import annotations

import os

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import fluidc as fluid
from fluidc.frontend import unique_name
from op_harness import append, data_var, run_reference

os.environ.setdefault("TRITON_INTERPRET", "1")  # before any Triton kernel is decorated
pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")

FLAGS = ("memory_optimize", "enable_inplace", "fuse_all_optimizer_ops", "fuse_reduce_ops",
         "fuse_elewise_add_act_ops", "fuse_gemm_epilogue")
TOL = {"float32": dict(rtol=2e-5, atol=2e-6), "float64": dict(rtol=1e-9, atol=1e-11)}


def strategy(**flags) -> fluid.BuildStrategy:
    s = fluid.BuildStrategy()
    for k, v in flags.items():
        setattr(s, k, v)
    return s


# Each flag off alone, everything off, and all on (the default).
STRATEGIES = [strategy()] + [strategy(**{f: False}) for f in FLAGS] + [strategy(fuse_all=False)]
UNARY = ["relu", "sigmoid", "tanh", "square", "abs"]
BINARY = ["add", "sub", "mul", "max"]


def _factorings(n: int) -> list[tuple[int, ...]]:
    """Shapes of n elements to reshape to: [n], [a, n/a], [a, b, n/ab]."""
    out = [(n,)]
    for a in range(2, n):
        if n % a == 0:
            out.append((a, n // a))
            out += [(a, b, n // a // b) for b in range(2, n // a) if (n // a) % b == 0][:2]
    return out


@st.composite
def aliasing_programs(draw, max_dim: int = 5):
    """(program, feeds {name: shape}, state {name: shape}, fetch names, dtype)."""
    shape = tuple(draw(st.lists(st.integers(1, max_dim), min_size=1, max_size=3)))
    dtype = draw(st.sampled_from(["float32", "float64"]))
    program = fluid.Program()
    block = program.global_block()
    vs: list[str] = []  # vars holding values, any shape
    feeds, state = {}, {}

    def shape_of(n):
        return tuple(block.var(n).shape)

    for i in range(draw(st.integers(1, 2))):
        data_var(block, f"in{i}", np.empty(shape, dtype))
        feeds[f"in{i}"] = shape
        vs.append(f"in{i}")
    if draw(st.booleans()):  # a persistable var the program updates in place, as optimizers do
        block.create_var(name="p", shape=shape, dtype=dtype, persistable=True)
        state["p"] = shape
        vs.append("p")

    def out(op_type, inputs, attrs=None):
        _, outs = append(block, op_type, inputs, attrs or {})
        name = outs["Out"].name
        vs.append(name)
        return name

    for _ in range(draw(st.integers(2, 12))):
        a = draw(st.sampled_from(vs))
        sa = shape_of(a)
        numel = int(np.prod(sa))
        choice = draw(st.integers(0, 9))
        if choice == 0:  # a view: reshape to another factoring
            out("reshape2", {"X": [a]}, {"shape": list(draw(st.sampled_from(_factorings(numel))))})
        elif choice == 1 and len(sa) >= 2:
            perm = list(draw(st.permutations(range(len(sa)))))
            out("transpose2", {"X": [a]}, {"axis": perm})
        elif choice == 1:
            u = out("unsqueeze2", {"X": [a]}, {"axes": [0]})
            if draw(st.booleans()):
                out("squeeze2", {"X": [u]}, {"axes": [0]})
        elif choice == 2 and len(sa) >= 2:
            out("flatten2", {"X": [a]}, {"axis": draw(st.integers(0, len(sa) - 1))})
        elif choice == 2:
            end = draw(st.integers(1, sa[0]))
            out("slice", {"Input": [a]}, {"axes": [0], "starts": [0], "ends": [end]})
        elif choice == 3:  # reassignment of an existing var of the same shape
            others = [v for v in vs if v != a and shape_of(v) == sa and v not in feeds]
            if others:
                target = draw(st.sampled_from(others))
                src = out(draw(st.sampled_from(UNARY)), {"X": [a]})
                if draw(st.booleans()):
                    block.append_op("assign", {"X": [src]}, {"Out": [target]}, {})
                else:  # an in-place update: target = target + src
                    block.append_op("elementwise_add", {"X": [target], "Y": [src]},
                                    {"Out": [target]}, {"axis": -1})
        elif choice == 4:  # a reduction kept as dims (broadcast back by later ops), or softmax
            if draw(st.booleans()):
                out("softmax", {"X": [a]}, {"axis": -1})
            else:
                kind = draw(st.sampled_from(["reduce_sum", "reduce_max", "reduce_mean"]))
                dim = draw(st.integers(0, len(sa) - 1))
                out(kind, {"X": [a]}, {"dim": [dim], "keep_dim": True})
        elif choice == 5 and len(sa) == 2:  # a product by a fed square matrix
            w = f"w{len(feeds)}"
            data_var(block, w, np.empty((sa[1], sa[1]), dtype))
            feeds[w] = (sa[1], sa[1])
            out("matmul_v2", {"X": [a], "Y": [w]}, {"trans_x": False, "trans_y": False})
        elif choice in (6, 7):
            same = [v for v in vs if shape_of(v) == sa or (
                len(shape_of(v)) == len(sa) and all(d in (1, e) for d, e in zip(shape_of(v), sa)))]
            b = draw(st.sampled_from(same))
            out(f"elementwise_{draw(st.sampled_from(BINARY))}", {"X": [a], "Y": [b]}, {"axis": -1})
        else:
            out(draw(st.sampled_from(UNARY)), {"X": [a]})
    if state and draw(st.booleans()):  # an sgd-like update of the persistable var, last
        src = draw(st.sampled_from([v for v in vs if shape_of(v) == state["p"]]))
        block.append_op("elementwise_add", {"X": ["p"], "Y": [src]}, {"Out": ["p"]}, {"axis": -1})
    computed = [v for v in dict.fromkeys(vs) if v not in feeds]
    fetch = draw(st.lists(st.sampled_from(computed), max_size=4, unique=True)) if computed else []
    if computed and computed[-1] not in fetch:
        fetch.append(computed[-1])
    if "p" in state and "p" not in fetch:
        fetch.append("p")
    return program, feeds, state, fetch, dtype


def _values(spec: dict, dtype, seed: int) -> dict:
    """Uniform in [-2, 2]; a product's matrix `w*` [k, k] in [-2/k, 2/k], so float32 sums of
    k terms stay within the tolerance of the reference's."""
    rng = np.random.default_rng(seed)
    return {n: (rng.uniform(-2.0, 2.0, shape) / (shape[0] if n.startswith("w") else 1))
            .astype(dtype) for n, shape in spec.items()}


def _scope_with(state: dict) -> fluid.Scope:
    scope = fluid.Scope()
    for n, value in state.items():
        scope.var(n).get_tensor().set(value.copy(), fluid.CPUPlace())
    return scope


def check_against_reference(prog, seed, places, strategies, runs=2):
    """Every (place, strategy) variant equals the reference executor over `runs` runs."""
    program, feeds, state, fetch, dtype = prog
    init = _values(state, dtype, seed + 99)
    ref_scope = _scope_with(init)
    feeds_per_run = [_values(feeds, dtype, seed + r) for r in range(runs)]
    with np.errstate(all="ignore"):
        want = [run_reference(program, f, fetch, ref_scope) for f in feeds_per_run]
    for place in places:
        for s in strategies:
            exe, scope = fluid.Executor(place), _scope_with(init)
            compiled = fluid.CompiledProgram(program, build_strategy=s)
            for r, f in enumerate(feeds_per_run):
                got = exe.run(compiled, feed=f, fetch_list=fetch, scope=scope)
                for name, g, w in zip(fetch, got, want[r]):
                    np.testing.assert_allclose(
                        g, w, equal_nan=True, **TOL[dtype],
                        err_msg=f"{name} (run {r}, {place}, {vars(s)}) of\n{program}")


def _run_aliasing(prog, seed, places):
    if not prog[3]:
        return
    check_against_reference(prog, seed, places, STRATEGIES)
    fluid.memory_optimize(prog[0])  # marks the program: every strategy plans with reuse
    check_against_reference(prog, seed, places[:1], STRATEGIES[:2])


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(aliasing_programs(), st.integers(0, 2**31))
def test_aliasing_programs_agree_with_reference_on_c(prog, seed):
    _run_aliasing(prog, seed, [fluid.CPUPlace()])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(aliasing_programs(), st.integers(0, 2**31))
def test_runs_fetching_nothing_leave_the_references_state(prog, seed):
    """A run fetching nothing executes every op, as Paddle's executor: values nothing reads
    take storage too, and must not clobber what the program keeps (its in-place updates of
    persistable state), under every strategy and with memory_optimize."""
    program, feeds, state, _, dtype = prog
    if not state:
        return
    init = _values(state, dtype, seed + 99)
    feeds_per_run = [_values(feeds, dtype, seed + r) for r in range(2)]
    ref_scope = _scope_with(init)
    with np.errstate(all="ignore"):
        for f in feeds_per_run:
            run_reference(program, f, [], ref_scope)
    want = {n: np.array(ref_scope.find_var(n).get_tensor()) for n in state}
    for optimized in (False, True):
        if optimized:
            fluid.memory_optimize(program)
        for s in STRATEGIES[:2] if optimized else STRATEGIES:
            exe, scope = fluid.Executor(fluid.CPUPlace()), _scope_with(init)
            compiled = fluid.CompiledProgram(program, build_strategy=s)
            for f in feeds_per_run:
                assert exe.run(compiled, feed=f, scope=scope) == []
            for n in state:
                np.testing.assert_allclose(
                    np.array(scope.find_var(n).get_tensor()), want[n], equal_nan=True,
                    **TOL[dtype], err_msg=f"{n} ({vars(s)}, memory_optimize {optimized}) of\n"
                                          f"{program}")


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(aliasing_programs(max_dim=4), st.integers(0, 2**31))
def test_aliasing_programs_agree_with_reference_on_triton(prog, seed):
    pytest.importorskip("triton")
    if prog[3]:
        check_against_reference(prog, seed, [fluid.CUDAPlace(0)], STRATEGIES[:1] + STRATEGIES[-1:])


@pytest.mark.slow
@settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(aliasing_programs(max_dim=7), st.integers(0, 2**31))
def test_aliasing_programs_agree_with_reference_slow(prog, seed):
    _run_aliasing(prog, seed, [fluid.CPUPlace(), fluid.CUDAPlace(0)])


# -- training programs: activation and parameter gradients fetched together ----------------

@st.composite
def training_programs(draw):
    """(main, startup, feeds {name: shape}, fetch names): a float64 net, its loss, backward."""
    batch, width = draw(st.integers(1, 5)), draw(st.sampled_from([4, 6, 8]))
    main, startup = fluid.Program(), fluid.Program()
    main.random_seed = startup.random_seed = draw(st.integers(1, 1000))
    fetch_acts = []
    with fluid.program_guard(main, startup), unique_name.guard():
        x = fluid.layers.data(name="x", shape=[batch, width], dtype="float64",
                              append_batch_size=False)
        x.stop_gradient = False
        h = x
        for _ in range(draw(st.integers(1, 4))):
            kind = draw(st.sampled_from(["fc", "fc_act", "layer_norm", "softmax", "residual",
                                         "view", "reduce", "tanh"]))
            if kind == "fc":
                h = fluid.layers.fc(h, width)
            elif kind == "fc_act":
                h = fluid.layers.fc(h, width, act=draw(st.sampled_from(["relu", "tanh",
                                                                       "sigmoid"])))
            elif kind == "layer_norm":
                h = fluid.layers.layer_norm(h, begin_norm_axis=1)
            elif kind == "softmax":
                h = fluid.layers.softmax(h)
            elif kind == "residual":
                h = h + fluid.layers.fc(h, width, act=draw(st.sampled_from([None, "relu"])))
            elif kind == "view":
                v = fluid.layers.reshape(h, [batch * width])
                h = fluid.layers.reshape(fluid.layers.scale(v, 0.5), [batch, width])
            elif kind == "reduce":
                h = h - fluid.layers.reduce_mean(h, dim=[1], keep_dim=True)
            else:
                h = fluid.layers.tanh(h)
            if draw(st.booleans()):
                fetch_acts.append(h)
        loss_kind = draw(st.sampled_from(["square", "sum", "max"]))
        if loss_kind == "square":
            loss = fluid.layers.mean(h * h)
        elif loss_kind == "sum":
            loss = fluid.layers.reduce_sum(fluid.layers.sigmoid(h))
        else:  # a ramp keeps maxima apart: at a tie (relu's zeros through softmax) the
            # grad is shared by the tied elements, and a transcendental's vector and scalar code
            # (a row's tail) may round one input differently, untying them
            ramp = fluid.layers.assign(np.arange(width, dtype="float64") * 1e-3)
            loss = fluid.layers.mean(fluid.layers.reduce_max(h + ramp, dim=[1]))
        params_grads = fluid.backward.append_backward(loss)
    grads = [g.name for _, g in params_grads]
    fetch = [loss.name, x.name + "@GRAD"] + draw(st.lists(st.sampled_from(grads), min_size=1,
                                                          unique=True)) if grads else \
        [loss.name, x.name + "@GRAD"]
    fetch += [a.name for a in fetch_acts]
    block = main.global_block()
    fetch += [a.name + "@GRAD" for a in fetch_acts if block.has_var(a.name + "@GRAD")]
    return main, startup, {"x": (batch, width)}, list(dict.fromkeys(fetch))


def _run_training(prog, seed, places, strategies):
    main, startup, feeds, fetch = prog
    exe = fluid.Executor(fluid.CPUPlace())
    init_scope = fluid.Scope()
    exe.run(startup, scope=init_scope)
    init = {v.name: np.array(init_scope.find_var(v.name).get_tensor())
            for v in main.list_vars() if v.persistable and init_scope.find_var(v.name)}
    feed = _values(feeds, "float64", seed)
    want = run_reference(main, feed, fetch, _scope_with(init))
    for place in places:
        for s in strategies:
            got = fluid.Executor(place).run(fluid.CompiledProgram(main, build_strategy=s),
                                            feed=feed, fetch_list=fetch, scope=_scope_with(init))
            for name, g, w in zip(fetch, got, want):
                np.testing.assert_allclose(g, w, rtol=1e-9, atol=1e-11,
                                           err_msg=f"{name} ({place}, {vars(s)}) of\n{main}")


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(training_programs(), st.integers(0, 2**31))
def test_training_gradients_agree_with_reference(prog, seed):
    _run_training(prog, seed, [fluid.CPUPlace()], STRATEGIES)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(training_programs(), st.integers(0, 2**31))
def test_training_gradients_agree_with_reference_on_triton(prog, seed):
    pytest.importorskip("triton")
    _run_training(prog, seed, [fluid.CUDAPlace(0)], STRATEGIES[:1])


@pytest.mark.slow
@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(training_programs(), st.integers(0, 2**31))
def test_training_gradients_agree_with_reference_slow(prog, seed):
    _run_training(prog, seed, [fluid.CPUPlace(), fluid.CUDAPlace(0)], STRATEGIES)


def test_fetched_results_are_not_overwritten_by_later_runs_on_any_place():
    pytest.importorskip("triton")
    x = fluid.layers.data(name="x", shape=[3], dtype="float32", append_batch_size=False)
    out = fluid.layers.exp(x)
    for place in (fluid.CPUPlace(), fluid.CUDAPlace(0)):
        exe = fluid.Executor(place)
        first = exe.run(feed={"x": np.zeros(3, "float32")}, fetch_list=[out])[0]
        held = exe.run(feed={"x": np.zeros(3, "float32")}, fetch_list=[out],
                       return_numpy=False)[0]
        exe.run(feed={"x": np.ones(3, "float32")}, fetch_list=[out])
        np.testing.assert_array_equal(first, np.ones(3, "float32"), err_msg=str(place))
        np.testing.assert_array_equal(np.array(held), np.ones(3, "float32"), err_msg=str(place))
