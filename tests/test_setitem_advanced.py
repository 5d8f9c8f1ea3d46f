"""x[index] = value with int-list / int-array / int-tensor (advanced) indices, as Paddle 3.3.1
writes it (index_put between transposes, set_value for the basic part): random indices and
values match numpy's assignment in dygraph, and on the reference executor and compiled for
static programs, with the gradients numpy's chain rule gives; index_put itself (accumulate
too) matches numpy."""
import numpy as np
import pytest

import fluidc as paddle

from test_random_control_flow import assert_reference_and_compiled_give

# (x shape, index, value shape or None for a number): ints, slices, Ellipsis and int lists /
# arrays, adjacent (numpy keeps the index dims in place) and apart (they go in front)
CASES = [
    ((2, 3, 4), ([0, 1], 1), None),
    ((2, 3, 4), ([1, 0], 1), (4,)),
    ((2, 3, 4), (slice(None), [0, 2]), (2, 2, 4)),
    ((2, 3, 4), (slice(None), [2, 0], 1), (2, 2)),
    ((2, 3, 4), (1, slice(None), [0, 3]), (2, 3)),
    ((2, 3, 4), ([1, 0], slice(None), [3, 2]), (1, 3)),
    ((2, 3, 4), (Ellipsis, [[0, 1], [2, 3]]), (3, 2, 2)),
    ((2, 3, 4), ([-1], slice(0, 2), [3]), (1, 2)),
    ((2, 3, 4), (slice(None, None, -1), [0, 2], slice(1, 4, 2)), (2, 1, 2)),
    ((5, 3), (np.array([4, 0, 2]),), (3, 1)),
    ((4, 5), ([0, 3], [4, 1]), (1,)),
    ((3, 4, 5), ([[0], [2]], slice(None), [1, 4, 0]), (2, 3, 4)),
]


def _value(rng, vshape, dtype):
    if vshape is None:
        return 10
    v = rng.standard_normal(vshape) * 4
    return v.astype(dtype) if np.dtype(dtype).kind != "c" else (v + 1j * v[..., ::-1]).astype(dtype)


@pytest.mark.parametrize("dtype", ["float32", "int64", "complex128"])
def test_dygraph_writes_match_numpy(dtype):
    rng = np.random.default_rng(1)
    paddle.disable_static()
    try:
        for shape, index, vshape in CASES:
            x0 = (rng.standard_normal(shape) * 4).astype(dtype)
            v0 = _value(rng, vshape, dtype)
            want = x0.copy()
            want[index] = v0
            for value in (v0, paddle.to_tensor(v0) if vshape else v0):
                x = paddle.to_tensor(x0)
                x[index] = value
                np.testing.assert_array_equal(x.numpy(), want, err_msg=f"{index} {dtype}")
    finally:
        paddle.enable_static()


def _random_case(rng):
    """(shape, index, value shape): 1 to 3 int lists / arrays (one broadcast shape) among ints
    and slices, at random places; the value of numpy's region shape, some dims 1 or dropped."""
    shape = tuple(int(d) for d in rng.integers(1, 5, size=rng.integers(1, 5)))
    n = len(shape)
    kinds = rng.choice(["list", "int", "slice"], size=n, p=[0.4, 0.25, 0.35])
    if "list" not in kinds:
        kinds[rng.integers(n)] = "list"
    ishape = tuple(int(d) for d in rng.integers(1, 4, size=rng.integers(1, 3)))
    index = []
    for d, kind in zip(shape, kinds):
        if kind == "list":
            dims = ishape[-rng.integers(1, len(ishape) + 1):]  # broadcasts with the others
            index.append(rng.integers(-d, d, size=dims).tolist())
        elif kind == "int":
            index.append(int(rng.integers(-d, d)))
        else:
            start, stop = sorted(int(v) for v in rng.integers(-d, d + 1, size=2))
            index.append(slice(start, stop, int(rng.choice([1, 2]))) if rng.random() < 0.5
                         else slice(None, None, -1))
    index = tuple(index[:rng.integers(list(kinds).index("list") + 1, n + 1)])
    region = np.zeros(shape)[index].shape
    vshape = tuple(1 if rng.random() < 0.25 else k for k in region)
    return shape, index, vshape[rng.integers(0, len(vshape) + 1):]


def test_random_indices_match_numpy_in_dygraph_and_compiled():
    rng = np.random.default_rng(5)
    for _ in range(30):
        shape, index, vshape = _random_case(rng)
        x0, v0 = rng.standard_normal(shape), rng.standard_normal(vshape)
        want = x0.copy()
        want[index] = v0
        program = paddle.static.Program()
        with paddle.static.program_guard(program, paddle.static.Program()):
            x = paddle.static.data("x", list(shape), "float64")
            v = paddle.static.data("v", list(vshape), "float64")
            y = paddle.static.setitem(x, index, v)
        assert_reference_and_compiled_give(program, {"x": x0, "v": v0}, [y.name], [want],
                                           rtol=0, atol=0)
        paddle.disable_static()
        try:
            t = paddle.to_tensor(x0)
            t[index] = paddle.to_tensor(v0)
            np.testing.assert_array_equal(t.numpy(), want, err_msg=f"{index} (dygraph)")
        finally:
            paddle.enable_static()


def _grads_by_numpy(x0, index, v0, w):
    """d mean(y * w) / dx and / dv for y = x with y[index] = v (v broadcast)."""
    dy = w / w.size
    dx = dy.copy()
    dx[index] = 0
    dv = dy[index]
    lead = dv.ndim - v0.ndim
    dv = dv.sum(axis=tuple(range(lead)))
    ones = tuple(k for k, n in enumerate(v0.shape) if n == 1)
    return dx, dv.sum(axis=ones, keepdims=True) if ones else dv


@pytest.mark.parametrize("case", [c for c in CASES if c[2] is not None and len(c[2]) > 0])
def test_static_values_and_gradients_match_numpy(case):
    shape, index, vshape = case
    rng = np.random.default_rng(2)
    x0 = rng.standard_normal(shape).astype("float64")
    v0 = rng.standard_normal(vshape).astype("float64")
    w0 = rng.standard_normal(shape).astype("float64")
    want = x0.copy()
    want[index] = v0
    program = paddle.static.Program()
    with paddle.static.program_guard(program, paddle.static.Program()):
        x = paddle.static.data("x", list(shape), "float64")
        v = paddle.static.data("v", list(vshape), "float64")
        w = paddle.static.data("w", list(shape), "float64")
        x.stop_gradient = v.stop_gradient = False
        y = paddle.static.setitem(paddle.scale(x, 1.0), index, v)
        paddle.static.append_backward(paddle.mean(y * w))
    dx, dv = _grads_by_numpy(x0, index, v0, w0)
    assert_reference_and_compiled_give(program, {"x": x0, "v": v0, "w": w0},
                                       [y.name, "x@GRAD", "v@GRAD"], [want, dx, dv],
                                       rtol=1e-12, atol=1e-15)


def test_dygraph_gradients_match_numpy():
    rng = np.random.default_rng(3)
    paddle.disable_static()
    try:
        for shape, index, vshape in CASES:
            if not vshape:
                continue
            x0, v0, w0 = (rng.standard_normal(s) for s in (shape, vshape, shape))
            x, v = paddle.to_tensor(x0), paddle.to_tensor(v0)
            x.stop_gradient = v.stop_gradient = False
            y = paddle.scale(x, 1.0)
            y[index] = v
            paddle.mean(y * paddle.to_tensor(w0)).backward()
            dx, dv = _grads_by_numpy(x0, index, v0, w0)
            np.testing.assert_allclose(x.grad.numpy(), dx, rtol=1e-12, err_msg=str(index))
            np.testing.assert_allclose(v.grad.numpy(), dv, rtol=1e-12, err_msg=str(index))
    finally:
        paddle.enable_static()


@pytest.mark.parametrize("accumulate", [False, True])
def test_index_put_matches_numpy(accumulate):
    rng = np.random.default_rng(4)
    x0 = rng.standard_normal((6, 3, 2)).astype("float32")
    i0 = rng.integers(-6, 6, size=(4, 1)).astype("int64")
    j0 = rng.integers(0, 3, size=(5,)).astype("int32")
    v0 = rng.standard_normal((5, 2)).astype("float32")
    want = x0.copy()
    if accumulate:  # a repeated position adds each time
        np.add.at(want, (i0, j0), np.broadcast_to(v0, (4, 5, 2)))
    else:
        want[i0, j0] = v0
    program = paddle.static.Program()
    with paddle.static.program_guard(program, paddle.static.Program()):
        x, i, j, v = (paddle.static.data(n, list(a.shape), str(a.dtype))
                      for n, a in (("x", x0), ("i", i0), ("j", j0), ("v", v0)))
        block = program.current_block()
        out = block.create_var(name="out", dtype=x.dtype)
        block.append_op("index_put", inputs={"x": [x], "indices": [i, j], "value": [v]},
                        outputs={"out": [out]}, attrs={"accumulate": accumulate})
    assert_reference_and_compiled_give(program, {"x": x0, "i": i0, "j": j0, "v": v0},
                                       ["out"], [want], rtol=1e-6, atol=1e-6)


def test_bad_indices_and_values_are_named():
    paddle.disable_static()
    try:
        x = paddle.zeros([2, 3])
        with pytest.raises(IndexError, match="index 5 is out of range for dim 1 of size 3"):
            x[[0, 1], [1, 5]] = 1.0
        with pytest.raises(ValueError, match=r"value of shape \[3\] cannot be broadcast"):
            x[[0, 1], 1:] = paddle.ones([3])
        with pytest.raises(IndexError, match="mixed with None"):
            x[[0, 1], None] = 1.0
        x[2:, [0, 1]] = paddle.ones([2])  # an empty region: nothing written, as numpy
        with pytest.raises(ValueError, match="cannot be broadcast"):
            x[2:, [0, 1]] = paddle.ones([3])
        assert (x.numpy() == 0).all()
    finally:
        paddle.enable_static()
