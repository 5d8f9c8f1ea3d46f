"""NAdam, RAdam, ASGD and Rprop (passes/optimizer2.py, frontend/ops/optim2.py): training runs
against real Paddle's numbers (tests/fixtures/optimizers2.npz, from make_optimizer2_fixtures.py)
as static programs, as Paddle's own programs loaded here and in dygraph (parameter groups
too), accumulators and state_dict names included; training programs compiled fused and
unfused against the numpy reference executor; the ops and accumulators each optimizer
appends, as Paddle 3.3.1 appends them (name= prefixes included); lowering against the
composites' Paddle formulas; shape refusals. The ops' own formulas are checked against
Paddle's OpTest numpy in tests/paddle_tests/test_{nadam,radam,asgd,rprop}_op.py, and fluidc's
programs in Paddle's executor by make_optimizer2_fixtures.py's check mode."""
import os
import sys

import numpy as np
import pytest

import fluidc as paddle
from fluidc.frontend.errors import ShapeError
from fluidc.frontend.ops.registry import OpDesc, get_op_def
from fluidc.runtime.program_desc import parse_program

from op_harness import run_reference
from ref_harness import run_ops

FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures")
sys.path.insert(0, FIXTURES)
from optimizer2_cases import (PARAMS, cases, dygraph_cases, run_static,  # noqa: E402
                              start_values, static_reference, train_dygraph, train_static)

F32 = np.float32
TOL = dict(rtol=1e-5, atol=1e-6)


@pytest.fixture(scope="module")
def paddle_numbers():
    with np.load(os.path.join(FIXTURES, "optimizers2.npz")) as z:
        return {k: z[k] for k in z.files}


def _under(numbers, prefix):
    return {k[len(prefix):]: v for k, v in numbers.items() if k.startswith(prefix)}


@pytest.mark.parametrize("name", cases(paddle))
def test_static_training_matches_paddle(name, paddle_numbers):
    """Losses, parameters and every accumulator after 8 steps equal Paddle 3.3.1's (its
    dygraph run's for ASGD, which Paddle cannot step in a static program)."""
    losses, final, accs = train_static(paddle, name)
    np.testing.assert_allclose(losses, paddle_numbers[f"static/{name}/loss"], **TOL)
    for p, value in final.items():
        np.testing.assert_allclose(value, paddle_numbers[f"static/{name}/{p}"].reshape(
            value.shape), **TOL, err_msg=p)
    want = _under(paddle_numbers, f"static/{name}/acc/")
    if not name.startswith("asgd"):
        assert sorted(accs) == sorted(want)
    for key, value in want.items():
        np.testing.assert_allclose(accs[key], value, **TOL, err_msg=key)


@pytest.mark.parametrize("name", [c for c in cases(paddle) if static_reference(c) == "static"])
def test_paddles_own_programs_train_as_in_paddle(name, paddle_numbers):
    """The main and startup programs Paddle 3.3.1 built (its rprop's slice of the param and
    assign_value of Scalars included), loaded from their bytes, train with Paddle's numbers."""
    main, startup = (parse_program(paddle_numbers[f"static/{name}/{k}_program"].tobytes())
                     for k in ("main", "startup"))
    op = [o for o in main.global_block().ops if o.type == name.split("_")[0]][0]
    assert op.input("param") == op.output("param_out")
    losses, final, _ = run_static(paddle, main, startup, "mean_0.tmp_0")
    np.testing.assert_allclose(losses, paddle_numbers[f"static/{name}/loss"], **TOL)
    for p, value in final.items():
        np.testing.assert_allclose(value, paddle_numbers[f"static/{name}/{p}"], **TOL, err_msg=p)


@pytest.mark.parametrize("name", dygraph_cases(paddle))
def test_dygraph_training_matches_paddle(name, paddle_numbers):
    """The same in dygraph, parameter groups too (each group's options; Rprop ignores a
    group's rate, as Paddle's); the state_dict has Paddle's names, in Paddle's order, and
    values."""
    losses, final, state = train_dygraph(paddle, name)
    np.testing.assert_allclose(losses, paddle_numbers[f"dygraph/{name}/loss"], **TOL)
    for p, value in final.items():
        np.testing.assert_allclose(value, paddle_numbers[f"dygraph/{name}/{p}"], **TOL,
                                   err_msg=p)
    want = _under(paddle_numbers, f"dygraph/{name}/state/")
    assert list(state) == list(want)
    for key, value in want.items():
        assert state[key].dtype == value.dtype and state[key].shape == value.shape, key
        np.testing.assert_allclose(state[key], value, **TOL, err_msg=key)


def _program(make_opt):
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [None, 4], "float32")
        t = paddle.static.data("t", [None, 3], "float32")
        p = {n: paddle.create_parameter(list(s), "float32", attr=paddle.ParamAttr(name=n))
             for n, s in PARAMS.items()}
        h = paddle.tanh(paddle.add(paddle.matmul(x, p["w1"]), p["b1"]))
        y = paddle.add(paddle.matmul(h, p["w2"]), p["b2"])
        loss = paddle.mean(paddle.square(paddle.subtract(y, t)))
        make_opt().minimize(loss)
    return main, startup, loss


_MAKERS = {
    "nadam": lambda: paddle.optimizer.NAdam(0.05, weight_decay=0.01),
    "radam": lambda: paddle.optimizer.RAdam(0.05, beta2=0.9),
    "asgd": lambda: paddle.optimizer.ASGD(0.1, batch_num=3),
    "rprop": lambda: paddle.optimizer.Rprop(0.01),
}


@pytest.mark.parametrize("name", sorted(_MAKERS))
def test_fused_unfused_and_reference_executor_agree(name):
    """Eight training steps, each run three ways from the same start: fused kernels, unfused
    (fuse_all off) and the numpy reference executor; losses and every persistable agree."""
    main, startup, loss = _program(_MAKERS[name])
    params, feeds = start_values()
    plain = paddle.BuildStrategy()
    plain.fuse_all = False
    exe = paddle.static.Executor(paddle.CPUPlace())
    runs = {"fused": lambda feed, scope: exe.run(main, feed=feed, fetch_list=[loss],
                                                 scope=scope),
            "unfused": lambda feed, scope: exe.run(
                paddle.static.CompiledProgram(main, build_strategy=plain), feed=feed,
                fetch_list=[loss], scope=scope),
            "reference": lambda feed, scope: run_reference(main, feed, [loss.name], scope)}
    persistables = [v.name for v in main.list_vars() if v.persistable]
    results = {}
    for how, run in runs.items():
        scope = paddle.static.Scope()
        exe.run(startup, scope=scope)
        for n, v in params.items():
            scope.find_var(n).get_tensor().set(v, paddle.CPUPlace())
        losses = [float(np.asarray(run({"x": x, "t": t}, scope)[0]).reshape(-1)[0])
                  for x, t in feeds]
        results[how] = (losses, {n: np.array(scope.find_var(n).get_tensor())
                                 for n in persistables})
    want_losses, want = results["reference"]
    assert len(set(np.round(want_losses, 4))) > 4  # the net trains: losses move
    for how in ("fused", "unfused"):
        losses, got = results[how]
        np.testing.assert_allclose(losses, want_losses, **TOL, err_msg=how)
        for n, value in want.items():
            np.testing.assert_allclose(got[n], value, **TOL, err_msg=f"{how}: {n}")


def _ops(main, skip=("matmul_v2", "elementwise_add", "tanh", "elementwise_sub", "square",
                     "reduce_mean", "fill_constant")):
    return [op for op in main.global_block().ops
            if op.type not in skip and not op.type.endswith("_grad")]


def test_nadam_radam_ops_and_accumulators_as_paddle():
    """One update op per parameter over Paddle's slots; accumulators named, shaped and started
    as Paddle 3.3.1's (param-shaped powers starting at 1, moments at 0); float attrs are
    float32."""
    for make, op_type, powers in (
            (lambda: paddle.optimizer.NAdam(0.01, beta1=0.8, momentum_decay=0.01), "nadam",
             ["momentum_decay_pow", "beta2_pow", "mu_product"]),
            (lambda: paddle.optimizer.RAdam(0.01, beta2=0.95), "radam",
             ["beta1_pow", "beta2_pow", "rho"])):
        with paddle.utils.unique_name.guard():
            main, startup, _ = _program(make)
        ops = _ops(main)
        assert [op.type for op in ops] == [op_type] * 4
        op = [o for o in ops if o.input("param") == ["w1"]][0]
        for acc in powers + ["moment1", "moment2"]:
            assert op.input(acc) == op.output(acc + "_out") == [f"w1_{acc}_0"]
            assert main.global_block().var(f"w1_{acc}_0").shape == (4, 5)
        assert op.input("learning_rate") == ["learning_rate_0"]
        assert op.attr("beta1" if op_type == "nadam" else "beta2") == \
            float(F32(0.8 if op_type == "nadam" else 0.95))
        fills = {o.output("Out")[0]: o.attr("value") for o in startup.global_block().ops
                 if o.type == "fill_constant"}
        assert [fills[f"w1_{a}_0"] for a in powers + ["moment1", "moment2"]] == \
            [1.0, 1.0, 1.0, 0.0, 0.0]


def test_rprop_ops_as_paddle():
    """Rprop: weight_decay 0.0 as Paddle's (scale + sum into the grad), the [1, 2] range and
    etas tensors made once, per-element rates started at the learning rate; the rate's
    per-parameter scale is not used (nor made)."""
    main, startup, _ = _program(lambda: paddle.optimizer.Rprop(
        0.02, learning_rate_range=(1e-3, 0.5), etas=(0.4, 1.3)))
    types = [op.type for op in _ops(main)]
    assert types.count("rprop") == 4 and types.count("assign_value") == 2
    assert types.count("scale") == types.count("sum") == 4  # L2Decay(0.0), as Paddle
    rprop = [op for op in _ops(main) if op.type == "rprop"]
    assert len({op.input("etas")[0] for op in rprop}) == 1
    values = {op.output("Out")[0]: op.attr("fp32_values") for op in _ops(main)
              if op.type == "assign_value"}
    assert sorted(values.values()) == sorted(F32([[1e-3, 0.5], [0.4, 1.3]]).tolist())
    fills = {o.output("Out")[0]: o.attr("value") for o in startup.global_block().ops
             if o.type == "fill_constant"}
    assert fills["w1_learning_rates_0"] == pytest.approx(0.02) and fills["w1_prevs_0"] == 0.0


def test_asgd_ops_and_accumulators():
    """ASGD's accumulators as Paddle's (d like the param, y [batch_num, *shape], m an int64
    step counter), and the stored gradient picked and written back by the step counter."""
    main, startup, _ = _program(lambda: paddle.optimizer.ASGD(0.1, batch_num=4))
    block = main.global_block()
    assert block.var("w1_d_0").shape == (4, 5) and block.var("w1_y_0").shape == (4, 4, 5)
    assert block.var("w1_m_0").shape == (1,) and block.var("w1_m_0").dtype == paddle.int64
    per_param = [op.type for op in _ops(main) if "w1" in " ".join(op.input_arg_names +
                                                                  op.output_arg_names)]
    assert per_param == ["elementwise_mod", "increment", "elementwise_min", "gather",
                         "reshape2", "asgd", "reshape2", "scatter"]


def _lowered_and_formula(op_type, ins, outs):
    """The op run by its Paddle formula (reference) and through its lowering: both results."""
    op = OpDesc(op_type, {s: [s] for s in ins}, {s: ["out_" + s] for s in outs}, {})
    env = {k: v.copy() for k, v in ins.items()}
    formula = run_ops([op], dict(env), lower=False)
    lowered = run_ops([op], dict(env), lower=True)
    return [(formula["out_" + s], lowered["out_" + s]) for s in outs]


@pytest.mark.parametrize("shape", [(3, 4), (), (1,)])
def test_radam_reads_rho_of_the_first_element(shape):
    """rho_t comes from rho's first element, as Paddle's kernel reads it: elements whose own
    rho would take the other branch follow the first one's; 0-d and one-element params too."""
    rng = np.random.default_rng(3)
    ins = {"param": rng.standard_normal(shape).astype(F32),
           "grad": rng.standard_normal(shape).astype(F32),
           "learning_rate": np.array([0.1], F32),
           "beta1_pow": np.full(shape, 0.5, F32), "beta2_pow": np.full(shape, 0.99, F32),
           "rho": np.full(shape, 0.5, F32), "moment1": rng.standard_normal(shape).astype(F32),
           "moment2": np.abs(rng.standard_normal(shape)).astype(F32)}
    if shape == (3, 4):
        ins["rho"][1:] = 900.0  # alone, these would not be rectified
    outs = ["param_out", "rho_out", "moment2_out"]
    for formula, lowered in _lowered_and_formula("radam", ins, outs):
        np.testing.assert_allclose(lowered, formula, rtol=1e-6, atol=1e-7)
    param_out = _lowered_and_formula("radam", ins, ["param_out"])[0][1]
    plain = ins["param"] - 0.1 * (0.5 * ins["moment1"] + 0.5 * ins["grad"]) / (1 - 0.25)
    assert not np.allclose(param_out, plain)  # the rectified step, everywhere


def test_rprop_lowering_matches_its_formula():
    rng = np.random.default_rng(4)
    ins = {"param": rng.standard_normal((5, 6)).astype(F32),
           "grad": rng.standard_normal((5, 6)).astype(F32),
           "prev": rng.standard_normal((5, 6)).astype(F32),
           "learning_rate": rng.uniform(0.01, 1.0, (5, 6)).astype(F32),
           "learning_rate_range": np.array([[0.05, 0.9]], F32),
           "etas": np.array([0.5, 1.2], F32)}
    ins["grad"][0, :3] = 0.0  # the product-is-zero case: eta 1, sign 0
    for formula, lowered in _lowered_and_formula(
            "rprop", ins, ["param_out", "prev_out", "learning_rate_out"]):
        np.testing.assert_array_equal(lowered, formula)


def _append(op_type, ins):
    main = paddle.static.Program()
    with paddle.static.program_guard(main, paddle.static.Program()):
        block = main.global_block()
        vars_ = {k: paddle.static.data(k, list(v), "float32") for k, v in ins.items()}
        outs = {s.name: [block.create_var(name=s.name, dtype="float32")]
                for s in get_op_def(op_type).outputs}
        block.append_op(op_type, {k: [v] for k, v in vars_.items()}, outs)
        paddle.static.Executor(paddle.CPUPlace()).run(
            main, feed={k: np.ones(v, F32) for k, v in ins.items()},
            fetch_list=outs["param_out"])


def test_accumulators_of_another_shape_are_refused():
    """Paddle's kernels would read a [1] power out of bounds (its 0-d ones give NaNs): an
    error naming the slot, not a broadcast."""
    shapes = {"param": [3, 4], "grad": [3, 4], "learning_rate": [1], "momentum_decay_pow": [1],
              "beta2_pow": [3, 4], "mu_product": [3, 4], "moment1": [3, 4], "moment2": [3, 4]}
    with pytest.raises(ShapeError, match="momentum_decay_pow must have the param's shape"):
        _append("nadam", shapes)
    with pytest.raises(ShapeError, match="etas must hold two values"):
        _append("rprop", {"param": [3], "grad": [3], "prev": [3], "learning_rate": [3],
                          "learning_rate_range": [2], "etas": [3]})


@pytest.mark.parametrize("make,error,match", [
    (lambda: paddle.optimizer.NAdam(learning_rate=-1), ValueError, "Invalid learning rate"),
    (lambda: paddle.optimizer.NAdam(0.1, momentum_decay=-0.1), ValueError, "momentum_decay"),
    (lambda: paddle.optimizer.RAdam(0.1, beta2=1.0), ValueError, "beta2"),
    (lambda: paddle.optimizer.RAdam(0.1, parameters=[{"params": [], "beta1": 2.0}]),
     ValueError, "beta1"),
    (lambda: paddle.optimizer.ASGD(0.1, batch_num=0), ValueError, "batch_num"),
    (lambda: paddle.optimizer.Rprop(0.1, learning_rate_range=(0.2, 1.0)), ValueError,
     "learning_rate_range"),
    (lambda: paddle.optimizer.Rprop(0.1, etas=(0.5, 0.9)), ValueError, "etas"),
])
def test_argument_errors(make, error, match):
    with pytest.raises(error, match=match):
        make()


def test_dygraph_checkpoint_resumes_the_same_steps():
    """A state_dict saved after four NAdam steps and loaded into a fresh optimizer continues
    exactly as the uninterrupted run (names as Paddle's, so Paddle's checkpoints load too)."""
    _, want, _ = train_dygraph(paddle, "nadam")
    paddle.disable_static()
    try:
        with paddle.utils.unique_name.guard():
            from optimizer2_cases import _net
            net, feeds = _net(paddle)
            opt = paddle.optimizer.NAdam(0.05, parameters=net.parameters())
            for k, (xs, ts) in enumerate(feeds):
                if k == 4:
                    saved = opt.state_dict()
                    opt = paddle.optimizer.NAdam(0.05, parameters=net.parameters())
                    opt.set_state_dict(saved)
                loss = paddle.mean(paddle.square(net(paddle.to_tensor(xs)) -
                                                 paddle.to_tensor(ts)))
                loss.backward()
                opt.step()
                opt.clear_grad()
            np.testing.assert_allclose(net[0].weight.numpy(), want["w1"], rtol=1e-6)
    finally:
        paddle.enable_static()


@pytest.mark.parametrize("make,kinds", [
    (lambda: paddle.optimizer.NAdam(0.01, name="opt"),
     ["beta2_pow", "moment1", "moment2", "momentum_decay_pow", "mu_product"]),
    (lambda: paddle.optimizer.Adam(0.01, name="opt"),
     ["beta1_pow_acc", "beta2_pow_acc", "moment1", "moment2"])])
def test_name_prefixes_the_accumulators(make, kinds):
    """An optimizer's name= goes between the parameter's name and the accumulator's, as in
    Paddle 3.3.1 (w_opt_moment1_0), so named optimizers' checkpoints cross too."""
    main = paddle.static.Program()
    with paddle.static.program_guard(main, paddle.static.Program()):
        x = paddle.static.data("x", [None, 4], "float32")
        w = paddle.create_parameter([4, 3], "float32", attr=paddle.ParamAttr(name="w"))
        make().minimize(paddle.mean(paddle.matmul(x, w)))
    names = sorted(n for n, v in main.global_block().vars.items() if v.persistable)
    assert names == sorted(["learning_rate_0", "w"] + [f"w_opt_{k}_0" for k in kinds])
