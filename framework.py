"""fluid.framework: Program, Variable and friends, with the methods that need the lower layers.

The frontend's classes cannot import passes or runtime, so what Paddle's framework offers on
them through its C++ core (Program.desc, parse_from_string, _prune, Variable.get_value) is
bound here, once, when fluidc is imported.
"""
from .frontend.dtypes import convert_dtype as convert_np_dtype_to_dtype_  # noqa: F401
from .frontend.dtypes import get_default_dtype, set_default_dtype  # noqa: F401
from .frontend.framework import (Block, Operator, OpRole, Parameter, Program, Variable,  # noqa: F401
                                 default_main_program, default_startup_program,
                                 in_dygraph_mode, program_guard, switch_main_program,
                                 switch_startup_program)
from .passes.prune import prune_program
from .runtime import io as _io
from .runtime.desc import BlockDesc, ProgramDesc
from .runtime.place import (cpu_places, cuda_pinned_places, cuda_places,  # noqa: F401
                            is_compiled_with_cuda)
from .runtime.program_desc import parse_program

Program.desc = property(ProgramDesc)
Block.desc = property(BlockDesc)
Program.parse_from_string = staticmethod(parse_program)
Program._prune_with_input = prune_program
Program._prune = lambda self, targets: prune_program(self, [], targets)
Program.state_dict = _io.state_dict
Program.set_state_dict = _io.set_state_dict
Variable.get_value = _io.get_value
Variable.set_value = _io.set_value

# paddle.framework.io_utils and its var predicates
io_utils = _io
is_parameter = _io.is_parameter
is_persistable = _io.is_persistable


def in_pir_mode() -> bool:
    """fluidc builds legacy (ProgramDesc) programs, never PIR ones."""
    return False


__all__ = ["Block", "Operator", "Parameter", "Program", "Variable", "default_main_program",
           "default_startup_program", "program_guard", "cpu_places", "cuda_places",
           "cuda_pinned_places", "is_compiled_with_cuda", "in_dygraph_mode", "in_pir_mode",
           "is_parameter", "is_persistable", "get_default_dtype", "set_default_dtype"]
