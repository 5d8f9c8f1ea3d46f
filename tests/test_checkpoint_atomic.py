"""Checkpoints appear all at once: a kill -9 at any moment leaves the previous checkpoint or the new
one, never vars of two steps; killed saves leave no temp file a load reads, and the next save
removes them; files and directories get the modes the umask gives."""
import json
import os
import stat
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import fluidc as fluid
import fluidc.io
from fluidc.runtime import io as rio

from test_io_paddle_files import build_mlp

HERE = os.path.dirname(os.path.abspath(__file__))


def _campaign(kills: int, timeout: int):
    proc = subprocess.run([sys.executable, os.path.join(HERE, "ckpt_campaign.py"),
                           "--kills", str(kills)], capture_output=True, text=True, timeout=timeout)
    assert proc.stdout.strip(), proc.stderr[-3000:]
    results = json.loads(proc.stdout)
    print(json.dumps(results, indent=1))
    return results


def _check_campaign(results, kills):
    assert [r["api"] for r in results] == ["save_persistables", "save_inference_model",
                                           "static.save", "paddle.save"]
    for r in results:
        assert r["kills"] == kills, r
        assert r["torn_sets"] == 0 and r["stepped_back"] == 0 and r["load_failures"] == 0, r
        assert r["final_load_ok"] and r["temp_files_left_after_next_save"] == 0, r
        if r["api"] in ("save_persistables", "save_inference_model", "paddle.save"):
            assert r["torn_sets_raw"] == 0, r  # what Paddle itself reads is whole too
    assert sum(r["kills_inside_a_save"] for r in results) >= kills  # the kills hit saves


def test_kill_9_campaign_small():
    """10 kills per save API (the long run is the slow test below)."""
    _check_campaign(_campaign(10, 300), 10)


@pytest.mark.slow
def test_kill_9_campaign():
    """200 kills per save API: save_persistables, save_inference_model, static.save, paddle.save."""
    _check_campaign(_campaign(200, 3000), 200)


# -- in-process checks of the schemes -----------------------------------------------------------

def _trained():
    main, startup, test, out, loss = build_mlp()
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup)
    return main, exe, out


def _set_all(main, value):
    scope = fluid.global_scope()
    for v in main.list_vars():
        if rio.is_persistable(v):
            t = scope.find_var(v.name).get_tensor()
            t.set(np.full(np.array(t).shape, value, np.array(t).dtype))


def _loaded_steps(load):
    with fluid.scope_guard(fluid.Scope()):
        names = load()
        scope = fluid.global_scope()
        return {float(np.unique(np.array(scope.find_var(n).get_tensor()))[0]) for n in names}


def _mode(path):
    return stat.S_IMODE(os.stat(path).st_mode)


def test_files_and_dirs_follow_the_umask(tmp_path):
    main, exe, out = _trained()
    old = os.umask(0o077)
    try:
        fluidc.io.save_persistables(exe, str(tmp_path / "d"), main)
        fluidc.io.save_inference_model(str(tmp_path / "inf"), ["x"], [out], exe, main)
        fluid.static.save(main, str(tmp_path / "s" / "model"))
        fluid.save(main.state_dict(), str(tmp_path / "p.pdparams"))
        fluid.static.save_inference_model(str(tmp_path / "si" / "m"), [main.global_block().var("x")],
                                          [out], exe, program=main)
    finally:
        os.umask(old)
    paths = [p for p in tmp_path.rglob("*")]
    assert len(paths) > 20
    for p in paths:
        want = 0o700 if p.is_dir() else 0o600
        assert _mode(p) == want, (p, oct(_mode(p)))
    old = os.umask(0o022)
    try:
        fluidc.io.save_persistables(exe, str(tmp_path / "d2"), main)
        fluid.static.save(main, str(tmp_path / "s2" / "model"))
    finally:
        os.umask(old)
    assert _mode(tmp_path / "d2") == 0o755 and _mode(tmp_path / "d2" / "fc_0.w_0") == 0o644
    assert _mode(tmp_path / "s2" / "model.pdparams") == 0o644


def test_replacing_keeps_the_old_modes_and_the_files_it_does_not_write(tmp_path):
    main, exe, _ = _trained()
    d = tmp_path / "d"
    fluidc.io.save_persistables(exe, str(d), main)
    os.chmod(d, 0o750)
    (d / "notes.txt").write_text("mine")
    (d / "sub").mkdir()
    (d / "sub" / "more.txt").write_text("mine too")
    os.symlink("notes.txt", d / "link")
    prefix = str(tmp_path / "s" / "model")
    fluid.static.save(main, prefix)
    os.chmod(prefix + ".pdparams", 0o640)
    _set_all(main, 3.0)
    fluidc.io.save_persistables(exe, str(d), main)
    fluid.static.save(main, prefix)
    assert _mode(d) == 0o750 and _mode(prefix + ".pdparams") == 0o640
    assert (d / "notes.txt").read_text() == "mine" and (d / "sub" / "more.txt").read_text() == "mine too"
    assert os.readlink(d / "link") == "notes.txt"
    assert _loaded_steps(lambda: (fluidc.io.load_persistables(exe, str(d), main),
                                  [v.name for v in main.list_vars() if rio.is_persistable(v)])[1]) == {3.0}


def test_a_failing_save_leaves_the_previous_checkpoint_and_no_temp_files(tmp_path, monkeypatch):
    from fluidc.runtime import atomic_files
    main, exe, out = _trained()
    d, prefix = tmp_path / "d", str(tmp_path / "s" / "model")
    _set_all(main, 1.0)
    fluidc.io.save_persistables(exe, str(d), main)
    fluid.static.save(main, prefix)
    before = sorted(str(p) for p in tmp_path.rglob("*"))
    _set_all(main, 2.0)
    real, calls = atomic_files._write_new, []

    def flaky(path, data, mode_of=None):
        calls.append(path)
        if len(calls) == 3:
            raise OSError(28, "No space left on device")
        return real(path, data, mode_of)
    monkeypatch.setattr(atomic_files, "_write_new", flaky)
    for save in (lambda: fluidc.io.save_persistables(exe, str(d), main),
                 lambda: fluid.static.save(main, prefix)):
        calls.clear()
        with pytest.raises(OSError, match="No space"):
            save()
    assert sorted(str(p) for p in tmp_path.rglob("*")) == before
    names = [v.name for v in main.list_vars() if rio.is_persistable(v)]
    assert _loaded_steps(lambda: (fluidc.io.load_persistables(exe, str(d), main), names)[1]) == {1.0}
    assert _loaded_steps(lambda: (fluid.static.load(main, prefix, exe), names)[1]) == {1.0}


KILLED = textwrap.dedent("""
    import os, sys
    import numpy as np
    sys.path.insert(0, sys.argv[1])
    import fluidc as fluid, fluidc.io
    from fluidc.runtime import atomic_files, io as rio
    from test_io_paddle_files import build_mlp
    main, startup, _, out, _ = build_mlp()
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup)
    def set_all(value):
        scope = fluid.global_scope()
        for v in main.list_vars():
            if rio.is_persistable(v):
                t = scope.find_var(v.name).get_tensor()
                t.set(np.full(np.array(t).shape, value, np.array(t).dtype))
    target, how = sys.argv[2], sys.argv[3]
    set_all(1.0)
    save = {"dir": lambda: fluidc.io.save_persistables(exe, target, main),
            "prefix": lambda: fluid.static.save(main, target)}[how]
    save()
    set_all(2.0)
    if how == "dir":  # no exchange: the two renames, killed between them
        atomic_files.exchange = lambda a, b: False
        real = os.rename
        def rename(a, b):
            real(a, b)
            if ".fluidc-old." in b:
                os._exit(9)
        os.rename = rename
    else:  # killed after the commit and the first rename
        real = os.replace
        def replace(a, b):
            real(a, b)
            if b.endswith(".pdparams"):
                os._exit(9)
        os.replace = replace
    save()
""")


def _killed_save(tmp_path, how, target):
    script = tmp_path / "killed.py"
    script.write_text(KILLED)
    proc = subprocess.run([sys.executable, str(script), HERE, target, how], capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 9, proc.stderr[-2000:]


def test_killed_between_the_renames_of_a_directory_swap(tmp_path):
    """Where the file system cannot exchange two directories: killed after the old one moved
    aside, loads read it, and the next save puts things right."""
    main, exe, _ = _trained()
    d = tmp_path / "ckpt"
    _killed_save(tmp_path, "dir", str(d))
    assert not d.exists()
    names = [v.name for v in main.list_vars() if rio.is_persistable(v)]
    assert _loaded_steps(lambda: (fluidc.io.load_persistables(exe, str(d), main), names)[1]) == {1.0}
    assert sorted(fluid.load(str(d))) == sorted(names)
    _set_all(main, 5.0)
    fluidc.io.save_persistables(exe, str(d), main)
    assert _loaded_steps(lambda: (fluidc.io.load_persistables(exe, str(d), main), names)[1]) == {5.0}
    assert sorted(os.listdir(tmp_path)) == ["ckpt", "killed.py"]


def _pickled_steps(prefix):
    import pickle
    out = {}
    for ext in (".pdparams", ".pdopt"):
        with open(prefix + ext, "rb") as f:
            out[ext] = {float(np.unique(v)[0]) for v in pickle.load(f).values()}
    return out


def test_killed_between_the_renames_of_a_static_save(tmp_path, monkeypatch):
    """After the commit, .pdparams is new and .pdopt old on disk. While the writer might still
    be alive, fluidc reads the new set (the .pdopt waiting under its temp name) and changes
    nothing; once it is known dead, a load or the next save finishes the renames, so Paddle
    too reads the new set."""
    from fluidc.runtime import atomic_files
    main, exe, _ = _trained()
    prefix = str(tmp_path / "model")
    _killed_save(tmp_path, "prefix", prefix)
    assert _pickled_steps(prefix) == {".pdparams": {2.0}, ".pdopt": {1.0}}  # torn, as Paddle sees it
    names = [v.name for v in main.list_vars() if rio.is_persistable(v)]
    listing = sorted(os.listdir(tmp_path))
    assert ".model.fluidc-commit" in listing
    with monkeypatch.context() as m:
        m.setattr(atomic_files, "_pid_alive", lambda pid: True)
        assert _loaded_steps(lambda: (fluid.static.load(main, prefix, exe), names)[1]) == {2.0}
        state = fluid.static.load_program_state(prefix)
        assert {float(np.unique(v)[0]) for v in state.values()} == {2.0}
        assert sorted(os.listdir(tmp_path)) == listing
    assert _loaded_steps(lambda: (fluid.static.load(main, prefix, exe), names)[1]) == {2.0}
    assert _pickled_steps(prefix) == {".pdparams": {2.0}, ".pdopt": {2.0}}
    assert sorted(os.listdir(tmp_path)) == ["killed.py", "model.pdmodel", "model.pdopt",
                                            "model.pdparams"]
