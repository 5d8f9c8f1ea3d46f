"""Codegen: fused kernel groups -> C (CPU) or Triton (GPU) source, compiled once and cached."""
from .c_plan import CModule, generate_c

__all__ = ["CModule", "generate_c"]
