"""Random small StaticRNN programs (a step block of random pointwise ops, an fc and a
memory update, Paddle's `recurrent` op and its grad) run by the compiled executor fused and
unfused and by the numpy reference executor: forward values and gradients must agree."""
import numpy as np
import pytest

import fluidc as fluid
from fluidc.runtime.reference import ReferencePlan

T, B, D = 3, 2, 4
UNARY = [fluid.layers.tanh, fluid.layers.sigmoid, fluid.layers.relu,
         lambda v: fluid.layers.scale(v, 0.5, 0.1), lambda v: v * v]
BINARY = [lambda a, b: a + b, lambda a, b: a * b, lambda a, b: a - b,
          fluid.layers.elementwise_max]


def _program(seed: int):
    rng = np.random.default_rng(seed)
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = fluid.layers.data("x", [T, B, D], dtype="float64", append_batch_size=False)
        h0 = fluid.layers.data("h0", [B, D], dtype="float64", append_batch_size=False)
        for v in (x, h0):
            v.stop_gradient = False
        rnn = fluid.layers.StaticRNN()
        with rnn.step():
            word = rnn.step_input(x)
            prev = rnn.memory(init=h0)
            vals = [word, prev]
            for _ in range(int(rng.integers(2, 6))):
                if rng.random() < 0.5:
                    vals.append(UNARY[int(rng.integers(len(UNARY)))](
                        vals[int(rng.integers(len(vals)))]))
                else:
                    a, b = (vals[int(i)] for i in rng.integers(len(vals), size=2))
                    vals.append(BINARY[int(rng.integers(len(BINARY)))](a, b))
            new = fluid.layers.fc(fluid.layers.elementwise_add(vals[-1], prev), D, act="tanh",
                                  param_attr="w", bias_attr="b")
            rnn.update_memory(prev, new)
            rnn.step_output(new)
            rnn.step_output(vals[-1])
        h, y = rnn()
        loss = fluid.layers.mean(h * h) + fluid.layers.mean(y)
        grads = fluid.backward.gradients([loss], [x, h0] + [main.global_block().var(n)
                                                            for n in ("w", "b")])
    return main, startup, [loss, h, y] + grads


@pytest.mark.parametrize("seed", range(6))
def test_static_rnn_fused_unfused_and_reference_agree(seed):
    main, startup, fetch = _program(seed)
    exe = fluid.Executor(fluid.CPUPlace())
    scope = fluid.Scope()
    exe.run(startup, scope=scope)
    rng = np.random.default_rng(100 + seed)
    feed = {"x": rng.uniform(-1, 1, (T, B, D)), "h0": rng.uniform(-1, 1, (B, D))}
    names = [v.name for v in fetch]
    want = ReferencePlan(main, list(feed), names).run(feed, scope)
    unfused = fluid.BuildStrategy()
    unfused.fuse_all = False
    for program in (main, fluid.CompiledProgram(main, build_strategy=unfused)):
        got = exe.run(program, feed=feed, fetch_list=names, scope=scope)
        for n, g, w in zip(names, got, want):
            np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-12, err_msg=n)
