"""FLUIDC_LOGS / fluidc.set_logs: what the compiler did, through the logging module."""
import logging
import subprocess
import sys

import numpy as np
import pytest

import fluidc as fluid
from fluidc.frontend import logs


@pytest.fixture
def all_logs(tmp_path, monkeypatch):
    # an empty kernel and plan cache: every pass, kernel and library is built, so logged
    monkeypatch.setenv("FLUIDC_CACHE_DIR", str(tmp_path))
    logs.set_logs("all")
    yield
    logs.set_logs(None)


def _softmax_fc(batch):
    x = fluid.layers.data(name="x", shape=[4], dtype="float32")
    y = fluid.layers.softmax(fluid.layers.fc(x, 3, act="relu"))
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(fluid.default_startup_program())
    for b in batch:
        exe.run(feed={"x": np.ones((b, 4), "float32")}, fetch_list=[y])
    return y


def test_each_topic_reports_what_happened(all_logs, caplog):
    caplog.set_level(logging.DEBUG, logger="fluidc")
    y = _softmax_fc([2, 3, 2])
    by_topic = {}
    for r in caplog.records:
        by_topic.setdefault(r.name, []).append(r.getMessage())
    plans = by_topic["fluidc.plans"]
    assert any("(first run of this program): feeds {'x': [2, 4]}" in m for m in plans)
    assert any("(new feed shapes or dtypes): feeds {'x': [3, 4]}" in m for m in plans)
    assert len([m for m in plans if y.name in m]) == 2  # the batch-2 plan is reused, not rebuilt
    assert any(m.startswith("lower: 4 ops -> ") for m in by_topic["fluidc.passes"])
    assert any(m.startswith("fuse: ") and "steps in" in m for m in by_topic["fluidc.passes"])
    assert any("mul + elementwise_add + relu" in m for m in by_topic["fluidc.fusion"])
    assert any("reduce_max" in m and "lines of C" in m for m in by_topic["fluidc.codegen"])
    assert any(m.startswith(("built ", "found ")) for m in by_topic["fluidc.cache"])


def test_topics_turn_on_one_by_one_and_unknown_topics_are_named():
    try:
        assert logs.set_logs("cache,+plans") == ["cache", "plans"]
        levels = {t: logs.logger(t).level for t in logs.TOPICS}
        assert levels == {"passes": logging.NOTSET, "fusion": logging.NOTSET,
                          "codegen": logging.NOTSET, "cache": logging.DEBUG,
                          "plans": logging.DEBUG}
    finally:
        logs.set_logs(None)
    assert all(logs.logger(t).level == logging.NOTSET for t in logs.TOPICS)
    with pytest.raises(ValueError, match="unknown topic 'pases'; did you mean 'passes'"):
        logs.set_logs("pases")


def test_env_var_prints_to_stderr(tmp_path):
    code = ("import numpy as np, fluidc as fluid\n"
            "x = fluid.layers.data(name='x', shape=[4], dtype='float32')\n"
            "y = fluid.layers.relu(x)\n"
            "fluid.Executor(fluid.CPUPlace()).run(feed={'x': np.ones((2, 4), 'float32')},"
            " fetch_list=[y])\n")
    env = {**__import__("os").environ, "FLUIDC_LOGS": "plans,passes",
           "FLUIDC_CACHE_DIR": str(tmp_path)}  # nothing cached: the passes run
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                       timeout=300, check=True)
    assert "fluidc.plans: program" in r.stderr and "fluidc.passes: lower:" in r.stderr
    assert "fluidc.cache" not in r.stderr
    env["FLUIDC_LOGS"] = ""
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                       timeout=300, check=True)
    assert r.stderr == ""
