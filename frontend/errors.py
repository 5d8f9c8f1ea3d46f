"""The one error hierarchy of fluidc: every error names the op, var or file and what was expected."""
import difflib


def did_you_mean(name: str, choices) -> str:
    """"; did you mean 'relu'?" when some of `choices` are close to the unknown `name`, else ""."""
    close = difflib.get_close_matches(name, [c for c in choices if isinstance(c, str)], n=3,
                                      cutoff=0.6)
    return f"; did you mean {' or '.join(repr(c) for c in close)}?" if close else ""


def missing_attribute(module: str, namespace: dict):
    """A module-level __getattr__ for fluidc's Paddle modules: an unknown name raises an
    AttributeError that names the module as the user wrote it and the close names it has."""
    def __getattr__(name: str):
        if name.startswith("__"):
            raise AttributeError(f"module '{module}' has no attribute '{name}'")
        public = [n for n in namespace if not n.startswith("_")]
        raise AttributeError(f"{module} has no '{name}'{did_you_mean(name, public)} "
                             f"(dir({module}) lists what fluidc implements)")
    return __getattr__


class FluidcError(Exception):
    """Base of every error fluidc raises on purpose."""


def name_op(error: FluidcError, op, detail: str = "") -> FluidcError:
    """`error`, its message led by the op's name (unless it names the op already), then
    `detail`, then where the user's code created the op (an OpDesc's callsite)."""
    text = str(error)
    if f"'{op.type}'" not in text:
        text = f"op '{op.type}': {text}"
    text += detail
    if op.callsite and op.callsite not in text:
        text += f"\n  (the op was created by {op.callsite})"
    if text == str(error):
        return error
    named = type(error)(text)
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


class LoDFetchError(FluidcError, RuntimeError):
    """A fetched tensor holds a LoD, which an ndarray cannot carry (return_numpy=True); Paddle's
    as_numpy words it so."""

    def __init__(self) -> None:
        super().__init__("Some of your fetched tensors hold LoD information. They can not be "
                         "completely cast to Python ndarray. Please set the parameter "
                         "'return_numpy' as 'False' to return DenseTensor itself directly.")


class UninitializedVarError(FluidcError, RuntimeError):
    """A persistable var was read before anything (the startup program, a load) set it."""


class PlaceError(FluidcError, RuntimeError):
    """A place (device) this machine cannot run: no GPU, no Triton, no such device."""


class CompileError(FluidcError, RuntimeError):
    """The system compiler rejected generated source (a fluidc bug: the log is attached)."""


class FormatError(FluidcError, ValueError):
    """A model or checkpoint file does not hold what its format promises."""
