"""BuildStrategy: Paddle's flag names choosing the passes a compiled program goes through."""
from __future__ import annotations


class BuildStrategy:
    """Pass switches under Paddle's names.

    fuse_elewise_add_act_ops: pointwise chains (bias add + activation and longer) as one kernel;
    fuse_reduce_ops: reductions with their prologue/epilogue (softmax, layer_norm) as one kernel;
    memory_optimize: buffers whose lives do not overlap share bytes of the plan's arena;
    enable_inplace: a kernel's output overwrites an input that dies in that kernel;
    fuse_all_optimizer_ops: independent pointwise kernels in a row (the optimizer updates of
    every parameter) run together, one parallel region on CPU;
    fuse_gemm_epilogue: on CPU, matrix products are generated kernels that apply the pointwise
    ops after them (bias, activation, residual) to each tile; otherwise library calls, with a
    bias add folded into the call;
    fold_constants: values computed from constants alone are computed while compiling;
    fuse_all = False turns every fusion off, for comparison.
    """

    def __init__(self) -> None:
        self.memory_optimize = True
        self.enable_inplace = True
        self.fuse_all_optimizer_ops = True
        self.fuse_elewise_add_act_ops = True
        self.fuse_reduce_ops = True
        self.fuse_gemm_epilogue = True
        self.fold_constants = True
        self.fuse_all = True

    @property
    def fusion_enabled(self) -> bool:
        """Whether pointwise ops are grouped into kernels at all."""
        return self.fuse_all and self.fuse_elewise_add_act_ops

    @property
    def reduce_fusion_enabled(self) -> bool:
        """Whether reductions share kernels with the pointwise ops around them."""
        return self.fuse_all and self.fuse_reduce_ops

    def signature(self) -> tuple:
        """The flags as a hashable key for plan caches."""
        return tuple(sorted(self.__dict__.items()))


# The passes a pipeline can be given by name (`fluidc inspect --passes`), each with the flag
# that switches it. Prune (dead-code elimination: only what the fetches and the persistable
# updates need) and the lowering of composite ops always run.
PASSES = {
    "fold_constants": "fold_constants",
    "fuse": "fuse_elewise_add_act_ops",
    "fuse_reduce": "fuse_reduce_ops",
    "fuse_gemm_epilogue": "fuse_gemm_epilogue",
    "inplace": "enable_inplace",
    "fuse_optimizer": "fuse_all_optimizer_ops",
    "memory_optimize": "memory_optimize",
}


def strategy_for(names) -> BuildStrategy:
    """A BuildStrategy running exactly the named passes (PASSES keys; 'none' for none)."""
    chosen = set(names) - {"none"}
    unknown = chosen - set(PASSES)
    if unknown:
        raise ValueError(f"unknown passes {sorted(unknown)}; choose from "
                         f"{', '.join(PASSES)} or none")
    s = BuildStrategy()
    for name, flag in PASSES.items():
        setattr(s, flag, name in chosen)
    return s


class CompiledProgram:
    """A program with the build strategy its runs compile under (fluid.CompiledProgram)."""

    def __init__(self, program_or_graph, build_strategy: BuildStrategy | None = None) -> None:
        self._program = program_or_graph
        self._build_strategy = build_strategy or BuildStrategy()

    def with_data_parallel(self, loss_name=None, build_strategy=None, exec_strategy=None,
                           share_vars_from=None, places=None) -> "CompiledProgram":
        """Single-device fluidc: keeps the build strategy and returns self, as Paddle does on one place."""
        if build_strategy is not None:
            self._build_strategy = build_strategy
        return self
