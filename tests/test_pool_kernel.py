"""Generated pools (codegen/c_pool.py, PoolKernel): pool2d over float32/float64 in a C plan is
a generated kernel, and a transpose2 alone reading its result (the end of a channels-last
chain) is folded into its store. Random pools (max / average, exclusive or not, ksize,
strides, paddings of 2 and 4 values, SAME / VALID, ceil_mode, global, adaptive, odd sizes,
NCHW and NHWC, channel counts past one channel block, NaN and -inf inputs) against the numpy
reference executor and the unfused plan (torch's pooling); pool chains in channels-last with
the folded transposed store; training through a generated pool; several batch sizes."""
import numpy as np
import pytest

import fluidc as fluid
from fluidc.frontend.errors import ShapeError
from fluidc.frontend.ops.conv import native_max_pool, pool_geometry
from fluidc.frontend.ops.registry import get_op_def
from fluidc.passes.fuse import PoolKernel
from fluidc.passes.pipeline import lower_for_batch

from op_harness import assert_same, data_var, run_c, run_reference, seeded

TOL = {"float32": (1e-5, 1e-6), "float64": (1e-12, 1e-12)}


def _unfused(program):
    s = fluid.BuildStrategy()
    s.fuse_all = False
    return fluid.CompiledProgram(program, build_strategy=s)


def _pool_steps(program, feed, fetch) -> list[list[str]]:
    lp = lower_for_batch(program, list(feed), fetch, 0,
                         shapes={n: v.shape for n, v in feed.items()})
    return [[o.type for o in s.ops] for s in lp.steps if isinstance(s, PoolKernel)]


def _random_attrs(rng, fmt: str) -> dict:
    k = [int(rng.integers(1, 5)), int(rng.integers(1, 5))]
    a = {"pooling_type": str(rng.choice(["max", "avg"])), "ksize": k,
         "strides": [int(rng.integers(1, 4)), int(rng.integers(1, 4))],
         "ceil_mode": bool(rng.random() < 0.4), "exclusive": bool(rng.random() < 0.6),
         "data_format": fmt}
    r = rng.random()
    if r < 0.1:
        a["global_pooling"] = True
    elif r < 0.2:
        a["adaptive"] = True
        a["ksize"] = [int(rng.integers(1, 5)), int(rng.integers(1, 5))]
    elif r < 0.3:
        a["padding_algorithm"] = str(rng.choice(["SAME", "VALID"]))
    elif r < 0.6:
        a["paddings"] = [int(rng.integers(0, kk)) for kk in (k[0], k[0], k[1], k[1])]
    else:
        a["paddings"] = [int(rng.integers(0, k[0])), int(rng.integers(0, k[1]))]
    return a


def _random_case(seed: int):
    """A random valid pool2d (attrs, input); some inputs hold NaN, -inf or ties."""
    rng = seeded(f"pool_kernel{seed}")
    dtype = "float32" if seed % 3 else "float64"
    fmt = "NHWC" if seed % 2 else "NCHW"
    while True:
        n, h, w = int(rng.integers(1, 4)), int(rng.integers(1, 12)), int(rng.integers(1, 12))
        c = int(rng.choice([1, 3, 5, 16, 70]))
        shape = (n, c, h, w) if fmt == "NCHW" else (n, h, w, c)
        a = get_op_def("pool2d").complete_attrs(_random_attrs(rng, fmt))
        try:
            out = pool_geometry("pool2d", shape, a)[4]
        except ShapeError:
            continue
        if min(out) >= 1:
            break
    x = rng.standard_normal(shape)
    if seed % 4 == 1:
        x = np.round(x)  # ties
    if seed % 5 == 2:
        flat = x.reshape(-1)
        flat[rng.integers(0, flat.size, 3)] = rng.choice([np.nan, -np.inf, np.inf], 3)
    return a, x.astype(dtype), dtype


def _one_pool(a: dict, x: np.ndarray):
    program = fluid.Program()
    block = program.global_block()
    xv = data_var(block, "x", x)
    out = block.create_var(name="out", dtype=x.dtype.name)
    block.append_op("pool2d", {"X": [xv]}, {"Out": [out]}, a)
    return program


@pytest.mark.parametrize("seed", range(40))
def test_random_pools_against_reference_and_unfused(seed):
    a, x, dtype = _random_case(seed)
    program, feed = _one_pool(a, x), {"x": x}
    assert _pool_steps(program, feed, ["out"]) == [["pool2d"]]
    got = run_c(program, feed, ["out"])[0]
    want = run_reference(program, feed, ["out"])[0]
    assert_same(got, want, f"generated vs reference {a}", TOL[dtype])
    with fluid.scope_guard(fluid.Scope()):
        unfused = fluid.Executor(fluid.CPUPlace()).run(_unfused(program), feed=feed,
                                                       fetch_list=["out"])[0]
    assert_same(got, unfused, f"generated vs unfused {a}", TOL[dtype])


@pytest.mark.parametrize("seed", range(16))
def test_random_argmax_pools_against_reference_and_unfused(seed):
    """pool2d_argmax (training's max pools keeping their indices for the grad), generated:
    Out and the indices of each window's first maximum, as the reference; ties, and NaN
    (the first NaN) against the reference only (torch's kernel takes the last NaN)."""
    rng = seeded(f"pool_argmax{seed}")
    fmt = "NHWC" if seed % 2 else "NCHW"
    dtype = "float32" if seed % 3 else "float64"
    while True:
        n, c, h, w = (int(rng.integers(1, 4)), int(rng.choice([1, 3, 16, 70])),
                      int(rng.integers(2, 12)), int(rng.integers(2, 12)))
        k = [int(rng.integers(1, min(h, 4) + 1)), int(rng.integers(1, min(w, 4) + 1))]
        a = get_op_def("pool2d_argmax").complete_attrs(
            {"pooling_type": "max", "ksize": k, "data_format": fmt,
             "strides": [int(rng.integers(1, 4)), int(rng.integers(1, 4))],
             "paddings": [int(rng.integers(0, k[0] // 2 + 1)), int(rng.integers(0, k[1] // 2 + 1))],
             "ceil_mode": bool(rng.random() < 0.4)})
        shape = (n, c, h, w) if fmt == "NCHW" else (n, h, w, c)
        if native_max_pool(shape, a):
            break
    x = np.round(rng.standard_normal(shape) * 2) / 2  # ties
    nan = seed % 4 == 3
    if nan:
        x.reshape(-1)[rng.integers(0, x.size, 4)] = np.nan
    x = x.astype(dtype)
    program = fluid.Program()
    block = program.global_block()
    xv = data_var(block, "x", x)
    out, ind = (block.create_var(name=v) for v in ("out", "ind"))
    block.append_op("pool2d_argmax", {"X": [xv]}, {"Out": [out], "Indices": [ind]}, a)
    feed, fetch = {"x": x}, ["out", "ind"]
    assert _pool_steps(program, feed, fetch) == [["pool2d_argmax"]]
    got = run_c(program, feed, fetch)
    runs = [("reference", run_reference(program, feed, fetch))]
    if not nan:
        with fluid.scope_guard(fluid.Scope()):
            runs.append(("unfused", fluid.Executor(fluid.CPUPlace()).run(
                _unfused(program), feed=feed, fetch_list=fetch)))
    for what, want in runs:
        assert_same(got[0], want[0], f"Out vs {what} {a}", TOL[dtype])
        assert_same(got[1], want[1], f"Indices vs {what} {a}")


@pytest.mark.parametrize("seed", range(40))
def test_random_pool_grads_against_reference_and_unfused(seed):
    """pool2d_grad generated (windows found again over X for max pools; an average's dOut
    times Paddle's float32 reciprocal divisors), and pool2d_argmax_grad where training keeps a
    max pool's indices: dX of the random pools above against the reference and, on finite
    inputs, the unfused plan (torch's kernels route a NaN window to its last NaN)."""
    a, x, dtype = _random_case(seed)
    program = _one_pool(a, x)
    block = program.global_block()
    out = block.var("out")
    dout = seeded(f"pool_grad{seed}").standard_normal(
        pool_grad_out_shape(a, x.shape)).astype(dtype)
    dv = data_var(block, "dout", dout)
    block.create_var(name="dx", dtype=dtype)
    block.append_op("pool2d_grad", {"X": [block.var("x")], "Out": [out], "Out@GRAD": [dv]},
                    {"X@GRAD": ["dx"]}, a)
    feed = {"x": x, "dout": dout}
    kept = a["pooling_type"] == "max" and native_max_pool(x.shape, a)
    steps = _pool_steps(program, feed, ["dx"])
    assert [["pool2d_argmax_grad"] if kept else ["pool2d_grad"]] == steps[1:], steps
    got = run_c(program, feed, ["dx"])[0]
    assert_same(got, run_reference(program, feed, ["dx"])[0], f"dX vs reference {a}", TOL[dtype])
    if np.isfinite(x).all():
        with fluid.scope_guard(fluid.Scope()):
            unfused = fluid.Executor(fluid.CPUPlace()).run(_unfused(program), feed=feed,
                                                           fetch_list=["dx"])[0]
        assert_same(got, unfused, f"dX vs unfused {a}", TOL[dtype])


def pool_grad_out_shape(a: dict, shape: tuple) -> tuple:
    fmt, _, _, _, out = pool_geometry("pool2d", shape, a)
    return (shape[0], shape[1], *out) if fmt == "NCHW" else (shape[0], *out, shape[3])


def _chain(seed: int):
    """Two or three NCHW pools in a row (a channels-last chain): (program, feed, fetches, the
    pools' attrs)."""
    rng = seeded(f"pool_chain{seed}")
    dtype = "float32" if seed % 2 else "float64"
    main, startup = fluid.Program(), fluid.Program()
    with fluid.unique_name.guard(), fluid.program_guard(main, startup):
        L = fluid.layers
        shape = [int(rng.integers(1, 70)), int(rng.integers(8, 17)), int(rng.integers(8, 17))]
        h = L.data(name="x", shape=shape, dtype=dtype)
        inner = []
        # a fetched inner value ends a chain: three pools keep one of two after it
        for _ in range(3 if seed % 3 == 0 else int(rng.integers(2, 4))):
            h = L.pool2d(h, int(rng.integers(2, 4)), str(rng.choice(["max", "avg"])),
                         int(rng.integers(1, 3)), int(rng.integers(0, 2)),
                         ceil_mode=bool(rng.random() < 0.5), exclusive=bool(rng.random() < 0.5))
            inner.append(h)
        out = L.scale(h, 2.0) if rng.random() < 0.5 else h
    feed = {"x": rng.standard_normal((int(rng.integers(1, 4)), *shape)).astype(dtype)}
    fetch = [out.name] + ([inner[0].name] if seed % 3 == 0 else [])
    return main, feed, fetch, dtype


@pytest.mark.parametrize("seed", range(10))
def test_channels_last_pool_chains_fold_the_transpose(seed):
    program, feed, fetch, dtype = _chain(seed)
    steps = _pool_steps(program, feed, fetch)
    # every pool is generated; the chain's last one stores NCHW itself (no transpose call)
    assert steps[-1] == ["pool2d", "transpose2"], steps
    assert all(s[0] == "pool2d" for s in steps) and len(steps) >= 2
    got = run_c(program, feed, fetch)
    want = run_reference(program, feed, fetch)
    with fluid.scope_guard(fluid.Scope()):
        unfused = fluid.Executor(fluid.CPUPlace()).run(_unfused(program), feed=feed,
                                                       fetch_list=fetch)
    for name, g, r, u in zip(fetch, got, want, unfused):
        assert_same(g, r, f"generated vs reference {name}", TOL[dtype])
        assert_same(g, u, f"generated vs unfused {name}", TOL[dtype])


@pytest.mark.parametrize("pool_type", ["max", "avg"])
def test_training_through_a_generated_pool(pool_type):
    """An NHWC pool whose grad recomputes windows (padding torch cannot take natively, so no
    kept indices): the forward is generated; losses and parameters after two Momentum steps
    match the reference executor."""
    rng = seeded(f"pool_train{pool_type}")
    main, startup = fluid.Program(), fluid.Program()
    with fluid.unique_name.guard(), fluid.program_guard(main, startup):
        L = fluid.layers
        x = L.data(name="x", shape=[9, 7, 3], dtype="float64")
        h = L.conv2d(x, 4, 3, padding=1, data_format="NHWC")
        h = L.pool2d(h, 3, pool_type, 2, [1, 2], ceil_mode=True, exclusive=False,
                     data_format="NHWC")
        loss = L.mean(L.square(L.fc(L.flatten(h, 1), 3)))
        fluid.optimizer.Momentum(0.1, 0.9).minimize(loss)
    feed = {"x": rng.standard_normal((2, 9, 7, 3))}
    assert ["pool2d"] in _pool_steps(main, feed, [loss.name])
    params = sorted(p.name for p in main.all_parameters())
    first = fluid.Scope()
    fluid.Executor(fluid.CPUPlace()).run(startup, scope=first)
    results = []
    for run in ("c", "reference"):
        scope = fluid.Scope()  # the same initial state for both
        for v in main.list_vars():
            if v.persistable and first.find_var(v.name) is not None:
                scope.var(v.name).get_tensor().set(
                    np.array(first.find_var(v.name).get_tensor()), fluid.CPUPlace())
        losses = []
        for _ in range(2):
            if run == "c":
                losses += run_c(main, feed, [loss.name], scope)
            else:
                losses += run_reference(main, feed, [loss.name], scope)
        results.append(losses + [np.array(scope.find_var(p).get_tensor()) for p in params])
    for what, c, r in zip(["loss 1", "loss 2"] + params, *results):
        assert_same(np.asarray(c), np.asarray(r), what, TOL["float64"])


def test_batch_sizes_share_a_pool_library():
    """One program at several batch sizes (the dynamic-batch template prints the batch as a
    run-time value): every size pools as the reference does."""
    rng = seeded("pool_batches")
    a = get_op_def("pool2d").complete_attrs({"pooling_type": "avg", "ksize": [3, 2],
                                              "strides": [2, 2], "paddings": [1, 0],
                                              "ceil_mode": True, "exclusive": False})
    program = fluid.Program()
    block = program.global_block()
    xv = block.create_var(name="x", shape=(-1, 5, 9, 8), dtype="float32", is_data=True)
    out = block.create_var(name="out", dtype="float32")
    block.append_op("pool2d", {"X": [xv]}, {"Out": [out]}, a)
    exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
    for n in (2, 3, 5, 7, 1):
        x = rng.standard_normal((n, 5, 9, 8)).astype("float32")
        got = exe.run(program, feed={"x": x}, fetch_list=["out"], scope=scope)[0]
        assert_same(got, run_reference(program, {"x": x}, ["out"])[0], f"batch {n}",
                    TOL["float32"])


def test_transpose_is_not_folded_when_a_view_reads_the_pool():
    """An NHWC pool read by a transpose2 (with no XShape, as channels_last makes them) and,
    through a view (reshape2), by a fetch: its own output must be stored, so the transpose
    stays a call of its own."""
    rng = seeded("pool_view")
    x = rng.standard_normal((2, 6, 6, 3)).astype("float32")
    program = fluid.Program()
    block = program.global_block()
    xv = data_var(block, "x", x)
    y, z, v = (block.create_var(name=n, dtype="float32") for n in ("y", "z", "v"))
    block.append_op("pool2d", {"X": [xv]}, {"Out": [y]},
                    {"pooling_type": "max", "ksize": [2, 2], "strides": [2, 2],
                     "data_format": "NHWC"})
    block.append_op("transpose2", {"X": [y]}, {"Out": [z]}, {"axis": [0, 3, 1, 2]})
    block.append_op("reshape2", {"X": [y]}, {"Out": [v]}, {"shape": [2, -1]})
    feed, fetch = {"x": x}, ["z", "v"]
    assert _pool_steps(program, feed, fetch) == [["pool2d"]]
    for name, g, r in zip(fetch, run_c(program, feed, fetch), run_reference(program, feed, fetch)):
        assert_same(g, r, name)
