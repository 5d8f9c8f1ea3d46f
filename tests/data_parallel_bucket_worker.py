"""One trainer of the bucketing check (tests/test_data_parallel_nccl2.py): random programs
trained in collective mode twice, with all-reduce buckets of a random small size (several
buckets, each started as soon as backward made its gradients, travelling while backward goes
on) and with one bucket (the whole all-reduce after backward: the synchronous schedule).

    python data_parallel_bucket_worker.py OUT CASES STEPS

PADDLE_TRAINER_ID / PADDLE_TRAINER_ENDPOINTS as the launcher sets them. Writes OUT<trainer
id>.npz: per case, each schedule's parameters after STEPS steps and its bucket count.
"""
import os
import sys

import numpy as np

import fluidc as fluid
from fluidc.distributed.collective import transpile_nccl2
from fluidc.frontend import unique_name

OPTIMIZERS = (lambda: fluid.optimizer.SGD(0.1), lambda: fluid.optimizer.Adam(0.01),
              lambda: fluid.optimizer.Momentum(0.05, 0.9))
ACTS = (None, "relu", "tanh", "sigmoid")


def _program(case: int):
    """A random MLP of case `case` (the same in every process): depth, widths, activations,
    loss and optimizer drawn from the case's seed."""
    r = np.random.RandomState(case)
    widths = [int(w) for w in r.randint(1, 24, r.randint(1, 5))]
    acts = [ACTS[i] for i in r.randint(0, len(ACTS), len(widths))]
    make_opt = OPTIMIZERS[r.randint(len(OPTIMIZERS))]
    classify = bool(r.randint(2))
    main, startup = fluid.Program(), fluid.Program()
    main.random_seed = startup.random_seed = 1 + case
    with fluid.program_guard(main, startup), unique_name.guard():
        x = fluid.layers.data("x", [5], dtype="float32")
        h = x
        for width, act in zip(widths, acts):
            h = fluid.layers.fc(h, width, act=act)
        if classify:
            y = fluid.layers.data("y", [1], dtype="int64")
            cost = fluid.layers.softmax_with_cross_entropy(fluid.layers.fc(h, 3), y)
        else:
            y = fluid.layers.data("y", [1], dtype="float32")
            cost = fluid.layers.square_error_cost(fluid.layers.fc(h, 1), y)
        loss = fluid.layers.mean(cost)
        make_opt().minimize(loss)
    return main, startup, loss, classify


def _feed(case: int, step: int, trainer_id: int, classify: bool) -> dict:
    r = np.random.RandomState(1000 * case + 10 * step + trainer_id)
    y = r.randint(0, 3, (6, 1)).astype("int64") if classify else r.rand(6, 1).astype("float32")
    return {"x": r.rand(6, 5).astype("float32"), "y": y}


def _train(case: int, steps: int, trainer_id: int, endpoints: list[str], bucket_bytes: int):
    main, startup, loss, classify = _program(case)
    transpile_nccl2(main, startup, trainer_id, endpoints, endpoints[trainer_id],
                    bucket_bytes=bucket_bytes)
    scope, exe = fluid.Scope(), fluid.Executor(fluid.CPUPlace())
    with fluid.scope_guard(scope):
        exe.run(startup)
    pe = fluid.ParallelExecutor(False, loss_name=loss.name, main_program=main,
                                num_trainers=len(endpoints), trainer_id=trainer_id, scope=scope)
    for step in range(steps):
        pe.run([loss.name], feed=_feed(case, step, trainer_id, classify))
    n_buckets = sum(op.type == "c_allreduce_sum" for op in main.global_block().ops)
    return n_buckets, {p.name: np.array(scope.find_var(p.name).get_tensor())
                       for p in main.all_parameters()}


def main() -> None:
    trainer_id = int(os.environ["PADDLE_TRAINER_ID"])
    endpoints = os.environ["PADDLE_TRAINER_ENDPOINTS"].split(",")
    out, cases, steps = f"{sys.argv[1]}{trainer_id}.npz", int(sys.argv[2]), int(sys.argv[3])
    saved = {}
    for case in range(cases):
        small = int(np.random.RandomState(case).randint(4, 64))  # bytes: several buckets
        for schedule, bucket_bytes in (("overlapped", small), ("synchronous", 1 << 30)):
            n, params = _train(case, steps, trainer_id, endpoints, bucket_bytes)
            saved[f"{case}/{schedule}/buckets"] = np.array(n)
            saved.update({f"{case}/{schedule}/{k}": v for k, v in params.items()})
    np.savez(out, **saved)


if __name__ == "__main__":
    main()
