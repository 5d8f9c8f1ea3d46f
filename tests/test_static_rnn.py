"""fluid.layers.StaticRNN (Paddle's `recurrent` op; not in Paddle 3.3.1, so checked against
numpy): forward steps, memories from a batch-sized boot or a given var, gradients of the step
inputs, initial memories and parameters against finite differences, the compiled runtime
against the reference executor, saving and loading, and misuse errors."""
import numpy as np
import pytest

import fluidc as fluid
from fluidc.runtime.program_desc import parse_program, serialize_program
from fluidc.runtime.reference import ReferencePlan

T, B, D, H = 4, 2, 3, 5


def _program(boot: bool):
    """h_t = tanh(x_t W + h_{t-1} U + b) (h_0 zeros, or the fed h0); outputs h_t and
    h_t * x_t[:, :1]; the loss joins both."""
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = fluid.layers.data("x", [T, B, D], dtype="float64", append_batch_size=False)
        h0 = fluid.layers.data("h0", [B, H], dtype="float64", append_batch_size=False)
        for v in (x, h0):
            v.stop_gradient = False
        rnn = fluid.layers.StaticRNN()
        with rnn.step():
            word = rnn.step_input(x)
            prev = rnn.memory(shape=[-1, H], batch_ref=word) if boot else rnn.memory(init=h0)
            hidden = fluid.layers.fc(input=[word, prev], size=H, act="tanh",
                                     param_attr=["w_x", "w_h"], bias_attr="b")
            rnn.update_memory(prev, hidden)
            rnn.step_output(hidden)
            rnn.step_output(hidden * fluid.layers.slice(word, [1], [0], [1]))
        h, y = rnn()
        loss = fluid.layers.mean(h * h) + fluid.layers.reduce_sum(y)
        inputs = [x] + ([] if boot else [h0])
        grads = fluid.backward.gradients([loss], inputs + [main.global_block().var(n)
                                                           for n in ("w_x", "w_h", "b")])
    return main, startup, loss, (h, y), [v.name for v in inputs], grads


def _numpy(feed, params, boot):
    x, w_x, w_h, b = feed["x"], params["w_x"], params["w_h"], params["b"]
    h = np.zeros((B, H)) if boot else feed["h0"]
    hs, ys = [], []
    for t in range(T):
        h = np.tanh(x[t] @ w_x + h @ w_h + b)
        hs.append(h)
        ys.append(h * x[t][:, :1])
    hs, ys = np.stack(hs), np.stack(ys)
    return (hs * hs).mean() + ys.sum(), hs, ys


def _setup(boot, seed=0):
    main, startup, loss, outs, names, grads = _program(boot)
    exe = fluid.Executor(fluid.CPUPlace())
    scope = fluid.Scope()
    exe.run(startup, scope=scope)
    params = {n: np.asarray(scope.find_var(n).get_tensor()) for n in ("w_x", "w_h", "b")}
    rng = np.random.default_rng(seed)
    feed = {"x": rng.uniform(-1, 1, (T, B, D))}
    if not boot:
        feed["h0"] = rng.uniform(-1, 1, (B, H))
    return main, exe, scope, loss, outs, names, grads, params, feed


@pytest.mark.parametrize("boot", [True, False])
def test_static_rnn_forward_matches_numpy(boot):
    main, exe, scope, loss, (h, y), _, _, params, feed = _setup(boot)
    ops = [op.type for op in main.global_block().ops]
    assert "recurrent" in ops and "recurrent_grad" in ops
    got = exe.run(main, feed=feed, fetch_list=[loss, h, y], scope=scope)
    want = _numpy(feed, params, boot)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-12)


@pytest.mark.parametrize("boot", [True, False])
def test_static_rnn_gradients_match_finite_differences(boot):
    main, exe, scope, loss, _, names, grads, params, feed = _setup(boot, seed=1)
    got = exe.run(main, feed=feed, fetch_list=grads, scope=scope)
    eps = 1e-6
    values = {**feed, **params}
    for name, g in zip(names + ["w_x", "w_h", "b"], got):
        want = np.zeros_like(values[name])
        for idx in np.ndindex(*want.shape):
            diffs = []
            for sign in (1, -1):
                v = {k: a.copy() for k, a in values.items()}
                v[name][idx] += sign * eps
                diffs.append(_numpy({k: v[k] for k in feed},
                                    {k: v[k] for k in params}, boot)[0])
            want[idx] = (diffs[0] - diffs[1]) / (2 * eps)
        np.testing.assert_allclose(g, want, rtol=1e-6, atol=1e-9, err_msg=name)


def test_static_rnn_compiled_matches_the_reference_executor():
    main, exe, scope, loss, (h, y), _, grads, _, feed = _setup(False, seed=2)
    fetch = [loss.name, h.name, y.name] + [g.name for g in grads]
    got = exe.run(main, feed=feed, fetch_list=fetch, scope=scope)
    want = ReferencePlan(main, list(feed), fetch).run(feed, scope)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-14)


def test_static_rnn_program_saves_and_loads():
    main, exe, scope, loss, _, _, grads, _, feed = _setup(False, seed=3)
    fetch = [loss.name] + [g.name for g in grads]
    want = exe.run(main, feed=feed, fetch_list=fetch, scope=scope)
    loaded = parse_program(serialize_program(main))
    for g, w in zip(exe.run(loaded, feed=feed, fetch_list=fetch, scope=scope), want):
        np.testing.assert_allclose(g, w, rtol=1e-12)


def test_static_rnn_misuse_is_refused():
    with fluid.program_guard(fluid.Program(), fluid.Program()):
        x = fluid.layers.data("x", [T, B, D], dtype="float32", append_batch_size=False)
        z = fluid.layers.data("z", [T + 1, B, D], dtype="float32", append_batch_size=False)
        rnn = fluid.layers.StaticRNN()
        with pytest.raises(ValueError, match="in rnn block"):
            rnn.step_input(x)
        with pytest.raises(ValueError, match="after rnn block"):
            rnn()
        with pytest.raises(ValueError, match="updated in every step"):
            with rnn.step():
                word = rnn.step_input(x)
                rnn.memory(shape=[-1, H], batch_ref=word)
                rnn.step_output(word)
        rnn = fluid.layers.StaticRNN()
        with pytest.raises(ValueError, match="fix seq_len"):
            with rnn.step():
                rnn.step_input(x)
                rnn.step_input(z)
        rnn = fluid.layers.StaticRNN()
        with pytest.raises(TypeError, match="Variable"):
            with rnn.step():
                rnn.step_input([1, 2])
