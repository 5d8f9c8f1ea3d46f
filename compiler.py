"""fluid.compiler: CompiledProgram and BuildStrategy (re-exports)."""
from .passes.strategy import BuildStrategy, CompiledProgram, ExecutionStrategy

__all__ = ["BuildStrategy", "CompiledProgram", "ExecutionStrategy"]
