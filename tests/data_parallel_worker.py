"""One trainer of the collective-mode tests (tests/test_data_parallel_nccl2.py), configured as
paddle.distributed.launch configures a worker: PADDLE_TRAINER_ID, PADDLE_TRAINER_ENDPOINTS,
PADDLE_CURRENT_ENDPOINT.

    python data_parallel_worker.py OUT STEPS [die-after-step [save-every DIR | resume DIR]]

Trains the tests' MLP (data_parallel_model) on its rows of each batch for STEPS steps, trainer
0 through a ParallelExecutor, the others through CompiledProgram.with_data_parallel, and saves
the parameters (and the losses) to OUT<trainer id>.npz; with die-after-step (>= 0) trainer 1
exits abruptly after that step (a lost peer). `save-every DIR`: trainer 0 writes a
save_persistables checkpoint to DIR/<step> after every save-every steps; `resume DIR`: every
trainer loads the last checkpoint under DIR and goes on with the step after it.
"""
import os
import sys

import numpy as np

import fluidc as fluid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from data_parallel_model import batch, build  # noqa: E402


def main() -> None:
    trainer_id = int(os.environ["PADDLE_TRAINER_ID"])
    out, steps = f"{sys.argv[1]}{trainer_id}.npz", int(sys.argv[2])
    die_after = int(sys.argv[3]) if len(sys.argv) > 3 else -1
    resume = len(sys.argv) > 5 and sys.argv[4] == "resume"
    save_every = int(sys.argv[4]) if len(sys.argv) > 5 and not resume else 0
    ckpt = sys.argv[5] if len(sys.argv) > 5 else None
    endpoints = os.environ["PADDLE_TRAINER_ENDPOINTS"].split(",")
    main_prog, startup, loss = build(seed=trainer_id + 7)  # trainer 0's parameters win
    os.environ["FLAGS_fuse_parameter_memory_size"] = str(256 / 2**20)  # several buckets
    config = fluid.DistributeTranspilerConfig()
    config.mode = "nccl2"
    fluid.DistributeTranspiler(config=config).transpile(
        trainer_id, trainers=os.environ["PADDLE_TRAINER_ENDPOINTS"],
        current_endpoint=os.environ["PADDLE_CURRENT_ENDPOINT"], program=main_prog,
        startup_program=startup)
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup)
    first = 0
    if resume:  # the last checkpoint: its step's directory name
        last = max(int(d) for d in os.listdir(ckpt))
        fluid.io.load_persistables(exe, os.path.join(ckpt, str(last)), main_prog)
        first = last + 1
    if trainer_id == 0:
        runner = fluid.ParallelExecutor(False, loss_name=loss.name, main_program=main_prog,
                                        num_trainers=len(endpoints), trainer_id=trainer_id)
        step = lambda feed: runner.run([loss.name], feed=feed)  # noqa: E731
    else:
        compiled = fluid.CompiledProgram(main_prog).with_data_parallel(loss_name=loss.name)
        step = lambda feed: exe.run(compiled, feed=feed, fetch_list=[loss])  # noqa: E731
    losses = []
    for i in range(first, steps):
        x, y = batch(i)
        rows = slice(trainer_id * len(x) // len(endpoints),
                     (trainer_id + 1) * len(x) // len(endpoints))
        losses.append(float(np.mean(step({"x": x[rows], "y": y[rows]})[0])))  # over places
        if save_every and (i + 1) % save_every == 0 and trainer_id == 0:
            fluid.io.save_persistables(exe, os.path.join(ckpt, str(i)), main_prog)
        if i == die_after and trainer_id == 1:
            os._exit(3)
    scope = fluid.global_scope()
    np.savez(out, losses=np.array(losses), **{
        p.name: np.array(scope.find_var(p.name).get_tensor()) for p in main_prog.all_parameters()})


if __name__ == "__main__":
    main()
