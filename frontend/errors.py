"""The one error hierarchy of fluidc: every error names the op, var or file and what was expected."""


class FluidcError(Exception):
    """Base of every error fluidc raises on purpose."""


def name_op(error: FluidcError, op_type: str) -> FluidcError:
    """`error`, its message led by the op's name unless it names the op already."""
    if f"'{op_type}'" in str(error):
        return error
    named = type(error)(f"op '{op_type}': {error}")
    named.__cause__ = error.__cause__
    return named


class FeedError(FluidcError, ValueError):
    """A feed is missing, unknown, or of the wrong dtype, shape or LoD."""


class FetchError(FluidcError, ValueError):
    """A fetch target is unknown to the program."""


class OpError(FluidcError, ValueError):
    """An op was built or run with inputs, outputs or attributes its definition rejects."""


class IndexRangeError(OpError, IndexError):
    """An index (a label, an id, a gather position) outside the range its op accepts, with the
    op, the var and the value named."""


class ShapeError(OpError):
    """Shapes that no op can accept, with the op and the shapes named."""


class UninitializedVarError(FluidcError, RuntimeError):
    """A persistable var was read before anything (the startup program, a load) set it."""


class PlaceError(FluidcError, RuntimeError):
    """A place (device) this machine cannot run: no GPU, no Triton, no such device."""


class CompileError(FluidcError, RuntimeError):
    """The system compiler rejected generated source (a fluidc bug: the log is attached)."""


class FormatError(FluidcError, ValueError):
    """A model or checkpoint file does not hold what its format promises."""
