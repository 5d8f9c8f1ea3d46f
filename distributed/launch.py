"""python -m fluidc.distributed.launch: paddle.distributed.launch on one machine, on torch
elastic's process launching (torch.distributed.elastic.multiprocessing).

    python -m fluidc.distributed.launch [--gpus 0,1 | --nproc_per_node N] [--log_dir DIR]
        [--started_port PORT] train.py [train.py's args]

Starts one worker per GPU (--gpus / --selected_gpus, FLAGS_selected_gpus set to its GPU) or
--nproc_per_node CPU workers, each with Paddle's PADDLE_TRAINER_ID, PADDLE_TRAINERS_NUM,
PADDLE_TRAINER_ENDPOINTS, PADDLE_CURRENT_ENDPOINT (and PADDLE_RANK_IN_NODE); with --log_dir each
worker's stdout and stderr go to DIR/workerlog.N. When a worker fails the others are stopped
and the launcher exits 1 naming it; it exits 0 when all succeed.
"""
from __future__ import annotations

import argparse
import os
import socket
import sys
import time

# Run in the worker before its script: stderr joins stdout (one log a worker, as Paddle's),
# and the script runs as `python script args` would (its directory first on sys.path).
_BOOT = ("import os, runpy, sys; os.dup2(1, 2); sys.argv = sys.argv[1:]; "
         "sys.path[0] = os.path.dirname(os.path.abspath(sys.argv[0])); "
         "runpy.run_path(sys.argv[0], run_name='__main__')")


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="python -m fluidc.distributed.launch",
        description="Start one training process per device, as paddle.distributed.launch.")
    p.add_argument("--gpus", "--selected_gpus", dest="gpus", default=None,
                   help="comma-separated GPU ids: one worker each")
    p.add_argument("--nproc_per_node", type=int, default=None,
                   help="number of CPU workers (without --gpus; default 1)")
    p.add_argument("--log_dir", default=None, help="write worker N's output to LOG_DIR/workerlog.N")
    p.add_argument("--started_port", type=int, default=None,
                   help="worker N's endpoint port is STARTED_PORT + N (default: free ports)")
    p.add_argument("--ips", "--cluster_node_ips", dest="ips", default="127.0.0.1",
                   help="this machine's IP (one node: multi-node launches are not supported)")
    p.add_argument("training_script")
    p.add_argument("training_script_args", nargs=argparse.REMAINDER)
    args = p.parse_args(argv)
    if "," in args.ips:
        p.error(f"--ips {args.ips}: fluidc's launcher starts the workers of one machine; run "
                f"it on each node with that node's IP")
    if args.gpus is not None and args.nproc_per_node is not None and \
            args.nproc_per_node != len(args.gpus.split(",")):
        p.error(f"--nproc_per_node {args.nproc_per_node} does not match --gpus {args.gpus}")
    if args.nproc_per_node is not None and args.nproc_per_node < 1:
        p.error(f"--nproc_per_node must be at least 1, got {args.nproc_per_node}")
    if not os.path.isfile(args.training_script):
        p.error(f"training script {args.training_script!r} does not exist")
    return args


def free_ports(n: int) -> list[int]:
    """n ports free now (held together so they differ)."""
    socks = [socket.socket() for _ in range(n)]
    try:
        for s in socks:
            s.bind(("", 0))
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


def worker_envs(args: argparse.Namespace) -> dict[int, dict[str, str]]:
    """Each worker's Paddle environment."""
    gpus = [g.strip() for g in args.gpus.split(",")] if args.gpus is not None else None
    n = len(gpus) if gpus is not None else (args.nproc_per_node or 1)
    ports = [args.started_port + i for i in range(n)] if args.started_port else free_ports(n)
    endpoints = [f"{args.ips}:{p}" for p in ports]
    envs = {}
    for rank in range(n):
        env = {"PADDLE_TRAINER_ID": str(rank), "PADDLE_RANK_IN_NODE": str(rank),
               "PADDLE_TRAINERS_NUM": str(n), "PADDLE_TRAINER_ENDPOINTS": ",".join(endpoints),
               "PADDLE_CURRENT_ENDPOINT": endpoints[rank], "PADDLE_TRAINERS": args.ips,
               "PYTHONUNBUFFERED": "1"}
        if gpus is not None:
            env["FLAGS_selected_gpus"] = gpus[rank]
        else:
            env["CPU_NUM"] = os.environ.get("CPU_NUM", "1")
        envs[rank] = env
    return envs


def _logs_specs(log_dir: str | None):
    from torch.distributed.elastic.multiprocessing.api import LogsDest, LogsSpecs

    class WorkerLogs(LogsSpecs):
        """Worker N's stdout (stderr joins it) to LOG_DIR/workerlog.N, as Paddle names it."""

        def reify(self, envs):
            none = {r: "" for r in envs}  # "": not redirected
            stdouts = none if log_dir is None else {
                r: os.path.join(log_dir, f"workerlog.{r}") for r in envs}
            return LogsDest(stdouts, dict(none), dict(none), dict(none), dict(none))

        @property
        def root_log_dir(self) -> str:
            return log_dir or ""

    return WorkerLogs(log_dir)


def launch(args: argparse.Namespace) -> int:
    """Run the workers to the end; 0 when all succeed, else 1 after stopping the others."""
    from torch.distributed.elastic.multiprocessing import start_processes
    if args.log_dir:
        os.makedirs(args.log_dir, exist_ok=True)
    envs = worker_envs(args)
    script = os.path.abspath(args.training_script)
    argv = ("-u", "-c", _BOOT, script, *args.training_script_args)
    context = start_processes("fluidc-launch", sys.executable, {r: argv for r in envs}, envs,
                              _logs_specs(args.log_dir))
    try:
        while True:
            result = context.wait(timeout=0, period=0)
            if result is not None:
                break
            time.sleep(0.1)
    finally:
        context.close()  # stops any worker still running
    if not result.is_failed():
        return 0
    first = min(result.failures.values(), key=lambda f: f.timestamp)
    rank = first.local_rank
    log = f"; its log: {os.path.join(args.log_dir, f'workerlog.{rank}')}" if args.log_dir else ""
    sys.stderr.write(f"fluidc.distributed.launch: worker {rank} (PADDLE_TRAINER_ID={rank}, "
                     f"{envs[rank]['PADDLE_CURRENT_ENDPOINT']}) failed with exit code "
                     f"{first.exitcode}{log}; stopped the other workers\n")
    return 1


def main(argv=None) -> None:
    sys.exit(launch(parse_args(argv)))


if __name__ == "__main__":
    main()
