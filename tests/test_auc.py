"""paddle.static.auc against real Paddle 3.3.1 (tests/fixtures/paddle/auc.npz, written by
tests/fixtures/make_auc_fixture.py from the cases in tests/fixtures/auc_cases.py): the global
and sliding-window AUCs and the four stat vars after every batch, on the compiled plan and the
numpy reference; and the op's reference against an independent rank-based ROC area."""
import os
import sys
import warnings

import numpy as np
import pytest

import fluidc as paddle
from fluidc.frontend.ops.registry import get_op_def
from fluidc.runtime.reference import ReferencePlan

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")
sys.path.insert(0, FIXTURES)
from auc_cases import CASES, batches  # noqa: E402

FIX = np.load(os.path.join(FIXTURES, "paddle", "auc.npz"))
NAMES = ["auc", "batch_auc", "batch_stat_pos", "batch_stat_neg", "stat_pos", "stat_neg"]


def _program(num_thresholds, slide_steps):
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        pred = paddle.static.data("pred", [-1, 2], "float32")
        label = paddle.static.data("label", [-1, 1], "int64")
        auc, batch_auc, stats = paddle.static.auc(pred, label, num_thresholds=num_thresholds,
                                                  slide_steps=slide_steps)
    return main, startup, [auc, batch_auc] + stats


@pytest.mark.parametrize("compiled", [True, False])
@pytest.mark.parametrize("tag", sorted(CASES))
def test_auc_matches_paddle_batch_after_batch(tag, compiled):
    main, startup, fetches = _program(*CASES[tag])
    assert all(v.persistable for v in fetches[2:])
    exe = paddle.static.Executor(paddle.CPUPlace())
    reference = ReferencePlan(main, ["pred", "label"], [v.name for v in fetches])
    with paddle.static.scope_guard(paddle.static.Scope()):
        exe.run(startup)
        for i, (p, y) in enumerate(batches(tag)):
            feed = {"pred": p, "label": y}
            got = exe.run(main, feed=feed, fetch_list=fetches) if compiled else \
                reference.run(feed, paddle.static.global_scope())
            for name, value in zip(NAMES, got):
                want = FIX[f"{tag}_{name}_{i}"]
                assert value.shape == want.shape, (name, i)
                np.testing.assert_allclose(value, want, rtol=1e-12, err_msg=f"{name} {i}")


def _rank_auc(score, label):
    """P(score of a positive > score of a negative), ties counted half."""
    pos, neg = score[label > 0][:, None], score[label == 0][None, :]
    return float(((pos > neg) + 0.5 * (pos == neg)).mean())


def test_auc_reference_is_the_roc_area_of_the_bucketed_scores():
    rng = np.random.default_rng(3)
    t = 1000
    score = rng.integers(0, t + 1, 300) / t  # on bucket edges: bucketing changes no order
    label = rng.integers(0, 2, (300, 1))
    d = get_op_def("auc")
    attrs = d.complete_attrs({"num_thresholds": t, "slide_steps": 0})
    zeros = np.zeros((1, t + 1), np.int64)
    out = d.reference({"Predict": [np.stack([1 - score, score], 1).astype(np.float64)],
                       "Label": [label], "StatPos": [zeros], "StatNeg": [zeros]}, attrs)
    assert float(out["AUC"][0]) == pytest.approx(_rank_auc(score, label[:, 0]), rel=1e-12)
    assert out["StatPosOut"][0].sum() == (label > 0).sum()


def test_auc_rejects_scores_outside_0_1_and_fake_batches_skip_the_global_stats():
    d = get_op_def("auc")
    zeros = np.zeros((1, 8), np.int64)
    ins = {"Predict": [np.array([[0.5], [1.5]], np.float32)], "Label": [np.array([[1], [0]])],
           "StatPos": [zeros], "StatNeg": [zeros]}
    with pytest.raises(ValueError, match="auc"):
        d.reference(ins, d.complete_attrs({"num_thresholds": 7, "slide_steps": 0}))
    ins["Predict"] = [np.array([[0.5], [0.25]], np.float32)]
    ins["InsTagWeight"] = [np.zeros((1, 1), np.float32)]
    out = d.reference(ins, d.complete_attrs({"num_thresholds": 7, "slide_steps": 0}))
    assert out["StatPosOut"][0].sum() == 0 and out["StatNegOut"][0].sum() == 0


def test_save_inference_model_reminds_to_reset_auc_states(tmp_path):
    main, startup, fetches = _program(63, 1)
    exe = paddle.static.Executor(paddle.CPUPlace())
    exe.run(startup)
    pred = main.global_block().var("pred")
    with paddle.static.program_guard(main, startup):
        doubled = pred * 2
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        paddle.static.save_inference_model(str(tmp_path / "m"), [pred], [doubled], exe,
                                           program=main)
    assert any("auc states to 0" in str(m.message) for m in w)
