"""Places: where tensors live and which backend compiles kernels for them."""
from __future__ import annotations

import os
import re
import sys

from ..frontend.errors import PlaceError


class CPUPlace:
    """The host: kernels are generated C."""

    def __eq__(self, other) -> bool:
        return isinstance(other, CPUPlace)

    def __hash__(self) -> int:
        return hash("cpu")

    def _equals(self, other) -> bool:
        """Paddle's Place._equals: the same place."""
        return self == other

    def _type(self) -> int:
        """Paddle's Place._type: the kind of place, numbered as phi's AllocationType."""
        return 1

    def __repr__(self) -> str:
        return "Place(cpu)"


class CUDAPlace:
    """GPU `device_id`: kernels are generated Triton."""

    def __init__(self, device_id: int = 0) -> None:
        self.device_id = device_id

    def __eq__(self, other) -> bool:
        return isinstance(other, CUDAPlace) and other.device_id == self.device_id

    def __hash__(self) -> int:
        return hash(("cuda", self.device_id))

    _equals = CPUPlace._equals

    def _type(self) -> int:
        return 2  # phi's AllocationType::GPU

    def __repr__(self) -> str:
        return f"Place(gpu:{self.device_id})"


class CUDAPinnedPlace(CPUPlace):
    """Page-locked host memory; computes like CPUPlace."""

    def _type(self) -> int:
        return 3  # phi's AllocationType::GPUPINNED

    def __repr__(self) -> str:
        return "Place(gpu_pinned)"


# -- place lists and the expected device (fluid.cpu_places, paddle.set_device) ----------------

def _cpu_num() -> int:
    """CPU_NUM, or 1 when unset (Paddle then says so on stderr and sets it)."""
    if "CPU_NUM" not in os.environ:
        if (os.cpu_count() or 1) > 1:
            sys.stderr.write(f"!!! The CPU_NUM is not specified, you should set CPU_NUM in the "
                             f"environment variable list.\nCPU_NUM indicates that how many "
                             f"CPUPlace are used in the current task.\n\n"
                             f"export CPU_NUM={os.cpu_count()} # for example\n\n"
                             f"!!! The default number of CPU_NUM=1.\n")
        os.environ["CPU_NUM"] = "1"
    value = os.environ["CPU_NUM"]
    try:
        return int(value)
    except ValueError:
        raise ValueError(f"CPU_NUM must be an integer, got {value!r}") from None


def is_compiled_with_cuda() -> bool:
    """Whether CUDAPlace can run here: a CUDA GPU torch can see (Triton compiles for it)."""
    import torch
    return torch.cuda.is_available()


def _require_cuda(what: str) -> None:
    if not is_compiled_with_cuda():
        raise PlaceError(f"{what}: no CUDA GPU is available, so there are no CUDA places "
                         f"(check is_compiled_with_cuda() first)")


def _cuda_ids() -> list[int]:
    selected = os.environ.get("FLAGS_selected_gpus")
    if selected:
        return [int(s) for s in selected.split(",")]
    import torch
    return list(range(torch.cuda.device_count()))


def cpu_places(device_count: int | None = None) -> list[CPUPlace]:
    """`device_count` CPUPlaces (default: CPU_NUM, 1 when unset)."""
    if device_count is None:
        device_count = _cpu_num()
    return [CPUPlace()] * int(device_count)


def cuda_places(device_ids=None) -> list[CUDAPlace]:
    """A CUDAPlace per id (default: FLAGS_selected_gpus, else every visible GPU)."""
    _require_cuda("cuda_places")
    if device_ids is None:
        device_ids = _cuda_ids()
    elif not isinstance(device_ids, (list, tuple)):
        device_ids = [device_ids]
    return [CUDAPlace(int(i)) for i in device_ids]


def cuda_pinned_places(device_count: int | None = None) -> list[CUDAPinnedPlace]:
    """`device_count` CUDAPinnedPlaces (default: one per selected GPU)."""
    _require_cuda("cuda_pinned_places")
    if device_count is None:
        device_count = len(_cuda_ids())
    return [CUDAPinnedPlace()] * int(device_count)


# fluidc's default device is the CPU (the C backend); set_device('gpu') picks Triton.
_expected_place: CPUPlace | CUDAPlace = CPUPlace()


def device_place(device) -> CPUPlace | CUDAPlace:
    """The place a device string ('cpu', 'gpu', 'gpu:1', 'cuda:0'), place or GPU id names."""
    if isinstance(device, (CPUPlace, CUDAPlace)):
        return device
    if isinstance(device, int) and not isinstance(device, bool):
        _require_cuda(f"device {device}")
        return CUDAPlace(device)
    if not isinstance(device, str):
        raise TypeError(f"device must be a string such as 'cpu' or 'gpu:0', a place or a GPU "
                        f"id, got {type(device).__name__}")
    name = device.lower().replace("cuda", "gpu")
    if name == "cpu":
        return CPUPlace()
    match = re.fullmatch(r"gpu(?::(\d+))?", name)
    if match is None:
        raise ValueError(f"The device must be a string which is like 'cpu', 'gpu' or 'gpu:x', "
                         f"got {device!r}")
    if not is_compiled_with_cuda():
        raise ValueError(f"The device should not be {device!r}, since no CUDA GPU is available")
    return CUDAPlace(int(match.group(1) or 0))


def set_device(device) -> CPUPlace | CUDAPlace:
    """paddle.set_device: where executors created without a place run; returns that place."""
    global _expected_place
    _expected_place = device_place(device)
    return _expected_place


def expected_place() -> CPUPlace | CUDAPlace:
    """The place set_device chose (the CPU unless it was called)."""
    return _expected_place


def get_device() -> str:
    """paddle.get_device: 'cpu' or 'gpu:N'."""
    place = _expected_place
    return f"gpu:{place.device_id}" if isinstance(place, CUDAPlace) else "cpu"
