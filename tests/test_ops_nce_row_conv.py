"""nce and row_conv: values against numpy written from Paddle's op definitions (test_nce.py's
and test_row_conv_op.py's references), compiled against the reference executor, gradients
against central finite differences (float64, LoD and padded inputs), nce's samplers by their
statistics, and the layers' argument errors."""
from __future__ import annotations

import numpy as np
import pytest

import fluidc as fluid
import fluidc as paddle
from fluidc.frontend.errors import OpError
from fluidc.frontend.layers.sampled import _alias_tables

from fluidc.runtime.reference import lod_key

from op_harness import append, assert_same, data_var, run_c, run_reference, seeded

EPS = 1e-6


def _feed_value(value, lod):
    return fluid.create_lod_tensor(value, lod, fluid.CPUPlace()) if lod else value


def fd_check(build, inputs: dict, wrt: tuple, lods: dict | None = None, key: str = "fd",
             out_shape: tuple | None = None):
    """append_backward of sum(build(vars) * W) on the C executor against central differences,
    and the compiled forward against the reference executor. out_shape: the output's shape
    where the build cannot know it (a LoD-dependent one)."""
    lods = lods or {}
    rng = seeded(key)
    program = fluid.Program()
    with fluid.program_guard(program, fluid.Program()):
        block = program.global_block()
        vs = {}
        for n, v in inputs.items():
            vs[n] = block.create_var(name=n, shape=v.shape, dtype=v.dtype.name, is_data=True,
                                     stop_gradient=n not in wrt, lod_level=1 if n in lods else 0)
        out = build(vs)
        weight = rng.uniform(-1, 1, out_shape or out.shape)
        wv = data_var(block, "fd_weight", weight)
        loss = fluid.layers.reduce_sum(fluid.layers.elementwise_mul(out, wv))
        fluid.backward.append_backward(loss)
    exe = fluid.Executor(fluid.CPUPlace())

    def run(values, fetch):  # LoD results: fetched as tensors, as Paddle requires
        feed = {n: _feed_value(v, lods.get(n)) for n, v in values.items()}
        return exe.run(program, feed={**feed, "fd_weight": weight}, fetch_list=fetch,
                       return_numpy=False)

    got = run(inputs, [loss.name, out.name] + [n + "@GRAD" for n in wrt])
    ref_feed = {**inputs, "fd_weight": weight, **{lod_key(n): (tuple(np.cumsum([0, *lod[0]])),)
                                          for n, lod in lods.items()}}
    want_out = run_reference(program, ref_feed, [out.name])[0]
    assert_same(np.asarray(got[1]), np.asarray(want_out), "compiled vs reference")
    for name, analytic in zip(wrt, got[2:]):
        x = inputs[name]
        numeric = np.zeros_like(x)
        for i in np.ndindex(x.shape):
            plus, minus = x.copy(), x.copy()
            plus[i] += EPS
            minus[i] -= EPS
            numeric[i] = (np.asarray(run({**inputs, name: plus}, [loss.name])[0]).item()
                          - np.asarray(run({**inputs, name: minus}, [loss.name])[0]).item()
                          ) / (2 * EPS)
        np.testing.assert_allclose(np.asarray(analytic), numeric, rtol=1e-5, atol=1e-7,
                                   err_msg=f"d loss / d {name}")
    return got[1]


# --- row_conv ------------------------------------------------------------------------------

def row_conv_numpy(x, lengths, w):
    """Paddle's row_conv_forward: out[t] = sum_k x[t + k] * w[k] inside each sequence."""
    out, start = np.zeros_like(x), 0
    for n in lengths:
        for t in range(n):
            for k in range(w.shape[0]):
                if t + k < n:
                    out[start + t] += x[start + t + k] * w[k]
        start += n
    return out


def _row_conv(vs):
    return append(fluid.default_main_program().global_block(), "row_conv",
                  {"X": [vs["x"]], "Filter": [vs["f"]]})[1]["Out"]


@pytest.mark.parametrize("lengths,context", [([2, 3, 2], 3), ([4, 1, 0, 3], 5), ([1], 2)])
def test_row_conv_lod_values_and_gradients(lengths, context):
    rng = seeded(f"row_conv-{lengths}")
    x, w = rng.uniform(-1, 1, (sum(lengths), 3)), rng.uniform(-1, 1, (context, 3))
    out = fd_check(_row_conv, {"x": x, "f": w}, ("x", "f"), {"x": [lengths]},
                   key=f"row_conv-{lengths}")
    np.testing.assert_allclose(np.asarray(out), row_conv_numpy(x, lengths, w), rtol=1e-12)
    assert out.recursive_sequence_lengths() == [lengths]


def test_row_conv_padded_values_and_gradients():
    rng = seeded("row_conv-padded")
    x, w = rng.uniform(-1, 1, (2, 4, 3)), rng.uniform(-1, 1, (6, 3))  # context past T
    out = fd_check(_row_conv, {"x": x, "f": w}, ("x", "f"), key="row_conv-padded")
    want = row_conv_numpy(x.reshape(-1, 3), [4, 4], w).reshape(x.shape)
    np.testing.assert_allclose(np.asarray(out), want, rtol=1e-12)


def test_row_conv_layer_and_errors():
    x = paddle.static.data("x", [-1, -1, 4], "float32")
    out = paddle.static.nn.row_conv(x, 2, act="relu")
    w = fluid.default_main_program().global_block().all_parameters()[0]
    assert list(w.shape) == [3, 4] and out.shape[-1] == 4
    with pytest.raises(TypeError):
        paddle.static.nn.row_conv(paddle.static.data("i", [-1, 4], "int64"), 1)
    xl = paddle.static.data("xl", [-1, 4], "float32", lod_level=1)
    out = paddle.static.nn.row_conv(xl, 1)
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(fluid.default_startup_program())
    with pytest.raises(OpError, match="needs a LoD"):
        exe.run(feed={"xl": np.ones((3, 4), "float32")}, fetch_list=[out])


# --- nce -----------------------------------------------------------------------------------

def nce_numpy(x, w, bias, sample_weight, labels, negs, p_of):
    """Paddle's test_nce reference, with b = num_neg * P(class) per sampled class (P by p_of,
    both in float32 as Paddle's kernel has them)."""
    n, t = labels.shape
    sample = np.concatenate([labels, np.tile(negs, (n, 1))], 1)
    o = 1 / (1 + np.exp(-((x[:, None, :] * w[sample]).sum(-1) + bias.reshape(-1)[sample])))
    b = (p_of(sample).astype(np.float32) * np.float32(len(negs))).astype(x.dtype)
    cost = np.where(np.arange(sample.shape[1]) < t, -np.log(o / (o + b)), -np.log(b / (o + b)))
    return (cost * sample_weight.reshape(n, 1)).sum(1, keepdims=True), o, sample


def _nce_case(rng, n=5, dim=4, classes=9, true=2, negs=(0, 3, 8), dtype="float64"):
    return {"x": rng.normal(size=(n, dim)).astype(dtype),
            "w": rng.normal(size=(classes, dim)).astype(dtype),
            "b": rng.normal(size=(classes, 1)).astype(dtype),
            "sw": rng.uniform(0.2, 1.5, (n, 1)).astype(dtype),
            "label": rng.integers(0, classes, (n, true)).astype(np.int64)}, list(negs)


CUSTOM = ("CustomDistProbs", "CustomDistAlias", "CustomDistAliasProbs")


def _nce_op(attrs, outputs=("Cost",)):
    def build(vs):
        ins = {"Input": [vs["x"]], "Label": [vs["label"]], "Weight": [vs["w"]],
               "Bias": [vs["b"]], "SampleWeight": [vs["sw"]]}
        ins.update({s: [vs[s]] for s in CUSTOM if s in vs})
        return append(fluid.default_main_program().global_block(), "nce", ins, attrs)[1][
            outputs[0]]
    return build


@pytest.mark.parametrize("sampler", [0, 1, 2])
def test_nce_values_and_gradients(sampler):
    rng = seeded(f"nce-{sampler}")
    inputs, negs = _nce_case(rng)
    classes = inputs["w"].shape[0]
    attrs = {"num_total_classes": classes, "num_neg_samples": len(negs),
             "custom_neg_classes": negs, "sampler": sampler}
    probs = rng.dirichlet(np.ones(classes)).astype(np.float32)
    p_of = {0: lambda s: np.full(s.shape, 1 / classes),
            1: lambda s: np.log((s + 2.0) / (s + 1.0)) / np.log(classes),
            2: lambda s: probs[s]}[sampler]
    if sampler == 2:
        inputs.update(zip(CUSTOM, (probs, *_alias_tables(probs.astype(np.float64)))))
    cost = fd_check(_nce_op(attrs), inputs, ("x", "w", "b"), key=f"nce-{sampler}")
    want, _, _ = nce_numpy(inputs["x"], inputs["w"], inputs["b"], inputs["sw"],
                           inputs["label"], np.array(negs), p_of)
    np.testing.assert_allclose(np.asarray(cost), want, rtol=1e-12)


def test_nce_outputs_match_reference_float32():
    rng = seeded("nce-f32")
    inputs, negs = _nce_case(rng, dtype="float32", true=1)
    program = fluid.Program()
    with fluid.program_guard(program, fluid.Program()):
        vs = {n: data_var(program.global_block(), n, v) for n, v in inputs.items()}
        attrs = {"num_total_classes": 9, "num_neg_samples": 3, "custom_neg_classes": negs}
        outs = append(program.global_block(), "nce",
                      {"Input": [vs["x"]], "Label": [vs["label"]], "Weight": [vs["w"]],
                       "Bias": [vs["b"]], "SampleWeight": [vs["sw"]]}, attrs)[1]
    fetch = [outs[s].name for s in ("Cost", "SampleLogits", "SampleLabels")]
    got, ref = run_c(program, inputs, fetch), run_reference(program, inputs, fetch)
    want = nce_numpy(inputs["x"], inputs["w"], inputs["b"], inputs["sw"], inputs["label"],
                     np.array(negs), lambda s: np.full(s.shape, 1 / 9))
    for g, r, wv, slot in zip(got, ref, want, ("Cost", "SampleLogits", "SampleLabels")):
        assert_same(g, r, slot)
        np.testing.assert_allclose(g, np.asarray(wv, g.dtype), rtol=1e-5, err_msg=slot)


def _drawn(sampler, classes=12, n=6000, neg=4, seed=0, **layer_kw):
    main, start = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, start):
        x = paddle.static.data("x", [-1, 3], "float32")
        label = paddle.static.data("label", [-1, 1], "int64")
        paddle.static.nn.nce(x, label, classes, num_neg_samples=neg, sampler=sampler,
                             seed=seed, **layer_kw)
    op = next(o for o in main.global_block().ops if o.type == "nce")
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(start)
    feed = {"x": np.zeros((n, 3), "float32"), "label": np.full((n, 1), 5, "int64")}
    labels = exe.run(main, feed=feed, fetch_list=[op.output("SampleLabels")[0]])[0]
    assert (labels[:, 0] == 5).all()
    return labels[:, 1:]


@pytest.mark.parametrize("sampler", ["uniform", "log_uniform", "custom_dist"])
def test_nce_sampler_statistics(sampler):
    classes = 12
    dist = np.arange(1, classes + 1, dtype=np.float64)
    dist /= dist.sum()
    want = {"uniform": np.full(classes, 1 / classes),
            "log_uniform": np.log((np.arange(classes) + 2) / (np.arange(classes) + 1))
            / np.log(classes),
            "custom_dist": dist}[sampler]
    kw = {"custom_dist": dist} if sampler == "custom_dist" else {}
    drawn = _drawn(sampler, classes, **kw)
    assert drawn.min() >= 0 and drawn.max() < classes
    freq = np.bincount(drawn.ravel(), minlength=classes) / drawn.size
    # 24000 draws: a frequency's standard error is below 0.004
    if sampler == "log_uniform":  # Paddle's draw never gives the last class: compare the rest
        freq, want = freq[:-1], want[:-1]
    np.testing.assert_allclose(freq, want, atol=0.015)


def test_nce_seed_repeats_and_unseeded_differs():
    a, b = _drawn("uniform", seed=7, n=50), _drawn("uniform", seed=7, n=50)
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(_drawn("uniform", n=50), _drawn("uniform", n=50))


def test_nce_layer_errors():
    x = paddle.static.data("x", [-1, 3], "float32")
    label = paddle.static.data("label", [-1, 1], "int64")
    with pytest.raises(ValueError, match="rank of `input` must be 2"):
        paddle.static.nn.nce(paddle.static.data("x3", [-1, 3, 2], "float32"), label, 5)
    with pytest.raises(TypeError):
        paddle.static.nn.nce(x, paddle.static.data("l32", [-1, 1], "int32"), 5)
    with pytest.raises(ValueError, match="sampler"):
        paddle.static.nn.nce(x, label, 5, sampler="zipf")
    with pytest.raises(AssertionError, match="needs custom_dist"):
        paddle.static.nn.nce(x, label, 5, sampler="custom_dist")
    with pytest.raises(ValueError, match="custom_dist has 3"):
        paddle.static.nn.nce(x, label, 5, sampler="custom_dist", custom_dist=[0.2, 0.3, 0.5])
    block = fluid.default_main_program().global_block()
    w = paddle.static.data("w", [5, 3], "float32")
    with pytest.raises(OpError, match="custom_neg_classes"):
        append(block, "nce", {"Input": [x], "Label": [label], "Weight": [w]},
               {"num_total_classes": 5, "num_neg_samples": 2, "custom_neg_classes": [1, 5]})


def test_alias_tables_give_the_distribution():
    dist = seeded("alias").dirichlet(np.ones(9) * 0.5)
    alias, keep = _alias_tables(dist)
    got = keep / len(dist)  # column i kept
    for i, a in enumerate(alias):
        if a >= 0:
            got[a] += (1 - keep[i]) / len(dist)
        else:
            assert keep[i] == 1.0
    np.testing.assert_allclose(got, dist, atol=1e-6)
