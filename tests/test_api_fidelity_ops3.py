"""Per-op fidelity checked against Paddle 3.3.1's static (legacy) programs: one-value tensor
inputs (scale's ScaleTensor, clip's Min/Max, pow's FactorTensor) leave a 0-d X 0-d;
paddle.assign of a list mixing [1] Variables and numbers stacks them; an int64 shape tensor
of a creation op is cast to int32 (Paddle's program) and its fed values still shape each run."""
import numpy as np
import pytest

import fluidc as paddle
from fluidc.frontend.errors import ShapeError
from fluidc.frontend.layers.helper import ArgumentTypeError, ArgumentValueError

from op_harness import one_op_program, reference_op, run_c


def _run(main, feed, fetch):
    return paddle.static.Executor(paddle.CPUPlace()).run(main, feed=feed, fetch_list=fetch)


def test_scale_of_0d_by_a_one_value_tensor_stays_0d():
    main = paddle.static.Program()
    with paddle.static.program_guard(main, paddle.static.Program()):
        x = paddle.static.data("x", [], "float32")
        s = paddle.static.data("s", [1], "float32")
        y, z = paddle.scale(x, s, 1.0), paddle.scale(s, s, 1.0)
        assert y.shape == () and z.shape == (1,)
    got = _run(main, {"x": np.array(2.0, "float32"), "s": np.array([3.0], "float32")}, [y, z])
    assert got[0].shape == () and got[0] == 7.0  # Paddle 3.3.1: () 7.0 and (1,) [10.]
    np.testing.assert_array_equal(got[1], [10.0])


@pytest.mark.parametrize("op_type,ins", [
    ("scale", {"ScaleTensor": np.array([1.5])}),
    ("clip", {"Min": np.array([-0.25]), "Max": np.array([0.5])}),
    ("pow", {"FactorTensor": np.array([3.0])}),
])
@pytest.mark.parametrize("x_shape", [(), (1,), (3, 4)])
def test_one_value_inputs_keep_xs_shape(op_type, ins, x_shape):
    x = np.random.default_rng(1).uniform(0.1, 1, x_shape)
    program, feed, names, desc = one_op_program(op_type, {"X": x, **ins})
    (got,) = run_c(program, feed, [names["Out"]])
    want = reference_op(desc, feed)[names["Out"]]
    assert got.shape == want.shape == x_shape
    np.testing.assert_allclose(got, want, rtol=1e-12)


def test_one_value_inputs_must_hold_one_value():
    with pytest.raises(ShapeError, match="op 'scale': ScaleTensor must hold one value, got "
                                         "shape \\[3\\]"):
        one_op_program("scale", {"X": np.ones((2, 3)), "ScaleTensor": np.ones(3)})


def test_assign_stacks_one_value_variables_and_numbers():
    main = paddle.static.Program()
    with paddle.static.program_guard(main, paddle.static.Program()):
        v = paddle.static.data("v", [1], "float64")
        i = paddle.static.data("i", [1], "int64")
        a, b = paddle.assign([v, 2.0, 3.5]), paddle.assign((4, i, 5))
        assert [op.type for op in main.global_block().ops][-2:] == ["stack", "squeeze2"]
        with pytest.raises(ArgumentTypeError, match="with non-scalar variable"):
            paddle.assign([paddle.static.data("w", [2], "float64"), 1.0])
        with pytest.raises(ArgumentValueError, match="item 1 of the list \\(2\\) is int64, "
                                                     "item 0 \\('v'\\) float64"):
            paddle.assign([v, 2])
        with pytest.raises(ArgumentTypeError, match="received input == `object`"):
            paddle.assign([[v], [3]])
    got = _run(main, {"v": np.array([1.5]), "i": np.array([7])}, [a, b])
    np.testing.assert_array_equal(got[0], [1.5, 2.0, 3.5])  # Paddle: the same, float64
    np.testing.assert_array_equal(got[1], [4, 7, 5])
    assert got[0].dtype == np.float64 and got[1].dtype == np.int64


def test_int64_shape_tensors_are_cast_to_int32_and_fold_per_fed_value():
    main = paddle.static.Program()
    with paddle.static.program_guard(main, paddle.static.Program()):
        sh = paddle.static.data("sh", [2], "int64")
        n = paddle.static.data("n", [1], "int64")
        f = paddle.full(sh, 1.5)
        g = paddle.zeros([n, 3], "int32")
        h = paddle.full(paddle.full([2], 3, "int64"), 2.0)
    ops = main.global_block().ops
    casts = [op for op in ops if op.type == "cast"]
    assert len(casts) == 3 and all(op.desc.attrs["out_dtype"] == 2 for op in casts)
    exe = paddle.static.Executor(paddle.CPUPlace())
    for dims in ([2, 3], [4, 1], [2, 3]):
        got = exe.run(main, feed={"sh": np.array(dims, "int64"), "n": np.array([dims[0]])},
                      fetch_list=[f, g, h])
        assert got[0].shape == tuple(dims) and (got[0] == 1.5).all()
        assert got[1].shape == (dims[0], 3) and got[1].dtype == np.int32
        assert got[2].shape == (3, 3)
