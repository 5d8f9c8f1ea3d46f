"""Generated matrix products (MatmulKernel) with their epilogues, against numpy."""
import numpy as np
import pytest

import fluidc as fluid
import fluidc as paddle
from fluidc.runtime.tiered import numpy_module
from op_harness import TOL, run_reference, seeded


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
    # W, a parameter the plan only reads, is packed once (prepack.py), not in every run
    assert _kinds(steps) == ["PackKernel", "MatmulKernel"]
    assert steps[1].packed == steps[0].outputs[0] and steps[0].weight == "fc_0.w_0"
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


@pytest.mark.parametrize("dtype,tol", [("float32", 2e-5), ("float64", 1e-12)])
@pytest.mark.parametrize("m,k,n", [(37, 80, 130), (13, 70, 64), (6, 16, 16), (50, 128, 200),
                                   (7, 8, 8), (9, 33, 17)])
def test_transposed_weights_packed_in_blocks_and_tails(m, k, n, dtype, tol):
    """A transposed W is packed as L x L blocks transposed in registers where a panel is whole
    and its K block a multiple of L (16 floats or 8 doubles with AVX-512, 8 or 4 with AVX2),
    element by element elsewhere: each mix of the two against numpy."""
    rng = np.random.default_rng(m * 1000 + k * 10 + n)
    xs, ws = rng.normal(size=(m, k)).astype(dtype), rng.normal(size=(n, k)).astype(dtype)

    def build():
        x = paddle.static.data("x", [m, k], dtype)
        w = paddle.static.data("w", [n, k], dtype)
        return [paddle.matmul(x, w, transpose_y=True)]
    (got,), steps, _ = _run(build, {"x": xs, "w": ws})
    assert _kinds(steps) == ["MatmulKernel"]
    want = xs @ ws.T
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol * np.abs(want).max())


@pytest.mark.parametrize("dtype,tol", [("float32", 2e-5), ("float64", 1e-12)])
@pytest.mark.parametrize("m,k,n,trans_y", [(1, 1, 1, False), (5, 3, 10, True), (7, 65, 64, False),
                                           (64, 200, 65, True), (130, 130, 130, False),
                                           (13, 17, 200, True)])
def test_transposed_x_read_down_its_columns(m, k, n, trans_y, dtype, tol):
    """X stored [k, m] (a weight's gradient: X^T @ dOut), tails everywhere, an epilogue."""
    rng = np.random.default_rng(m * 1000 + k * 10 + n)
    xs, ws = rng.normal(size=(k, m)).astype(dtype), rng.normal(size=(k, n)).astype(dtype)
    bs = rng.normal(size=(n,)).astype(dtype)
    if trans_y:
        ws = np.ascontiguousarray(ws.T)

    def build():
        x = paddle.static.data("x", [k, m], dtype)
        w = paddle.static.data("w", list(ws.shape), dtype)
        b = paddle.static.data("b", [n], dtype)
        return [paddle.nn.functional.relu(
            paddle.matmul(x, w, transpose_x=True, transpose_y=trans_y) + b)]
    (got,), steps, _ = _run(build, {"x": xs, "w": ws, "b": bs})
    assert _kinds(steps) == ["MatmulKernel"]
    want = np.maximum(xs.T @ (ws.T if trans_y else ws) + bs, 0)
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol * np.abs(want).max())


@pytest.mark.parametrize("dtype,tol", [("float32", 2e-5), ("float64", 1e-12)])
@pytest.mark.parametrize("lead,m,k,n,tx,ty", [
    ((1,), 1, 1, 1, False, False), ((2, 3), 7, 65, 64, False, True),
    ((3,), 13, 17, 70, True, False), ((2, 2), 130, 9, 5, True, True),
    ((5,), 6, 64, 16, False, False)])
def test_batched_product_with_epilogue_matches_numpy(lead, m, k, n, tx, ty, dtype, tol):
    """X and Y of equal batch dims (attention's products): one matrix after another, each
    transposed or not, tails past a 6-row tile, a 64-column panel and a 64-row K block, an
    epilogue whose operand broadcasts over the batch."""
    rng = np.random.default_rng(m * 1000 + k * 10 + n)
    xs = rng.normal(size=lead + ((k, m) if tx else (m, k))).astype(dtype)
    ws = rng.normal(size=lead + ((n, k) if ty else (k, n))).astype(dtype)
    bs = rng.normal(size=(m, n)).astype(dtype)

    def build():
        x = paddle.static.data("x", list(xs.shape), dtype)
        w = paddle.static.data("w", list(ws.shape), dtype)
        b = paddle.static.data("b", [m, n], dtype)
        return [paddle.tanh(paddle.matmul(x, w, transpose_x=tx, transpose_y=ty) * 0.5 + b)]
    (got,), steps, _ = _run(build, {"x": xs, "w": ws, "b": bs})
    assert _kinds(steps) == ["MatmulKernel"]
    xm, wm = (np.swapaxes(xs, -1, -2) if tx else xs), (np.swapaxes(ws, -1, -2) if ty else ws)
    want = np.tanh((xm @ wm) * 0.5 + bs)
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("tx,ty", [(False, False), (False, True), (True, False), (True, True)])
def test_batched_product_grads_are_two_generated_products(tx, ty, dtype):
    """matmul_v2_grad of equal batch dims becomes dX and dY as generated products (with each
    transpose flag): the gradients equal the numpy reference executor's and central finite
    differences of the loss in float64."""
    rng = seeded(f"batched-grads-{tx}-{ty}-{dtype}")
    b, m, k, n = 3, 7, 5, 9
    feed = {"x": rng.normal(size=(b, 2) + ((k, m) if tx else (m, k))).astype(dtype),
            "y": rng.normal(size=(b, 2) + ((n, k) if ty else (k, n))).astype(dtype)}
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = paddle.static.data("x", list(feed["x"].shape), dtype)
        y = paddle.static.data("y", list(feed["y"].shape), dtype)
        x.stop_gradient = y.stop_gradient = False
        loss = paddle.mean(paddle.tanh(paddle.matmul(x, y, transpose_x=tx, transpose_y=ty)))
        grads = fluid.gradients([loss], [x, y])
    fetch = [loss.name] + [g.name for g in grads]
    exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
    got = exe.run(main, feed=feed, fetch_list=fetch, scope=scope)
    plan = list(exe._plans.values())[-1]
    assert sorted(_generated(plan)) == ["matmul_v2"] * 3
    assert not [s for s in plan.lowered.steps if getattr(s, "op", None)
                and s.op.type == "matmul_v2_grad"]
    ref = run_reference(main, feed, fetch, fluid.Scope())
    tol = TOL[np.dtype(dtype)]
    for g, r, what in zip(got, ref, ("loss", "dx", "dy")):
        np.testing.assert_allclose(g, r, *tol, err_msg=what)
    if dtype == "float64":
        def loss_at(**fed):
            return float(np.asarray(exe.run(main, feed={**feed, **fed}, fetch_list=[loss.name],
                                            scope=scope)[0]))
        for name, g in (("x", got[1]), ("y", got[2])):
            for idx in [(0, 0, 0, 0), (b - 1, 1, 2, 3)]:
                e = np.zeros_like(feed[name])
                e[idx] = 1e-6
                fd = (loss_at(**{name: feed[name] + e}) - loss_at(**{name: feed[name] - e})) / 2e-6
                np.testing.assert_allclose(g[idx], fd, rtol=1e-6, atol=1e-9, err_msg=name)


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
    assert _kinds(steps) == ["PackKernel", "MatmulKernel"]
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
    assert _kinds(steps) == ["PackKernel"] * 3 + ["MatmulKernel"] * 3
    (lib,), lib_steps, lib_params = _run(build, {"x": xs}, generated=False)
    assert "MatmulKernel" not in _kinds(lib_steps)
    h = xs
    for i, act in enumerate([True, True, False]):
        h = h @ params[f"fc_{i}.w_0"] + params[f"fc_{i}.b_0"]
        h = np.maximum(h, 0) if act else h
    np.testing.assert_allclose(got, h, rtol=1e-4, atol=1e-4)


def _train(build, feeds: list[dict], generated: bool | None, seed: int = 11):
    """Build a training program (build() -> loss), run a step per feed: (losses, params, plan).
    generated: fuse_gemm_epilogue on / off; None runs the numpy reference executor."""
    main, startup = fluid.Program(), fluid.Program()
    main.random_seed = startup.random_seed = seed
    with fluid.unique_name.guard(), fluid.program_guard(main, startup):
        loss = build()
    exe, scope = fluid.Executor(fluid.CPUPlace()), fluid.Scope()
    with fluid.scope_guard(scope):
        exe.run(startup)
    if generated is None:
        losses = [run_reference(main, f, [loss.name], scope)[0] for f in feeds]
        plan = None
    else:
        program = fluid.CompiledProgram(main, build_strategy=_strategy(generated))
        losses = [exe.run(program, feed=f, fetch_list=[loss], scope=scope)[0] for f in feeds]
        plan = list(exe._plans.values())[-1]
    params = {p.name: np.array(scope.find_var(p.name).get_tensor())
              for p in main.all_parameters()}
    return losses, params, plan


def _generated(plan) -> list[str]:
    return [s.matmul.type for s in plan.lowered.steps if _kinds([s]) == ["MatmulKernel"]]


@pytest.mark.parametrize("case", range(6))
def test_training_products_by_trained_weights_are_generated_when_there_is_no_tier0(case):
    """A training plan that cannot run on tier 0 (tanh, softmax: not numpy-exact) generates
    every product it can, the weights the optimizer rewrites included, mul_grad's dX and
    dY, and matmul_v2_grad's where X and Y are both matrices (split_product_grads); over
    random sizes,
    dtypes and a transposed weight, three Adam steps give the losses and parameters of the
    library products and of the numpy reference executor."""
    rng = seeded(f"train-products-{case}")
    m, k, h, c = (int(v) for v in rng.integers(1, 70, 4))
    dtype = ("float32", "float64")[case % 2]
    trans = bool(case & 2)
    seq = 3 if case >= 4 else 0  # fc over [m, seq, k] (num_flatten_dims 2), a squared loss
    lead = (m, seq) if seq else (m,)
    feeds = [{"x": rng.normal(size=lead + (k,)).astype(dtype),
              "y": rng.integers(0, c, (m, 1)).astype("int64")} for _ in range(3)]

    def build():
        x = fluid.data("x", [None] + [seq] * bool(seq) + [k], dtype)
        y = fluid.data("y", [None, 1], "int64")
        a = fluid.layers.fc(x, h, act="relu", num_flatten_dims=len(lead))
        w = fluid.layers.create_parameter([h, h], dtype, name="square_w")
        z = fluid.layers.tanh(paddle.matmul(a, w, transpose_y=trans) + a)
        logits = fluid.layers.fc(z, c, num_flatten_dims=len(lead))
        loss = fluid.layers.mean(fluid.layers.square(logits) if seq else
                                 fluid.layers.softmax_with_cross_entropy(logits, y))
        fluid.optimizer.Adam(0.01).minimize(loss)
        return loss
    got, got_params, plan = _train(build, feeds, True)
    # The three forward products, the last fc's dX and both fc weights' gradients (split
    # from their mul_grads, which are gone), and both of square_w's product's grads where its
    # X is a matrix (of [m, seq, h] @ [h, h], dY sums over two dims: a library grad op).
    assert sorted(_generated(plan)) == ["matmul_v2"] * (4 if seq else 6) + ["mul"] * 2
    assert [s.op.type for s in plan.lowered.steps if getattr(s, "op", None)
            and s.op.type.endswith("_grad")] == ["matmul_v2_grad"] * bool(seq)
    lib, lib_params, lib_plan = _train(build, feeds, False)
    assert _generated(lib_plan) == []
    ref, ref_params, _ = _train(build, feeds, None)
    tol = TOL[np.dtype(dtype)]
    for other, other_params in ((lib, lib_params), (ref, ref_params)):
        np.testing.assert_allclose(np.ravel(got), np.ravel(other), *tol)
        for n, v in got_params.items():
            np.testing.assert_allclose(v, other_params[n], rtol=tol[0] * 10, atol=tol[1] * 10,
                                       err_msg=n)


@pytest.mark.parametrize("tiered", ["0", "1"])
def test_tier0_training_plan_keeps_library_products(tiered, monkeypatch):
    """A training plan tier 0 can run keeps products by trained weights as library calls (a
    product kernel has no tier-0 form), with tiering on or off; a fixed matrix's product is
    generated only where the plan has no tier 0 anyway."""
    monkeypatch.setenv("FLUIDC_TIERED", tiered)
    rng = np.random.default_rng(7)
    feeds = [{"x": rng.normal(size=(16, 8)).astype("float32"),
              "t": rng.normal(size=(16, 4)).astype("float32")} for _ in range(2)]

    def build():
        x = fluid.data("x", [None, 8], "float32")
        t = fluid.data("t", [None, 4], "float32")
        p = fluid.layers.fc(fluid.layers.fc(x, 6, act="relu"), 4)
        loss = fluid.layers.mean(fluid.layers.square(p - t))
        fluid.optimizer.SGD(0.1).minimize(loss)
        return loss
    got, params, plan = _train(build, feeds, True)
    assert _generated(plan) == []
    assert numpy_module(plan.lowered) is not None  # the plan has a tier 0
    ref, ref_params, _ = _train(build, feeds, None)
    np.testing.assert_allclose(np.ravel(got), np.ravel(ref), rtol=1e-5, atol=1e-6)


def test_products_the_kernel_does_not_take_stay_library_calls():
    """A transposed X of more than two dims (a batch of products) goes to the library, a 2-D
    one is generated (read down its columns); results match numpy either way."""
    rng = np.random.default_rng(8)
    for lead in ((), (2,)):
        xs = rng.normal(size=lead + (5, 4)).astype("float32")
        ws = rng.normal(size=(5, 3)).astype("float32")

        def build():
            x = paddle.static.data("x", list(xs.shape), "float32")
            w = paddle.static.data("w", [5, 3], "float32")
            return [paddle.matmul(x, w, transpose_x=True)]
        (got,), steps, _ = _run(build, {"x": xs, "w": ws})
        assert ("MatmulKernel" in _kinds(steps)) == (not lead)
        np.testing.assert_allclose(got, np.swapaxes(xs, -1, -2) @ ws, rtol=1e-5, atol=1e-6)


def test_epilogue_operand_gives_its_storage_to_the_output():
    """An epilogue operand that dies in the product's kernel gives the output its storage
    (enable_inplace; read element by element before the same element is stored); X and W,
    read whole, never do."""
    from fluidc.passes.fuse import MatmulKernel
    from fluidc.passes.pipeline import lower_for_batch
    rng = np.random.default_rng(9)
    feed = {"x": rng.normal(size=(64, 48)).astype("float32"),
            "w": rng.normal(size=(48, 48)).astype("float32"),
            "q": rng.normal(size=(64, 48)).astype("float32")}
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x, w, q = (paddle.static.data(n, [64, 48], "float32") if n != "w" else
                   paddle.static.data(n, [48, 48], "float32") for n in ("x", "w", "q"))
        r = paddle.nn.functional.relu(q)
        xr = paddle.exp(x)  # dies in the product as its X: no donor
        y = paddle.matmul(xr, w) + r
        total = paddle.sum(y * 1.0, axis=1)
    lp = lower_for_batch(main, list(feed), [total.name], 64)
    kernel, = [s for s in lp.steps if isinstance(s, MatmulKernel)]
    out = kernel.outputs[0]
    assert lp.storage(out) == lp.storage(r.name) != lp.storage(xr.name)
    got, = fluid.Executor(fluid.CPUPlace()).run(main, feed=feed, fetch_list=[total])
    want = (np.exp(feed["x"]) @ feed["w"] + np.maximum(feed["q"], 0)).sum(1)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-3)
