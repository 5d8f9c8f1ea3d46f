"""BuildStrategy: Paddle's flag names choosing the passes a compiled program goes through."""
from __future__ import annotations


class BuildStrategy:
    """Pass switches under Paddle's names; `fuse_all` turns every fusion off when False."""

    def __init__(self) -> None:
        self.memory_optimize = False
        self.enable_inplace = True
        self.fuse_elewise_add_act_ops = True
        self.fuse_all_optimizer_ops = True
        self.fuse_all = True
        self.debug_graphviz_path = ""

    @property
    def fusion_enabled(self) -> bool:
        """Whether pointwise chains and reduction prologues are fused."""
        return self.fuse_all

    def signature(self) -> tuple:
        """The flags as a hashable key for plan caches."""
        return tuple(sorted(self.__dict__.items()))
