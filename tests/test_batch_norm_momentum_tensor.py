"""batch_norm's MomentumTensor (static.nn.batch_norm(x, momentum=<Variable>), as Paddle writes
it): the running statistics use the fed momentum, not the attribute, on the fused and unfused C
plans and the numpy reference executor, against numpy, for random shapes, dtypes and momenta."""
import numpy as np
import pytest

import fluidc as paddle
from fluidc.frontend.errors import FluidcError

from op_harness import run_reference

paddle.enable_static()


def _program(shape, dtype):
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", list(shape), dtype)
        m = paddle.static.data("m", [1], "float32")
        y = paddle.static.nn.batch_norm(x, momentum=m, moving_mean_name="mean",
                                        moving_variance_name="var")
    op = next(o for o in main.global_block().ops if o.type == "batch_norm")
    assert op.desc.input("MomentumTensor") == ["m"]
    return main, startup, y


@pytest.mark.parametrize("seed", range(4))
def test_running_statistics_use_the_fed_momentum(seed):
    rng = np.random.default_rng(seed)
    dtype = ("float32", "float64")[seed % 2]
    shape = tuple(int(d) for d in rng.integers(2, 6, 4))
    main, startup, y = _program(shape, dtype)
    plain = paddle.static.BuildStrategy()
    plain.fuse_all = False
    unfused = paddle.static.CompiledProgram(main, build_strategy=plain)
    exe = paddle.static.Executor(paddle.CPUPlace())
    x = (rng.standard_normal(shape) * 2 + 1).astype(dtype)
    feed = {"x": x, "m": rng.uniform(0.1, 0.9, [1]).astype("float32")}
    m = np.float64(feed["m"][0]) if dtype == "float64" else feed["m"][0]
    # Paddle's float32 kernels compute 1 - m in float32; the statistics start at 0 and 1
    want_mean = x.mean(axis=(0, 2, 3)) * (1 - m)
    want_var = m + x.var(axis=(0, 2, 3)) * (1 - m)
    rtol = 1e-5 if dtype == "float32" else 1e-12
    for which, prog in (("fused", main), ("unfused", unfused), ("reference", None)):
        scope = paddle.static.Scope()
        with paddle.static.scope_guard(scope):
            exe.run(startup)
            if prog is None:
                run_reference(main, feed, [y.name], scope)
            else:
                exe.run(prog, feed=feed, fetch_list=[y])
        for name, want in (("mean", want_mean), ("var", want_var)):
            got = np.array(scope.find_var(name).get_tensor())
            assert got.dtype == np.dtype(dtype), (which, name)
            np.testing.assert_allclose(got, want, rtol=rtol, err_msg=f"{which} {name}")


def test_momentum_tensor_must_be_float32():
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [2, 3, 4, 4], "float32")
        m = paddle.static.data("m", [1], "int32")
        with pytest.raises((TypeError, FluidcError), match="momentum"):
            paddle.static.nn.batch_norm(x, momentum=m)
