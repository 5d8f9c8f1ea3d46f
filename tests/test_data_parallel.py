"""Several places in one process (CompiledProgram.with_data_parallel, ParallelExecutor): n
places on a batch split n ways train as one device on the whole batch."""
import numpy as np
import pytest

import fluidc as fluid
from data_parallel_model import batch, build
from fluidc.distributed.collective import (ALLREDUCE, SYNC, insert_allreduce, plan_buckets,
                                           transpile_nccl2)
from fluidc.frontend.errors import FeedError, OpError, ShapeError
from fluidc.runtime.data_parallel import split_feed

STEPS = 3


def _train(n_places, how="compiled", batch_size=8, strategy=None, optimizer="adam"):
    """(losses per step, parameters) after STEPS steps on `n_places` places (0: no
    data-parallel program at all)."""
    main, startup, loss = build(optimizer=optimizer)
    scope = fluid.Scope()
    exe = fluid.Executor(fluid.CPUPlace())
    with fluid.scope_guard(scope):
        exe.run(startup)
        if how == "pe":
            pe = fluid.ParallelExecutor(False, loss_name=loss.name, main_program=main,
                                        build_strategy=strategy,
                                        exec_strategy=fluid.ExecutionStrategy())
            run = lambda feed: pe.run([loss.name], feed=feed)  # noqa: E731
        else:
            program = main if n_places == 0 else fluid.CompiledProgram(main).with_data_parallel(
                loss_name=loss.name, build_strategy=strategy, places=fluid.cpu_places(n_places))
            run = lambda feed: exe.run(program, feed=feed, fetch_list=[loss])  # noqa: E731
        losses = []
        for i in range(STEPS):
            x, y = batch(i, batch_size)
            losses.append(run({"x": x, "y": y})[0])
        params = {p.name: np.array(scope.find_var(p.name).get_tensor())
                  for p in main.all_parameters()}
    return losses, params


@pytest.mark.parametrize("n", [2, 4])
def test_places_train_as_one_device_on_the_whole_batch(n):
    one_losses, one = _train(0)
    losses, params = _train(n)
    for a, b in zip(one_losses, losses):
        assert b.shape == (n,)  # one loss a place, merged as Paddle does
        np.testing.assert_allclose(b.mean(), a[0], rtol=1e-5)
    for name in one:
        np.testing.assert_allclose(params[name], one[name], rtol=2e-5, atol=1e-6)


def test_parallel_executor_reads_cpu_num(monkeypatch):
    monkeypatch.setenv("CPU_NUM", "2")
    _, one = _train(0)
    losses, params = _train(2, how="pe")
    assert losses[0].shape == (2,)
    for name in one:
        np.testing.assert_allclose(params[name], one[name], rtol=2e-5, atol=1e-6)


def test_uneven_batch_split_as_paddle_does():
    # 10 rows on 4 places: ceil(10/4) = 3 rows a place, the last place 1
    feeds = split_feed({"x": np.arange(10)}, 4)
    assert [list(f["x"]) for f in feeds] == [[0, 1, 2], [3, 4, 5], [6, 7, 8], [9]]
    with pytest.raises(FeedError, match="less than the count"):
        split_feed({"x": np.arange(3)}, 4)
    with pytest.raises(FeedError, match="one dict per place"):
        split_feed([{"x": np.arange(3)}], 2)


def test_lod_feed_split_by_sequences_as_paddle_does():
    # 5 top-level sequences on 2 places: 3 and 2; the second level follows, rebased to 0
    lod = [[0, 2, 3, 5, 6, 8], [0, 1, 3, 4, 6, 7, 9, 10, 12]]
    t = fluid.LoDTensor()
    t.set(np.arange(24, dtype="float32").reshape(12, 2), fluid.CPUPlace())
    t.set_lod(lod)
    first, second = (f["x"] for f in split_feed({"x": t, "y": np.arange(5)}, 2))
    assert first.lod() == [[0, 2, 3, 5], [0, 1, 3, 4, 6, 7]]
    assert second.lod() == [[0, 1, 3], [0, 2, 3, 5]]
    np.testing.assert_array_equal(np.array(first), np.arange(14).reshape(7, 2))
    np.testing.assert_array_equal(np.array(second), np.arange(14, 24).reshape(5, 2))
    with pytest.raises(FeedError, match=r"number\(5\) of samples\[x\].*count\(6\)"):
        split_feed({"x": t}, 6)  # 5 sequences for 6 places, though 12 rows


def _train_sequences(n_places: int):
    """A sequence model (fc per row, sum-pooled per sequence, a mean loss over sequences)
    trained 3 steps on LoD batches of 4 sequences; its parameters and last pooled fetch."""
    main, startup = fluid.Program(), fluid.Program()
    main.random_seed = startup.random_seed = 3
    with fluid.program_guard(main, startup), fluid.unique_name.guard():
        x = fluid.layers.data("x", [4], dtype="float32", lod_level=1)
        y = fluid.layers.data("y", [1], dtype="float32")
        h = fluid.layers.fc(x, 8, act="tanh")
        pooled = fluid.layers.sequence_pool(h, "sum")
        loss = fluid.layers.mean(fluid.layers.square_error_cost(fluid.layers.fc(pooled, 1), y))
        fluid.optimizer.SGD(0.1).minimize(loss)
    scope, exe = fluid.Scope(), fluid.Executor(fluid.CPUPlace())
    with fluid.scope_guard(scope):
        exe.run(startup)
        program = main if n_places == 0 else fluid.CompiledProgram(main).with_data_parallel(
            loss_name=loss.name, places=fluid.cpu_places(n_places))
        for step in range(3):
            r = np.random.RandomState(step)
            lens = [int(k) for k in r.randint(1, 5, 4)]
            xs = fluid.create_lod_tensor(r.rand(sum(lens), 4).astype("float32"), [lens],
                                         fluid.CPUPlace())
            out, = exe.run(program, feed={"x": xs, "y": r.rand(4, 1).astype("float32")},
                           fetch_list=[h], return_numpy=False)  # h holds the LoD
        params = {p.name: np.array(scope.find_var(p.name).get_tensor())
                  for p in main.all_parameters()}
    return params, out, lens


def test_lod_feed_places_train_as_one_device_on_the_whole_batch():
    one, one_h, lens = _train_sequences(0)
    params, h, _ = _train_sequences(2)
    assert h.lod() == one_h.lod() == [[0, *np.cumsum(lens)]]  # the places' LoDs merged
    np.testing.assert_allclose(np.array(h), np.array(one_h), rtol=1e-5, atol=1e-6)
    for name in one:
        np.testing.assert_allclose(params[name], one[name], rtol=2e-5, atol=1e-6)


def test_gradient_scale_one_sums_the_places_gradients():
    strategy = fluid.BuildStrategy()
    strategy.gradient_scale_strategy = fluid.BuildStrategy.GradientScaleStrategy.One
    main, startup, loss = build(optimizer="sgd")
    scope = fluid.Scope()
    exe = fluid.Executor(fluid.CPUPlace())
    x, y = batch(0)
    with fluid.scope_guard(scope):
        exe.run(startup)
        before = {p.name: np.array(scope.find_var(p.name).get_tensor())
                  for p in main.all_parameters()}
        exe.run(fluid.CompiledProgram(main).with_data_parallel(
            loss_name=loss.name, build_strategy=strategy, places=fluid.cpu_places(2)),
            feed={"x": x, "y": y}, fetch_list=[loss])
        summed = {n: np.array(scope.find_var(n).get_tensor()) for n in before}
    main1, startup1, loss1 = build(optimizer="sgd")
    scope1 = fluid.Scope()
    with fluid.scope_guard(scope1):
        exe.run(startup1)
        exe.run(main1, feed={"x": x, "y": y}, fetch_list=[loss1])
        for n in before:  # sgd: the step on the sum of 2 half-batch means is twice the mean's
            one_step = np.array(scope1.find_var(n).get_tensor()) - before[n]
            np.testing.assert_allclose(summed[n] - before[n], 2 * one_step, rtol=1e-4,
                                       atol=1e-6)


def test_customized_scale_takes_the_fed_loss_gradient():
    strategy = fluid.BuildStrategy()
    strategy.gradient_scale_strategy = fluid.BuildStrategy.GradientScaleStrategy.Customized
    main, startup, loss = build(optimizer="sgd")
    exe = fluid.Executor(fluid.CPUPlace())
    x, y = batch(0)
    compiled = fluid.CompiledProgram(main).with_data_parallel(
        loss_name=loss.name, build_strategy=strategy, places=fluid.cpu_places(2))
    exe.run(startup)
    seed = np.array([0.5], "float32")  # 0.5 + 0.5: the mean over both places again
    feeds = [{"x": x[:4], "y": y[:4], loss.name + "@GRAD": seed},
             {"x": x[4:], "y": y[4:], loss.name + "@GRAD": seed}]
    exe.run(compiled, feed=feeds, fetch_list=[loss])
    got = {p.name: np.array(fluid.global_scope().find_var(p.name).get_tensor())
           for p in main.all_parameters()}
    main1, startup1, loss1 = build(optimizer="sgd")
    with fluid.scope_guard(fluid.Scope()):
        exe.run(startup1)
        exe.run(main1, feed={"x": x, "y": y}, fetch_list=[loss1])
        for name, value in got.items():
            np.testing.assert_allclose(value, np.array(fluid.global_scope().find_var(
                name).get_tensor()), rtol=2e-5, atol=1e-6)


def test_share_vars_from_sees_the_trained_parameters():
    main, startup, loss = build()
    test_program = main.clone(for_test=True)
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup)
    train = fluid.CompiledProgram(main).with_data_parallel(loss_name=loss.name,
                                                           places=fluid.cpu_places(2))
    test = fluid.CompiledProgram(test_program).with_data_parallel(
        share_vars_from=train, places=fluid.cpu_places(2))
    x, y = batch(0)
    with pytest.raises(ValueError, match="not compiled and executed"):
        exe.run(test, feed={"x": x, "y": y}, fetch_list=[loss.name])
    for _ in range(3):
        exe.run(train, feed={"x": x, "y": y}, fetch_list=[loss])
    tested, = exe.run(test, feed={"x": x, "y": y}, fetch_list=[loss.name])
    plain, = exe.run(test_program, feed={"x": x, "y": y}, fetch_list=[loss.name])
    np.testing.assert_allclose(tested.mean(), plain[0], rtol=1e-5)
    assert tested.mean() < exe.run(train, feed={"x": x, "y": y}, fetch_list=[loss])[0].mean() \
        + 1e-3


def test_batch_norm_statistics_are_per_place():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = fluid.layers.data("x", [3], dtype="float32")
        h = fluid.layers.batch_norm(fluid.layers.fc(x, 4), momentum=0.0,
                                    moving_mean_name="bn_mean")
        loss = fluid.layers.mean(h)
        fluid.optimizer.SGD(0.0).minimize(loss)
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup)
    compiled = fluid.CompiledProgram(main).with_data_parallel(loss_name=loss.name,
                                                              places=fluid.cpu_places(2))
    data = np.concatenate([np.zeros((4, 3)), np.ones((4, 3)) * 5]).astype("float32")
    exe.run(compiled, feed={"x": data}, fetch_list=[loss])
    w = np.array(fluid.global_scope().find_var(main.all_parameters()[0].name).get_tensor())
    b = np.array(fluid.global_scope().find_var(main.all_parameters()[1].name).get_tensor())
    # momentum 0: place 0's moving mean is its own half's batch mean, not the whole batch's
    np.testing.assert_allclose(np.array(fluid.global_scope().find_var("bn_mean").get_tensor()),
                               (data[:4] @ w + b).mean(0), rtol=1e-5, atol=1e-6)


def test_allreduce_ops_are_in_the_program_in_buckets(monkeypatch):
    main, startup, loss = build()
    monkeypatch.setenv("FLAGS_fuse_parameter_memory_size", str(300 / 2**20))  # 300 bytes
    transpile_nccl2(main, startup, 1, "127.0.0.1:6170,127.0.0.1:6171", "127.0.0.1:6171")
    types = [op.type for op in main.global_block().ops]
    buckets = plan_buckets(main, 300)
    assert types.count(ALLREDUCE) == len(buckets) > 1
    assert types.count(SYNC) == 1
    # each bucket starts before the backward ops after it (overlap), the sync before the
    # optimizer
    first_reduce = types.index(ALLREDUCE)
    assert any(t.endswith("_grad") for t in types[first_reduce:types.index(SYNC)])
    assert all(t not in ("adam",) for t in types[:types.index(SYNC)])
    assert "c_allreduce_sum" in str(main)


def test_bad_transpile_arguments_name_what_is_wrong():
    main, startup, loss = build()
    with pytest.raises(ValueError, match="not 'ip:port'"):
        transpile_nccl2(main, startup, 0, "127.0.0.1", "127.0.0.1")
    with pytest.raises(ValueError, match="trainer_id"):
        transpile_nccl2(main, startup, 2, "a:1,b:2", "a:1")
    with pytest.raises(ValueError, match="current_endpoint"):
        transpile_nccl2(main, startup, 0, "a:1,b:2", "b:2")
    forward = fluid.Program()
    with fluid.program_guard(forward, fluid.Program()):
        fluid.layers.fc(fluid.layers.data("x", [2], dtype="float32"), 2)
    with pytest.raises(ValueError, match="no parameter gradients"):
        insert_allreduce(forward)
    with pytest.raises(TypeError, match="exec_strategy"):
        fluid.CompiledProgram(main).with_data_parallel(loss.name, exec_strategy=object())
    with pytest.raises(ValueError, match="num_trainers=2"):
        strategy = fluid.BuildStrategy()
        strategy.num_trainers = 2
        fluid.CompiledProgram(main).with_data_parallel(loss.name, build_strategy=strategy)


def test_a_failing_place_stops_the_others():
    main, startup, loss = build()
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup)
    compiled = fluid.CompiledProgram(main).with_data_parallel(loss_name=loss.name,
                                                              places=fluid.cpu_places(2))
    x, y = batch(0)
    bad = [{"x": x[:4], "y": y[:4]}, {"x": x[4:, :5], "y": y[4:]}]  # place 1: a wrong shape
    with pytest.raises(ShapeError, match="do not multiply"):
        exe.run(compiled, feed=bad, fetch_list=[loss])
    # the next run works again
    out, = exe.run(compiled, feed={"x": x, "y": y}, fetch_list=[loss])
    assert out.shape == (2,)


def _random_mlp(r):
    """A random MLP program with a small random bucket size's all-reduce already inserted."""
    main, startup = fluid.Program(), fluid.Program()
    main.random_seed = startup.random_seed = int(r.integers(1, 1000))
    width = int(r.integers(2, 7))
    with fluid.program_guard(main, startup):
        x = fluid.layers.data("x", [width], dtype="float32")
        y = fluid.layers.data("y", [1], dtype="float32")
        h = x
        for _ in range(int(r.integers(1, 4))):
            h = fluid.layers.fc(h, int(r.integers(2, 9)), act=str(r.choice(["relu", "tanh"])))
        loss = fluid.layers.mean(fluid.layers.square_error_cost(fluid.layers.fc(h, 1), y))
        fluid.optimizer.Momentum(0.05, 0.9).minimize(loss)
    insert_allreduce(main, bucket_bytes=int(r.integers(4, 200)))
    return main, startup, loss, width


def _reference_on_places(program, loss, feeds, scopes):
    """The numpy reference executor running `program` on len(feeds) places (threads)."""
    import threading

    from fluidc.distributed import comm
    from fluidc.runtime.reference import ReferencePlan
    group = comm.Places(len(feeds), None)

    def place(rank):
        with comm.use(comm.Communicator(group, rank)):
            ReferencePlan(program, ["x", "y"], [loss.name]).run(feeds[rank], scopes[rank])

    threads = [threading.Thread(target=place, args=(r,)) for r in range(1, len(feeds))]
    for t in threads:
        t.start()
    place(0)
    for t in threads:
        t.join()


@pytest.mark.parametrize("seed", range(3))
def test_random_programs_fused_unfused_and_reference_agree(seed):
    from fluidc.distributed.collective import data_parallel_program
    from fluidc.passes.strategy import strategy_for
    from fluidc.runtime.data_parallel import _replica
    r = np.random.default_rng(seed)
    n = int(r.integers(2, 4))
    rows = n * int(r.integers(1, 4))
    results = []
    for how in ("fused", "unfused", "reference", "one device"):
        with fluid.unique_name.guard():
            main, startup, loss, width = _random_mlp(np.random.default_rng(seed))
        scope = fluid.Scope()
        exe = fluid.Executor(fluid.CPUPlace())
        data = np.random.default_rng(seed + 10)
        with fluid.scope_guard(scope):
            exe.run(startup)
            strategy = strategy_for([]) if how == "unfused" else fluid.BuildStrategy()
            copy = data_parallel_program(main, loss.name, strategy, n)
            scopes = [scope] + [_replica(main, scope) for _ in range(1, n)]
            compiled = fluid.CompiledProgram(main, strategy).with_data_parallel(
                loss.name, places=fluid.cpu_places(n))
            for _ in range(3):
                feed = {"x": data.random((rows, width), dtype=np.float32),
                        "y": data.random((rows, 1), dtype=np.float32)}
                if how == "reference":
                    _reference_on_places(copy, loss, split_feed(feed, n), scopes)
                elif how == "one device":  # the plain program: its all-reduce sums 1 replica
                    exe.run(main, feed=feed, fetch_list=[loss])
                else:
                    exe.run(compiled, feed=feed, fetch_list=[loss])
            results.append({p.name: np.array(scope.find_var(p.name).get_tensor())
                            for p in main.all_parameters()})
    for other in results[1:]:
        for name, value in results[0].items():
            np.testing.assert_allclose(other[name], value, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("use_calc_stream", [True, False])
def test_allreduce_op_sums_over_places_synchronously_or_at_the_sync(use_calc_stream):
    import threading

    from fluidc.distributed import comm
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        x = fluid.data("x", [2, 3], "float32")
        y = fluid.data("y", [4], "float32")
        block = main.global_block()
        reduced = [block.create_var(name=n, shape=v.shape, dtype=v.dtype)
                   for n, v in (("xs", x), ("ys", y))]
        block.append_op("c_allreduce_sum", {"X": [x, y]}, {"Out": reduced},
                        {"use_calc_stream": use_calc_stream})
        if not use_calc_stream:
            block.append_op("c_sync_comm_stream", {"X": reduced}, {"Out": reduced})
        doubled = fluid.layers.scale(reduced[0], 2.0)
    group = comm.Places(3, None)
    feeds = [{"x": np.full((2, 3), r + 1, "float32"),
              "y": np.arange(4, dtype="float32") * (r + 1)} for r in range(3)]
    got = [None] * 3
    exe = fluid.Executor(fluid.CPUPlace())

    def place(rank):
        with comm.use(comm.Communicator(group, rank)):
            got[rank] = exe.run(main, feed=feeds[rank], fetch_list=[doubled, reduced[1]])

    threads = [threading.Thread(target=place, args=(r,)) for r in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for out in got:
        np.testing.assert_array_equal(out[0], np.full((2, 3), 12, "float32"))  # 2 * (1+2+3)
        np.testing.assert_array_equal(out[1], np.arange(4, dtype="float32") * 6)


def test_a_bucket_of_mixed_dtypes_is_refused_when_appended():
    block = fluid.default_main_program().global_block()
    x = fluid.data("x", [2], "float32")
    y = fluid.data("y", [2], "float64")
    with pytest.raises(OpError, match="c_allreduce_sum.*one dtype.*float32.*float64"):
        block.append_op("c_allreduce_sum", {"X": [x, y]}, {"Out": [x, y]})


def test_launcher_options_and_worker_environments(tmp_path, capsys):
    from fluidc.distributed.launch import parse_args, worker_envs
    script = tmp_path / "train.py"
    script.write_text("")
    args = parse_args(["--gpus", "2,3", "--started_port", "6170", str(script), "--lr", "0.1"])
    envs = worker_envs(args)
    assert args.training_script_args == ["--lr", "0.1"]
    assert [e["FLAGS_selected_gpus"] for e in envs.values()] == ["2", "3"]
    assert envs[1] == dict(envs[1], PADDLE_TRAINER_ID="1", PADDLE_TRAINERS_NUM="2",
                           PADDLE_CURRENT_ENDPOINT="127.0.0.1:6171",
                           PADDLE_TRAINER_ENDPOINTS="127.0.0.1:6170,127.0.0.1:6171")
    cpu = worker_envs(parse_args(["--nproc_per_node", "3", str(script)]))
    assert len(cpu) == 3 and "FLAGS_selected_gpus" not in cpu[0]
    assert len(set(cpu[0]["PADDLE_TRAINER_ENDPOINTS"].split(","))) == 3  # free ports, distinct
    for bad, why in ((["--ips", "10.0.0.1,10.0.0.2", str(script)], "one machine"),
                     (["--gpus", "0,1", "--nproc_per_node", "3", str(script)], "does not match"),
                     ([str(tmp_path / "missing.py")], "does not exist")):
        with pytest.raises(SystemExit):
            parse_args(bad)
        assert why in capsys.readouterr().err
