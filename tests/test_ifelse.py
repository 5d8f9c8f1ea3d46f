"""fluid.layers.IfElse and its ops split_lod_tensor / merge_lod_tensor (Paddle 1.x; not in
Paddle 3.3.1, so checked against numpy): rows routed by a per-row condition through two fc
branches, gradients of the input and both branches' parameters against finite differences
(a branch given no rows too), units that are LoD sequences (a sequence op inside a branch),
training, saving and loading, and misuse errors."""
import numpy as np
import pytest

import fluidc as fluid
from fluidc.frontend.errors import OpError
from fluidc.runtime.program_desc import parse_program, serialize_program

N, D, H = 6, 3, 4
PARAMS = ("w_t", "b_t", "w_f", "b_f")


def _program():
    """y = tanh(x W_t + b_t) where x[:, 0] < 0, else sigmoid(x W_f + b_f); loss = sum(y * y)
    + mean(y)."""
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = fluid.layers.data("x", [D], dtype="float64")
        x.stop_gradient = False
        zero = fluid.layers.fill_constant([1], "float64", 0.0)
        cond = fluid.layers.less_than(fluid.layers.slice(x, [1], [0], [1]), zero)
        ie = fluid.layers.IfElse(cond)
        with ie.true_block():
            ie.output(fluid.layers.fc(ie.input(x), H, act="tanh", param_attr="w_t",
                                      bias_attr="b_t"))
        with ie.false_block():
            ie.output(fluid.layers.fc(ie.input(x), H, act="sigmoid", param_attr="w_f",
                                      bias_attr="b_f"))
        y, = ie()
        loss = fluid.layers.reduce_sum(y * y) + fluid.layers.mean(y)
        grads = fluid.backward.gradients([loss], [x] + [main.global_block().var(n)
                                                        for n in PARAMS])
    return main, startup, loss, y, grads


def _numpy(x, p):
    t = np.tanh(x @ p["w_t"] + p["b_t"])
    f = 1 / (1 + np.exp(-(x @ p["w_f"] + p["b_f"])))
    y = np.where(x[:, :1] < 0, t, f)
    return (y * y).sum() + y.mean(), y


def _setup():
    main, startup, loss, y, grads = _program()
    exe = fluid.Executor(fluid.CPUPlace())
    scope = fluid.Scope()
    exe.run(startup, scope=scope)
    params = {n: np.asarray(scope.find_var(n).get_tensor()) for n in PARAMS}
    return main, exe, scope, loss, y, grads, params


@pytest.mark.parametrize("signs", ["mixed", "all_true", "all_false"])
def test_ifelse_forward_and_gradients_match_numpy(signs):
    main, exe, scope, loss, y, grads, params = _setup()
    rng = np.random.default_rng(0)
    x = rng.uniform(0.1, 1, (N, D))
    if signs == "mixed":
        x[::2, 0] *= -1
    elif signs == "all_true":
        x[:, 0] *= -1
    got = exe.run(main, feed={"x": x}, fetch_list=[loss, y] + grads, scope=scope)
    want_loss, want_y = _numpy(x, params)
    np.testing.assert_allclose(got[0], want_loss, rtol=1e-12)
    np.testing.assert_allclose(got[1], want_y, rtol=1e-12)
    values, eps = {"x": x, **params}, 1e-6
    for name, g in zip(["x", *PARAMS], got[2:]):
        want = np.zeros_like(values[name])
        for idx in np.ndindex(*want.shape):
            diffs = []
            for sign in (1, -1):
                v = {k: a.copy() for k, a in values.items()}
                v[name][idx] += sign * eps
                diffs.append(_numpy(v["x"], v)[0])
            want[idx] = (diffs[0] - diffs[1]) / (2 * eps)
        np.testing.assert_allclose(g, want, rtol=1e-6, atol=1e-9, err_msg=name)


def test_ifelse_over_lod_sequences():
    """Units are sequences: a branch pools its sequences (sequence_pool reads the part's LoD),
    the merge puts them back in order, one row per sequence; x's grad (through merge, the
    pools and split) against finite differences."""
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        x = fluid.layers.data("x", [2], dtype="float64", lod_level=1)
        x.stop_gradient = False
        flag = fluid.layers.data("flag", [1], dtype="bool")
        ie = fluid.layers.IfElse(flag)
        with ie.true_block():
            ie.output(fluid.layers.sequence_pool(ie.input(x), "sum"))
        with ie.false_block():
            ie.output(fluid.layers.sequence_pool(ie.input(x), "max"))
        out, = ie()
        loss = fluid.layers.reduce_sum(out * out)
        gx, = fluid.backward.gradients([loss], [x])
    rng = np.random.default_rng(1)
    lengths = [2, 3, 1, 4]
    xv = rng.uniform(-1, 1, (sum(lengths), 2))
    flags = np.array([[True], [False], [False], [True]])
    feed = {"x": fluid.create_lod_tensor(xv, [lengths], fluid.CPUPlace()), "flag": flags}
    got, got_gx = fluid.Executor(fluid.CPUPlace()).run(main, feed=feed, fetch_list=[out, gx],
                                                       return_numpy=False)

    def numpy_out(v):
        seqs = np.split(v, np.cumsum(lengths)[:-1])
        return np.stack([s.sum(0) if f else s.max(0) for s, f in zip(seqs, flags[:, 0])])

    np.testing.assert_allclose(np.array(got), numpy_out(xv), rtol=1e-12)
    assert got_gx.recursive_sequence_lengths() == [lengths]
    want, eps = np.zeros_like(xv), 1e-6
    for idx in np.ndindex(*xv.shape):
        hi, lo = xv.copy(), xv.copy()
        hi[idx] += eps
        lo[idx] -= eps
        want[idx] = ((numpy_out(hi) ** 2).sum() - (numpy_out(lo) ** 2).sum()) / (2 * eps)
    np.testing.assert_allclose(np.array(got_gx), want, rtol=1e-6, atol=1e-9)


def test_ifelse_net_trains():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = fluid.layers.data("x", [D], dtype="float32")
        label = fluid.layers.data("label", [1], dtype="int64")
        limit = fluid.layers.fill_constant([1], "int64", 1)
        ie = fluid.layers.IfElse(fluid.layers.less_than(label, limit))
        for block in (ie.true_block(), ie.false_block()):
            with block:
                hidden = fluid.layers.fc(ie.input(x), 8, act="tanh")
                ie.output(fluid.layers.fc(hidden, 2, act="softmax"))
        prob, = ie()
        loss = fluid.layers.mean(fluid.layers.cross_entropy(prob, label))
        fluid.optimizer.SGD(0.5).minimize(loss)
    exe = fluid.Executor(fluid.CPUPlace())
    scope = fluid.Scope()
    exe.run(startup, scope=scope)
    rng = np.random.default_rng(2)
    xv = rng.normal(size=(16, D)).astype("float32")
    lv = (xv[:, :1] > 0).astype("int64")
    losses = [exe.run(main, feed={"x": xv, "label": lv}, fetch_list=[loss],
                      scope=scope)[0].item() for _ in range(30)]
    assert losses[-1] < 0.5 * losses[0]


def test_ifelse_program_saves_and_loads():
    main, exe, scope, loss, y, grads, _ = _setup()
    x = np.random.default_rng(3).uniform(-1, 1, (N, D))
    fetch = [loss.name] + [g.name for g in grads]
    want = exe.run(main, feed={"x": x}, fetch_list=fetch, scope=scope)
    loaded = parse_program(serialize_program(main))
    assert {"split_lod_tensor", "merge_lod_tensor", "conditional_block_grad"} <= {
        op.type for op in loaded.global_block().ops}
    for g, w in zip(exe.run(loaded, feed={"x": x}, fetch_list=fetch, scope=scope), want):
        np.testing.assert_allclose(g, w, rtol=1e-12)


def test_ifelse_misuse_is_refused():
    with fluid.program_guard(fluid.Program(), fluid.Program()):
        x = fluid.layers.data("x", [D], dtype="float32")
        cond = fluid.layers.data("c", [1], dtype="bool")
        ie = fluid.layers.IfElse(cond)
        with pytest.raises(ValueError, match="true/false blocks"):
            ie.input(x)
        with pytest.raises(ValueError, match="Must invoke"):
            ie()
        with pytest.raises(ValueError, match="Must set output"):
            with ie.true_block():
                ie.input(x)
        ie = fluid.layers.IfElse(cond)
        with ie.true_block():
            ie.output(ie.input(x))
        with ie.false_block():
            ie.output(ie.input(x), ie.input(x))
        with pytest.raises(ValueError, match="same"):
            ie()
        out, = fluid.layers.IfElse.__call__(_one_sided(x, cond))
        exe = fluid.Executor(fluid.CPUPlace())
        with pytest.raises(OpError, match="Mask holds 2 values but X has 3 units"):
            exe.run(feed={"x": np.ones((3, D), "float32"), "c": np.ones((2, 1), bool)},
                    fetch_list=[out])


def _one_sided(x, cond):
    """An IfElse with a true block only: ie() is that block's outputs (no merge)."""
    ie = fluid.layers.IfElse(cond)
    with ie.true_block():
        ie.output(ie.input(x) * 2)
    return ie
