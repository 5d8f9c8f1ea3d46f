"""warpctc / F.ctc_loss / nn.CTCLoss: the numpy log-space forward-backward (the reference
executor) against torch's ctc_loss (the compiled kernel) over random cases, LoD against padded
input, gradients against central differences, norm_by_times, the reductions, and bad input."""
from __future__ import annotations

import numpy as np
import pytest

import fluidc as fluid
import fluidc as paddle
from fluidc.frontend.errors import OpError

from op_harness import append, assert_same, one_op_program, run_c, run_reference, seeded
from test_ops_nce_row_conv import fd_check


def _padded_case(rng, t_len, l_len, classes, blank, dtype="float64", repeats=False):
    b = len(t_len)
    labels = rng.integers(0, classes - 1, (b, max(max(l_len), 1)))
    labels = np.where(labels >= blank, labels + 1, labels)  # never the blank
    if repeats:  # runs of one label need a blank between them in every alignment
        labels[:, 1::2] = labels[:, ::2][:, :labels[:, 1::2].shape[1]]
    return {"Logits": rng.normal(size=(max(t_len), b, classes)).astype(dtype),
            "Label": labels.astype(np.int32),
            "LogitsLength": np.array(t_len, np.int64), "LabelLength": np.array(l_len, np.int64)}


CASES = [  # (logit lengths, label lengths, classes, blank, repeated labels)
    ([6, 5, 4], [3, 2, 1], 5, 0, False),
    ([7, 7], [3, 3], 4, 3, True),  # 3 labels with repeats need 5 steps
    ([5, 3, 1], [2, 0, 1], 6, 2, False),  # an empty label, a one-step sequence
    ([12], [6], 3, 1, True),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", range(len(CASES)))
def test_forward_backward_matches_torch(case, dtype):
    t_len, l_len, classes, blank, repeats = CASES[case]
    ins = _padded_case(seeded(f"ctc-{case}"), t_len, l_len, classes, blank, dtype, repeats)
    program, feed, names, _ = one_op_program("warpctc", ins, {"blank": blank})
    fetch = [names["Loss"], names["WarpCTCGrad"]]
    got, want = run_c(program, feed, fetch), run_reference(program, feed, fetch)
    tol = (2e-5, 2e-5) if dtype == "float32" else (1e-10, 1e-10)
    for g, w, what in zip(got, want, ("Loss", "WarpCTCGrad")):
        assert_same(g, w, what, tol)
    assert np.isfinite(got[0]).all()
    for b, t in enumerate(t_len):  # nothing past a sequence's end
        assert not got[1][t:, b].any()
    # d Loss / d logits sums to 0 over the classes (softmax minus a distribution)
    np.testing.assert_allclose(got[1].sum(-1), 0, atol=1e-5)


def _lod_form(ins):
    t_len, l_len = ins["LogitsLength"], ins["LabelLength"]
    x = np.concatenate([ins["Logits"][:t, b] for b, t in enumerate(t_len)])
    y = np.concatenate([ins["Label"][b, :n] for b, n in enumerate(l_len)]).reshape(-1, 1)
    return x, y, [list(t_len)], [list(l_len)]


def _warpctc(attrs):
    def build(vs):
        ins = {"Logits": [vs["x"]], "Label": [vs["y"]]}
        ins.update({s: [vs[n]] for s, n in (("LogitsLength", "xl"), ("LabelLength", "yl"))
                    if n in vs})
        return append(fluid.default_main_program().global_block(), "warpctc", ins, attrs)[1][
            "Loss"]
    return build


def test_lod_and_padded_forms_agree_with_gradients():
    """(norm_by_times makes the gradient not the derivative: tested on its own below)"""
    ins = _padded_case(seeded("ctc-lod"), [4, 2, 3], [2, 1, 1], 4, 0)
    attrs = {"blank": 0}
    x, y, x_lod, y_lod = _lod_form(ins)
    lod_loss = fd_check(_warpctc(attrs), {"x": x, "y": y}, ("x",), {"x": x_lod, "y": y_lod},
                        key="ctc-lod", out_shape=(3, 1))
    padded = {"x": ins["Logits"], "y": ins["Label"], "xl": ins["LogitsLength"],
              "yl": ins["LabelLength"]}
    padded_loss = fd_check(_warpctc(attrs), padded, ("x",), key="ctc-padded")
    np.testing.assert_allclose(np.asarray(lod_loss), np.asarray(padded_loss), rtol=1e-12)


def test_norm_by_times_scales_only_the_gradient():
    ins = _padded_case(seeded("ctc-nbt"), [5, 3], [2, 1], 4, 0)
    results = {}
    for nbt in (False, True):
        main = fluid.Program()
        with fluid.program_guard(main, fluid.Program()):
            x = paddle.static.data("x", [5, 2, 4], "float64")
            x.stop_gradient = False
            y = paddle.static.data("y", [2, 2], "int32")
            xl = paddle.static.data("xl", [2], "int64")
            yl = paddle.static.data("yl", [2], "int64")
            loss = fluid.layers.warpctc(x, y, norm_by_times=nbt, input_length=xl,
                                        label_length=yl)
            (g,) = paddle.static.gradients([loss], [x])
        feed = {"x": ins["Logits"], "y": ins["Label"], "xl": ins["LogitsLength"],
                "yl": ins["LabelLength"]}
        results[nbt] = fluid.Executor(fluid.CPUPlace()).run(main, feed=feed, fetch_list=[loss, g])
    np.testing.assert_array_equal(results[False][0], results[True][0])
    np.testing.assert_allclose(results[True][1], results[False][1] / np.array([5, 3])[None, :,
                                                                                    None])


def _ctc_loss_program(reduction, zero_infinity=False, layer=False):
    x = paddle.static.data("x", [-1, 2, 4], "float32")
    y = paddle.static.data("y", [2, 3], "int32")
    xl = paddle.static.data("xl", [2], "int64")
    yl = paddle.static.data("yl", [2], "int64")
    if layer:
        return paddle.nn.CTCLoss(reduction=reduction, zero_infinity=zero_infinity)(x, y, xl, yl)
    return paddle.nn.functional.ctc_loss(x, y, xl, yl, reduction=reduction,
                                         zero_infinity=zero_infinity)


def test_ctc_loss_reductions_and_zero_infinity():
    rng = seeded("ctc-red")
    feed = {"x": rng.normal(size=(4, 2, 4)).astype("float32"),
            "y": np.array([[1, 2, 3], [1, 1, 2]], "int32"),
            "xl": np.array([4, 4], "int64"), "yl": np.array([3, 3], "int64")}
    # the second needs 4 steps for 3 labels with a repeat: 4 is enough; 1 1 2 in 3 steps is not
    outs = [_ctc_loss_program(r) for r in ("none", "sum", "mean")]
    outs.append(_ctc_loss_program("mean", layer=True))
    exe = fluid.Executor(fluid.CPUPlace())
    none, total, mean, layer_mean = exe.run(feed=feed, fetch_list=outs)
    assert none.shape == (2,) and np.isfinite(none).all()
    np.testing.assert_allclose(total, none.sum(), rtol=1e-6)
    np.testing.assert_allclose(mean, (none / 3).mean(), rtol=1e-6)
    np.testing.assert_allclose(layer_mean, mean, rtol=1e-6)
    # 1 1 2 needs 4 steps: in 3 the loss and gradient are 0 (Paddle's warp-ctc), not inf
    short = {**feed, "x": feed["x"][:3], "xl": np.array([3, 3], "int64")}
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        x = paddle.static.data("x", [-1, 2, 4], "float32")
        x.stop_gradient = False
        kept = fluid.layers.warpctc(x, paddle.static.data("y", [2, 3], "int32"),
                                    input_length=paddle.static.data("xl", [2], "int64"),
                                    label_length=paddle.static.data("yl", [2], "int64"))
        (g,) = paddle.static.gradients([kept], [x])
        zeroed = _ctc_loss_program("none", zero_infinity=True)
    kept, g, zeroed = exe.run(main, feed=short, fetch_list=[kept, g, zeroed])
    assert kept[1, 0] == 0 and not g[:, 1].any() and g[:, 0].any()
    np.testing.assert_array_equal(zeroed, kept[:, 0])


def test_bad_input():
    ins = _padded_case(seeded("ctc-bad"), [4, 4], [2, 2], 4, 0, "float32")
    program, feed, names, _ = one_op_program("warpctc", ins, {"blank": 0})
    bad = {**feed, "label0": np.array([[1, 0], [2, 3]], np.int32)}
    with pytest.raises(OpError, match="not be the blank 0"):
        run_c(program, bad, [names["Loss"]])
    with pytest.raises(OpError, match="blank 4 must lie in"):
        one_op_program("warpctc", ins, {"blank": 4})
    x = paddle.static.data("x", [-1, 2, 4], "float32")
    with pytest.raises(TypeError):
        fluid.layers.warpctc(x, paddle.static.data("y", [2, 3], "int64"))
    with pytest.raises(ValueError, match="together"):
        fluid.layers.warpctc(x, paddle.static.data("y32", [2, 3], "int32"),
                             input_length=paddle.static.data("xl", [2], "int64"))
    with fluid.program_guard(fluid.Program(), fluid.Program()), \
            pytest.raises(AssertionError, match="reduction"):
        _ctc_loss_program("avg")
