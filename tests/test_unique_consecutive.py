"""unique_consecutive on random data, flattened and along each axis, against a plain loop over
the slices; and its refusals. (Paddle's own numbers: tests/test_averaging.py.)"""
import numpy as np
import pytest

import fluidc as paddle
from fluidc.frontend.errors import OpError

paddle.enable_static()


def _loop(x, axis):
    """Runs of equal consecutive slices, one slice at a time."""
    slices = list(x.reshape(-1)) if axis is None else list(np.moveaxis(x, axis, 0))
    out, index, counts = [], [], []
    for s in slices:
        if out and np.array_equal(out[-1], s):
            counts[-1] += 1
        else:
            out.append(s)
            counts.append(1)
        index.append(len(out) - 1)
    if axis is not None:
        return np.stack(out, axis), np.array(index), np.array(counts)
    return np.array(out, x.dtype), np.array(index), np.array(counts)


@pytest.mark.parametrize("seed", range(6))
def test_random_against_loop(seed):
    rng = np.random.default_rng(seed)
    shape = tuple(rng.integers(1, 5, rng.integers(1, 4)))
    dtype = ["float32", "float64", "int32", "int64"][seed % 4]
    x = rng.integers(0, 2, shape).astype(dtype)
    axes = [None] + list(range(-len(shape), len(shape)))
    main = paddle.static.Program()
    with paddle.static.program_guard(main, paddle.static.Program()):
        xv = paddle.static.data("x", list(shape), dtype)
        outs = [paddle.unique_consecutive(xv, True, True, axis=a) for a in axes]
    got = paddle.static.Executor(paddle.CPUPlace()).run(
        main, feed={"x": x}, fetch_list=[v for o in outs for v in o])
    for k, a in enumerate(axes):
        for g, w in zip(got[3 * k:3 * k + 3], _loop(x, a)):
            np.testing.assert_array_equal(g, w, err_msg=f"axis {a}")
        assert got[3 * k].dtype == x.dtype and got[3 * k + 1].dtype == np.int64


def test_refusals():
    with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):
        x = paddle.static.data("x", [4, 3], "float32")
        with pytest.raises(TypeError, match="dtype"):
            paddle.unique_consecutive(x, dtype="float32")
        with pytest.raises(TypeError, match="input"):
            paddle.unique_consecutive(paddle.static.data("b", [4], "bool"))
        with pytest.raises(OpError, match="axis"):
            paddle.unique_consecutive(x, axis=2)
        block = paddle.static.default_main_program().global_block()
        out = [block.create_var(name=n, dtype="float32") for n in ("o", "i", "c")]
        with pytest.raises(OpError, match="FP32 is not supported"):  # Paddle's default dtype
            block.append_op("unique_consecutive", inputs={"X": [x]},
                            outputs={"Out": [out[0]], "Index": [out[1]], "Counts": [out[2]]})
