"""ModelAverage, LookAhead and unique_consecutive against real Paddle's numbers
(tests/fixtures/paddle/averaging.npz, written by make_averaging_fixtures.py from the cases in
averaging_cases.py), plus average_accumulates against the numpy reference executor."""
import os
import sys

import numpy as np
import pytest

import fluidc as paddle

FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures")
sys.path.insert(0, FIXTURES)
from averaging_cases import lookahead, model_average, unique_consecutive  # noqa: E402
from op_harness import run_reference  # noqa: E402

paddle.enable_static()
REF = np.load(os.path.join(FIXTURES, "paddle", "averaging.npz"))


def _compare(name, got):
    keys = sorted(k[len(name) + 1:] for k in REF.files if k.startswith(name + "/"))
    assert sorted(got) == keys
    for k in keys:
        want = REF[f"{name}/{k}"]
        assert got[k].dtype == want.dtype and got[k].shape == want.shape, k
        if want.dtype.kind == "f":
            np.testing.assert_allclose(got[k], want, rtol=1e-5, atol=1e-6, err_msg=k)
        else:
            np.testing.assert_array_equal(got[k], want, err_msg=k)


@pytest.mark.parametrize("case", [model_average, lookahead, unique_consecutive],
                         ids=lambda c: c.__name__)
def test_against_paddle(case):
    with paddle.static.scope_guard(paddle.static.Scope()):
        _compare(case.__name__, case(paddle))


def _accumulate_program(rate, min_window, max_window, shape=(3, 2)):
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        param = paddle.static.data("param", list(shape), "float32")
        block = main.global_block()
        accs = {}
        for n in ("sum_1", "sum_2", "sum_3"):
            accs[n] = paddle.static.create_global_var(list(shape), 0.0, "float32", True,
                                                      name=n)
        for n in ("num_accumulates", "old_num_accumulates", "num_updates"):
            accs[n] = paddle.static.create_global_var([1], 0, "int64", True, name=n)
        block.append_op("average_accumulates",
                        inputs={"param": [param], **{f"in_{n}": [v] for n, v in accs.items()}},
                        outputs={f"out_{n}": [v] for n, v in accs.items()},
                        attrs={"average_window": rate, "min_average_window": min_window,
                               "max_average_window": max_window})
    return main, startup, list(accs)


def _numpy_window(params, rate, min_window, max_window):
    """Paddle's documented steps, written out in float64."""
    s1 = s2 = s3 = 0.0
    acc = old = upd = 0
    for p in params:
        upd, acc = upd + 1, acc + 1
        s1 = s1 + p
        if upd % 16384 == 0:
            s2, s1 = s2 + s1, 0.0 * p
        if acc >= min_window and acc >= min(max_window, int(np.float32(upd) * np.float32(rate))):
            s3, s1, s2 = s1 + s2, 0.0 * p, 0.0 * p
            old, acc = acc, 0
    return s1, s2, s3, acc, old, upd


@pytest.mark.parametrize("rate,min_window,max_window", [(0.3, 2, 5), (0.15, 1, 3), (1.0, 4, 4),
                                                        (0.5, 3, 100)])
def test_average_accumulates_window(rate, min_window, max_window):
    main, startup, names = _accumulate_program(rate, min_window, max_window)
    rng = np.random.RandomState(0)
    params = [rng.randn(3, 2).astype("float32") for _ in range(11)]
    runs = {}
    for executor in ("compiled", "reference"):
        scope = paddle.static.Scope()
        with paddle.static.scope_guard(scope):
            exe = paddle.static.Executor(paddle.CPUPlace())
            exe.run(startup)
            for p in params:
                got = (exe.run(main, feed={"param": p}, fetch_list=names)
                       if executor == "compiled" else
                       run_reference(main, {"param": p}, names, scope))
            runs[executor] = got
    want = _numpy_window(params, rate, min_window, max_window)
    for got in runs.values():
        for g, w in zip(got, want):
            np.testing.assert_allclose(np.asarray(g).reshape(-1), np.reshape(w, -1), rtol=1e-6)


def test_average_accumulates_refuses_crossed_windows():
    with pytest.raises(ValueError, match="min_average_window > max_average_window"):
        paddle.incubate.optimizer.ModelAverage(0.1, min_average_window=5, max_average_window=2)
    with pytest.raises(paddle.frontend.errors.OpError, match="min_average_window"):
        _accumulate_program(0.1, 5, 2)


def test_fluid_model_average_signature_and_parameters():
    """fluid.optimizer.ModelAverage takes 1.x's positional windows and skips parameters whose
    ParamAttr sets do_model_average=False; its window sums equal incubate's."""
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup), paddle.utils.unique_name.guard():
        x = paddle.static.data("x", [None, 3], "float32")
        y = paddle.static.nn.fc(x, 4, weight_attr="w",
                                bias_attr=paddle.ParamAttr(name="b", do_model_average=False))
        paddle.optimizer.SGD(0.1).minimize(paddle.mean(y * y))
        average = paddle.optimizer.ModelAverage(0.5, 1, 3)
    ops = [op for op in main.global_block().ops if op.type == "average_accumulates"]
    assert [op.input("param") for op in ops] == [["w"]]
    assert (ops[0].attr("min_average_window"), ops[0].attr("max_average_window")) == (1, 3)
    exe = paddle.static.Executor(paddle.CPUPlace())
    with paddle.static.scope_guard(paddle.static.Scope()):
        exe.run(startup)
        ws = []
        for _ in range(4):
            exe.run(main, feed={"x": np.ones((2, 3), "float32")})
            ws.append(np.array(paddle.static.global_scope().find_var("w").get_tensor()))
        s1, s2, s3, acc, old, _ = _numpy_window(ws, 0.5, 1, 3)
        with average.apply(exe):
            got = np.array(paddle.static.global_scope().find_var("w").get_tensor())
        np.testing.assert_allclose(got, (s1 + s2 + s3) / (acc + old), rtol=1e-6)
        np.testing.assert_array_equal(
            np.array(paddle.static.global_scope().find_var("w").get_tensor()), ws[-1])
