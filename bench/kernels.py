"""Kernel workloads: fused vs unfused fluidc against hand-written C, numpy and torch.

Workloads (float32):
- chain: out = tanh(relu(x*0.5 + y) - 1) * x + 2 on 16M floats (7 ops);
- arith: out = x*0.5 + y*0.25 - 1 on 16M floats (pure arithmetic: memory bound);
- softmax: fluid.layers.softmax over the last axis of [4096, 1024];
- layer_norm: fluid.layers.layer_norm(x, begin_norm_axis=1) over [4096, 1024];
- colstats: column statistics (x - mean(x, 0)) / sqrt(var(x, 0) + eps) * g + b over
  [8192, 512], written with the 2.x API (var as the mean of squared deviations);
- broadcast: relu(a * b + c) over [64,1,256] x [1,128,256] x [256] (3-operand broadcast).

Competitors, in one process with their repeats interleaved (bench/harness.py): fluidc fused
(the default exe.run), fluidc unfused (CompiledProgram with BuildStrategy.fuse_all = False),
`fluidc kernel only` (a diagnostic: the plan's compiled calls without exe.run's feed and fetch
copies), a hand-written fused C loop (bench/reference_c/, built with fluidc's own compile flags)
that allocates its output with np.empty on every call, as exe.run hands back a fresh array,
numpy, torch eager, torch.compile (skipped with a note when it fails) and Paddle's static
executor (only when `import paddle` works). Every competitor takes numpy arrays and returns a
numpy array, and is checked against numpy once before it is timed.

The machine's copy bandwidth is measured in the same run, interleaved with each workload's
competitors: copies of an array the size of the workload's output into a preallocated one
(np.copyto, 1 thread, and a C loop on OpenMP threads; the faster counts; bytes = read + write).
Every row reports its effective bandwidth, bytes of inputs read plus outputs written over the
median time, and that as a fraction of the copy bandwidth (`of copy`). Ideal bytes: a kernel
that allocates its output also pays its page faults, which this count does not include.
"""
from __future__ import annotations

import ctypes
import functools
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional

import numpy as np

from .batch_sizes import _env
from .harness import Competitor, Skip, add_target, run_bench

N_POINTWISE = 16 * 1024 * 1024
ROWS, COLS = 4096, 1024
LN_EPS = 1e-5
SEED = 7
REFERENCE_C = Path(__file__).resolve().parent / "reference_c"

# Targets from the project's issue.
CHAIN_VS_C = 1.3          # chain through exe.run: at most this times the hand-written C loop
CHAIN_VS_COMPILE = 2.5    # ... at least this much faster than torch.compile
CHAIN_VS_UNFUSED = 4.0    # ... and than the same program unfused
ARITH_OF_COPY = 0.80      # pure arithmetic: at least this fraction of the copy bandwidth
ROW_VS_C = 1.1            # softmax, layer_norm: at most this times the hand-written C loop
VS_COMPILE = 1.0          # colstats, broadcast: at most torch.compile's time
COL_ROWS, COL_COLS = 8192, 512
BC_A, BC_B, BC_C = (64, 1, 256), (1, 128, 256), (256,)


# -- hand-written C -------------------------------------------------------------------------
@functools.lru_cache(maxsize=None)
def reference_lib(name: str) -> ctypes.CDLL:
    """bench/reference_c/<name>.c, compiled with fluidc's flags and cached by a hash of it."""
    try:
        from fluidc.codegen.compiler import load_c
    except ImportError as e:  # pragma: no cover - fluidc is what is being benchmarked
        raise Skip(f"fluidc.codegen not importable ({e})") from e
    try:
        return load_c((REFERENCE_C / f"{name}.c").read_text())
    except Exception as e:  # noqa: BLE001 - no compiler: the C rows are skipped, not the run
        raise Skip(f"cannot build reference_c/{name}.c: {str(e).splitlines()[0]}") from e


def _ptr(a: np.ndarray) -> ctypes.c_void_p:
    return ctypes.c_void_p(a.ctypes.data)


# -- workloads ------------------------------------------------------------------------------
@dataclass
class Workload:
    """One kernel benchmark: the program, its inputs and every competitor's way to compute it."""

    name: str
    title: str
    kind: str                                   # "pointwise" or "reduction"
    inputs: Callable[[], dict[str, np.ndarray]]
    fluid_build: Callable                       # (fluid, feeds dict) -> output Variable
    numpy_fn: Callable                          # (**inputs) -> ndarray
    torch_fn: Callable                          # (torch, tensor params, **tensors) -> tensor
    c_call: Optional[Callable]                  # (params, **inputs) -> ndarray (allocates)
    paddle_build: Optional[Callable] = None     # (paddle, feeds dict) -> output Variable
    params: Callable = field(default=lambda f: {})  # _Fluidc -> dict of parameter arrays
    atol: float = 1e-5
    rtol: float = 1e-5
    one_kernel: bool = False                    # target: fused plan is a single kernel
    vs_compile: bool = False                    # target: at most torch.compile's time
    reference: Optional[Callable] = None        # (**inputs) -> the answer rows are checked
                                                # against, in float64 (default numpy_fn)

    def bytes_moved(self, inputs: dict[str, np.ndarray], params: dict, out: np.ndarray) -> int:
        """Bytes read (inputs, parameters) plus written (the output) by an ideal kernel."""
        return sum(a.nbytes for a in inputs.values()) + sum(
            a.nbytes for a in params.values()) + out.nbytes


def _two_vectors() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(SEED)
    return {"x": rng.standard_normal(N_POINTWISE, dtype=np.float32),
            "y": rng.standard_normal(N_POINTWISE, dtype=np.float32)}


def _matrix() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(SEED + 1)
    return {"x": (rng.standard_normal((ROWS, COLS), dtype=np.float32) * 3).astype(np.float32)}


def _fluid_data(fluid, name: str, shape) -> object:
    return fluid.layers.data(name=name, shape=list(shape), dtype="float32",
                             append_batch_size=False)


# chain: out = tanh(relu(x*0.5 + y) - 1) * x + 2
def _chain_fluid(fluid, v):
    L = fluid.layers
    t = L.elementwise_add(L.scale(v["x"], scale=0.5), v["y"])
    t = L.tanh(L.scale(L.relu(t), scale=1.0, bias=-1.0))
    return L.scale(L.elementwise_mul(t, v["x"]), scale=1.0, bias=2.0)


def _chain_paddle(paddle, v):
    t = paddle.add(paddle.scale(v["x"], scale=0.5), v["y"])
    t = paddle.tanh(paddle.scale(paddle.nn.functional.relu(t), scale=1.0, bias=-1.0))
    return paddle.scale(paddle.multiply(t, v["x"]), scale=1.0, bias=2.0)


def _chain_c(params, x, y):
    out = np.empty_like(x)
    reference_lib("chain").chain(_ptr(x), _ptr(y), _ptr(out), ctypes.c_int64(x.size))
    return out


# arith: out = x*0.5 + y*0.25 - 1
def _arith_fluid(fluid, v):
    L = fluid.layers
    t = L.elementwise_add(L.scale(v["x"], scale=0.5), L.scale(v["y"], scale=0.25))
    return L.scale(t, scale=1.0, bias=-1.0)


def _arith_paddle(paddle, v):
    t = paddle.add(paddle.scale(v["x"], scale=0.5), paddle.scale(v["y"], scale=0.25))
    return paddle.scale(t, scale=1.0, bias=-1.0)


def _arith_c(params, x, y):
    out = np.empty_like(x)
    reference_lib("arith").arith(_ptr(x), _ptr(y), _ptr(out), ctypes.c_int64(x.size))
    return out


# softmax over the last axis
def _softmax_np(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def _softmax_c(params, x):
    out = np.empty_like(x)
    reference_lib("softmax").softmax(_ptr(x), _ptr(out), ctypes.c_int64(x.shape[0]),
                                     ctypes.c_int64(x.shape[1]))
    return out


# layer_norm(begin_norm_axis=1) with its scale and bias parameters
def _layer_norm_fluid(fluid, v):
    if not hasattr(fluid.layers, "layer_norm"):
        raise Skip("fluidc.layers.layer_norm is missing")
    return fluid.layers.layer_norm(v["x"], begin_norm_axis=1, epsilon=LN_EPS)


def _layer_norm_paddle(paddle, v):
    return paddle.static.nn.layer_norm(v["x"], begin_norm_axis=1, epsilon=LN_EPS)


def _layer_norm_params(f: "_Fluidc") -> dict[str, np.ndarray]:
    """The startup program's scale and bias (1 and 0), read from fluidc's scope, so every
    competitor computes exactly what fluidc does."""
    names = [p.name for p in f.main.global_block().all_parameters()]  # Scale, then Bias
    if len(names) != 2:
        raise AssertionError(f"layer_norm: expected a scale and a bias parameter, got {names}")
    return {k: np.ascontiguousarray(np.array(f.scope.find_var(n).get_tensor()),
                                    dtype=np.float32).reshape(COLS)
            for k, n in zip(("scale", "bias"), names)}


def _layer_norm_np(x, scale, bias):
    x64 = x.astype(np.float64)
    mu = x64.mean(axis=1, keepdims=True)
    var = ((x64 - mu) ** 2).mean(axis=1, keepdims=True)
    return ((x64 - mu) / np.sqrt(var + LN_EPS) * scale + bias).astype(np.float32)


def _layer_norm_np_f32(x, scale, bias):
    mu = x.mean(axis=1, keepdims=True)
    var = x.var(axis=1, keepdims=True)
    return (x - mu) / np.sqrt(var + np.float32(LN_EPS)) * scale + bias


def _layer_norm_c(params, x):
    out = np.empty_like(x)
    mean = np.empty(x.shape[0], np.float32)
    var = np.empty(x.shape[0], np.float32)
    reference_lib("layer_norm").layer_norm(
        _ptr(x), _ptr(params["scale"]), _ptr(params["bias"]), _ptr(out), _ptr(mean), _ptr(var),
        ctypes.c_int64(x.shape[0]), ctypes.c_int64(x.shape[1]), ctypes.c_float(LN_EPS))
    return out


# colstats: per-column standardization with a scale and shift, as a user writes it in the 2.x
# API (paddle = the fluidc module; fluidc has no paddle.var, so the variance is spelled out).
def _colstats_inputs() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(SEED + 2)
    return {"x": rng.standard_normal((COL_ROWS, COL_COLS), dtype=np.float32) * 2 + 1,
            "g": rng.standard_normal(COL_COLS, dtype=np.float32),
            "b": rng.standard_normal(COL_COLS, dtype=np.float32)}


def _colstats_fluid(paddle, v):
    x = v["x"]
    mu = paddle.mean(x, axis=0)
    var = paddle.mean(paddle.square(x - mu), axis=0)
    return (x - mu) / paddle.sqrt(var + LN_EPS) * v["g"] + v["b"]


def _colstats_paddle(paddle, v):
    x = v["x"]
    return (x - paddle.mean(x, axis=0)) / paddle.sqrt(paddle.var(x, axis=0, unbiased=False)
                                                      + LN_EPS) * v["g"] + v["b"]


def _colstats_np(x, g, b):
    mu = x.mean(axis=0)
    return (x - mu) / np.sqrt(x.var(axis=0) + np.float32(LN_EPS)) * g + b


def _colstats_np64(x, g, b):
    x64 = x.astype(np.float64)
    mu = x64.mean(axis=0)
    return (x64 - mu) / np.sqrt(((x64 - mu) ** 2).mean(axis=0) + LN_EPS) * g + b


def _colstats_torch(torch, p, x, g, b):
    return (x - x.mean(0)) / torch.sqrt(x.var(0, unbiased=False) + LN_EPS) * g + b


# broadcast: three operands broadcast against each other, then an activation
def _broadcast_inputs() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(SEED + 3)
    return {k: rng.standard_normal(shape, dtype=np.float32)
            for k, shape in (("a", BC_A), ("b", BC_B), ("c", BC_C))}


def _broadcast_fluid(paddle, v):
    return paddle.nn.functional.relu(v["a"] * v["b"] + v["c"])


WORKLOADS = {
    "chain": Workload(
        "chain", "chain tanh(relu(x*.5+y)-1)*x+2 [16M]", "pointwise", _two_vectors, _chain_fluid,
        lambda x, y: np.tanh(np.maximum(x * np.float32(0.5) + y, 0) - np.float32(1)) * x
        + np.float32(2),
        lambda torch, p, x, y: torch.tanh(torch.relu(x * 0.5 + y) - 1.0) * x + 2.0,
        _chain_c, _chain_paddle),
    "arith": Workload(
        "arith", "arith x*.5+y*.25-1 [16M]", "pointwise", _two_vectors, _arith_fluid,
        lambda x, y: x * np.float32(0.5) + y * np.float32(0.25) - np.float32(1),
        lambda torch, p, x, y: x * 0.5 + y * 0.25 - 1.0,
        _arith_c, _arith_paddle),
    "softmax": Workload(
        "softmax", f"softmax [{ROWS},{COLS}]", "reduction", _matrix,
        lambda fluid, v: fluid.layers.softmax(v["x"]),
        _softmax_np,
        lambda torch, p, x: torch.softmax(x, dim=-1),
        _softmax_c, lambda paddle, v: paddle.nn.functional.softmax(v["x"]),
        atol=1e-7, rtol=1e-4, one_kernel=True),
    "layer_norm": Workload(
        "layer_norm", f"layer_norm [{ROWS},{COLS}]", "reduction", _matrix, _layer_norm_fluid,
        None,  # needs the parameters: set per run (see _numpy_step)
        lambda torch, p, x: torch.nn.functional.layer_norm(x, (COLS,), p["scale"], p["bias"],
                                                           LN_EPS),
        _layer_norm_c, _layer_norm_paddle, params=_layer_norm_params,
        atol=2e-5, rtol=1e-4, one_kernel=True),
    "colstats": Workload(
        "colstats", f"colstats (x-mean0)/sqrt(var0+eps)*g+b [{COL_ROWS},{COL_COLS}]",
        "reduction", _colstats_inputs, _colstats_fluid, _colstats_np, _colstats_torch,
        None, _colstats_paddle, atol=1e-4, rtol=1e-4, one_kernel=True, vs_compile=True,
        reference=_colstats_np64),
    "broadcast": Workload(
        "broadcast", "broadcast relu(a*b+c) [64,1,256]x[1,128,256]x[256]", "pointwise",
        _broadcast_inputs, _broadcast_fluid,
        lambda a, b, c: np.maximum(a * b + c, np.float32(0)),
        lambda torch, p, a, b, c: torch.relu(a * b + c),
        None, _broadcast_fluid, one_kernel=True, vs_compile=True),
}


# -- competitors ----------------------------------------------------------------------------
class _Fluidc:
    """The workload's program in fluidc, its scope, and the plan exe.run compiled for it."""

    def __init__(self, w: Workload, inputs: dict[str, np.ndarray], fused: bool = True) -> None:
        import fluidc as fluid

        self.fluid = fluid
        main, startup = fluid.Program(), fluid.Program()
        with fluid.program_guard(main, startup):
            feeds = {k: _fluid_data(fluid, k, a.shape) for k, a in inputs.items()}
            self.out = w.fluid_build(fluid, feeds)
        self.exe = fluid.Executor(fluid.CPUPlace())
        self.scope = fluid.Scope()
        self.exe.run(startup, scope=self.scope)
        self.main = self.program = main
        if not fused:
            s = fluid.BuildStrategy()
            s.fuse_all = False
            self.program = fluid.CompiledProgram(main, build_strategy=s)
        self.inputs = inputs

    def step(self) -> np.ndarray:
        return self.exe.run(self.program, feed=self.inputs, fetch_list=[self.out],
                            scope=self.scope)[0]

    def plan(self):
        """The compiled plan of the last exe.run (internal: for diagnostics only)."""
        plans = getattr(self.exe, "_plans", {})
        return list(plans.values())[-1] if plans else None

    def kernel_count(self) -> Optional[int]:
        """Compiled kernels plus library calls in the plan of the last run."""
        plan = self.plan()
        lowered = getattr(plan, "lowered", None)
        return len(lowered.steps) if lowered is not None else None


@dataclass
class _Shared:
    """Per workload: inputs, parameters and the numpy answer, made once for all competitors."""

    w: Workload
    inputs: dict
    params: dict
    expected: np.ndarray
    info: dict = field(default_factory=dict)


def _check(shared: _Shared, name: str, got) -> None:
    got = np.asarray(got)
    exp = shared.expected
    if got.shape != exp.shape or got.dtype != np.float32:
        raise AssertionError(f"{shared.w.name}/{name}: got {got.dtype}{list(got.shape)}, "
                             f"expected float32{list(exp.shape)}")
    if not np.allclose(got, exp, atol=shared.w.atol, rtol=shared.w.rtol):
        err = float(np.max(np.abs(got.astype(np.float64) - exp)))
        raise AssertionError(f"{shared.w.name}/{name}: max |error| {err:.3g} vs numpy")


def _checked(shared: _Shared, name: str, step):
    _check(shared, name, step())
    return step


def _numpy_fn(shared: _Shared):
    w, p = shared.w, shared.params
    if w.name == "layer_norm":
        return lambda x: _layer_norm_np_f32(x, p["scale"], p["bias"])
    return w.numpy_fn


def _competitors(shared: _Shared) -> list[Competitor]:
    w, inputs, p = shared.w, shared.inputs, shared.params

    def fluidc(fused: bool):
        def setup():
            f = _Fluidc(w, inputs, fused)
            with _env(FLUIDC_TIERED="0"):  # the plan built here: no timed run on tier 0
                step = _checked(shared, "fluidc", f.step)
            shared.info["kernels_fused" if fused else "kernels_unfused"] = f.kernel_count()
            if fused:
                shared.info["fluidc"] = f
            return step
        return setup

    def kernel_only():
        # The plan's compiled calls alone. exe.run points the slot table at the caller's feed
        # arrays and at a fresh output array each run (runtime/plan.py: direct_feeds,
        # fresh_fetches), so this step must re-point those slots at arrays it owns each call:
        # a stale slot would write into freed memory.
        f = shared.info.get("fluidc")
        plan = f.plan() if f is not None else None
        calls, table = getattr(plan, "calls", None), getattr(plan, "table", None)
        if not calls or table is None:
            raise Skip("no compiled CPU plan to call")
        direct = [(slot, inputs[n].ctypes.data) for n, slot in getattr(plan, "direct_feeds", ())]
        fresh = list(getattr(plan, "fresh_fetches", ()))
        if fresh:
            _, slot, shape, dtype = fresh[0]
            out = np.empty(shape, dtype)
            direct.append((slot, out.ctypes.data))
        elif getattr(plan, "fetch_views", None) and plan.fetch_views[0] is not None:
            out = plan.fetch_views[0]
        else:
            raise Skip("the plan's output buffer is not reachable")

        def step():
            for slot, ptr in direct:
                table[slot] = ptr
            for c in calls:
                c()
            return out
        return _checked(shared, "fluidc kernel only", step)

    def c_loop():
        if w.c_call is None:
            raise Skip("no hand-written C for this workload")
        return _checked(shared, "C", lambda: w.c_call(p, **inputs))

    def numpy_():
        fn = _numpy_fn(shared)
        return _checked(shared, "numpy", lambda: fn(**inputs))

    def torch_(compile_: bool):
        def setup():
            try:
                import torch
            except ImportError as e:
                raise Skip(f"torch not importable ({e})") from e
            fn = functools.partial(w.torch_fn, torch,
                                   {k: torch.from_numpy(a) for k, a in p.items()})
            if compile_:
                fn = torch.compile(fn)
            ts = {k: torch.from_numpy(a) for k, a in inputs.items()}

            def step():
                with torch.inference_mode():
                    return fn(**ts).numpy()
            return _checked(shared, "torch.compile" if compile_ else "torch eager", step)
        return setup

    def paddle_static():
        try:
            import paddle
        except ImportError as e:
            raise Skip(f"paddle not importable ({e})") from e
        if w.paddle_build is None:
            raise Skip("no paddle program for this workload")
        paddle.enable_static()
        main, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, startup):
            feeds = {k: paddle.static.data(name=k, shape=list(a.shape), dtype="float32")
                     for k, a in inputs.items()}
            out = w.paddle_build(paddle, feeds)
        exe = paddle.static.Executor(paddle.CPUPlace())
        scope = paddle.static.Scope()
        with paddle.static.scope_guard(scope):
            exe.run(startup)

        def step():
            with paddle.static.scope_guard(scope):
                return exe.run(main, feed=inputs, fetch_list=[out])[0]
        return _checked(shared, "paddle static", step)

    return [
        Competitor("fluidc", fluidc(True), note="exe.run, fused (default)"),
        Competitor("fluidc unfused", fluidc(False), note="BuildStrategy.fuse_all = False"),
        Competitor("fluidc kernel only", kernel_only, optional=True,
                   note="diagnostic: the plan's calls, output preallocated"),
        Competitor("C fused", c_loop, optional=True,
                   note=f"reference_c/{w.name}.c, np.empty output"),
        Competitor("numpy", numpy_),
        Competitor("torch eager", torch_(False), optional=True, note="from_numpy/.numpy()"),
        Competitor("torch.compile", torch_(True), optional=True, note="inductor, CPU"),
        Competitor("paddle static", paddle_static, optional=True),
    ]


# -- copy bandwidth -------------------------------------------------------------------------
def _copy_competitors(like: np.ndarray) -> list[Competitor]:
    """Copies of an array the size of the workload's output into a preallocated one: the
    copy bandwidth, timed interleaved with the workload (so under the same load and at the
    same cache level: [4096, 1024] floats fit in this machine's L3, 16M floats do not)."""
    src = np.random.default_rng(SEED).standard_normal(like.size, dtype=np.float32)

    def numpy_copy():
        dst = np.zeros_like(src)

        def step():
            np.copyto(dst, src)
            return dst
        return step

    def c_copy():
        fn, dst = reference_lib("copy").copy_f32, np.zeros_like(src)
        args = (_ptr(src), _ptr(dst), ctypes.c_int64(src.size))

        def step():
            fn(*args)
            return dst
        step()
        if not np.array_equal(dst, src):
            raise AssertionError("reference_c/copy.c copied wrongly")
        return step

    mib = like.nbytes / 2**20
    return [Competitor(COPY_ROWS[0], numpy_copy, note=f"{mib:g} MiB, 1 thread, preallocated"),
            Competitor(COPY_ROWS[1], c_copy, optional=True,
                       note=f"{mib:g} MiB, reference_c/copy.c, OpenMP threads")]


COPY_ROWS = ("copy np.copyto", "copy C omp")


# -- running --------------------------------------------------------------------------------
def _add_bandwidth(rows: list[dict], nbytes: int, copy_nbytes: int) -> Optional[float]:
    """GB/s of every row and its fraction of the faster copy row's; returns that copy GB/s."""
    for r in rows:
        if r["median_us"] is None:
            continue
        r["bytes"] = copy_nbytes if r["competitor"] in COPY_ROWS else nbytes
        r["gb_s"] = r["bytes"] / (r["median_us"] * 1e-6) / 1e9
        r["gb_s_max"] = r["bytes"] / (r["min_us"] * 1e-6) / 1e9
    copies = [r for r in rows if r["competitor"] in COPY_ROWS and r.get("gb_s")]
    if not copies:
        return None
    best = max(copies, key=lambda r: r["gb_s"])
    best_max = max(r["gb_s_max"] for r in copies)
    for r in rows:
        if r.get("gb_s") is not None:
            r["of_copy_bw"] = r["gb_s"] / best["gb_s"]
            r["of_copy_bw_max"] = r["gb_s_max"] / best_max
    return best["gb_s"]


def _row(rows: list[dict], name: str) -> Optional[dict]:
    r = next((r for r in rows if r["competitor"] == name), None)
    return r if r is not None and r["median_us"] is not None else None


def _speedup(rows, other: str) -> tuple:
    f, o = _row(rows, "fluidc"), _row(rows, other)
    if f is None or o is None:
        return None, None, None
    return o, o["median_us"] / f["median_us"], o["min_us"] / f["min_us"]


def _targets(w: Workload, rows: list[dict], shared: _Shared) -> None:
    f = _row(rows, "fluidc")
    if f is None:
        return
    if w.name == "chain":
        c, r, rm = _speedup(rows, "C fused")
        if c is not None:
            add_target(f, f"chain: fluidc / C fused <= {CHAIN_VS_C}", 1 / r, 1 / rm,
                    1 / r <= CHAIN_VS_C)
        tc, r, rm = _speedup(rows, "torch.compile")
        if tc is not None:
            add_target(f, f"chain: torch.compile / fluidc >= {CHAIN_VS_COMPILE}", r, rm,
                    r >= CHAIN_VS_COMPILE)
        u, r, rm = _speedup(rows, "fluidc unfused")
        if u is not None:
            add_target(f, f"chain: fluidc unfused / fluidc >= {CHAIN_VS_UNFUSED}", r, rm,
                    r >= CHAIN_VS_UNFUSED)
    if w.name == "arith" and f.get("of_copy_bw") is not None:
        add_target(f, f"arith: fluidc >= {ARITH_OF_COPY:.0%} of copy bandwidth", f["of_copy_bw"],
                f["of_copy_bw_max"], f["of_copy_bw"] >= ARITH_OF_COPY)
    if w.one_kernel:
        n = shared.info.get("kernels_fused")
        add_target(f, f"{w.name}: one kernel", n, None, n == 1 if n is not None else None)
        c, r, rm = _speedup(rows, "C fused")
        if c is not None:
            add_target(f, f"{w.name}: fluidc / C fused <= {ROW_VS_C}", 1 / r, 1 / rm,
                    1 / r <= ROW_VS_C)
    if w.vs_compile:
        tc, r, rm = _speedup(rows, "torch.compile")
        if tc is not None:
            add_target(f, f"{w.name}: fluidc / torch.compile <= {VS_COMPILE}", 1 / r, 1 / rm,
                       1 / r <= VS_COMPILE)


def run_workload(name: str, repeat: int, verbose: bool) -> list[dict]:
    """Set up one workload's competitors, time them interleaved, and annotate the rows."""
    w = WORKLOADS[name]
    inputs = w.inputs()
    params: dict = {}
    if name == "layer_norm":
        import fluidc as fluid
        if not hasattr(fluid.layers, "layer_norm"):
            return [{"bench": w.title, "competitor": "fluidc", "median_us": None, "min_us": None,
                     "max_us": None, "repeat": 0, "number": 1, "setup_s": 0.0,
                     "note": "skipped: fluidc.layers.layer_norm is missing", "ratio": None,
                     "ratio_min": None, "ratio_to": None}]
        params = w.params(_Fluidc(w, inputs))
    shared = _Shared(w, inputs, params, None)
    expected_fn = (lambda **kw: _layer_norm_np(kw["x"], params["scale"], params["bias"])) \
        if name == "layer_norm" else w.reference or w.numpy_fn
    shared.expected = np.asarray(expected_fn(**inputs), dtype=np.float32)
    rows = run_bench(w.title, _competitors(shared) + _copy_competitors(shared.expected),
                     repeat=repeat, number=1, warmup=2, baseline="fluidc", verbose=verbose)
    shared.info.pop("fluidc", None)
    _add_bandwidth(rows, w.bytes_moved(inputs, params, shared.expected),
                   2 * shared.expected.nbytes)
    for r in rows:
        if r["competitor"] == "fluidc":
            r["kernels"] = shared.info.get("kernels_fused")
        elif r["competitor"] == "fluidc unfused":
            r["kernels"] = shared.info.get("kernels_unfused")
    _targets(w, rows, shared)
    return rows


def run(repeat: int | None = None, verbose: bool = True,
        names: Optional[list[str]] = None) -> list[dict]:
    """Each kernel workload (default: all of them), with its copy-bandwidth rows."""
    rows: list[dict] = []
    for name in names or list(WORKLOADS):
        rows += run_workload(name, repeat or 15, verbose)
    return rows
