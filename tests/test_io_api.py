"""fluid.io and paddle.static save/load on fluidc programs: round trips, checks, guide warnings."""
import os
import warnings

import numpy as np
import pytest

import fluidc as fluid
import fluidc.io
from fluidc.frontend.errors import FormatError, UninitializedVarError
from fluidc.runtime import io as rio

from test_io_paddle_files import build_mlp

X = np.random.default_rng(3).standard_normal((5, 4)).astype("float32")


def _trained(steps=2):
    main, startup, test, out, loss = build_mlp()
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup)
    for _ in range(steps):
        exe.run(main, feed={"x": X})
    return main, startup, test, out, exe


def _values(program, names=None):
    scope = fluid.global_scope()
    return {v.name: scope.find_var(v.name).get_tensor().numpy().copy() for v in program.list_vars()
            if rio.is_persistable(v) and (names is None or v.name in names)}


@pytest.mark.parametrize("filename", [None, "all_params"])
@pytest.mark.parametrize("kind", ["params", "persistables"])
def test_save_load_round_trip(tmp_path, filename, kind):
    main, startup, test, out, exe = _trained()
    save, load = getattr(fluidc.io, "save_" + kind), getattr(fluidc.io, "load_" + kind)
    save(exe, str(tmp_path), main, filename)
    before = _values(main)
    files = sorted(os.listdir(tmp_path))
    if filename:
        assert files == ["all_params"]
    else:
        want = [v.name for v in main.list_vars() if (rio.is_parameter(v) if kind == "params"
                                                      else rio.is_persistable(v))]
        assert files == sorted(want)
    with fluid.scope_guard(fluid.Scope()):
        exe.run(startup)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            load(exe, str(tmp_path), main, filename)
        after = _values(main)
    for name in (before if kind == "persistables" else [p.name for p in main.all_parameters()]):
        np.testing.assert_array_equal(after[name], before[name], err_msg=name)


def test_save_vars_with_predicate_and_vars(tmp_path):
    main, startup, test, out, exe = _trained(0)
    fluidc.io.save_vars(exe, str(tmp_path), main, predicate=lambda v: v.persistable and v.name.startswith("fc_1"))
    assert sorted(os.listdir(tmp_path))[0].startswith("fc_1")
    fluidc.io.save_vars(exe, str(tmp_path / "two"), main, vars=[main.global_block().var("fc_0.w_0")])
    assert os.listdir(tmp_path / "two") == ["fc_0.w_0"]


def test_inference_model_round_trip(tmp_path):
    main, startup, test, out, exe = _trained()
    (want,) = exe.run(test, feed={"x": X}, fetch_list=[out])
    for kw in ({}, {"model_filename": "model", "params_filename": "params"}):
        d = str(tmp_path / str(len(kw)))
        assert fluidc.io.save_inference_model(d, ["x"], [out], exe, main, **kw) == [out.name]
        with fluid.scope_guard(fluid.Scope()):
            prog, feeds, fetches = fluidc.io.load_inference_model(d, exe, **kw)
            (got,) = exe.run(prog, feed={"x": X}, fetch_list=fetches)
        np.testing.assert_allclose(got, want, rtol=1e-6)
        ops = [op.type for op in prog.global_block().ops]
        assert ops[0] == "feed" and ops[-1] == "fetch" and "adam" not in ops and "mean" not in ops
        assert prog.global_block().var("feed").type == fluid.VarType.FEED_MINIBATCH
    assert "fc_0.w_0_moment1_0" not in os.listdir(tmp_path / "0")  # pruned: params only


def test_static_inference_model_and_multiple_feeds(tmp_path):
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        a = fluid.static.data("a", [-1, 3], "float32")
        b = fluid.static.data("b", [-1, 3], "float32")
        h = fluid.static.nn.fc(a, 3)
        s, d = h + b, h - b
        unused = fluid.static.nn.fc(b, 2)  # noqa: F841 (pruned away)
    exe = fluid.static.Executor(fluid.CPUPlace())
    exe.run(startup)
    va, vb = X[:, :3], X[:, 1:]
    want = exe.run(main, feed={"a": va, "b": vb}, fetch_list=[s, d])
    prefix = str(tmp_path / "m" / "net")
    fluid.static.save_inference_model(prefix, [a, b], [s, d], exe, program=main)
    assert sorted(os.listdir(tmp_path / "m")) == ["net.pdiparams", "net.pdmodel"]
    with fluid.static.scope_guard(fluid.static.Scope()):
        prog, feeds, fetches = fluid.static.load_inference_model(prefix, exe)
        got = exe.run(prog, feed={"a": va, "b": vb}, fetch_list=fetches)
    assert feeds == ["a", "b"] and len(fetches) == 2
    assert [op.attr("col") for op in prog.global_block().ops if op.type == "feed"] == [1, 0]
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-6)
    assert len(fluid.load(prefix)) == 2  # fc_0.w_0, fc_0.b_0 only
    with pytest.raises(ValueError, match="directory"):
        fluid.static.save_inference_model(str(tmp_path), [a], [s], exe, program=main)
    with pytest.raises(ValueError, match="must be a str"):
        fluid.static.load_inference_model([prefix], exe)
    with pytest.raises(ValueError, match="pserver_endpoints"):
        fluid.static.load_inference_model(prefix, exe, pserver_endpoints=None)


def test_static_save_load_and_state_dict(tmp_path):
    main, startup, test, out, exe = _trained()
    prefix = str(tmp_path / "ckpt" / "model")
    fluid.static.save(main, prefix)
    assert sorted(os.listdir(tmp_path / "ckpt")) == ["model.pdmodel", "model.pdopt", "model.pdparams"]
    params, opt = main.state_dict("param"), main.state_dict("opt")
    assert sorted(params) == ["fc_0.b_0", "fc_0.w_0", "fc_1.b_0", "fc_1.w_0"]
    assert "learning_rate_0" in opt and "fc_0.w_0_beta1_pow_acc_0" in opt
    assert sorted(main.state_dict()) == sorted(list(params) + list(opt))
    before = {k: v.numpy().copy() for k, v in main.state_dict().items()}
    with fluid.scope_guard(fluid.Scope()):
        exe.run(startup)
        fluid.static.load(main, prefix, exe)
        for k, v in main.state_dict().items():
            np.testing.assert_array_equal(np.array(v), before[k])
        state = fluid.static.load_program_state(prefix)
        assert sorted(state) == sorted(before)
    with fluid.scope_guard(fluid.Scope()):
        exe.run(startup)
        main.set_state_dict(fluid.load(prefix + ".pdparams"))
        np.testing.assert_array_equal(np.array(main.state_dict("param")["fc_0.w_0"]),
                                      before["fc_0.w_0"])
        with pytest.warns(UserWarning, match="nope"):
            main.set_state_dict({"nope": np.zeros(1)})
    prog = fluid.load(prefix + ".pdmodel")
    assert [op.type for op in prog.global_block().ops] == [op.type for op in main.global_block().ops]


def test_static_load_from_persistables_dir_and_combined_file(tmp_path):
    main, startup, test, out, exe = _trained()
    fluidc.io.save_persistables(exe, str(tmp_path / "d"), main)
    fluidc.io.save_persistables(exe, str(tmp_path), main, filename="combined")
    before = _values(main)
    for path, var_list in ((str(tmp_path / "d"), None),
                           (str(tmp_path / "combined"), [v for v in main.list_vars()
                                                         if rio.is_persistable(v)])):
        with fluid.scope_guard(fluid.Scope()):
            exe.run(startup)
            fluid.static.load(main, path, exe, var_list)
            for k, v in _values(main).items():
                np.testing.assert_array_equal(v, before[k])
    assert sorted(fluid.load(str(tmp_path / "d"))) == sorted(before)


def test_paddle_save_load_objects(tmp_path):
    main, startup, test, out, exe = _trained(0)
    w = fluid.global_scope().find_var("fc_0.w_0").get_tensor()
    nested = {"epoch": 3, "step": [1, (2, 3.5)], "w": w, "arrs": [np.arange(4), {"z": np.ones(2)}]}
    fluid.save(nested, str(tmp_path / "nested.pkl"))
    got = fluid.load(str(tmp_path / "nested.pkl"))
    assert got["epoch"] == 3 and got["step"] == [1, (2, 3.5)]
    np.testing.assert_array_equal(got["w"], np.array(w))
    np.testing.assert_array_equal(got["arrs"][1]["z"], np.ones(2))
    fluid.save(w, str(tmp_path / "w.pdtensor"))
    np.testing.assert_array_equal(fluid.load(str(tmp_path / "w.pdtensor")), np.array(w))
    fluid.save(main.state_dict(), str(tmp_path / "s.pdparams"))
    assert sorted(fluid.load(str(tmp_path / "s.pdparams"))) == sorted(main.state_dict())
    fluid.save(test, str(tmp_path / "p.pdmodel"))
    assert isinstance(fluid.load(str(tmp_path / "p.pdmodel")), fluid.Program)
    with pytest.raises(ValueError, match="protocol"):
        fluid.save(nested, str(tmp_path / "x"), protocol=5)
    with pytest.raises(ValueError, match="dirname/filename"):
        fluid.save(nested, str(tmp_path))


# -- the guide's warnings -----------------------------------------------------------------------

def test_mismatched_files_name_var_and_file_and_leave_scope_untouched(tmp_path):
    main, startup, test, out, exe = _trained()
    fluidc.io.save_params(exe, str(tmp_path), main)
    other_main, other_startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(other_main, other_startup), fluid.unique_name.guard():
        x = fluid.data("x", [-1, 4], "float32")
        fluid.layers.fc(fluid.layers.fc(x, 8, act="relu"), 5)  # fc_1 is [8, 5], not [8, 3]
    with fluid.scope_guard(fluid.Scope()):
        exe.run(other_startup)
        before = _values(other_main)
        with pytest.raises(FormatError, match=r"fc_1\.w_0.*\[8, 3\].*\[8, 5\]") as e:
            fluidc.io.load_params(exe, str(tmp_path), other_main)
        assert str(tmp_path) in str(e.value)
        after = _values(other_main)
        for k in before:  # fc_0 was readable, yet nothing was stored
            np.testing.assert_array_equal(after[k], before[k])
    os.remove(tmp_path / "fc_0.b_0")
    with fluid.scope_guard(fluid.Scope()), pytest.raises(FormatError, match="fc_0.b_0.*missing|missing.*fc_0.b_0"):
        fluidc.io.load_params(exe, str(tmp_path), test)


def test_dtype_mismatch_and_combined_file_mismatch(tmp_path):
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        fluid.layers.create_parameter([2, 2], "float64", name="w")
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup)
    fluidc.io.save_params(exe, str(tmp_path), main, filename="p")
    main2, startup2 = fluid.Program(), fluid.Program()
    with fluid.program_guard(main2, startup2):
        fluid.layers.create_parameter([2, 2], "float32", name="w")
    with pytest.raises(FormatError, match=r"'w' is float64 in the file but float32"):
        fluidc.io.load_params(exe, str(tmp_path), main2, filename="p")


def test_startup_after_load_overwrites_loaded_values(tmp_path):
    main, startup, test, out, exe = _trained(3)
    fluidc.io.save_persistables(exe, str(tmp_path), main)
    saved = _values(main)
    with fluid.scope_guard(fluid.Scope()):
        fluidc.io.load_persistables(exe, str(tmp_path), main)
        exe.run(startup)  # the mistake the guide warns of: re-initializes every parameter
        assert not np.array_equal(_values(main)["fc_0.w_0"], saved["fc_0.w_0"])
        fluidc.io.load_persistables(exe, str(tmp_path), main)  # load after startup instead
        np.testing.assert_array_equal(_values(main)["fc_0.w_0"], saved["fc_0.w_0"])


def test_load_params_warns_when_optimizer_ops_remain(tmp_path):
    main, startup, test, out, exe = _trained(0)
    fluidc.io.save_params(exe, str(tmp_path), main)
    with pytest.warns(UserWarning, match="update the parameters"):
        fluidc.io.load_params(exe, str(tmp_path), main)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fluidc.io.load_params(exe, str(tmp_path), test)


def test_saving_an_uninitialized_var_names_it(tmp_path):
    main, _startup, _test, _out, exe = build_mlp()[0], None, None, None, fluid.Executor()
    with pytest.raises(UninitializedVarError, match="fc_0.w_0"):
        fluidc.io.save_params(exe, str(tmp_path), main)


def test_writes_are_atomic(tmp_path, monkeypatch):
    path = tmp_path / "f"
    rio.atomic_write(str(path), b"old")
    monkeypatch.setattr(os, "replace", lambda *a: (_ for _ in ()).throw(OSError("disk full")))
    with pytest.raises(OSError):
        rio.atomic_write(str(path), b"new")
    assert path.read_bytes() == b"old" and os.listdir(tmp_path) == ["f"]
