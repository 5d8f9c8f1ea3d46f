"""batch_norm and batch_norm_grad in training mode are composites lowered to sums over the
non-channel axes and pointwise ops (no library call): the lowering's ops, the kernels of a
training step, the compiled C executor and Triton (its interpreter, TRITON_INTERPRET=1) against
the numpy reference executor over two training steps (fetches, running statistics and updated
parameters), on odd shapes and on shapes past the C backend's parallel threshold, NCHW and
NHWC, float32 and float64, and the gradients against central finite differences in float64."""
import importlib.util
import os

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"  # read when Triton kernels are decorated: before any is

import fluidc as fluid
from fluidc.frontend.dtypes import convert_dtype
from fluidc.frontend.errors import OpError
from fluidc.frontend.ops.registry import OpDesc, VarInfo, get_op_def
from fluidc.passes.fuse import Concurrent, Extern, Kernel
from fluidc.passes.lower import TempNamer
from fluidc.passes.pipeline import lower_program

from op_harness import assert_same, run_c, run_reference, seeded
from test_grad_check import GradCase, op, run_grad_check, u

HAS_TRITON = importlib.util.find_spec("triton") is not None
# The interpreter evaluates masked-off lanes too (sqrt of whatever is there): numpy warns.
pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")

# (shape, data_layout): odd sizes, ranks 2 to 5, and 36992 elements (past 32K: the C kernels'
# outer loops run in parallel).
SHAPES = [((2, 3, 4, 5), "NCHW"), ((3, 5, 7, 9), "NCHW"), ((7, 3, 11), "NCHW"), ((33, 5), "NCHW"),
          ((2, 3, 2, 3, 5), "NCHW"), ((16, 8, 17, 17), "NCHW"), ((5, 7, 9, 3), "NHWC"),
          ((3, 5, 4), "NHWC"), ((8, 17, 17, 16), "NHWC")]
TOL = {"float32": (1e-4, 1e-4), "float64": (1e-10, 1e-10)}


def run_triton(program, feed: dict, fetch: list, scope) -> list[np.ndarray]:
    """Run on CUDAPlace: Triton kernels, in the interpreter here."""
    with fluid.scope_guard(scope):
        return fluid.Executor(fluid.CUDAPlace(0)).run(program, feed=feed, fetch_list=fetch)


def _channels(shape, layout) -> int:
    return shape[-1] if layout == "NHWC" and len(shape) > 2 else shape[1]


# --- the lowering ------------------------------------------------------------------------------

def _lowered_kinds(op_type, shape, layout, attrs=None, grad_outs=("X@GRAD", "Scale@GRAD",
                                                                   "Bias@GRAD")):
    c = _channels(shape, layout)
    f32 = convert_dtype("float32")
    infos = {"x": VarInfo(shape, f32), "dy": VarInfo(shape, f32),
             **{n: VarInfo((c,), f32) for n in ("scale", "bias", "mean", "var", "sm", "sv")}}
    a = {"data_layout": layout, **(attrs or {})}
    if op_type == "batch_norm":
        desc = OpDesc(op_type, {"X": ["x"], "Scale": ["scale"], "Bias": ["bias"], "Mean": ["mean"],
                                "Variance": ["var"]},
                      {"Y": ["y"], "MeanOut": ["mean"], "VarianceOut": ["var"],
                       "SavedMean": ["sm"], "SavedVariance": ["sv"]}, a)
    else:
        desc = OpDesc(op_type, {"X": ["x"], "Scale": ["scale"], "Bias": ["bias"], "Mean": ["mean"],
                                "Variance": ["var"], "SavedMean": ["sm"], "SavedVariance": ["sv"],
                                "Y@GRAD": ["dy"]},
                      {s: [s.lower()] for s in grad_outs}, a)
    d = get_op_def(op_type)
    desc.attrs = d.complete_attrs(desc.attrs)
    ops = d.lower(desc, infos, TempNamer(infos))
    return ops, {get_op_def(o.type).kind for o in ops}


@pytest.mark.parametrize("shape,layout", [((2, 3, 4, 5), "NCHW"), ((2, 4, 5, 3), "NHWC"),
                                          ((6, 3), "NCHW")])
@pytest.mark.parametrize("op_type", ["batch_norm", "batch_norm_grad"])
@pytest.mark.parametrize("attrs", [{}, {"use_global_stats": True}, {"is_test": True}])
def test_lowering_is_reductions_and_pointwise_ops(op_type, shape, layout, attrs):
    ops, kinds = _lowered_kinds(op_type, shape, layout, attrs)
    assert kinds <= {"pointwise", "reduction", "view"}, kinds
    c = 1 if layout == "NCHW" or len(shape) == 2 else len(shape) - 1
    for o in ops:
        if get_op_def(o.type).kind == "reduction":
            assert o.attrs["keep_dim"] and sorted(o.attrs["dim"]) == \
                [i for i in range(len(shape)) if i != c], o
    if op_type == "batch_norm" and attrs:  # on running statistics: the inference op for Y
        assert "batch_norm_infer" in {o.type for o in ops} and "reduction" not in kinds


def test_grad_lowering_emits_only_what_is_asked():
    ops, _ = _lowered_kinds("batch_norm_grad", (2, 3, 4), "NCHW", grad_outs=("Bias@GRAD",))
    assert [o.type for o in ops] == ["reduce_sum", "reshape2"]
    ops, _ = _lowered_kinds("batch_norm_grad", (2, 3, 4), "NCHW",
                            grad_outs=("Scale@GRAD", "Bias@GRAD"))
    assert sorted(o.type for o in ops if get_op_def(o.type).kind == "reduction") == \
        ["reduce_sum", "reduce_sum"]


def test_mixed_dtypes_are_refused():
    f32, f64 = convert_dtype("float32"), convert_dtype("float64")
    infos = {"x": VarInfo((2, 3), f32), **{n: VarInfo((3,), f64)
                                          for n in ("scale", "bias", "mean", "var")}}
    desc = OpDesc("batch_norm", {"X": ["x"], "Scale": ["scale"], "Bias": ["bias"],
                                 "Mean": ["mean"], "Variance": ["var"]},
                  {"Y": ["y"], "MeanOut": ["mean"], "VarianceOut": ["var"],
                   "SavedMean": ["sm"], "SavedVariance": ["sv"]}, {})
    with pytest.raises(OpError, match="one dtype"):
        get_op_def("batch_norm").lower(desc, infos, TempNamer(infos))


# --- a training step: conv2d + batch_norm + relu, its kernels ----------------------------------

def _conv_bn_relu_train():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        img = fluid.layers.data(name="img", shape=[3, 16, 16], dtype="float32")
        h = fluid.layers.conv2d(img, 8, 3, padding=1)
        h = fluid.layers.batch_norm(h, act="relu")
        loss = fluid.layers.mean(fluid.layers.pool2d(h, 2, "max", 2))
        fluid.optimizer.Momentum(learning_rate=0.05, momentum=0.9).minimize(loss)
    return main, loss


def _kernels(steps):
    for s in steps:
        yield from (s.parts if isinstance(s, Concurrent) else [s])


def test_training_step_has_no_batch_norm_library_call():
    main, loss = _conv_bn_relu_train()
    block = main.global_block()
    feeds = {"img": VarInfo((32, 3, 16, 16), block.var("img").dtype)}
    state = {n: v.info() for n, v in block.vars.items() if v.persistable}
    lowered = lower_program(main, feeds, [loss.name], state)
    externs = [s.op.type for s in lowered.steps if isinstance(s, Extern)]
    assert not [t for t in externs if t.startswith("batch_norm")], externs
    ops = [o.type for k in _kernels(lowered.steps) if isinstance(k, Kernel) for o in k.ops]
    assert "relu" in ops and "relu_grad" in ops
    # The batch statistics are one kernel's two sums; the grad's two sums one kernel's too.
    reducing = [k for k in _kernels(lowered.steps) if isinstance(k, Kernel)
                and tuple(k.axes) == (0, 2, 3) and tuple(k.shape) == (32, 8, 16, 16)]
    sums = [sum(o.type == "reduce_sum" for o in k.ops) for k in reducing]
    assert sums[0] == 2 and any(n >= 2 for n in sums[1:]), sums


# --- two training steps: C and Triton against the reference ------------------------------------

def _bn_train_program(shape, layout, dtype):
    main, startup = fluid.Program(), fluid.Program()
    main.random_seed = startup.random_seed = 1
    with fluid.program_guard(main, startup):
        x = fluid.layers.data(name="x", shape=list(shape), dtype=dtype, append_batch_size=False,
                              stop_gradient=False)
        w = fluid.layers.data(name="w", shape=list(shape), dtype=dtype, append_batch_size=False)
        # tanh, not relu: a smooth activation, so rounding never flips a gradient to 0.
        y = fluid.layers.batch_norm(x, act="tanh", momentum=0.8, epsilon=1e-3,
                                    data_layout=layout)
        loss = fluid.layers.reduce_sum(fluid.layers.elementwise_mul(y, w))
        fluid.optimizer.SGD(learning_rate=0.01).minimize(loss)
    bn = next(o for o in main.global_block().ops if o.type == "batch_norm")
    names = {s: bn.desc.input(s)[0] for s in ("Scale", "Bias", "Mean", "Variance")}
    names.update({s: bn.desc.output(s)[0] for s in ("Y", "SavedMean", "SavedVariance")})
    return main, startup, loss, names


def _state(scope, names):
    return {n: np.array(scope.find_var(n).get_tensor()) for n in names}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape,layout", SHAPES)
def test_two_training_steps_match_the_reference(shape, layout, dtype):
    main, startup, loss, names = _bn_train_program(shape, layout, dtype)
    rng = seeded(f"bn-train-{shape}-{layout}-{dtype}")
    c = _channels(shape, layout)
    init = {names["Scale"]: rng.uniform(0.5, 1.5, c), names["Bias"]: rng.standard_normal(c),
            names["Mean"]: rng.standard_normal(c), names["Variance"]: rng.uniform(0.5, 2.0, c)}
    init = {n: v.astype(dtype) for n, v in init.items()}
    # Channels with their own offsets and spreads, so the statistics differ per channel.
    cview = tuple(c if i == (1 if layout == "NCHW" or len(shape) == 2 else len(shape) - 1)
                  else 1 for i in range(len(shape)))
    feeds = [{"x": (rng.standard_normal(shape) * rng.uniform(0.5, 3.0, cview)
                    + rng.uniform(-2, 2, cview)).astype(dtype),
              "w": rng.uniform(-1, 1, shape).astype(dtype)} for _ in range(2)]
    fetch = [loss.name, names["Y"], names["SavedMean"], names["SavedVariance"], "x@GRAD",
             names["Scale"] + "@GRAD", names["Bias"] + "@GRAD"]
    state = list(init)
    runners = {"C": run_c, "reference": run_reference}
    if HAS_TRITON:
        runners["Triton"] = run_triton
    results = {}
    for which, runner in runners.items():
        scope = fluid.Scope()
        with fluid.scope_guard(scope):
            fluid.Executor(fluid.CPUPlace()).run(startup)
        for n, v in init.items():
            scope.var(n).get_tensor().set(v, fluid.CPUPlace())
        runs = [runner(main, feed, fetch, scope) for feed in feeds]
        results[which] = runs, _state(scope, state)
    want_runs, want_state = results.pop("reference")
    tol = TOL[dtype]
    for which, (runs, got_state) in results.items():
        for step, (got, want) in enumerate(zip(runs, want_runs)):
            for name, g, w in zip(fetch, got, want):
                assert_same(g, w, f"{which} step {step}: {name}", tol)
        for n in state:
            assert_same(got_state[n], want_state[n], f"{which}: {n} after 2 steps", tol)
            assert not np.array_equal(got_state[n], init[n]), f"{which} left {n} unchanged"


# --- gradients against central finite differences (float64) ------------------------------------

def _bn_case(shape, layout, attrs=None, wrt=("x", "scale", "bias")):
    c = _channels(shape, layout)

    def build(v):
        return op("batch_norm", {"data_layout": layout, "momentum": 0.7, "epsilon": 1e-3,
                                 **(attrs or {})}, out="Y", X=v["x"], Scale=v["scale"],
                  Bias=v["bias"], Mean=v["mean"], Variance=v["var"])
    return GradCase(build, {"x": u(*shape), "scale": u(c, lo=0.5), "bias": u(c), "mean": u(c),
                            "var": u(c, lo=0.5)}, wrt=wrt)


GRAD_CASES = {
    "nchw-odd": _bn_case((3, 2, 3, 1), "NCHW"),
    "nchw-rank3": _bn_case((2, 3, 5), "NCHW"),
    "nchw-rank5": _bn_case((2, 2, 1, 2, 3), "NCHW"),
    "rank2": _bn_case((5, 3), "NCHW"),
    "nhwc-odd": _bn_case((2, 3, 1, 3), "NHWC"),
    "nhwc-rank3": _bn_case((3, 2, 2), "NHWC"),
    "scale-bias-only": _bn_case((2, 3, 2, 2), "NCHW", wrt=("scale", "bias")),
    "global-stats": _bn_case((2, 3, 2, 2), "NCHW", {"use_global_stats": True}),
    "global-stats-nhwc": _bn_case((2, 2, 3), "NHWC", {"use_global_stats": True}),
}


@pytest.mark.parametrize("key", sorted(GRAD_CASES))
def test_grad_matches_finite_differences(key):
    run_grad_check(GRAD_CASES[key], f"bn-{key}")
