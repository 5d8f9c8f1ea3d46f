"""One Python module per compiled plan for the GPU: a Triton kernel per fused group, a segment
function per run of kernels, driven by the runtime exactly as the C module is."""
from __future__ import annotations

import functools
import importlib.util
import os
from dataclasses import dataclass, field
from types import ModuleType

from fluidc.frontend.lazy_import import torch

from ..frontend.errors import PlaceError
from ..frontend.ops import VarInfo
from ..passes.fuse import Concurrent, Extern, Step
from .compiler import load_py
from .kernel import Storage, build_spec, kernel_header, kernel_names, segments
from .triton import Launch, render_kernel, render_module, render_multi_tensor


def interpreting() -> bool:
    """Whether Triton runs kernels in its CPU interpreter (TRITON_INTERPRET=1)."""
    return os.environ.get("TRITON_INTERPRET", "").strip().lower() in ("1", "true", "yes", "on")


def triton_device(device_id: int = 0) -> str:
    """The torch device Triton kernels run on for CUDAPlace(device_id): the GPU, or the CPU
    under TRITON_INTERPRET=1 when there is none; an error naming the place otherwise."""
    if importlib.util.find_spec("triton") is None:
        raise PlaceError(f"CUDAPlace({device_id}) compiles kernels with Triton, which is not "
                          f"installed (pip install triton)")
    if torch.cuda.is_available():
        if device_id >= torch.cuda.device_count():
            raise PlaceError(f"CUDAPlace({device_id}): this machine has "
                              f"{torch.cuda.device_count()} CUDA device(s)")
        return f"cuda:{device_id}"
    if interpreting():
        return "cpu"
    raise PlaceError(f"CUDAPlace({device_id}) needs a CUDA GPU, and torch sees none; use "
                      f"fluid.CPUPlace(), or set TRITON_INTERPRET=1 to run the Triton kernels "
                      f"on the CPU (slow, for testing)")


@dataclass
class TritonModule:
    """Generated source; `schedule` is the plan's step order: a segment name or an Extern step.

    The table is a Python list of tensors; a segment launches its kernels on the tensors the
    table holds when it is called, so re-bound slots need no new callables.
    """

    source: str
    schedule: list[str | Extern]
    slots: dict[str, int]  # storage -> index in the segments' tensor table
    launches: list[Launch] = field(default_factory=list)
    module: ModuleType | None = field(default=None, repr=False)

    def load(self) -> TritonModule:
        """Import the module (written once to the cache dir), if there is any segment."""
        if any(isinstance(s, str) for s in self.schedule):
            self.module = load_py(self.source)
        return self

    def new_table(self) -> list:
        """The tensor table the segments read their buffers from."""
        return [None] * max(1, len(self.slots))

    @staticmethod
    def set_slot(table: list, slot: int, tensor) -> None:
        """Put a (contiguous) tensor in a slot."""
        table[slot] = tensor

    def segment(self, name: str, table: list):
        """A no-argument callable launching segment `name`'s kernels over `table`."""
        fn = functools.partial(getattr(self.module, name), table)
        device = next((t.device for t in table if hasattr(t, "device")), None)
        if device is None or device.type != "cuda" or not device.index:
            return fn

        def on_device():  # Triton launches on the current device, not on the tensors'
            with torch.cuda.device(device):
                fn()
        return on_device


def generate_triton(steps: list[Step], infos: dict[str, VarInfo],
                    storage: Storage = str, load: bool = True) -> TritonModule:
    """Render every kernel; consecutive kernels share one segment (one call from the runtime).
    Slots are storages: `storage` maps each var to the one it lives in. load=False: the
    source only, nothing imported (inspection)."""
    slots: dict[str, int] = {}
    kernels: list[str] = []
    launches: list[Launch] = []
    rendered: list[dict] = []
    schedule: list[str | Extern] = []
    names = kernel_names(steps)
    for part in segments(steps):
        if isinstance(part, Extern):
            schedule.append(part)
            continue
        calls = []
        for step in part:
            if isinstance(step, Concurrent):  # one launch for all: a multi-tensor kernel
                specs = [build_spec(k, infos, storage) for k in step.parts]
                # named after its first part's step; the comment lists every part
                name = names[id(step.parts[0])] + f"_and_{len(step.parts) - 1}"
                header = "; ".join(kernel_header(k) for k in step.parts)
                src, launch = render_multi_tensor(specs, name)
                specs = [sp for sp in specs if sp.numel]
            else:
                specs = [build_spec(step, infos, storage)]
                name, header = names[id(step)], kernel_header(step)
                src, launch = render_kernel(specs[0], name)
            kernels.append(f"# {name}: {header}\n{src}")
            args = [f"s[{slots.setdefault(buf, len(slots))}]" for sp in specs for buf in sp.buffers]
            if launch is not None:  # zero-size shapes launch nothing
                launches.append(launch)
                calls.append(launch.call(args))
        rendered.append({"name": f"segment_{len(rendered)}", "calls": calls})
        schedule.append(rendered[-1]["name"])
    module = TritonModule(render_module(kernels, rendered), schedule, slots, launches)
    return module.load() if load else module
