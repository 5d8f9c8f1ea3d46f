"""paddle.incubate.layers.nn's partial_sum, partial_concat, batch_fc, rank_attention and
shuffle_batch: values against numpy (rank_attention: Paddle's test_rank_attention_op
reference), compiled against the reference executor, gradients against central differences
(one input stopped), shuffle_batch's order by its statistics and SeedOut as Paddle's, and the
layers' argument errors."""
from __future__ import annotations

import numpy as np
import pytest

import fluidc as fluid
import fluidc as paddle
from fluidc.frontend.errors import OpError
from fluidc.incubate.layers.nn import (batch_fc, partial_concat, partial_sum, rank_attention,
                                       shuffle_batch)

from op_harness import append, run_reference, seeded
from test_ops_nce_row_conv import fd_check


def _op(op_type, slot_vars, attrs=None):
    return append(fluid.default_main_program().global_block(), op_type, slot_vars,
                  attrs)[1]["Out"]


@pytest.mark.parametrize("op_type", ["partial_sum", "partial_concat"])
@pytest.mark.parametrize("start,length", [(1, 2), (-3, -1), (0, 4)])
def test_partial_values_and_gradients(op_type, start, length):
    rng = seeded(f"{op_type}-{start}-{length}")
    ins = {f"x{i}": rng.uniform(-1, 1, (3, 4)) for i in range(3)}
    attrs = {"start_index": start, "length": length}
    out = fd_check(lambda vs: _op(op_type, {"X": [vs[n] for n in sorted(vs)]}, attrs), ins,
                   ("x0", "x2"), key=f"{op_type}-{start}")  # x1 stopped
    s = start % 4
    cols = [v[:, s:(s + length if length > 0 else 4)] for _, v in sorted(ins.items())]
    want = sum(cols) if op_type == "partial_sum" else np.concatenate(cols, 1)
    np.testing.assert_allclose(np.asarray(out), want, rtol=1e-12)


def test_batch_fc_values_and_gradients():
    rng = seeded("batch_fc")
    ins = {"x": rng.uniform(-1, 1, (3, 2, 4)), "w": rng.uniform(-1, 1, (3, 4, 5)),
           "b": rng.uniform(-1, 1, (3, 5))}
    out = fd_check(lambda vs: _op("batch_fc", {"Input": [vs["x"]], "W": [vs["w"]],
                                               "Bias": [vs["b"]]}),
                   ins, ("x", "w", "b"), key="batch_fc")
    np.testing.assert_allclose(np.asarray(out), ins["x"] @ ins["w"] + ins["b"][:, None],
                               rtol=1e-12)


def test_layer_errors():
    x = paddle.static.data("x", [None, 3], "float32")
    with pytest.raises(OpError, match="start_index 3 must lie in"):
        partial_sum([x, x], start_index=3)
    with pytest.raises(OpError, match="length 3 from start_index 1"):
        partial_concat([x, x], start_index=1, length=3)
    with pytest.raises(TypeError):
        partial_sum([x, paddle.static.data("b", [None, 3], "bool")])
    with pytest.raises(TypeError):
        partial_concat([x], start_index=1.5)
    i = paddle.static.data("i", [4, 2, 3], "float32")
    with pytest.raises(AssertionError, match="must agree"):
        batch_fc(i, [4, 3, 5], None, [4, 6], None)
    with pytest.raises(TypeError):
        batch_fc(paddle.static.data("i64", [4, 2, 3], "int64"), [4, 3, 5], None, [4, 5], None)


def rank_offset(rng, pages, max_rank):
    """Paddle's gen_rank_offset: page views of 1..max_rank + 1 instances, ranks shuffled (the
    one past max_rank has none); each ranked instance lists its ranked peers."""
    rows, start = [], 0
    for _ in range(pages):
        ranks = rng.permutation(np.arange(1, rng.integers(1, max_rank + 2) + 1))
        for r in ranks:
            row = np.full(2 * max_rank + 1, -1)
            if r <= max_rank:
                row[0] = r
                for k, f in enumerate(ranks):
                    if f <= max_rank:
                        row[2 * f - 1], row[2 * f] = f, start + k
            rows.append(row)
        start += len(ranks)
    return np.array(rows, np.int32)


def np_rank_attention(x, ro, param, max_rank, max_size):
    """Paddle's np_rank_attention written per instance: (Out, InputHelp, InsRank)."""
    n, d = x.shape
    rows = max(max_size, n)
    help_, rank = np.zeros((rows, max_rank * d)), np.full((rows, 1), -1.0)
    out = np.zeros((n, param.shape[1]))
    for i in range(n):
        rank[i] = ro[i, 0]
        for k in range(max_rank):
            lower, faster, peer = ro[i, 0] - 1, ro[i, 2 * k + 1] - 1, ro[i, 2 * k + 2]
            if lower < 0 or faster < 0:
                continue
            help_[i, k * d:(k + 1) * d] = x[peer]
            block = (lower * max_rank + faster) * d
            out[i] += x[peer] @ param[block:block + d]
    return out, help_, rank


def test_rank_attention_values_and_gradient():
    rng = seeded("rank_attention")
    ro = rank_offset(rng, 6, 3)
    ins = {"x": rng.uniform(-1, 1, (len(ro), 2)), "ro": ro, "p": rng.uniform(-1, 1, (18, 3))}
    attrs = {"MaxRank": 3, "MaxSize": 40}
    fetched = {}

    def build(vs):
        outs = append(fluid.default_main_program().global_block(), "rank_attention",
                      {"X": [vs["x"]], "RankOffset": [vs["ro"]], "RankParam": [vs["p"]]},
                      attrs)[1]
        fetched.update(outs)
        return outs["Out"]
    out = fd_check(build, ins, ("p",), key="rank_attention")  # X gets no gradient (Paddle's)
    want = np_rank_attention(ins["x"], ro, ins["p"], 3, 40)
    np.testing.assert_allclose(np.asarray(out), want[0], rtol=1e-12)
    prog = fetched["Out"].block.program
    got = fluid.Executor(fluid.CPUPlace()).run(
        prog, feed={"x": ins["x"], "ro": ro, "p": ins["p"], "fd_weight": np.zeros((len(ro), 3))},
        fetch_list=[fetched["InputHelp"], fetched["InsRank"]])
    np.testing.assert_allclose(got[0], want[1], rtol=1e-12)
    np.testing.assert_array_equal(got[1], want[2])


def test_rank_attention_layer_and_errors():
    x = paddle.static.data("x", [None, 2], "float32")
    ro = paddle.static.data("ro", [None, 7], "int32")
    out = rank_attention(x, ro, [18, 3], None, max_rank=3)
    assert list(out.shape) == [-1, 3]
    with pytest.raises(AssertionError, match="max_rank"):
        rank_attention(x, ro, [17, 3], None, max_rank=3)
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(fluid.default_startup_program())
    bad = np.array([[1, 1, 5, -1, -1, -1, -1]], np.int32)  # a peer row past X's one row
    with pytest.raises(OpError, match="peer row outside"):
        exe.run(feed={"x": np.ones((1, 2), "float32"), "ro": bad}, fetch_list=[out])


def _shuffle_program(seed=5, width=3):
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        x = paddle.static.data("x", [-1, width], "float32")
        x.stop_gradient = False
        out = shuffle_batch(x, seed=seed)
        op = main.global_block().ops[-1]
        dout = paddle.static.data("dout", [-1, width], "float32")
        (dx,) = paddle.static.gradients([out], [x], target_gradients=[dout])
    return main, [out.name, op.output("ShuffleIdx")[0], op.output("SeedOut")[0], dx.name]


def test_shuffle_batch_order_gradient_and_seed_out():
    main, fetch = _shuffle_program()
    rng = seeded("shuffle")
    x, dout = rng.normal(size=(4, 3)).astype("float32"), rng.normal(size=(4, 3)).astype("float32")
    exe = fluid.Executor(fluid.CPUPlace())
    counts = np.zeros((4, 4))
    for _ in range(400):
        out, idx, seed_out, dx = exe.run(main, feed={"x": x, "dout": dout}, fetch_list=fetch)
        np.testing.assert_array_equal(np.sort(idx), np.arange(4))
        np.testing.assert_array_equal(out[idx], x)  # row j of x lands at idx[j]
        np.testing.assert_array_equal(dx, dout[idx])
        assert seed_out.tolist() == [84035]  # minstd_rand0(5)'s first draw, as Paddle's
        counts[np.arange(4), idx] += 1
    # each row at each place a quarter of the time (400 draws: standard error 0.022)
    np.testing.assert_allclose(counts / 400, 0.25, atol=0.09)
    ref = run_reference(main, {"x": x, "dout": dout}, fetch)
    np.testing.assert_array_equal(ref[0][ref[1]], x)
    np.testing.assert_array_equal(ref[3], dout[ref[1]])


def test_shuffle_batch_seed_variable():
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        x = paddle.static.data("x", [2, 3, 2], "float32")
        seed = paddle.static.data("seed", [1], "int64")
        out = shuffle_batch(x, seed=seed)
        op = main.global_block().ops[-1]
    x_val = np.arange(12, dtype="float32").reshape(2, 3, 2)
    got, seed_out = fluid.Executor(fluid.CPUPlace()).run(
        main, feed={"x": x_val, "seed": np.array([0], "int64")},
        fetch_list=[out, op.output("SeedOut")[0]])
    assert seed_out.tolist() == [16807]  # a 0 state seeds minstd as 1
    assert sorted(map(tuple, got.reshape(6, 2))) == sorted(map(tuple, x_val.reshape(6, 2)))


def test_shuffle_batch_in_dygraph_seeds_from_its_empty_seed_var():
    """An int seed binds a fresh Seed tensor holding nothing: the op runs as with Seed unbound
    (startup_seed), in dygraph as in static programs."""
    with fluid.dygraph.guard():
        x_val = np.arange(12, dtype="float32").reshape(4, 3)
        got = shuffle_batch(paddle.to_tensor(x_val), seed=5).numpy()
    assert sorted(map(tuple, got)) == sorted(map(tuple, x_val))
