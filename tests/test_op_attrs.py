"""Every op knows Paddle's full attribute set (tests/fixtures/paddle/op_attrs.json, dumped from
Paddle 3.3.1 by tests/fixtures/dump_paddle_op_attrs.py): each attribute is implemented, inert,
or refused unless it holds Paddle's default; and training programs Paddle saves
(tests/fixtures/make_training_fixtures.py) load and train one step with Paddle's numbers."""
import json
import os

import numpy as np
import pytest

import fluidc as paddle
from fluidc.frontend.errors import FormatError, OpError
from fluidc.frontend.ops import all_op_types, get_op_def
from fluidc.frontend.ops.paddle_attrs import DECISIONS
from fluidc.frontend.ops.registry import FRAMEWORK_TYPES, same_value
from fluidc.runtime import io as rio
from fluidc.runtime import proto
from fluidc.runtime.program_desc import parse_program, serialize_program

FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures")
with open(os.path.join(FIXTURES, "paddle", "op_attrs.json")) as _f:
    PADDLE = json.load(_f)
TRAIN = os.path.join(FIXTURES, "models", "train")
MODELS = {"embedding": "sgd", "transformer": "adam", "cnn": "momentum"}
A = proto.AttrType


def _paddle_attrs():
    return [(op, name, spec) for op, attrs in sorted(PADDLE["ops"].items())
            for name, spec in sorted(attrs.items())]


def test_fixture_covers_the_ops_fluidc_shares_with_paddle():
    assert PADDLE["paddle"] == "3.3.1"
    assert set(PADDLE["ops"]) <= set(all_op_types())
    assert {"matmul_v2_grad", "lookup_table_v2_grad", "conv2d_grad", "adam", "sgd"} <= \
        set(PADDLE["ops"])
    for name, (_, default) in PADDLE["framework"].items():
        assert name in FRAMEWORK_TYPES and type(FRAMEWORK_TYPES[name]) is type(default)


@pytest.mark.parametrize("op_type", sorted(PADDLE["ops"]))
def test_every_paddle_attribute_is_implemented_inert_or_refused_unless_default(op_type):
    opdef = get_op_def(op_type)
    inert, unsupported = opdef.inert, opdef.unsupported
    for name, (atype, default, extra) in PADDLE["ops"][op_type].items():
        where = f"{op_type}.{name}"
        assert opdef.attr_default(name) is not None or name in opdef.attrs, f"{where} unknown"
        if name in unsupported or (name in inert and name not in FRAMEWORK_TYPES):
            assert same_value(default, (unsupported if name in unsupported else inert)[name]), where
        if default is not None:  # Paddle's default is always accepted, with its type
            opdef.complete_attrs({name: default})


def test_each_attribute_is_decided_in_one_place():
    for op_type in all_op_types():
        opdef = get_op_def(op_type)
        for table in (opdef.inert, opdef.unsupported):
            both = set(opdef.attrs) & set(table) - set(FRAMEWORK_TYPES)
            assert not both, f"{op_type}: {sorted(both)} implemented and also declared in paddle_attrs"
        assert not set(opdef.inert) & set(opdef.unsupported), op_type


def test_written_attributes_are_paddles_non_extra_ones():
    for op_type, d in DECISIONS.items():
        paddle_attrs = PADDLE["ops"].get(op_type)
        if paddle_attrs is None:
            continue
        declared = set(d.inert) | set(d.unsupported)
        non_extra = {n for n, (_, _, extra) in paddle_attrs.items() if not extra} & declared
        assert set(d.written) == non_extra, op_type


def _program_with(op_type, attrs):
    """A program holding one `op_type` op over float inputs; the op is appended last."""
    main, startup = paddle.Program(), paddle.Program()
    with paddle.program_guard(main, startup):
        x = paddle.static.data("x", [-1, 4], "float32")
        y = paddle.static.data("y", [4, 3], "float32")
        out = main.global_block().create_var(name="out", dtype="float32")
        main.global_block().append_op(op_type, {"X": [x], "Y": [y]}, {"Out": [out]}, attrs)
    return main


@pytest.mark.parametrize("op_type,name,value", [
    ("matmul", "head_number", 2), ("matmul", "fused_reshape_X", [0, 4]),
    ("matmul_v2", "force_fp32_output", "yes")])
def test_append_op_refuses_an_unsupported_value_or_a_wrong_type(op_type, name, value):
    with pytest.raises(OpError, match=rf"op '{op_type}' attribute '{name}'.*{value!r:.6}"):
        _program_with(op_type, {name: value})


def test_refusal_says_what_is_not_implemented():
    with pytest.raises(OpError) as e:
        _program_with("matmul", {"head_number": 4})
    assert str(e.value) == ("op 'matmul' attribute 'head_number' = 4: fluidc does not implement "
                            "it (only Paddle's default 1 is accepted)")


def test_inert_attributes_run_unchanged_and_are_written_back():
    x, y = np.ones((2, 4), "float32"), np.arange(12, dtype="float32").reshape(4, 3)
    inert = {"force_fp32_output": True, "use_mkldnn": True, "mkldnn_data_type": "bfloat16"}
    outs = []
    for attrs in ({}, inert, {"head_number": 1, "alpha": 2.0}):
        op_type = "matmul" if "alpha" in attrs else "matmul_v2"
        prog = _program_with(op_type, attrs)
        exe = paddle.Executor(paddle.CPUPlace())
        outs.append(exe.run(prog, feed={"x": x, "y": y}, fetch_list=["out"])[0])
        back = parse_program(serialize_program(prog)).global_block().ops[-1]
        assert {k: back.desc.attrs[k] for k in attrs} == attrs
    np.testing.assert_array_equal(outs[0], outs[1])
    np.testing.assert_array_equal(outs[2], 2 * outs[0])


def test_saved_programs_carry_the_attributes_paddle_writes():
    main, startup = paddle.Program(), paddle.Program()
    with paddle.program_guard(main, startup):
        x = paddle.static.data("x", [-1, 4], "float32")
        loss = paddle.mean(paddle.static.nn.fc(x, 2))
        paddle.optimizer.Adam(0.01).minimize(loss)
    msg = proto.ProgramDesc()
    msg.ParseFromString(serialize_program(main))
    adam = [op for op in msg.blocks[0].ops if op.type == "adam"][0]  # one per parameter
    written = {a.name: a for a in adam.attrs}
    assert written["amsgrad"].type == A["BOOLEAN"].number and not written["amsgrad"].b
    assert written["min_row_size_to_use_multithread"].i == 1000
    back = [op for op in parse_program(msg.SerializeToString()).global_block().ops
            if op.type == "adam"][0]
    assert back.desc.attrs["amsgrad"] is False


def _train_bytes(name):
    with open(os.path.join(TRAIN, name + ".pdmodel"), "rb") as f:
        return f.read()


def _with_attrs(data, edits):
    """ProgramDesc bytes with attributes set on every op of a type: {type: [(name, AttrType,
    field, value)]}."""
    msg = proto.ProgramDesc()
    msg.ParseFromString(data)
    for op in msg.blocks[0].ops:
        for name, atype, field, value in edits.get(op.type, []):
            kept = [a for a in op.attrs if a.name != name]
            del op.attrs[:]
            op.attrs.extend(kept)
            a = op.attrs.add(name=name, type=A[atype].number)
            if isinstance(value, list):
                getattr(a, field).extend(value)
            else:
                setattr(a, field, value)
    return msg.SerializeToString()


def train_step(name, data=None):
    """Load <name>'s training program and Paddle's state, run one step; (loss, scope values)."""
    ref = np.load(os.path.join(TRAIN, name + ".npz"))
    prog = parse_program(data or _train_bytes(name), name)
    exe = paddle.Executor(paddle.CPUPlace())
    with paddle.scope_guard(paddle.Scope()):
        rio.static_load(prog, os.path.join(TRAIN, name), exe)
        feed = {k: ref[k] for k in ref.files if "/" not in k and k not in ("loss", "loss_name")}
        (loss,) = exe.run(prog, feed=feed, fetch_list=[str(ref["loss_name"])])
        scope = paddle.global_scope()
        after = {k: np.array(scope.find_var(k[len("after/"):]).get_tensor())
                 for k in ref.files if k.startswith("after/")}
    return ref, loss, after


@pytest.mark.parametrize("name", sorted(MODELS))
def test_paddle_training_program_trains_one_step_as_paddle(name):
    ref, loss, after = train_step(name)
    ops = {op.type for op in parse_program(_train_bytes(name)).global_block().ops}
    assert MODELS[name] in ops and any(t.endswith("_grad") for t in ops)
    np.testing.assert_allclose(loss, ref["loss"], rtol=1e-5)
    for k, got in after.items():  # parameters, optimizer moments, batch-norm statistics
        np.testing.assert_allclose(got, ref[k], rtol=1e-4, atol=1e-6, err_msg=k)


def test_paddle_training_programs_reserialize_byte_for_byte():
    for name in MODELS:
        data = _train_bytes(name)
        assert serialize_program(parse_program(data, name)) == data


def test_attributes_other_paddle_versions_write_load_and_change_nothing():
    extras = {"matmul_v2": [("force_fp32_output", "BOOLEAN", "b", True),
                            ("mkldnn_data_type", "STRING", "s", "float32")],
              "matmul_v2_grad": [("force_fp32_output", "BOOLEAN", "b", False)],
              "layer_norm": [("is_test", "BOOLEAN", "b", False)],
              "softmax": [("data_format", "STRING", "s", "AnyLayout"),
                          ("use_cudnn", "BOOLEAN", "b", True)],
              "adam": [("lazy_mode", "BOOLEAN", "b", True)],
              "elementwise_add": [("Scale_x", "FLOAT", "f", 1.0),
                                  ("x_data_format", "STRING", "s", "")]}
    ref, loss, after = train_step("transformer", _with_attrs(_train_bytes("transformer"), extras))
    np.testing.assert_allclose(loss, ref["loss"], rtol=1e-5)
    for k, got in after.items():
        np.testing.assert_allclose(got, ref[k], rtol=1e-4, atol=1e-6, err_msg=k)
    extras = {"lookup_table_v2": [("slot", "INT", "i", 3), ("is_sparse", "BOOLEAN", "b", True)],
              "lookup_table": [("is_test", "BOOLEAN", "b", True)],
              "lookup_table_grad": [("slot", "INT", "i", 3)]}
    ref, loss, _ = train_step("embedding", _with_attrs(_train_bytes("embedding"), extras))
    np.testing.assert_allclose(loss, ref["loss"], rtol=1e-5)


@pytest.mark.parametrize("name,op_type,attr,value", [
    ("transformer", "adam", ("amsgrad", "BOOLEAN", "b", True), "True"),
    ("embedding", "lookup_table_v2", ("remote_prefetch", "BOOLEAN", "b", True), "True"),
    ("cnn", "conv2d", ("fuse_activation", "STRING", "s", "relu"), "'relu'"),
    ("cnn", "batch_norm_grad", ("fuse_with_relu", "BOOLEAN", "b", True), "True")])
def test_load_refuses_an_unsupported_attribute_value(name, op_type, attr, value):
    data = _with_attrs(_train_bytes(name), {op_type: [attr]})
    with pytest.raises(FormatError, match=rf"{name}: block 0 op #\d+: op '{op_type}' attribute "
                                          rf"'{attr[0]}' = {value}: fluidc does not implement"):
        parse_program(data, name)
