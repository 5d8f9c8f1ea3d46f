"""One C translation unit per compiled plan: a function per kernel, a segment per run of kernels."""
from __future__ import annotations

from dataclasses import dataclass

from ..frontend.ops import VarInfo
from ..passes.fuse import Extern, Kernel, Step
from .c import c_type, render_kernel, render_module
from .kernel import build_spec


@dataclass
class CModule:
    """Generated source; `schedule` is the plan's step order: a segment name or an Extern step."""

    source: str
    schedule: list[str | Extern]
    slots: dict[str, int]  # buffer name -> index in the segments' pointer table


def generate_c(steps: list[Step], infos: dict[str, VarInfo]) -> CModule:
    """Render every kernel; consecutive kernels share one segment (one call from Python)."""
    slots: dict[str, int] = {}
    kernels: list[str] = []
    segments: list[dict] = []
    schedule: list[str | Extern] = []
    calls: list[str] = []

    def close() -> None:
        if calls:
            name = f"segment_{len(segments)}"
            segments.append({"name": name, "calls": list(calls)})
            schedule.append(name)
            calls.clear()

    for step in steps:
        if isinstance(step, Extern):
            close()
            schedule.append(step)
            continue
        assert isinstance(step, Kernel)
        spec = build_spec(step, infos)
        name = f"kernel_{len(kernels)}"
        kernels.append(render_kernel(spec, name))
        args = []
        for buf, dtype, written in zip(spec.buffers, spec.dtypes, spec.written):
            slot = slots.setdefault(buf, len(slots))
            args.append(f"({'' if written else 'const '}{c_type(dtype)} *)s[{slot}]")
        calls.append(f"{name}({', '.join(args)})")
    close()
    return CModule(render_module(kernels, segments), schedule, slots)
