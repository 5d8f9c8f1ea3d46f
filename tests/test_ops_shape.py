"""Shape ops: flatten_contiguous_range, flatten2, squeeze2, unsqueeze2, split, slice, gather, stack,
expand_v2, fill_constant_batch_size_like, arg_max/arg_min, top_k_v2 — inference (concrete and -1
dims), references against torch, runs against references, grads against finite differences,
and the C executor (with backward) against the reference executor."""
import numpy as np
import pytest
import torch

import fluidc as fluid
from fluidc.frontend.dtypes import VarType
from fluidc.frontend.errors import OpError, ShapeError
from fluidc.frontend.ops.registry import EMPTY_VAR, OpDesc, get_op_def

from fluidc.passes.backward import append_backward

from op_harness import one_op_program, run_c, run_reference
from ref_harness import check_grad, check_run, infer, make_fwd, run_ops

RNG = np.random.default_rng(3)
F32 = 5


def _shape(op, x_shape, attrs, slot="Out", in_slot="X"):
    return infer(op, {in_slot: [(x_shape, F32)]}, attrs)[slot][0].shape


# --- views -------------------------------------------------------------------------------------

VIEWS = [
    ("flatten_contiguous_range", {"start_axis": 1, "stop_axis": 2}, (2, 3, 4, 5), (2, 12, 5)),
    ("flatten_contiguous_range", {"start_axis": 0, "stop_axis": -1}, (2, 3, 4), (24,)),
    ("flatten2", {"axis": 2}, (2, 3, 4, 5), (6, 20)),
    ("squeeze2", {"axes": [1, -1]}, (2, 1, 3, 1), (2, 3)),
    ("squeeze2", {"axes": []}, (1, 2, 1, 3), (2, 3)),
    ("squeeze2", {"axes": [0]}, (2, 3), (2, 3)),  # a dim other than 1 stays
    ("unsqueeze2", {"axes": [0, 2]}, (3, 4), (1, 3, 1, 4)),
    ("unsqueeze2", {"axes": [-1]}, (3, 4), (3, 4, 1)),
    ("unsqueeze2", {"axes": [1, 1]}, (3, 4), (3, 1, 1, 4)),
]


@pytest.mark.parametrize("op,a,xs,want", VIEWS)
def test_view(op, a, xs, want):
    assert _shape(op, xs, a) == want
    x = RNG.standard_normal(xs)
    got = check_run(op, {"X": [x]}, a)
    np.testing.assert_array_equal(got["Out"][0], x.reshape(want))
    assert got["XShape"][0].shape == (0,) + xs
    check_grad(op, {"X": x}, a, ["X"])


def test_view_unknown_dims():
    assert _shape("flatten_contiguous_range", (-1, 3, 4), {"start_axis": 1, "stop_axis": 2}) == \
        (-1, 12)
    assert _shape("flatten_contiguous_range", (2, -1, 4), {"start_axis": 0, "stop_axis": 1}) == \
        (-1, 4)
    assert _shape("flatten2", (-1, 3, 4), {"axis": 1}) == (-1, 12)
    assert _shape("squeeze2", (-1, 1, 5), {"axes": [1]}) == (-1, 5)
    assert _shape("squeeze2", (3, -1, 5), {"axes": [1]}) == (3, 5)  # Paddle's compile-time rule
    assert _shape("unsqueeze2", (-1, 5), {"axes": [1]}) == (-1, 1, 5)
    with pytest.raises(ShapeError, match="flatten_contiguous_range"):
        _shape("flatten_contiguous_range", (2, 3), {"start_axis": 1, "stop_axis": 0})
    with pytest.raises(ShapeError, match="unsqueeze2"):
        _shape("unsqueeze2", (2, 3), {"axes": [4]})


# --- split -------------------------------------------------------------------------------------

def test_split():
    outs = infer("split", {"X": [((-1, 10), F32)]}, {"sections": [3, -1, 2], "axis": 1})["Out"]
    assert [o.shape for o in outs] == [(-1, 3), (-1, 5), (-1, 2)]
    outs = infer("split", {"X": [((4, -1), F32)]}, {"num": 2, "axis": -1})["Out"]
    assert [o.shape for o in outs] == [(4, -1), (4, -1)]
    with pytest.raises(ShapeError, match="split"):
        infer("split", {"X": [((4, 5), F32)]}, {"num": 2, "axis": 1})
    x = RNG.standard_normal((4, 6, 3))
    for a, parts in (({"num": 3, "axis": 1}, 3), ({"sections": [1, -1], "axis": 0}, [1])):
        got = check_run("split", {"X": [x]}, a)["Out"]
        want = torch.tensor_split(torch.from_numpy(x), parts, dim=a["axis"])
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g, w.numpy())
    fwd, env = make_fwd("split", {"X": x}, {"num": 3, "axis": 1})
    fwd.outputs["Out"] = ["o0", "o1", "o2"]
    run_ops([fwd], env)
    douts = {f"o{i}@GRAD": RNG.standard_normal(env[f"o{i}"].shape) for i in range(3)}
    (gop,) = get_op_def("split").grad(fwd)
    assert gop.type == "concat"
    got = run_ops([gop], {**env, **douts})["X_0@GRAD"]
    np.testing.assert_array_equal(got, np.concatenate([douts[f"o{i}@GRAD"] for i in range(3)], 1))


# --- slice -------------------------------------------------------------------------------------

SLICES = [
    ({"axes": [1], "starts": [1], "ends": [3]}, np.s_[:, 1:3]),
    ({"axes": [0, 2], "starts": [-2, 0], "ends": [10000, -1]}, np.s_[-2:, :, :-1]),
    ({"axes": [2], "starts": [3], "ends": [1]}, np.s_[:, :, 3:3]),
    ({"axes": [1], "starts": [2], "ends": [3], "decrease_axis": [1]}, np.s_[:, 2]),
    ({"axes": [0, 1, 2], "starts": [1, 0, 4], "ends": [2, 1, 5], "decrease_axis": [0, 1, 2]},
     np.s_[1:2, 0:1, 4:5]),
]


@pytest.mark.parametrize("a,idx", SLICES)
def test_slice(a, idx):
    x = RNG.standard_normal((3, 4, 5))
    want = torch.from_numpy(x)[idx].numpy()
    if len(a.get("decrease_axis", [])) == 3:  # every dim dropped: 0-D, as Paddle 3.x
        want = want.reshape(())
    assert _shape("slice", (3, 4, 5), a, in_slot="Input") == want.shape
    got = check_run("slice", {"Input": [x]}, a)["Out"][0]
    np.testing.assert_array_equal(got, want)
    if want.size:
        check_grad("slice", {"Input": x}, a, ["Input"])
        check_run("slice_grad", {"Input": [x], "Out@GRAD": [RNG.standard_normal(want.shape)]}, a)


def test_slice_unknown_dims_and_errors():
    assert _shape("slice", (-1, 8), {"axes": [1], "starts": [2], "ends": [-1]},
                  in_slot="Input") == (-1, 5)
    assert _shape("slice", (-1, 8), {"axes": [0], "starts": [0], "ends": [1]},
                  in_slot="Input") == (-1, 8)
    with pytest.raises(ShapeError, match="decrease_axis"):
        _shape("slice", (4, 8), {"axes": [1], "starts": [0], "ends": [2], "decrease_axis": [1]},
               in_slot="Input")
    # a StartsTensor is read when the program runs: the sliced dims are -1 until then
    assert infer("slice", {"Input": [((4, 8), F32)], "StartsTensor": [((1,), 3)]},
                 {"axes": [0], "starts": [0], "ends": [1]})["Out"][0].shape == (-1, 8)


# --- gather ------------------------------------------------------------------------------------

@pytest.mark.parametrize("axis,idx_shape", [(0, (5,)), (1, (4, 1)), (-1, (3,))])
def test_gather(axis, idx_shape):
    x = RNG.standard_normal((4, 3, 5))
    idx = RNG.integers(0, x.shape[axis], idx_shape)
    idx.reshape(-1)[:2] = idx.reshape(-1)[0]  # a repeat, so the grad must add
    want = torch.index_select(torch.from_numpy(x), axis % 3,
                              torch.from_numpy(idx.reshape(-1))).numpy()
    out = infer("gather", {"X": [((-1, 3, 5), F32)], "Index": [(idx_shape, 3)]}, {"axis": axis})
    assert out["Out"][0].shape == tuple(-1 if (axis % 3 != 0 and i == 0) else d
                                        for i, d in enumerate(want.shape))
    got = check_run("gather", {"X": [x], "Index": [idx]}, {"axis": axis})["Out"][0]
    np.testing.assert_array_equal(got, want)
    check_grad("gather", {"X": x, "Index": idx}, {"axis": axis}, ["X"])
    check_run("gather_grad", {"X": [x], "Index": [idx.astype(np.int32)],
                              "Out@GRAD": [RNG.standard_normal(want.shape)]}, {"axis": axis})
    with pytest.raises(OpError, match="gather"):
        infer("gather", {"X": [((4, 3), F32)], "Index": [((2,), F32)]})


# --- stack -------------------------------------------------------------------------------------

@pytest.mark.parametrize("axis", [0, 1, -1])
def test_stack(axis):
    xs = [RNG.standard_normal((2, 3)) for _ in range(3)]
    want = torch.stack([torch.from_numpy(x) for x in xs], axis).numpy()
    assert infer("stack", {"X": [((-1, 3), F32)] * 3}, {"axis": axis})["Y"][0].shape == \
        tuple(-1 if d == 2 else d for d in want.shape)
    got = check_run("stack", {"X": xs}, {"axis": axis})["Y"][0]
    np.testing.assert_array_equal(got, want)
    for lower in (True, False):
        check_grad("stack", {"X": xs}, {"axis": axis}, ["X"], outs=("Y",), lower=lower)


def test_stack_grad_skips_dropped_outputs():
    d = RNG.standard_normal((3, 2, 4))
    op = OpDesc("stack_grad", {"Y@GRAD": ["d"]}, {"X@GRAD": ["a", EMPTY_VAR, "c"]}, {"axis": 0})
    env = run_ops([op], {"d": d})
    np.testing.assert_array_equal(env["a"], d[0])
    np.testing.assert_array_equal(env["c"], d[2])
    assert EMPTY_VAR not in env


# --- expand_v2 ---------------------------------------------------------------------------------

@pytest.mark.parametrize("xs,shape,want", [((3, 1), [3, 4], (3, 4)),
                                           ((1, 4), [2, 5, -1], (2, 5, 4)),
                                           ((2, 1, 3), [-1, 4, -1], (2, 4, 3)), ((3,), [3], (3,))])
def test_expand_v2(xs, shape, want):
    assert _shape("expand_v2", xs, {"shape": shape}) == want
    x = RNG.standard_normal(xs)
    d = get_op_def("expand_v2")
    got = d.reference({"X": [x]}, d.complete_attrs({"shape": shape}))["Out"][0]
    np.testing.assert_array_equal(got, torch.from_numpy(x).expand(*shape).numpy())
    for lower in (True, False):
        check_grad("expand_v2", {"X": x}, {"shape": shape}, ["X"], lower=lower)
    program, feed, names, desc = one_op_program("expand_v2", {"X": x}, {"shape": shape})
    np.testing.assert_array_equal(run_c(program, feed, [names["Out"]])[0], got)


def test_expand_v2_unknown_dims_and_errors():
    assert _shape("expand_v2", (-1, 1), {"shape": [-1, 6]}) == (-1, 6)
    assert _shape("expand_v2", (-1, 1), {"shape": [4, 6]}) == (4, 6)
    with pytest.raises(ShapeError, match="expand_v2"):
        _shape("expand_v2", (3, 2), {"shape": [3, 4]})


# --- fill_constant_batch_size_like, arg_max / arg_min, top_k_v2 -------------------------------

def test_fill_constant_batch_size_like():
    a = {"shape": [-1, 7], "value": 2.5, "dtype": int(VarType.FP64)}
    out = infer("fill_constant_batch_size_like", {"Input": [((-1, 3), F32)]}, a)["Out"][0]
    assert out.shape == (-1, 7) and out.dtype == VarType.FP64
    a2 = {"shape": [2, -1, 5], "dtype": int(VarType.INT64), "str_value": "12345678901234",
          "input_dim_idx": 1, "output_dim_idx": 1}
    got = check_run("fill_constant_batch_size_like", {"Input": [np.zeros((4, 3))]}, a2)["Out"][0]
    assert got.shape == (2, 3, 5) and (got == 12345678901234).all()
    got = check_run("fill_constant_batch_size_like", {"Input": [np.zeros((4, 3))]}, a)["Out"][0]
    np.testing.assert_array_equal(got, np.full((4, 7), 2.5))


@pytest.mark.parametrize("op", ["arg_max", "arg_min"])
@pytest.mark.parametrize("a", [{"axis": 1}, {"axis": -1, "keepdims": True}, {"flatten": True},
                               {"axis": 0, "dtype": int(VarType.INT32)}])
def test_arg_max_min(op, a):
    x = RNG.standard_normal((3, 4, 5)).astype(np.float32)
    x[0, 1, :2] = 9.0 if op == "arg_max" else -9.0  # a tie: the first index wins
    got = check_run(op, {"X": [x]}, a)["Out"][0]
    fn = torch.argmax if op == "arg_max" else torch.argmin
    t = torch.from_numpy(x)
    want = fn(t.reshape(-1)).reshape(1) if a.get("flatten") else fn(
        t, dim=a["axis"], keepdim=a.get("keepdims", False))
    np.testing.assert_array_equal(got, want.numpy())
    assert got.dtype == (np.int32 if a.get("dtype") == int(VarType.INT32) else np.int64)
    assert _shape(op, x.shape, a) == got.shape
    assert len(_shape(op, (-1, 4, 5), a)) == got.ndim


@pytest.mark.parametrize("a", [{"k": 2}, {"k": 3, "axis": 0, "largest": False},
                               {"k": 1, "axis": 1}])
def test_top_k_v2(a):
    x = RNG.permutation(60).reshape(3, 4, 5).astype(np.float64)
    axis = a.get("axis", -1)
    got = check_run("top_k_v2", {"X": [x]}, a)
    v, i = torch.topk(torch.from_numpy(x), a["k"], dim=axis, largest=a.get("largest", True))
    np.testing.assert_array_equal(got["Out"][0], v.numpy())
    np.testing.assert_array_equal(got["Indices"][0], i.numpy())
    out = infer("top_k_v2", {"X": [((-1, 4, 5), F32)]}, a)
    assert out["Indices"][0].dtype == VarType.INT64 and out["Out"][0].shape[axis] == a["k"]
    check_grad("top_k_v2", {"X": x / 7}, a, ["X"])
    with pytest.raises(ShapeError, match="top_k_v2"):
        infer("top_k_v2", {"X": [((2, 3), F32)]}, {"k": 4})


@pytest.mark.parametrize("a", [{}, {"axis": 0, "descending": True}, {"axis": 1}])
def test_argsort(a):
    """Values and indices against torch's stable sort over ties, NaN and infinities; the grad
    (dOut scattered back through the indices) against finite differences."""
    x = np.round(RNG.standard_normal((3, 4, 5)) * 2)  # ties
    x[0, 1, 2], x[1, 0, 0], x[2, 3, 4] = np.nan, np.inf, -np.inf
    got = check_run("argsort", {"X": [x]}, a)
    v, i = torch.sort(torch.from_numpy(x), dim=a.get("axis", -1),
                      descending=a.get("descending", False), stable=True)
    np.testing.assert_array_equal(got["Out"][0], v.numpy())
    np.testing.assert_array_equal(got["Indices"][0], i.numpy())
    assert infer("argsort", {"X": [((-1, 4, 5), F32)]}, a)["Indices"][0].dtype == VarType.INT64
    check_grad("argsort", {"X": RNG.permutation(60).reshape(3, 4, 5) / 7.0}, a, ["X"])
    with pytest.raises(ShapeError, match="argsort"):
        infer("argsort", {"X": [((2, 3), F32)]}, {"axis": 2})


@pytest.mark.parametrize("start, stop, num, dtype", [
    (0.0, 10.0, 11, "float32"), (10.0, 0.0, 11, "float64"), (0.5, 0.5, 4, "float32"),
    (0.0, 10.0, 200, "int32"), (-7.0, 3.0, 6, "int64"), (1.0, 2.0, 1, "float64"),
    (1.0, 2.0, 0, "float32")])
def test_linspace(start, stop, num, dtype):
    """The fed Num is folded into the plan (an output of num values); the values against
    numpy's linspace (ints truncated as numpy's astype), the C plan against the reference."""
    program = fluid.Program()
    with fluid.program_guard(program, fluid.Program()):
        num_var = fluid.data("num", [1], "int32")
        out = fluid.layers.linspace(start, stop, num_var, dtype=dtype)
    feed = {"num": np.array([num], np.int32)}
    got = run_c(program, feed, [out.name])[0]
    want = np.linspace(start, stop, num).astype(dtype)
    assert got.dtype == np.dtype(dtype) and got.shape == (num,)
    np.testing.assert_allclose(got, want, rtol=1e-6 if dtype == "float32" else 1e-12)
    np.testing.assert_array_equal(got, run_reference(program, feed, [out.name])[0])
    with pytest.raises(OpError, match="Num must be >= 0"):
        run_c(program, {"num": np.array([-1], np.int32)}, [out.name])


def test_linspace_float32_as_paddle():
    """float32 steps and values in float32, as Paddle 3.3.1's kernel: its output for 0..1 in 7
    (the 5th value 1 - 2 * float32(1/6) rounds to 0.66666663, not float64's 0.66666669)."""
    program = fluid.Program()
    with fluid.program_guard(program, fluid.Program()):
        out = fluid.layers.linspace(0.0, 1.0, 7, dtype="float32")
    got = run_c(program, {}, [out.name])[0]
    paddle_3_3_1 = [0.0, 0.1666666716337204, 0.3333333432674408, 0.5, 0.6666666269302368,
                    0.8333333134651184, 1.0]
    np.testing.assert_array_equal(got, np.array(paddle_3_3_1, np.float32))


@pytest.mark.parametrize("start, end, step, dtype", [
    (0.1, 10.0, 0.2, "float32"), (10.0, 1.0, -0.3, "float64"), (-1, -10, -2, "int64"),
    (0, 7, 3, "int32"), (0, 3, -1, "int64"), (1.5, 1.5, 1.0, "float32")])
def test_range(start, end, step, dtype):
    """A fed Start is folded into the plan; the values as Paddle's kernel makes them (each the
    previous plus step, in dtype: float32 drifts from numpy's arange, to 4.8e-6 at 9.9), the C
    plan against the reference; a fed step of 0 is refused."""
    program = fluid.Program()
    with fluid.program_guard(program, fluid.Program()):
        start_var = fluid.data("start", [1], dtype)
        out = fluid.layers.range(start_var, end, step, dtype)
    feed = {"start": np.array([start], dtype)}
    got = run_c(program, feed, [out.name])[0]
    t = np.dtype(dtype).type
    want, v = [], t(start)
    while (v < t(end)) if step > 0 else (v > t(end)):
        want.append(v)
        v = t(v + t(step))
    assert got.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(got, np.array(want, dtype))
    np.testing.assert_array_equal(got, run_reference(program, feed, [out.name])[0])
    with fluid.program_guard(program, fluid.Program()):
        zero = fluid.layers.range(start_var, end, fluid.data("step", [1], dtype), dtype)
    with pytest.raises(OpError, match="Step must not be 0"):
        run_c(program, {**feed, "step": np.zeros(1, dtype)}, [zero.name])


# --- through the C executor, with backward -----------------------------------------------------

def test_shape_ops_program_with_backward():
    """A program of the shape ops and their grads: the C executor agrees with the reference."""
    L = fluid.layers
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = fluid.layers.data("x", [-1, 4, 6])
        x.stop_gradient = False
        idx = fluid.layers.data("idx", [3], dtype="int64", append_batch_size=False)
        a, b = L.split(x, [2, -1], dim=1)
        s = L.stack([L.squeeze(L.slice(a, [1], [0], [1]), [1]),
                     L.squeeze(L.slice(b, [1], [1], [2]), [1])], axis=1)
        g = L.gather(L.flatten(L.unsqueeze(s, [0]), 3), idx)
        e = L.expand_v2(L.unsqueeze(g, [1]), [-1, 3, -1])
        h = L.clip(L.hard_swish(e), -0.2, 2.0)
        loss = L.mean(h)
        append_backward(loss)
    fetch = [h.name, x.name + "@GRAD"]
    feed = {"x": RNG.standard_normal((2, 4, 6)).astype(np.float32),
            "idx": np.array([0, 2, 2], np.int64)}
    got = run_c(main, feed, fetch)
    want = run_reference(main, feed, fetch)
    for g, w, n in zip(got, want, fetch):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6, err_msg=n)
    assert np.abs(got[1]).sum() > 0


# --- reshape2's shape inputs (Shape, ShapeTensor) ----------------------------------------------

def _fed_reshape(shape_arg):
    """x [2, 3, 4] reshaped to a target given through `shape_arg(data vars)`, with x's grad."""
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = fluid.data("x", [2, 3, 4], "float64")
        x.stop_gradient = False
        out = fluid.reshape(x, shape_arg())
        loss = fluid.layers.reduce_sum(out * out)
        append_backward(loss)
    return main, out, main.global_block().var(x.name + "@GRAD")


def test_reshape_to_a_fed_shape_plans_per_value():
    main, out, dx = _fed_reshape(lambda: fluid.data("s", [3], "int32"))
    op = next(o for o in main.global_block().ops if o.type == "reshape2")
    assert op.input("Shape") == ["s"] and tuple(out.shape) == (-1, -1, -1)
    exe = fluid.Executor(fluid.CPUPlace())
    x = np.arange(24, dtype=np.float64).reshape(2, 3, 4)
    for target in ([4, 3, 2], [6, -1, 2], [4, 3, 2], [0, 12, 1]):
        got, g = exe.run(main, feed={"x": x, "s": np.array(target, np.int32)},
                         fetch_list=[out, dx])
        np.testing.assert_array_equal(got, x.reshape([2 if d == 0 else d for d in target]))
        np.testing.assert_array_equal(g, 2 * x)  # d sum(out^2) / dx, whatever the target
    assert len(exe._plans) == 3  # one plan per distinct target, the repeat a cache hit
    with pytest.raises(ShapeError, match="reshape"):
        exe.run(main, feed={"x": x, "s": np.array([5, 5, 1], np.int32)}, fetch_list=[out])


def test_reshape_to_a_list_with_a_fed_dim_and_the_reference():
    main, out, _ = _fed_reshape(lambda: [fluid.data("d", [1], "int64"), -1, 3])
    op = next(o for o in main.global_block().ops if o.type == "reshape2")
    assert len(op.input("ShapeTensor")) == 3 and op.attr("shape") == [-1, -1, 3]
    x = np.arange(24, dtype=np.float64).reshape(2, 3, 4)
    got = fluid.Executor(fluid.CPUPlace()).run(
        main, feed={"x": x, "d": np.array([4], np.int64)}, fetch_list=[out])[0]
    np.testing.assert_array_equal(got, x.reshape(4, 2, 3))
    d = get_op_def("reshape2")
    ref = d.reference({"X": [x], "ShapeTensor": [np.array([2]), np.array([12]), np.array([1])]},
                      d.complete_attrs({"shape": [-1, -1, 3]}))["Out"][0]
    np.testing.assert_array_equal(ref, x.reshape(2, 12, 1))


def test_reshape_to_a_computed_shape_names_the_var():
    main, out, _ = _fed_reshape(lambda: fluid.layers.cast(  # a cast alone folds, keyed on f
        fluid.layers.scale(fluid.data("f", [3], "float32"), 2.0), "int32"))
    with pytest.raises(OpError, match="must be fed"):
        fluid.Executor(fluid.CPUPlace()).run(
            main, feed={"x": np.zeros((2, 3, 4)), "f": np.array([4, 3, 2], np.float32)},
            fetch_list=[out])


def test_ordinary_programs_never_read_feed_values_for_plans():
    main, out, _ = _fed_reshape(lambda: [4, 6])
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(main, feed={"x": np.zeros((2, 3, 4))}, fetch_list=[out])
    assert exe._shape_feeds == {}


def test_gather_along_a_fed_axis():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        xv = fluid.data("x", [3, 4, 5], "float64")
        out = fluid.gather(xv, fluid.data("i", [2], "int64"), axis=fluid.data("a", [1], "int32"))
        with pytest.raises(TypeError, match="'index'"):
            fluid.gather(xv, fluid.data("f", [2], "float32"))
    assert tuple(out.shape) == (-1, -1, -1)
    exe = fluid.Executor(fluid.CPUPlace())
    x = np.arange(60, dtype=np.float64).reshape(3, 4, 5)
    idx = np.array([2, -1])
    for axis in (0, 2, -2):
        got = exe.run(main, feed={"x": x, "i": idx, "a": np.array([axis], np.int32)},
                      fetch_list=[out])[0]
        np.testing.assert_array_equal(got, np.take(x, idx, axis=axis))
