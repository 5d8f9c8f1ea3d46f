"""chunk_eval, edit_distance and precision_recall: Paddle 3.3.1's numbers for every chunk scheme
and both input forms (tests/fixtures/paddle/sequence_metrics.npz, written by
tests/fixtures/make_sequence_metric_fixtures.py), fused / unfused / the numpy reference agreeing,
edit_distance's row-at-a-time kernel against Paddle's cell recurrence on random sequences, the
fluid.metrics evaluators over fetched counts, and the errors bad input gets."""
import os

import numpy as np
import pytest

import fluidc as fluid
import fluidc as paddle
from fluidc.frontend.errors import OpError
from fluidc.frontend.ops import edit_distance as edit_op
from fluidc.frontend.ops import precision_recall as pr_op

from op_harness import fused_unfused_reference, run_c, seeded

FIXTURE = np.load(os.path.join(os.path.dirname(__file__), "fixtures", "paddle",
                               "sequence_metrics.npz"))
CHUNK_CASES = sorted({k.split(".")[0] for k in FIXTURE.files if k.startswith("chunk_")})
EDIT_CASES = sorted({k.split(".")[0] for k in FIXTURE.files if k.startswith("edit_")})
CHUNK_OUTS = ["Precision", "Recall", "F1-Score", "NumInferChunks", "NumLabelChunks",
              "NumCorrectChunks"]


def lod_tensor(values, lengths):
    return fluid.create_lod_tensor(np.asarray(values).reshape(-1, 1),
                                   [np.asarray(lengths).tolist()], fluid.CPUPlace())


def chunk_program(tag):
    """fluid.layers.chunk_eval over the case's inputs: (program, feed, fetch vars)."""
    _, scheme, excluded, form = tag.split("_")
    lengths = FIXTURE[f"{tag}.lengths"]
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        if form == "pad":
            width = FIXTURE[f"{tag}.Inference"].shape[1]
            x = fluid.data("x", [-1, width], "int64")
            y = fluid.data("y", [-1, width], "int64")
            n = fluid.data("n", [-1], "int64")
            outs = fluid.layers.chunk_eval(x, y, scheme, 3, [1] if excluded == "ex" else None,
                                           seq_length=n)
            feed = {"x": FIXTURE[f"{tag}.Inference"], "y": FIXTURE[f"{tag}.Label"],
                    "n": lengths}
        else:
            x = fluid.data("x", [-1, 1], "int64", lod_level=1)
            y = fluid.data("y", [-1, 1], "int64", lod_level=1)
            outs = fluid.layers.chunk_eval(x, y, scheme, 3, [1] if excluded == "ex" else None)
            feed = {"x": lod_tensor(FIXTURE[f"{tag}.Inference"], lengths),
                    "y": lod_tensor(FIXTURE[f"{tag}.Label"], lengths)}
    return main, feed, list(outs)


@pytest.mark.parametrize("tag", CHUNK_CASES)
def test_chunk_eval_gives_paddles_numbers(tag):
    main, feed, fetch = chunk_program(tag)
    runs = fused_unfused_reference(main, feed, fetch)
    for how, got in runs.items():
        for name, value in zip(CHUNK_OUTS, got):
            want = FIXTURE[f"{tag}.out.{name}"]
            assert value.dtype == want.dtype, (how, name)
            np.testing.assert_array_equal(value.reshape(want.shape), want, err_msg=f"{how} {name}")


def edit_program(tag, normalized):
    _, _, form = tag.split("_")
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        if form == "pad":
            hyps, refs = FIXTURE[f"{tag}.Hyps"], FIXTURE[f"{tag}.Refs"]
            x = fluid.data("x", list(hyps.shape), "int64")
            y = fluid.data("y", list(refs.shape), "int64")
            xl = fluid.data("xl", [-1], "int64")
            yl = fluid.data("yl", [-1], "int64")
            out, num = paddle.nn.functional.loss.edit_distance(
                x, y, normalized=normalized, input_length=xl, label_length=yl)
            feed = {"x": hyps, "y": refs, "xl": FIXTURE[f"{tag}.hyp_lengths"],
                    "yl": FIXTURE[f"{tag}.ref_lengths"]}
        else:
            x = fluid.data("x", [-1, 1], "int64", lod_level=1)
            y = fluid.data("y", [-1, 1], "int64", lod_level=1)
            out, num = fluid.layers.edit_distance(x, y, normalized=normalized)
            feed = {"x": lod_tensor(FIXTURE[f"{tag}.Hyps"], FIXTURE[f"{tag}.hyp_lengths"]),
                    "y": lod_tensor(FIXTURE[f"{tag}.Refs"], FIXTURE[f"{tag}.ref_lengths"])}
    return main, feed, [out, num]


@pytest.mark.parametrize("tag", EDIT_CASES)
def test_edit_distance_gives_paddles_numbers(tag):
    main, feed, fetch = edit_program(tag, tag.split("_")[1] == "norm")
    for how, (out, num) in fused_unfused_reference(main, feed, fetch).items():
        want = FIXTURE[f"{tag}.out.Out"]
        assert out.dtype == np.float32 and out.shape == want.shape, how
        np.testing.assert_array_equal(out, want, err_msg=how)
        np.testing.assert_array_equal(num.reshape(-1), FIXTURE[f"{tag}.out.SequenceNum"])


@pytest.mark.parametrize("seed", range(4))
def test_edit_distance_rows_agree_with_the_cell_recurrence(seed):
    """The kernel's batched rows against Paddle's recurrence on random batches of pairs of
    mixed lengths (empty ones included) over small alphabets, so matches are common."""
    rng = seeded(f"edit_rows_{seed}")
    for _ in range(20):
        pairs = [(rng.integers(0, 3, rng.integers(0, 9)), rng.integers(0, 3, rng.integers(0, 9)))
                 for _ in range(rng.integers(1, 8))]
        np.testing.assert_array_equal(edit_op.levenshtein_rows(pairs),
                                      edit_op.levenshtein_cells(pairs), err_msg=str(pairs))


def test_chunk_evaluator_over_batches():
    """fluid.metrics.ChunkEvaluator fed the counts of two batches gives the precision, recall
    and F1 of their sums (the fixture's IOB LoD and padded cases, as Paddle counted them)."""
    metric = fluid.metrics.ChunkEvaluator()
    sums = np.zeros(3)
    for tag in ("chunk_IOB_all_lod", "chunk_IOB_all_pad"):
        main, feed, fetch = chunk_program(tag)
        counts = run_c(main, feed, fetch[3:])
        metric.update(*counts)
        sums += [FIXTURE[f"{tag}.out.{n}"][0] for n in CHUNK_OUTS[3:]]
    infer, label, correct = sums
    precision, recall, f1 = metric.eval()
    assert precision == pytest.approx(correct / infer) and recall == pytest.approx(correct / label)
    assert f1 == pytest.approx(2 * precision * recall / (precision + recall))


def test_edit_distance_metric_over_a_batch():
    main, feed, fetch = edit_program("edit_raw_lod", False)
    distances, num = run_c(main, feed, fetch)
    metric = fluid.metrics.EditDistance("ed")
    metric.update(distances, int(num[0]))
    want = FIXTURE["edit_raw_lod.out.Out"]
    avg, err = metric.eval()
    assert avg == pytest.approx(want.sum() / len(want))
    assert err == pytest.approx(np.count_nonzero(want) / len(want))


def test_precision_recall_float64_states():
    """MaxProbs' dtype sets the states' and the metrics' arithmetic (float64 here), against
    the states counted by hand."""
    ids = np.array([[0], [1], [1], [2]], np.int32)
    labels = np.array([[0], [2], [1], [2]], np.int32)
    got = pr_op._ref({"MaxProbs": [np.ones((4, 1))], "Indices": [ids], "Labels": [labels]},
                     {"class_number": 3})
    states = got["AccumStatesInfo"][0]
    assert states.dtype == np.float64
    # (TP, FP, TN, FN): class 0 right once; class 1 right once, wrongly for 2 once; 2 right once
    np.testing.assert_array_equal(states, [[1, 0, 3, 0], [1, 1, 2, 0], [1, 0, 2, 1]])
    np.testing.assert_allclose(got["BatchMetrics"][0],
                               [(1 + 0.5 + 1) / 3, (1 + 1 + 0.5) / 3, 2.5 / 3, 0.75, 0.75, 0.75])


def _append(op_type, inputs, attrs, outputs):
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        block = main.global_block()
        ins = {slot: fluid.data(slot.lower(), list(v.shape), str(v.dtype))
               for slot, v in inputs.items()}
        outs = {n: block.create_var(name=n.lower(), dtype=dt) for n, dt in outputs.items()}
        block.append_op(type=op_type, inputs=ins, outputs=outs, attrs=attrs)
    return main, {k.lower(): v for k, v in inputs.items()}, list(outs.values())


CHUNK_OUT_TYPES = {n: "int64" if n.startswith("Num") else "float32" for n in CHUNK_OUTS}
PADDED = {"Inference": np.array([[0, 1, 4]], np.int64), "Label": np.array([[0, 1, 4]], np.int64),
          "SeqLength": np.array([3], np.int64)}


@pytest.mark.parametrize("attrs, inputs, match", [
    ({"chunk_scheme": "BIO", "num_chunk_types": 2}, PADDED, "unknown chunk_scheme 'BIO'"),
    ({"chunk_scheme": "IOB"}, PADDED, "num_chunk_types must be >= 1"),
    ({"chunk_scheme": "IOB", "num_chunk_types": 1}, PADDED, "Inference holds tag 4, above"),
    ({"chunk_scheme": "IOB", "num_chunk_types": 2}, {**PADDED, "SeqLength": np.array([4])},
     "SeqLength"),
])
def test_chunk_eval_errors(attrs, inputs, match):
    with pytest.raises(OpError, match=match):
        main, feed, fetch = _append("chunk_eval", inputs, attrs, CHUNK_OUT_TYPES)
        run_c(main, feed, fetch)


def test_edit_distance_errors():
    hyps, refs = np.array([[1, 2]], np.int64), np.array([[1, 2]], np.int64)
    outs = {"Out": "float32", "SequenceNum": "int64"}
    with pytest.raises(OpError, match="reference 0 is empty"):
        main, feed, fetch = _append("edit_distance", {
            "Hyps": hyps, "Refs": refs, "HypsLength": np.array([2]), "RefsLength": np.array([0])},
            {"normalized": True}, outs)
        run_c(main, feed, fetch)
    with pytest.raises(OpError, match="HypsLength and RefsLength come together"):
        _append("edit_distance", {"Hyps": hyps, "Refs": refs, "HypsLength": np.array([2])}, {},
                outs)
    with pytest.raises(OpError, match="needs a LoD on input Hyps"):
        main, feed, fetch = _append("edit_distance", {"Hyps": hyps.T, "Refs": refs.T}, {}, outs)
        run_c(main, feed, fetch)


def test_precision_recall_needs_class_number():
    with pytest.raises(OpError, match="class_number must be >= 1"):
        _append("precision_recall", {"MaxProbs": np.ones((2, 1), np.float32),
                                     "Indices": np.zeros((2, 1), np.int32),
                                     "Labels": np.zeros((2, 1), np.int32)}, {},
                {"BatchMetrics": "float64", "AccumMetrics": "float64",
                 "AccumStatesInfo": "float32"})


def test_edit_distance_in_dygraph_returns_paddles_order():
    """Paddle 3.3.1's docstring example, whose numbers it prints: in dygraph mode the op's
    outputs come in slot order, (sequence_num, distance)."""
    paddle.disable_static()
    try:
        x = paddle.to_tensor([[1, 2, 3], [4, 5, 6], [4, 4, 4], [1, 1, 1]], dtype='int64')
        y = paddle.to_tensor([[1, 3, 4, 1], [4, 5, 8, 1], [7, 7, 7, 1], [1, 1, 1, 1]],
                             dtype='int64')
        n = paddle.to_tensor([3, 3, 3, 3], dtype='int64')
        m = paddle.to_tensor([4, 4, 4, 4], dtype='int64')
        for normalized, want in ((False, [3, 2, 4, 1]), (True, [0.75, 0.5, 1, 0.25])):
            num, dist = paddle.nn.functional.loss.edit_distance(
                x, y, normalized=normalized, input_length=n, label_length=m)
            np.testing.assert_array_equal(num.numpy(), [4])
            np.testing.assert_array_equal(dist.numpy(), np.array(want, np.float32)[:, None])
    finally:
        paddle.enable_static()


def test_one_program_over_batches_of_different_lods():
    """Plans are per LoD: the same chunk_eval / edit_distance program run on batches with other
    sequence boundaries counts each batch by its own LoD (the reference executor agrees)."""
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        x = fluid.data("x", [-1, 1], "int64", lod_level=1)
        y = fluid.data("y", [-1, 1], "int64", lod_level=1)
        counts = fluid.layers.chunk_eval(x, y, "IOB", 2)[3:]
        dist, num = fluid.layers.edit_distance(x, y, normalized=False)
    tags_x = np.array([0, 1, 2, 3, 4, 0, 1, 1], np.int64)
    tags_y = np.array([0, 1, 2, 4, 4, 0, 0, 1], np.int64)
    exe = fluid.Executor(fluid.CPUPlace())
    for lengths in ([8], [3, 5], [2, 2, 4], [4, 0, 4]):
        feed = {"x": lod_tensor(tags_x, lengths), "y": lod_tensor(tags_y, lengths)}
        fetch = list(counts) + [dist, num]
        runs = fused_unfused_reference(main, feed, fetch)
        got = exe.run(main, feed=feed, fetch_list=fetch)
        for how, values in runs.items():
            for a, b in zip(values, got):
                np.testing.assert_array_equal(a, b, err_msg=f"{how} {lengths}")
        assert got[-2].shape == (len(lengths), 1) and got[-1][0] == len(lengths)
