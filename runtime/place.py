"""Places: where tensors live and which backend compiles kernels for them."""
from __future__ import annotations


class CPUPlace:
    """The host: kernels are generated C."""

    def __eq__(self, other) -> bool:
        return isinstance(other, CPUPlace)

    def __hash__(self) -> int:
        return hash("cpu")

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

    def __repr__(self) -> str:
        return f"Place(gpu:{self.device_id})"


class CUDAPinnedPlace(CPUPlace):
    """Page-locked host memory; computes like CPUPlace."""

    def __repr__(self) -> str:
        return "Place(gpu_pinned)"
