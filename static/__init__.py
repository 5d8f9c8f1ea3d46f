"""paddle.static: the 2.x static-graph surface, re-exported."""
from ..frontend.framework import Program, default_main_program, default_startup_program, program_guard
from ..frontend.layers.tensor import create_global_var, static_data as data
from ..passes.backward import append_backward
from ..passes.strategy import BuildStrategy
from ..runtime.feeder import DataFeeder
from ..runtime import CPUPlace, CUDAPlace, Executor, Scope, global_scope, scope_guard
from ..runtime.io import (deserialize_program, load_program_state, load_vars, save_vars,
                          set_program_state, static_load as load,
                          static_load_inference_model as load_inference_model,
                          static_save as save, static_save_inference_model as save_inference_model,
                          static_serialize_program as serialize_program)
from . import nn

__all__ = ["Program", "default_main_program", "default_startup_program", "program_guard",
           "create_global_var", "data", "append_backward", "BuildStrategy", "CPUPlace",
           "CUDAPlace", "Executor", "Scope", "global_scope", "scope_guard", "nn",
           "deserialize_program", "load_program_state", "load_vars", "save_vars",
           "set_program_state", "load", "load_inference_model", "save", "save_inference_model",
           "serialize_program", "DataFeeder"]
