"""Random programs written, differentiated and run by real Paddle (tests/fixtures/
make_random_programs.py): fluidc loads each ProgramDesc as Paddle saved it (Paddle's ops, attrs
and grad ops) and must give Paddle's numbers, compiled with every fusion, with none, on the
numpy reference executor and on Triton (interpreted). Training cases run Paddle's startup and
main programs (SGD, Momentum or Adam over random nets) for 3 steps: the same losses, and the
same parameters and optimizer state after them."""
import os

import numpy as np
import pytest

os.environ.setdefault("TRITON_INTERPRET", "1")  # read when kernels load; as in test_triton.py
import fluidc as fluid  # noqa: E402
from fluidc.runtime.program_desc import parse_program  # noqa: E402

from op_harness import run_reference  # noqa: E402

FIXTURE = os.path.join(os.path.dirname(__file__), "fixtures", "paddle", "random_programs.npz")
DATA = np.load(FIXTURE)
CASES = sorted({k.split("/")[0] for k in DATA.files if k.startswith("p")})
TRAINING = sorted({k.split("/")[0] for k in DATA.files if k.startswith("t")})
F32, F64 = dict(rtol=1e-5, atol=1e-6), dict(rtol=1e-10, atol=1e-12)


def _case(case):
    program = parse_program(DATA[f"{case}/program"].tobytes(), case)
    feed = {k.split("/")[-1]: DATA[k] for k in DATA.files if k.startswith(f"{case}/feed/")}
    names = [str(n) for n in DATA[f"{case}/fetch_names"]]
    want = [DATA[f"{case}/out/{i}"] for i in range(len(names))]
    return program, feed, names, want


def _unfused():
    s = fluid.BuildStrategy()
    s.fuse_all = False
    return s


def _run(program, feed, names, how):
    if how == "reference":
        return run_reference(program, feed, names)
    place = fluid.CUDAPlace(0) if how == "triton" else fluid.CPUPlace()
    target = fluid.CompiledProgram(program, _unfused()) if how == "unfused" else program
    with fluid.scope_guard(fluid.Scope()):
        return fluid.Executor(place).run(target, feed=feed, fetch_list=names)


@pytest.mark.parametrize("how", ["fused", "unfused", "reference", "triton"])
@pytest.mark.parametrize("case", CASES)
def test_random_paddle_program_gives_paddles_numbers(case, how):
    if how == "triton":
        pytest.importorskip("triton")
    program, feed, names, want = _case(case)
    # float64 programs that cast through float32 carry float32's rounding (one ulp of tanh)
    tol = F32 if any(v.dtype == fluid.VarType.FP32 for v in program.list_vars()) else F64
    got = _run(program, feed, names, how)
    for name, g, w in zip(names, got, want):
        g = np.asarray(g)
        assert g.dtype == w.dtype and g.shape == w.shape, \
            f"{case} {name}: {g.dtype}{g.shape}, Paddle {w.dtype}{w.shape}"
        np.testing.assert_allclose(g, w, err_msg=f"{case} {name} ({how})", **tol)


@pytest.mark.parametrize("how", ["fused", "unfused"])
@pytest.mark.parametrize("case", TRAINING)
def test_random_paddle_training_gives_paddles_steps(case, how):
    main = parse_program(DATA[f"{case}/program"].tobytes(), case)
    startup = parse_program(DATA[f"{case}/startup"].tobytes(), case + " startup")
    feed = {k.split("/")[-1]: DATA[k] for k in DATA.files if k.startswith(f"{case}/feed/")}
    loss = str(DATA[f"{case}/loss_name"])
    steps = sorted(k for k in DATA.files if k.startswith(f"{case}/loss/"))
    tol = F32 if any(v.dtype == fluid.VarType.FP32 for v in main.list_vars()) else F64
    exe = fluid.Executor(fluid.CPUPlace())
    target = fluid.CompiledProgram(main, _unfused()) if how == "unfused" else main
    scope = fluid.Scope()
    with fluid.scope_guard(scope):
        exe.run(startup)
        for key in steps:
            got, = exe.run(target, feed=feed, fetch_list=[loss])  # the `mean` op's: 0-d
            np.testing.assert_allclose(got, DATA[key], err_msg=f"{key} ({how})", strict=True,
                                       **tol)
    # Adam divides by sqrt(v): a gradient at rounding level moves by a full step on either side
    state_tol = dict(rtol=1e-4, atol=1e-5) if tol is F32 else dict(rtol=1e-8, atol=1e-10)
    for key in (k for k in DATA.files if k.startswith(f"{case}/state/")):
        name = key.split("/", 2)[-1]
        np.testing.assert_allclose(np.array(scope.find_var(name).get_tensor()), DATA[key],
                                   err_msg=f"{case} {name} ({how})", **state_tol)
