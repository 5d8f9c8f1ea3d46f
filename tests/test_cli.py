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
