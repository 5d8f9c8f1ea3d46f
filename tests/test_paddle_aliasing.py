"""Programs whose buffers alias (views, in-place outputs, reused bytes) give Paddle's numbers.

tests/fixtures/paddle/aliasing.npz holds, per case, the feeds, the initial parameter values and
what real PaddlePaddle 3.3.1 fetched at each step (tests/fixtures/make_aliasing_fixtures.py). Each
case is built here with fluidc, starts from the same weights and runs under every BuildStrategy
combination below, with and without fluid.memory_optimize(main) called on the program first.
"""
import os

import numpy as np
import pytest

os.environ.setdefault("TRITON_INTERPRET", "1")  # before any Triton kernel is decorated
import fluidc as fluid  # noqa: E402

FIXTURE = os.path.join(os.path.dirname(__file__), "fixtures", "paddle", "aliasing.npz")
RTOL, ATOL = 1e-5, 1e-6

OFF = dict(memory_optimize=False, enable_inplace=False, fuse_all_optimizer_ops=False,
           fuse_elewise_add_act_ops=False, fuse_reduce_ops=False, fuse_gemm_epilogue=False,
           fold_constants=False, fuse_all=False)
STRATEGIES = {
    "defaults": {},
    "fuse_all_off": dict(fuse_all=False),
    "inplace_off": dict(enable_inplace=False),
    "memory_optimize_off": dict(memory_optimize=False),
    "fuse_reduce_off": dict(fuse_reduce_ops=False),
    "fuse_elewise_off": dict(fuse_elewise_add_act_ops=False),
    "fuse_gemm_epilogue_off": dict(fuse_gemm_epilogue=False),
    "fuse_optimizer_off": dict(fuse_all_optimizer_ops=False),
    "fold_constants_off": dict(fold_constants=False),
    "inplace_only": dict(OFF, enable_inplace=True),
    "memory_optimize_only": dict(OFF, memory_optimize=True),
    "all_off": OFF,
}
TRITON = ["defaults", "inplace_only", "memory_optimize_only", "all_off"]  # CUDAPlace subset


def data(name, shape, stop_gradient=True):
    return fluid.layers.data(name=name, shape=shape, dtype="float32", append_batch_size=False,
                             stop_gradient=stop_gradient)


def view_then_reuse():
    """a=exp(x); r=reshape(a,[6]); b=tanh(x); t=transpose(b,[1,0]); out=r+reshape(t,[6])."""
    x = data("x", [2, 3])
    r = fluid.layers.reshape(fluid.layers.exp(x), [6])
    t = fluid.layers.transpose(fluid.layers.tanh(x), [1, 0])
    return [r + fluid.layers.reshape(t, [6])]


def assign_over_viewed():
    """a=scale(x, 2); r=reshape(a,[6]); assign(exp(x), output=a); fetch [r, a]."""
    x = data("x", [2, 3])
    a = fluid.layers.scale(x, 2.0)
    r = fluid.layers.reshape(a, [6])
    fluid.layers.assign(fluid.layers.exp(x), output=a)
    return [r, a]


def layer_norm_grads():
    """h=fc(x,8,relu); h=layer_norm(h); h=fc(h,5); loss=mean(h*h); append_backward(loss)."""
    x = data("x", [4, 6], stop_gradient=False)
    h = fluid.layers.fc(x, 8, act="relu")
    ln = fluid.layers.layer_norm(h)
    h = fluid.layers.fc(ln, 5)
    loss = fluid.layers.mean(h * h)
    grads = dict((p.name, g) for p, g in fluid.backward.append_backward(loss))
    params = fluid.default_main_program().all_parameters()
    scale, bias, w0 = (grads[params[i].name] for i in (2, 3, 0))  # creation order, as Paddle's
    return [loss, scale, bias, x.name + "@GRAD", w0]


def transpose_sigmoid_max():
    """t=transpose(x,[1,0]); a=sigmoid(t); r=reduce_max(t); p=matmul(a,w); fetch [r, p]."""
    x, w = data("x", [3, 4]), data("w", [3, 3])
    t = fluid.layers.transpose(x, [1, 0])
    a = fluid.layers.sigmoid(t)
    return [fluid.layers.reduce_max(t), fluid.layers.matmul(a, w)]


def residual_sgd():
    """h=fc(x,8); 2x h=h+fc(h,8,relu); loss=mean(square_error_cost(fc(h,1), y)); SGD(0.1)."""
    x, y = data("x", [16, 8]), data("y", [16, 1])
    h = fluid.layers.fc(x, 8)
    for _ in range(2):
        h = h + fluid.layers.fc(h, 8, act="relu")
    loss = fluid.layers.mean(fluid.layers.square_error_cost(fluid.layers.fc(h, 1), y))
    fluid.optimizer.SGD(learning_rate=0.1).minimize(loss)
    return [loss]


CASES = {f.__name__: f for f in (view_then_reuse, assign_over_viewed, layer_norm_grads,
                                  transpose_sigmoid_max, residual_sgd)}


@pytest.fixture(scope="module")
def fixture():
    with np.load(FIXTURE) as f:
        return {k: f[k] for k in f.files}


def build(case):
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        fetches = CASES[case]()
    return main, startup, fetches


def strategy(flags):
    s = fluid.BuildStrategy()
    for k, v in flags.items():
        setattr(s, k, v)
    return s


def close(got, want, what):
    got = np.asarray(got)
    assert got.size == want.size, (what, got.shape, want.shape)  # Paddle 3 fetches [] for [1]
    np.testing.assert_allclose(got.reshape(want.shape), want, rtol=RTOL, atol=ATOL, err_msg=what)


@pytest.mark.parametrize("program_memory_optimize", [False, True],
                         ids=["", "memory_optimize(main)"])
@pytest.mark.parametrize("flags", list(STRATEGIES.values()), ids=list(STRATEGIES))
@pytest.mark.parametrize("case", list(CASES))
def test_matches_paddle(case, flags, program_memory_optimize, fixture):
    check(case, flags, program_memory_optimize, fixture, fluid.CPUPlace())


@pytest.mark.parametrize("flags", [STRATEGIES[k] for k in TRITON], ids=TRITON)
@pytest.mark.parametrize("case", list(CASES))
def test_matches_paddle_on_triton(case, flags, fixture):
    pytest.importorskip("triton")
    check(case, flags, False, fixture, fluid.CUDAPlace(0))


def check(case, flags, program_memory_optimize, fixture, place):
    """Run the case from the fixture's weights on `place` and compare every step's fetches."""
    d = {k[len(case) + 1:]: v for k, v in fixture.items() if k.startswith(case + "/")}
    main, startup, fetches = build(case)
    if program_memory_optimize:
        fluid.memory_optimize(main)
    scope, exe = fluid.Scope(), fluid.Executor(place)
    exe.run(startup, scope=scope)
    ours = [p.name for p in main.all_parameters()]
    theirs = [str(n) for n in d["params"]]
    assert len(ours) == len(theirs), (ours, theirs)
    names = dict(zip(theirs, ours))  # Paddle's name -> fluidc's, by creation order
    for theirs_name, ours_name in names.items():
        value = d["param/" + theirs_name]
        tensor = scope.find_var(ours_name).get_tensor()
        assert np.array(tensor).shape == value.shape, (ours_name, theirs_name)
        tensor.set(value, fluid.CPUPlace())
    feed = {k[len("feed/"):]: v for k, v in d.items() if k.startswith("feed/")}
    compiled = fluid.CompiledProgram(main, build_strategy=strategy(flags))
    for step in range(int(d["steps"])):
        outs = exe.run(compiled, feed=feed, fetch_list=fetches, scope=scope)
        for i, out in enumerate(outs):
            close(out, d[f"fetch/{step}/{i}"], f"{case} step {step} fetch {i}")
    for theirs_name, ours_name in names.items():
        if "final/" + theirs_name in d:
            close(np.array(scope.find_var(ours_name).get_tensor()), d["final/" + theirs_name],
                  f"{case} final {ours_name}")
