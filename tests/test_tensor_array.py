"""Tensor arrays (create_array / array_write / array_read / array_length /
tensor_array_to_tensor, paddle.concat of an array) forward and backward, in and out of while
loops, saved with Paddle's var type; paddle.shape and indexing by an int tensor (in a loop
body too)."""
import numpy as np
import pytest

import fluidc as fluid
import fluidc as paddle
from fluidc.frontend.dtypes import VarType
from fluidc.frontend.errors import OpError
from fluidc.runtime.program_desc import parse_program, serialize_program

nn = paddle.static.nn


def _run(main, feed, fetch, startup=None):
    exe = paddle.static.Executor(paddle.CPUPlace())
    scope = paddle.static.Scope()
    if startup is not None:
        exe.run(startup, scope=scope)
    return exe.run(main, feed=feed, fetch_list=fetch, scope=scope)


def _index(k):
    return paddle.full([1], k, "int64")


@pytest.mark.parametrize("api", ["fluid", "paddle"])
def test_write_read_and_length(api):
    ns = fluid.layers if api == "fluid" else paddle.tensor
    main = paddle.static.Program()
    with paddle.static.program_guard(main, paddle.static.Program()):
        a = paddle.static.data("a", [2, 3], "float32")
        b = paddle.static.data("b", [2, 3], "float32")
        arr = ns.create_array("float32")
        assert arr.type == VarType.LOD_TENSOR_ARRAY
        ns.array_write(a, _index(0), arr)
        same = ns.array_write(b, _index(2), arr)  # grows to 3 entries (1 never written)
        assert same is arr
        first, last = ns.array_read(arr, _index(0)), ns.array_read(arr, _index(2))
        assert list(last.shape) == [2, 3]
        n = ns.array_length(arr)
    av, bv = np.ones((2, 3), "float32"), np.full((2, 3), 2.0, "float32")
    f, la, nv = _run(main, {"a": av, "b": bv}, [first, last, n])
    np.testing.assert_array_equal(f, av)
    np.testing.assert_array_equal(la, bv)
    assert nv.tolist() == [3] and nv.dtype == np.int64


def test_array_write_without_array_and_initialized_list():
    main = paddle.static.Program()
    with paddle.static.program_guard(main, paddle.static.Program()):
        x = paddle.static.data("x", [3], "float32")
        arr = paddle.tensor.array_write(x, _index(0))
        init = paddle.tensor.create_array("float32", initialized_list=[x, x * 2.0])
        out, index = paddle.tensor.tensor_array_to_tensor(init, axis=0, use_stack=True)
        n = paddle.tensor.array_length(arr)
    xv = np.arange(3, dtype="float32")
    o, i, nv = _run(main, {"x": xv}, [out, index, n])
    np.testing.assert_array_equal(o, np.stack([xv, 2 * xv]))
    assert i.tolist() == [1, 1] and nv.tolist() == [1]


def test_tensor_array_to_tensor_concat_gives_each_entrys_size():
    main = paddle.static.Program()
    with paddle.static.program_guard(main, paddle.static.Program()):
        a = paddle.static.data("a", [2, 1], "float32")
        b = paddle.static.data("b", [2, 3], "float32")
        arr = fluid.layers.create_array("float32")
        fluid.layers.array_write(a, _index(0), arr)
        fluid.layers.array_write(b, _index(1), arr)
        out, index = fluid.layers.tensor_array_to_tensor(arr, axis=1)
        assert list(out.shape) == [2, -1]
    av, bv = np.ones((2, 1), "float32"), np.zeros((2, 3), "float32")
    o, i = _run(main, {"a": av, "b": bv}, [out, index])
    np.testing.assert_array_equal(o, np.concatenate([av, bv], 1))
    assert i.tolist() == [1, 3] and i.dtype == np.int32


def test_bad_arrays_and_indices_are_refused_with_paddles_types():
    with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):
        x = paddle.static.data("x", [3], "float32")
        arr = paddle.tensor.create_array("float32")
        with pytest.raises(TypeError, match="'i'"):
            paddle.tensor.array_write(x, paddle.full([1], 0, "int32"), arr)
        with pytest.raises(TypeError, match="tensor array"):
            paddle.tensor.array_read(x, _index(0))
        with pytest.raises(TypeError, match="tensor array"):
            paddle.tensor.array_write(x, _index(0), x)
        with pytest.raises(TypeError, match="only input"):
            paddle.concat([arr, arr])


def test_reading_past_the_end_names_the_index():
    main = paddle.static.Program()
    with paddle.static.program_guard(main, paddle.static.Program()):
        x = paddle.static.data("x", [3], "float32")
        arr = paddle.tensor.array_write(x, _index(0))
        out = paddle.tensor.array_read(arr, _index(4))
    with pytest.raises(OpError, match="index 4 is out of range"):
        _run(main, {"x": np.zeros(3, "float32")}, [out])


def _array_loop_program():
    """Each iteration k writes tanh(x * w_k) to the array at k (w_k read from another array);
    the loss joins the entries: grads flow back through writes, reads and the loop."""
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [2, 3], "float64")
        ws = [paddle.static.data(f"w{k}", [2, 3], "float64") for k in range(3)]
        for v in [x] + ws:
            v.stop_gradient = False
        weights = paddle.tensor.create_array("float64")
        for k, w in enumerate(ws):
            paddle.tensor.array_write(w, _index(k), weights)
        out = paddle.tensor.array_write(x, _index(0))
        n = paddle.tensor.array_length(weights)

        def body(i, h, out):
            h = paddle.tanh(h * paddle.tensor.array_read(weights, i)) + h * 0.5
            paddle.tensor.array_write(h, i + 1, out)
            return [i + 1, h, out]

        _, h, out = nn.while_loop(lambda i, h, out: i < n, body, [_index(0), x, out])
        joined = paddle.concat(out, axis=0)
        loss = paddle.sum(joined * joined) + paddle.mean(h)
        grads = paddle.static.gradients([loss], [x] + ws)
    return main, loss, [x] + ws, grads


def _numpy_loss(xv, wv):
    h, outs = xv, [xv]
    for w in wv:
        h = np.tanh(h * w) + h * 0.5
        outs.append(h)
    joined = np.concatenate(outs, 0)
    return (joined * joined).sum() + h.mean()


def test_arrays_in_a_while_loop_forward_and_backward_match_finite_differences():
    main, loss, inputs, grads = _array_loop_program()
    rng = np.random.default_rng(0)
    feed = {v.name: rng.uniform(-1, 1, (2, 3)) for v in inputs}
    got = _run(main, feed, [loss] + grads)
    xv, wv = feed["x"], [feed[f"w{k}"] for k in range(3)]
    np.testing.assert_allclose(got[0], _numpy_loss(xv, wv), rtol=1e-12)
    eps = 1e-6
    for v, g in zip(inputs, got[1:]):
        want = np.zeros((2, 3))
        for idx in np.ndindex(2, 3):
            vals = []
            for sign in (1, -1):
                f = {k: a.copy() for k, a in feed.items()}
                f[v.name][idx] += sign * eps
                vals.append(_numpy_loss(f["x"], [f[f"w{k}"] for k in range(3)]))
            want[idx] = (vals[0] - vals[1]) / (2 * eps)
        np.testing.assert_allclose(g, want, rtol=1e-6, atol=1e-8, err_msg=v.name)


def test_array_program_saves_with_paddles_var_type_and_runs_after_loading():
    main, loss, inputs, grads = _array_loop_program()
    loaded = parse_program(serialize_program(main))
    arrays = [n for b in loaded.blocks for n, v in b.vars.items()
              if v.type == VarType.LOD_TENSOR_ARRAY]
    assert arrays and all(main.global_block()._find_var_recursive(n) is not None or
                          any(n in b.vars for b in main.blocks) for n in arrays)
    feed = {v.name: np.full((2, 3), 0.3) for v in inputs}
    names = [loss.name] + [g.name for g in grads]
    for a, b in zip(_run(loaded, feed, names), _run(main, feed, names)):
        np.testing.assert_allclose(a, b, rtol=1e-12)


def test_shape_gives_the_runtime_shape_and_its_dims_index_loops():
    main = paddle.static.Program()
    with paddle.static.program_guard(main, paddle.static.Program()):
        x = paddle.static.data("x", [-1, 4], "float32")
        s = paddle.shape(x)
        assert s.dtype == VarType.INT32 and list(s.shape) == [2]
        rows = s[0]
        total = nn.while_loop(lambda i, acc: i < rows,
                              lambda i, acc: [i + 1, acc + paddle.sum(x[i])],
                              [paddle.full([], 0, "int32"), paddle.full([], 0.0, "float32")])[1]
    xv = np.arange(12, dtype="float32").reshape(3, 4)
    sv, t = _run(main, {"x": xv}, [s, total])
    assert sv.tolist() == [3, 4] and sv.dtype == np.int32
    np.testing.assert_allclose(t, xv.sum())


def test_indexing_by_an_int_tensor_reads_at_run_time_and_differentiates():
    main = paddle.static.Program()
    with paddle.static.program_guard(main, paddle.static.Program()):
        x = paddle.static.data("x", [4, 3], "float32")
        x.stop_gradient = False
        k = paddle.static.data("k", [1], "int64")
        row = x[k]
        assert list(row.shape) == [3]
        loss = paddle.sum(row * row)
        gx, = paddle.static.gradients([loss], [x])
    xv = np.arange(12, dtype="float32").reshape(4, 3)
    for kv in (0, 3, -1):
        r, g = _run(main, {"x": xv, "k": np.array([kv], "int64")}, [row, gx])
        np.testing.assert_array_equal(r, xv[kv])
        want = np.zeros_like(xv)
        want[kv] = 2 * xv[kv]
        np.testing.assert_array_equal(g, want)
    with pytest.raises(IndexError, match="tensor index"):
        with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):
            y = paddle.static.data("y", [4, 3], "float32")
            y[paddle.full([2], 1, "int64")]  # an index list: not supported


def test_fetching_an_array_gives_a_list_of_its_entries():
    main = paddle.static.Program()
    with paddle.static.program_guard(main, paddle.static.Program()):
        x = paddle.static.data("x", [3], "float32")
        arr = paddle.tensor.array_write(x, _index(0))
        paddle.tensor.array_write(x * 2.0, _index(1), arr)
    xv = np.arange(3, dtype="float32")
    got, = _run(main, {"x": xv}, [arr])
    assert isinstance(got, list) and len(got) == 2
    np.testing.assert_array_equal(got[1], 2 * xv)


def test_an_op_given_an_array_where_it_takes_a_tensor_is_refused():
    main = paddle.static.Program()
    with paddle.static.program_guard(main, paddle.static.Program()):
        x = paddle.static.data("x", [3], "float32")
        arr = paddle.tensor.array_write(x, _index(0))
        block = main.global_block()
        out = block.create_var(name="bad", shape=(3,), dtype="float32")
        block.append_op("elementwise_add", {"X": [arr], "Y": [x]}, {"Out": [out]})
    with pytest.raises(OpError, match="does not take tensor arrays"):
        _run(main, {"x": np.zeros(3, "float32")}, [out])


def test_fluid_while_block_over_arrays_differentiates():
    """1.x style: layers.While, increment in place, less_than(cond=cond); y_k = y_{k-1} * x_k
    over the entries of an array of three fed vars."""
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        xs = [fluid.layers.data(f"x{k}", [3], dtype="float64", append_batch_size=False)
              for k in range(3)]
        for v in xs:
            v.stop_gradient = False
        arr = fluid.layers.create_array("float64")
        for k, v in enumerate(xs):
            fluid.layers.array_write(v, fluid.layers.fill_constant([1], "int64", k), arr)
        i = fluid.layers.fill_constant([1], "int64", 0)
        n = fluid.layers.array_length(arr)
        y = fluid.layers.fill_constant([3], "float64", 1.0)
        y.stop_gradient = False
        cond = fluid.layers.less_than(i, n)
        loop = fluid.layers.While(cond)
        with loop.block():
            fluid.layers.assign(y * fluid.layers.array_read(arr, i), y)
            fluid.layers.increment(i, in_place=True)
            fluid.layers.less_than(i, n, cond=cond)
        loss = fluid.layers.reduce_sum(y)
        grads = fluid.backward.gradients([loss], xs)
    rng = np.random.default_rng(5)
    feed = {f"x{k}": rng.uniform(0.5, 1.5, 3) for k in range(3)}
    got = _run(main, feed, [loss] + grads)
    prod = feed["x0"] * feed["x1"] * feed["x2"]
    np.testing.assert_allclose(got[0], prod.sum(), rtol=1e-12)
    for k, g in enumerate(got[1:]):
        np.testing.assert_allclose(g, prod / feed[f"x{k}"], rtol=1e-12)


def test_counters_incremented_in_place_are_restored_for_the_grads():
    """Entries written and read at a counter incremented in place: each grad op reads the
    counter's value its forward op saw (the backward appends increments undoing them)."""
    main = paddle.static.Program()
    with paddle.static.program_guard(main, paddle.static.Program()):
        xs = [paddle.static.data(f"x{k}", [3], "float32") for k in range(2)]
        for v in xs:
            v.stop_gradient = False
        i = paddle.zeros([1], "int64")
        arr = paddle.tensor.array_write(xs[0], i)
        paddle.increment(i)
        paddle.tensor.array_write(xs[1], i, arr)
        j = paddle.zeros([1], "int64")
        a0 = paddle.tensor.array_read(arr, j)
        paddle.increment(j)
        a1 = paddle.tensor.array_read(arr, j)
        loss = paddle.sum(a0 * 2.0) + paddle.sum(a1 * 3.0)
        grads = paddle.static.gradients([loss], xs)
    steps = [op.attr("step") for op in main.global_block().ops if op.type == "increment"]
    assert steps == [1.0, 1.0, -1.0, -1.0]
    got = _run(main, {"x0": np.ones(3, "float32"), "x1": np.ones(3, "float32")}, grads)
    np.testing.assert_array_equal(got[0], np.full(3, 2.0))
    np.testing.assert_array_equal(got[1], np.full(3, 3.0))
