"""paddle.static: the 2.x static-graph surface, re-exported."""
from ..frontend.framework import (Operator, Parameter, Program, Variable, default_main_program,
                                  default_startup_program, program_guard)
from ..frontend.layers.control_flow import Print
from ..frontend.layers.ema import ExponentialMovingAverage
from ..frontend.layers.metric import auc
from ..frontend.layers.nn import accuracy
from ..frontend.layers.tensor import create_global_var, create_parameter, static_data as data
from ..passes.backward import append_backward, gradients
from ..passes.strategy import BuildStrategy, CompiledProgram, ExecutionStrategy
from ..runtime.data_parallel import ParallelExecutor
from ..runtime.feeder import DataFeeder
from ..runtime import CPUPlace, CUDAPinnedPlace, CUDAPlace, Executor, Scope, global_scope, scope_guard
from ..runtime.place import cpu_places, cuda_places
from ..runtime.io import (deserialize_persistables, deserialize_program, load_from_file,
                          load_program_state, load_vars, normalize_program, save_to_file,
                          save_vars, serialize_persistables, set_program_state,
                          static_load as load,
                          static_load_inference_model as load_inference_model,
                          static_save as save, static_save_inference_model as save_inference_model,
                          static_serialize_program as serialize_program)
from . import io, nn
from .indexing import setitem
from ..dygraph.jit import InputSpec

__all__ = ["Operator", "Parameter", "Program", "Variable", "default_main_program",
           "default_startup_program", "program_guard", "ExponentialMovingAverage", "Print", "accuracy", "auc",
           "create_global_var", "create_parameter", "data", "append_backward", "gradients", "BuildStrategy",
           "CompiledProgram", "ExecutionStrategy", "ParallelExecutor", "DataFeeder", "CPUPlace",
           "CUDAPinnedPlace", "CUDAPlace",
           "Executor", "Scope", "global_scope", "scope_guard", "cpu_places", "cuda_places",
           "deserialize_persistables", "deserialize_program", "load_from_file",
           "load_program_state", "load_vars", "normalize_program", "save_to_file", "save_vars",
           "serialize_persistables", "set_program_state", "load", "load_inference_model", "save",
           "save_inference_model", "serialize_program", "io", "nn", "InputSpec", "setitem"]


from fluidc.frontend.errors import missing_attribute as _missing_attribute  # noqa: E402

__getattr__ = _missing_attribute("fluidc.static", globals())  # an unknown name: close names, not a bare error
