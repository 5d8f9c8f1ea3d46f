"""fluid.compiler: CompiledProgram and BuildStrategy (re-exports)."""
from .passes.strategy import BuildStrategy, CompiledProgram

__all__ = ["BuildStrategy", "CompiledProgram"]
