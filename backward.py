"""fluid.backward: append_backward and gradients (re-exports; the pass is passes/backward.py)."""
from .passes.backward import append_backward, calc_gradient, gradients

__all__ = ["append_backward", "calc_gradient", "gradients"]
