"""Variable attributes (frontend/ops/var_attrs.py): conv2d_transpose's output_size given as
Tensors, as Paddle's static API writes it (AttrType VAR / VARS). Built here, it prints as Paddle
prints it and runs fused, unfused and on the reference executor alike; Paddle 3.3.1's programs
holding it (tests/fixtures/make_var_attr_fixtures.py) load, write back byte for byte, infer and
train to Paddle's numbers; values that do not fit are errors naming op and attribute."""
import os

import numpy as np
import pytest

import fluidc as paddle
from fluidc.frontend.errors import FormatError, OpError, ShapeError
from fluidc.runtime import io as rio
from fluidc.runtime import program_desc, proto
from fluidc.runtime.program_desc import parse_program, serialize_program
from op_harness import fused_unfused_reference, seeded

HERE = os.path.join(os.path.dirname(__file__), "fixtures", "models", "var_attrs")
F = paddle.nn.functional


def _bytes(name):
    with open(os.path.join(HERE, name), "rb") as f:
        return f.read()


W = seeded("var_attrs_w").standard_normal((3, 4, 3, 3)).astype("float32")


def _build(sizes):
    """x [2, 3, 5, 5], w [3, 4, 3, 3] (fed: W) -> conv2d_transpose(stride 2) once per
    output_size in `sizes`."""
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [2, 3, 5, 5], "float32")
        x.stop_gradient = False
        w = paddle.static.data("w", [3, 4, 3, 3], "float32")
        outs = [F.conv2d_transpose(x, w, stride=2, output_size=s(x)) for s in sizes]
    return main, startup, outs


def test_tensor_output_size_prints_as_paddle_and_sizes_the_output():
    size = {}
    main, startup, outs = _build([
        lambda x: paddle.assign(np.array([12], "int64")),          # [1]: both dims, VARS
        lambda x: [11, paddle.assign(np.array([12], "int32"))],    # VARS, the 11 a constant
        lambda x: size.setdefault("v", paddle.static.data("size", [2], "int32"))])  # VAR
    text = str(main)
    assert "output_size = Vars['assign_0.tmp_0','assign_0.tmp_0']" in text
    assert "output_size = Var['size']" in text
    assert all(o.shape == (2, 4, -1, -1) for o in outs)  # known when the program runs
    exe = paddle.static.Executor(paddle.CPUPlace())
    exe.run(startup)
    x = seeded("var_attrs").standard_normal((2, 3, 5, 5)).astype("float32")
    for fed in ([11, 12], [12, 11]):
        got = exe.run(main, feed={"x": x, "w": W, "size": np.array(fed, "int32")},
                      fetch_list=outs)
        assert [g.shape[2:] for g in got] == [(12, 12), (11, 12), tuple(fed)]


def test_fused_unfused_and_reference_agree_with_gradients():
    main, startup, outs = _build([lambda x: [12, paddle.assign(np.array([11], "int32"))],
                                  lambda x: paddle.static.data("size", [2], "int32")])
    with paddle.static.program_guard(main, startup):
        loss = paddle.mean(outs[0]) + paddle.mean(outs[1] * outs[1])
        (dx,) = paddle.static.gradients([loss], [main.global_block().var("x")])
    rng = seeded("var_attrs_grads")
    exe = paddle.static.Executor(paddle.CPUPlace())
    with paddle.static.scope_guard(paddle.static.Scope()):
        exe.run(startup)
        for fed in ([11, 12], [12, 11]):
            feed = {"x": rng.standard_normal((2, 3, 5, 5)).astype("float32"), "w": W,
                    "size": np.array(fed, "int32")}
            runs = fused_unfused_reference(main, feed, [outs[1], loss, dx])
            assert runs["fused"][0].shape == (2, 4, *fed)
            for name in ("fused", "unfused"):
                for got, want in zip(runs[name], runs["reference"]):
                    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6, err_msg=name)


def test_sizes_that_do_not_fit_are_errors_naming_the_op():
    main, startup, outs = _build([lambda x: paddle.static.data("size", [2], "int32")])
    exe = paddle.static.Executor(paddle.CPUPlace())
    exe.run(startup)
    x = np.zeros((2, 3, 5, 5), "float32")
    with pytest.raises(ShapeError, match="conv2d_transpose.*output_size"):  # base 11 x 11
        exe.run(main, feed={"x": x, "w": W, "size": np.array([13, 13], "int32")}, fetch_list=outs)
    block = main.global_block()
    with paddle.static.program_guard(main, startup):
        pair = paddle.assign(np.array([11, 12], "int32"))
        three = paddle.assign(np.array([11, 12, 13], "int32"))
        floats = paddle.assign(np.array([11.0, 12.0], "float32"))
    for i, (size, error) in enumerate((
            ([pair, pair], "each var of attribute 'output_size' must hold one value"),
            (three, "attribute 'output_size' must hold 2 values"),
            (floats, "'output_size' must be held by int32 / int64 vars"))):
        bad = block.create_var(name=f"bad{i}", dtype="float32")
        block.append_op("conv2d_transpose", {"Input": [block.var("x")],
                                             "Filter": [block.var("w")]},
                        {"Output": [bad]}, {"strides": [2, 2], "output_size": size})
        with pytest.raises(ShapeError, match=error):
            exe.run(main, feed={"x": x, "w": W, "size": np.array([11, 12], "int32")},
                    fetch_list=[bad])
    with pytest.raises(OpError, match="'relu' attribute 'alpha' cannot be given as a variable"):
        block.append_op("relu", {"X": [block.var("x")]}, {"Out": [bad]}, {"alpha": pair})
    with pytest.raises(ValueError, match="one or two integers"):
        F.conv2d_transpose(block.var("x"), block.var("w"), stride=2,
                           output_size=block.create_var(name="s3", shape=[3], dtype="int32"))
    with pytest.raises(ValueError, match="filter_size should not be None"):
        paddle.static.nn.conv2d_transpose(block.var("x"), 4, output_size=[11, pair])


def test_paddle_program_with_var_attributes_writes_back_byte_for_byte():
    for name in ("conv_transpose_size.pdmodel", "train.pdmodel"):
        data = _bytes(name)
        program = parse_program(data, name)
        assert serialize_program(program) == data
    ops = [op for op in program.global_block().ops if op.type.startswith("conv2d_transpose")]
    assert {op.type for op in ops} == {"conv2d_transpose", "conv2d_transpose_grad"}
    assert all(op.input("output_size@VAR") or len(op.input("output_size@VARS")) == 2
               for op in ops)


def test_var_attributes_an_op_does_not_take_or_naming_no_var_are_refused_at_load():
    msg = proto.ProgramDesc()
    msg.ParseFromString(_bytes("conv_transpose_size.pdmodel"))
    op = next(o for o in msg.blocks[0].ops if o.type == "elementwise_add")
    op.attrs.add(name="axis", type=program_desc.VAR, var_name="size")
    with pytest.raises(FormatError, match="'elementwise_add' attribute 'axis' is a variable"):
        parse_program(msg.SerializeToString(), "m")
    msg.ParseFromString(_bytes("conv_transpose_size.pdmodel"))
    op = next(o for o in msg.blocks[0].ops if o.type == "conv2d_transpose")
    next(a for a in op.attrs if a.name == "output_size").vars_name[1] = "nowhere"
    with pytest.raises(FormatError, match="uses var 'nowhere', which the program does not"):
        parse_program(msg.SerializeToString(), "m")


def test_paddle_inference_model_matches_paddle():
    data = np.load(os.path.join(HERE, "conv_transpose_size.npz"))
    exe = paddle.static.Executor(paddle.CPUPlace())
    with paddle.static.scope_guard(paddle.static.Scope()):
        program, feeds, fetches = paddle.static.load_inference_model(
            os.path.join(HERE, "conv_transpose_size"), exe)
        assert sorted(feeds) == ["size", "x"]
        outs = exe.run(program, feed={k: data[k] for k in feeds}, fetch_list=fetches)
        for i, out in enumerate(outs):
            np.testing.assert_allclose(out, data[f"out{i}"], rtol=1e-5, atol=1e-5)
        # another fed size: the plan is keyed on it; the VARS conv keeps its [17, 18]
        other = exe.run(program, feed={"x": data["x"], "size": np.array([17, 18], "int32")},
                        fetch_list=fetches)
        assert [o.shape for o in other] == [(2, 4, 17, 18), (2, 4, 17, 18)]
        np.testing.assert_array_equal(other[0], outs[0])


def test_paddle_training_program_steps_as_paddle():
    ref = np.load(os.path.join(HERE, "train.npz"))
    program = parse_program(_bytes("train.pdmodel"), "train.pdmodel")
    exe = paddle.Executor(paddle.CPUPlace())
    with paddle.scope_guard(paddle.Scope()):
        rio.static_load(program, os.path.join(HERE, "train"), exe)
        (loss,) = exe.run(program, feed={"x": ref["x"], "size": ref["size"]},
                          fetch_list=[str(ref["loss_name"])])
        np.testing.assert_allclose(loss, ref["loss"], rtol=1e-5)
        scope = paddle.global_scope()
        for k in ref.files:
            if k.startswith("after/"):
                got = np.array(scope.find_var(k[len("after/"):]).get_tensor())
                np.testing.assert_allclose(got, ref[k], rtol=1e-5, atol=1e-6, err_msg=k)


def test_fluidc_built_program_saves_var_attributes_as_paddle_does():
    main, _, outs = _build([lambda x: [11, paddle.assign(np.array([12], "int32"))],
                            lambda x: paddle.static.data("size", [2], "int32")])
    msg = proto.ProgramDesc()
    msg.ParseFromString(serialize_program(main))
    written = [{a.name: a for a in op.attrs}["output_size"] for op in msg.blocks[0].ops
               if op.type == "conv2d_transpose"]
    assert [a.type for a in written] == [program_desc.VARS, program_desc.VAR]
    assert list(written[0].vars_name)[1] == "assign_0.tmp_0" and written[1].var_name == "size"
    assert all("output_size@VAR" not in s.parameter for op in msg.blocks[0].ops
               for s in op.inputs)
    again = parse_program(msg.SerializeToString(), "m")
    assert [op.desc.inputs for op in again.global_block().ops] == \
        [op.desc.inputs for op in main.global_block().ops]


def test_eager_tensor_output_size_gives_the_int_sizes_result():
    paddle.disable_static()
    try:
        rng = seeded("var_attrs_eager")
        x = paddle.to_tensor(rng.standard_normal((2, 3, 5, 5)).astype("float32"))
        w = paddle.to_tensor(W)
        for given, ints in ((paddle.to_tensor(np.array([12], "int32")), 12),
                            ([11, paddle.to_tensor(np.array([12], "int64"))], [11, 12]),
                            (paddle.to_tensor(np.array([12, 11], "int64")), [12, 11])):
            got = F.conv2d_transpose(x, w, stride=2, output_size=given).numpy()
            want = F.conv2d_transpose(x, w, stride=2, output_size=ints).numpy()
            assert got.shape[2:] == tuple(np.broadcast_to(ints, 2))
            np.testing.assert_array_equal(got, want)
    finally:
        paddle.enable_static()
