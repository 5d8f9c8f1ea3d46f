"""Random DAGs of pointwise ops (activations, broadcasting elementwise binaries with Paddle's axis,
scale, cast), reductions (keep_dim, so later ops broadcast them back; softmax) and matrix
products by a fed square matrix (mul, matmul_v2, later ops their epilogue) run by the compiled
C executor, fused and unfused, and by the numpy ReferencePlan: they must agree.

Each var covers a contiguous range [start, start + rank) of a base shape, with some dims 1, so
any two vars where one range holds the other broadcast under Paddle's axis rule. Denominators and
pow operands go through a guard (sigmoid, then + 0.5) so no value is amplified by a near-zero
divisor: the backends differ only by the last-ulp rounding of exp/tanh/erf/pow."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import fluidc as fluid
from fluidc.frontend.dtypes import VarType

from op_harness import append, data_var, run_reference

UNARY = ["relu", "sigmoid", "tanh", "exp", "log", "sqrt", "rsqrt", "square", "abs", "leaky_relu",
         "gelu", "assign", "scale", "cast"]
BINARY = ["add", "sub", "mul", "div", "max", "min", "pow"]
REDUCE = ["reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "softmax"]
TOL = {"float32": (1e-4, 1e-5), "float64": (1e-10, 1e-12)}


@dataclass
class V:
    """A var of the program being built: its name, where its dims sit in the base shape, dtype."""

    name: str
    start: int
    rank: int
    dtype: str

    def holds(self, other: "V") -> bool:
        return self.start <= other.start and other.start + other.rank <= self.start + self.rank


base_shapes = st.one_of(
    st.lists(st.integers(1, 6), min_size=1, max_size=4).map(tuple),
    st.sampled_from([(2, 129, 131), (33, 1031)]),  # past PARALLEL_MIN: the OpenMP paths
)


@st.composite
def programs(draw, batched: bool = False):
    """(program, feed spec {name: (shape, dtype)}, fetch names); batched: and the feeds whose
    dim 0 is the base shape's (the batch dim, which may then take any size)."""
    base = draw(base_shapes)
    program = fluid.Program()
    block = program.global_block()
    vs: list[V] = []
    feeds = {}
    for i in range(draw(st.integers(1, 3))):
        start = draw(st.integers(0, len(base) - 1))
        rank = draw(st.integers(1, len(base) - start))
        shape = tuple(1 if draw(st.booleans()) and draw(st.booleans()) else d
                      for d in base[start:start + rank])
        dtype = draw(st.sampled_from(["float32", "float64"]))
        name = f"in{i}"
        data_var(block, name, np.empty(shape, dtype))
        feeds[name] = (shape, dtype)
        vs.append(V(name, start, rank, dtype))

    def emit(op_type, inputs, attrs, like: V, dtype=None) -> V:
        _, outs = append(block, op_type, inputs, attrs)
        out = outs["Out"]
        assert len(out.shape) == like.rank, (op_type, out.shape, like)
        v = V(out.name, like.start, like.rank, dtype or like.dtype)
        vs.append(v)
        return v

    def guard(v: V) -> V:
        """sigmoid(v) + 0.5: a value in [0.5, 1.5], safe to divide by or raise to."""
        s = emit("sigmoid", {"X": [v.name]}, {}, v)
        return emit("scale", {"X": [s.name]}, {"bias": 0.5}, s)

    for _ in range(draw(st.integers(2, 10))):
        a = draw(st.sampled_from(vs))
        shape = block.var(a.name).shape
        if a.rank >= 2 and draw(st.integers(0, 5)) == 0:
            # A product keeping a's shape: by a [k, k] matrix (fed scaled by 1/k).
            k = shape[-1]
            w = f"w{len(feeds)}"
            data_var(block, w, np.empty((k, k), a.dtype))
            feeds[w] = ((k, k), a.dtype, 1.0 / k)
            if draw(st.booleans()):
                emit("mul", {"X": [a.name], "Y": [w]}, {"x_num_col_dims": a.rank - 1}, a)
            else:
                emit("matmul_v2", {"X": [a.name], "Y": [w]},
                     {"trans_x": False, "trans_y": draw(st.booleans())}, a)
            continue
        if draw(st.integers(0, 4)) == 0:
            # Reductions keep their dims (size 1), so later ops broadcast them back: the
            # row-fusion epilogues. softmax is one of them too.
            kind = draw(st.sampled_from(REDUCE))
            axes = sorted(set(draw(st.lists(st.integers(0, a.rank - 1), min_size=1, max_size=a.rank))))
            attrs = {"axis": axes[0]} if kind == "softmax" else {"dim": axes, "keep_dim": True}
            emit(kind, {"X": [a.name]}, attrs, a)
            continue
        if draw(st.booleans()):
            kind = draw(st.sampled_from(UNARY))
            attrs = {}
            if kind == "leaky_relu":
                attrs = {"alpha": draw(st.sampled_from([0.02, 0.3]))}
            elif kind == "gelu":
                attrs = {"approximate": draw(st.booleans())}
            elif kind == "scale":
                attrs = {"scale": draw(st.sampled_from([-1.5, 0.5, 2.0])),
                         "bias": draw(st.sampled_from([0.0, 0.25, -1.0])),
                         "bias_after_scale": draw(st.booleans())}
            elif kind == "cast":
                to = "float64" if a.dtype == "float32" else "float32"
                attrs = {"in_dtype": int(VarType.FP32 if a.dtype == "float32" else VarType.FP64),
                         "out_dtype": int(VarType.FP64 if to == "float64" else VarType.FP32)}
                emit("cast", {"X": [a.name]}, attrs, a, to)
                continue
            if kind in ("log", "sqrt", "rsqrt"):
                # Near 0 these turn a last-ulp difference (libm vs numpy) into any error at all.
                a = guard(a)
            emit(kind, {"X": [a.name]}, attrs, a)
            continue
        kind = draw(st.sampled_from(BINARY))
        partners = [b for b in vs if b.dtype == a.dtype and (a.holds(b) or b.holds(a))]
        b = draw(st.sampled_from(partners))
        if kind == "div":
            b = guard(b)
        elif kind == "pow":
            a, b = guard(a), guard(b)
        big, small = (a, b) if a.holds(b) else (b, a)
        ends_together = small.start + small.rank == big.start + big.rank
        axis = -1 if small.rank == big.rank or (ends_together and draw(st.booleans())) \
            else small.start - big.start
        emit(f"elementwise_{kind}", {"X": [a.name], "Y": [b.name]}, {"axis": axis}, big)

    computed = [v.name for v in vs if v.name not in feeds]
    fetch = draw(st.lists(st.sampled_from(computed), max_size=3, unique=True))
    if computed[-1] not in fetch:
        fetch.append(computed[-1])
    if batched:
        return program, feeds, fetch, [v.name for v in vs if v.name in feeds and v.start == 0]
    return program, feeds, fetch


def _feed(spec: dict, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    return {n: (rng.uniform(-3.0, 3.0, shape) * (scale[0] if scale else 1)).astype(dtype)
            for n, (shape, dtype, *scale) in spec.items()}


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(programs(), st.integers(0, 2**32 - 1))
def test_c_executor_fused_and_unfused_agree_with_reference(prog, seed):
    program, spec, fetch = prog
    scope = fluid.Scope()
    exe = fluid.Executor(fluid.CPUPlace())
    unfused = fluid.BuildStrategy()
    unfused.fuse_all = False
    variants = [program, fluid.CompiledProgram(program, build_strategy=unfused)]
    # Two runs on one executor: the second reuses the compiled plan and its buffers.
    for run, variant in ((r, v) for r in range(2) for v in variants):
        feed = _feed(spec, seed + run)
        with fluid.scope_guard(scope), np.errstate(all="ignore"):
            got = exe.run(variant, feed=feed, fetch_list=fetch)
            want = run_reference(program, feed, fetch)
        for name, g, w in zip(fetch, got, want):
            assert g.dtype == w.dtype and g.shape == w.shape, (name, g.dtype, w.dtype, g.shape, w.shape)
            # A float64 value computed from float32 ones carries float32 rounding (libm's ulps).
            rtol, atol = TOL["float32" if "float32" in str(program) else w.dtype.name]
            np.testing.assert_allclose(g, w, rtol=rtol, atol=atol, equal_nan=True,
                                       err_msg=f"{name} (run {run}) of\n{program}")
