"""Attention's head transposes folded into the generated batched products' strides
(passes/attention.py fold_heads): the products read q, k, v and the context's grad in
[b, s, h, d] order and store the context and the q, k, v grads in it, the copies gone; against
the library products' plan and the numpy reference executor."""
import numpy as np
import pytest

import fluidc as fluid
import fluidc as paddle
from op_harness import TOL, run_reference, seeded


def _block(b, s, h, d, dtype, keep_heads=False):
    """Self-attention over x [b, s, h*d] with its heads split by reshape2 + transpose2 and
    merged back, a residual, a squared loss and its gradients w.r.t. x and the weights."""
    main, startup = fluid.Program(), fluid.Program()
    main.random_seed = startup.random_seed = 5
    with fluid.unique_name.guard(), fluid.program_guard(main, startup):
        x = paddle.static.data("x", [b, s, h * d], dtype)
        x.stop_gradient = False

        def split(t):
            return paddle.transpose(paddle.reshape(t, [0, 0, h, d]), [0, 2, 1, 3])
        q, k, v = (split(paddle.static.nn.fc(x, h * d, num_flatten_dims=2)) for _ in range(3))
        att = paddle.nn.functional.softmax(paddle.matmul(q, k, transpose_y=True) * d ** -0.5)
        ctx = paddle.reshape(paddle.transpose(paddle.matmul(att, v), [0, 2, 1, 3]),
                             [0, 0, h * d])
        out = paddle.tanh(paddle.static.nn.fc(ctx, h * d, num_flatten_dims=2) + x)
        loss = paddle.mean(out * out)
        params = main.all_parameters()
        grads = fluid.gradients([loss], [x] + params)
    fetch = [loss.name] + [g.name for g in grads] + ([q.name] if keep_heads else [])
    return main, startup, fetch


def _run(main, startup, feed, fetch, generated: bool):
    exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
    exe.run(startup, scope=scope)
    strategy = fluid.BuildStrategy()
    strategy.fuse_gemm_epilogue = generated
    prog = fluid.CompiledProgram(main, build_strategy=strategy)
    got = exe.run(prog, feed=feed, fetch_list=fetch, scope=scope)
    return got, list(exe._plans.values())[-1].lowered.steps, scope


def _copies(steps):
    return [s.op.type for s in steps if getattr(s, "op", None) is not None
            and s.op.type in ("transpose2", "transpose2_grad")]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", range(4))
def test_folded_head_copies_give_the_library_and_reference_gradients(case, dtype):
    rng = seeded(f"fold-heads-{case}-{dtype}")
    b, s, h, d = (int(v) for v in rng.integers(1, 9, 4))
    h = max(h, 2)  # heads-second differs from heads-first
    main, startup, fetch = _block(b, s, h, d, dtype)
    feed = {"x": rng.normal(size=(b, s, h * d)).astype(dtype)}
    got, steps, scope = _run(main, startup, feed, fetch, generated=True)
    assert _copies(steps) == []  # the 4 copies and their 4 grads are gone
    folded = [v for st in steps for v in getattr(st, "heads", {}).values()]
    assert len(folded) == 12 and all(n == h for _, n in folded)
    lib, lib_steps, _ = _run(main, startup, feed, fetch, generated=False)
    assert sorted(_copies(lib_steps)) == ["transpose2"] * 4 + ["transpose2_grad"] * 4
    ref = run_reference(main, feed, fetch, scope)
    tol = TOL[np.dtype(dtype)]
    for name, g, lb, r in zip(fetch, got, lib, ref):
        np.testing.assert_allclose(g, lb, rtol=tol[0] * 10, atol=tol[1] * 10, err_msg=name)
        np.testing.assert_allclose(g, r, rtol=tol[0] * 10, atol=tol[1] * 10, err_msg=name)


def test_a_fetched_head_split_keeps_its_copy():
    """q fetched: its transpose's result must be stored, so that copy stays (the others go)."""
    rng = seeded("fold-heads-kept")
    main, startup, fetch = _block(2, 5, 3, 4, "float64", keep_heads=True)
    feed = {"x": rng.normal(size=(2, 5, 12))}
    got, steps, scope = _run(main, startup, feed, fetch, generated=True)
    assert _copies(steps) == ["transpose2"]
    ref = run_reference(main, feed, fetch, scope)
    for name, g, r in zip(fetch, got, ref):
        np.testing.assert_allclose(g, r, rtol=1e-11, atol=1e-12, err_msg=name)
