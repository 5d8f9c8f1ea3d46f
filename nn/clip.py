"""paddle.nn.clip: gradient clipping by value, by norm and by global norm."""
from ..passes.clip import (ClipGradBase, ClipGradByGlobalNorm, ClipGradByNorm, ClipGradByValue,
                           GradientClipBase, GradientClipByGlobalNorm, GradientClipByNorm,
                           GradientClipByValue, append_gradient_clip_ops, set_gradient_clip)
from ..frontend.layers.conv import clip_by_norm

__all__ = ["ClipGradBase", "ClipGradByValue", "ClipGradByNorm", "ClipGradByGlobalNorm",
           "GradientClipBase", "GradientClipByValue", "GradientClipByNorm",
           "GradientClipByGlobalNorm", "set_gradient_clip", "append_gradient_clip_ops",
           "clip_by_norm"]
