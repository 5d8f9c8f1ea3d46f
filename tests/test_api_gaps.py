"""The 2.x API pieces Paddle's own tests need: argument checks with Paddle's exception types,
paddle.t / moveaxis / rand / randn / reshape_ / softmax_, Variable indexing (slice and
strided_slice, against numpy's indexing), int Variables fixed by the program as axis / shape,
complex data through shape ops, save_inference_model's diagnostics, LoD validation and the
multiprocess reader's error type."""
import os
import warnings

import numpy as np
import pytest

import fluidc as paddle
from fluidc.frontend.errors import FluidcError, ShapeError
from fluidc.frontend.layers.helper import ArgumentTypeError

from ref_harness import check_grad, check_run, infer

F = paddle.nn.functional
RNG = np.random.default_rng(7)


def _run(outs, feed=None):
    exe = paddle.static.Executor(paddle.CPUPlace())
    exe.run(paddle.static.default_startup_program())
    return exe.run(feed=feed or {}, fetch_list=outs)


# --- argument checks ---------------------------------------------------------------------------

@pytest.mark.parametrize("call,match", [
    (lambda x: paddle.concat([np.ones(3)]), r"'input\[0\]' in concat must be Variable.*ndarray"),
    (lambda x: paddle.concat([x, paddle.cast(x, "float64")]), "same data type"),
    (lambda x: paddle.concat([paddle.cast(x, "uint8")]), r"'input\[0\]' in concat.*uint8"),
    (lambda x: paddle.concat([x], 1.5), "'axis' in concat must be"),
    (lambda x: paddle.reshape("x", [4]), "'x' in reshape must be Variable, but received str"),
    (lambda x: paddle.reshape(x, 4), "'shape' in reshape must be"),
    (lambda x: paddle.transpose([1.0], [0]), "'x' in transpose"),
    (lambda x: paddle.transpose(x, "10"), "'perm' in transpose"),
    (lambda x: F.softmax(3), "'x' in softmax must be Variable, but received int"),
    (lambda x: F.softmax(paddle.cast(x, "int32")), r"'x' in softmax.*\['float16'.*int32"),
    (lambda x: F.mse_loss([1.0], x), "'input' in mse_loss"),
    (lambda x: F.mse_loss(x, paddle.cast(x, "int64")), "'label' in mse_loss.*int64"),
    (lambda x: paddle.rand([2], "int32"), "'dtype' in rand"),
    (lambda x: paddle.randn("3"), "'shape' in randn"),  # an int n is the shape [n]
])
def test_bad_arguments_raise_type_errors_naming_them(call, match):
    x = paddle.static.data("x", [2, 3], "float32")
    with pytest.raises(ArgumentTypeError, match=match) as e:
        call(x)
    assert isinstance(e.value, TypeError) and isinstance(e.value, FluidcError)


def test_reshape_and_transpose_shape_rules():
    x = paddle.static.data("x", [2, 6], "float32")
    for shape in ([-1, -1], [2, 3, 2, 0], [-2, 6]):  # Paddle asserts these
        with pytest.raises(AssertionError, match="reshape2"):
            paddle.reshape(x, shape)
    with pytest.raises(ShapeError):  # and a ShapeError, as every bad shape in fluidc
        paddle.reshape(x, [-1, -1])
    for perm in ([1, 0, 2], [0, 2]):
        with pytest.raises(ValueError, match="perm"):
            paddle.transpose(x, perm)


def test_means_of_1x_2x_and_the_mean_op():
    """fluid.layers.mean keeps 1.x's [1] (1.x code indexes it); paddle.mean is 0-d; the `mean`
    op, as Paddle 3.3.1 runs it in a program it loads (even one declaring [1]), is 0-d; all
    three give the same value and the same gradient."""
    main = paddle.static.Program()
    with paddle.static.program_guard(main, paddle.static.Program()):
        x = paddle.static.data("x", [4, 3], "float64")
        x.stop_gradient = False
        old = paddle.layers.mean(x)  # the same module is 1.x fluid
        new = paddle.mean(x)
        raw = main.global_block().create_var(name="raw_mean", shape=[1], dtype="float64")
        main.global_block().append_op("mean", {"X": [x]}, {"Out": [raw]})
        grads = [paddle.static.gradients([y], [x])[0] for y in (old, new, raw)]
    assert old.name.startswith("mean_") and [op.type for op in main.global_block().ops][:3] \
        == ["reduce_mean", "reduce_mean", "mean"]
    value = RNG.standard_normal((4, 3))
    got = paddle.static.Executor(paddle.CPUPlace()).run(main, feed={"x": value},
                                                         fetch_list=[old, new, raw] + grads)
    assert [g.shape for g in got[:3]] == [(1,), (), ()]
    for g in got[:3]:
        np.testing.assert_allclose(g.reshape(-1), [value.mean()], rtol=1e-15)
    for g in got[3:]:
        np.testing.assert_array_equal(g, np.full((4, 3), 1 / 12))


def test_concat_takes_a_lone_variable():
    x = paddle.static.data("x", [2, 3], "int64")
    out = paddle.concat(x)
    a = np.arange(6).reshape(2, 3)
    np.testing.assert_array_equal(_run([out], {"x": a})[0], a)


def test_backward_argument_types():
    x = paddle.static.data("x", [2, 3], "float32")
    x.stop_gradient = False
    loss = paddle.mean(paddle.static.nn.fc(x, 2))
    with pytest.raises(TypeError, match=r"parameter_list\[1\]"):
        paddle.static.append_backward(loss, parameter_list=[loss, 3])
    with pytest.raises(TypeError, match="no_grad_set"):
        paddle.static.append_backward(loss, no_grad_set="fc_0.w_0")
    with pytest.raises(TypeError, match="no_grad_set"):
        paddle.static.gradients([loss], [x], no_grad_set=x)


# --- new layers ---------------------------------------------------------------------------------

def test_t_moveaxis_and_in_place_spellings():
    x = paddle.static.data("x", [2, 3, 4], "float64")
    m = paddle.static.data("m", [3, 5], "float64")
    v = paddle.static.data("v", [5], "float64")
    with pytest.warns(UserWarning, match="reshape_"):
        r = paddle.reshape_(x, [4, 6])
    with pytest.warns(UserWarning, match="softmax_"):
        s = F.softmax_(x)
    outs = [paddle.t(m), paddle.t(v), paddle.moveaxis(x, [0, 2], [2, 0]), x.moveaxis(-1, 0),
            m.t(), r, s]
    assert paddle.t(v) is v
    a, b, c = RNG.random((2, 3, 4)), RNG.random((3, 5)), RNG.random(5)
    got = _run(outs, {"x": a, "m": b, "v": c})
    e = np.exp(a - a.max(-1, keepdims=True))
    want = [b.T, c, np.moveaxis(a, [0, 2], [2, 0]), np.moveaxis(a, -1, 0), b.T, a.reshape(4, 6),
            e / e.sum(-1, keepdims=True)]
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-12)
    with pytest.raises(ValueError, match="at most 2"):
        paddle.t(x)
    for src, dst, err in (([0, 1], [2], AssertionError), ([1, 1], [0, 2], ValueError),
                          ([0], [1.5], AssertionError), ([-4], [0], AssertionError)):
        with pytest.raises(err):
            paddle.moveaxis(x, src, dst)


def test_rand_and_randn_draw_their_distributions():
    u, n, z = paddle.rand([4000]), paddle.randn([4000], "float64"), paddle.rand([])
    assert tuple(z.shape) == () and n.dtype == paddle.float64
    a, b, c = _run([u, n, z])
    assert c.shape == () and 0 <= c < 1
    assert a.min() >= 0 and a.max() < 1 and abs(a.mean() - 0.5) < 0.03
    assert abs(b.mean()) < 0.08 and abs(b.std() - 1) < 0.05


# --- indexing -----------------------------------------------------------------------------------

INDICES = [0, -1, (1, 2, 3), np.s_[::2], np.s_[..., 1], np.s_[None, 1, 1::-1], np.s_[-1::-2],
           np.s_[1:3, None, ...], np.s_[:, None, 0], np.s_[1, :, None, 0], np.s_[5:-1:-1],
           np.s_[-100:100:2, ::-1], np.s_[...], np.s_[2:2], np.s_[..., None], np.s_[::-3, 1:4:2]]


@pytest.mark.parametrize("index", INDICES, ids=repr)
def test_getitem_matches_numpy(index):
    a = RNG.random((4, 5, 6)).astype("float32")
    x = paddle.static.data("x", [4, 5, 6], "float32")
    out = x[index]
    assert tuple(out.shape) == a[index].shape
    got = _run([out], {"x": a})[0]
    assert got.shape == a[index].shape
    np.testing.assert_array_equal(got, a[index])


def test_getitem_appends_paddles_ops_and_rejects_what_it_cannot_index():
    x = paddle.static.data("x", [4, 5], "float32")
    x[1:3, None]
    x[::2]
    assert [op.type for op in x.block.ops] == ["slice", "unsqueeze2", "strided_slice"]
    assert x.block.ops[2].attr("strides") == [2]
    with pytest.raises(IndexError, match="out of range"):
        x[4]
    with pytest.raises(IndexError, match="too many"):
        x[0, 0, 0]
    with pytest.raises(IndexError, match="single ellipsis"):
        x[..., ...]
    with pytest.raises(IndexError, match="ints, slices"):
        x[[0, 1]]


def test_getitem_gradient_flows_to_the_picked_elements():
    x = paddle.static.data("x", [4, 3], "float32")
    x.stop_gradient = False
    loss = paddle.sum(x[::-2, 1] * 3.0) + paddle.sum(x[0])
    (gx,) = paddle.static.gradients([loss], [x])
    want = np.zeros((4, 3), "float32")
    want[[3, 1], 1] += 3.0
    want[0] += 1.0
    np.testing.assert_array_equal(_run([gx], {"x": np.ones((4, 3), "float32")})[0], want)


STRIDED = [
    ({"axes": [0], "starts": [-1], "ends": [-2 ** 31], "strides": [-2]}, np.s_[::-2]),
    ({"axes": [1, 2], "starts": [1, 0], "ends": [2 ** 31 - 1, 5], "strides": [2, 3]},
     np.s_[:, 1::2, 0:5:3]),
    ({"axes": [2], "starts": [4], "ends": [1], "strides": [1]}, np.s_[:, :, 4:1]),
    ({"axes": [1], "starts": [2], "ends": [3], "strides": [1], "decrease_axis": [1]},
     np.s_[:, 2]),
    ({"axes": [0, 1, 2], "starts": [2, 3, -1], "ends": [3, 2, -2 ** 31], "strides": [1, -1, -5],
      "decrease_axis": [0, 1, 2]}, np.s_[2, 3, 4]),
]


@pytest.mark.parametrize("attrs,index", STRIDED)
def test_strided_slice_op_against_numpy(attrs, index):
    x = RNG.standard_normal((3, 4, 5))
    want = x[index]
    assert infer("strided_slice", {"Input": [((3, 4, 5), 6)]}, attrs)["Out"][0].shape == want.shape
    np.testing.assert_array_equal(check_run("strided_slice", {"Input": [x]}, attrs)["Out"][0],
                                  want)
    if want.size:
        check_grad("strided_slice", {"Input": x}, attrs, ["Input"])


def test_strided_slice_unknown_dims_and_errors():
    attrs = {"axes": [0, 1], "starts": [0, 0], "ends": [5, 5], "strides": [2, 2]}
    assert infer("strided_slice", {"Input": [((-1, 8), 5)]}, attrs)["Out"][0].shape == (-1, 3)
    with pytest.raises(ShapeError, match="0"):
        infer("strided_slice", {"Input": [((4, 8), 5)]}, {**attrs, "strides": [1, 0]})
    with pytest.raises(ShapeError, match="decrease_axis"):
        infer("strided_slice", {"Input": [((4, 8), 5)]}, {**attrs, "decrease_axis": [0]})


# --- Variables as axis and shape ----------------------------------------------------------------

def test_program_fixed_int_variables_as_axis_and_shape():
    x = paddle.static.data("x", [2, 3], "float32")
    y = paddle.static.data("y", [2, 4], "float32")
    twenty, axis = paddle.full([1], 20, "int32"), paddle.full([1], -1, "int64")
    outs = [paddle.concat([x, y], axis=axis), paddle.reshape(y, [paddle.full([1], 4, "int64"), 2]),
            paddle.reshape(paddle.concat([x, y], 1), [2, paddle.full([], 7, "int32")]),
            paddle.reshape(paddle.concat([x, x, y], 1), [-1, twenty]),
            paddle.reshape(y, paddle.full([1], 8, "int64"))]
    a, b = RNG.random((2, 3)).astype("float32"), RNG.random((2, 4)).astype("float32")
    got = _run(outs, {"x": a, "y": b})
    want = [np.concatenate([a, b], 1), b.reshape(4, 2), np.concatenate([a, b], 1),
            np.concatenate([a, a, b], 1).reshape(-1, 20), b.reshape(8)]
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)


def test_concat_takes_an_axis_given_at_run_time():
    """As in Paddle, concat(axis=<Variable>) reads the axis when the program runs (fluidc: when
    the plan is built, one plan per fed value)."""
    x = paddle.static.data("x", [2, 3], "float32")
    fed = paddle.static.data("axis", [1], "int32")
    out = paddle.concat([x, x], axis=fed)
    assert out.shape == (-1, -1)
    xv = RNG.random((2, 3)).astype("float32")
    for axis in (0, 1, 0):
        got, = _run([out], {"x": xv, "axis": np.array([axis], "int32")})
        np.testing.assert_array_equal(got, np.concatenate([xv, xv], axis=axis))
    with pytest.raises(TypeError, match="'axis' in concat.*float32"):
        paddle.concat([x, x], axis=paddle.full([1], 1, "float32"))
    two = paddle.concat([x, x], axis=paddle.full([2], 1, "int32"))
    with pytest.raises(ShapeError, match="AxisTensor must hold one value"):
        _run([two], {"x": xv})


# --- complex data -------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex_data_through_shape_ops(dtype):
    x = paddle.static.data("x", [2, 6], dtype)
    y = paddle.static.data("y", [2, 6], dtype)
    outs = [paddle.reshape(x, [3, 4]), paddle.transpose(x, [1, 0]), paddle.concat([x, y], 0),
            x[:, ::-2], paddle.moveaxis(x, 0, 1)]
    a = (RNG.random((2, 6)) + 1j * RNG.random((2, 6))).astype(dtype)
    b = (RNG.random((2, 6)) - 1j * RNG.random((2, 6))).astype(dtype)
    got = _run(outs, {"x": a, "y": b})
    for g, w in zip(got, [a.reshape(3, 4), a.T, np.concatenate([a, b]), a[:, ::-2], a.T]):
        assert g.dtype == w.dtype
        np.testing.assert_array_equal(g, w)
    # pointwise arithmetic computes (tests/test_float16_complex.py); other ops are refused by
    # the layer's dtype check or, past it, when the op is appended
    for refused in (lambda: paddle.abs(x), lambda: paddle.sum(x), lambda: paddle.maximum(x, y)):
        with pytest.raises(TypeError, match=rf"received {dtype}|is {dtype}; fluidc computes on "
                                            rf"complex data only in arithmetic"):
            refused()


# --- save_inference_model, LoD, multiprocess_reader ---------------------------------------------

def test_save_inference_model_diagnostics(tmp_path):
    x = paddle.static.data("x", [-1, 4], "float32")
    y = paddle.static.data("y", [-1, 4], "float32")
    z = paddle.static.nn.fc(x, 2)
    exe = paddle.static.Executor(paddle.CPUPlace())
    exe.run(paddle.static.default_startup_program())
    prefix = str(tmp_path / "m")
    with pytest.raises(ValueError, match="feeded_var_names\\[1\\]: 'y'.*not involved"):
        paddle.static.save_inference_model(prefix, [x, y], [z], exe)
    with pytest.raises(ValueError, match="'feed_vars' should be a Variable"):
        paddle.static.save_inference_model(prefix, ["x"], [z], exe)
    with pytest.raises(ValueError, match="'fetch_vars' should be a Variable"):
        paddle.static.save_inference_model(prefix, [x], z.name, exe)
    os.makedirs(prefix + "_dir.pdmodel")
    with pytest.raises(ValueError, match="existing directory"):
        paddle.static.save_inference_model(prefix + "_dir", [x], [z], exe)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        paddle.static.save_inference_model(prefix, [x], [z], exe)  # has parameters: no warning
    with pytest.warns(UserWarning, match="^no variable in your model"):
        paddle.static.save_inference_model(prefix + "_plain", x, [x * 2.0], exe)
    assert os.path.exists(prefix + "_plain.pdmodel")
    assert not os.path.exists(prefix + "_plain.pdiparams")


@pytest.mark.parametrize("lengths", [[[], [1], [3]], [[0], [2], [3]], [[2], [1, 1, 1]], [[-1, 2]]])
def test_invalid_lod_is_refused(lengths):
    t = paddle.LoDTensor()
    with pytest.raises(ValueError, match="not a valid LoD"):
        t.set_recursive_sequence_lengths(lengths)


def test_valid_lod_is_kept():
    t = paddle.LoDTensor()
    t.set_recursive_sequence_lengths([[2, 1], [1, 0, 3]])
    assert t.recursive_sequence_lengths() == [[2, 1], [1, 0, 3]]
    assert t.lod() == [[0, 2, 3], [0, 1, 1, 4]]


def _failing_reader():
    yield (np.zeros(2, "float32"),)
    raise KeyError("broken shard")


def test_multiprocess_reader_failure_is_a_system_error_through_a_dataloader():
    image = paddle.static.data("image", [None, 2], "float32")
    loader = paddle.io.DataLoader.from_generator(feed_list=[image], capacity=2, iterable=True)
    loader.set_sample_generator(paddle.reader.multiprocess_reader([_failing_reader]),
                                batch_size=1, places=paddle.cpu_places(1))
    with pytest.raises(SystemError, match="broken shard"):
        for _ in loader():
            pass
    with pytest.raises(ValueError, match="broken shard"):  # read directly, as Paddle
        list(paddle.reader.multiprocess_reader([_failing_reader])())


@pytest.mark.parametrize("dtype", ["bool", "int32", "int64", "float64"])
def test_python_numbers_promote_vars_as_paddle(dtype):
    """The dtypes and values Paddle 3.3.1 gives for x + 1.5, x * 2, 1.5 - x, x / 2, x + 1."""
    x = paddle.static.data("x", [2], dtype)
    outs = [x + 1.5, x * 2, 1.5 - x, x / 2, x + 1]
    exe = paddle.static.Executor(paddle.CPUPlace())
    got = exe.run(feed={"x": np.array([1, 0]).astype(dtype)}, fetch_list=outs)
    as_int = {"bool": "int64"}.get(dtype, dtype)
    as_float = "float64" if dtype == "float64" else "float32"
    want = [(as_float, [2.5, 1.5]), (as_int, [2, 0]), (as_float, [0.5, 1.5]),
            (as_float, [0.5, 0.0]), (as_int, [2, 1])]
    assert [(str(g.dtype), g.tolist()) for g in got] == want


def test_comparisons_logical_ops_and_increment_match_numpy():
    x = paddle.static.data("x", [3], "float32")
    y = paddle.static.data("y", [3], "float32")
    counter = paddle.full([1], 0, "int64")
    outs = [paddle.less_than(x, y), paddle.less_equal(x, y), paddle.greater_than(x, y),
            paddle.greater_equal(x, y), paddle.equal(x, y), paddle.not_equal(x, y),
            paddle.logical_not(paddle.less_than(x, y)),
            paddle.logical_and(paddle.less_equal(x, y), paddle.not_equal(x, y)),
            paddle.logical_or(paddle.less_than(x, y), paddle.equal(x, y)),
            paddle.increment(counter, 2.0)]
    assert outs[-1] is counter  # in place, as Paddle's
    xv, yv = np.array([1, 2, 3], "float32"), np.array([2, 2, 2], "float32")
    got = paddle.static.Executor(paddle.CPUPlace()).run(feed={"x": xv, "y": yv}, fetch_list=outs)
    want = [xv < yv, xv <= yv, xv > yv, xv >= yv, xv == yv, xv != yv, ~(xv < yv),
            (xv <= yv) & (xv != yv), (xv < yv) | (xv == yv), np.array([2])]
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)
    with pytest.raises(TypeError, match="less_than"):
        paddle.less_than(x, 1.0)


def test_dtypes_print_as_paddles():
    """Paddle 3.3.1 prints an element type as paddle.float32 (str, format), a var kind as
    VarType.X, and keeps the enum's repr and integer value (checked on Paddle 3.3.1)."""
    paddle.enable_static()
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [4, 3], "float32")
        i = paddle.cast(x, "int64")
    assert (str(x.dtype), f"{i.dtype}", repr(x.dtype), int(x.dtype)) == \
        ("paddle.float32", "paddle.int64", "<VarType.FP32: 5>", 5)
    assert str(paddle.bfloat16) == "paddle.bfloat16" and x.dtype == paddle.float32
    assert str(x.type) == "VarType.LOD_TENSOR"
    paddle.disable_static()
    assert str(paddle.to_tensor([1.0]).dtype) == "paddle.float32"
