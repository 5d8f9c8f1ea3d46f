"""passes/value_reads.py: which inputs of a grad op its lowering reads as values. The answer
is pinned for common grad ops and checked where it matters: NaN in every input it says is
read for its shape alone leaves the op's results unchanged, compiled and by the numpy
reference executor."""
import dataclasses

import numpy as np
import pytest

from fluidc.frontend.ops import OpDesc, VarInfo, get_op_def, registry
from fluidc.passes.lower import infer_op
from fluidc.passes import value_reads
from fluidc.passes.value_reads import values_read
from op_harness import one_op_program, run_c, run_reference, seeded

# (forward op, its input shapes by slot, attrs, the grad op's inputs read as values: the
# forward vars by slot name as the grad op holds them)
CASES = [
    ("elementwise_add", {"X": (3, 4, 5), "Y": (5,)}, {"axis": -1}, set()),
    ("elementwise_add", {"X": (3, 4, 5), "Y": (4,)}, {"axis": 1}, set()),
    ("elementwise_sub", {"X": (3, 4, 5), "Y": (3, 4, 5)}, {"axis": -1}, set()),
    ("elementwise_mul", {"X": (3, 4, 5), "Y": (4, 5)}, {"axis": -1}, {"X", "Y"}),
    ("matmul_v2", {"X": (2, 3, 4), "Y": (4, 5)}, {}, {"X", "Y"}),
    # (a view's grad reads XShape, which holds no elements: to_static records it as is)
    ("reshape2", {"X": (3, 4)}, {"shape": [12]}, {"XShape"}),
    ("transpose2", {"X": (2, 3, 4)}, {"axis": [1, 0, 2]}, {"XShape"}),
    ("scale", {"X": (3, 4)}, {"scale": 2.0, "bias": 1.0}, set()),
    ("tanh", {"X": (3, 4)}, {}, {"Out"}),
    ("gelu", {"X": (4, 6)}, {}, {"X"}),
    ("softmax", {"X": (3, 5)}, {"axis": -1}, {"Out"}),
    ("reduce_mean", {"X": (3, 4)}, {"dim": [1]}, set()),
]


def _grad_op(op_type, shapes, attrs):
    """The grad op of a forward op over vars named by slot, and every var's info."""
    opdef = get_op_def(op_type)
    outs = {s.name: [s.name.lower() + "_out"] for s in opdef.outputs}
    op = OpDesc(op_type, {s: [s.lower()] for s in shapes}, outs, opdef.complete_attrs(attrs))
    infos = {s.lower(): VarInfo(shape, 5) for s, shape in shapes.items()}  # float32
    infer_op(op, infos)
    gop, = opdef.grad(op)
    return op, gop, infos


def _info_of(infos):
    return lambda n: infos.get(n)


@pytest.mark.parametrize("case", range(len(CASES)), ids=lambda i: CASES[i][0])
def test_values_read_and_nan_for_the_rest_changes_nothing(case):
    op_type, shapes, attrs, expected = CASES[case]
    op, gop, infos = _grad_op(op_type, shapes, attrs)
    read = values_read(gop, _info_of(infos))
    slot_of = {n: s for s, vs in {**op.inputs, **op.outputs}.items() for n in vs}
    assert {slot_of[n] for n in read if n in slot_of} == expected
    rng = seeded(f"value_reads{case}")
    feed_by_slot, nan_by_slot = {}, {}
    for slot, names in gop.inputs.items():
        n = names[0]
        info = infos.get(n) or infos[n[:-len("@GRAD")]]
        a = rng.normal(size=info.shape).astype("float32")
        feed_by_slot[slot] = a
        nan_by_slot[slot] = a if n in read or not a.size else np.full_like(a, np.nan)
    outputs = [s for s, vs in gop.outputs.items() if vs]
    runs = []
    for feed_slots in (feed_by_slot, nan_by_slot):
        program, feed, outs, _ = one_op_program(gop.type, feed_slots, gop.attrs, outputs)
        fetch = [outs[s] for s in outputs]
        runs.append((run_c(program, feed, fetch), run_reference(program, feed, fetch)))
    for got, want in zip(runs[1][0] + runs[1][1], runs[0][0] + runs[0][1]):
        assert not np.isnan(got).any()
        np.testing.assert_array_equal(got, want)


def test_a_value_a_second_derivative_reads_counts(monkeypatch):
    """elementwise_add_grad reads X and Y for their shape; were its own grad (what
    create_graph differentiates) to read Y's value, Y would count as read."""
    _, gop, infos = _grad_op("elementwise_add", {"X": (3, 4), "Y": (4,)}, {"axis": -1})
    assert values_read(gop, _info_of(infos)) == {"out_out@GRAD"}
    opdef = get_op_def("elementwise_add_grad")

    def reads_y(op):
        return [OpDesc("elementwise_mul", {"X": op.input("Out@GRAD"), "Y": op.input("Y")},
                       {"Out": ["ddout"]}, {"axis": -1})]
    monkeypatch.setitem(registry._REGISTRY, "elementwise_add_grad",
                        dataclasses.replace(opdef, grad=reads_y))
    monkeypatch.setattr(value_reads, "_MEMO", {})  # (the analysis of this signature is kept)
    assert values_read(gop, _info_of(infos)) == {"out_out@GRAD", "y"}


def test_an_input_of_unknown_shape_counts_as_read():
    _, gop, infos = _grad_op("elementwise_add", {"X": (3, 4), "Y": (4,)}, {"axis": -1})
    del infos["y"]
    assert values_read(gop, _info_of(infos)) == {"x", "y", "out_out@GRAD"}


def test_ops_alike_but_for_names_share_one_analysis():
    """The second op is answered from the first's analysis, by slot, its own names given
    back; a var in two slots is another signature."""
    _, gop, infos = _grad_op("elementwise_mul", {"X": (3, 4), "Y": (3, 4)}, {"axis": -1})
    renamed = OpDesc(gop.type, {s: [n.upper() for n in vs] for s, vs in gop.inputs.items()},
                     {s: [n.upper() for n in vs] for s, vs in gop.outputs.items()}, gop.attrs)
    upper = {n.upper(): i for n, i in infos.items()}
    assert values_read(gop, _info_of(infos)) == {"x", "y", "out_out@GRAD"}
    assert values_read(renamed, lambda n: upper.get(n)) == {"X", "Y", "OUT_OUT@GRAD"}
    square = OpDesc(gop.type, {**gop.inputs, "Y": gop.inputs["X"]}, gop.outputs, gop.attrs)
    assert values_read(square, _info_of(infos)) == {"x", "out_out@GRAD"}
