"""Small 1.x / 2.x API items from Paddle-fidelity checks, against numpy, with their argument
checks: fluid.layers.mse_loss (Paddle 1.x: reduce_mean of square_error_cost) and
paddle.strided_slice."""
import numpy as np
import pytest

import fluidc as fluid


def test_layers_mse_loss_is_the_mean_square_error():
    rng = np.random.default_rng(0)
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = fluid.data("x", [-1, 3], "float64")
        y = fluid.data("y", [-1, 3], "float64")
        loss = fluid.layers.mse_loss(x, y)
    assert [op.type for op in main.global_block().ops] == ["elementwise_sub", "square",
                                                           "reduce_mean"]
    feed = {"x": rng.standard_normal((4, 3)), "y": rng.standard_normal((4, 3))}
    (got,) = fluid.Executor(fluid.CPUPlace()).run(main, feed=feed, fetch_list=[loss])
    np.testing.assert_allclose(got, np.mean((feed["x"] - feed["y"]) ** 2), rtol=1e-14)


def test_layers_mse_loss_refuses_integer_inputs():
    with fluid.program_guard(fluid.Program(), fluid.Program()):
        x = fluid.data("x", [-1, 3], "float32")
        with pytest.raises(TypeError, match="label.*mse_loss"):
            fluid.layers.mse_loss(x, fluid.data("y", [-1, 3], "int64"))


@pytest.mark.parametrize("seed", range(12))
def test_paddle_strided_slice_matches_numpy(seed):
    """paddle.strided_slice over random axes, bounds (negative, past the ends) and strides
    (negative too): fused, unfused and reference against numpy's slicing."""
    import fluidc as paddle
    from op_harness import run_reference
    rng = np.random.default_rng(seed)
    shape = [int(d) for d in rng.integers(1, 7, int(rng.integers(1, 4)))]
    axes = sorted(rng.choice(len(shape), int(rng.integers(1, len(shape) + 1)), replace=False))
    starts, ends, strides, index = [], [], [], [slice(None)] * len(shape)
    for ax in axes:
        step = int(rng.choice([-3, -2, -1, 1, 2, 3]))
        lo, hi = (int(v) for v in rng.integers(-shape[ax] - 2, shape[ax] + 3, 2))
        starts.append(lo)
        ends.append(hi)
        strides.append(step)
        index[ax] = slice(lo, hi, step)
    x = rng.standard_normal(shape).astype("float32")
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        out = paddle.strided_slice(paddle.static.data("x", shape, "float32"), axes=list(axes),
                                   starts=starts, ends=ends, strides=strides)
    want = x[tuple(index)]
    plain = paddle.static.BuildStrategy()
    plain.fuse_all = False
    exe = paddle.static.Executor(paddle.CPUPlace())
    for which, got in (("fused", exe.run(main, feed={"x": x}, fetch_list=[out])[0]),
                       ("unfused", exe.run(paddle.static.CompiledProgram(
                           main, build_strategy=plain), feed={"x": x}, fetch_list=[out])[0]),
                       ("reference", run_reference(main, {"x": x}, [out.name])[0])):
        np.testing.assert_array_equal(got, want, err_msg=f"{which} {axes} {index}")


def test_paddle_strided_slice_argument_errors():
    import fluidc as paddle
    with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):
        x = paddle.static.data("x", [3, 4], "float32")
        with pytest.raises(ValueError, match="one value per axis"):
            paddle.strided_slice(x, axes=[0, 1], starts=[0], ends=[1], strides=[1])
        with pytest.raises(TypeError, match="strides"):
            paddle.strided_slice(x, axes=[0], starts=[0], ends=[1], strides=1)
