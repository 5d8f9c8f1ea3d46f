"""fluidc: PaddlePaddle Fluid's static graphs, compiled. `import fluidc as fluid` (1.x) or
`import fluidc as paddle` (2.x static) and write the programs of the Paddle docs."""
from . import frontend  # noqa: F401
from .frontend import initializer, unique_name  # noqa: F401
from .frontend import layers  # noqa: F401
from .frontend.dtypes import VarType
from .frontend.errors import FluidcError
from .frontend.framework import (Operator, Parameter, Program, Variable, default_main_program,
                                 default_startup_program, program_guard)
from .frontend.layers.api2 import (abs, add, cast, concat, divide, exp, flatten, full, log, matmul,  # noqa: A004
                                   max, maximum, mean, min, minimum, multiply, ones, reshape, scale,
                                   sqrt, square, subtract, sum, tanh, transpose, zeros)
from .frontend.layers.tensor import create_parameter, static_data as data
from .frontend.param_attr import ParamAttr
from .passes import backward  # noqa: F401
from .passes import optimizer  # noqa: F401
from .passes.memory import memory_optimize
from .passes.strategy import BuildStrategy, CompiledProgram
from .runtime import (CPUPlace, CUDAPinnedPlace, CUDAPlace, Executor, LoDTensor, Scope,
                      global_scope, scope_guard)
from . import core, io, nn, reader, static  # noqa: F401,E402
from .runtime.feeder import DataFeeder
from .runtime.lod import create_lod_tensor, create_random_int_lodtensor
from .runtime.reader import batch
from .runtime import io as _io
from .runtime.io import load, save  # paddle.save / paddle.load

# Program.state_dict needs the scope (runtime), which frontend may not import: bound here.
Program.state_dict = _io.state_dict
Program.set_state_dict = _io.set_state_dict

__version__ = "0.1.0"


def enable_static() -> None:
    """fluidc programs are always static; kept so 2.x scripts run unchanged."""


def disable_static() -> None:
    """Dynamic mode is not part of fluidc."""
    raise FluidcError("fluidc runs static programs only; dygraph mode is not supported")


def in_dynamic_mode() -> bool:
    return False
