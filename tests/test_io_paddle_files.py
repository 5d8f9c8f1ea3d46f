"""Files written by real PaddlePaddle (tests/fixtures/make_paddle_fixtures.py) read by fluidc."""
import os
import pickle

import numpy as np
import pytest

import fluidc as paddle
import fluidc.io
from fluidc.frontend.errors import FormatError
from fluidc.runtime import io as rio
from fluidc.runtime.inspect_files import describe
from fluidc.runtime.program_desc import parse_program, serialize_program
from fluidc.runtime.tensor_io import combine_from_bytes, combine_to_bytes, tensor_from_bytes, tensor_to_bytes

FIX = os.path.join(os.path.dirname(__file__), "fixtures", "paddle")
IO = np.load(os.path.join(FIX, "io.npz"))
PARAMS = ["fc_0.b_0", "fc_0.w_0", "fc_1.b_0", "fc_1.w_0"]


def _fix(*parts):
    return os.path.join(FIX, *parts)


def _bytes(*parts):
    with open(_fix(*parts), "rb") as f:
        return f.read()


def build_mlp(fluid=paddle):
    """The fixture script's model in fluidc; same var names as Paddle gives them."""
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = fluid.data("x", [-1, 4], "float32")
        h = fluid.layers.fc(x, 8, act="relu")
        logits = fluid.layers.fc(h, 3)
        out = fluid.layers.scale(fluid.layers.softmax(logits) + 1.0, scale=2.0, bias=0.5)
        loss = fluid.layers.mean(out * logits)
        test = main.clone(for_test=True)
        fluid.optimizer.Adam(learning_rate=0.01).minimize(loss)
    return main, startup, test, out, loss


@pytest.mark.parametrize("name", ["infer/mlp.pdmodel", "ckpt/train.pdmodel", "pickles/program.pdmodel"])
def test_paddle_programs_reserialize_byte_for_byte(name):
    data = _bytes(name)
    assert serialize_program(parse_program(data, name)) == data


def test_tensor_streams_and_combine_reserialize_byte_for_byte():
    for p in PARAMS:
        data = _bytes("infer_dir", p)
        t = tensor_from_bytes(data, p, p)
        np.testing.assert_array_equal(t.numpy(), IO["p/" + p])
        assert tensor_to_bytes(t) == data
    combined = _bytes("infer", "mlp.pdiparams")
    tensors = combine_from_bytes(combined, "mlp.pdiparams", PARAMS)
    assert combine_to_bytes(list(tensors.values())) == combined


@pytest.mark.parametrize("layout", ["dir", "prefix", "static_dir"])
def test_paddle_inference_model_runs_with_paddles_outputs(layout):
    exe = paddle.Executor(paddle.CPUPlace())
    with paddle.scope_guard(paddle.Scope()):
        if layout == "dir":
            prog, feeds, fetches = fluidc.io.load_inference_model(_fix("infer_dir"), exe)
        elif layout == "prefix":
            prog, feeds, fetches = rio.static_load_inference_model(_fix("infer", "mlp"), exe)
        else:
            prog, feeds, fetches = rio.static_load_inference_model(_fix("infer_dir"), exe)
        assert feeds == ["x"] and [v.name for v in fetches] == ["scale_0.tmp_0"]
        (y,) = exe.run(prog, feed={"x": IO["x"]}, fetch_list=fetches)
    np.testing.assert_allclose(y, IO["y"], rtol=1e-5)


def test_paddle_checkpoint_resumes_training_in_fluidc():
    main, startup, test, out, _ = build_mlp()
    exe = paddle.Executor(paddle.CPUPlace())
    exe.run(startup)
    rio.static_load(main, _fix("ckpt", "train"), exe)
    (y,) = exe.run(test, feed={"x": IO["x"]}, fetch_list=[out])
    np.testing.assert_allclose(y, IO["y"], rtol=1e-5)
    exe.run(main, feed={"x": IO["x"]})  # one Adam step from Paddle's moments and beta pows
    for name, t in rio.state_dict(main).items():
        np.testing.assert_allclose(np.array(t).reshape(-1), IO["p1/" + name].reshape(-1),
                                   rtol=1e-5, atol=1e-7, err_msg=name)


def test_paddle_pickles_load():
    state = rio.load(_fix("pickles", "state.pdparams"))
    assert sorted(state) == PARAMS
    for k, v in state.items():
        np.testing.assert_array_equal(v, IO["p/" + k])
    np.testing.assert_array_equal(rio.load(_fix("pickles", "tensor.pdtensor")), IO["p/fc_0.w_0"])
    nested = rio.load(_fix("pickles", "nested.pkl"), return_numpy=True)
    np.testing.assert_array_equal(nested["a"][0], np.arange(3))
    assert nested["a"][1] == (1.5, "s") and nested["b"]["c"].shape == (2, 2)
    prog = rio.load(_fix("pickles", "program.pdmodel"))
    assert isinstance(prog, paddle.Program) and "softmax" in [op.type for op in prog.global_block().ops]
    opt = rio.load(_fix("ckpt", "train.pdopt"), return_numpy=True)
    assert opt["learning_rate_0"].shape == () and "fc_0.w_0_moment1_0" in opt


def test_paddle_load_reads_dirs_and_inference_prefixes():
    for path in (_fix("infer_dir"), _fix("infer", "mlp")):
        values = rio.load(path)
        assert sorted(values) == PARAMS
        np.testing.assert_array_equal(values["fc_1.w_0"], IO["p/fc_1.w_0"])


@pytest.mark.parametrize("path", ["infer_dir", "infer/mlp", "infer/mlp.pdiparams", "ckpt/train",
                                  "pickles/nested.pkl", "pickles/state.pdparams",
                                  "infer_dir/fc_0.w_0", "pickles/program.pdmodel"])
def test_describe_every_format(path):
    text = describe(_fix(path))
    assert "fc_0.w_0" in text or "#1" in text or "nested" in path
    if "pdiparams" not in path and "pickles" not in path and "fc_0.w_0" != os.path.basename(path):
        assert "[4, 8]" in text


# -- bad input ----------------------------------------------------------------------------------

@pytest.mark.parametrize("cut", [0, 3, 10, 20, 30, 100])
def test_truncated_tensor_file_is_a_format_error(cut):
    data = _bytes("infer_dir", "fc_0.w_0")[:cut]
    with pytest.raises(FormatError, match="fc_0.w_0"):
        tensor_from_bytes(data, "somefile", "fc_0.w_0")


def test_corrupt_files_are_format_errors(tmp_path):
    bad = bytearray(_bytes("infer_dir", "fc_0.w_0"))
    bad[0] = 7
    with pytest.raises(FormatError, match="version"):
        tensor_from_bytes(bytes(bad), "f", "v")
    with pytest.raises(FormatError, match="follow"):
        tensor_from_bytes(_bytes("infer_dir", "fc_0.w_0") + b"xx", "f", "v")
    model = _bytes("infer", "mlp.pdmodel")
    for data in (model[: len(model) // 2], b"\x0a\xff\xff\xff", b"garbage!"):
        with pytest.raises(FormatError, match="where.pdmodel"):
            parse_program(data, "where.pdmodel")
    with pytest.raises(FormatError, match="ends before var 'fc_1.w_0'"):
        combine_from_bytes(_bytes("infer", "mlp.pdiparams")[:-122], "p", PARAMS)  # fc_1.w_0: 122 B
    with pytest.raises(FormatError, match="more vars"):
        combine_from_bytes(_bytes("infer", "mlp.pdiparams"), "p", PARAMS[:3])
    p = tmp_path / "trunc.pdparams"
    p.write_bytes(_bytes("ckpt", "train.pdparams")[:200])
    with pytest.raises(FormatError, match="trunc.pdparams"):
        rio.load(str(p))


def test_restricted_unpickler_refuses_code_unless_allowed(tmp_path):
    p = tmp_path / "evil.pkl"
    p.write_bytes(pickle.dumps({"a": __import__("collections").Counter}, protocol=4))
    with pytest.raises(FormatError, match="allow_pickle"):
        rio.load(str(p))
    p.write_bytes(b"\x80\x04cos\nsystem\n(S'echo pwned'\ntR.")
    with pytest.raises(FormatError, match="os.system"):
        rio.load(str(p))
    p.write_bytes(pickle.dumps({"when": __import__("datetime").date(2020, 1, 2)}, protocol=4))
    assert rio.load(str(p), allow_pickle=True)["when"].year == 2020
