"""Shared helpers of the backend tests: one-op programs, runs on the compiled C executor and on
the numpy reference, and comparisons with dtype-aware tolerances."""
from __future__ import annotations

import zlib

import numpy as np

import fluidc as fluid
from fluidc.frontend import unique_name
from fluidc.frontend.ops.registry import all_op_types, get_op_def
from fluidc.runtime.reference import ReferencePlan, run_op

# (rtol, atol) per float dtype; integer and bool results must match exactly.
TOL = {np.dtype(np.float32): (1e-5, 1e-6), np.dtype(np.float64): (1e-12, 1e-12)}


def forward_op_types() -> set[str]:
    """Every registered op that is not a gradient, a grad helper (elementwise_*_grad_x ...) or
    one of the executor's own feed/fetch ops."""
    return {t for t in all_op_types()
            if "_grad" not in t and get_op_def(t).kind not in ("feed", "fetch")}


def seeded(key: str) -> np.random.Generator:
    """A generator seeded from a test id, so every case draws the same inputs each run."""
    return np.random.default_rng(zlib.crc32(key.encode()))


def data_var(block, name: str, value: np.ndarray, stop_gradient: bool = True):
    """A fed var declared with the feed's exact shape and dtype."""
    return block.create_var(name=name, shape=value.shape, dtype=value.dtype.name, is_data=True,
                            stop_gradient=stop_gradient)


def append(block, op_type: str, inputs: dict, attrs: dict | None = None,
           outputs: list[str] | None = None) -> tuple[object, dict]:
    """Append op_type reading `inputs` (slot -> var or list of vars); a fresh var per output slot.

    Returns (operator, {slot: var}); `outputs` defaults to every output slot of the op."""
    opdef = get_op_def(op_type)
    slots_ = outputs if outputs is not None else [s.name for s in opdef.outputs]
    stem = unique_name.generate(op_type)
    outs = {s: block.create_var(name=f"{stem}.{s}", dtype="float32") for s in slots_}
    op = block.append_op(op_type, inputs, {s: [v] for s, v in outs.items()}, attrs or {})
    return op, outs


def one_op_program(op_type: str, inputs: dict, attrs: dict | None = None,
                   outputs: list[str] | None = None):
    """A program holding one op over data vars fed from `inputs` (slot -> array or list).

    Returns (program, feed, {slot: output var name}, op desc)."""
    program = fluid.Program()
    block = program.global_block()
    feed, in_vars = {}, {}
    for slot, value in inputs.items():
        arrays = value if isinstance(value, list) else [value]
        names = [f"{slot.lower()}{i}" for i in range(len(arrays))]
        feed.update(zip(names, arrays))
        in_vars[slot] = [data_var(block, n, a) for n, a in zip(names, arrays)]
    op, outs = append(block, op_type, in_vars, attrs, outputs)
    return program, feed, {s: v.name for s, v in outs.items()}, op.desc


def run_c(program, feed: dict, fetch: list[str], scope=None) -> list[np.ndarray]:
    """Run on the compiled C executor in `scope` (a fresh one by default)."""
    scope = scope if scope is not None else fluid.Scope()
    with fluid.scope_guard(scope):
        return fluid.Executor(fluid.CPUPlace()).run(program, feed=feed, fetch_list=fetch)


def run_reference(program, feed: dict, fetch: list[str], scope=None) -> list[np.ndarray]:
    """Run on the numpy reference executor (LoD tensors fed as their arrays and LoDs)."""
    lods = {n: tuple(map(tuple, v.lod())) for n, v in feed.items()
            if isinstance(v, fluid.LoDTensor) and v.lod()}
    feed = {n: np.asarray(v) if n in lods else v for n, v in feed.items()}
    got = ReferencePlan(program, list(feed), fetch, lods).run(
        feed, scope if scope is not None else fluid.Scope(), return_numpy=False)
    return [np.asarray(t) for t in got]  # (LoD results are fetched as tensors)


def fused_unfused_reference(program, feed: dict, fetch: list) -> dict[str, list[np.ndarray]]:
    """The fetches (Variables) run fused, unfused (fuse_all off), both in the current scope,
    and by the numpy reference executor: {"fused": ..., "unfused": ..., "reference": ...}."""
    plain = fluid.BuildStrategy()
    plain.fuse_all = False
    exe = fluid.Executor(fluid.CPUPlace())
    return {"fused": exe.run(program, feed=feed, fetch_list=fetch),
            "unfused": exe.run(fluid.CompiledProgram(program, build_strategy=plain), feed=feed,
                               fetch_list=fetch),
            "reference": run_reference(program, feed, [v.name for v in fetch])}


def reference_op(desc, feed: dict) -> dict[str, np.ndarray]:
    """The op's outputs by its numpy reference: name -> array."""
    values = dict(feed)
    run_op(desc, values, np.random.default_rng(0))
    return values


def assert_same(got: np.ndarray, want: np.ndarray, what: str = "",
                tol: tuple[float, float] | None = None) -> None:
    """Same dtype and shape, values within the dtype's tolerance (NaNs equal, Infs exact)."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype, f"{what}: dtype {got.dtype}, reference {want.dtype}"
    assert got.shape == want.shape, f"{what}: shape {got.shape}, reference {want.shape}"
    if want.dtype.kind == "f":
        rtol, atol = tol or TOL[want.dtype]
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, equal_nan=True, err_msg=what)
    else:
        np.testing.assert_array_equal(got, want, err_msg=what)


# NaN, Inf, signed zero, denormals and large values, and the ops that must treat them as numpy.
SPECIAL = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-310, -1e-310, 1e-30, 88.0, -88.0, 1e30, -1e30,
           0.5, -0.5, 3.0, -3.0]
SPECIAL_UNARY = ["relu", "sigmoid", "tanh", "exp", "log", "sqrt", "rsqrt", "square", "abs",
                 "sign", "floor", "leaky_relu", "gelu"]
SPECIAL_BINARY = ("max", "min", "div", "mul", "pow", "mod", "floordiv")


def special_values_program(dtype: str):
    """(program, feed, fetch names, numpy's results): every special-value op in one program."""
    with np.errstate(all="ignore"):
        x = np.array(SPECIAL, dtype=dtype)
    y = x[::-1].copy()
    program = fluid.Program()
    block = program.global_block()
    xv, yv = data_var(block, "x", x), data_var(block, "y", y)
    descs = [append(block, t, {"X": [xv]})[0].desc for t in SPECIAL_UNARY]
    descs += [append(block, f"elementwise_{k}", {"X": [xv], "Y": [yv]})[0].desc
              for k in SPECIAL_BINARY]
    feed = {"x": x, "y": y}
    want = {}
    with np.errstate(all="ignore"):
        for d in descs:
            want.update(reference_op(d, feed))
    return program, feed, [d.output("Out")[0] for d in descs], want


def assert_special_values(got: np.ndarray, want: np.ndarray, what: str) -> None:
    """assert_same, plus signed zeros and Infs exactly (not within a tolerance)."""
    assert_same(got, want, f"{what} on {SPECIAL}")
    exact = np.isinf(want) | (want == 0)
    np.testing.assert_array_equal(np.signbit(got[exact]), np.signbit(want[exact]), err_msg=what)


def compiled_and_reference(monkeypatch, main, feed, fetch) -> tuple[list, list]:
    """The program's fetches compiled, then through the Executor's no-compiler path (the numpy
    reference executor)."""
    from fluidc.runtime import executor as executor_mod
    got = fluid.Executor(fluid.CPUPlace()).run(main, feed=feed, fetch_list=fetch)
    with monkeypatch.context() as m:
        m.setattr(executor_mod, "find_compiler", lambda: None)
        m.setattr(executor_mod, "_warned_no_compiler", True)
        ref = fluid.Executor(fluid.CPUPlace()).run(main, feed=feed, fetch_list=fetch)
    return got, ref
