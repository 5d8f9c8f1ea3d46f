"""Generated matrix products (MatmulKernel) with their epilogues, against numpy."""
import numpy as np
import pytest

import fluidc as fluid
import fluidc as paddle


def _strategy(generated: bool):
    s = fluid.BuildStrategy()
    s.fuse_gemm_epilogue = generated
    return s


def _run(build, feeds: dict, generated: bool = True):
    """Build a program with `build()` (returning fetch vars), run it once; (results, steps)."""
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        fetches = build()
    exe = fluid.Executor(fluid.CPUPlace())
    scope = fluid.Scope()
    with fluid.scope_guard(scope):
        exe.run(startup)
        program = fluid.CompiledProgram(main, build_strategy=_strategy(generated))
        got = exe.run(program, feed=feeds, fetch_list=fetches)
        params = {p.name: np.array(scope.find_var(p.name).get_tensor())
                  for p in main.all_parameters()}
    plan = list(exe._plans.values())[-1]
    return got, plan.lowered.steps, params


def _kinds(steps):
    return [type(s).__name__ for s in steps]


@pytest.mark.parametrize("dtype,tol", [("float32", 2e-5), ("float64", 1e-12)])
@pytest.mark.parametrize("m,k,n", [(1, 1, 1), (5, 3, 10), (6, 64, 16), (7, 65, 64),
                                   (64, 200, 65), (130, 130, 130), (13, 17, 200)])
def test_product_with_bias_and_relu_matches_numpy(m, k, n, dtype, tol):
    """Tails everywhere: rows past a 6-row tile, columns past a panel, K past a packed block."""
    rng = np.random.default_rng(m * 1000 + k * 10 + n)
    xs = rng.normal(size=(m, k)).astype(dtype)

    def build():
        x = fluid.data("x", [None, k], dtype)
        return [fluid.layers.fc(x, n, act="relu")]
    (got,), steps, params = _run(build, {"x": xs})
    assert _kinds(steps) == ["MatmulKernel"]
    w, b = params["fc_0.w_0"], params["fc_0.b_0"]
    want = np.maximum(xs @ w + b, 0)
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol * np.abs(want).max())
    assert got.dtype == np.dtype(dtype)


@pytest.mark.parametrize("trans_y", [False, True])
def test_matmul_v2_with_residual_and_transposed_weight(trans_y):
    rng = np.random.default_rng(3)
    xs, ws = rng.normal(size=(2, 9, 24)).astype("float32"), rng.normal(size=(24, 24)).astype("float32")
    wt = ws.T.copy() if trans_y else ws

    def build():
        x = paddle.static.data("x", [2, 9, 24], "float32")
        w = paddle.static.data("w", [24, 24], "float32")
        y = paddle.matmul(x, w, transpose_y=trans_y)
        return [fluid.layers.tanh(y + x)]  # residual: x has the product's shape
    (got,), steps, _ = _run(build, {"x": xs, "w": wt})
    assert _kinds(steps) == ["MatmulKernel"]
    assert [op.type for op in steps[0].ops] == ["matmul_v2", "elementwise_add", "tanh"]
    np.testing.assert_allclose(got, np.tanh(xs @ ws + xs), rtol=1e-5, atol=1e-5)


def test_epilogue_operands_broadcast_over_leading_dims():
    """mul flattening [2, 3, 8] at 2 dims: a [2, 1, 5] operand repeats over the middle dim."""
    rng = np.random.default_rng(4)
    xs, ws = rng.normal(size=(2, 3, 8)).astype("float32"), rng.normal(size=(8, 5)).astype("float32")
    zs = rng.normal(size=(2, 1, 5)).astype("float32")

    def build():
        x = fluid.data("x", [2, 3, 8], "float32")
        w = fluid.data("w", [8, 5], "float32")
        z = fluid.data("z", [2, 1, 5], "float32")
        h = fluid.layers.mul(x, w, x_num_col_dims=2)
        return [fluid.layers.elementwise_mul(h, z) - 1.0]
    (got,), steps, _ = _run(build, {"x": xs, "w": ws, "z": zs})
    assert _kinds(steps) == ["MatmulKernel"]
    np.testing.assert_allclose(got, (xs @ ws) * zs - 1.0, rtol=1e-5, atol=1e-5)


def test_product_used_later_is_stored_as_well():
    rng = np.random.default_rng(5)
    xs = rng.normal(size=(10, 12)).astype("float32")

    def build():
        x = fluid.data("x", [None, 12], "float32")
        w = fluid.layers.create_parameter([12, 7], "float32", name="w")
        h = fluid.layers.mul(x, w)
        return [fluid.layers.sigmoid(h), h]
    (act, prod), steps, params = _run(build, {"x": xs})
    assert _kinds(steps) == ["MatmulKernel"]
    want = xs @ params["w"]
    np.testing.assert_allclose(prod, want, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(act, 1 / (1 + np.exp(-want)), rtol=1e-5, atol=1e-6)


def test_nan_and_inf_propagate_as_in_numpy():
    xs = np.ones((8, 4), "float32")
    xs[1, 2] = np.nan
    xs[5, 0] = np.inf
    ws = np.ones((4, 3), "float32")

    def build():
        x = fluid.data("x", [8, 4], "float32")
        w = fluid.data("w", [4, 3], "float32")
        return [fluid.layers.relu(fluid.layers.mul(x, w))]
    (got,), _, _ = _run(build, {"x": xs, "w": ws})
    with np.errstate(invalid="ignore"):
        want = np.maximum(xs @ ws, 0)
    np.testing.assert_array_equal(got, want)
    assert np.isnan(got[1]).all() and np.isinf(got[5]).all()


def test_mlp_inference_is_three_matmul_kernels_equal_to_library_products():
    rng = np.random.default_rng(6)
    xs = rng.normal(size=(64, 784)).astype("float32")

    def build():
        x = fluid.data("x", [None, 784], "float32")
        h = fluid.layers.fc(x, 512, act="relu")
        h = fluid.layers.fc(h, 512, act="relu")
        return [fluid.layers.fc(h, 10)]
    fluid.default_startup_program().random_seed = 1
    (got,), steps, params = _run(build, {"x": xs})
    assert _kinds(steps) == ["MatmulKernel"] * 3
    (lib,), lib_steps, lib_params = _run(build, {"x": xs}, generated=False)
    assert "MatmulKernel" not in _kinds(lib_steps)
    h = xs
    for i, act in enumerate([True, True, False]):
        h = h @ params[f"fc_{i}.w_0"] + params[f"fc_{i}.b_0"]
        h = np.maximum(h, 0) if act else h
    np.testing.assert_allclose(got, h, rtol=1e-4, atol=1e-4)


def test_training_generates_products_by_fixed_matrices_and_keeps_trained_ones_library():
    """A product by a fed matrix is generated, its grads library calls; products by weights
    the optimizer rewrites each step stay library calls. Same losses as all-library."""
    rng = np.random.default_rng(7)
    xs = rng.normal(size=(32, 20)).astype("float32")
    ys = rng.integers(0, 4, (32, 1)).astype("int64")
    ps = (rng.normal(size=(16, 16)) / 4).astype("float32")
    losses = {}
    for generated in (True, False):
        main, startup = fluid.Program(), fluid.Program()
        main.random_seed = startup.random_seed = 11
        with fluid.program_guard(main, startup):
            x = fluid.data("x", [None, 20], "float32")
            y = fluid.data("y", [None, 1], "int64")
            p = fluid.data("p", [16, 16], "float32")
            h = fluid.layers.fc(x, 16, act="relu")
            z = fluid.layers.tanh(paddle.matmul(h, p) + h)
            logits = fluid.layers.fc(z, 4)
            loss = fluid.layers.mean(fluid.layers.softmax_with_cross_entropy(logits, y))
            fluid.optimizer.Adam(0.01).minimize(loss)
        exe = fluid.Executor(fluid.CPUPlace())
        with fluid.scope_guard(fluid.Scope()):
            exe.run(startup)
            program = fluid.CompiledProgram(main, build_strategy=_strategy(generated))
            losses[generated] = [float(exe.run(program, feed={"x": xs, "y": ys, "p": ps},
                                               fetch_list=[loss])[0][0]) for _ in range(20)]
        steps = list(exe._plans.values())[-1].lowered.steps
        generated_ops = [s.matmul.type for s in steps if _kinds([s]) == ["MatmulKernel"]]
        assert generated_ops == (["matmul_v2"] if generated else [])
        assert sum(1 for s in steps if hasattr(s, "op") and s.op.type == "mul") == 2
    np.testing.assert_allclose(losses[True], losses[False], rtol=1e-5)
    assert losses[True][-1] < losses[True][0] * 0.7


def test_products_the_kernel_does_not_take_stay_library_calls():
    """Integer products and transposed X go to the library; results still match numpy."""
    rng = np.random.default_rng(8)
    xs, ws = rng.normal(size=(5, 4)).astype("float32"), rng.normal(size=(5, 3)).astype("float32")

    def build():
        x = paddle.static.data("x", [5, 4], "float32")
        w = paddle.static.data("w", [5, 3], "float32")
        return [paddle.matmul(x, w, transpose_x=True)]
    (got,), steps, _ = _run(build, {"x": xs, "w": ws})
    assert "MatmulKernel" not in _kinds(steps)
    np.testing.assert_allclose(got, xs.T @ ws, rtol=1e-5, atol=1e-6)
