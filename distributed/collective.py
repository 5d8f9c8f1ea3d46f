"""Gradient all-reduce in programs: the collective (nccl2) transpiler and the data-parallel
rewrite of a training program.

`insert_allreduce` puts the reduction in the program as ops (so programs print it and
`fluidc inspect` shows it): the parameters' gradients (backward's op_role_var pairs) are
grouped, in the order backward produces them, into buckets of at most `bucket_bytes` of one
dtype; each bucket's `c_allreduce_sum` goes right after the op producing its last gradient, so
it travels while the rest of backward runs, and one `c_sync_comm_stream` before the first op
reading a gradient (clipping, regularization, the optimizer) waits for them all.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from ..frontend.dtypes import to_numpy_dtype
from ..frontend.env import env_number
from ..frontend.framework import OpRole, Program
from ..frontend.ops import grad_name

ALLREDUCE, SYNC = "c_allreduce_sum", "c_sync_comm_stream"
BUCKET_MB = 32  # Paddle's DistributedStrategy.fuse_grad_size_in_MB default
_ENDPOINT = re.compile(r"^[^:\s,]+:\d{1,5}$")


@dataclass(frozen=True)
class Bucket:
    """Gradients reduced together: their names and bytes, and the op index after which the
    last of them is ready."""

    grads: tuple[str, ...]
    nbytes: int
    ready_at: int


def param_grads(program: Program) -> list[tuple[str, str, int]]:
    """(param, grad, index of the op producing grad) in production order (backward's
    op_role_var marks each grad's last writer, as in Paddle)."""
    out = []
    for i, op in enumerate(program.global_block().ops):
        role_var = op.desc.attrs.get("op_role_var") or []
        for param, grad in zip(role_var[0::2], role_var[1::2]):
            out.append((param, grad, i))
    return sorted(out, key=lambda t: t[2])


def plan_buckets(program: Program, bucket_bytes: int) -> list[Bucket]:
    """The buckets of the program's gradients: consecutive in production order, one dtype,
    at most bucket_bytes (a larger gradient is a bucket of its own)."""
    block = program.global_block()
    buckets, grads, nbytes, dtype, ready = [], [], 0, None, -1
    for _, grad, index in param_grads(program):
        var = block.var(grad)
        if any(d < 0 for d in var.shape):
            raise ValueError(f"gradient '{grad}' has an unknown dimension {list(var.shape)}: "
                             f"its all-reduce bucket needs its size")
        size = int(np.prod(var.shape, dtype=np.int64)) * to_numpy_dtype(var.dtype).itemsize
        if grads and (var.dtype != dtype or nbytes + size > bucket_bytes):
            buckets.append(Bucket(tuple(grads), nbytes, ready))
            grads, nbytes = [], 0
        grads.append(grad)
        nbytes += size
        dtype, ready = var.dtype, index
    if grads:
        buckets.append(Bucket(tuple(grads), nbytes, ready))
    return buckets


def default_bucket_bytes() -> int:
    """Paddle's FLAGS_fuse_parameter_memory_size (MB) when set positive, else BUCKET_MB."""
    mb = env_number("FLAGS_fuse_parameter_memory_size", -1, "MB")
    return max(1, int(mb * (1 << 20))) if mb > 0 else BUCKET_MB << 20


def has_allreduce(program: Program) -> bool:
    return any(op.type == ALLREDUCE for op in program.global_block().ops)


def insert_allreduce(program: Program, bucket_bytes: int | None = None) -> list[Bucket]:
    """Add the bucketed all-reduce of every parameter gradient to `program` (in place);
    buckets of default_bucket_bytes() unless given."""
    bucket_bytes = default_bucket_bytes() if bucket_bytes is None else bucket_bytes
    if bucket_bytes <= 0:
        raise ValueError(f"the all-reduce bucket size must be positive, got {bucket_bytes}")
    block = program.global_block()
    buckets = plan_buckets(program, bucket_bytes)
    if not buckets:
        raise ValueError("the program has no parameter gradients to all-reduce: append the "
                         "backward pass (optimizer.minimize) before making it data-parallel")
    made_at = {grad: i for _, grad, i in param_grads(program)}
    last_ready = buckets[-1].ready_at
    sync_at = len(block.ops)
    for i, op in enumerate(block.ops):
        reads = made_at.keys() & set(op.input_arg_names)
        if i > last_ready and (reads or int(op.desc.attrs.get("op_role", 0)) & OpRole.Optimize):
            sync_at = i
            break
        early = sorted(g for g in reads if i > made_at[g])
        if early:
            raise ValueError(f"op '{op.type}' (#{i}) reads gradient '{early[0]}' before every "
                             f"gradient is ready, so their all-reduce cannot be placed")
    ordered = [g for b in buckets for g in b.grads]
    attrs = {"ring_id": 0, "op_role": OpRole.Backward}
    block._insert_op(sync_at, SYNC, {"X": ordered}, {"Out": ordered}, dict(attrs))
    for b in reversed(buckets):
        block._insert_op(b.ready_at + 1, ALLREDUCE, {"X": list(b.grads)},
                         {"Out": list(b.grads)}, dict(attrs))
    return buckets


def scale_loss_grad(program: Program, loss_name: str, strategy, replicas: int) -> None:
    """Seed the loss gradient as BuildStrategy.gradient_scale_strategy says: 1/replicas
    (CoeffNumDevice: the sum of the replicas' gradients is their mean), 1 (One: their sum), or
    not at all (Customized: the loss gradient is fed, per place)."""
    from ..passes.strategy import GradientScaleStrategy
    block = program.global_block()
    target = grad_name(loss_name)
    for i, op in enumerate(block.ops):
        if target in op.output_arg_names and op.type == "fill_constant" and \
                int(op.desc.attrs.get("op_role", 0)) & OpRole.Loss:
            how = GradientScaleStrategy(strategy.gradient_scale_strategy)
            if how == GradientScaleStrategy.Customized:
                block._remove_op(i)
            else:
                scale = 1.0 / replicas if how == GradientScaleStrategy.CoeffNumDevice else 1.0
                op.desc.attrs["value"] = scale
                program._bump()
            return
    if not block.has_var(loss_name):
        raise ValueError(f"loss_name {loss_name!r} is not a var of the program")
    raise ValueError(f"loss_name {loss_name!r}: the program has no gradient of it (append "
                     f"the backward pass of this loss first)")


def data_parallel_program(program: Program, loss_name, strategy, replicas: int) -> Program:
    """The copy of `program` each replica runs: gradients all-reduced (unless the program was
    transpiled and has them already), the loss gradient scaled."""
    copy = program.clone()
    # one replica, or an inference program: nothing to sum
    if replicas > 1 and not has_allreduce(copy) and param_grads(copy):
        insert_allreduce(copy)
    if loss_name:
        scale_loss_grad(copy, loss_name, strategy, replicas)
    return copy


# -- the collective (nccl2) transpiler ---------------------------------------------------------

@dataclass(frozen=True)
class CollectiveConfig:
    """What transpile_nccl2 recorded on a program: this trainer and every trainer's endpoint."""

    trainer_id: int
    endpoints: tuple[str, ...]


def parse_endpoints(endpoints) -> list[str]:
    """A list of 'ip:port' strings from a list or a comma-separated string."""
    if isinstance(endpoints, str):
        endpoints = [e.strip() for e in endpoints.split(",") if e.strip()]
    if not isinstance(endpoints, (list, tuple)) or not endpoints:
        raise ValueError(f"trainers must be 'ip:port,ip:port,...' endpoints, got {endpoints!r}")
    for e in endpoints:
        if not isinstance(e, str) or not _ENDPOINT.match(e):
            raise ValueError(f"trainer endpoint {e!r} is not 'ip:port'")
    if len(set(endpoints)) != len(endpoints):
        raise ValueError(f"trainer endpoints repeat: {list(endpoints)}")
    return list(endpoints)


def transpile_nccl2(program: Program, startup_program: Program | None, trainer_id: int,
                    endpoints: list[str], current_endpoint: str,
                    bucket_bytes: int | None = None) -> CollectiveConfig:
    """Collective mode: `program` gets its gradients' all-reduce ops and remembers the
    trainers, which ParallelExecutor / with_data_parallel join (torch.distributed, rendezvous
    at the first endpoint) and which start from trainer 0's parameters."""
    endpoints = parse_endpoints(endpoints)
    if isinstance(trainer_id, bool) or not isinstance(trainer_id, (int, np.integer)) or \
            not 0 <= trainer_id < len(endpoints):
        raise ValueError(f"trainer_id must be an int in [0, {len(endpoints)}), got "
                         f"{trainer_id!r}")
    if current_endpoint != endpoints[int(trainer_id)]:
        raise ValueError(f"current_endpoint {current_endpoint!r} is not trainer {trainer_id}'s "
                         f"endpoint in trainers {endpoints}")
    if not isinstance(program, Program):
        raise TypeError(f"transpile: program must be a Program, got {type(program).__name__}")
    if has_allreduce(program):
        raise ValueError("the program is transpiled already (it has c_allreduce_sum ops)")
    insert_allreduce(program, bucket_bytes)
    config = CollectiveConfig(int(trainer_id), tuple(endpoints))
    program._collective = config
    if startup_program is not None:
        startup_program._collective = config
    return config


def collective_config(program: Program) -> CollectiveConfig | None:
    """The trainers `program` was transpiled for, if any."""
    return getattr(program, "_collective", None)
