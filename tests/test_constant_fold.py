"""fold_constants: what depends on constants alone is computed while compiling."""
import numpy as np

import fluidc as fluid
from fluidc.passes.constant_fold import fold_constants


def _compile_and_run(build, feed, fold: bool):
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        fetches = build()
    strategy = fluid.BuildStrategy()
    strategy.fold_constants = fold
    exe = fluid.Executor(fluid.CPUPlace())
    with fluid.scope_guard(fluid.Scope()):
        exe.run(startup)
        got = exe.run(fluid.CompiledProgram(main, build_strategy=strategy), feed=feed,
                      fetch_list=fetches)
    ops = [op.type for s in list(exe._plans.values())[-1].lowered.steps
           for op in ([s.op] if hasattr(s, "op") else s.ops)]
    return got, ops


def test_constant_subexpressions_become_assign_values():
    def build():
        x = fluid.data("x", [2, 3], "float32")
        c = fluid.layers.fill_constant([3], "float32", 2.0)
        d = fluid.layers.exp(c * 3.0 + 1.0)          # constants only: folded
        e = fluid.layers.reduce_sum(d)                # still constants only
        return [fluid.layers.elementwise_add(x, d) * e, e]
    xs = np.arange(6, dtype="float32").reshape(2, 3)
    (folded, e), ops = _compile_and_run(build, {"x": xs}, True)
    (plain, e2), plain_ops = _compile_and_run(build, {"x": xs}, False)
    assert "exp" not in ops and "reduce_sum" not in ops and "fill_constant" not in ops
    assert ops.count("assign_value") == 2  # d (read by the kernel) and e (read and fetched)
    assert "exp" in plain_ops
    want_d = np.exp(np.full(3, 7.0, "float32"))
    np.testing.assert_allclose(folded, (xs + want_d) * want_d.sum(), rtol=1e-6)
    np.testing.assert_array_equal(folded, plain)
    np.testing.assert_array_equal(e, e2)


def test_random_large_and_fed_values_are_not_folded():
    def build():
        x = fluid.data("x", [3], "float32")
        r = fluid.layers.uniform_random([3], min=0.0, max=1.0, seed=3)
        big = fluid.layers.fill_constant([100, 100], "float32", 1.0) + 1.0
        return [fluid.layers.reduce_sum(big) + r + x]
    _, ops = _compile_and_run(build, {"x": np.zeros(3, "float32")}, True)
    assert "uniform_random" in ops and "assign_value" not in ops


def test_a_later_write_makes_a_constant_unknown_again():
    from fluidc.frontend.ops import OpDesc, VarInfo
    from fluidc.frontend.dtypes import VarType
    f32 = VarType.FP32
    infos = {n: VarInfo((2,), f32) for n in ("a", "b", "x")}
    ops = [OpDesc("fill_constant", {}, {"Out": ["a"]}, {"shape": [2], "value": 1.0, "dtype": 5}),
           OpDesc("relu", {"X": ["x"]}, {"Out": ["a"]}, {}),      # a is no longer a constant
           OpDesc("scale", {"X": ["a"]}, {"Out": ["b"]}, {"scale": 2.0, "bias": 0.0,
                                                          "bias_after_scale": True})]
    from fluidc.frontend.ops import get_op_def
    for op in ops:
        op.attrs = get_op_def(op.type).complete_attrs(op.attrs)
    assert [op.type for op in fold_constants(ops, infos)] == ["fill_constant", "relu", "scale"]
