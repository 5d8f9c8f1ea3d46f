"""Generated attention (passes/attention.py, codegen/c_attention.py, AttentionKernel):
softmax(q k^T [* scale] [+ mask] [* scale]) [* dropout's scale] v, with q, k, v fed as
[b, s, h*d] values split into heads (reshape2 + transpose2, folded into the loads) or as
[b, h, s, d], the context merged back (transpose2 folded into the store) or fetched as is.
Random shapes (heads, query and key counts and head dims of 1, with vector tails; masks
broadcast over heads, batches, query rows), float32 and float64, NaN and infinities, against
the numpy reference executor and the unfused plan (torch's products, the softmax kernel);
the rule, and the plans (training, fetched weights) that keep the old steps."""
import numpy as np
import pytest

import fluidc as paddle
from fluidc.passes.attention import MAX_HEAD_DIM, MAX_KEYS, AttentionKernel
from fluidc.passes.pipeline import lower_for_batch

from op_harness import assert_same, fused_unfused_reference, run_reference, seeded

# The tile sums a score's d products in order in float32 (as the generated GEMM), BLAS in
# blocks: unscaled scores of ~30 over d = 64 differ by ~1e-5 from the reference's (a planted
# stride or tail bug is off by O(1)).
TOL = {"float32": (1e-4, 3e-5), "float64": (1e-12, 1e-13)}
MASKS = [None, "b1qk", "11qk", "b11k", "bhqk", "qk", "k"]  # which dims the mask has


def _kernels(program, feed, fetch) -> list[AttentionKernel]:
    lp = lower_for_batch(program, list(feed), [v.name for v in fetch], 0,
                         shapes={n: v.shape for n, v in feed.items()})
    return [s for s in lp.steps if isinstance(s, AttentionKernel)]


def _mask_shape(kind: str, b, h, sq, sk) -> list[int]:
    dims = {"b": b, "h": h, "q": sq, "k": sk, "1": 1}
    return [dims[c] for c in kind]


def _program(rng, dtype: str, split: bool, mask: str | None, order: str, drop: str | None,
             shape=None, alpha: float | None = None):
    """q, k, v (split: fed [b, s, h*d] and split into heads; else [b, h, s, d]), q scaled
    before the product (order starting 'q'), the scores scaled before or after the mask (then
    'sm', 'ms', 's', 'm', ''), a dropout in test mode (its implementation) or none; the scores
    by matmul_v2, or by matmul with `alpha`; fetched as [b, sq, h*dv] (split) or
    [b, h, sq, dv]."""
    b, h, sq, sk, dk, dv = shape or (
        int(rng.integers(1, 4)), int(rng.integers(1, 5)), int(rng.choice([1, 2, 5, 13, 40])),
        int(rng.choice([1, 3, 7, 17, 33, 70])), int(rng.choice([1, 5, 8, 16, 33, 64])),
        int(rng.choice([1, 6, 8, 24, 64])))
    if split:
        dv = dk  # one projection width
    F = paddle.nn.functional
    main, startup = paddle.static.Program(), paddle.static.Program()
    feed = {}
    with paddle.unique_name.guard(), paddle.static.program_guard(main, startup):
        def value(name, s, d):
            shape_ = [b, s, h * d] if split else [b, h, s, d]
            feed[name] = rng.standard_normal(shape_).astype(dtype)
            x = paddle.static.data(name, shape_, dtype)
            return paddle.transpose(paddle.reshape(x, [0, 0, h, d]), [0, 2, 1, 3]) \
                if split else x
        q, k, v = value("q", sq, dk), value("k", sk, dk), value("v", sk, dv)
        if order.startswith("q"):
            q = paddle.scale(q, scale=float(dk) ** -0.5)
        s = paddle.matmul(q, k, transpose_y=True) if alpha is None else \
            paddle.layers.matmul(q, k, transpose_y=True, alpha=alpha)
        for step in order.removeprefix("q"):
            if step == "s":
                s = paddle.scale(s, scale=float(dk) ** -0.5)
            else:
                m = paddle.static.data("m", _mask_shape(mask, b, h, sq, sk), dtype)
                feed["m"] = np.where(rng.random(m.shape) < 0.3, -1e4, rng.standard_normal(
                    m.shape)).astype(dtype)
                s = s + m
        att = F.softmax(s)
        if drop:
            att = paddle.layers.dropout(att, 0.25, is_test=True, dropout_implementation=drop)
        ctx = paddle.matmul(att, v)
        if split:
            ctx = paddle.reshape(paddle.transpose(ctx, [0, 2, 1, 3]), [0, 0, h * dv])
    return main, feed, ctx, att


def _check(main, feed, fetch, dtype):
    got = fused_unfused_reference(main, feed, fetch)
    for what in ("unfused", "reference"):
        for a, b in zip(got["fused"], got[what]):
            assert_same(a, b, what, TOL[dtype])
    return got["fused"]


@pytest.mark.parametrize("seed", range(24))
def test_random_attention_against_reference_and_unfused(seed):
    rng = seeded(f"attention-kernel-{seed}")
    dtype = ("float32", "float64")[seed % 2]
    split = seed % 3 != 2
    mask = MASKS[seed % len(MASKS)]
    order = str(rng.choice(["sm", "ms", "m", "qm", "qsm"])) if mask else \
        str(rng.choice(["s", "", "q"]))
    drop = (None, "upscale_in_train", "downgrade_in_infer")[seed % 3]
    alpha = (None, 1.0, 0.3)[seed % 3] if seed % 4 == 1 else None  # matmul (v1)
    main, feed, ctx, _ = _program(rng, dtype, split, mask, order, drop, alpha=alpha)
    kernel, = _kernels(main, feed, [ctx])
    assert kernel.heads_second == (split,) * 3 and kernel.out_heads_second == split
    assert (kernel.q_scale is not None) == order.startswith("q")
    assert [op[0] for op in kernel.score_ops] == ["scale"] * (alpha not in (None, 1.0)) + [
        {"s": "scale", "m": "mask"}[c] for c in order.removeprefix("q")]
    with paddle.scope_guard(paddle.Scope()):
        _check(main, feed, [ctx], dtype)


@pytest.mark.filterwarnings("ignore:invalid value:RuntimeWarning")  # the reference's inf - inf
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_nan_and_infinities(dtype):
    """A NaN in a query makes its rows NaN; +inf in a key makes every score row reading it NaN
    (inf - inf); a row masked by -inf everywhere is NaN; -inf on some keys gives their weights
    exp(floor), as the softmax kernel."""
    rng = seeded(f"attention-kernel-nan-{dtype}")
    main, feed, ctx, _ = _program(rng, dtype, True, "b1qk", "sm", None, (2, 3, 9, 21, 16, 16))
    feed["q"][0, 2, 5] = np.nan
    feed["k"][1, 4, 16 + 3] = np.inf  # head 1's key 4
    feed["m"][1, 0, 6, :] = -np.inf
    feed["m"][0, 0, 1, ::3] = -np.inf
    assert len(_kernels(main, feed, [ctx])) == 1
    with paddle.scope_guard(paddle.Scope()):
        out, = _check(main, feed, [ctx], dtype)
    assert np.isnan(out).any() and np.isfinite(out).any()


def test_large_scores():
    """Scores in the hundreds: exp overflows unless the row's max is subtracted, and many
    weights are clipped at the floor (exp(-64)), as the softmax kernel does."""
    rng = seeded("attention-kernel-large")
    main, feed, ctx, _ = _program(rng, "float32", True, None, "", None, (2, 2, 13, 150, 16, 16))
    feed["q"] *= 40
    assert len(_kernels(main, feed, [ctx])) == 1
    with paddle.scope_guard(paddle.Scope()):
        out, = _check(main, feed, [ctx], "float32")
    assert np.isfinite(out).all()


def test_bench_block_inference_unchanged():
    """The bench transformer block's inference plan: one AttentionKernel (no transpose or
    library product left), its output within float32 tolerance of the unfused plan's."""
    from bench.transformer import FluidcBlock, synthetic_data
    block = FluidcBlock()
    feed = synthetic_data()
    lp = lower_for_batch(block.test_program, ["x"], [block.out.name], feed["x"].shape[0])
    types = [type(s).__name__ for s in lp.steps]
    assert types.count("AttentionKernel") == 1 and "Extern" not in types
    plain = paddle.static.BuildStrategy()
    plain.fuse_all = False
    fused, = block.exe.run(block.test_program, feed=feed, fetch_list=[block.out],
                           scope=block.scope)
    unfused, = block.exe.run(paddle.static.CompiledProgram(block.test_program,
                                                           build_strategy=plain),
                             feed=feed, fetch_list=[block.out], scope=block.scope)
    assert_same(fused, unfused, "unfused", (1e-4, 1e-5))


def test_training_and_fetched_weights_keep_the_old_steps():
    """Where the attention weights or scores are read elsewhere (training: the products'
    grads read them; a fetch) the chain stays the library products and the softmax kernel."""
    from bench.transformer import FluidcBlock, synthetic_data
    block = FluidcBlock()
    feed = synthetic_data()
    lp = lower_for_batch(block.main, ["x"], [block.loss.name], feed["x"].shape[0])
    assert not any(isinstance(s, AttentionKernel) for s in lp.steps)
    assert any(s.op.type == "matmul_v2" for s in lp.steps if hasattr(s, "op"))
    rng = seeded("attention-kernel-fetched")
    main, feed, ctx, att = _program(rng, "float32", True, None, "s", None, (2, 2, 5, 7, 8, 8))
    assert len(_kernels(main, feed, [ctx])) == 1
    assert _kernels(main, feed, [ctx, att]) == []


def test_rule():
    """float32/float64 only, at most MAX_KEYS keys and MAX_HEAD_DIM head dims."""
    rng = seeded("attention-kernel-rule")

    def generated(shape, dtype="float32", split=False):
        main, feed, ctx, _ = _program(rng, dtype, split, None, "s", None, shape)
        return len(_kernels(main, feed, [ctx]))
    assert generated((1, 1, 2, MAX_KEYS, 4, 4)) == 1
    assert generated((1, 1, 2, MAX_KEYS + 1, 4, 4)) == 0
    assert generated((1, 1, 2, 8, MAX_HEAD_DIM, 4)) == 1
    assert generated((1, 1, 2, 8, MAX_HEAD_DIM + 1, 4)) == 0
    assert generated((1, 1, 2, 8, 4, MAX_HEAD_DIM + 1)) == 0
    assert generated((1, 2, 3, 8, 4, 4), "float16") == 0


def test_many_keys_and_wide_heads():
    """The largest keys and head dims the rule takes, with tails past the panels."""
    rng = seeded("attention-kernel-wide")
    main, feed, ctx, _ = _program(rng, "float32", True, "b11k", "ms", None,
                                  (1, 2, 7, MAX_KEYS - 3, MAX_HEAD_DIM - 1, MAX_HEAD_DIM - 1))
    assert len(_kernels(main, feed, [ctx])) == 1
    with paddle.scope_guard(paddle.Scope()):
        _check(main, feed, [ctx], "float32")


def test_one_value_as_queries_keys_and_values():
    """Self-attention over one split value: its transpose is read by both products, so it
    is read as it is ([b, h, s, d]), not folded."""
    rng = seeded("attention-kernel-self")
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.unique_name.guard(), paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [2, 11, 3 * 8], "float32")
        t = paddle.transpose(paddle.reshape(x, [0, 0, 3, 8]), [0, 2, 1, 3])
        att = paddle.nn.functional.softmax(paddle.matmul(t, t, transpose_y=True))
        ctx = paddle.reshape(paddle.transpose(paddle.matmul(att, t), [0, 2, 1, 3]), [0, 0, 24])
    feed = {"x": rng.standard_normal((2, 11, 24)).astype("float32")}
    kernel, = _kernels(main, feed, [ctx])
    assert kernel.heads_second == (False,) * 3 and kernel.q == kernel.k == kernel.v
    with paddle.scope_guard(paddle.Scope()):
        _check(main, feed, [ctx], "float32")


def test_paddle_nn_multi_head_attention():
    """paddle.nn.MultiHeadAttention in eval mode (q scaled before the product, an additive
    mask, dropout in test mode) is one AttentionKernel between its projections."""
    rng = seeded("attention-kernel-mha")
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.unique_name.guard(), paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [2, 10, 32], "float32")
        mask = paddle.static.data("mask", [2, 1, 10, 10], "float32")
        mha = paddle.nn.MultiHeadAttention(32, 4, dropout=0.1)
        mha.eval()
        y = mha(x, attn_mask=mask)
    feed = {"x": rng.standard_normal((2, 10, 32)).astype("float32"),
            "mask": np.where(rng.random((2, 1, 10, 10)) < 0.3, -1e9, 0).astype("float32")}
    kernel, = _kernels(main, feed, [y])
    assert kernel.q_scale == pytest.approx(8 ** -0.5) and kernel.heads_second == (True,) * 3
    scope, exe = paddle.Scope(), paddle.static.Executor(paddle.CPUPlace())
    plain = paddle.static.BuildStrategy()
    plain.fuse_all = False
    exe.run(startup, scope=scope)
    fused, = exe.run(main, feed=feed, fetch_list=[y], scope=scope)
    unfused, = exe.run(paddle.static.CompiledProgram(main, build_strategy=plain), feed=feed,
                       fetch_list=[y], scope=scope)
    reference, = run_reference(main, feed, [y.name], scope)
    assert_same(fused, unfused, "unfused", TOL["float32"])
    assert_same(fused, reference, "reference", TOL["float32"])
