"""Attention's dropout fused with its softmax (passes/dropout.py): a training dropout is a mask
drawn by `dropout_mask` (the library op's own random stream, hoisted before every op) and the
pointwise `dropout_apply`, which joins the softmax row kernel; an is_test dropout is a pointwise
scale. Random attention cores (scale, additive mask, softmax, dropout, the product with V),
fused (default) against unfused (fuse_all off) and the numpy reference executor (is_test) or
float64 numpy from the fetched mask (training: values and gradients)."""
import numpy as np
import pytest

import fluidc as paddle
from fluidc.passes.pipeline import lower_for_batch

from op_harness import assert_same, run_reference, seeded

TOL = {"float32": (2e-5, 2e-6), "float64": (1e-12, 1e-14)}


def _attention(seed: int, dtype: str, is_test: bool):
    """A random attention core: loss = mean(dropout(softmax(s * scale + m)) @ v * g)."""
    rng = seeded(f"attention{seed}{dtype}{is_test}")
    b, h, s, d = (int(rng.integers(1, 4)), int(rng.integers(1, 4)), int(rng.integers(2, 40)),
                  int(rng.integers(1, 9)))
    p = float(rng.choice([0.0, 0.1, 0.5, 0.9, 1.0]))
    impl = str(rng.choice(["upscale_in_train", "downgrade_in_infer"]))
    scale = float(rng.choice([1.0, 0.125, d ** -0.5]))
    main, startup = paddle.static.Program(), paddle.static.Program()
    main.random_seed = startup.random_seed = int(rng.integers(1, 1000))
    with paddle.unique_name.guard(), paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [b, h, s, s], dtype)
        x.stop_gradient = False
        m = paddle.static.data("m", [b, 1, 1, s], dtype)
        v = paddle.static.data("v", [b, h, s, d], dtype)
        g = paddle.static.data("g", [b, h, s, d], dtype)
        att = paddle.nn.functional.softmax(paddle.scale(x, scale=scale) + m)
        out = paddle.layers.dropout(att, p, is_test=is_test, dropout_implementation=impl)
        loss = paddle.mean(paddle.matmul(out, v) * g)
        dx, = paddle.static.gradients([loss], [x])
    feed = {"x": (rng.standard_normal((b, h, s, s)) * 3).astype(dtype),
            "m": np.where(rng.random((b, 1, 1, s)) < 0.2, -1e4, 0.0).astype(dtype),
            "v": rng.standard_normal((b, h, s, d)).astype(dtype),
            "g": rng.standard_normal((b, h, s, d)).astype(dtype)}
    mask = main.global_block().ops[[o.type for o in main.global_block().ops].index(
        "dropout")].output("Mask")[0]
    return main, startup, feed, [out, dx, mask], dict(p=p, impl=impl, scale=scale)


def _run(main, startup, feed, fetch, fuse: bool):
    exe, scope = paddle.static.Executor(paddle.CPUPlace()), paddle.static.Scope()
    exe.run(startup, scope=scope)
    prog = main
    if not fuse:
        strategy = paddle.static.BuildStrategy()
        strategy.fuse_all = False
        prog = paddle.static.CompiledProgram(main, build_strategy=strategy)
    return exe.run(prog, feed=feed, fetch_list=fetch, scope=scope)


def _expected(feed, mask, a):
    """Out and dL/dx in float64 numpy, for the given mask (training) or none (is_test)."""
    x, m, v, g = (feed[k].astype(np.float64) for k in ("x", "m", "v", "g"))
    scale = np.float64(np.float32(a["scale"]))  # scale's attribute is a float32
    z = x * scale + m
    e = np.exp(z - z.max(-1, keepdims=True))
    sm = e / e.sum(-1, keepdims=True)
    keep = 1.0 - np.float32(a["p"])
    if mask is None:  # is_test
        factor = np.float64(keep) if a["impl"] == "downgrade_in_infer" else 1.0
    else:
        up = 0.0 if a["p"] >= 1 else np.float64(np.float32(1) / keep)
        factor = mask * (up if a["impl"] == "upscale_in_train" else 1.0)
    out = sm * factor
    d_out = (g / g.size) @ np.swapaxes(v, -1, -2)
    d_sm = d_out * factor
    dx = scale * sm * (d_sm - (d_sm * sm).sum(-1, keepdims=True))
    return out, dx


def _ops(main, feed, fetch):
    lp = lower_for_batch(main, list(feed), [f if isinstance(f, str) else f.name for f in fetch],
                         0, shapes={k: v.shape for k, v in feed.items()})
    return [[o.type for o in getattr(s, "ops", None) or [s.op]] for s in lp.steps]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("seed", range(6))
def test_training_dropout_fused_unfused_numpy(seed, dtype):
    main, startup, feed, fetch, a = _attention(seed, dtype, is_test=False)
    fused = _run(main, startup, feed, fetch, fuse=True)
    unfused = _run(main, startup, feed, fetch, fuse=False)
    np.testing.assert_array_equal(fused[2], unfused[2], err_msg="mask")  # the same draws
    for f, u, what in zip(fused, unfused, ("out", "dx")):  # fused softmax: within an ulp
        assert_same(f, u, what, TOL[dtype])
    out, dx, mask = fused
    assert mask.dtype == np.uint8 and set(np.unique(mask)) <= {0, 1}
    want_out, want_dx = _expected(feed, mask.astype(np.float64), a)
    assert_same(out, want_out.astype(dtype), "out", TOL[dtype])
    assert_same(dx, want_dx.astype(dtype), "dx", TOL[dtype])
    # The softmax and the mask's application are a row kernel; the mask's grad is fused too
    # (the epilogue of the generated product making dOut's grad, or the softmax grad's row
    # kernel); no dropout call.
    steps = _ops(main, feed, fetch)
    assert ["dropout_mask"] in steps and not any("dropout" in s for s in steps)
    assert any("dropout_apply" in s and "reduce_sum" in s for s in steps), steps
    assert any("dropout_grad" in s and ("reduce_sum" in s or s[0] == "matmul_v2")
               for s in steps), steps


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("seed", range(6))
def test_is_test_dropout_fused_unfused_reference(seed, dtype):
    main, startup, feed, fetch, a = _attention(seed, dtype, is_test=True)
    fetch = fetch[:2]
    fused = _run(main, startup, feed, fetch, fuse=True)
    unfused = _run(main, startup, feed, fetch, fuse=False)
    ref = run_reference(main, feed, [f.name for f in fetch])
    want_out, want_dx = _expected(feed, None, a)
    for f, u, r, w, what in zip(fused, unfused, ref, (want_out, want_dx), ("out", "dx")):
        assert_same(f, r, what, TOL[dtype])
        assert_same(u, r, what, TOL[dtype])
        assert_same(f, w.astype(dtype), what, TOL[dtype])
    # Fetching Out alone (the grads pruned, nothing reads the mask): a scale in the softmax
    # kernel. (dropout_grad names the mask, so with the grads the library op stays.)
    steps = _ops(main, feed, fetch[:1])
    assert not any("dropout" in s or "dropout_mask" in s for s in steps)
    assert any(s.count("scale") == 2 and "reduce_max" in s for s in steps), steps


def test_unseeded_masks_differ_between_runs_and_keep_their_rate():
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [64, 256], "float32")
        out = paddle.nn.functional.dropout(paddle.nn.functional.softmax(x), p=0.25)
    exe = paddle.static.Executor(paddle.CPUPlace())
    feed = {"x": np.zeros((64, 256), np.float32)}
    a, = exe.run(main, feed=feed, fetch_list=[out])
    b, = exe.run(main, feed=feed, fetch_list=[out])
    assert not np.array_equal(a, b)
    for o in (a, b):
        assert set(np.unique(o)) <= {0.0, np.float32(np.float32(1 / 256) / np.float32(0.75))}
        assert abs((o == 0).mean() - 0.25) < 0.02


def test_is_test_dropout_with_its_mask_fetched_stays_the_library_op():
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [3, 5], "float32")
        out = paddle.nn.functional.dropout(paddle.nn.functional.softmax(x), p=0.5,
                                           training=False, mode="downscale_in_infer")
    mask = main.global_block().ops[-1].output("Mask")[0]
    feed = {"x": seeded("mask fetched").standard_normal((3, 5)).astype("float32")}
    got_out, got_mask = paddle.static.Executor(paddle.CPUPlace()).run(
        main, feed=feed, fetch_list=[out, mask])
    assert_same(got_out, run_reference(main, feed, [out.name])[0], "out")
    np.testing.assert_array_equal(got_mask, np.ones((3, 5), np.uint8))
    assert ["dropout"] in _ops(main, feed, [out.name, mask])


def test_bench_transformer_plans_fuse_dropout_into_softmax():
    """The bench block (bench/transformer.py, built as a Paddle user writes it): in training
    the mask is drawn once up front and the softmax kernel applies it (its grad kernel too);
    the test clone's softmax kernel stores the dropout's output; no dropout library call, no
    reshape copies of layer_norm's parameters."""
    from bench.transformer import D_MODEL, SEQ, build_block
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.unique_name.guard(), paddle.static.program_guard(main, startup):
        x = paddle.static.data(name="x", shape=[-1, SEQ, D_MODEL], dtype="float32")
        out = build_block(paddle, x, 0.1)
        loss = paddle.mean(paddle.square(out))
        test = main.clone(for_test=True)
        paddle.optimizer.Adam(learning_rate=1e-3).minimize(loss)
    for program, fetch, rows in ((main, loss, ["dropout_apply", "dropout_grad"]),
                                 (test, out, ["scale"])):
        lp = lower_for_batch(program, ["x"], [fetch.name], 2)
        steps = [[o.type for o in getattr(s, "ops", None) or [s.op]] for s in lp.steps]
        assert not any("dropout" in s for s in steps)
        assert [s for s in steps if "dropout_mask" in s] == ([["dropout_mask"]]
                                                             if program is main else [])
        for op in rows:
            assert any(op in s and "reduce_sum" in s for s in steps), (op, steps)
        # layer_norm's Scale and Bias broadcast as they are: no reshape2 copy of a parameter
        # Adam writes splits its kernels (frontend/ops/norm.py _ln_param).
        assert ["reshape2"] not in steps, steps
