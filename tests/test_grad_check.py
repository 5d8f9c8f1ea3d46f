"""append_backward + the C executor against central finite differences of the same program.

Each case builds loss = mean(op(inputs) * W) in float64 (W fixed random, so every output element
weighs differently), appends the backward, fetches the inputs' @GRAD vars, and compares them with
(loss(x + eps) - loss(x - eps)) / 2eps from re-running the program element by element."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np
import pytest

import fluidc as fluid
from fluidc.frontend.framework import default_main_program

from op_harness import append, data_var, seeded

EPS, RTOL, ATOL = 1e-6, 1e-5, 1e-8


def op(op_type: str, attrs: dict | None = None, out: str = "Out", **ins):
    """Append op_type to the current main program; its `out` output var."""
    inputs = {k: v if isinstance(v, list) else [v] for k, v in ins.items()}
    return append(default_main_program().global_block(), op_type, inputs, attrs)[1][out]


def grad_names(program) -> set[str]:
    """Every @GRAD var some op of the program writes (renamed partial sums included)."""
    return {n for o in program.global_block().ops for n in o.desc.output_arg_names if "@GRAD" in n}


@dataclass
class GradCase:
    """build(vars) -> the var to differentiate; inputs: name -> array; wrt: the inputs that
    need gradients (the rest are fed with stop_gradient); params: inputs made parameters whose
    values live in the scope; no_grad_set: passed to append_backward (its inputs are declared
    differentiable, so only the set stops them); absent: vars that must get no gradient."""

    build: Callable
    inputs: dict
    wrt: tuple = ("x",)
    params: tuple = ()
    no_grad_set: set | None = None
    absent: tuple = ()


def build_grad_program(case: GradCase, rng: np.random.Generator):
    """(program, loss, weight, param_grads): loss = mean(case(inputs) * weight), differentiated."""
    program = fluid.Program()
    with fluid.program_guard(program, fluid.Program()):
        block = program.global_block()
        vs = {}
        for name, value in case.inputs.items():
            if name in case.params:
                vs[name] = fluid.layers.create_parameter(list(value.shape), value.dtype.name,
                                                         name=name)
            else:
                differentiable = name in case.wrt or name in (case.no_grad_set or ())
                vs[name] = data_var(block, name, value, stop_gradient=not differentiable)
        out = case.build(vs)
        weight = rng.uniform(-1.0, 1.0, out.shape)
        loss = fluid.layers.mean(fluid.layers.elementwise_mul(out, data_var(block, "w", weight)))
        param_grads = fluid.backward.append_backward(loss, no_grad_set=case.no_grad_set)
    return program, loss, weight, param_grads


def run_grad_check(case: GradCase, key: str) -> None:
    program, loss, weight, param_grads = build_grad_program(case, seeded(key))
    written = grad_names(program)
    for name in case.absent:
        assert name + "@GRAD" not in written, f"{name} is stopped but gets a gradient"
    assert {p.name for p, _ in param_grads} == set(case.params) - set(case.no_grad_set or ())

    scope = fluid.Scope()
    exe = fluid.Executor(fluid.CPUPlace())
    feed = {"w": weight, **{n: v for n, v in case.inputs.items() if n not in case.params}}
    fetch = [loss.name] + [n + "@GRAD" for n in case.wrt]

    def run(values: dict):
        for n in case.params:
            scope.var(n).get_tensor().set(values[n], fluid.CPUPlace())
        with fluid.scope_guard(scope):
            return exe.run(program, feed={n: values[n] for n in feed}, fetch_list=fetch)

    values = {**case.inputs, "w": weight}
    analytic = run(values)[1:]
    for name, got in zip(case.wrt, analytic):
        x = values[name]
        numeric = np.zeros_like(x)
        for i in np.ndindex(x.shape):
            losses = []
            for step in (EPS, -EPS):
                moved = x.copy()
                moved[i] += step
                losses.append(run({**values, name: moved})[0].item())
            numeric[i] = (losses[0] - losses[1]) / (2 * EPS)
        assert got.shape == x.shape and got.dtype == np.float64, (name, got.shape, got.dtype)
        np.testing.assert_allclose(got, numeric, rtol=RTOL, atol=ATOL, err_msg=f"d loss / d {name}")


# --- input makers (float64; kinks and ties kept well away from eps) ----------------------------
R = np.random.default_rng(2024)


def u(*shape, lo=-2.0, hi=2.0):
    return R.uniform(lo, hi, shape)


def away0(*shape, lo=0.3, hi=2.0):
    """Magnitudes in [lo, hi) with random signs: no kink of relu/abs/leaky_relu within reach."""
    return u(*shape, lo=lo, hi=hi) * R.choice([-1.0, 1.0], shape)


def odd_tenths(*shape):
    """Odd multiples of 0.1; even_tenths never equal them, so max/min have no ties."""
    return (2 * R.integers(-10, 10, shape) + 1) * 0.1


def even_tenths(*shape):
    return 2 * R.integers(-10, 10, shape) * 0.1


def distinct(*shape):
    """Distinct values at least 0.05 apart: reduce_max/min have one winner per slice."""
    n = int(np.prod(shape))
    return (R.permutation(n) * 0.05 - n * 0.025).reshape(shape)


def probs(*shape):
    e = np.exp(R.normal(size=shape))
    return e / e.sum(-1, keepdims=True)


def ids(*shape, hi):
    return R.integers(0, hi, shape).astype(np.int64)


CASES: dict[str, GradCase] = {}


def unary_case(op_type, x, **attrs):
    return GradCase(lambda v: op(op_type, attrs, X=v["x"]), {"x": x})


def binary_case(op_type, x, y, axis=-1):
    return GradCase(lambda v: op(op_type, {"axis": axis}, X=v["x"], Y=v["y"]), {"x": x, "y": y},
                    wrt=("x", "y"))


# Elementwise binaries over Paddle's broadcasts: (X shape, Y shape, axis).
BROADCASTS = {"same": ((2, 3, 4), (2, 3, 4), -1), "axis1": ((2, 3, 4, 2), (3, 4), 1),
              "trailing": ((2, 3, 4), (4,), -1), "scalar": ((2, 3, 4), (1,), -1)}
_DOMAINS = {"add": (u, u), "sub": (u, u), "mul": (u, u), "div": (u, away0),
            "max": (odd_tenths, even_tenths), "min": (odd_tenths, even_tenths),
            "pow": (lambda *s: u(*s, lo=0.5, hi=2.0), u)}
for _kind, (_mx, _my) in _DOMAINS.items():
    for _label, (_xs, _ys, _axis) in BROADCASTS.items():
        CASES[f"elementwise_{_kind}-{_label}"] = binary_case(f"elementwise_{_kind}", _mx(*_xs),
                                                              _my(*_ys), _axis)

for _op, _x in {"relu": away0(3, 5), "sigmoid": u(3, 5), "tanh": u(3, 5), "exp": u(3, 5),
                "log": u(3, 5, lo=0.2), "sqrt": u(3, 5, lo=0.2), "rsqrt": u(3, 5, lo=0.2),
                "square": u(3, 5), "abs": away0(3, 5), "assign": u(3, 5)}.items():
    CASES[_op] = unary_case(_op, _x)
CASES["leaky_relu"] = unary_case("leaky_relu", away0(3, 5), alpha=0.1)
CASES["stanh"] = unary_case("stanh", u(3, 5), scale_a=0.8, scale_b=1.5)
CASES["gelu-erf"] = unary_case("gelu", u(3, 5, lo=-3, hi=3), approximate=False)
CASES["gelu-tanh"] = unary_case("gelu", u(3, 5, lo=-3, hi=3), approximate=True)
CASES["scale"] = unary_case("scale", u(3, 5), scale=2.5, bias=0.3)
CASES["scale-bias_first"] = unary_case("scale", u(3, 5), scale=-1.5, bias=0.3,
                                       bias_after_scale=False)
CASES["softmax"] = unary_case("softmax", u(3, 5))
CASES["softmax-axis1"] = unary_case("softmax", u(2, 3, 4), axis=1)
CASES["dropout-test"] = unary_case("dropout", u(3, 5), is_test=True, dropout_prob=0.3)
CASES["dropout-fixed_seed"] = unary_case("dropout", u(6, 5), dropout_prob=0.4, fix_seed=True,
                                         seed=11, dropout_implementation="upscale_in_train")
CASES["sum"] = GradCase(lambda v: op("sum", X=[v["x"], v["y"], v["x"]]),
                        {"x": u(3, 4), "y": u(3, 4)}, wrt=("x", "y"))

# Matrix products.
CASES["mul"] = GradCase(lambda v: op("mul", X=v["x"], Y=v["y"]), {"x": u(3, 4), "y": u(4, 5)},
                        wrt=("x", "y"))
CASES["mul-flatten"] = GradCase(lambda v: op("mul", {"x_num_col_dims": 2}, X=v["x"], Y=v["y"]),
                                {"x": u(2, 3, 4), "y": u(4, 3)}, wrt=("x", "y"))
for _type, _tx, _ty, _extra in (("matmul", "transpose_X", "transpose_Y", {"alpha": 0.7}),
                                ("matmul_v2", "trans_x", "trans_y", {})):
    for _label, (_xs, _ys, _attrs) in {
            "plain": ((3, 4), (4, 5), dict(_extra)),
            "tx": ((4, 3), (4, 5), {_tx: True}),
            "ty": ((3, 4), (5, 4), {_ty: True}),
            "batched_txy": ((2, 4, 3), (2, 5, 4), {_tx: True, _ty: True}),
            "batch_broadcast": ((2, 1, 3, 4), (3, 4, 2), {}),
            "vec_mat": ((4,), (2, 4, 3), {})}.items():
        CASES[f"{_type}-{_label}"] = GradCase(
            lambda v, t=_type, a=_attrs: op(t, a, X=v["x"], Y=v["y"]),
            {"x": u(*_xs), "y": u(*_ys)}, wrt=("x", "y"))

# Reductions.
for _label, (_op, _attrs, _x) in {
        "reduce_sum-dim1": ("reduce_sum", {"dim": [1]}, u(2, 3, 4)),
        "reduce_sum-all": ("reduce_sum", {"reduce_all": True}, u(2, 3, 4)),
        "reduce_mean-dims02_keep": ("reduce_mean", {"dim": [0, 2], "keep_dim": True}, u(2, 3, 4)),
        "reduce_mean-last": ("reduce_mean", {"dim": [-1]}, u(2, 3, 4)),
        "reduce_max-last": ("reduce_max", {"dim": [-1]}, distinct(2, 3, 4)),
        "reduce_max-all_keep": ("reduce_max", {"reduce_all": True, "keep_dim": True},
                                distinct(2, 3, 4)),
        "reduce_min-dim0": ("reduce_min", {"dim": [0]}, distinct(2, 3, 4))}.items():
    CASES[_label] = GradCase(lambda v, o=_op, a=_attrs: op(o, a, X=v["x"]), {"x": _x})
CASES["mean"] = GradCase(lambda v: op("mean", X=v["x"]), {"x": u(3, 5)})

# Losses.
CASES["cross_entropy-hard"] = GradCase(
    lambda v: op("cross_entropy", out="Y", X=v["x"], Label=v["label"]),
    {"x": probs(4, 5), "label": ids(4, 1, hi=5)})
CASES["cross_entropy-soft"] = GradCase(
    lambda v: op("cross_entropy", {"soft_label": True}, out="Y", X=v["x"], Label=v["label"]),
    {"x": probs(4, 5), "label": probs(4, 5)})
CASES["softmax_with_cross_entropy-hard"] = GradCase(
    lambda v: op("softmax_with_cross_entropy", out="Loss", Logits=v["x"], Label=v["label"]),
    {"x": u(4, 5), "label": ids(4, 1, hi=5)})
CASES["softmax_with_cross_entropy-soft"] = GradCase(
    lambda v: op("softmax_with_cross_entropy", {"soft_label": True}, out="Loss",
                 Logits=v["x"], Label=v["label"]),
    {"x": u(4, 5), "label": probs(4, 5)})
CASES["softmax_with_cross_entropy-axis1"] = GradCase(
    lambda v: op("softmax_with_cross_entropy", {"axis": 1}, out="Loss", Logits=v["x"],
                 Label=v["label"]),
    {"x": u(2, 4, 3), "label": ids(2, 1, 3, hi=4)})

# Shape ops.
CASES["reshape2"] = GradCase(lambda v: op("reshape2", {"shape": [4, -1]}, X=v["x"]),
                             {"x": u(2, 3, 4)})
CASES["transpose2"] = GradCase(lambda v: op("transpose2", {"axis": [1, 2, 0]}, X=v["x"]),
                               {"x": u(2, 3, 4)})
CASES["flip"] = GradCase(lambda v: op("flip", {"axis": [0, -1]}, X=v["x"]), {"x": u(2, 3, 4)})
CASES["concat"] = GradCase(lambda v: op("concat", {"axis": 1}, X=[v["x"], v["y"], v["z"]]),
                           {"x": u(2, 3, 2), "y": u(2, 1, 2), "z": u(2, 2, 2)},
                           wrt=("x", "y", "z"))


def _batch_norm(layout):
    def build(v):
        return op("batch_norm", {"data_layout": layout}, out="Y", X=v["x"], Scale=v["scale"],
                  Bias=v["bias"], Mean=v["mean"], Variance=v["var"])
    return build


for _layout, _xs in (("NCHW", (2, 3, 2, 2)), ("NHWC", (2, 2, 2, 3))):
    CASES[f"batch_norm-{_layout}"] = GradCase(
        _batch_norm(_layout), {"x": u(*_xs), "scale": u(3, lo=0.5), "bias": u(3),
                               "mean": u(3), "var": u(3, lo=0.5)},
        wrt=("x", "scale", "bias"))
CASES["lookup_table"] = GradCase(
    lambda v: op("lookup_table", W=v["x"], Ids=v["ids"]),
    {"x": u(6, 3), "ids": np.array([[1], [4], [1], [0], [4]], np.int64)})
CASES["lookup_table-padding"] = GradCase(
    lambda v: op("lookup_table", {"padding_idx": 4}, W=v["x"], Ids=v["ids"]),
    {"x": u(6, 3), "ids": np.array([[1], [4], [1], [0], [4]], np.int64)})
CASES["lookup_table_v2"] = GradCase(
    lambda v: op("lookup_table_v2", W=v["x"], Ids=v["ids"]),
    {"x": u(6, 3), "ids": np.array([[2, 5, 2], [0, 2, 1]], np.int64)})

# Graph structure: a var read by several ops gets the sum of their gradients.
CASES["shared_var"] = GradCase(
    lambda v: op("elementwise_add", X=op("elementwise_mul", X=op("tanh", X=v["x"]),
                                         Y=op("sigmoid", X=v["x"])), Y=v["x"]),
    {"x": u(3, 4)})
CASES["shared_var-broadcast"] = GradCase(
    lambda v: op("elementwise_mul", {"axis": 1}, X=op("exp", X=v["x"]),
                 Y=op("reduce_sum", {"dim": [0, 2]}, X=v["x"])),
    {"x": u(2, 3, 4, lo=-1, hi=1)})
CASES["shared_var-views"] = GradCase(
    lambda v: op("elementwise_mul", X=op("reshape2", {"shape": [4, 6]}, X=v["x"]),
                 Y=op("transpose2", {"axis": [1, 0]},
                      X=op("reshape2", {"shape": [6, 4]}, X=op("exp", X=v["x"])))),
    {"x": u(2, 3, 4, lo=-1, hi=1)})


def _mlp(v):
    pre = op("elementwise_add", {"axis": 1}, X=op("mul", X=v["x"], Y=v["w1"]), Y=v["b1"])
    logits = op("mul", X=op("relu", X=pre), Y=v["w2"])
    return op("softmax_with_cross_entropy", out="Loss", Logits=logits, Label=v["label"])


CASES["mlp"] = GradCase(_mlp, {"x": u(4, 3), "w1": u(3, 5), "b1": u(5), "w2": u(5, 3),
                               "label": ids(4, 1, hi=3)}, wrt=("x", "w1", "b1", "w2"))
CASES["parameter"] = GradCase(
    lambda v: op("elementwise_add", X=op("mul", X=v["x"], Y=v["w_param"]), Y=v["b_param"]),
    {"x": u(3, 4), "w_param": u(4, 5), "b_param": u(5)}, wrt=("x", "w_param", "b_param"),
    params=("w_param", "b_param"))


@pytest.mark.parametrize("key", sorted(CASES))
def test_grad_matches_finite_differences(key):
    run_grad_check(CASES[key], key)


# --- what gets no gradient ---------------------------------------------------------------------

def _x_times_y_plus_z(v):
    return op("elementwise_add", X=op("elementwise_mul", X=v["x"], Y=v["y"]), Y=v["z"])


XYZ = {"x": u(3, 4), "y": u(3, 4), "z": u(3, 4)}


def test_no_grad_set_stops_a_gradient():
    # y is declared differentiable (stop_gradient=False); only no_grad_set stops it.
    run_grad_check(GradCase(_x_times_y_plus_z, XYZ, wrt=("x", "z"), no_grad_set={"y"},
                            absent=("y",)), "no_grad_set")


def test_stop_gradient_input_gets_no_gradient():
    # y is fed with stop_gradient=True (not in wrt): x and z still get theirs.
    run_grad_check(GradCase(_x_times_y_plus_z, XYZ, wrt=("x", "z"), absent=("y",)),
                   "stop_gradient")


def test_stop_gradient_intermediate_cuts_the_path():
    def build(v):
        h = op("tanh", X=v["x"])
        h.stop_gradient = True
        return op("elementwise_mul", X=h, Y=v["y"])
    run_grad_check(GradCase(build, {"x": u(3, 4), "y": u(3, 4)}, wrt=("y",), absent=("x",)),
                   "stop_intermediate")


def test_no_grad_set_on_a_parameter():
    run_grad_check(GradCase(CASES["parameter"].build, CASES["parameter"].inputs,
                            wrt=("x", "b_param"), params=("w_param", "b_param"),
                            no_grad_set={"w_param"}, absent=("w_param",)), "no_grad_param")
