"""fluid.layers.DynamicRNN (Paddle 1.x; not in Paddle 3.3.1, so checked against numpy): a
tanh RNN over LoD sequences of different lengths (an empty one too) with a zero boot memory,
a boot memory given per sequence (need_reorder) and a static input, its outputs and LoD
against numpy, and the gradients of the input, the boot memory and the parameters against
finite differences; saving and loading; misuse errors."""
import numpy as np
import pytest

import fluidc as fluid
from fluidc.frontend.errors import OpError
from fluidc.runtime.program_desc import parse_program, serialize_program

D, H, S = 3, 4, 2
LENGTHS = [2, 4, 0, 1, 3]
PARAMS = ("wx", "wh", "ws", "b")


def _program():
    """h_t = tanh(x_t Wx + h_{t-1} Wh + s Ws + b) per sequence, h_0 = boot's row; outputs
    every h_t; loss = sum of the last steps' squares + mean of all outputs."""
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = fluid.layers.data("x", [D], dtype="float64", lod_level=1)
        boot = fluid.layers.data("boot", [H], dtype="float64")
        static = fluid.layers.data("static", [S], dtype="float64")
        for v in (x, boot, static):
            v.stop_gradient = False
        drnn = fluid.layers.DynamicRNN()
        with drnn.block():
            word = drnn.step_input(x)
            prev = drnn.memory(init=boot, need_reorder=True)
            s = drnn.static_input(static)
            hidden = fluid.layers.fc([word, prev, s], H, act="tanh",
                                     param_attr=["wx", "wh", "ws"], bias_attr="b")
            drnn.update_memory(prev, hidden)
            drnn.output(hidden)
        out = drnn()
        last = fluid.layers.sequence_last_step(out)
        loss = fluid.layers.reduce_sum(last * last) + fluid.layers.mean(out)
        grads = fluid.backward.gradients([loss], [x, boot, static] + [
            main.global_block().var(n) for n in PARAMS])
    return main, startup, loss, out, grads


def _numpy(feed, p):
    seqs = np.split(feed["x"], np.cumsum(LENGTHS)[:-1])
    outs, lasts = [], []
    for k, seq in enumerate(seqs):
        h = feed["boot"][k]
        for row in seq:
            h = np.tanh(row @ p["wx"] + h @ p["wh"] + feed["static"][k] @ p["ws"] + p["b"])
            outs.append(h)
        if len(seq):
            lasts.append(h)
    outs, lasts = np.stack(outs), np.stack(lasts)
    return (lasts * lasts).sum() + outs.mean(), outs


def _setup(seed):
    main, startup, loss, out, grads = _program()
    exe = fluid.Executor(fluid.CPUPlace())
    scope = fluid.Scope()
    exe.run(startup, scope=scope)
    params = {n: np.asarray(scope.find_var(n).get_tensor()) for n in PARAMS}
    rng = np.random.default_rng(seed)
    values = {"x": rng.uniform(-1, 1, (sum(LENGTHS), D)),
              "boot": rng.uniform(-1, 1, (len(LENGTHS), H)),
              "static": rng.uniform(-1, 1, (len(LENGTHS), S))}
    return main, exe, scope, loss, out, grads, params, values


def _feed(values):
    return {**values, "x": fluid.create_lod_tensor(values["x"], [LENGTHS], fluid.CPUPlace())}


def test_dynamic_rnn_forward_and_gradients_match_numpy():
    main, exe, scope, loss, out, grads, params, values = _setup(0)
    got = exe.run(main, feed=_feed(values), fetch_list=[loss, out] + grads, scope=scope,
                  return_numpy=False)
    want_loss, want_out = _numpy(values, params)
    np.testing.assert_allclose(np.array(got[0]), want_loss, rtol=1e-12)
    np.testing.assert_allclose(np.array(got[1]), want_out, rtol=1e-12)
    assert got[1].recursive_sequence_lengths() == [LENGTHS]
    eps = 1e-6
    table = {**values, **params}
    for name, g in zip(["x", "boot", "static", *PARAMS], got[2:]):
        want = np.zeros_like(table[name])
        for idx in np.ndindex(*want.shape):
            diffs = []
            for sign in (1, -1):
                v = {k: a.copy() for k, a in table.items()}
                v[name][idx] += sign * eps
                diffs.append(_numpy(v, v)[0])
            want[idx] = (diffs[0] - diffs[1]) / (2 * eps)
        np.testing.assert_allclose(np.array(g), want, rtol=1e-6, atol=1e-9, err_msg=name)


def test_dynamic_rnn_program_saves_and_loads():
    main, exe, scope, loss, _, grads, _, values = _setup(1)
    fetch = [loss.name] + [g.name for g in grads]
    want = exe.run(main, feed=_feed(values), fetch_list=fetch, scope=scope, return_numpy=False)
    loaded = parse_program(serialize_program(main))
    assert {"lod_rank_table", "lod_tensor_to_array", "shrink_rnn_memory",
            "reorder_lod_tensor_by_rank", "array_to_lod_tensor", "while_grad"} <= {
        op.type for op in loaded.global_block().ops} | {
        op.type for b in loaded.blocks for op in b.ops}
    got = exe.run(loaded, feed=_feed(values), fetch_list=fetch, scope=scope, return_numpy=False)
    for g, w in zip(got, want):  # tensors: x's grad holds x's LoD
        assert g.lod() == w.lod()
        np.testing.assert_allclose(np.array(g), np.array(w), rtol=1e-12)


def test_dynamic_rnn_misuse_is_refused():
    with fluid.program_guard(fluid.Program(), fluid.Program()):
        x = fluid.layers.data("x", [D], dtype="float32", lod_level=1)
        drnn = fluid.layers.DynamicRNN()
        with pytest.raises(ValueError, match="inside rnn block"):
            drnn.step_input(x)
        with pytest.raises(ValueError, match="outside the rnn block"):
            drnn()
        drnn = fluid.layers.DynamicRNN()
        with pytest.raises(ValueError, match="step_input should be invoked"):
            with drnn.block():
                drnn.memory(shape=[H])
        drnn = fluid.layers.DynamicRNN()
        with pytest.raises(RuntimeError, match="after step_input"):
            with drnn.block():
                drnn.static_input(x)
        drnn = fluid.layers.DynamicRNN()
        with pytest.raises(ValueError, match="invoke memory before update_memory"):
            with drnn.block():
                word = drnn.step_input(x)
                drnn.update_memory(word, word)
        main = fluid.Program()
        with fluid.program_guard(main, fluid.Program()):
            y = fluid.layers.data("y", [D], dtype="float32")  # no LoD fed
            table = fluid.layers.lod_rank_table(y)
            n = fluid.layers.max_sequence_len(table)
        with pytest.raises(OpError, match="op 'lod_rank_table': X needs a LoD"):
            fluid.Executor(fluid.CPUPlace()).run(main, feed={"y": np.ones((2, D), "float32")},
                                                 fetch_list=[n])
