"""Incremental training as the save/load guide describes it: train N steps, save, resume in a NEW
process (startup, then load), train M more: the parameters equal N+M steps in one run, bit for bit."""
import os
import subprocess
import sys
import textwrap

import numpy as np

import fluidc as fluid
import fluidc.io

from test_io_paddle_files import build_mlp

N, M = 3, 2
X = np.random.default_rng(5).standard_normal((6, 4)).astype("float32")

RESUME = textwrap.dedent("""
    import sys
    import numpy as np
    import fluidc as fluid
    import fluidc.io
    from fluidc.runtime.io import load as paddle_load, static_load
    sys.path.insert(0, sys.argv[1])
    from test_io_paddle_files import build_mlp
    ckpt, out, x = sys.argv[2], sys.argv[3], np.load(sys.argv[4])
    results = {}
    for how in ("fluid", "static"):
        with fluid.scope_guard(fluid.Scope()), fluid.unique_name.guard():
            main, startup, _, _, _ = build_mlp()
            exe = fluid.Executor(fluid.CPUPlace())
            exe.run(startup)  # first the startup program, then the load: never the other way
            if how == "fluid":
                fluidc.io.load_persistables(exe, ckpt + "/persistables", main)
                meta = paddle_load(ckpt + "/persistables/../meta.pkl")
            else:
                static_load(main, ckpt + "/static/model", exe)
                meta = {"epoch": 0, "step": None}
            for _ in range(int(sys.argv[5])):
                exe.run(main, feed={"x": x})
            scope = fluid.global_scope()
            for v in main.list_vars():
                if fluidc.io.is_persistable(v):
                    results[how + "/" + v.name] = np.array(scope.find_var(v.name).get_tensor())
            results[how + "/@step"] = np.array(meta["step"] if meta["step"] is not None else -1)
    np.savez(out, **results)
""")


def test_resume_in_a_new_process_matches_one_run_bit_for_bit(tmp_path):
    main, startup, _, _, _ = build_mlp()
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup)
    for _ in range(N):
        exe.run(main, feed={"x": X})
    ckpt = tmp_path / "ckpt"
    fluidc.io.save_persistables(exe, str(ckpt / "persistables"), main)
    fluid.save({"epoch": 0, "step": N}, str(ckpt / "meta.pkl"))  # where training stopped
    fluid.static.save(main, str(ckpt / "static" / "model"))
    for _ in range(M):
        exe.run(main, feed={"x": X})
    scope = fluid.global_scope()
    one_run = {v.name: scope.find_var(v.name).get_tensor().numpy().copy() for v in main.list_vars()
               if fluidc.io.is_persistable(v)}
    assert {"learning_rate_0", "fc_0.w_0_moment1_0", "fc_0.w_0_beta1_pow_acc_0"} <= set(one_run)

    np.save(tmp_path / "x.npy", X)
    script = tmp_path / "resume.py"
    script.write_text(RESUME)
    subprocess.run([sys.executable, str(script), os.path.dirname(__file__), str(ckpt),
                    str(tmp_path / "out.npz"), str(tmp_path / "x.npy"), str(M)], check=True)
    resumed = np.load(tmp_path / "out.npz")
    assert int(resumed["fluid/@step"]) == N
    for how in ("fluid", "static"):
        for name, want in one_run.items():
            got = resumed[f"{how}/{name}"]
            assert got.dtype == want.dtype and np.array_equal(got, want), f"{how}: {name}"
