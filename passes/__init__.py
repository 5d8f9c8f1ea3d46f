"""Passes: Program <-> networkx graph, prune, backward, lowering, fusion, the run pipeline."""
from .backward import append_backward
from .graph import build_graph, to_graph, to_program
from .memory import memory_optimize, planned_arena
from .pipeline import LoweredProgram, lower_program
from .prune import prune_ops
from .strategy import BuildStrategy

__all__ = ["append_backward", "build_graph", "to_graph", "to_program", "LoweredProgram",
           "lower_program", "prune_ops", "BuildStrategy", "memory_optimize", "planned_arena"]
