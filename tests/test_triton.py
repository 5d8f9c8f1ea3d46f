"""The Triton backend, run by Triton's CPU interpreter (TRITON_INTERPRET=1): every op case of
test_ops_c and every gradient case of test_grad_check through CUDAPlace == the numpy reference
(and == the C backend where the C test does not already say so), fused softmax/layer_norm and
reductions over several axes on odd sizes, an MLP trained on CUDAPlace == CPUPlace, the error
for CUDAPlace with neither GPU nor interpreter, the module cache, and (where Triton's CUDA
toolchain is installed) every kind of generated kernel compiled for a real GPU, sm_90."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

os.environ["TRITON_INTERPRET"] = "1"  # read when kernels are decorated: before any is loaded
pytest.importorskip("triton")

import fluidc as fluid
from fluidc.codegen import compiler
from fluidc.frontend.ops.expr import ExprBuilder
from fluidc.codegen.triton import TritonPrinter
from fluidc.codegen.triton_plan import TritonModule
from fluidc.frontend.errors import PlaceError
from fluidc.frontend.ops.handler import HANDLER_METHODS, LIBM_METHODS
from fluidc.frontend.ops.registry import get_op_def
from op_harness import (
    append,
    assert_same,
    assert_special_values,
    data_var,
    run_c,
    run_reference,
    seeded,
    special_values_program,
)
from test_grad_check import CASES as GRAD_CASES
from test_grad_check import build_grad_program, grad_names, op
from test_ops_c import RANDOM_OPS, case_params, check_case

# The interpreter evaluates masked-off lanes too (sqrt/log of whatever is there): numpy warns.
pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")

GPU = fluid.CUDAPlace(0)


def run_triton(program, feed: dict, fetch: list, scope=None) -> list[np.ndarray]:
    """Run on CUDAPlace (the interpreter here) in `scope` (a fresh one by default)."""
    scope = scope if scope is not None else fluid.Scope()
    with fluid.scope_guard(scope):
        return fluid.Executor(GPU).run(program, feed=feed, fetch_list=fetch)


def test_printer_covers_every_handler_method():
    b = ExprBuilder()
    x, y = b.load(0, np.float32), b.load(1, np.float32)
    printer = TritonPrinter({0: "tl.load(b0)", 1: "tl.load(b1)"})
    names = {x.id: "t0", y.id: "t1"}
    for method in HANDLER_METHODS:
        if method == "constant":
            n = b.constant(1.5, np.float32)
        elif method == "cast":
            n = b.cast(x, np.int32)
        elif method == "where":
            n = b.where(b.lt(x, y), x, y)
            names[n.args[0].id] = "c"
        elif method in ("neg", "exp", "log", "sqrt", "tanh", "erf", "abs", "floor", "sign",
                        "logical_not", "isnan", *LIBM_METHODS):
            n = getattr(b, method)(x)
        else:
            n = getattr(b, method)(x, y)
        assert printer.expr(n, names), method


# --- every op case of the C backend's test, through Triton ------------------------------------

@pytest.mark.parametrize("op_type,case,dtype", list(case_params(skip=RANDOM_OPS)))
def test_op_matches_reference(op_type, case, dtype):
    check_case(op_type, case, dtype, run_triton)  # the same inputs as test_ops_c


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_special_values_match_numpy_and_c(dtype):
    """NaN/Inf/signed zeros/denormals through every unary op and the tricky binaries."""
    program, feed, fetch, want = special_values_program(dtype)
    got, c = run_triton(program, feed, fetch), run_c(program, feed, fetch)
    for name, g, cg in zip(fetch, got, c):
        assert_special_values(g, want[name], name)
        assert_same(g, cg, f"{name}: Triton vs C")


@pytest.mark.parametrize("dtype", ["int32", "int64"])
def test_integer_division_and_mod_by_zero(dtype):
    x = np.array([7, -7, 7, -7, 5, 0, -3, 9], dtype)
    y = np.array([2, 2, -2, -2, 0, 0, 5, -4], dtype)
    program = fluid.Program()
    block = program.global_block()
    xv, yv = data_var(block, "x", x), data_var(block, "y", y)
    descs = [append(block, f"elementwise_{k}", {"X": [xv], "Y": [yv]})[0].desc
             for k in ("div", "floordiv", "mod")]
    fetch = [d.output("Out")[0] for d in descs]
    got, c = run_triton(program, {"x": x, "y": y}, fetch), run_c(program, {"x": x, "y": y}, fetch)
    nz = y != 0
    for name, g, cg in zip(fetch, got, c):
        assert_same(g, cg, name)
    np.testing.assert_array_equal(got[0][nz], np.trunc(x[nz] / y[nz]).astype(dtype))
    np.testing.assert_array_equal(got[1][nz], x[nz] // y[nz])
    np.testing.assert_array_equal(got[2][nz], x[nz] % y[nz])


@pytest.mark.parametrize("cols", [37, 5000])  # a row held whole, and one walked in chunks
def test_reductions_propagate_nan_and_inf_like_numpy(cols):
    x = seeded(f"nan{cols}").uniform(-1, 1, (4, cols)).astype("float32")
    x[1, cols // 2] = np.nan
    x[2, -1] = np.inf
    x[3, 0] = -np.inf
    program, outs = _fused_program(x.shape, lambda v: [
        fluid.layers.reduce_max(v, dim=[1]), fluid.layers.reduce_min(v, dim=[1]),
        fluid.layers.reduce_sum(v, dim=[1]), fluid.layers.reduce_max(v, dim=[0])])
    fetch = [o.name for o in outs]
    got, c = run_triton(program, {"x": x}, fetch), run_c(program, {"x": x}, fetch)
    want = [x.max(1), x.min(1), x.sum(1), x.max(0)]
    for name, g, cg, w in zip(fetch, got, c, want):
        assert_same(g, w, name, (1e-5, 1e-4))
        assert_same(g, cg, f"{name} vs C", (1e-5, 1e-4))


# --- backward: every gradient case, Triton == C == reference ----------------------------------

@pytest.mark.parametrize("key", sorted(GRAD_CASES))
def test_backward_matches_c_and_reference(key):
    case = GRAD_CASES[key]
    program, loss, weight, _ = build_grad_program(case, seeded(key))
    feed = {n: v for n, v in case.inputs.items() if n not in case.params}
    feed["w"] = weight
    fetch = [loss.name] + [n + "@GRAD" for n in case.wrt if n + "@GRAD" in grad_names(program)]
    results = []
    for runner in (run_triton, run_c, run_reference):
        scope = fluid.Scope()
        for n in case.params:
            scope.var(n).get_tensor().set(case.inputs[n], fluid.CPUPlace())
        results.append(runner(program, feed, fetch, scope))
    got, c, want = results
    # Random ops draw from torch in both compiled backends, from numpy in the reference.
    random = any(get_op_def(o.type).stateful for o in program.global_block().ops)
    for name, g, cg, wg in zip(fetch, got, c, want):
        if not random:
            assert_same(g, wg, f"{key}: {name} vs reference")
        assert_same(g, cg, f"{key}: {name} vs C")


# --- fused kernels on odd shapes: softmax, layer_norm, axis combos, long rows ------------------

def _fused_program(shape, build):
    program, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(program, startup):
        x = fluid.layers.data(name="x", shape=list(shape), dtype="float32",
                              append_batch_size=False)
        outs = build(x)
    return program, outs


def _layer_norm(x):
    mu = fluid.layers.reduce_mean(x, dim=[-1], keep_dim=True)
    d = fluid.layers.elementwise_sub(x, mu)
    var = fluid.layers.reduce_mean(d * d, dim=[-1], keep_dim=True)
    return [fluid.layers.elementwise_div(d, fluid.layers.sqrt(var + 1e-5)), mu]


FUSED = {
    "softmax": ((5, 37), lambda x: [fluid.layers.softmax(x)]),
    "softmax_axis0": ((37, 3, 5), lambda x: [fluid.layers.softmax(x, axis=0)]),
    "layer_norm": ((7, 129), _layer_norm),
    "long_rows_looped": ((3, 5000), lambda x: [fluid.layers.softmax(x * 0.5),
                                                fluid.layers.reduce_max(x, dim=[1])]),
    "columns": ((67, 13), lambda x: [fluid.layers.reduce_sum(fluid.layers.exp(x), dim=[0]),
                                     fluid.layers.reduce_min(x, dim=[0])]),
    "mid_axis": ((3, 5, 7), lambda x: [fluid.layers.reduce_sum(x, dim=[1]),
                                       op("reduce_prod", {"dim": [0, 2]}, X=x * 0.3 + 1.0)]),
    "all": ((9, 11, 3), lambda x: [fluid.layers.reduce_sum(x), fluid.layers.mean(x * x),
                                   fluid.layers.reduce_max(x, dim=[0, 1, 2], keep_dim=True)]),
    "chain_many_outputs": ((1031,), lambda x: [fluid.layers.tanh(x), fluid.layers.relu(x) * 2.0,
                                               fluid.layers.sigmoid(x) - x]),
}


@pytest.mark.parametrize("key", sorted(FUSED))
def test_fused_kernels_match_c_and_reference(key):
    shape, build = FUSED[key]
    program, outs = _fused_program(shape, build)
    x = seeded(key).uniform(-3, 3, shape).astype("float32")
    fetch = [o.name for o in outs]
    got, c = run_triton(program, {"x": x}, fetch), run_c(program, {"x": x}, fetch)
    want = run_reference(program, {"x": x}, fetch)
    for name, g, cg, w in zip(fetch, got, c, want):
        assert_same(g, w, f"{key}: {name}", (1e-5, 1e-5))
        assert_same(g, cg, f"{key}: {name} vs C", (1e-5, 1e-5))


# --- training: an MLP on CUDAPlace follows the one on CPUPlace --------------------------------

def _mlp():
    main, startup = fluid.Program(), fluid.Program()
    main.random_seed = startup.random_seed = 7
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        x = fluid.layers.data(name="x", shape=[13], dtype="float32")
        y = fluid.layers.data(name="y", shape=[1], dtype="int64")
        h = fluid.layers.fc(x, 24, act="relu")
        h = fluid.layers.fc(h, 17, act="tanh")
        logits = fluid.layers.fc(h, 5)
        loss = fluid.layers.mean(fluid.layers.softmax_with_cross_entropy(logits, y))
        fluid.optimizer.Adam(0.01).minimize(loss)
    return main, startup, loss


def test_mlp_training_on_cuda_place_matches_cpu_place():
    rng = seeded("mlp")
    x, y = rng.normal(size=(9, 13)).astype("float32"), rng.integers(0, 5, (9, 1))
    batches = [(x, y)] * 5
    losses, params = [], []
    for place in (GPU, fluid.CPUPlace()):
        main, startup, loss = _mlp()
        scope, exe = fluid.Scope(), fluid.Executor(place)
        with fluid.scope_guard(scope):
            exe.run(startup)
            losses.append([exe.run(main, feed={"x": x, "y": y}, fetch_list=[loss])[0]
                           for x, y in batches])
        params.append({p.name: np.array(scope.find_var(p.name).get_tensor().numpy())
                       for p in main.global_block().all_parameters()})
    np.testing.assert_allclose(np.ravel(losses[0]), np.ravel(losses[1]), rtol=1e-4)
    assert losses[0][-1] < losses[0][0]
    for name, value in params[0].items():
        np.testing.assert_allclose(value, params[1][name], rtol=1e-4, atol=1e-6, err_msg=name)


# --- places, caching, and the compiled (non-interpreted) path ---------------------------------

def test_cuda_place_without_gpu_or_interpreter_is_a_clear_error(monkeypatch):
    import torch
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.setenv("TRITON_INTERPRET", "0")
    x = fluid.layers.data(name="x", shape=[3], dtype="float32", append_batch_size=False)
    out = fluid.layers.relu(x)
    with pytest.raises(PlaceError, match=r"CUDAPlace\(0\).*TRITON_INTERPRET"):
        fluid.Executor(GPU).run(feed={"x": np.ones(3, "float32")}, fetch_list=[out])


def test_generated_module_is_written_once_and_imported_once(tmp_path, monkeypatch):
    monkeypatch.setenv("FLUIDC_CACHE_DIR", str(tmp_path))
    src = "import triton\n\n\ndef segment_0(s):\n    s[0] += 1\n"
    mod = compiler.load_py(src)
    assert [p.suffix for p in tmp_path.iterdir()] == [".py"]  # no temp file left behind
    assert compiler.load_py(src) is mod
    table = [0]
    TritonModule(src, ["segment_0"], {}, module=mod).segment("segment_0", table)()
    assert table == [1]


def _plans_of(program, feed, fetch):
    exe = fluid.Executor(GPU)
    with fluid.scope_guard(fluid.Scope()):
        exe.run(program, feed=feed, fetch_list=fetch)
    return list(exe._plans.values())


def test_independent_kernels_launch_as_one_multi_tensor_kernel():
    program, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(program, startup):
        x = fluid.layers.data(name="x", shape=[7, 1500], dtype="float32", append_batch_size=False)
        y = fluid.layers.data(name="y", shape=[3], dtype="float64", append_batch_size=False)
        outs = [fluid.layers.tanh(x) * 3.0, fluid.layers.exp(y) + 1.0]
    feed = {"x": seeded("mt").normal(size=(7, 1500)).astype("float32"),
            "y": np.array([0.5, -1.0, 2.0])}
    plan, = _plans_of(program, feed, [o.name for o in outs])
    assert len(plan.module.launches) == 1 and "pid - " in plan.module.source
    got = run_triton(program, feed, [o.name for o in outs])
    assert_same(got[0], np.tanh(feed["x"]) * np.float32(3.0))
    assert_same(got[1], np.exp(feed["y"]) + 1.0)


def test_kernels_compile_for_a_real_gpu():
    """The interpreter accepts more than the compiler: build every kind of kernel for sm_90."""
    pytest.importorskip("triton.backends.nvidia")

    def build(x):
        xi = fluid.layers.cast(x * 10.0, "int64")
        ints = op("elementwise_mod", X=xi, Y=xi - 3) + op("elementwise_floordiv", X=xi, Y=xi)
        chain = fluid.layers.elementwise_pow(fluid.layers.tanh(x), x) * op("gelu", X=x)
        # Independent pointwise kernels sharing no input, one after the other: multi-tensor.
        amax, amin = fluid.layers.argmax(x, axis=1), fluid.layers.argmin(x, axis=0)  # library calls
        c, d = fluid.layers.cast(amax, "float32"), fluid.layers.cast(amin, "float32")
        independent = [fluid.layers.scale(c, 3.0), fluid.layers.scale(d, 5.0)]
        return independent + [fluid.layers.softmax(x), fluid.layers.reduce_sum(x, dim=[0]),
                fluid.layers.softmax(fluid.layers.reshape(x, [35, 1000])),
                fluid.layers.reduce_max(fluid.layers.reshape(x, [-1]), dim=[0]), chain, ints,
                op("clip_grad", {"min": -0.5, "max": 0.5}, out="X@GRAD", X=x, **{"Out@GRAD": x}),
                fluid.layers.cast(fluid.layers.cast(x, "bool"), "float64") * 2.0]
    program, outs = _fused_program((7, 5000), build)
    x = seeded("aot").uniform(-1, 1, (7, 5000)).astype("float32")
    plan, = _plans_of(program, {"x": x}, [o.name for o in outs])
    launches = [(k.name, k.pointer_types, k.meta, k.num_warps) for k in plan.module.launches]
    assert len(launches) >= 4
    assert "pid - " in plan.module.source  # a multi-tensor kernel (independent parts) is built too
    # A fresh process: the interpreter patches triton.language while it runs kernels here.
    code = (
        "import importlib.util, json, sys\n"
        "from triton.backends.compiler import GPUTarget\n"
        "from triton.compiler import ASTSource, compile\n"
        "spec = importlib.util.spec_from_file_location('aot', sys.argv[1])\n"
        "m = importlib.util.module_from_spec(spec)\n"
        "spec.loader.exec_module(m)\n"
        "for name, ptrs, meta, warps in json.loads(sys.argv[2]):\n"
        "    fn = getattr(m, name)\n"
        "    sig = dict(zip(fn.arg_names, ptrs))\n"
        "    sig.update({k: 'constexpr' for k in meta})\n"
        "    k = compile(ASTSource(fn, sig, meta),\n"
        "                target=GPUTarget('cuda', 90, 32), options={'num_warps': warps})\n"
        "    assert k.asm['cubin'], name\n"
        "print('ok')\n")
    env = {**os.environ, "TRITON_INTERPRET": "0", "TRITON_DEFAULT_FP_FUSION": "1"}
    out = subprocess.run([sys.executable, "-c", code, plan.module.module.__file__,
                          json.dumps(launches)], capture_output=True, text=True, env=env,
                         check=False)
    assert out.stdout.strip() == "ok", out.stderr[-3000:]
