"""BuildStrategy: Paddle's flag names choosing the passes a compiled program goes through."""
from __future__ import annotations

import enum

from ..frontend.errors import did_you_mean
from ..frontend.framework import Program


class ReduceStrategy(enum.IntEnum):
    """How data-parallel gradients are combined (Paddle's BuildStrategy.ReduceStrategy)."""

    AllReduce = 0
    Reduce = 1


class GradientScaleStrategy(enum.IntEnum):
    """How the loss gradient is scaled across devices (BuildStrategy.GradientScaleStrategy)."""

    CoeffNumDevice = 0
    One = 1
    Customized = 2


# Paddle's other BuildStrategy settings, with its defaults. They choose things fluidc decides
# itself (or distributed settings for later): accepted and kept, changing nothing here.
PADDLE_SETTINGS = {
    "reduce_strategy": ReduceStrategy.AllReduce,
    "gradient_scale_strategy": GradientScaleStrategy.CoeffNumDevice,
    "debug_graphviz_path": "", "enable_sequential_execution": False, "sequential_run": False,
    "fuse_broadcast_ops": False, "fuse_relu_depthwise_conv": False, "fuse_bn_act_ops": False,
    "fuse_bn_add_act_ops": False, "fuse_all_reduce_ops": False, "fuse_adamw": False,
    "fuse_resunit": False, "fused_attention": False, "fused_feedforward": False,
    "fuse_dot_product_attention": False, "enable_auto_fusion": False, "enable_addto": False,
    "enable_backward_optimizer_op_deps": True, "cache_runtime_context": False,
    "sync_batch_norm": False, "num_trainers": 1, "trainer_id": 0, "trainers_endpoints": [],
    "nccl_comm_num": 1, "bkcl_comm_num": 1, "use_hierarchical_allreduce": False,
    "hierarchical_allreduce_inter_nranks": 0, "async_mode": False,
    "allow_cuda_graph_capture": False, "build_cinn_pass": False,
    "mkldnn_enabled_op_types": [], "onednn_enabled_op_types": [],
}


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

    Paddle's other settings (PADDLE_SETTINGS) are accepted and kept; any other name is an
    AttributeError, as in Paddle, so a misspelt flag never passes silently.
    """

    ReduceStrategy = ReduceStrategy
    GradientScaleStrategy = GradientScaleStrategy

    def __init__(self) -> None:
        for name, value in PADDLE_SETTINGS.items():
            setattr(self, name, value.copy() if isinstance(value, list) else value)
        self.memory_optimize = True
        self.enable_inplace = True
        self.fuse_all_optimizer_ops = True
        self.fuse_elewise_add_act_ops = True
        self.fuse_reduce_ops = True
        self.fuse_gemm_epilogue = True
        self.fold_constants = True
        self.fuse_all = True

    def __setattr__(self, name: str, value) -> None:
        if name not in _FLAGS and name not in PADDLE_SETTINGS:
            raise AttributeError(f"BuildStrategy has no setting {name!r}"
                                 f"{did_you_mean(name, [*_FLAGS, *PADDLE_SETTINGS])}")
        object.__setattr__(self, name, value)

    @property
    def fusion_enabled(self) -> bool:
        """Whether pointwise ops are grouped into kernels at all."""
        return self.fuse_all and self.fuse_elewise_add_act_ops

    @property
    def reduce_fusion_enabled(self) -> bool:
        """Whether reductions share kernels with the pointwise ops around them."""
        return self.fuse_all and self.fuse_reduce_ops


# fluidc's own switches (set in __init__): the ones the passes read.
_FLAGS = ("memory_optimize", "enable_inplace", "fuse_all_optimizer_ops", "fuse_elewise_add_act_ops",
          "fuse_reduce_ops", "fuse_gemm_epilogue", "fold_constants", "fuse_all")


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


# Paddle's ExecutionStrategy settings with its defaults: how its executor schedules ops on
# threads and drops scopes. fluidc's plans decide that themselves; accepted and kept.
EXECUTION_SETTINGS = {"num_threads": 0, "use_thread_barrier": False,
                      "num_iteration_per_drop_scope": 100, "num_iteration_per_run": 1,
                      "allow_op_delay": False, "use_experimental_executor": False}


class ExecutionStrategy:
    """fluid.ExecutionStrategy: Paddle's settings (EXECUTION_SETTINGS), kept; any other name
    is an AttributeError, as in Paddle."""

    def __init__(self) -> None:
        for name, value in EXECUTION_SETTINGS.items():
            setattr(self, name, value)

    def __setattr__(self, name: str, value) -> None:
        if name not in EXECUTION_SETTINGS:
            raise AttributeError(f"ExecutionStrategy has no setting {name!r}"
                                 f"{did_you_mean(name, list(EXECUTION_SETTINGS))}")
        object.__setattr__(self, name, value)


class CompiledProgram:
    """A program with the build strategy its runs compile under (fluid.CompiledProgram)."""

    def __init__(self, program_or_graph, build_strategy: BuildStrategy | None = None) -> None:
        if not isinstance(program_or_graph, Program):  # fluidc has no Graph objects
            raise TypeError(f"The type of program_to_graph parameter is wrong, expected Graph "
                            f"or Program, but received {type(program_or_graph)}")
        self._program = program_or_graph
        self._build_strategy = build_strategy or BuildStrategy()
        self._data_parallel = None  # set by with_data_parallel: Executor.run hands runs to it

    def with_data_parallel(self, loss_name=None, build_strategy=None, exec_strategy=None,
                           share_vars_from=None, places=None) -> "CompiledProgram":
        """Run on several places (default: every place of the executor's kind, CPU_NUM on the
        CPU) and, for a program transpiled in nccl2 mode, several trainers: each feed split
        along the batch, gradients all-reduced as build_strategy.gradient_scale_strategy says,
        fetches merged (runtime/data_parallel.py). share_vars_from: another data-parallel
        CompiledProgram whose places' vars (parameters) this one reads."""
        from ..runtime.data_parallel import DataParallel
        if exec_strategy is not None and not isinstance(exec_strategy, ExecutionStrategy):
            raise TypeError(f"exec_strategy must be an ExecutionStrategy, got "
                            f"{type(exec_strategy).__name__}")
        if build_strategy is not None:
            self._build_strategy = build_strategy
        if share_vars_from is not None:
            if not isinstance(share_vars_from, CompiledProgram) or \
                    share_vars_from._data_parallel is None:
                raise TypeError("share_vars_from must be a CompiledProgram made data-parallel "
                                "with with_data_parallel")
            share_vars_from = share_vars_from._data_parallel
        self._data_parallel = DataParallel(self._program, loss_name, self._build_strategy,
                                           share_vars_from, places)
        return self
