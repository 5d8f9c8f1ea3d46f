"""Sequence ops over LoD feeds: values (the docs' examples and hand-computed ones), output LoD,
and gradients against central finite differences of the ops' numpy references."""
import numpy as np
import pytest

import fluidc as fluid
from fluidc.frontend.errors import ShapeError
from fluidc.frontend.ops import get_op_def
from fluidc.frontend.ops.registry import LOD_ATTR
from fluidc.runtime.lod import create_lod_tensor

L = fluid.layers


def _lt(data, lens):
    return create_lod_tensor(np.asarray(data), lens, fluid.CPUPlace())


def _run(fetch, feed, return_numpy=False):
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(fluid.default_startup_program())
    return exe.run(feed=feed, fetch_list=fetch, return_numpy=return_numpy)


X5 = np.array([[1., 2.], [3., -4.], [5., 6.], [-7., 8.], [9., 0.]], "float32")


@pytest.mark.parametrize("kind,want", [
    ("sum", [[4, -2], [0, 0], [7, 14]]),
    ("average", [[2, -1], [0, 0], [7 / 3, 14 / 3]]),
    ("sqrt", [[4 / 2 ** .5, -2 / 2 ** .5], [0, 0], [7 / 3 ** .5, 14 / 3 ** .5]]),
    ("max", [[3, 2], [0, 0], [9, 8]]),
    ("first", [[1, 2], [0, 0], [5, 6]]),
    ("last", [[3, -4], [0, 0], [9, 0]]),
])
def test_sequence_pool_values_with_an_empty_sequence(kind, want):
    x = L.data(name="x", shape=[2], dtype="float32", lod_level=1)
    out = L.sequence_pool(x, kind, pad_value=0.0)
    got, = _run([out], {"x": _lt(X5, [[2, 0, 3]])})
    np.testing.assert_allclose(np.array(got), np.array(want, "float32"), rtol=1e-6)
    assert got.lod() == []


def test_sequence_pool_pad_value_and_two_level_lod():
    x = L.data(name="x", shape=[1], dtype="float32", lod_level=2)
    out = L.sequence_pool(x, "sum", pad_value=-1.0)
    data = np.arange(6, dtype="float32").reshape(6, 1)
    got, = _run([out], {"x": _lt(data, [[2, 1], [1, 0, 5]])})
    assert np.array(got).ravel().tolist() == [0, -1, 15]
    assert got.lod() == [[0, 2, 3]]


def test_sequence_softmax_per_sequence():
    x = L.data(name="x", shape=[1], dtype="float32", lod_level=1)
    out = L.sequence_softmax(x)
    data = np.array([[1.], [2.], [3.], [0.], [0.]], "float32")
    got, = _run([out], {"x": _lt(data, [[3, 2]])})
    e = np.exp([1., 2., 3.])
    np.testing.assert_allclose(np.array(got).ravel(), list(e / e.sum()) + [.5, .5], rtol=1e-6)
    assert got.lod() == [[0, 3, 5]]


def test_sequence_expand_docs_case_1():
    x = L.data(name="x", shape=[1], dtype="float32", lod_level=1)
    y = L.data(name="y", shape=[1], dtype="float32", lod_level=2)
    out = L.sequence_expand(x, y, ref_level=0)
    xs = np.array([[1.], [2.], [3.], [4.]], "float32")  # a, b, c, d
    got, = _run([out], {"x": _lt(xs, [[2, 2]]), "y": _lt(np.zeros((8, 1), "float32"),
                                                         [[2, 2], [3, 3, 1, 1]])})
    assert np.array(got).ravel().tolist() == [1, 2, 1, 2, 3, 4, 3, 4]
    assert got.lod() == [[0, 2, 4, 6, 8]]


def test_sequence_expand_docs_case_2_x_without_lod():
    x = L.data(name="x", shape=[1], dtype="float32")
    y = L.data(name="y", shape=[1], dtype="float32", lod_level=1)
    out = L.sequence_expand(x, y)
    got, = _run([out], {"x": np.array([[1.], [2.], [3.]], "float32"),
                        "y": _lt(np.zeros((5, 1), "float32"), [[2, 0, 3]])})
    assert np.array(got).ravel().tolist() == [1, 1, 3, 3, 3]
    assert got.lod() == []  # Paddle's docs case 3: Out shares X's LoD, here none


def test_sequence_concat_joins_sequence_by_sequence():
    a = L.data(name="a", shape=[1], dtype="float32", lod_level=1)
    b = L.data(name="b", shape=[1], dtype="float32", lod_level=1)
    out = L.sequence_concat([a, b])
    got, = _run([out], {"a": _lt(np.array([[1.], [2.], [3.]], "float32"), [[1, 2]]),
                        "b": _lt(np.array([[10.], [20.], [30.]], "float32"), [[2, 1]])})
    assert np.array(got).ravel().tolist() == [1, 10, 20, 2, 3, 30]
    assert got.lod() == [[0, 3, 6]]


def test_sequence_reshape_scales_the_lod():
    x = L.data(name="x", shape=[2], dtype="float32", lod_level=1)
    out = L.sequence_reshape(x, new_dim=4)
    data = np.arange(12, dtype="float32").reshape(6, 2)
    got, = _run([out], {"x": _lt(data, [[2, 4]])})
    assert np.array(got).shape == (3, 4) and got.lod() == [[0, 1, 3]]
    np.testing.assert_array_equal(np.array(got).ravel(), data.ravel())
    with pytest.raises(ShapeError, match="sequence_reshape"):
        _run([out], {"x": _lt(data, [[1, 5]])})


def test_embedding_over_lod_input_keeps_the_lod():
    words = L.data(name="w", shape=[1], dtype="int64", lod_level=1)
    emb = L.embedding(words, size=[10, 3])
    got, = _run([emb], {"w": _lt(np.array([[1], [2], [3]], "int64"), [[1, 2]])})
    assert got.shape() == [3, 3] and got.lod() == [[0, 1, 3]]


# -- gradients -------------------------------------------------------------------------------

def _numeric_grad(f, x, eps=1e-6):
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        xp, xm = x.copy(), x.copy()
        xp[i] += eps
        xm[i] -= eps
        g[i] = (f(xp) - f(xm)) / (2 * eps)
    return g


def _ref_out(op_type, attrs, ins, lods):
    a = dict(get_op_def(op_type).complete_attrs(attrs))
    a[LOD_ATTR] = lods
    return get_op_def(op_type).reference(ins, a)["Out"][0]


GRAD_CASES = [
    ("sequence_pool", {"pooltype": "SUM"}, (6, 2), [[2, 0, 4]]),
    ("sequence_pool", {"pooltype": "AVERAGE"}, (6, 2), [[2, 0, 4]]),
    ("sequence_pool", {"pooltype": "SQRT"}, (6, 2), [[3, 3]]),
    ("sequence_pool", {"pooltype": "MAX"}, (6, 2), [[2, 0, 4]]),
    ("sequence_pool", {"pooltype": "FIRST"}, (6, 2), [[2, 0, 4]]),
    ("sequence_pool", {"pooltype": "LAST"}, (6, 2), [[2, 0, 4]]),
    ("sequence_softmax", {}, (5, 1), [[3, 2]]),
    ("sequence_reshape", {"new_dim": 4}, (6, 2), [[2, 4]]),
    ("sequence_expand", {"ref_level": 0}, (4, 2), [[1, 3]]),
    ("sequence_concat", {}, (5, 2), [[2, 3]]),
]


@pytest.mark.parametrize("op_type,attrs,shape,lens", GRAD_CASES,
                         ids=[f"{c[0]}-{c[1]}" for c in GRAD_CASES])
def test_sequence_op_gradient(op_type, attrs, shape, lens):
    rng = np.random.default_rng(len(op_type) * 7 + len(str(attrs)))
    xv = rng.normal(size=shape)
    x = L.data(name="x", shape=list(shape[1:]), dtype="float64", lod_level=1)
    x.stop_gradient = False
    xt = _lt(xv, lens)
    offs = tuple(tuple(level) for level in xt.lod())
    feed, ins, lods = {"x": xt}, {"X": [xv]}, {"X": [offs]}
    inputs = {"X": [x]}
    if op_type == "sequence_expand":
        y = L.data(name="y", shape=[1], dtype="float64", lod_level=1)
        yt = _lt(np.zeros((3, 1)), [[2, 1]])
        feed["y"], inputs["Y"], ins["Y"], lods["Y"] = yt, [y], [np.zeros((3, 1))], [((0, 2, 3),)]
    if op_type == "sequence_concat":
        z = L.data(name="z", shape=[2], dtype="float64", lod_level=1)
        z.stop_gradient = False  # a stopped one in a duplicable slot trips framework._infer
        zv = rng.normal(size=(3, 2))
        feed["z"], inputs["X"], ins["X"] = _lt(zv, [[1, 2]]), [x, z], [xv, zv]
        lods["X"] = [offs, ((0, 1, 3),)]
    block = fluid.default_main_program().global_block()
    out = block.create_var(name="out", dtype="float64")
    block.append_op(op_type, inputs=inputs, outputs={"Out": [out]}, attrs=attrs)
    want_out = _ref_out(op_type, attrs, ins, lods)
    w = rng.normal(size=want_out.shape)
    loss = L.reduce_sum(L.elementwise_mul(out, L.assign(w)))
    fluid.backward.append_backward(loss)
    got_out, got_grad = map(np.asarray, _run([out, "x@GRAD"], feed))
    np.testing.assert_allclose(got_out, want_out, rtol=1e-12, atol=1e-12)

    def f(v):
        return float((_ref_out(op_type, attrs, {**ins, "X": [v] + ins["X"][1:]}, lods) * w).sum())
    np.testing.assert_allclose(got_grad, _numeric_grad(f, xv), rtol=1e-5, atol=1e-7)
