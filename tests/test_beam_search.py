"""beam_search, beam_search_decode and lod_reset against real Paddle 3.3.1's outputs
(tests/fixtures/paddle/beam_search.npz, made by tests/fixtures/make_beam_search_fixtures.py from
the inputs of tests/fixtures/beam_search_cases.py), plus the layers' argument checks. Paddle's
own cases with their numpy expectations are tests/paddle_tests/test_beam_search_op.py and
test_beam_search_decode_op.py."""
import json
import os
import sys

import numpy as np
import pytest

import fluidc as fluid
from fluidc.frontend.errors import OpError

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "fixtures"))
from beam_search_cases import (CHAIN_BEAM, CHAIN_END, CHAIN_SOURCES, EXPAND_CASES,  # noqa: E402
                               SEARCH_CASES, chain_scores)

FIXTURE = np.load(os.path.join(os.path.dirname(__file__), "fixtures", "paddle", "beam_search.npz"))
SEARCH_OUTS = (("selected_ids", "int64"), ("selected_scores", "float32"), ("parent_idx", "int32"))


def lod_tensor(array, lod=None):
    t = fluid.core.LoDTensor()
    t.set(np.ascontiguousarray(array), fluid.CPUPlace())
    if lod:
        t.set_lod([list(map(int, level)) for level in lod])
    return t


def run_op(op_type, feeds, outputs, attrs):
    """One op over fed vars (feeds: slot -> (name, array, lod)); {output name: (array, lod)}."""
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        inputs, feed = {}, {}
        for slot, (name, array, lod) in feeds.items():
            inputs[slot] = [fluid.layers.data(name, list(array.shape), str(array.dtype),
                                              lod_level=len(lod or ()),
                                              append_batch_size=False)]
            feed[name] = lod_tensor(array, lod)
        block = main.global_block()
        outs = {slot: [block.create_var(name=name, dtype=dtype, lod_level=2)]
                for slot, (name, dtype) in outputs.items()}
        block.append_op(type=op_type, inputs=inputs, outputs=outs, attrs=attrs)
    got = fluid.Executor(fluid.CPUPlace()).run(
        main, feed=feed, fetch_list=[n for n, _ in outputs.values()], return_numpy=False,
        scope=fluid.core.Scope())
    return {name: (np.array(t), t.lod()) for (name, _), t in zip(outputs.values(), got)}


def beam_search(pre_ids, pre_scores, ids, scores, lod, beam_size, end_id, is_accumulated,
                level):
    feeds = {"pre_ids": ("pre_ids", pre_ids, None), "pre_scores": ("pre_scores", pre_scores, None),
             "scores": ("scores", scores, lod)}
    if ids is not None:
        feeds["ids"] = ("ids", ids, lod)
    return run_op("beam_search", feeds, {s: (s, d) for s, d in SEARCH_OUTS},
                  {"level": level, "beam_size": beam_size, "end_id": end_id,
                   "is_accumulated": is_accumulated})


def check_search(got, key):
    for name, _ in SEARCH_OUTS:
        value, lod = got[name]
        want = FIXTURE[f"{key}_{name}"]
        assert value.dtype == want.dtype and value.shape == want.shape, name
        if name == "selected_scores":  # log(score) may round 1 ulp apart from Paddle's logf
            np.testing.assert_allclose(value, want, rtol=1e-6, err_msg=f"{key} {name}")
        else:
            np.testing.assert_array_equal(value, want, err_msg=f"{key} {name}")
        if name != "parent_idx":
            assert lod == json.loads(str(FIXTURE[f"{key}_{name}_lod"])), f"{key} {name}"


@pytest.mark.parametrize("case", [c for c in SEARCH_CASES if c["ids"] is not None],
                         ids=lambda c: c["name"])
def test_beam_search_matches_paddle(case):
    got = beam_search(case["pre_ids"], case["pre_scores"], case["ids"], case["scores"],
                      case["lod"], case["beam_size"], case["end_id"], case["is_accumulated"],
                      case["level"])
    check_search(got, f"search_{case['name']}")


def test_beam_search_without_ids_takes_column_indices():
    """Paddle 3.3.1's kernel cannot run without ids; Paddle's op defines them as the column
    index, i.e. the same selection as with ids = arange(width)."""
    case = next(c for c in SEARCH_CASES if c["ids"] is None)
    common = (case["lod"], case["beam_size"], case["end_id"], case["is_accumulated"],
              case["level"])
    without = beam_search(case["pre_ids"], case["pre_scores"], None, case["scores"], *common)
    columns = np.broadcast_to(np.arange(case["scores"].shape[1]), case["scores"].shape)
    with_ids = beam_search(case["pre_ids"], case["pre_scores"], columns.astype(np.int64),
                           case["scores"], *common)
    assert without["selected_ids"][0].size > 0
    for name, _ in SEARCH_OUTS:
        np.testing.assert_array_equal(without[name][0], with_ids[name][0])
        assert without[name][1] == with_ids[name][1]


def decode(step_ids, step_scores, lods, beam_size, end_id):
    """beam_search_decode over arrays written from fed steps (the fixture script's program)."""
    main, startup = fluid.Program(), fluid.Program()
    feed = {}
    with fluid.program_guard(main, startup):
        arrays = {}
        for slot, steps, dtype in (("Ids", step_ids, "int64"), ("Scores", step_scores, "float32")):
            arrays[slot] = fluid.layers.create_array(dtype)
            for t, (value, lod) in enumerate(zip(steps, lods)):
                x = fluid.layers.data(f"{slot}_{t}", list(value.shape), dtype, lod_level=2,
                                      append_batch_size=False)
                feed[x.name] = lod_tensor(value, lod)
                i = fluid.layers.fill_constant([1], "int64", t)
                fluid.layers.array_write(x, i, array=arrays[slot])
        out = fluid.layers.beam_search_decode(arrays["Ids"], arrays["Scores"], beam_size, end_id)
    got = fluid.Executor(fluid.CPUPlace()).run(main, feed=feed, fetch_list=list(out),
                                               return_numpy=False, scope=fluid.core.Scope())
    return [(np.array(t), t.lod()) for t in got]


def test_search_chain_and_decode_match_paddle():
    """A random search, step by step (candidates as the fixture script drew them), then its
    decode: every step's selection and the sentences equal Paddle's."""
    rng = np.random.RandomState(11)
    n = CHAIN_SOURCES
    pre_ids, pre_scores = np.zeros((n, 1), np.int64), np.ones((n, 1), np.float32)
    lod = [list(range(n + 1))] * 2
    step_ids, step_scores, lods = [pre_ids], [pre_scores], [lod]
    for t in range(int(FIXTURE["chain_steps"]) - 1):
        ids, probs = chain_scores(rng, pre_ids.shape[0])
        np.testing.assert_array_equal(probs, FIXTURE[f"chain_{t}_scores"])
        got = beam_search(pre_ids, pre_scores, ids, probs, lod, CHAIN_BEAM, CHAIN_END, False, 0)
        check_search(got, f"chain_{t}")
        (pre_ids, lod), (pre_scores, _) = got["selected_ids"], got["selected_scores"]
        step_ids.append(pre_ids)
        step_scores.append(pre_scores)
        lods.append(lod)
    (ids, out_lod), (scores, _) = decode(step_ids, step_scores, lods, CHAIN_BEAM, CHAIN_END)
    assert out_lod == json.loads(str(FIXTURE["chain_sentence_lod"]))
    np.testing.assert_array_equal(ids, FIXTURE["chain_sentence_ids"])
    np.testing.assert_allclose(scores, FIXTURE["chain_sentence_scores"], rtol=1e-6)


LOD_RESET_CASES = {
    "y_lod": ({"X": [[0, 3, 6]], "Y": [[0, 1, 3], [0, 2, 3, 6]]}, {}),
    "y_values": ({"X": None, "Y": None}, {}),
    "target": ({"X": [[0, 3, 6]]}, {"target_lod": [0, 1, 4, 6]}),
    "append": ({"X": [[0, 3, 6]]}, {"target_lod": [0, 1, 3, 4, 6], "append": True}),
}


@pytest.mark.parametrize("name", sorted(LOD_RESET_CASES))
def test_lod_reset_matches_paddle(name):
    x = np.arange(12, dtype=np.float32).reshape(6, 2)
    y = np.array([0, 2, 6], np.int32) if name == "y_values" else np.zeros((6, 1), np.float32)
    lods, attrs = LOD_RESET_CASES[name]
    feeds = {"X": ("x", x, lods["X"])}
    if "Y" in lods:
        feeds["Y"] = ("y", y, lods["Y"])
    ((value, lod),) = run_op("lod_reset", feeds, {"Out": ("out", "float32")}, attrs).values()
    np.testing.assert_array_equal(value, FIXTURE[f"reset_{name}_out"])
    assert lod == json.loads(str(FIXTURE[f"reset_{name}_lod"]))


@pytest.mark.parametrize("name", ["plain", "lod", "uneven"])
def test_sequence_expand_as_the_decoder_uses_it_matches_paddle(name):
    rows, x_lod, y_lod = EXPAND_CASES[name]
    x = np.arange(rows * 3, dtype=np.float32).reshape(rows, 3)
    y = np.zeros((y_lod[-1][-1], 1), np.float32)
    ((value, lod),) = run_op("sequence_expand", {"X": ("x", x, x_lod), "Y": ("y", y, y_lod)},
                             {"Out": ("out", "float32")}, {"ref_level": -1}).values()
    np.testing.assert_array_equal(value, FIXTURE[f"expand_{name}_out"])
    assert lod == json.loads(str(FIXTURE[f"expand_{name}_lod"]))


def test_lod_reset_refuses_a_bad_target():
    x = np.zeros((4, 1), np.float32)
    with pytest.raises(OpError, match="end at X's row count 4"):
        run_op("lod_reset", {"X": ("x", x, None)}, {"Out": ("out", "float32")},
               {"target_lod": [0, 2, 3]})


def test_is_empty():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = fluid.layers.data("x", [-1, 3], "float32", append_batch_size=False)
        empty = fluid.layers.is_empty(x)
    exe = fluid.Executor(fluid.CPUPlace())
    for rows, want in ((0, True), (2, False)):
        (got,) = exe.run(main, feed={"x": np.zeros((rows, 3), np.float32)}, fetch_list=[empty])
        assert got.dtype == np.bool_ and got.tolist() == [want]


def test_layers_check_their_arguments():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        ids = fluid.layers.data("ids", [1], "int64", lod_level=2)
        scores = fluid.layers.data("scores", [1], "float32", lod_level=2)
        with pytest.raises(TypeError, match="pre_scores"):
            fluid.layers.beam_search(ids, ids, ids, scores, 2, 0)
        with pytest.raises(TypeError, match="beam_size"):
            fluid.layers.beam_search(ids, scores, ids, scores, 2.0, 0)
        with pytest.raises(TypeError, match="tensor array"):
            fluid.layers.beam_search_decode(ids, scores, 2, 0)
        with pytest.raises(ValueError, match="both none"):
            fluid.layers.lod_reset(scores)
        sel_ids, sel_scores, parent = fluid.layers.beam_search(
            ids, scores, ids, scores, 2, 0, return_parent_idx=True)
    assert (sel_ids.dtype, sel_scores.dtype, parent.dtype) == (
        fluid.core.VarDesc.VarType.INT64, fluid.core.VarDesc.VarType.FP32,
        fluid.core.VarDesc.VarType.INT32)


def test_beam_search_needs_scores_lod():
    x = np.ones((2, 2), np.float32)
    with pytest.raises(OpError, match="scores needs a LoD"):
        beam_search(np.ones((2, 1), np.int64), np.ones((2, 1), np.float32),
                    np.ones((2, 2), np.int64), x, None, 2, 0, True, 0)


def test_beam_search_decode_refuses_bad_steps():
    one = [np.array([0, 0], np.int64)], [np.array([1, 1], np.float32)]
    with pytest.raises(OpError, match="2-level LoD"):
        decode(*one, [[[0, 2]]], 2, 1)
    with pytest.raises(OpError, match="more than beam_size=1 candidates"):
        decode(*one, [[[0, 1], [0, 2]]], 1, 1)


def test_lod_reset_grad_passes_the_gradient_through():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = fluid.layers.data("x", [-1, 2], "float32", lod_level=1, append_batch_size=False)
        x.stop_gradient = False
        out = fluid.layers.lod_reset(x, target_lod=[0, 1, 3])
        loss = fluid.layers.reduce_sum(out * out)
        fluid.backward.append_backward(loss)
    value = np.arange(6, dtype=np.float32).reshape(3, 2)
    grad, = fluid.Executor(fluid.CPUPlace()).run(
        main, feed={"x": lod_tensor(value, [[0, 2, 3]])}, fetch_list=[x.name + "@GRAD"],
        return_numpy=False, scope=fluid.core.Scope())
    np.testing.assert_array_equal(np.array(grad), 2 * value)
    assert grad.lod() == [[0, 2, 3]]
