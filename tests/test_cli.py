"""The `fluidc` command: demo, inspect (text/json/dot/svg), codegen, on the built-in examples."""
import json
import os
import shutil
from pathlib import Path

import pytest

from fluidc.cli import main


def test_demo_trains_and_reports_accuracy(capsys):
    assert main(["demo", "--epochs", "3", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "epoch  3" in out and "final held-out accuracy" in out
    acc = float(out.strip().split()[-1])
    assert acc > 0.85


def test_inspect_text_shows_program_and_fused_kernels(capsys):
    main(["inspect", "chain"])
    out = capsys.readouterr().out
    assert "== program (7 ops)" in out and "{ // block 0" in out
    assert "== compiled for batch 1 (1 steps)" in out
    assert "kernel over [1, 1024]: scale + elementwise_add + relu + scale + tanh" in out


def test_inspect_unfused_and_memory_optimize(capsys):
    main(["inspect", "chain", "--passes", "none"])
    assert "(7 steps)" in capsys.readouterr().out
    main(["inspect", "mlp", "--passes", "fuse,fuse_reduce,memory_optimize", "--format", "json"])
    data = json.loads(capsys.readouterr().out)
    kinds = [s["kind"] for s in data["compiled"]["steps"]]
    assert "kernel" in kinds and "extern" in kinds
    assert any(op["type"] == "adam" for op in data["program"]["ops"])


def test_inspect_dot_draws_kernels_as_clusters(capsys):
    main(["inspect", "softmax", "--format", "dot"])
    out = capsys.readouterr().out
    assert out.count("digraph") == 2 and "subgraph cluster_0" in out
    assert 'label="kernel 0 over [1, 1024]"' in out


def test_inspect_svg_needs_graphviz(capsys):
    if shutil.which("dot"):
        main(["inspect", "softmax", "--format", "svg"])
        assert "<svg" in capsys.readouterr().out
    else:
        with pytest.raises(SystemExit, match="Graphviz"):
            main(["inspect", "softmax", "--format", "svg"])


def test_codegen_prints_c_without_user_names(capsys):
    main(["codegen", "softmax", "--batch", "4"])
    out = capsys.readouterr().out
    assert "static void kernel_0(" in out and "void segment_0(void **restrict s)" in out
    assert "for (int64_t i0 = 0; i0 < 4; ++i0)" in out
    assert "softmax" not in out.split("*/", 1)[1]


def test_codegen_prints_triton(capsys):
    main(["codegen", "softmax", "--backend", "triton", "--batch", "4"])
    out = capsys.readouterr().out
    assert "import triton.language as tl" in out and "@triton.jit" in out
    assert "def kernel_0(" in out and "def segment_0(" in out


def test_unknown_example_and_pass(capsys):
    with pytest.raises(SystemExit, match="neither an example"):
        main(["inspect", "nope"])
    with pytest.raises(SystemExit, match="unknown passes"):
        main(["inspect", "chain", "--passes", "bogus"])


def test_a_file_that_is_no_model_is_one_error_line(tmp_path):
    bogus = tmp_path / "notes.pdparams"
    bogus.write_bytes(b"not a tensor file at all")
    with pytest.raises(SystemExit, match=r"^fluidc: .*notes\.pdparams"):
        main(["inspect", str(bogus)])


GOLDEN = Path(__file__).parent / "golden"


@pytest.mark.parametrize("argv,name", [
    (["inspect", "chain"], "inspect_chain.txt"),
    (["inspect", "softmax", "--batch", "4"], "inspect_softmax.txt"),
    (["codegen", "chain", "--batch", "8"], "codegen_chain.c"),
    (["codegen", "softmax", "--batch", "4"], "codegen_softmax.c"),
])
def test_cli_output_matches_golden_file(argv, name, capsys):
    """Stable outputs are kept as files; FLUIDC_UPDATE_GOLDEN=1 rewrites them after a change."""
    main(argv)
    out = capsys.readouterr().out
    path = GOLDEN / name
    if os.environ.get("FLUIDC_UPDATE_GOLDEN"):
        path.write_text(out)
    assert out == path.read_text(), f"{name} changed; review and rerun with FLUIDC_UPDATE_GOLDEN=1"


def test_inspect_saved_model_lists_vars_with_sizes_and_compiled_steps(capsys):
    model = Path(__file__).parent / "fixtures" / "models" / "cnn"
    main(["inspect", str(model), "--batch", "2"])
    out = capsys.readouterr().out
    assert "persistable bytes" in out and "conv2d_0.w_0" in out
    assert "== compiled for batch 2" in out and "extern conv2d" in out
    main(["codegen", str(model), "--batch", "2"])
    assert "static void kernel_0(" in capsys.readouterr().out


def test_version_and_python_m(capsys):
    import subprocess
    import sys

    import fluidc
    with pytest.raises(SystemExit) as e:
        main(["--version"])
    assert e.value.code == 0 and capsys.readouterr().out.strip() == f"fluidc {fluidc.__version__}"
    out = subprocess.run([sys.executable, "-m", "fluidc", "--help"], capture_output=True,
                         text=True, check=True, timeout=120).stdout
    assert out.startswith("usage: fluidc")


def test_help_lists_the_commands_and_every_option_has_help_and_default(capsys):
    from fluidc.cli import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, __import__("argparse")._SubParsersAction))
    assert set(sub.choices) == {"demo", "inspect", "codegen", "cache", "bench"}
    for name, p in sub.choices.items():
        for action in p._actions:
            if action.option_strings and action.dest != "help":
                assert action.help, (name, action.dest)
    with pytest.raises(SystemExit):
        main(["demo", "--help"])
    text = capsys.readouterr().out
    assert "--epochs EPOCHS" in text and "(default: 20)" in text and "(default: None)" not in text


@pytest.mark.parametrize("argv,message", [
    (["demo", "--epochs", "0"], "--epochs: must be at least 1, got 0"),
    (["demo", "--batch-size", "-3"], "--batch-size: must be at least 1, got -3"),
    (["demo", "--lr", "x"], "--lr: expected a number, got 'x'"),
    (["inspect", "chain", "--batch", "0"], "--batch: must be at least 1, got 0"),
])
def test_bad_numbers_are_one_clear_line(argv, message, capsys):
    with pytest.raises(SystemExit) as e:
        main(argv)
    assert e.value.code == 2 and message in capsys.readouterr().err


def test_bench_help_is_the_benchmarks_help(capsys):
    with pytest.raises(SystemExit) as e:
        main(["bench", "--help"])
    out = capsys.readouterr().out
    assert e.value.code == 0 and out.startswith("usage: fluidc bench") and "--repeat N" in out


def test_cache_info_and_clear_touch_only_the_caches_files(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("FLUIDC_CACHE_DIR", str(tmp_path))
    key = "0" * 32
    for suffix in (".so", ".c", ".meta"):
        (tmp_path / f"k_{key}{suffix}").write_bytes(b"x" * 5000)
    (tmp_path / "notes.txt").write_text("mine")
    main(["cache"])
    out = capsys.readouterr().out
    assert f"directory  {tmp_path}" in out and "kernels    1" in out and "MiB" in out
    main(["cache", "clear"])
    assert "removed 3 cached kernel files" in capsys.readouterr().out
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]


def test_demo_draws_no_progress_bar_when_output_is_no_terminal(capsys):
    assert main(["demo", "--epochs", "1", "--batch-size", "256"]) == 0
    captured = capsys.readouterr()
    assert "\r" not in captured.err and "step/s" not in captured.err
    assert "epoch  1" in captured.out
