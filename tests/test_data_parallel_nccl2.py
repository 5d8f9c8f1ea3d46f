"""Collective (nccl2) mode across processes, started by python -m fluidc.distributed.launch:
2 trainers on gloo, each on half of every batch, end with the parameters of one process
training on the whole batch; a lost trainer makes the other exit with an error naming it,
within a bounded time, and a relaunch from the last checkpoint resumes the training; the
launcher stops every worker when one fails."""
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

import fluidc as fluid
from fluidc.distributed.launch import free_ports
from data_parallel_model import batch, build

WORKER = Path(__file__).with_name("data_parallel_worker.py")
BUCKET_WORKER = Path(__file__).with_name("data_parallel_bucket_worker.py")
STEPS = 3


def _reaped(procs, timeout: float) -> list[str]:
    """Each process's stderr once it ended (bounded); every process reaped whatever happens."""
    errs = []
    try:
        for p in procs:
            errs.append(p.communicate(timeout=timeout)[1])
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
            p.wait()
    return errs


def launch(tmp_path, script, *args, timeout: float = 120):
    """(returncode, stderr) of the launcher starting 2 CPU workers of script, logs in tmp_path;
    each worker has 2 places (CPU_NUM): their sum, then the trainers'."""
    p = subprocess.Popen([sys.executable, "-m", "fluidc.distributed.launch", "--nproc_per_node",
                          "2", "--log_dir", str(tmp_path / "logs"), str(script), *map(str, args)],
                         cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         env=dict(os.environ, FLUIDC_COLLECTIVE_TIMEOUT="60", CPU_NUM="2"))
    err, = _reaped([p], timeout)
    return p.returncode, err


def _single_process(steps: int = STEPS):
    main, startup, loss = build(seed=7)
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup)
    losses = []
    for i in range(steps):
        x, y = batch(i)
        losses.append(exe.run(main, feed={"x": x, "y": y}, fetch_list=[loss])[0][0])
    scope = fluid.global_scope()
    return losses, {p.name: np.array(scope.find_var(p.name).get_tensor())
                    for p in main.all_parameters()}


def test_two_launched_trainers_of_two_places_equal_one_process_on_the_whole_batch(tmp_path):
    code, err = launch(tmp_path, WORKER, tmp_path / "trainer", STEPS)
    logs = {p.name: p.read_text() for p in (tmp_path / "logs").iterdir()}
    assert code == 0, (err[-2000:], logs)
    assert sorted(logs) == ["workerlog.0", "workerlog.1"]
    losses, params = _single_process()
    got = [np.load(tmp_path / f"trainer{r}.npz") for r in range(2)]
    for name, value in params.items():
        for g in got:  # both trainers hold the same parameters: one process's
            np.testing.assert_allclose(g[name], value, rtol=2e-5, atol=1e-6)
    np.testing.assert_allclose((got[0]["losses"] + got[1]["losses"]) / 2, losses, rtol=1e-5)


def test_the_launcher_stops_every_worker_when_one_fails(tmp_path):
    script = tmp_path / "work.py"
    script.write_text("import os, sys, time\n"
                      "print('env', os.environ['PADDLE_TRAINER_ID'], "
                      "os.environ['PADDLE_TRAINERS_NUM'], os.environ['PADDLE_CURRENT_ENDPOINT'] in "
                      "os.environ['PADDLE_TRAINER_ENDPOINTS'].split(','), sys.argv[1:])\n"
                      "print('to stderr', file=sys.stderr)\n"
                      "if os.environ['PADDLE_TRAINER_ID'] == '1':\n    sys.exit(5)\n"
                      "time.sleep(120)\n")
    start = time.monotonic()
    code, err = launch(tmp_path, script, "--flag", "x")
    assert time.monotonic() - start < 100  # worker 0 did not sleep its 120 s out
    assert code == 1
    assert "worker 1 (PADDLE_TRAINER_ID=1" in err and "exit code 5" in err, err[-2000:]
    log1 = (tmp_path / "logs" / "workerlog.1").read_text()
    assert "env 1 2 True ['--flag', 'x']" in log1 and "to stderr" in log1


def _trainers(tmp_path, *args, worker=WORKER) -> list[subprocess.Popen]:
    """2 worker processes (one place each) started as the launcher starts them."""
    endpoints = [f"127.0.0.1:{port}" for port in free_ports(2)]
    procs = []
    for rank in range(2):
        env = dict(os.environ, PADDLE_TRAINER_ID=str(rank), PADDLE_TRAINERS_NUM="2",
                   PADDLE_TRAINER_ENDPOINTS=",".join(endpoints),
                   PADDLE_CURRENT_ENDPOINT=endpoints[rank], CPU_NUM="1",
                   FLUIDC_COLLECTIVE_TIMEOUT="60")
        procs.append(subprocess.Popen(
            [sys.executable, str(worker), str(tmp_path / "trainer"), *map(str, args)],
            env=env, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
    return procs


def _lost_trainer_1(tmp_path, *args) -> None:
    """Run 2 trainers of which trainer 1 dies (args: the worker's); trainer 0 must fail
    naming it, within a bounded time."""
    start = time.monotonic()
    procs = _trainers(tmp_path, *args)
    errs = _reaped(procs, 90)
    assert procs[1].returncode == 3, errs[1][-2000:]
    assert procs[0].returncode != 0
    assert "CollectiveError" in errs[0] and "lost trainer 1" in errs[0], errs[0][-2000:]
    assert time.monotonic() - start < 90


def test_a_lost_trainer_stops_the_other_naming_it(tmp_path):
    _lost_trainer_1(tmp_path, STEPS, 0)


def test_a_restart_from_the_last_checkpoint_resumes_the_uninterrupted_training(tmp_path):
    """Trainer 0 checkpoints (save_persistables) every 2 steps; trainer 1 dies after step 4
    (steps 0 to 5), the job fails; relaunched from the last checkpoint (after step 3), the
    trainers end with the numbers of training without the interruption (Adam's moments are in
    the checkpoint)."""
    steps, ckpt = STEPS + 3, tmp_path / "ckpt"
    _lost_trainer_1(tmp_path, steps, 4, 2, ckpt)
    assert sorted(os.listdir(ckpt)) == ["1", "3"]
    procs = _trainers(tmp_path, steps, -1, "resume", ckpt)
    errs = _reaped(procs, 90)
    assert [p.returncode for p in procs] == [0, 0], errs[0][-2000:] + errs[1][-2000:]
    losses, params = _single_process(steps)
    got = [np.load(tmp_path / f"trainer{r}.npz") for r in range(2)]
    for name, value in params.items():
        for g in got:
            np.testing.assert_allclose(g[name], value, rtol=2e-5, atol=1e-6)
    np.testing.assert_allclose((got[0]["losses"] + got[1]["losses"]) / 2, losses[4:], rtol=1e-5)


def test_overlapped_bucket_all_reduce_equals_the_synchronous_one_on_random_programs(tmp_path):
    """Random MLPs (depth, widths, activations, loss, optimizer) trained by 2 trainers with
    small buckets (each all-reduce started while backward goes on) end with exactly the
    parameters of one bucket reduced after backward: the overlap changes no number."""
    cases = 6
    procs = _trainers(tmp_path, cases, 3, worker=BUCKET_WORKER)
    errs = _reaped(procs, 120)
    assert [p.returncode for p in procs] == [0, 0], errs[0][-2000:] + errs[1][-2000:]
    got = [dict(np.load(tmp_path / f"trainer{r}.npz")) for r in range(2)]
    for case in range(cases):
        assert got[0][f"{case}/synchronous/buckets"] == 1
        assert got[0][f"{case}/overlapped/buckets"] > 1
        names = [k.split("/", 2)[2] for k in got[0] if k.startswith(f"{case}/synchronous/")
                 and not k.endswith("/buckets")]
        assert names
        for name in names:
            sync = got[0][f"{case}/synchronous/{name}"]
            for g in got:
                np.testing.assert_array_equal(g[f"{case}/overlapped/{name}"], sync,
                                              err_msg=f"case {case}: {name}")
